//! Per-period statistics of the fixed-rate loop, summarized once per report window.

use std::time::Duration;

use super::histogram::{DurationHistogram, Percentiles};

/// What the loop reports after each window (by default every second) and at the end.
/// Durations in nanoseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct LoopReport {
    /// The configured period.
    pub nominal_period_ns: u64,
    /// Index of this window (1 for the first report; 0 before any).
    pub window_index: u64,
    /// Length of the window (first to last wake-up in it), seconds.
    pub window_seconds: f64,
    /// Ticks per second over the window.
    pub rate_hz: f64,
    /// Time between consecutive wake-ups.
    pub period: Percentiles,
    /// Wake-up time minus deadline: the scheduling jitter.
    pub wake_latency: Percentiles,
    /// Time spent in the job's tick.
    pub compute: Percentiles,
    /// Time spent handing the tick's output off after it (waking the publisher thread).
    pub hand_off: Percentiles,
    /// Ticks that ended after the next deadline, in this window.
    pub window_overruns: u64,
    /// Ticks since start.
    pub total_ticks: u64,
    /// Overruns since start.
    pub total_overruns: u64,
    /// Deadlines skipped since start (an overrun skips one or more whole periods to keep
    /// the phase rather than bursting to catch up).
    pub total_missed_periods: u64,
    /// Overruns since start that left the loop more than two periods behind.
    pub total_long_overruns: u64,
    /// Heap allocations on the loop thread since its first tick, when the binary counts
    /// them ([`super::alloc_probe`]).
    pub loop_allocations: Option<u64>,
}

/// Accumulates samples for the current window and for the whole run; all storage is
/// allocated by [`LoopStatistics::new`].
#[derive(Debug)]
pub struct LoopStatistics {
    nominal_period_ns: u64,
    period: DurationHistogram,
    wake_latency: DurationHistogram,
    compute: DurationHistogram,
    hand_off: DurationHistogram,
    run_period: DurationHistogram,
    run_wake_latency: DurationHistogram,
    run_compute: DurationHistogram,
    run_hand_off: DurationHistogram,
    run_first_wake_ns: Option<u64>,
    window_first_wake_ns: Option<u64>,
    window_last_wake_ns: u64,
    window_overruns: u64,
    window_index: u64,
    total_ticks: u64,
    total_overruns: u64,
    total_missed_periods: u64,
    total_long_overruns: u64,
    loop_allocations: Option<u64>,
}

impl LoopStatistics {
    /// Statistics for a loop of period `nominal_period`.
    pub fn new(nominal_period: Duration) -> Self {
        Self {
            nominal_period_ns: nominal_period.as_nanos() as u64,
            period: DurationHistogram::new(),
            wake_latency: DurationHistogram::new(),
            compute: DurationHistogram::new(),
            hand_off: DurationHistogram::new(),
            run_period: DurationHistogram::new(),
            run_wake_latency: DurationHistogram::new(),
            run_compute: DurationHistogram::new(),
            run_hand_off: DurationHistogram::new(),
            run_first_wake_ns: None,
            window_first_wake_ns: None,
            window_last_wake_ns: 0,
            window_overruns: 0,
            window_index: 0,
            total_ticks: 0,
            total_overruns: 0,
            total_missed_periods: 0,
            total_long_overruns: 0,
            loop_allocations: None,
        }
    }

    /// Records one tick. `period_ns` is None for the very first tick (no previous wake).
    pub fn record_tick(&mut self, wake_ns: u64, period_ns: Option<u64>, latency_ns: u64, compute_ns: u64) {
        if let Some(p) = period_ns {
            self.period.record_nanos(p);
            self.run_period.record_nanos(p);
        }
        self.wake_latency.record_nanos(latency_ns);
        self.compute.record_nanos(compute_ns);
        self.run_wake_latency.record_nanos(latency_ns);
        self.run_compute.record_nanos(compute_ns);
        self.window_first_wake_ns.get_or_insert(wake_ns);
        self.run_first_wake_ns.get_or_insert(wake_ns);
        self.window_last_wake_ns = wake_ns;
        self.total_ticks += 1;
    }

    /// Records the hand-off after a tick ([`super::Job::hand_off`]).
    pub fn record_hand_off(&mut self, ns: u64) {
        self.hand_off.record_nanos(ns);
        self.run_hand_off.record_nanos(ns);
    }

    /// Records an overrun that skipped `missed_periods` deadlines, `long` if it left the
    /// loop more than two periods behind.
    pub fn record_overrun(&mut self, missed_periods: u64, long: bool) {
        self.window_overruns += 1;
        self.total_overruns += 1;
        self.total_missed_periods += missed_periods;
        self.total_long_overruns += u64::from(long);
    }

    /// The loop thread's allocations so far (see [`LoopReport::loop_allocations`]).
    pub fn set_loop_allocations(&mut self, count: Option<u64>) {
        self.loop_allocations = count;
    }

    /// Ticks recorded in the current window.
    pub fn window_ticks(&self) -> u64 {
        self.wake_latency.count()
    }

    /// Summarizes the current window and starts a new one. No allocation.
    pub fn finish_window(&mut self) -> LoopReport {
        self.window_index += 1;
        let report = self.summarize(
            self.window_index,
            self.window_first_wake_ns,
            [&self.period, &self.wake_latency, &self.compute, &self.hand_off],
            self.window_overruns,
        );
        self.period.reset();
        self.wake_latency.reset();
        self.compute.reset();
        self.hand_off.reset();
        // The next window's first period is measured from this window's last wake.
        self.window_first_wake_ns = (self.total_ticks > 0).then_some(self.window_last_wake_ns);
        self.window_overruns = 0;
        report
    }

    /// The same figures over the whole run so far (window index 0, window = run).
    pub fn whole_run(&self) -> LoopReport {
        self.summarize(
            0,
            self.run_first_wake_ns,
            [&self.run_period, &self.run_wake_latency, &self.run_compute, &self.run_hand_off],
            self.total_overruns,
        )
    }

    fn summarize(
        &self,
        window_index: u64,
        first_wake_ns: Option<u64>,
        [period, wake_latency, compute, hand_off]: [&DurationHistogram; 4],
        overruns: u64,
    ) -> LoopReport {
        let span_ns = first_wake_ns.map_or(0, |first| self.window_last_wake_ns.saturating_sub(first));
        let periods = period.count();
        LoopReport {
            nominal_period_ns: self.nominal_period_ns,
            window_index,
            window_seconds: span_ns as f64 * 1e-9,
            // Rate from the mean period: a span of `periods` periods between wake-ups.
            rate_hz: if periods > 0 && span_ns > 0 { periods as f64 / (span_ns as f64 * 1e-9) } else { 0.0 },
            period: period.percentiles(),
            wake_latency: wake_latency.percentiles(),
            compute: compute.percentiles(),
            hand_off: hand_off.percentiles(),
            window_overruns: overruns,
            total_ticks: self.total_ticks,
            total_overruns: self.total_overruns,
            total_missed_periods: self.total_missed_periods,
            total_long_overruns: self.total_long_overruns,
            loop_allocations: self.loop_allocations,
        }
    }
}

impl LoopReport {
    /// One line for a terminal: rate, period and jitter percentiles, compute time, overruns.
    pub fn status_line(&self) -> String {
        let us = |ns: u64| ns as f64 * 1e-3;
        format!(
            "rate {:.1} Hz | period p50 {:.1} p99 {:.1} max {:.1} us | jitter p50 {:.1} p99 {:.1} max {:.1} us | compute p99 {:.1} us, hand-off p99 {:.1} us | overruns {} (total {}, {} beyond 2 periods) | loop allocations {}",
            self.rate_hz,
            us(self.period.p50),
            us(self.period.p99),
            us(self.period.max),
            us(self.wake_latency.p50),
            us(self.wake_latency.p99),
            us(self.wake_latency.max),
            us(self.compute.p99),
            us(self.hand_off.p99),
            self.window_overruns,
            self.total_overruns,
            self.total_long_overruns,
            self.loop_allocations.map_or("not counted".to_owned(), |n| n.to_string()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_of_exact_periods() {
        let mut s = LoopStatistics::new(Duration::from_millis(1));
        for k in 0..=1000u64 {
            let period = (k > 0).then_some(1_000_000);
            s.record_tick(k * 1_000_000, period, 2_000, 5_000);
        }
        s.record_overrun(2, false);
        let r = s.finish_window();
        assert_eq!(r.window_index, 1);
        assert!((r.rate_hz - 1000.0).abs() < 1e-9);
        assert!((r.window_seconds - 1.0).abs() < 1e-12);
        assert_eq!(r.period.count, 1000);
        assert_eq!(r.period.max, 1_000_000);
        assert_eq!(r.wake_latency.p99, 2_000);
        assert_eq!(r.compute.max, 5_000);
        assert_eq!((r.window_overruns, r.total_overruns, r.total_missed_periods), (1, 1, 2));
        assert_eq!(r.total_ticks, 1001);
        // The next window continues from the last wake and starts with no overruns.
        s.record_tick(1_001_000_000, Some(1_000_000), 0, 0);
        let r2 = s.finish_window();
        assert_eq!(r2.window_overruns, 0);
        assert!((r2.rate_hz - 1000.0).abs() < 1e-9);
        assert_eq!(r2.total_overruns, 1);
        let run = s.whole_run();
        assert_eq!((run.window_index, run.period.count, run.window_overruns), (0, 1001, 1));
        assert!((run.window_seconds - 1.001).abs() < 1e-12);
        assert!((run.rate_hz - 1000.0).abs() < 1e-9);
    }
}
