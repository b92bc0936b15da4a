//! MM2's `checkpoint-latency-ms` statistic: the last value, and its minimum, maximum and average
//! over a sliding window, as Kafka's metrics library computes them (`Value`, and the sampled
//! `Min`, `Max` and `Avg` under the default `MetricConfig`, which `MirrorCheckpointMetrics`
//! uses: two samples of 30 s).
//!
//! Kafka's rules, kept here because dashboards compare the two: a sample is complete once 30 s
//! passed since it started, and the next record then recycles the oldest of three slots; when
//! measured, a sample whose last event is 60 s old or more is cleared; min, max and average are
//! taken over the samples left and are NaN (here `None`) when they hold no event; the value is
//! the last one recorded, 0 before any.

/// Samples combined into a measurement (`MetricConfig.samples()`, default 2).
const SAMPLES: usize = 2;
/// Length of one sample's window in ms (`MetricConfig.timeWindowMs()`, default 30 s).
const WINDOW_MS: i64 = 30_000;

#[derive(Clone, Copy, Debug)]
struct Sample {
    events: u64,
    start_ms: i64,
    last_event_ms: i64,
    sum: f64,
    min: f64,
    max: f64,
}

impl Sample {
    fn new(now_ms: i64) -> Self {
        Sample {
            events: 0,
            start_ms: now_ms,
            last_event_ms: now_ms,
            sum: 0.0,
            min: f64::MAX,
            max: f64::NEG_INFINITY,
        }
    }
}

/// One group × partition's checkpoint latency statistic.
#[derive(Clone, Debug, Default)]
pub(crate) struct LatencyStat {
    last: f64,
    /// Up to `SAMPLES + 1` slots: Kafka keeps one more than it combines, so that a complete
    /// sample is not lost the moment the next one starts.
    samples: Vec<Sample>,
    current: usize,
}

/// A measurement of [`LatencyStat`]: `None` where Kafka reports NaN.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LatencyMeasure {
    pub(crate) last: f64,
    pub(crate) min: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) avg: Option<f64>,
}

impl LatencyStat {
    /// Records `value_ms` measured at `now_ms` (epoch ms).
    pub(crate) fn record(&mut self, value_ms: f64, now_ms: i64) {
        self.last = value_ms;
        if self.samples.is_empty() {
            self.samples.push(Sample::new(now_ms));
            self.current = 0;
        }
        if now_ms - self.samples[self.current].start_ms >= WINDOW_MS {
            self.current = (self.current + 1) % (SAMPLES + 1);
            if self.current >= self.samples.len() {
                self.samples.push(Sample::new(now_ms));
            } else {
                self.samples[self.current] = Sample::new(now_ms);
            }
        }
        let s = &mut self.samples[self.current];
        s.events += 1;
        s.sum += value_ms;
        s.min = s.min.min(value_ms);
        s.max = s.max.max(value_ms);
        s.last_event_ms = now_ms;
    }

    /// Measures at `now_ms`, clearing the samples that expired (as Kafka's `measure` does).
    pub(crate) fn measure(&mut self, now_ms: i64) -> LatencyMeasure {
        let expire_ms = SAMPLES as i64 * WINDOW_MS;
        let mut events = 0;
        let (mut sum, mut min, mut max) = (0.0, f64::MAX, f64::NEG_INFINITY);
        for s in &mut self.samples {
            if now_ms - s.last_event_ms >= expire_ms {
                *s = Sample::new(now_ms);
            }
            events += s.events;
            sum += s.sum;
            min = min.min(s.min);
            max = max.max(s.max);
        }
        let some = |v: f64| (events > 0).then_some(v);
        LatencyMeasure {
            last: self.last,
            min: some(min),
            max: some(max),
            avg: some(sum / events.max(1) as f64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: i64 = 1_700_000_000_000;

    #[test]
    fn before_any_record_the_value_is_zero_and_min_max_avg_are_nan() {
        let mut s = LatencyStat::default();
        let m = s.measure(T0);
        assert_eq!(m.last, 0.0);
        assert_eq!((m.min, m.max, m.avg), (None, None, None));
    }

    #[test]
    fn min_max_avg_cover_the_records_of_the_window_and_the_value_is_the_last() {
        let mut s = LatencyStat::default();
        for (i, v) in [40.0, 10.0, 70.0].into_iter().enumerate() {
            s.record(v, T0 + i as i64 * 1000);
        }
        let m = s.measure(T0 + 5000);
        assert_eq!(m.last, 70.0);
        assert_eq!(m.min, Some(10.0));
        assert_eq!(m.max, Some(70.0));
        assert_eq!(m.avg, Some(40.0));
    }

    #[test]
    fn a_record_60_s_old_no_longer_counts_but_one_59_s_old_does() {
        let mut s = LatencyStat::default();
        s.record(500.0, T0);
        s.record(20.0, T0 + 31_000);
        // The first sample's last event is 60 s old at T0 + 60 s: cleared.
        let m = s.measure(T0 + 60_000);
        assert_eq!((m.min, m.max), (Some(20.0), Some(20.0)));
        assert_eq!(m.last, 20.0);
        let m = s.measure(T0 + 90_999);
        assert_eq!(m.max, Some(20.0));
        let m = s.measure(T0 + 91_000);
        assert_eq!((m.min, m.max, m.avg), (None, None, None));
        assert_eq!(m.last, 20.0, "the value outlives the window");
    }

    #[test]
    fn a_fourth_window_recycles_the_oldest_of_three_slots() {
        let mut s = LatencyStat::default();
        // One record per window: slots 0, 1, 2, then slot 0 again.
        for (i, v) in [1.0, 2.0, 3.0, 4.0].into_iter().enumerate() {
            s.record(v, T0 + i as i64 * WINDOW_MS);
        }
        assert_eq!(s.samples.len(), SAMPLES + 1);
        // At the last record's time, the 1.0 was overwritten and the 2.0 is 60 s old.
        let m = s.measure(T0 + 3 * WINDOW_MS);
        assert_eq!((m.min, m.max), (Some(3.0), Some(4.0)));
        assert_eq!(m.avg, Some(3.5));
    }
}
