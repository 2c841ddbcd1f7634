//! Staleness of inputs: a watchdog on the time an input was last received.

use std::time::Duration;

use super::clock::MonotonicTime;
use super::counters::Counters;

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
        let next = match last_received {
            None => Freshness::NeverReceived,
            Some(t) if now.since(t) > self.timeout => Freshness::Stale,
            Some(_) => Freshness::Fresh,
        };
        if next == Freshness::Stale && self.state == Freshness::Fresh {
            self.stale_events += 1;
        }
        self.state = next;
        next
    }

    /// [`Watchdog::check`], reported to `counters`: a fall into staleness counted under
    /// `input_stale_events` and the freshness kept for /diagnostics (the loop's input:
    /// the effort command, or the measured state in `mode: control`).
    pub fn check_counted(
        &mut self,
        last_received: Option<MonotonicTime>,
        now: MonotonicTime,
        counters: &Counters,
    ) -> Freshness {
        let before = (self.stale_events, self.state);
        let freshness = self.check(last_received, now);
        if self.stale_events > before.0 {
            Counters::bump(&counters.input_stale_events);
        }
        if freshness != before.1 {
            counters.set_input_freshness(freshness);
        }
        freshness
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
}
