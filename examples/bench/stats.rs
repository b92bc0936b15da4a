//! Summaries of repeated measurements and the markdown table they end up in.

use std::fmt::Write as _;
use std::time::Duration;

/// Sorted samples of one measurement.
#[derive(Clone, Debug, Default)]
pub struct Dist(Vec<f64>);

impl Dist {
    /// Sorts `values` (NaN-free by construction).
    pub fn new(mut values: Vec<f64>) -> Self {
        values.sort_by(f64::total_cmp);
        Dist(values)
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Nearest-rank percentile, `p` in 0..=100.
    pub fn pct(&self, p: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let rank = ((p / 100.0) * self.0.len() as f64).ceil() as usize;
        self.0[rank.clamp(1, self.0.len()) - 1]
    }

    pub fn min(&self) -> f64 {
        self.0.first().copied().unwrap_or(f64::NAN)
    }

    pub fn median(&self) -> f64 {
        self.pct(50.0)
    }

    pub fn max(&self) -> f64 {
        self.0.last().copied().unwrap_or(f64::NAN)
    }
}

/// Milliseconds of a duration, as f64.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A rate in human units: `1.23 M/s`.
pub fn rate(v: f64) -> String {
    if v >= 1e9 {
        format!("{:.2} G/s", v / 1e9)
    } else if v >= 1e6 {
        format!("{:.2} M/s", v / 1e6)
    } else if v >= 1e3 {
        format!("{:.1} k/s", v / 1e3)
    } else {
        format!("{v:.0} /s")
    }
}

/// Milliseconds, with precision that suits the size.
pub fn millis(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 1.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.3} ms")
    }
}

/// `min / median / max` formatted with `f`.
pub fn mmm(d: &Dist, f: fn(f64) -> String) -> String {
    format!("{} / {} / {}", f(d.min()), f(d.median()), f(d.max()))
}

/// `p50 / p99 / max` formatted with `f`.
pub fn tail(d: &Dist, f: fn(f64) -> String) -> String {
    format!("{} / {} / {}", f(d.pct(50.0)), f(d.pct(99.0)), f(d.max()))
}

/// One markdown table, built row by row.
pub struct Table {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Table {
    pub fn new(header: &[&'static str]) -> Self {
        Table {
            header: header.to_vec(),
            rows: Vec::new(),
        }
    }

    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "| {} |", self.header.join(" | "));
        let _ = writeln!(
            out,
            "|{}",
            self.header.iter().map(|_| "---|").collect::<String>()
        );
        for r in &self.rows {
            let _ = writeln!(out, "| {} |", r.join(" | "));
        }
        out
    }
}

/// CPU time (user + system) a process has used, from `/proc/<pid>/stat`; `None` off Linux.
pub fn cpu_ms(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on every Linux this runs on.
    Some(ticks * 10.0)
}
