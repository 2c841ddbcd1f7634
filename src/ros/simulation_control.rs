//! Waiting for the loop on the async side: a reset applied, a number of steps run. The
//! loop is never waited on by a lock or a channel: these poll [`SimRequests`]'s atomics
//! every millisecond (the loop's period at 1 kHz) on the node's async thread. Shared by the
//! standard simulator API ([`super::simulation_interfaces`]) and the old `~/reset`,
//! `~/pause` and `~/step` ([`super::inputs::simulation_requests`]).

use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::app::sim_requests::{Interruption, Refusal, ResetTicket, StepProgress, check_steps};
use crate::app::{ResetScope, SimRequests, SimulationState, Spawns};
use crate::runtime::Counters;
use crate::runtime::Ticket;

/// How often a waiting request looks at the loop's counters.
const POLL: Duration = Duration::from_millis(1);

/// The longest a reset waits for the loop to apply it (the loop applies it at its next
/// tick: a millisecond at 1 kHz). Beyond, the request fails rather than hangs.
const RESET_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest a finished stepping waits for the publisher to send the last step's
/// sample (it does within microseconds unless the machine stalls).
const PUBLISH_TIMEOUT: Duration = Duration::from_millis(100);

/// How a stepping operation ended.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(signorini_simulation_interfaces), allow(dead_code))]
pub enum Stepped {
    /// All the steps ran.
    Done,
    /// Cancelled by the caller after `done` steps.
    Cancelled {
        /// Steps finished.
        done: u64,
    },
    /// Interrupted by the simulation (played, stopped, halted): the failure to answer,
    /// naming the steps done (not the caller's fault: not counted as refused).
    Interrupted(Refusal),
}

/// Waits until the loop applied the reset of `ticket`.
async fn applied(requests: &SimRequests, ticket: ResetTicket) -> Result<(), Refusal> {
    let deadline = tokio::time::Instant::now() + RESET_TIMEOUT;
    while !requests.reset_done(ticket) {
        if tokio::time::Instant::now() > deadline {
            return Err(Refusal::OperationFailed(format!(
                "the loop did not apply the reset within {} s",
                RESET_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(())
}

/// Waits until the loop applied the spawn or delete order of `ticket` (at its next tick),
/// failing rather than hanging after [`RESET_TIMEOUT`].
#[cfg_attr(not(signorini_simulation_interfaces), allow(dead_code))]
pub async fn spawn_applied(spawns: &Spawns, ticket: Ticket) -> Result<(), Refusal> {
    let deadline = tokio::time::Instant::now() + RESET_TIMEOUT;
    while !spawns.applied(ticket) {
        if tokio::time::Instant::now() > deadline {
            return Err(Refusal::OperationFailed(format!(
                "the loop did not apply the spawn or delete within {} s (it will when it runs again)",
                RESET_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(())
}

/// Resets `scope` and returns once the loop applied it.
pub async fn reset(requests: &SimRequests, scope: ResetScope) -> Result<(), Refusal> {
    applied(requests, requests.reset(scope)).await
}

/// Changes the state; entering STOPPED returns once the loop applied its reset.
#[cfg_attr(not(signorini_simulation_interfaces), allow(dead_code))]
pub async fn set_state(requests: &SimRequests, to: SimulationState) -> Result<(), Refusal> {
    match requests.set_state(to)? {
        Some(ticket) => applied(requests, ticket).await,
        None => Ok(()),
    }
}

/// Runs `steps` steps of the paused simulation and returns once exactly that many ran and
/// the last one's sample (if it made one: `sim.publish_every`) was published; an
/// operation already stepping is waited for first. `cancelled` is asked at each poll;
/// `progress` is told the steps done whenever they changed (at most once per poll: one
/// step per call at 1 kHz). Refused (`Err`, nothing run) unless paused, or for zero
/// steps; interrupted, with the steps done in the message, if the simulation is played,
/// stopped or halts meanwhile.
pub async fn run_steps(
    requests: &SimRequests,
    counters: &Counters,
    steps: u64,
    mut cancelled: impl FnMut() -> bool,
    mut progress: impl FnMut(u64),
) -> Result<Stepped, Refusal> {
    check_steps(requests.state(), steps)?;
    let mut budget = loop {
        if let Some(budget) = requests.begin_steps(steps) {
            break budget;
        }
        check_steps(requests.state(), steps)?;
        tokio::time::sleep(POLL).await;
    };
    let mut reported = None;
    let outcome = loop {
        match budget.poll(cancelled()) {
            StepProgress::Starting => {}
            StepProgress::Running { done } => {
                if reported.replace(done) != Some(done) {
                    progress(done);
                }
            }
            StepProgress::Done => break Stepped::Done,
            StepProgress::Interrupted { done, why: Interruption::Cancelled } => break Stepped::Cancelled { done },
            StepProgress::Interrupted { done, why } => break Stepped::Interrupted(interrupted(done, steps, why)),
        }
        tokio::time::sleep(POLL).await;
    };
    drop(budget);
    if outcome == Stepped::Done {
        progress(steps);
    }
    published(requests, counters).await;
    Ok(outcome)
}

/// The failure of a stepping the simulation interrupted.
fn interrupted(done: u64, steps: u64, why: Interruption) -> Refusal {
    let why = match why {
        Interruption::StateChanged(state) => format!("the simulation left STATE_PAUSED for {}", state.name()),
        Interruption::Halted => {
            "the simulation halted: its state stopped being finite (sim.on_non_finite: halt); reset its state".into()
        }
        Interruption::Cancelled => "cancelled".into(),
    };
    Refusal::OperationFailed(format!("interrupted after {done} of {steps} steps: {why}"))
}

/// Waits (a bounded time) until the publisher sent the loop's last sample.
async fn published(requests: &SimRequests, counters: &Counters) {
    let target = requests.last_sample_ns();
    let deadline = tokio::time::Instant::now() + PUBLISH_TIMEOUT;
    while counters.last_published_sim_time_ns.load(Ordering::Acquire) != target
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(POLL).await;
    }
}
