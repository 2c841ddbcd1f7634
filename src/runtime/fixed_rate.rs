//! The fixed-rate loop: a dedicated OS thread that wakes at absolute deadlines.
//!
//! Deadlines are `start + k·period` on CLOCK_MONOTONIC, so the rate does not drift with
//! sleep overshoot or compute time (a relative sleep or a ROS wall timer drifts; seen at
//! ~988 Hz for 1 kHz). A tick that ends after the next deadline is an overrun: the loop
//! skips the deadlines already past (keeping the phase) instead of bursting to catch up.
//! After start-up the loop neither allocates, locks nor blocks except in its deadline
//! sleep; the job's tick must keep the same promise (tested with a counting allocator).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use super::clock::{MonotonicTime, sleep_until};
use super::loop_stats::{LoopReport, LoopStatistics};
use super::mailbox::MailboxWriter;

/// Settings of the loop thread.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopSettings {
    /// Thread name (visible in `top -H`, `perf`).
    pub name: String,
    /// Nominal period; zero runs the loop free (no sleep, no deadline: as fast as the job
    /// allows, e.g. a simulation at `realtime_factor: max`).
    pub period: Duration,
    /// How often a [`LoopReport`] is published.
    pub report_interval: Duration,
    /// SCHED_FIFO priority (1–99); None keeps the normal scheduler.
    pub realtime_priority: Option<u8>,
    /// CPU to pin the loop thread to; None lets the scheduler choose.
    pub cpu: Option<usize>,
    /// After an overrun that left the loop at most this far behind, run the missed
    /// periods back to back instead of skipping them (a simulation paced on the wall
    /// clock keeps its pace through a short stall); zero: always skip (a controller must
    /// not burst).
    pub catch_up: Duration,
}

impl LoopSettings {
    /// A loop at `rate_hz` with one report per second and normal scheduling.
    pub fn at_rate(name: &str, rate_hz: f64) -> Self {
        Self {
            name: name.to_owned(),
            period: Duration::from_secs_f64(1.0 / rate_hz),
            report_interval: Duration::from_secs(1),
            realtime_priority: None,
            cpu: None,
            catch_up: Duration::ZERO,
        }
    }
}

/// What a job sees at each tick.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Tick {
    /// 0 for the first tick.
    pub index: u64,
    /// The deadline this tick was scheduled for.
    pub deadline: MonotonicTime,
    /// When the thread actually woke.
    pub wake: MonotonicTime,
    /// The nominal period.
    pub period: Duration,
}

/// Work done once per period. `tick` runs on the loop thread: it must not allocate, lock
/// or block.
pub trait Job: Send {
    /// On the loop thread, before its first tick and before its allocations are counted:
    /// the thread-local state the ticks will use (faer's matrix-product workspace).
    fn start(&mut self) {}

    /// One period's work.
    fn tick(&mut self, tick: &Tick);

    /// After the tick's compute time is taken: wakes whoever waits for its output (the
    /// publisher thread). Waking a thread on another CPU is a system call and an
    /// inter-processor interrupt — 5 to 15 µs in a VM, where the interrupt exits to the
    /// hypervisor — that is the I/O side's, not the computation's: the loop measures it
    /// apart, as the hand-off.
    fn hand_off(&mut self) {}
}

/// A tick that does nothing: the loop alone, whose overruns and jitter are the host's
/// (`signorini loop --empty`, the real-time tests' baseline).
#[derive(Copy, Clone, Debug, Default)]
pub struct EmptyJob;

impl Job for EmptyJob {
    fn tick(&mut self, _: &Tick) {}
}

/// Runs `job` on the calling thread at the settings' rate until `shutdown` is set (checked
/// once per period; the job may set it). Publishes a report every `report_interval` (and
/// one for the last, partial window) and returns the report of the whole run.
pub fn run_loop<J: Job + ?Sized>(
    settings: &LoopSettings,
    job: &mut J,
    shutdown: &AtomicBool,
    reports: &mut MailboxWriter<LoopReport>,
) -> LoopReport {
    let free = settings.period.is_zero();
    let period_ns = settings.period.as_nanos().max(1) as u64;
    let mut stats = LoopStatistics::new(settings.period);
    // The job's thread-local warm-up comes before the first deadline is set, so it does
    // not eat into the first period.
    job.start();
    let mut deadline = MonotonicTime::now() + settings.period;
    let mut window_start = MonotonicTime::now();
    let mut previous_wake: Option<MonotonicTime> = None;
    let mut index = 0u64;

    while !shutdown.load(Ordering::Relaxed) {
        if free {
            deadline = MonotonicTime::now();
        } else {
            sleep_until(deadline);
        }
        let wake = MonotonicTime::now();
        job.tick(&Tick { index, deadline, wake, period: settings.period });
        let computed = MonotonicTime::now();
        job.hand_off();
        let done = MonotonicTime::now();
        stats.record_tick(
            wake.as_nanos(),
            previous_wake.map(|p| wake.since(p).as_nanos() as u64),
            wake.since(deadline).as_nanos() as u64,
            computed.since(wake).as_nanos() as u64,
        );
        stats.record_hand_off(done.since(computed).as_nanos() as u64);
        previous_wake = Some(wake);
        if index == 0 {
            // Start-up is over: from here on every allocation on this thread is counted.
            super::alloc_probe::watch(true);
        }
        index += 1;
        deadline = deadline + settings.period;
        if !free && done > deadline {
            let behind = done.since(deadline);
            let long = behind.as_nanos() as u64 > 2 * period_ns;
            if behind <= settings.catch_up {
                stats.record_overrun(0, long);
            } else {
                let missed = behind.as_nanos() as u64 / period_ns + 1;
                deadline = MonotonicTime::from_nanos(deadline.as_nanos() + missed * period_ns);
                stats.record_overrun(missed, long);
            }
        }
        // One report per interval of wall time (not of ticks: a free loop has no rate).
        if done.since(window_start) >= settings.report_interval {
            stats.set_loop_allocations(super::alloc_probe::allocations());
            let report = stats.finish_window();
            reports.write_with(|r| *r = report);
            window_start = done;
        }
    }
    stats.set_loop_allocations(super::alloc_probe::allocations());
    super::alloc_probe::watch(false);
    let last = stats.finish_window();
    reports.write_with(|r| *r = last);
    stats.whole_run()
}

/// A loop running on its own thread.
pub struct LoopThread<J> {
    handle: JoinHandle<(J, LoopReport)>,
    shutdown: Arc<AtomicBool>,
    /// Problems applying the real-time settings (priority, affinity); the loop runs anyway.
    pub startup_warnings: Vec<String>,
}

impl<J: Job + 'static> LoopThread<J> {
    /// Starts `job` on a new thread named `settings.name`, applies the real-time settings
    /// there, and returns once the thread is running. `shutdown` stops it (also shared with
    /// the rest of the process so one signal stops everything).
    pub fn spawn(
        settings: LoopSettings,
        mut job: J,
        shutdown: Arc<AtomicBool>,
        mut reports: MailboxWriter<LoopReport>,
    ) -> std::io::Result<Self> {
        let (started_tx, started_rx) = std::sync::mpsc::channel::<Vec<String>>();
        let stop = shutdown.clone();
        let handle = std::thread::Builder::new().name(settings.name.clone()).spawn(move || {
            let warnings = super::realtime::apply(settings.realtime_priority, settings.cpu);
            // The receiver waits for this message; if it is gone, nobody listens anyway.
            let _ = started_tx.send(warnings);
            let last = run_loop(&settings, &mut job, &stop, &mut reports);
            (job, last)
        })?;
        let startup_warnings =
            started_rx.recv().map_err(|_| std::io::Error::other("the loop thread ended before it started"))?;
        Ok(Self { handle, shutdown, startup_warnings })
    }

    /// Asks the loop to stop after its current period.
    pub fn request_stop(&self) {
        self.shutdown.store(true, Ordering::Relaxed);
    }

    /// True once the thread has ended.
    pub fn is_finished(&self) -> bool {
        self.handle.is_finished()
    }

    /// Stops the loop and returns the job and the report of the whole run.
    pub fn stop(self) -> std::thread::Result<(J, LoopReport)> {
        self.request_stop();
        self.handle.join()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::mailbox::mailbox;

    struct CountTo {
        n: u64,
        seen: Vec<Tick>,
        stop: Arc<AtomicBool>,
        busy: Duration,
    }

    impl Job for CountTo {
        fn tick(&mut self, tick: &Tick) {
            self.seen.push(*tick);
            if self.busy > Duration::ZERO && tick.index == 5 {
                std::thread::sleep(self.busy);
            }
            if self.seen.len() as u64 == self.n {
                self.stop.store(true, Ordering::Relaxed);
            }
        }
    }

    #[test]
    fn deadlines_are_absolute_and_every_wake_is_after_its_deadline() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut job = CountTo { n: 200, seen: Vec::with_capacity(200), stop: stop.clone(), busy: Duration::ZERO };
        let (mut w, mut r) = mailbox(LoopReport::default());
        let mut settings = LoopSettings::at_rate("test-loop", 1000.0);
        settings.report_interval = Duration::from_millis(50);
        let last = run_loop(&settings, &mut job, &stop, &mut w);
        assert_eq!(job.seen.len(), 200);
        let first = job.seen[0].deadline.as_nanos();
        for (k, t) in job.seen.iter().enumerate() {
            assert_eq!(t.index, k as u64);
            // No overrun is possible to rule out on a shared machine, so deadlines are
            // checked modulo skipped periods: always on the start + k·period grid.
            assert_eq!((t.deadline.as_nanos() - first) % 1_000_000, 0);
            assert!(t.wake >= t.deadline);
        }
        assert_eq!(last.total_ticks, 200);
        assert!(r.latest().sequence >= 4, "a report every 50 ticks, plus the last");
    }

    #[test]
    fn a_short_overrun_is_caught_up_by_running_the_missed_periods_back_to_back() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut job = CountTo { n: 20, seen: Vec::new(), stop: stop.clone(), busy: Duration::from_millis(5) };
        let (mut w, _r) = mailbox(LoopReport::default());
        let mut settings = LoopSettings::at_rate("test-catch-up", 1000.0);
        settings.catch_up = Duration::from_millis(50);
        let last = run_loop(&settings, &mut job, &stop, &mut w);
        assert!(last.total_overruns >= 1);
        assert_eq!(last.total_missed_periods, 0, "no deadline skipped");
        // Every deadline of the grid is ticked, in order: the ones after the 5 ms tick late.
        let first = job.seen[0].deadline.as_nanos();
        for (k, t) in job.seen.iter().enumerate() {
            assert_eq!(t.deadline.as_nanos() - first, k as u64 * 1_000_000);
        }
        assert!(job.seen[6].wake.since(job.seen[6].deadline) >= Duration::from_millis(3));
    }

    #[test]
    fn a_zero_period_runs_free() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut job = CountTo { n: 5000, seen: Vec::with_capacity(5000), stop: stop.clone(), busy: Duration::ZERO };
        let (mut w, mut r) = mailbox(LoopReport::default());
        let mut settings = LoopSettings::at_rate("test-free", 1000.0);
        (settings.period, settings.report_interval) = (Duration::ZERO, Duration::from_millis(1));
        let last = run_loop(&settings, &mut job, &stop, &mut w);
        assert_eq!(last.total_ticks, 5000);
        assert_eq!((last.total_overruns, last.total_missed_periods), (0, 0));
        // Each tick starts when the previous one ends: no deadline to wait for.
        assert!(job.seen.iter().all(|t| t.wake >= t.deadline && t.period.is_zero()));
        assert!(r.latest().sequence >= 1, "reports by wall time");
    }

    #[test]
    fn an_overrun_skips_the_missed_deadlines_and_is_counted() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut job = CountTo { n: 20, seen: Vec::new(), stop: stop.clone(), busy: Duration::from_millis(5) };
        let (mut w, _r) = mailbox(LoopReport::default());
        let last = run_loop(&LoopSettings::at_rate("test-overrun", 1000.0), &mut job, &stop, &mut w);
        assert!(last.total_overruns >= 1);
        assert!(last.total_missed_periods >= 4, "a 5 ms tick misses at least 4 deadlines of 1 ms");
        let gap = job.seen[6].deadline.since(job.seen[5].deadline);
        assert!(gap >= Duration::from_millis(5), "the tick after the overrun waits for a future deadline");
    }

    #[test]
    fn a_spawned_loop_stops_on_request() {
        let stop = Arc::new(AtomicBool::new(false));
        let job = CountTo { n: u64::MAX, seen: Vec::with_capacity(100_000), stop: stop.clone(), busy: Duration::ZERO };
        let (w, _r) = mailbox(LoopReport::default());
        let t = LoopThread::spawn(LoopSettings::at_rate("test-spawn", 2000.0), job, stop, w).unwrap();
        // How many ticks a loaded machine fits in the sleep is not the point (a CI run saw
        // fewer than 10 of the nominal 100 in 50 ms): that it ran, stopped and counted is.
        std::thread::sleep(Duration::from_millis(200));
        let (job, last) = t.stop().unwrap();
        assert!(!job.seen.is_empty());
        assert_eq!(last.total_ticks, job.seen.len() as u64);
    }
}
