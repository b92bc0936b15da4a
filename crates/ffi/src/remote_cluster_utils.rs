//! Failover translation for C: `mm_translate_offsets` (MM2's `RemoteClusterUtils
//! .translateOffsets`, for one group, a list or a regex in one read of the checkpoints topic) and
//! `mm_failover_report` (the dry run of moving those groups to their translated offsets).
//!
//! The target conf is an `mm_conf_t` of librdkafka settings for the **target** cluster, plus
//! optionally MM2's `replication.policy.*` keys, which name the checkpoints topic as the
//! checkpoint task named it and never reach librdkafka (Java's `MirrorClientConfig` reads the
//! same keys from the same map).

use std::collections::BTreeMap;
use std::ffi::{c_char, c_int};

use super::boundary::{
    borrow, borrow_mut, copy_row, destroy, give, growable, into_handle, lend, mm_result, out,
    row_text, run, sized_out, text, CText, Failure,
};
use super::conf::mm_conf_t;
use super::task::timeout_of;
use mm2_checkpoint::remote_cluster_utils::{
    failover_report, translate_offsets, FailoverReport, GroupSelector, TranslatedOffset,
    TranslatedOffsets,
};
use mm2_checkpoint::ConfigError;
use mm2_checkpoint::MirrorClientConfig;
use mm2_checkpoint::ReplicationPolicy;
use mm2_checkpoint::TopicPartition;

/// How `mm_translate_offsets` reads its `groups` text (passed as an `int`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum mm_group_selector {
    /// `groups` is one group id, matched exactly (what Java's `translateOffsets` takes).
    One = 0,
    /// `groups` is a comma-separated list of group ids, each trimmed (MM2's list syntax).
    List = 1,
    /// `groups` is a regex a whole group id must match (MM2's `groups` setting syntax).
    Regex = 2,
}

/// Splits a target conf into the replication policy and the librdkafka settings; the rules
/// are core's ([`MirrorClientConfig`]).
pub(crate) fn split_target_conf(
    conf: &mm_conf_t,
) -> Result<(ReplicationPolicy, BTreeMap<String, String>), Failure> {
    let (config, warnings) = MirrorClientConfig::from_properties(
        conf.entries().iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )?;
    for warning in warnings {
        log::warn!("{warning}");
    }
    let client = config.client_config().clone();
    Ok((config.replication_policy, client))
}

/// Reads the `kind` and `groups` parameters of `mm_translate_offsets`.
pub(crate) fn group_selector(kind: c_int, groups: &str) -> Result<GroupSelector, Failure> {
    const ONE: c_int = mm_group_selector::One as c_int;
    const LIST: c_int = mm_group_selector::List as c_int;
    const REGEX: c_int = mm_group_selector::Regex as c_int;
    match kind {
        ONE => GroupSelector::parse_one(groups).map_err(as_argument),
        LIST => GroupSelector::parse_list(groups).map_err(as_argument),
        REGEX => GroupSelector::regex(groups).map_err(|e| {
            Failure::invalid_argument(format!("`groups` is not a valid regex: {}", e.reason))
        }),
        other => Err(Failure::invalid_argument(format!(
            "kind {other} is not MM_GROUP_SELECTOR_ONE (0), MM_GROUP_SELECTOR_LIST (1) or \
             MM_GROUP_SELECTOR_REGEX (2)"
        ))),
    }
}

/// A `groups` text the Rust API refuses, as the argument error C callers expect.
fn as_argument(e: ConfigError) -> Failure {
    Failure::invalid_argument(format!("`{}` {}", e.key, e.reason))
}

/// A translated offset with its text ready for C.
struct Entry {
    group: String,
    topic_partition: TopicPartition,
    translated: TranslatedOffset,
    c_group: CText,
    c_topic: CText,
    c_metadata: CText,
}

impl Entry {
    fn new(group: &str, topic_partition: &TopicPartition, translated: &TranslatedOffset) -> Self {
        Entry {
            group: group.to_string(),
            topic_partition: topic_partition.clone(),
            translated: translated.clone(),
            c_group: CText::new(group),
            c_topic: CText::new(&topic_partition.topic),
            c_metadata: CText::new(&translated.metadata),
        }
    }
}

/// What `mm_translate_offsets` read, filled by `mm_translated_offsets_get_counts`. Set
/// `struct_size` to `sizeof(mm_translation_counts)` first; fields are only ever added at the
/// end.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_translation_counts {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// Records read from the checkpoints topic (all groups).
    pub records_read: u64,
    /// Records that failed to decode (including tombstones), skipped.
    pub malformed_records: u64,
    /// Checkpoints of selected groups with a negative downstream offset, skipped.
    pub negative_offset_records: u64,
}

growable!(unsafe mm_translation_counts, 4);

/// Translated offsets: one entry per group and **target** topic-partition (the topic already
/// renamed, ready for a consumer's seek or commit), ordered by group, topic, partition. Made by
/// `mm_translate_offsets` or `mm_translated_offsets_new`; freed by
/// `mm_translated_offsets_destroy`. Opaque; owns all its text. Any number of threads may read
/// it at once; `mm_translated_offsets_add` needs it alone.
#[allow(non_camel_case_types)]
pub struct mm_translated_offsets_t {
    checkpoints_topic: CText,
    checkpoints_topic_name: String,
    counts: mm_translation_counts,
    /// Sorted by (group, topic-partition), one entry per pair.
    entries: Vec<Entry>,
}

impl mm_translated_offsets_t {
    fn from_translated(t: &TranslatedOffsets) -> Self {
        // The maps iterate in (group, topic-partition) order, which is the order kept here.
        let entries = t
            .groups
            .iter()
            .flat_map(|(group, offsets)| {
                offsets.iter().map(move |(tp, o)| Entry::new(group, tp, o))
            })
            .collect();
        mm_translated_offsets_t {
            checkpoints_topic: CText::new(&t.checkpoints_topic),
            checkpoints_topic_name: t.checkpoints_topic.clone(),
            counts: mm_translation_counts {
                struct_size: 0,
                records_read: t.records_read,
                malformed_records: t.malformed_records,
                negative_offset_records: t.negative_offset_records,
            },
            entries,
        }
    }

    fn empty() -> Self {
        mm_translated_offsets_t::from_translated(&TranslatedOffsets::default())
    }

    /// Adds or replaces the entry of `group` and `topic_partition`, keeping the order.
    fn put(&mut self, group: &str, topic_partition: &TopicPartition, t: &TranslatedOffset) {
        let entry = Entry::new(group, topic_partition, t);
        let at = self.entries.binary_search_by(|e| {
            (e.group.as_str(), &e.topic_partition).cmp(&(group, topic_partition))
        });
        match at {
            Ok(i) => self.entries[i] = entry,
            Err(i) => self.entries.insert(i, entry),
        }
    }

    /// Back to the Rust form `failover_report` takes.
    pub(crate) fn to_translated(&self) -> TranslatedOffsets {
        let mut groups: BTreeMap<String, BTreeMap<TopicPartition, TranslatedOffset>> =
            BTreeMap::new();
        for e in &self.entries {
            groups
                .entry(e.group.clone())
                .or_default()
                .insert(e.topic_partition.clone(), e.translated.clone());
        }
        TranslatedOffsets {
            checkpoints_topic: self.checkpoints_topic_name.clone(),
            groups,
            records_read: self.counts.records_read,
            malformed_records: self.counts.malformed_records,
            negative_offset_records: self.counts.negative_offset_records,
        }
    }
}

/// Reads the checkpoints topic of `source_alias` on the target cluster once, from its start to
/// its end now, and writes to `*translated_out` the latest translated offset of every selected
/// group on every target partition it has a checkpoint for (free it with
/// `mm_translated_offsets_destroy`). A group without checkpoints has no entries; that is not an
/// error.
///
/// `target_conf` holds librdkafka settings for the **target** cluster (at least
/// `bootstrap.servers`; security settings as librdkafka spells them). It may also hold
/// `replication.policy.class`, `replication.policy.separator` and
/// `replication.policy.internal.topic.separator.enabled`, set as for the checkpoint task: they
/// name the checkpoints topic (`<source_alias>.checkpoints.internal` by default) and are not
/// passed to librdkafka. The conf is only read; it stays the caller's.
///
/// `kind` is an `mm_group_selector`: `groups` is then one group id, a comma-separated list, or a
/// regex that must match whole group ids.
///
/// **Blocks** up to `timeout_ms` (`MM_TIMEOUT_INFINITE` = no limit) for the whole call. Unlike
/// Java, reaching the timeout before the end of the topic is `MM_RESULT_TIMED_OUT`, never a
/// partial answer; a missing checkpoints topic is `MM_RESULT_KAFKA` naming the topic.
/// Malformed records are skipped and counted (`mm_translated_offsets_get_counts`).
///
/// Other results: `MM_RESULT_NULL_PARAMETER` for a NULL `target_conf`, `source_alias`, `groups`
/// or `translated_out`; `MM_RESULT_INVALID_ARGUMENT` for a bad `kind`, an empty group, a regex
/// that does not compile (the message says why), a timeout below -1, or non-UTF-8 text;
/// `MM_RESULT_INVALID_CONFIG` for an unsupported policy class or a librdkafka setting it
/// rejects (e.g. an unknown property); `MM_RESULT_KAFKA` when reading fails. On failure
/// `*translated_out` is untouched.
///
/// Any thread; calls may run concurrently (each uses its own consumer). `target_conf` may be
/// read by other threads meanwhile, not changed.
///
/// # Safety
/// `target_conf` is NULL or a live conf; `source_alias` and `groups` are NULL or
/// NUL-terminated; `translated_out` is NULL or valid for writing a pointer.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn mm_translate_offsets(
    target_conf: *const mm_conf_t,
    source_alias: *const c_char,
    kind: c_int,
    groups: *const c_char,
    timeout_ms: i32,
    translated_out: *mut *mut mm_translated_offsets_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, alias, groups, translated_out) = unsafe {
            (
                borrow(target_conf, "target_conf")?,
                text(source_alias, "source_alias")?,
                text(groups, "groups")?,
                out(translated_out, "translated_out")?,
            )
        };
        if alias.is_empty() {
            return Err(Failure::invalid_argument("`source_alias` is empty"));
        }
        let selector = group_selector(kind, groups)?;
        let timeout = timeout_of(timeout_ms)?;
        let (policy, settings) = split_target_conf(conf)?;
        let translated = translate_offsets(&settings, alias, &policy, &selector, timeout)?;
        translated_out.write(into_handle(mm_translated_offsets_t::from_translated(
            &translated,
        )));
        Ok(())
    })
}

/// Makes an empty list of translated offsets and writes it to `*translated_out`, to fill with
/// `mm_translated_offsets_add` and pass to `mm_failover_report` (e.g. a plan kept from an
/// earlier translation, or edited). Free it with `mm_translated_offsets_destroy`.
/// `MM_RESULT_NULL_PARAMETER` when `translated_out` is NULL. Non-blocking; any thread.
///
/// # Safety
/// `translated_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_new(
    translated_out: *mut *mut mm_translated_offsets_t,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(translated_out, "translated_out", || {
            Ok(into_handle(mm_translated_offsets_t::empty()))
        })
    })
}

/// Adds the translated `offset` of `group` on target `topic`/`partition` (with the source
/// `upstream_offset` it translates, -1 when unknown, and the commit's `metadata`, copied),
/// replacing an entry of the same group and partition. The list stays ordered, so entry
/// indices may shift.
///
/// `MM_RESULT_INVALID_ARGUMENT` for an empty group or topic, a negative partition or offset,
/// or non-UTF-8 text; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL. On failure the list is
/// unchanged. Non-blocking. No other thread may use `translated` during the call.
///
/// # Safety
/// `translated` is NULL or a live list; the strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_add(
    translated: *mut mm_translated_offsets_t,
    group: *const c_char,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    upstream_offset: i64,
    metadata: *const c_char,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (list, group, topic, metadata) = unsafe {
            (
                borrow_mut(translated, "translated")?,
                text(group, "group")?,
                text(topic, "topic")?,
                text(metadata, "metadata")?,
            )
        };
        if group.is_empty() || topic.is_empty() {
            return Err(Failure::invalid_argument(
                "`group` and `topic` must not be empty",
            ));
        }
        if partition < 0 || offset < 0 {
            return Err(Failure::invalid_argument(format!(
                "partition {partition} and offset {offset} must not be negative"
            )));
        }
        list.put(
            group,
            &TopicPartition::new(topic, partition),
            &TranslatedOffset {
                offset,
                metadata: metadata.to_string(),
                upstream_offset,
            },
        );
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `translated` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_len(
    translated: *const mm_translated_offsets_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(translated, "translated")?.entries.len())
        })
    })
}

/// One entry of a list of translated offsets, filled by `mm_translated_offsets_row`. Set
/// `struct_size` to `sizeof(mm_translated_offset_row)` first; fields are only ever added at the
/// end. Text is UTF-8, NUL-terminated, owned by the list (valid until it is destroyed or
/// changed by `mm_translated_offsets_add`), with its length in bytes beside it.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_translated_offset_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group (same name on both clusters).
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The target topic, already renamed by the replication policy.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The partition.
    pub partition: i64,
    /// Where the group should resume on the target (the checkpoint's downstream offset).
    pub offset: i64,
    /// The group's committed offset on the source that this translates; -1 when unknown (an
    /// entry added without it).
    pub upstream_offset: i64,
    /// The source commit's metadata.
    pub metadata: *const c_char,
    /// Length of `metadata` in bytes.
    pub metadata_len: u64,
}

growable!(unsafe mm_translated_offset_row, 10);

impl Entry {
    fn row(&self) -> mm_translated_offset_row {
        let (group, group_len) = row_text(Some(&self.c_group));
        let (topic, topic_len) = row_text(Some(&self.c_topic));
        let (metadata, metadata_len) = row_text(Some(&self.c_metadata));
        mm_translated_offset_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.topic_partition.partition.into(),
            offset: self.translated.offset,
            upstream_offset: self.translated.upstream_offset.max(-1),
            metadata,
            metadata_len,
        }
    }
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the list's
/// length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is NULL
/// (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `translated` is NULL or a live list; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_row(
    translated: *const mm_translated_offsets_t,
    index: usize,
    row_out: *mut mm_translated_offset_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            translated,
            "translated",
            index,
            |l: &mm_translated_offsets_t| l.entries.as_slice(),
            Entry::row,
            row_out,
        )
    })
}

/// The checkpoints topic that was read (e.g. `"primary.checkpoints.internal"`; `""` for a list
/// from `mm_translated_offsets_new`), as text owned by the list
/// (valid until it is destroyed) and, when `len_out` is not NULL, its length in bytes.
///
/// # Safety
/// `translated` is NULL or a live list; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_checkpoints_topic(
    translated: *const mm_translated_offsets_t,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        lend(text_out, len_out, || {
            Ok(&borrow(translated, "translated")?.checkpoints_topic)
        })
    })
}

/// Fills `*counts_out` with what the translation read and skipped (all 0 for a list from
/// `mm_translated_offsets_new`). `MM_RESULT_NULL_PARAMETER` when a pointer is NULL (nothing
/// written), `MM_RESULT_INVALID_ARGUMENT` when `counts_out->struct_size` is below 8; at most
/// `struct_size` bytes are written and it then holds the bytes filled. Non-blocking, any thread.
///
/// # Safety
/// `translated` is NULL or a live list; `counts_out` is NULL or valid for reading and writing
/// `counts_out->struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_get_counts(
    translated: *const mm_translated_offsets_t,
    counts_out: *mut mm_translation_counts,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (list, counts_out) = unsafe {
            (
                borrow(translated, "translated")?,
                sized_out(counts_out, "counts_out")?,
            )
        };
        counts_out.write(list.counts);
        Ok(())
    })
}

/// Frees a list of translated offsets and its text. NULL is ignored. No other call may use it
/// during or after.
///
/// # Safety
/// `translated` is NULL or a list from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_translated_offsets_destroy(translated: *mut mm_translated_offsets_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(translated) };
}

/// Totals of a failover report, filled by `mm_failover_report_get_totals`. Set `struct_size` to
/// `sizeof(mm_failover_totals)` first; fields are only ever added at the end.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_failover_totals {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// Entries (group and target partition pairs).
    pub partitions: u64,
    /// Entries whose group has no committed offset on the partition on the target yet.
    pub without_current_offset: u64,
    /// Offsets skipped over all entries (saturating).
    pub skipped: u64,
    /// Offsets read again over all entries (saturating).
    pub reread: u64,
}

growable!(unsafe mm_failover_totals, 5);

struct Row {
    group_name: String,
    group: CText,
    topic: CText,
    partition: i32,
    translated_offset: i64,
    current_offset: Option<i64>,
    skipped: i64,
    reread: i64,
}

/// A failover dry run: per group and target partition, the translated offset, the group's
/// committed offset on the target now, and how many offsets moving there would skip or read
/// again. The counts are offset distances, so they bound the records involved (compaction and
/// transaction markers make them smaller). Ordered by group, then topic and partition. Opaque;
/// owns its text; freed by `mm_failover_report_destroy`. Immutable: any number of threads may
/// read it at once.
#[allow(non_camel_case_types)]
pub struct mm_failover_report_t {
    rows: Vec<Row>,
    totals: mm_failover_totals,
}

impl mm_failover_report_t {
    pub(crate) fn new(report: &FailoverReport) -> Self {
        let clamp = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
        let rows = report
            .partitions
            .iter()
            .map(|p| Row {
                group_name: p.group.clone(),
                group: CText::new(&p.group),
                topic: CText::new(&p.topic_partition.topic),
                partition: p.topic_partition.partition,
                translated_offset: p.translated_offset,
                current_offset: p.current_offset,
                skipped: clamp(p.skipped),
                reread: clamp(p.reread),
            })
            .collect();
        let totals = mm_failover_totals {
            struct_size: 0,
            partitions: report.partitions.len() as u64,
            without_current_offset: report
                .partitions
                .iter()
                .filter(|p| p.current_offset.is_none())
                .count() as u64,
            skipped: report.total_skipped(),
            reread: report.total_reread(),
        };
        mm_failover_report_t { rows, totals }
    }
}

/// Compares each entry of `translated` with its group's committed offset on the target now and
/// writes the dry run to `*report_out` (free it with `mm_failover_report_destroy`). Changes
/// nothing on the cluster. `target_conf` is read as by `mm_translate_offsets` (the policy keys
/// are ignored here); it and `translated` stay the caller's.
///
/// **Blocks** up to `timeout_ms` (`MM_TIMEOUT_INFINITE` = no limit) while the committed offsets
/// are fetched (all groups batched). `MM_RESULT_TIMED_OUT` when the broker does not answer in
/// time; `MM_RESULT_KAFKA` when a group's offsets cannot be fetched (the message names the
/// group); `MM_RESULT_INVALID_ARGUMENT` for a timeout below -1; `MM_RESULT_NULL_PARAMETER`. An
/// empty `translated` gives an empty report without contacting the cluster. On failure
/// `*report_out` is untouched.
///
/// Any thread; concurrent calls are fine. Other threads may read `target_conf` and
/// `translated` meanwhile, not change them.
///
/// # Safety
/// `target_conf` is NULL or a live conf; `translated` is NULL or a live list; `report_out` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report(
    target_conf: *const mm_conf_t,
    translated: *const mm_translated_offsets_t,
    timeout_ms: i32,
    report_out: *mut *mut mm_failover_report_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, list, report_out) = unsafe {
            (
                borrow(target_conf, "target_conf")?,
                borrow(translated, "translated")?,
                out(report_out, "report_out")?,
            )
        };
        let timeout = timeout_of(timeout_ms)?;
        let (_, settings) = split_target_conf(conf)?;
        let report = failover_report(&settings, &list.to_translated(), timeout)?;
        report_out.write(into_handle(mm_failover_report_t::new(&report)));
        Ok(())
    })
}

/// Writes the number of entries to `*len_out`. Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; the outputs are NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report_len(
    report: *const mm_failover_report_t,
    len_out: *mut usize,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        give(len_out, "len_out", || {
            Ok(borrow(report, "report")?.rows.len())
        })
    })
}

/// One entry of a failover report, filled by `mm_failover_report_row`. Set `struct_size` to
/// `sizeof(mm_failover_row)` first; fields are only ever added at the end. Text is UTF-8,
/// NUL-terminated, owned by the report (valid until it is destroyed), with its length in bytes
/// beside it.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct mm_failover_row {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// The consumer group.
    pub group: *const c_char,
    /// Length of `group` in bytes.
    pub group_len: u64,
    /// The target topic.
    pub topic: *const c_char,
    /// Length of `topic` in bytes.
    pub topic_len: u64,
    /// The partition.
    pub partition: i64,
    /// The translated offset, where the group would resume.
    pub translated_offset: i64,
    /// The group's committed offset on the target now; -1 when it has none.
    pub current_offset: i64,
    /// Offsets a consumer of the group would jump over (translated ahead of current),
    /// saturated at `INT64_MAX`.
    pub skipped: i64,
    /// Offsets a consumer of the group would read again (translated behind current), saturated
    /// at `INT64_MAX`.
    pub reread: i64,
}

growable!(unsafe mm_failover_row, 10);

impl Row {
    fn row(&self) -> mm_failover_row {
        let (group, group_len) = row_text(Some(&self.group));
        let (topic, topic_len) = row_text(Some(&self.topic));
        mm_failover_row {
            struct_size: 0,
            group,
            group_len,
            topic,
            topic_len,
            partition: self.partition.into(),
            translated_offset: self.translated_offset,
            current_offset: self.current_offset.unwrap_or(-1),
            skipped: self.skipped,
            reread: self.reread,
        }
    }
}

/// Writes to `*caught_up_out` 1 when `group` has entries in the report and its committed offset
/// on every one of them is already at or past the translated offset (its position where it
/// committed last is reflected on this cluster), else 0. `MM_RESULT_NULL_PARAMETER` when a
/// pointer is NULL, `MM_RESULT_INVALID_ARGUMENT` for non-UTF-8 text. Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; `group` is NULL or NUL-terminated; `caught_up_out` is
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report_caught_up(
    report: *const mm_failover_report_t,
    group: *const c_char,
    caught_up_out: *mut c_int,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (report, group) = unsafe { (borrow(report, "report")?, text(group, "group")?) };
        let mut entries = report
            .rows
            .iter()
            .filter(|r| r.group_name == group)
            .peekable();
        let caught_up = entries.peek().is_some()
            && entries.all(|r| r.current_offset.is_some_and(|c| c >= r.translated_offset));
        // SAFETY: this function's contract.
        unsafe {
            give(caught_up_out, "caught_up_out", || {
                Ok(c_int::from(caught_up))
            })
        }
    })
}

/// Fills `*row_out` with entry `index`, at most `row_out->struct_size` bytes of it (on return
/// it holds the bytes filled). `MM_RESULT_INVALID_ARGUMENT` when `index` is not below the
/// report's length or `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER` when a pointer is
/// NULL (nothing written). Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; `row_out` is NULL or valid for reading and writing
/// `struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report_row(
    report: *const mm_failover_report_t,
    index: usize,
    row_out: *mut mm_failover_row,
) -> mm_result {
    // SAFETY: this function's contract.
    run(|| unsafe {
        copy_row(
            report,
            "report",
            index,
            |r: &mm_failover_report_t| r.rows.as_slice(),
            Row::row,
            row_out,
        )
    })
}

/// Fills `*totals_out` with the report's totals, at most `totals_out->struct_size` bytes of
/// them (on return it holds the bytes filled). `MM_RESULT_NULL_PARAMETER` when a pointer is
/// NULL, `MM_RESULT_INVALID_ARGUMENT` when `struct_size` is below 8 (nothing written).
/// Non-blocking, any thread.
///
/// # Safety
/// `report` is NULL or a live report; `totals_out` is NULL or valid for reading and writing
/// `totals_out->struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report_get_totals(
    report: *const mm_failover_report_t,
    totals_out: *mut mm_failover_totals,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (report, totals_out) = unsafe {
            (
                borrow(report, "report")?,
                sized_out(totals_out, "totals_out")?,
            )
        };
        totals_out.write(report.totals);
        Ok(())
    })
}

/// Frees a failover report and its text. NULL is ignored. No other call may use it during or
/// after.
///
/// # Safety
/// `report` is NULL or a report from this library not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_failover_report_destroy(report: *mut mm_failover_report_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(report) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use mm2_checkpoint::remote_cluster_utils::PartitionFailover;
    use std::ffi::{CStr, CString};

    fn conf(entries: &[(&str, &str)]) -> mm_conf_t {
        let mut c = mm_conf_t::default();
        for (k, v) in entries {
            let (k, v) = (CString::new(*k).unwrap(), CString::new(*v).unwrap());
            // SAFETY: a live conf and C strings.
            let r = unsafe { super::super::conf::mm_conf_set(&mut c, k.as_ptr(), v.as_ptr()) };
            assert_eq!(r, mm_result::Ok);
        }
        c
    }

    #[test]
    fn policy_keys_name_the_checkpoints_topic_and_stay_out_of_the_client_settings() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Result<&'a str, mm_result>);
        let cases: &[Case<'_>] = &[
            (
                &[("bootstrap.servers", "b:9092")],
                Ok("src.checkpoints.internal"),
            ),
            (
                &[
                    ("bootstrap.servers", "b:9092"),
                    ("replication.policy.separator", "_"),
                ],
                Ok("src_checkpoints_internal"),
            ),
            (
                &[
                    ("replication.policy.separator", "_"),
                    (
                        "replication.policy.internal.topic.separator.enabled",
                        "false",
                    ),
                ],
                Ok("src.checkpoints.internal"),
            ),
            (
                &[("replication.policy.class", "IdentityReplicationPolicy")],
                Ok("src.checkpoints.internal"),
            ),
        ];
        for (entries, expected) in cases {
            let c = conf(entries);
            match (split_target_conf(&c), expected) {
                (Ok((policy, client)), Ok(topic)) => {
                    assert_eq!(policy.checkpoints_topic("src"), *topic, "{entries:?}");
                    assert!(
                        client.keys().all(|k| !k.starts_with("replication.policy.")),
                        "{client:?}"
                    );
                    let wanted = entries.iter().filter(|(k, _)| *k == "bootstrap.servers");
                    assert_eq!(client.len(), wanted.count(), "{entries:?}");
                }
                (got, expected) => panic!("{entries:?}: {:?} vs {expected:?}", got.err()),
            }
        }
    }

    #[test]
    fn selectors_read_one_group_a_trimmed_list_or_a_whole_match_regex() {
        type Case<'a> = (c_int, &'a str, &'a [&'a str], &'a [&'a str]);
        let cases: &[Case<'_>] = &[
            (0, "app", &["app"], &["app2", " app"]),
            (0, " app ", &[" app "], &["app"]),
            (1, " a , b,,", &["a", "b"], &["", "a , b"]),
            (2, "app-.*", &["app-1"], &["my-app-1"]),
            (2, "a,b", &["a,b"], &["a", "b"]),
        ];
        for (kind, groups, yes, no) in cases {
            let sel = group_selector(*kind, groups).unwrap();
            for g in *yes {
                assert!(sel.matches(g), "{kind} {groups:?} should select {g:?}");
            }
            for g in *no {
                assert!(!sel.matches(g), "{kind} {groups:?} should not select {g:?}");
            }
        }
        let errors: &[(c_int, &str, &str)] = &[
            (0, "", "`groups` is empty"),
            (1, " , ", "lists no group"),
            (2, "(", "`groups` is not a valid regex: "),
            (3, "a", "kind 3 is not"),
            (-1, "a", "kind -1 is not"),
        ];
        for (kind, groups, message) in errors {
            let e = group_selector(*kind, groups).unwrap_err();
            assert_eq!(e.result, mm_result::InvalidArgument, "{kind} {groups:?}");
            assert!(
                e.message.contains(message),
                "{kind} {groups:?}: {}",
                e.message
            );
        }
    }

    /// Row `index` of a list of translated offsets, checking the result.
    ///
    /// # Safety
    /// `list` is a live list.
    unsafe fn row_of(
        list: *const mm_translated_offsets_t,
        index: usize,
    ) -> mm_translated_offset_row {
        // SAFETY: all-zero is a valid row (NULL text); the caller's contract for `list`.
        let mut row: mm_translated_offset_row = unsafe { std::mem::zeroed() };
        row.struct_size = std::mem::size_of::<mm_translated_offset_row>() as u64;
        assert_eq!(
            unsafe { mm_translated_offsets_row(list, index, &mut row) },
            mm_result::Ok
        );
        row
    }

    /// Text of a row field: NUL-terminated, and its length beside it.
    fn text_of(p: *const c_char, len: u64) -> String {
        // SAFETY: the library's NUL-terminated text, live with the list.
        let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
        assert_eq!(s.len() as u64, len);
        s
    }

    #[test]
    fn added_entries_stay_ordered_replace_their_pair_and_round_trip() {
        let mut list = std::ptr::null_mut();
        // SAFETY: a local out.
        assert_eq!(
            unsafe { mm_translated_offsets_new(&mut list) },
            mm_result::Ok
        );
        let add = |g: &str, t: &str, p: i32, o: i64| {
            let (g, t, m) = (
                CString::new(g).unwrap(),
                CString::new(t).unwrap(),
                CString::new(format!("m{o}")).unwrap(),
            );
            // SAFETY: a live list and C strings.
            unsafe { mm_translated_offsets_add(list, g.as_ptr(), t.as_ptr(), p, o, -1, m.as_ptr()) }
        };
        for (g, t, p, o) in [
            ("b", "x", 0, 1),
            ("a", "y", 1, 2),
            ("a", "y", 0, 3),
            ("a", "x", 5, 4),
            ("b", "x", 0, 5),
        ] {
            assert_eq!(add(g, t, p, o), mm_result::Ok);
        }
        assert_eq!(add("a", "x", -1, 0), mm_result::InvalidArgument);
        assert_eq!(add("a", "x", 0, -1), mm_result::InvalidArgument);
        assert_eq!(add("", "x", 0, 0), mm_result::InvalidArgument);
        // SAFETY: a live list; indices below its length unless said otherwise.
        unsafe {
            let mut n = 0usize;
            assert_eq!(mm_translated_offsets_len(list, &mut n), mm_result::Ok);
            let got: Vec<(String, String, i64, i64, String)> = (0..n)
                .map(|i| {
                    let row = row_of(list, i);
                    assert_eq!(row.upstream_offset, -1, "added without an upstream offset");
                    (
                        text_of(row.group, row.group_len),
                        text_of(row.topic, row.topic_len),
                        row.partition,
                        row.offset,
                        text_of(row.metadata, row.metadata_len),
                    )
                })
                .collect();
            let expected = [
                ("a", "x", 5, 4),
                ("a", "y", 0, 3),
                ("a", "y", 1, 2),
                ("b", "x", 0, 5),
            ];
            let expected: Vec<_> = expected
                .iter()
                .map(|(g, t, p, o)| (g.to_string(), t.to_string(), *p, *o, format!("m{o}")))
                .collect();
            assert_eq!(got, expected);
            let mut untouched = row_of(list, 0);
            untouched.offset = 77;
            assert_eq!(
                mm_translated_offsets_row(list, n, &mut untouched),
                mm_result::InvalidArgument
            );
            assert_eq!(untouched.offset, 77, "the row was written on failure");
            let back = (*list).to_translated();
            assert_eq!(back.groups.len(), 2);
            assert_eq!(
                mm_translated_offsets_t::from_translated(&back)
                    .entries
                    .iter()
                    .map(|e| e.translated.offset)
                    .collect::<Vec<_>>(),
                vec![4, 3, 2, 5]
            );
            mm_translated_offsets_destroy(list);
        }
    }

    #[test]
    fn report_rows_clamp_to_int64_and_totals_count_partitions_without_a_commit() {
        let p = |group: &str, current: Option<i64>, skipped: u64, reread: u64| PartitionFailover {
            group: group.into(),
            topic_partition: TopicPartition::new("t", 0),
            translated_offset: 7,
            current_offset: current,
            skipped,
            reread,
        };
        let report = FailoverReport {
            partitions: vec![
                p("a", Some(1), u64::MAX, 0),
                p("b", None, 0, 0),
                p("c", Some(9), 0, 2),
            ],
        };
        let r = mm_failover_report_t::new(&report);
        let rows: Vec<(Option<i64>, i64, i64)> = r
            .rows
            .iter()
            .map(|r| (r.current_offset, r.skipped, r.reread))
            .collect();
        assert_eq!(
            rows,
            vec![(Some(1), i64::MAX, 0), (None, 0, 0), (Some(9), 0, 2)]
        );
        assert_eq!(
            r.totals,
            mm_failover_totals {
                struct_size: 0,
                partitions: 3,
                without_current_offset: 1,
                skipped: u64::MAX,
                reread: 2,
            }
        );
    }
}
