//! `--metrics-addr HOST:PORT`: the job's metrics in the Prometheus text format (0.0.4), read
//! from a fresh `CheckpointTask::metrics()` snapshot of each task at every scrape. With several
//! flows one endpoint serves them all, each family once with every flow's series beneath it,
//! told apart by their `source` and `target` labels. prometheus-client encodes them and
//! tiny_http serves them; docs/OPERATIONS.md lists every name.

use std::sync::Arc;
use std::thread::JoinHandle;

use mm2_checkpoint::checkpoint_flows::CheckpointFlows;
use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::metrics::{MetricsSnapshot, TaskMetrics};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

/// Labels of one series: (name, value) pairs.
type Labels = Vec<(&'static str, String)>;

/// Whose metrics an endpoint serves: one task, or every flow of a job. Each scrape takes a
/// fresh snapshot of each task.
pub enum Tasks {
    /// The task of a file naming one flow.
    One(Arc<CheckpointTask>),
    /// Every flow of a file that enables several, in their order.
    Flows(Arc<CheckpointFlows>),
}

impl Tasks {
    /// One snapshot per task, in the flows' order.
    fn snapshots(&self) -> Vec<MetricsSnapshot> {
        match self {
            Tasks::One(task) => vec![task.metrics()],
            Tasks::Flows(flows) => flows.flows().map(|(_, task)| task.metrics()).collect(),
        }
    }
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tasks::One(task) => f.debug_tuple("One").field(task).finish(),
            Tasks::Flows(flows) => f
                .debug_tuple("Flows")
                .field(&flows.flows().map(|(name, _)| name).collect::<Vec<_>>())
                .finish(),
        }
    }
}

impl Collector for Tasks {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        encode_snapshots(&self.snapshots(), &mut encoder)
    }
}

/// One gauge family: its descriptor, then each series.
fn gauges<V: Copy>(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    series: &[(Labels, V)],
) -> Result<(), std::fmt::Error>
where
    ConstGauge<V>: EncodeMetric,
{
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Gauge)?;
    for (labels, value) in series {
        ConstGauge::new(*value).encode(metric.encode_family(labels)?)?;
    }
    Ok(())
}

/// One counter family (the encoder appends `_total`).
fn counters(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    series: &[(Labels, u64)],
) -> Result<(), std::fmt::Error> {
    let mut metric = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
    for (labels, value) in series {
        ConstCounter::new(*value).encode(metric.encode_family(labels)?)?;
    }
    Ok(())
}

fn seconds(d: Option<std::time::Duration>) -> f64 {
    d.map_or(f64::NAN, |d| d.as_secs_f64())
}

/// The flow's labels, `source` and `target` (as MM2 tags its metrics), then `extra`.
fn labels<const N: usize>(m: &MetricsSnapshot, extra: [(&'static str, String); N]) -> Labels {
    [("source", m.source.clone()), ("target", m.target.clone())]
        .into_iter()
        .chain(extra)
        .collect()
}

/// The labels of a group and partition of the flow.
fn partition_labels(m: &MetricsSnapshot, group: &str, topic: &str, partition: i32) -> Labels {
    labels(
        m,
        [
            ("group", group.to_string()),
            ("topic", topic.to_string()),
            ("partition", partition.to_string()),
        ],
    )
}

/// One series per flow: a task-wide value.
fn per_flow<V>(ms: &[MetricsSnapshot], value: impl Fn(&TaskMetrics) -> V) -> Vec<(Labels, V)> {
    ms.iter().map(|m| (labels(m, []), value(&m.task))).collect()
}

/// One series per flow and `(label, value)` pair of a task-wide list.
fn per_flow_by<V>(
    ms: &[MetricsSnapshot],
    label: &'static str,
    pairs: impl Fn(&TaskMetrics) -> Vec<(&'static str, V)>,
) -> Vec<(Labels, V)> {
    ms.iter()
        .flat_map(|m| {
            pairs(&m.task)
                .into_iter()
                .map(move |(key, v)| (labels(m, [(label, key.to_string())]), v))
        })
        .collect()
}

/// Every family, in docs/OPERATIONS.md's order, each with the series of every snapshot (one per
/// flow) beneath its one descriptor: the text format does not allow a family split in two.
fn encode_snapshots(
    ms: &[MetricsSnapshot],
    e: &mut DescriptorEncoder,
) -> Result<(), std::fmt::Error> {
    // MM2's checkpoint-latency-ms, tagged as Java tags it (topic: the renamed topic).
    let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    for (name, help, pick) in [
        ("mm2_checkpoint_latency_ms", "MM2's checkpoint-latency-ms: the last checkpoint's time from decision to the target's confirmation", 0),
        ("mm2_checkpoint_latency_ms_min", "MM2's checkpoint-latency-ms-min over Kafka's window (two 30 s samples); NaN when empty", 1),
        ("mm2_checkpoint_latency_ms_max", "MM2's checkpoint-latency-ms-max over Kafka's window; NaN when empty", 2),
        ("mm2_checkpoint_latency_ms_avg", "MM2's checkpoint-latency-ms-avg over Kafka's window; NaN when empty", 3),
    ] {
        let series: Vec<(Labels, f64)> = ms
            .iter()
            .flat_map(|m| {
                m.checkpoint_latency.iter().map(move |l| {
                    let v = [l.last_ms, nan(l.min_ms), nan(l.max_ms), nan(l.avg_ms)][pick];
                    (partition_labels(m, &l.group, &l.topic, l.partition), v)
                })
            })
            .collect();
        gauges(e, name, help, &series)?;
    }

    let freshness: Vec<(Labels, f64)> = ms
        .iter()
        .flat_map(|m| {
            m.partitions
                .iter()
                .filter(|p| p.freshness.is_some())
                .map(move |p| {
                    (
                        partition_labels(m, &p.group, &p.topic, p.partition),
                        seconds(p.freshness),
                    )
                })
        })
        .collect();
    gauges(e, "mm2_checkpoint_freshness_seconds", "Per group and upstream partition: time since a cycle found the newest checkpoint reflecting the group's commit", &freshness)?;
    let replay: Vec<(Labels, i64)> = ms
        .iter()
        .flat_map(|m| {
            m.partitions.iter().filter_map(move |p| {
                Some((
                    partition_labels(m, &p.group, &p.topic, p.partition),
                    p.replay_bound?,
                ))
            })
        })
        .collect();
    gauges(e, "mm2_checkpoint_replay_bound_records", "Per group and upstream partition: upstream records a consumer failing over now would read again", &replay)?;
    gauges(
        e,
        "mm2_checkpoint_partitions_skipped",
        "Group x partitions whose last cycle wrote no checkpoint, by reason",
        &per_flow_by(ms, "reason", |t| {
            t.partitions_skipped
                .iter()
                .map(|(r, n)| (r.as_str(), *n))
                .collect()
        }),
    )?;

    gauges(
        e,
        "mm2_checkpoint_initialized",
        "1 once both stores are loaded",
        &per_flow(ms, |t| f64::from(u8::from(t.initialized))),
    )?;
    gauges(
        e,
        "mm2_checkpoint_load_time_seconds",
        "Time from start to both stores loaded (NaN until then)",
        &per_flow(ms, |t| seconds(t.load_time)),
    )?;
    gauges(
        e,
        "mm2_checkpoint_groups",
        "Consumer groups this task checkpoints",
        &per_flow(ms, |t| t.groups),
    )?;
    counters(
        e,
        "mm2_checkpoint_cycles",
        "Checkpoint cycles run",
        &per_flow(ms, |t| t.cycles),
    )?;
    counters(
        e,
        "mm2_checkpoint_cycles_failed",
        "Checkpoint cycles that ended in an error",
        &per_flow(ms, |t| t.cycles_failed),
    )?;
    gauges(
        e,
        "mm2_checkpoint_cycle_duration_seconds",
        "Duration of the last checkpoint cycle (NaN before the first)",
        &per_flow(ms, |t| seconds(t.last_cycle_duration)),
    )?;
    gauges(
        e,
        "mm2_checkpoint_since_last_successful_cycle_seconds",
        "Time since the last checkpoint cycle without error (NaN before the first)",
        &per_flow(ms, |t| seconds(t.since_last_successful_cycle)),
    )?;
    counters(
        e,
        "mm2_checkpoint_checkpoints_emitted",
        "Checkpoints written and confirmed",
        &per_flow(ms, |t| t.checkpoints_emitted),
    )?;
    counters(
        e,
        "mm2_checkpoint_other_writer_checkpoints",
        "Checkpoints of this flow's groups another writer put between this task's own (a second copy of the flow)",
        &per_flow(ms, |t| t.other_writers.checkpoints),
    )?;
    counters(
        e,
        "mm2_checkpoint_offset_syncs_loaded",
        "Offset syncs applied",
        &per_flow(ms, |t| t.offset_syncs_loaded),
    )?;
    // Absent while unknown.
    let lag: Vec<(Labels, u64)> = per_flow(ms, |t| t.offset_sync_lag)
        .into_iter()
        .filter_map(|(labels, lag)| Some((labels, lag?)))
        .collect();
    gauges(
        e,
        "mm2_checkpoint_offset_sync_lag_records",
        "Records between the reader's position in the offset-syncs topic and its end",
        &lag,
    )?;
    // Only for flows that read the offsets stream.
    let streams: Vec<(Labels, (u64, f64))> = per_flow(ms, |t| {
        t.offsets_stream
            .as_ref()
            .map(|s| (s.held_partitions, seconds(s.longest_hold)))
    })
    .into_iter()
    .filter_map(|(labels, s)| Some((labels, s?)))
    .collect();
    let held: Vec<(Labels, u64)> = streams.iter().map(|(l, s)| (l.clone(), s.0)).collect();
    gauges(
        e,
        "mm2_checkpoint_offsets_stream_held_partitions",
        "Partitions of __consumer_offsets the offsets stream finds held below their end by another client's open transaction",
        &held,
    )?;
    let longest: Vec<(Labels, f64)> = streams.iter().map(|(l, s)| (l.clone(), s.1)).collect();
    gauges(
        e,
        "mm2_checkpoint_offsets_stream_longest_hold_seconds",
        "How long the oldest such hold has lasted (NaN when none)",
        &longest,
    )?;
    counters(
        e,
        "mm2_checkpoint_records_skipped",
        "Malformed records skipped in the internal topics",
        &per_flow(ms, |t| t.records_skipped),
    )?;
    counters(
        e,
        "mm2_checkpoint_group_offset_sync_runs",
        "Group offset sync runs",
        &per_flow(ms, |t| t.group_offset_sync.runs),
    )?;
    let outcomes = per_flow_by(ms, "outcome", |t| {
        let g = &t.group_offset_sync;
        vec![
            ("written", g.written),
            ("left_active", g.left_active),
            ("refused", g.refused),
            ("left_unknown_state", g.left_unknown_state),
            ("left_up_to_date", g.left_up_to_date),
            ("left_ahead", g.left_ahead),
        ]
    });
    counters(e, "mm2_checkpoint_group_offsets", "Group x partition offsets the group offset sync wrote, had refused, or left alone (the target group active, its state unknown, already at or past the translated offset)", &outcomes)?;
    counters(
        e,
        "mm2_checkpoint_retries",
        "Retries since start, by kind",
        &per_flow_by(ms, "kind", |t| {
            t.retries
                .by_kind
                .iter()
                .map(|(k, n)| (k.as_str(), *n))
                .collect()
        }),
    )?;
    gauges(
        e,
        "mm2_checkpoint_retrying_seconds",
        "How long the task has been retrying without interruption (0 when it is not)",
        &per_flow(ms, |t| {
            t.retries.retrying_for.map_or(0.0, |d| d.as_secs_f64())
        }),
    )?;
    Ok(())
}

/// The metrics endpoint: a thread answering every request with the current metrics.
pub struct Endpoint {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    /// The address it listens on (the port the system chose, for port 0).
    pub addr: String,
}

impl Endpoint {
    /// Listens on `addr` (HOST:PORT) and serves the metrics of `tasks` until dropped.
    pub fn serve(addr: &str, tasks: Tasks) -> Result<Endpoint, String> {
        let server = tiny_http::Server::http(addr)
            .map(Arc::new)
            .map_err(|e| format!("--metrics-addr {addr}: {e}"))?;
        let bound = server.server_addr().to_string();
        let mut registry = Registry::default();
        registry.register_collector(Box::new(tasks));
        let serving = Arc::clone(&server);
        let header = tiny_http::Header::from_bytes(
            "Content-Type",
            prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
        )
        .map_err(|()| "the content type header".to_string())?;
        let thread = std::thread::Builder::new()
            .name("metrics-endpoint".into())
            .spawn(move || {
                for request in serving.incoming_requests() {
                    let mut body = String::new();
                    let response = match prometheus_client::encoding::prometheus_text::encode(
                        &mut body, &registry,
                    ) {
                        Ok(()) => {
                            tiny_http::Response::from_string(body).with_header(header.clone())
                        }
                        Err(e) => tiny_http::Response::from_string(format!("encoding: {e}"))
                            .with_status_code(500),
                    };
                    let _ = request.respond(response);
                }
            })
            .map_err(|e| format!("starting the metrics endpoint: {e}"))?;
        Ok(Endpoint {
            server,
            thread: Some(thread),
            addr: bound,
        })
    }
}

impl Drop for Endpoint {
    fn drop(&mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
