//! `mm_offset_sync_writer_t`: MM2's offset-sync writer for C mirroring tools. The tool reports
//! every mirrored record (upstream topic, partition and offset, downstream offset) and the
//! writer produces offset syncs to the offset-syncs topic exactly when MM2's
//! `MirrorSourceTask` would, so a checkpoint task (this library's or Java MM2's) can translate
//! the tool's consumer groups.

use std::ffi::c_char;
use std::sync::{Mutex, MutexGuard, TryLockError};

use super::boundary::{
    borrow, destroy, growable, into_handle, mm_result, out, run, sized_out, text, Failure,
};
use super::conf::mm_conf_t;
use super::task::timeout_of;
use mm2_checkpoint::offset_sync_writer::{
    OffsetSyncWriter, OffsetSyncWriterConfig, OffsetSyncWriterStats,
};
use mm2_checkpoint::TopicPartition;

/// Counters of an offset-sync writer, filled by `mm_offset_sync_writer_get_stats`. Set
/// `struct_size` to `sizeof(mm_offset_sync_writer_stats)` first; fields are only ever added at
/// the end.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct mm_offset_sync_writer_stats {
    /// Set by the caller to the size of the struct it passes; on return, the bytes filled.
    pub struct_size: u64,
    /// Mirrored records reported.
    pub records_reported: u64,
    /// Syncs handed to the producer.
    pub syncs_sent: u64,
    /// Syncs the broker acknowledged.
    pub syncs_delivered: u64,
    /// Syncs that failed (logged; as in MM2 not retried: a later sync of the partition
    /// supersedes them).
    pub syncs_failed: u64,
    /// Promotions of delayed syncs (timer, flush or close).
    pub promotions: u64,
    /// Syncs due and waiting for a send permit.
    pub pending: u64,
    /// Syncs held until the next promotion.
    pub delayed: u64,
    /// Sends not yet acknowledged.
    pub outstanding: u64,
    /// 1 once `mm_offset_sync_writer_close` ran (the counters are then final), else 0.
    pub closed: u64,
}

growable!(unsafe mm_offset_sync_writer_stats, 10);

impl mm_offset_sync_writer_stats {
    fn new(s: &OffsetSyncWriterStats, closed: bool) -> Self {
        mm_offset_sync_writer_stats {
            struct_size: 0,
            records_reported: s.records_reported,
            syncs_sent: s.syncs_sent,
            syncs_delivered: s.syncs_delivered,
            syncs_failed: s.syncs_failed,
            promotions: s.promotions,
            pending: s.pending as u64,
            delayed: s.delayed as u64,
            outstanding: s.outstanding as u64,
            closed: u64::from(closed),
        }
    }
}

/// The writer, or its last counters once closed.
enum State {
    Open(Box<OffsetSyncWriter>),
    Closed(OffsetSyncWriterStats),
}

/// An offset-sync writer. Opaque; made by `mm_offset_sync_writer_new`, freed by
/// `mm_offset_sync_writer_destroy`. One thread at a time: a call made while another thread is
/// inside a call on the same writer returns `MM_RESULT_BUSY` (the writer owns one producer and,
/// like every Kafka client here, has one user at a time).
#[allow(non_camel_case_types)]
pub struct mm_offset_sync_writer_t {
    state: Mutex<State>,
}

/// Takes the writer for one call, or says another thread has it.
///
/// # Safety
/// `writer` is NULL or a live writer.
unsafe fn lock<'a>(
    writer: *const mm_offset_sync_writer_t,
) -> Result<MutexGuard<'a, State>, Failure> {
    // SAFETY: the caller's contract.
    let w = unsafe { borrow(writer, "writer") }?;
    match w.state.try_lock() {
        Ok(guard) => Ok(guard),
        // A caught panic inside an earlier call: the writer's state is still the single owner's,
        // and every method leaves it consistent between its steps.
        Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        Err(TryLockError::WouldBlock) => Err(Failure::new(
            mm_result::Busy,
            "another thread is inside a call on this offset-sync writer",
        )),
    }
}

/// Runs `f` on the open writer; `MM_RESULT_INVALID_STATE` once it is closed.
///
/// # Safety
/// `writer` is NULL or a live writer.
unsafe fn with_open<T>(
    writer: *const mm_offset_sync_writer_t,
    f: impl FnOnce(&mut OffsetSyncWriter) -> Result<T, Failure>,
) -> Result<T, Failure> {
    // SAFETY: the caller's contract.
    let mut state = unsafe { lock(writer) }?;
    match &mut *state {
        State::Open(w) => f(w),
        State::Closed(_) => Err(Failure::new(
            mm_result::InvalidState,
            "the offset-sync writer is closed",
        )),
    }
}

/// Makes a writer producing to partition 0 of `offset_syncs_topic` (which must exist, or be
/// auto-created by the broker; MM2 makes it a one-partition compacted topic, named
/// `mm2-offset-syncs.<target alias>.internal` when it lives on the source cluster).
///
/// `conf` holds librdkafka producer settings for the cluster holding that topic (at least
/// `bootstrap.servers`), plus optionally `offset.lag.max` (default 100: a new sync once a
/// translation would fall this many offsets behind) and `offset.flush.interval.ms` (default
/// 60000: how often syncs held back as fresh enough are written anyway, Connect's offset-commit
/// period in MM2). Those two keys are not passed to librdkafka. Unless `enable.idempotence` is
/// true, the producer is limited to one request in flight, so syncs cannot be reordered by a
/// retry. The conf is only read; it stays the caller's.
///
/// On success writes the writer to `*writer_out`. `MM_RESULT_INVALID_CONFIG` for a bad writer
/// setting or a producer setting librdkafka rejects (`mm_last_error`: `"<key>: <reason>"`);
/// `MM_RESULT_INVALID_ARGUMENT` for an empty topic or non-UTF-8 text;
/// `MM_RESULT_NULL_PARAMETER`. No blocking I/O (the producer connects in librdkafka's threads).
/// Any thread; others may read `conf` meanwhile.
///
/// # Safety
/// `conf` is NULL or a live conf; `offset_syncs_topic` is NULL or NUL-terminated; `writer_out`
/// is NULL or valid for writing a pointer.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_new(
    conf: *const mm_conf_t,
    offset_syncs_topic: *const c_char,
    writer_out: *mut *mut mm_offset_sync_writer_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (conf, topic, writer_out) = unsafe {
            (
                borrow(conf, "conf")?,
                text(offset_syncs_topic, "offset_syncs_topic")?,
                out(writer_out, "writer_out")?,
            )
        };
        if topic.is_empty() {
            return Err(Failure::invalid_argument("`offset_syncs_topic` is empty"));
        }
        let (config, producer) = OffsetSyncWriterConfig::split(conf.entries())?;
        let writer = OffsetSyncWriter::new(&producer, topic, &config)?;
        writer_out.write(into_handle(mm_offset_sync_writer_t {
            state: Mutex::new(State::Open(Box::new(writer))),
        }));
        Ok(())
    })
}

/// Reports one mirrored record: upstream `topic`/`partition` offset `upstream_offset` was
/// written downstream at `downstream_offset` (the offset the target acknowledged). Report
/// each partition's records in order, once each is confirmed downstream. The writer queues a
/// sync when MM2 would (the first record of a partition, a gap or rewind upstream, a rewind
/// downstream, or a translation `offset.lag.max` behind) and sends what it may; other records
/// only update the partition's delayed sync.
///
/// Never blocks. `MM_RESULT_INVALID_ARGUMENT` for an empty topic, a negative partition or
/// offset, or non-UTF-8 text; `MM_RESULT_INVALID_STATE` after `mm_offset_sync_writer_close`;
/// `MM_RESULT_BUSY` when another thread is inside a call on this writer;
/// `MM_RESULT_NULL_PARAMETER`. A failed send is not an error here: it is logged and counted
/// (`syncs_failed`).
///
/// # Safety
/// `writer` is NULL or a live writer; `topic` is NULL or NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_report(
    writer: *mut mm_offset_sync_writer_t,
    topic: *const c_char,
    partition: i32,
    upstream_offset: i64,
    downstream_offset: i64,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let topic = unsafe { text(topic, "topic") }?;
        if topic.is_empty() {
            return Err(Failure::invalid_argument("`topic` is empty"));
        }
        if partition < 0 || upstream_offset < 0 || downstream_offset < 0 {
            return Err(Failure::invalid_argument(format!(
                "partition {partition}, upstream offset {upstream_offset} and downstream offset \
                 {downstream_offset} must not be negative"
            )));
        }
        let tp = TopicPartition::new(topic, partition);
        // SAFETY: this function's contract.
        unsafe {
            with_open(writer, |w| {
                w.report(&tp, upstream_offset, downstream_offset);
                Ok(())
            })
        }
    })
}

/// Collects finished sends, promotes the delayed syncs when `offset.flush.interval.ms` has
/// passed since the last promotion, and sends what may be sent. Call it regularly, also while
/// no records arrive (at least a few times per flush interval), or quiet partitions keep their
/// last sync forever.
///
/// Never blocks. `MM_RESULT_INVALID_STATE` after close; `MM_RESULT_BUSY`;
/// `MM_RESULT_NULL_PARAMETER`.
///
/// # Safety
/// `writer` is NULL or a live writer.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_tick(
    writer: *mut mm_offset_sync_writer_t,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        unsafe {
            with_open(writer, |w| {
                w.tick();
                Ok(())
            })
        }
    })
}

/// Waits until a sync due now would be sent at once (at most 10 sends are outstanding, as in
/// MM2; while all are, a due sync waits and a later one of the same partition replaces it,
/// which widens the gap between syncs). A mirror that prefers precise translation to
/// throughput calls this before each report.
///
/// **Blocks** up to `timeout_ms` (0 = only check, `MM_TIMEOUT_INFINITE` = no limit):
/// `MM_RESULT_OK` when a permit is free, `MM_RESULT_TIMED_OUT` otherwise.
/// `MM_RESULT_INVALID_ARGUMENT` for a timeout below -1; `MM_RESULT_INVALID_STATE` after close;
/// `MM_RESULT_BUSY`; `MM_RESULT_NULL_PARAMETER`.
///
/// # Safety
/// `writer` is NULL or a live writer.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_wait_for_capacity(
    writer: *mut mm_offset_sync_writer_t,
    timeout_ms: i32,
) -> mm_result {
    run(|| {
        let timeout = timeout_of(timeout_ms)?;
        // SAFETY: this function's contract.
        unsafe { with_open(writer, |w| Ok(w.wait_for_capacity(timeout)?)) }
    })
}

/// Promotes every delayed sync (so each reported partition gets a sync at its latest record)
/// and waits until every sync is sent and acknowledged.
///
/// **Blocks** up to `timeout_ms` (`MM_TIMEOUT_INFINITE` = no limit): `MM_RESULT_TIMED_OUT` when
/// syncs are still unacknowledged then (the message says how many; they stay queued).
/// `MM_RESULT_INVALID_ARGUMENT` for a timeout below -1; `MM_RESULT_INVALID_STATE` after close;
/// `MM_RESULT_BUSY`; `MM_RESULT_NULL_PARAMETER`.
///
/// # Safety
/// `writer` is NULL or a live writer.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_flush(
    writer: *mut mm_offset_sync_writer_t,
    timeout_ms: i32,
) -> mm_result {
    run(|| {
        let timeout = timeout_of(timeout_ms)?;
        // SAFETY: this function's contract.
        unsafe { with_open(writer, |w| Ok(w.flush(timeout)?)) }
    })
}

/// Flushes as `mm_offset_sync_writer_flush`, then destroys the producer, also when the flush
/// timed out (unacknowledged syncs are then lost; the next writer's first sync of each
/// partition supersedes them). Afterwards the counters are final and only
/// `mm_offset_sync_writer_get_stats` and `mm_offset_sync_writer_destroy` are useful; a second
/// close returns `MM_RESULT_OK` and does nothing.
///
/// **Blocks** up to `timeout_ms` plus the producer's shutdown. `MM_RESULT_TIMED_OUT` when not
/// every sync was acknowledged (the writer is closed all the same); `MM_RESULT_INVALID_ARGUMENT`
/// for a timeout below -1 (nothing done); `MM_RESULT_BUSY`; `MM_RESULT_NULL_PARAMETER`.
///
/// # Safety
/// `writer` is NULL or a live writer.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_close(
    writer: *mut mm_offset_sync_writer_t,
    timeout_ms: i32,
) -> mm_result {
    run(|| {
        let timeout = timeout_of(timeout_ms)?;
        // SAFETY: this function's contract.
        let mut state = unsafe { lock(writer) }?;
        let State::Open(w) = &mut *state else {
            return Ok(());
        };
        let flushed = w.flush(timeout);
        // Replacing the state drops the writer, which destroys its producer.
        *state = State::Closed(w.stats());
        Ok(flushed?)
    })
}

/// Fills `*stats_out` with a snapshot of the writer's counters (final ones after close), at
/// most `stats_out->struct_size` bytes of it (on return it holds the bytes filled).
/// `MM_RESULT_BUSY` when another thread is inside a call on this writer (nothing written);
/// `MM_RESULT_INVALID_ARGUMENT` when `struct_size` is below 8; `MM_RESULT_NULL_PARAMETER`.
/// Non-blocking.
///
/// # Safety
/// `writer` is NULL or a live writer; `stats_out` is NULL or valid for reading and writing
/// `stats_out->struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_get_stats(
    writer: *const mm_offset_sync_writer_t,
    stats_out: *mut mm_offset_sync_writer_stats,
) -> mm_result {
    run(|| {
        // SAFETY: this function's contract.
        let (state, stats_out) = unsafe { (lock(writer)?, sized_out(stats_out, "stats_out")?) };
        stats_out.write(match &*state {
            State::Open(w) => mm_offset_sync_writer_stats::new(&w.stats(), false),
            State::Closed(s) => mm_offset_sync_writer_stats::new(s, true),
        });
        Ok(())
    })
}

/// Frees the writer. An open writer's producer is destroyed without waiting: syncs not yet
/// acknowledged and delayed syncs are dropped (call `mm_offset_sync_writer_close` first to
/// deliver them). NULL is ignored. No other call may use the writer during or after it.
///
/// # Safety
/// `writer` is NULL or a writer from `mm_offset_sync_writer_new` not freed yet.
#[no_mangle]
pub unsafe extern "C" fn mm_offset_sync_writer_destroy(writer: *mut mm_offset_sync_writer_t) {
    // SAFETY: this function's contract.
    unsafe { destroy(writer) };
}

#[cfg(test)]
mod tests {
    use super::super::boundary::last_error_text;
    use super::*;
    use mm2_checkpoint::embedded::{EmbeddedClusters, Side};
    use std::ffi::CString;

    const SYNCS: &str = "mm2-offset-syncs.target.internal";

    fn assert_send<T: Send>() {}

    /// A C caller may use a writer from one thread and then another.
    #[test]
    fn the_writer_may_move_between_threads() {
        assert_send::<OffsetSyncWriter>();
        assert_send::<State>();
    }

    fn new_writer(entries: &[(&str, &str)]) -> Result<*mut mm_offset_sync_writer_t, String> {
        let mut conf = std::ptr::null_mut();
        // SAFETY: a local out.
        let r = unsafe { super::super::conf::mm_conf_new(&mut conf) };
        assert_eq!(r, mm_result::Ok);
        for (k, v) in entries {
            let (k, v) = (CString::new(*k).unwrap(), CString::new(*v).unwrap());
            // SAFETY: a live conf and C strings.
            let r = unsafe { super::super::conf::mm_conf_set(conf, k.as_ptr(), v.as_ptr()) };
            assert_eq!(r, mm_result::Ok, "{k:?}");
        }
        let topic = CString::new(SYNCS).unwrap();
        let mut w = std::ptr::null_mut();
        // SAFETY: a live conf, a C string, a local out.
        let r = unsafe { mm_offset_sync_writer_new(conf, topic.as_ptr(), &mut w) };
        // SAFETY: from mm_conf_new; the writer does not take it.
        unsafe { super::super::conf::mm_conf_destroy(conf) };
        if r != mm_result::Ok {
            return Err(format!("{r:?} {}", last_error_text()));
        }
        Ok(w)
    }

    #[test]
    fn writer_settings_are_checked_and_kept_from_librdkafka() {
        type Case<'a> = (&'a [(&'a str, &'a str)], Result<(), &'a str>);
        let cases: &[Case<'_>] = &[
            (
                &[
                    ("bootstrap.servers", "127.0.0.1:1"),
                    ("offset.lag.max", "0"),
                    ("offset.flush.interval.ms", "250"),
                ],
                Ok(()),
            ),
            (
                &[("offset.flush.interval.ms", "0")],
                Err("InvalidConfig offset.flush.interval.ms: must be a positive number of ms"),
            ),
            (
                &[("no.such.librdkafka.property", "1")],
                Err("InvalidConfig no.such.librdkafka.property"),
            ),
        ];
        for (entries, expected) in cases {
            match (new_writer(entries), expected) {
                // SAFETY: a live writer.
                (Ok(w), Ok(())) => unsafe { mm_offset_sync_writer_destroy(w) },
                (Err(msg), Err(part)) => assert!(msg.contains(part), "{entries:?}: {msg}"),
                (got, expected) => panic!("{entries:?}: {:?} vs {expected:?}", got.map(|_| ())),
            }
        }
    }

    fn stats(w: *const mm_offset_sync_writer_t) -> mm_offset_sync_writer_stats {
        let mut s = mm_offset_sync_writer_stats {
            struct_size: std::mem::size_of::<mm_offset_sync_writer_stats>() as u64,
            ..Default::default()
        };
        // SAFETY: a live writer and a local out.
        assert_eq!(
            unsafe { mm_offset_sync_writer_get_stats(w, &mut s) },
            mm_result::Ok
        );
        s
    }

    #[test]
    fn a_closed_writer_keeps_final_counters_and_refuses_work_and_a_busy_one_says_so() {
        let clusters = EmbeddedClusters::new().unwrap();
        clusters.create_topic(Side::Source, SYNCS, 1).unwrap();
        let bootstrap = clusters.bootstrap(Side::Source);
        let w = new_writer(&[("bootstrap.servers", &bootstrap), ("offset.lag.max", "10")]).unwrap();
        let topic = CString::new("orders").unwrap();
        // SAFETY: a live writer, a C string.
        unsafe {
            for i in 0..25 {
                assert_eq!(
                    mm_offset_sync_writer_report(w, topic.as_ptr(), 0, i, i + 3),
                    mm_result::Ok
                );
            }
            assert_eq!(
                mm_offset_sync_writer_report(w, topic.as_ptr(), -1, 0, 0),
                mm_result::InvalidArgument
            );
            assert_eq!(
                mm_offset_sync_writer_report(w, topic.as_ptr(), 0, 0, -3),
                mm_result::InvalidArgument
            );
            assert_eq!(mm_offset_sync_writer_tick(w), mm_result::Ok);
            assert_eq!(
                mm_offset_sync_writer_wait_for_capacity(w, 10_000),
                mm_result::Ok
            );
            {
                // Another thread inside a call on the writer.
                let _held = (*w).state.lock().unwrap();
                assert_eq!(mm_offset_sync_writer_tick(w), mm_result::Busy);
                let mut s = mm_offset_sync_writer_stats {
                    struct_size: 80,
                    ..Default::default()
                };
                assert_eq!(mm_offset_sync_writer_get_stats(w, &mut s), mm_result::Busy);
            }
            assert_eq!(mm_offset_sync_writer_close(w, 30_000), mm_result::Ok);
            let closed = stats(w);
            assert_eq!(closed.closed, 1);
            assert_eq!(closed.records_reported, 25);
            assert_eq!(closed.syncs_delivered, closed.syncs_sent);
            assert_eq!(
                (closed.pending, closed.delayed, closed.outstanding),
                (0, 0, 0)
            );
            // The first record; then each record whose translation (one past the last sync's
            // downstream offset) would be 10 behind; then the final flush's sync at the last.
            assert_eq!(closed.syncs_sent, 4);
            assert_eq!(
                mm_offset_sync_writer_report(w, topic.as_ptr(), 0, 25, 28),
                mm_result::InvalidState
            );
            assert_eq!(mm_offset_sync_writer_flush(w, 0), mm_result::InvalidState);
            assert_eq!(mm_offset_sync_writer_close(w, 0), mm_result::Ok);
            assert_eq!(stats(w), closed);
            mm_offset_sync_writer_destroy(w);
        }
        let written = clusters.read_partition0(Side::Source, SYNCS).unwrap();
        let ups: Vec<i64> = written
            .iter()
            .map(|(k, v)| {
                mm2_checkpoint::OffsetSync::decode(k.as_deref(), v.as_deref())
                    .unwrap()
                    .upstream_offset
            })
            .collect();
        assert_eq!(ups, vec![0, 11, 22, 24]);
    }
}
