//! Where librdkafka's log lines and client errors enter the `log` crate (target `librdkafka`),
//! for every client the library creates: through [`ClientLog`], the clients' context, and
//! through the consumer-queue events that [`super::librdkafka::consumer_poll`] hands to it.
//!
//! While a broker is unreachable librdkafka repeats the same errors many times a second for as
//! long as it lasts ("1/1 brokers are down", "Connect to … failed"), from each client. Warnings
//! and errors are therefore collapsed process-wide: the first line of a kind is logged
//! verbatim, further lines of that kind are counted, and at most one summary per
//! [`REPEAT_PERIOD`] says what keeps failing, since when, and what the library does meanwhile.
//! A kind that stays quiet for two periods starts afresh (verbatim) when it comes back. This
//! happens here, not in a logger, so the C log callback and the JVM bridge see the same lines.

use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rdkafka::client::ClientContext;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::error::KafkaError;

use crate::mutex::lock;

/// The `log` target of librdkafka's lines.
pub const TARGET: &str = "librdkafka";

/// At most one summary of a repeating line per this period.
pub const REPEAT_PERIOD: Duration = Duration::from_secs(30);

/// What the library does while a client's broker cannot be reached, said in every summary.
const MEANWHILE: &str = "librdkafka keeps reconnecting with backoff; the task retries its \
                         requests and keeps its state; a stop still ends it at once";

/// The context of every client the library creates: routes its log lines and errors through
/// the collapsing below, naming the cluster by its bootstrap servers.
pub struct ClientLog {
    cluster: String,
}

impl ClientLog {
    /// The context for a client with these librdkafka settings.
    pub fn new(settings: &BTreeMap<String, String>) -> Self {
        ClientLog {
            cluster: settings
                .get("bootstrap.servers")
                .cloned()
                .unwrap_or_default(),
        }
    }

    /// Forwards one librdkafka log line (`level` is syslog's, as librdkafka gives it).
    pub fn line(&self, level: RDKafkaLogLevel, facility: &str, text: &str) {
        let level = match level {
            RDKafkaLogLevel::Emerg
            | RDKafkaLogLevel::Alert
            | RDKafkaLogLevel::Critical
            | RDKafkaLogLevel::Error => log::Level::Error,
            RDKafkaLogLevel::Warning => log::Level::Warn,
            RDKafkaLogLevel::Notice | RDKafkaLogLevel::Info => log::Level::Info,
            RDKafkaLogLevel::Debug => log::Level::Debug,
        };
        forward(
            &self.cluster,
            level,
            format!("librdkafka: {} {}", facility.trim(), text.trim()),
        );
    }
}

/// Forwards a librdkafka line that belongs to no client (one about a configuration, logged
/// before the client exists), as [`ClientLog::line`] does for a client's.
pub fn unattributed_line(level: RDKafkaLogLevel, facility: &str, text: &str) {
    ClientLog {
        cluster: String::new(),
    }
    .line(level, facility, text);
}

impl ClientContext for ClientLog {
    fn log(&self, level: RDKafkaLogLevel, facility: &str, text: &str) {
        self.line(level, facility, text);
    }

    fn error(&self, error: KafkaError, reason: &str) {
        forward(
            &self.cluster,
            log::Level::Error,
            format!("librdkafka: {error}: {reason}"),
        );
    }
}

/// syslog level (as in librdkafka's log events) → rust-rdkafka's level.
pub fn syslog_level(level: i32) -> RDKafkaLogLevel {
    match level {
        i32::MIN..=0 => RDKafkaLogLevel::Emerg,
        1 => RDKafkaLogLevel::Alert,
        2 => RDKafkaLogLevel::Critical,
        3 => RDKafkaLogLevel::Error,
        4 => RDKafkaLogLevel::Warning,
        5 => RDKafkaLogLevel::Notice,
        6 => RDKafkaLogLevel::Info,
        _ => RDKafkaLogLevel::Debug,
    }
}

static REPEATS: LazyLock<Mutex<Repeats>> =
    LazyLock::new(|| Mutex::new(Repeats::new(REPEAT_PERIOD)));

/// Logs `line` of a client of `cluster`, collapsing repeats of warnings and errors.
fn forward(cluster: &str, level: log::Level, line: String) {
    if level > log::Level::Warn || !log::log_enabled!(target: TARGET, level) {
        log::log!(target: TARGET, level, "{line}");
        return;
    }
    let verdict = lock(&REPEATS).offer(Instant::now(), SystemTime::now(), cluster, &line);
    match verdict {
        Verdict::First => log::log!(target: TARGET, level, "{line}"),
        Verdict::Repeat => {}
        Verdict::Summary(summary) => log::log!(target: TARGET, level, "{summary}"),
    }
}

/// What to do with one offered line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The first line of its kind (or the first after a quiet spell): log it verbatim.
    First,
    /// A repeat, counted for the next summary: log nothing.
    Repeat,
    /// A repeat after a period without output: log this summary instead.
    Summary(String),
}

/// One kind of line that keeps coming.
struct Episode {
    since: Instant,
    since_wall: SystemTime,
    last_output: Instant,
    last_seen: Instant,
    repeats: u64,
    last_line: String,
}

/// Repeat collapsing, with the clock passed in (tests drive it).
pub struct Repeats {
    period: Duration,
    episodes: HashMap<String, Episode>,
}

impl Repeats {
    pub fn new(period: Duration) -> Self {
        Repeats {
            period,
            episodes: HashMap::new(),
        }
    }

    /// Decides what to log for `line` of a client of `cluster`, seen at `now` (`wall` is the
    /// same moment on the wall clock, for the summary's "since").
    pub fn offer(&mut self, now: Instant, wall: SystemTime, cluster: &str, line: &str) -> Verdict {
        let quiet = self.period * 2;
        self.episodes
            .retain(|_, e| now.saturating_duration_since(e.last_seen) < quiet);
        let key = format!("{cluster}\u{0}{}", kind_of(line));
        let Some(e) = self.episodes.get_mut(&key) else {
            self.episodes.insert(
                key,
                Episode {
                    since: now,
                    since_wall: wall,
                    last_output: now,
                    last_seen: now,
                    repeats: 0,
                    last_line: line.to_string(),
                },
            );
            return Verdict::First;
        };
        e.last_seen = now;
        e.repeats += 1;
        e.last_line.clear();
        e.last_line.push_str(line);
        let since_output = now.saturating_duration_since(e.last_output);
        if since_output < self.period {
            return Verdict::Repeat;
        }
        let summary = format!(
            "librdkafka: still failing for cluster `{cluster}` since {} ({} s): {} more like \
             this in the last {} s, the latest: \"{}\"; meanwhile {MEANWHILE}",
            utc_time_of_day(e.since_wall),
            now.saturating_duration_since(e.since).as_secs(),
            e.repeats,
            since_output.as_secs(),
            e.last_line
                .strip_prefix("librdkafka: ")
                .unwrap_or(&e.last_line),
        );
        e.repeats = 0;
        e.last_output = now;
        Verdict::Summary(summary)
    }
}

/// The kind of a line: the line without a closing parenthesised remark, and with every run of
/// digits replaced by `#`, so that counters, durations and client numbers ("(after 3ms in state
/// CONNECT, 5 identical error(s) suppressed)", "rdkafka#producer-7") do not make a repeat look
/// new.
fn kind_of(line: &str) -> String {
    let line = match line.rfind(" (") {
        Some(at) if line.ends_with(')') => &line[..at],
        _ => line,
    };
    let mut kind = String::with_capacity(line.len());
    let mut in_digits = false;
    for c in line.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                kind.push('#');
            }
            in_digits = true;
        } else {
            kind.push(c);
            in_digits = false;
        }
    }
    kind
}

/// `HH:MM:SS UTC` of a wall-clock moment.
fn utc_time_of_day(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) % 86_400;
    format!(
        "{:02}:{:02}:{:02} UTC",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOWN: &str = "librdkafka: Local: All broker connections are down: 1/1 brokers are down";

    fn connect_failed(ms: u32) -> String {
        format!(
            "librdkafka: FAIL [thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to \
             ipv4#127.0.0.1:1 failed: Connection refused (after {ms}ms in state CONNECT)"
        )
    }

    /// 18:01:02 UTC on some day.
    fn wall() -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(20_000 * 86_400 + 18 * 3600 + 62)
    }

    #[test]
    fn twenty_repeats_a_second_for_two_minutes_give_the_first_line_and_one_summary_per_period() {
        let mut r = Repeats::new(Duration::from_secs(30));
        let t0 = Instant::now();
        let mut out = Vec::new();
        for i in 0..(120 * 20) {
            let at = Duration::from_millis(50 * i);
            match r.offer(t0 + at, wall() + at, "a:9092", DOWN) {
                Verdict::First => out.push((at.as_secs(), DOWN.to_string())),
                Verdict::Repeat => {}
                Verdict::Summary(s) => out.push((at.as_secs(), s)),
            }
        }
        let times: Vec<u64> = out.iter().map(|(t, _)| *t).collect();
        assert_eq!(times, vec![0, 30, 60, 90], "{out:#?}");
        assert_eq!(out[0].1, DOWN);
        assert_eq!(
            out[1].1,
            "librdkafka: still failing for cluster `a:9092` since 18:01:02 UTC (30 s): 600 more \
             like this in the last 30 s, the latest: \"Local: All broker connections are down: \
             1/1 brokers are down\"; meanwhile librdkafka keeps reconnecting with backoff; the \
             task retries its requests and keeps its state; a stop still ends it at once"
        );
        assert!(
            out[3].1.contains("since 18:01:02 UTC (90 s): 600 more"),
            "{}",
            out[3].1
        );
    }

    #[test]
    fn lines_differing_only_in_numbers_are_one_kind_and_the_summary_quotes_the_latest() {
        let mut r = Repeats::new(Duration::from_secs(30));
        let t0 = Instant::now();
        assert_eq!(
            r.offer(t0, wall(), "b:1", &connect_failed(0)),
            Verdict::First
        );
        assert_eq!(
            r.offer(
                t0 + Duration::from_secs(1),
                wall(),
                "b:1",
                &connect_failed(7)
            ),
            Verdict::Repeat
        );
        let Verdict::Summary(s) = r.offer(
            t0 + Duration::from_secs(30),
            wall(),
            "b:1",
            &connect_failed(12),
        ) else {
            panic!("no summary after a period");
        };
        assert!(s.contains("2 more like this"), "{s}");
        assert!(s.contains("after 12ms"), "{s}");
        assert!(s.contains("cluster `b:1`"), "{s}");
    }

    #[test]
    fn other_kinds_and_other_clusters_are_first_lines_of_their_own() {
        let mut r = Repeats::new(Duration::from_secs(30));
        let t0 = Instant::now();
        assert_eq!(r.offer(t0, wall(), "a:1", DOWN), Verdict::First);
        assert_eq!(r.offer(t0, wall(), "b:1", DOWN), Verdict::First);
        assert_eq!(
            r.offer(t0, wall(), "a:1", &connect_failed(0)),
            Verdict::First
        );
        assert_eq!(r.offer(t0, wall(), "a:1", DOWN), Verdict::Repeat);
    }

    #[test]
    fn a_kind_quiet_for_two_periods_starts_afresh_verbatim() {
        let mut r = Repeats::new(Duration::from_secs(30));
        let t0 = Instant::now();
        assert_eq!(r.offer(t0, wall(), "a:1", DOWN), Verdict::First);
        assert_eq!(
            r.offer(t0 + Duration::from_secs(59), wall(), "a:1", DOWN),
            Verdict::Summary(summary_of_one_down_line_after_59_s())
        );
        assert_eq!(
            r.offer(t0 + Duration::from_secs(120), wall(), "a:1", DOWN),
            Verdict::First
        );
    }

    fn summary_of_one_down_line_after_59_s() -> String {
        format!(
            "librdkafka: still failing for cluster `a:1` since 18:01:02 UTC (59 s): 1 more like \
             this in the last 59 s, the latest: \"{}\"; meanwhile {MEANWHILE}",
            DOWN.strip_prefix("librdkafka: ").unwrap_or(DOWN)
        )
    }

    #[test]
    fn kinds_replace_digit_runs() {
        assert_eq!(
            kind_of("rdkafka#producer-12 after 3ms"),
            "rdkafka#producer-# after #ms"
        );
        assert_eq!(
            kind_of(
                &connect_failed(3).replace("CONNECT)", "CONNECT, 1 identical error(s) suppressed)")
            ),
            kind_of(&connect_failed(0))
        );
        assert_eq!(utc_time_of_day(wall()), "18:01:02 UTC");
    }
}
