//! Test and demo API, not part of the stable surface (it may change in any release).
//!
//! `mm_embedded_t`: two in-process mock Kafka clusters (source and target) for C examples and
//! tests, with the few operations a demo needs: create topics, write data and offset syncs as a
//! mirror would, commit a group's offsets, read the checkpoints back.

use std::ffi::{c_char, c_int};

use super::batch::{mm_batch_t, mm_poll_status};
use super::boundary::{
    borrow, destroy, into_handle, lend, mm_result, out, run, text, CText, Failure,
};
use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
use mm2_checkpoint::{OffsetSync, TopicPartition};

/// Which embedded cluster, as the `side` parameter of the `mm_embedded_*` functions.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)] // Only C uses it: cbindgen writes it into the header.
pub enum mm_side {
    /// The source (upstream) cluster, where consumer groups commit and offset syncs live.
    Source = 0,
    /// The target (downstream) cluster, where checkpoints are written.
    Target = 1,
}

/// **Test and demo API, not part of the stable surface**: the `mm_embedded_*` functions may
/// change in any release.
///
/// Two mock clusters with one broker each, on 127.0.0.1 ports. Opaque; made by
/// `mm_embedded_new`, freed by `mm_embedded_destroy`. Use one from one thread at a time.
///
/// The mock broker has no CreateTopics, ListGroups or DescribeGroups: create topics with
/// `mm_embedded_create_topic`, and name the groups in `task.assigned.groups`.
#[allow(non_camel_case_types)]
pub struct mm_embedded_t {
    clusters: EmbeddedClusters,
    bootstrap: [CText; 2],
}

/// # Safety
/// `embedded` is NULL or live.
unsafe fn clusters<'a>(
    embedded: *const mm_embedded_t,
    side: c_int,
) -> Result<(&'a mm_embedded_t, Side), Failure> {
    // SAFETY: the caller's contract.
    let e = unsafe { borrow(embedded, "embedded") }?;
    let side = match side {
        0 => Side::Source,
        1 => Side::Target,
        other => {
            return Err(Failure::invalid_argument(format!(
                "side {other} is not MM_SIDE_SOURCE (0) or MM_SIDE_TARGET (1)"
            )))
        }
    };
    Ok((e, side))
}

/// Starts the two clusters and writes them to `*embedded_out`. Blocks briefly (the brokers
/// start in threads of librdkafka). `MM_RESULT_KAFKA` when they cannot start;
/// `MM_RESULT_NULL_PARAMETER`. Any thread. Test and demo API.
///
/// # Safety
/// `embedded_out` is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_new(embedded_out: *mut *mut mm_embedded_t) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let embedded_out = unsafe { out(embedded_out, "embedded_out") }?;
        let clusters = EmbeddedClusters::new()?;
        let bootstrap = [
            CText::new(&clusters.bootstrap(Side::Source)),
            CText::new(&clusters.bootstrap(Side::Target)),
        ];
        embedded_out.write(into_handle(mm_embedded_t {
            clusters,
            bootstrap,
        }));
        Ok(())
    })
}

/// Shuts both clusters down and frees them. NULL is ignored. Stop the tasks using them first
/// (their clients would otherwise retry against closed ports until stopped).
///
/// # Safety
/// `embedded` is NULL or from `mm_embedded_new` and not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_destroy(embedded: *mut mm_embedded_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(embedded) };
}

/// The `bootstrap.servers` of one side (e.g. `"127.0.0.1:40123"`): writes to `*text_out`
/// NUL-terminated text owned by `embedded` (valid until it is destroyed) and, when `len_out` is
/// not NULL, its length to `*len_out`. `MM_RESULT_INVALID_ARGUMENT` when `side` is not an
/// `mm_side`. Non-blocking. Test and demo API.
///
/// # Safety
/// `embedded` is NULL or live; `text_out` is NULL or valid for writing a pointer; `len_out` is
/// NULL or valid for writing.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_bootstrap(
    embedded: *const mm_embedded_t,
    side: c_int,
    text_out: *mut *const c_char,
    len_out: *mut usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        unsafe {
            lend(text_out, len_out, || {
                let (e, side) = clusters(embedded, side)?;
                Ok(match side {
                    Side::Source => &e.bootstrap[0],
                    Side::Target => &e.bootstrap[1],
                })
            })
        }
    })
}

/// Creates `topic` with `partitions` partitions on one side. `MM_RESULT_KAFKA` when the mock
/// refuses; `MM_RESULT_INVALID_ARGUMENT` for a bad side or a partition count below 1;
/// `MM_RESULT_NULL_PARAMETER`. Blocks briefly.
///
/// # Safety
/// `embedded` is NULL or live; `topic` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_create_topic(
    embedded: *mut mm_embedded_t,
    side: c_int,
    topic: *const c_char,
    partitions: i32,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let ((e, side), topic) = unsafe { (clusters(embedded, side)?, text(topic, "topic")?) };
        if partitions < 1 {
            return Err(Failure::invalid_argument(format!(
                "partitions {partitions} must be at least 1"
            )));
        }
        Ok(e.clusters.create_topic(side, topic, partitions)?)
    })
}

/// Writes `count` small records (`"record-<i>"`, no key) to one partition and waits for their
/// delivery. Blocks until delivered (`MM_RESULT_KAFKA` after 30 s without).
///
/// # Safety
/// `embedded` is NULL or live; `topic` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_produce_data(
    embedded: *mut mm_embedded_t,
    side: c_int,
    topic: *const c_char,
    partition: i32,
    count: usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let ((e, side), topic) = unsafe { (clusters(embedded, side)?, text(topic, "topic")?) };
        Ok(e.clusters.produce_data(side, topic, partition, count)?)
    })
}

/// Writes `count` offset syncs for `topic`/`partition` to partition 0 of `syncs_topic`, encoded
/// exactly as MM2's MirrorSourceTask does: sync `i` says upstream offset `upstream_offsets[i]`
/// landed at downstream offset `downstream_offsets[i]`. Waits for delivery (blocks; fast for
/// tens of thousands). The arrays may be NULL only when `count` is 0.
///
/// # Safety
/// `embedded` is NULL or live; the strings are NULL or NUL-terminated; each array is NULL or
/// valid for reading `count` values.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_produce_offset_syncs(
    embedded: *mut mm_embedded_t,
    side: c_int,
    syncs_topic: *const c_char,
    topic: *const c_char,
    partition: i32,
    upstream_offsets: *const i64,
    downstream_offsets: *const i64,
    count: usize,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let ((e, side), syncs_topic, topic) = unsafe {
            (
                clusters(embedded, side)?,
                text(syncs_topic, "syncs_topic")?,
                text(topic, "topic")?,
            )
        };
        let (up, down): (&[i64], &[i64]) = if count == 0 {
            (&[], &[])
        } else {
            if upstream_offsets.is_null() || downstream_offsets.is_null() {
                return Err(Failure::new(
                    mm_result::NullParameter,
                    "`upstream_offsets` or `downstream_offsets` is NULL",
                ));
            }
            // SAFETY: non-NULL and valid for count values by this function's contract.
            unsafe {
                (
                    std::slice::from_raw_parts(upstream_offsets, count),
                    std::slice::from_raw_parts(downstream_offsets, count),
                )
            }
        };
        let syncs: Vec<OffsetSync> = up
            .iter()
            .zip(down)
            .map(|(u, d)| OffsetSync::new(TopicPartition::new(topic, partition), *u, *d))
            .collect();
        Ok(e.clusters.produce_offset_syncs(side, syncs_topic, &syncs)?)
    })
}

/// Commits `offset` with `metadata` for `group` on `topic`/`partition`, without joining the
/// group (as a stopped consumer leaves it). Blocks until the broker answers.
///
/// # Safety
/// `embedded` is NULL or live; the strings are NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_commit_offset(
    embedded: *mut mm_embedded_t,
    side: c_int,
    group: *const c_char,
    topic: *const c_char,
    partition: i32,
    offset: i64,
    metadata: *const c_char,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let ((e, side), group, topic, metadata) = unsafe {
            (
                clusters(embedded, side)?,
                text(group, "group")?,
                text(topic, "topic")?,
                text(metadata, "metadata")?,
            )
        };
        Ok(e.clusters
            .commit_offsets(side, group, &[(topic, partition, offset, metadata)])?)
    })
}

/// Reads every checkpoint in partition 0 of `checkpoints_topic` on the target (up to its end
/// now) into a new batch (status `MM_POLL_STATUS_NONE`; free it with `mm_batch_destroy`);
/// malformed records are skipped. Blocks until read (`MM_RESULT_TIMED_OUT` after 30 s).
/// `*batch_out` is written only on success.
///
/// # Safety
/// `embedded` is NULL or live; `checkpoints_topic` is NULL or NUL-terminated; `batch_out` is
/// NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_embedded_read_checkpoints(
    embedded: *mut mm_embedded_t,
    checkpoints_topic: *const c_char,
    batch_out: *mut *mut mm_batch_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (e, topic, batch_out) = unsafe {
            (
                borrow(embedded, "embedded")?,
                text(checkpoints_topic, "checkpoints_topic")?,
                out(batch_out, "batch_out")?,
            )
        };
        let checkpoints = e.clusters.read_checkpoints(topic)?;
        batch_out.write(into_handle(mm_batch_t::new(
            mm_poll_status::None,
            &checkpoints,
        )));
        Ok(())
    })
}
