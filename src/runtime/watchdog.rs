//! Staleness of inputs: a watchdog on the time an input was last received.

use std::time::Duration;

use super::clock::MonotonicTime;

/// How fresh an input is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Freshness {
    /// Nothing was ever received.
    NeverReceived = 0,
    /// Received within the timeout.
    Fresh = 1,
    /// The last input is older than the timeout.
    Stale = 2,
}

/// A check's verdict: the freshness, and what changed since the last check (the caller
/// counts and reports it).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The input's freshness now.
    pub freshness: Freshness,
    /// The freshness differs from the last check's.
    pub changed: bool,
    /// The input went from fresh to stale at this check.
    pub went_stale: bool,
}

/// Watches one input stream. Counts transitions from fresh to stale.
#[derive(Clone, Debug)]
pub struct Watchdog {
    timeout: Duration,
    state: Freshness,
    stale_events: u64,
}

impl Watchdog {
    /// A watchdog that calls an input stale once it is older than `timeout`.
    pub fn new(timeout: Duration) -> Self {
        Self { timeout, state: Freshness::NeverReceived, stale_events: 0 }
    }

    /// Classifies the input last received at `last_received` (None: never) at time `now`.
    pub fn check(&mut self, last_received: Option<MonotonicTime>, now: MonotonicTime) -> Freshness {
        self.verdict(last_received, now).freshness
    }

    /// [`Watchdog::check`] with what changed: the caller counts a fall into staleness
    /// and reports the freshness (the watchdog knows nothing of the counters).
    pub fn verdict(&mut self, last_received: Option<MonotonicTime>, now: MonotonicTime) -> Verdict {
        let next = match last_received {
            None => Freshness::NeverReceived,
            Some(t) if now.since(t) > self.timeout => Freshness::Stale,
            Some(_) => Freshness::Fresh,
        };
        let went_stale = next == Freshness::Stale && self.state == Freshness::Fresh;
        self.stale_events += u64::from(went_stale);
        let changed = next != self.state;
        self.state = next;
        Verdict { freshness: next, changed, went_stale }
    }

    /// The state at the last check.
    pub fn state(&self) -> Freshness {
        self.state
    }

    /// Number of times the input went from fresh to stale.
    pub fn stale_events(&self) -> u64 {
        self.stale_events
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_stale_and_recovery() {
        let ms = |x: u64| MonotonicTime::from_nanos(x * 1_000_000);
        let mut w = Watchdog::new(Duration::from_millis(10));
        assert_eq!(w.check(None, ms(100)), Freshness::NeverReceived);
        assert_eq!(w.check(Some(ms(100)), ms(105)), Freshness::Fresh);
        assert_eq!(w.check(Some(ms(100)), ms(110)), Freshness::Fresh); // exactly the timeout
        assert_eq!(w.check(Some(ms(100)), ms(111)), Freshness::Stale);
        assert_eq!(w.check(Some(ms(100)), ms(200)), Freshness::Stale);
        assert_eq!(w.stale_events(), 1);
        assert_eq!(w.check(Some(ms(199)), ms(200)), Freshness::Fresh);
        assert_eq!(w.check(Some(ms(199)), ms(300)), Freshness::Stale);
        assert_eq!(w.stale_events(), 2);
        assert_eq!(w.state(), Freshness::Stale);
    }

    #[test]
    fn the_verdict_says_what_changed() {
        let ms = |x: u64| MonotonicTime::from_nanos(x * 1_000_000);
        let mut w = Watchdog::new(Duration::from_millis(10));
        let v = |freshness, changed, went_stale| Verdict { freshness, changed, went_stale };
        assert_eq!(w.verdict(None, ms(1)), v(Freshness::NeverReceived, false, false));
        assert_eq!(w.verdict(Some(ms(1)), ms(2)), v(Freshness::Fresh, true, false));
        assert_eq!(w.verdict(Some(ms(1)), ms(3)), v(Freshness::Fresh, false, false));
        assert_eq!(w.verdict(Some(ms(1)), ms(20)), v(Freshness::Stale, true, true));
        assert_eq!(w.verdict(Some(ms(1)), ms(30)), v(Freshness::Stale, false, false));
    }
}
