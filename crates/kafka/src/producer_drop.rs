//! Dropping a producer promptly. rust-rdkafka's `BaseProducer` drop purges what the producer
//! still holds and then flushes, polling in 100 ms steps; its poll always runs to its deadline,
//! so a producer dropped with records queued or in flight takes 100 ms at least (a stop inside
//! a checkpoint cycle: the 100,000 checkpoints of 10,000 groups still being written). Purging
//! first and serving the purged records' reports in 1 ms steps leaves that flush nothing to wait
//! for.

use std::time::{Duration, Instant};

use rdkafka::producer::{BaseProducer, Producer, ProducerContext, PurgeConfig};

/// How long the purged records' reports are waited for; rust-rdkafka's own flush then waits at
/// most its 500 ms for any still left.
const REPORTS_LIMIT: Duration = Duration::from_millis(500);

/// One poll of the reports' wait.
const REPORTS_SLICE: Duration = Duration::from_millis(1);

/// Purges the records `producer` holds (queued and in flight; their delivery reports say
/// purged) and serves those reports, so that dropping it right after returns at once.
pub(crate) fn purge_before_drop<C: ProducerContext>(producer: &BaseProducer<C>) {
    producer.purge(PurgeConfig::default().queue().inflight());
    let deadline = Instant::now() + REPORTS_LIMIT;
    while producer.in_flight_count() > 0 && Instant::now() < deadline {
        producer.poll(REPORTS_SLICE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rdkafka::config::ClientConfig;
    use rdkafka::producer::BaseRecord;

    /// Records a producer cannot deliver (its broker's port is closed) are all reported purged,
    /// so nothing is left for the drop's flush to wait for.
    #[test]
    fn purging_serves_every_report_of_what_the_producer_held() {
        let producer: BaseProducer = ClientConfig::new()
            .set("bootstrap.servers", "127.0.0.1:1")
            .set("log_level", "0")
            .create()
            .expect("a producer");
        for i in 0..1000u32 {
            let key = i.to_be_bytes();
            producer
                .send(
                    BaseRecord::<[u8], [u8]>::to("t")
                        .key(&key[..])
                        .payload(&key[..]),
                )
                .map_err(|(e, _)| e)
                .expect("queued");
        }
        assert!(producer.in_flight_count() >= 1000, "the records are held");
        purge_before_drop(&producer);
        assert_eq!(producer.in_flight_count(), 0);
    }
}
