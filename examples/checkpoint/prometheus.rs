//! `--metrics-addr HOST:PORT`: the task's metrics in the Prometheus text format (0.0.4), read
//! from a fresh `CheckpointTask::metrics()` snapshot at every scrape. prometheus-client encodes
//! them and tiny_http serves them; docs/OPERATIONS.md lists every name.

use std::sync::Arc;
use std::thread::JoinHandle;

use mm2_checkpoint::checkpoint_task::CheckpointTask;
use mm2_checkpoint::metrics::MetricsSnapshot;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

/// Labels of one series: (name, value) pairs.
type Labels = Vec<(&'static str, String)>;

/// Reads the task's metrics at each scrape.
#[derive(Debug)]
struct TaskCollector(Arc<CheckpointTask>);

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

/// Every family of one snapshot, in docs/OPERATIONS.md's order.
fn encode_snapshot(m: &MetricsSnapshot, e: &mut DescriptorEncoder) -> Result<(), std::fmt::Error> {
    let flow: Labels = vec![("source", m.source.clone()), ("target", m.target.clone())];
    let with = |extra: &[(&'static str, String)]| -> Labels {
        flow.iter().cloned().chain(extra.iter().cloned()).collect()
    };
    let t = &m.task;
    let gauge = |v: f64| vec![(flow.clone(), v)];
    let count = |v: u64| vec![(flow.clone(), v)];

    // MM2's checkpoint-latency-ms, tagged as Java tags it (topic: the renamed topic).
    let latency_labels = |l: &mm2_checkpoint::metrics::CheckpointLatency| {
        with(&[
            ("group", l.group.clone()),
            ("topic", l.topic.clone()),
            ("partition", l.partition.to_string()),
        ])
    };
    let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
    for (name, help, pick) in [
        ("mm2_checkpoint_latency_ms", "MM2's checkpoint-latency-ms: the last checkpoint's time from decision to the target's confirmation", 0),
        ("mm2_checkpoint_latency_ms_min", "MM2's checkpoint-latency-ms-min over Kafka's window (two 30 s samples); NaN when empty", 1),
        ("mm2_checkpoint_latency_ms_max", "MM2's checkpoint-latency-ms-max over Kafka's window; NaN when empty", 2),
        ("mm2_checkpoint_latency_ms_avg", "MM2's checkpoint-latency-ms-avg over Kafka's window; NaN when empty", 3),
    ] {
        let series: Vec<(Labels, f64)> = m
            .checkpoint_latency
            .iter()
            .map(|l| {
                let v = [l.last_ms, nan(l.min_ms), nan(l.max_ms), nan(l.avg_ms)][pick];
                (latency_labels(l), v)
            })
            .collect();
        gauges(e, name, help, &series)?;
    }

    let partition_labels = |p: &mm2_checkpoint::metrics::PartitionMetrics| {
        with(&[
            ("group", p.group.clone()),
            ("topic", p.topic.clone()),
            ("partition", p.partition.to_string()),
        ])
    };
    let freshness: Vec<(Labels, f64)> = m
        .partitions
        .iter()
        .filter(|p| p.freshness.is_some())
        .map(|p| (partition_labels(p), seconds(p.freshness)))
        .collect();
    gauges(e, "mm2_checkpoint_freshness_seconds", "Per group and upstream partition: time since a cycle found the newest checkpoint reflecting the group's commit", &freshness)?;
    let replay: Vec<(Labels, i64)> = m
        .partitions
        .iter()
        .filter_map(|p| Some((partition_labels(p), p.replay_bound?)))
        .collect();
    gauges(e, "mm2_checkpoint_replay_bound_records", "Per group and upstream partition: upstream records a consumer failing over now would read again", &replay)?;
    let skipped: Vec<(Labels, u64)> = t
        .partitions_skipped
        .iter()
        .map(|(r, n)| (with(&[("reason", r.as_str().to_string())]), *n))
        .collect();
    gauges(
        e,
        "mm2_checkpoint_partitions_skipped",
        "Group x partitions whose last cycle wrote no checkpoint, by reason",
        &skipped,
    )?;

    gauges(
        e,
        "mm2_checkpoint_initialized",
        "1 once both stores are loaded",
        &gauge(f64::from(u8::from(t.initialized))),
    )?;
    gauges(
        e,
        "mm2_checkpoint_load_time_seconds",
        "Time from start to both stores loaded (NaN until then)",
        &gauge(seconds(t.load_time)),
    )?;
    gauges(
        e,
        "mm2_checkpoint_groups",
        "Consumer groups this task checkpoints",
        &count(t.groups),
    )?;
    counters(
        e,
        "mm2_checkpoint_cycles",
        "Checkpoint cycles run",
        &count(t.cycles),
    )?;
    counters(
        e,
        "mm2_checkpoint_cycles_failed",
        "Checkpoint cycles that ended in an error",
        &count(t.cycles_failed),
    )?;
    gauges(
        e,
        "mm2_checkpoint_cycle_duration_seconds",
        "Duration of the last checkpoint cycle (NaN before the first)",
        &gauge(seconds(t.last_cycle_duration)),
    )?;
    gauges(
        e,
        "mm2_checkpoint_since_last_successful_cycle_seconds",
        "Time since the last checkpoint cycle without error (NaN before the first)",
        &gauge(seconds(t.since_last_successful_cycle)),
    )?;
    counters(
        e,
        "mm2_checkpoint_checkpoints_emitted",
        "Checkpoints written and confirmed",
        &count(t.checkpoints_emitted),
    )?;
    counters(
        e,
        "mm2_checkpoint_offset_syncs_loaded",
        "Offset syncs applied",
        &count(t.offset_syncs_loaded),
    )?;
    let lag: Vec<(Labels, u64)> = t
        .offset_sync_lag
        .map(|l| (flow.clone(), l))
        .into_iter()
        .collect();
    gauges(
        e,
        "mm2_checkpoint_offset_sync_lag_records",
        "Records between the reader's position in the offset-syncs topic and its end",
        &lag,
    )?;
    counters(
        e,
        "mm2_checkpoint_records_skipped",
        "Malformed records skipped in the internal topics",
        &count(t.records_skipped),
    )?;
    let g = &t.group_offset_sync;
    counters(
        e,
        "mm2_checkpoint_group_offset_sync_runs",
        "Group offset sync runs",
        &count(g.runs),
    )?;
    let outcomes: Vec<(Labels, u64)> = [
        ("written", g.written),
        ("left_active", g.left_active),
        ("refused", g.refused),
        ("left_unknown_state", g.left_unknown_state),
        ("left_up_to_date", g.left_up_to_date),
        ("left_ahead", g.left_ahead),
    ]
    .into_iter()
    .map(|(o, n)| (with(&[("outcome", o.to_string())]), n))
    .collect();
    counters(e, "mm2_checkpoint_group_offsets", "Group x partition offsets the group offset sync wrote, had refused, or left alone (the target group active, its state unknown, already at or past the translated offset)", &outcomes)?;
    let retries: Vec<(Labels, u64)> = t
        .retries
        .by_kind
        .iter()
        .map(|(k, n)| (with(&[("kind", k.as_str().to_string())]), *n))
        .collect();
    counters(
        e,
        "mm2_checkpoint_retries",
        "Retries since start, by kind",
        &retries,
    )?;
    gauges(
        e,
        "mm2_checkpoint_retrying_seconds",
        "How long the task has been retrying without interruption (0 when it is not)",
        &gauge(t.retries.retrying_for.map_or(0.0, |d| d.as_secs_f64())),
    )?;
    Ok(())
}

impl Collector for TaskCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        encode_snapshot(&self.0.metrics(), &mut encoder)
    }
}

/// The metrics endpoint: a thread answering every request with the current metrics.
pub struct Endpoint {
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
    /// The address it listens on (the port the system chose, for port 0).
    pub addr: String,
}

impl Endpoint {
    /// Listens on `addr` (HOST:PORT) and serves `task`'s metrics until dropped.
    pub fn serve(addr: &str, task: Arc<CheckpointTask>) -> Result<Endpoint, String> {
        let server = tiny_http::Server::http(addr)
            .map(Arc::new)
            .map_err(|e| format!("--metrics-addr {addr}: {e}"))?;
        let bound = server.server_addr().to_string();
        let mut registry = Registry::default();
        registry.register_collector(Box::new(TaskCollector(task)));
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
