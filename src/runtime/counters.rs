//! Event counters shared by the loop and the I/O side, read by diagnostics.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use super::command::CommandRejection;
use super::watchdog::{Freshness, Verdict};

/// Monotonic counters. Relaxed atomics: each is an independent tally.
#[derive(Debug, Default)]
pub struct Counters {
    /// Effort commands accepted into the mailbox.
    pub commands_accepted: AtomicU64,
    /// Effort commands refused for their length.
    pub commands_wrong_length: AtomicU64,
    /// Effort commands refused for NaN or infinite entries.
    pub commands_non_finite: AtomicU64,
    /// Times the effort command went stale (the loop then applies zero effort).
    pub input_stale_events: AtomicU64,
    /// Output samples dropped because the publisher fell behind.
    pub samples_dropped: AtomicU64,
    /// Output samples published.
    pub samples_published: AtomicU64,
    /// Publish calls that failed.
    pub publish_errors: AtomicU64,
    /// Simulation time of the last published sample (ns), for stamping diagnostics.
    pub last_published_sim_time_ns: AtomicU64,
    /// Measured states refused (`mode: control`): a configured joint missing, NaN.
    pub states_rejected: AtomicU64,
    /// JointStates given up for want of odometry within `control.pairing_tolerance`.
    pub states_unpaired: AtomicU64,
    /// Odometry refused: a NaN, a stamp that is not a time, a quaternion that is not a
    /// rotation.
    pub odometry_rejected: AtomicU64,
    /// Controller ticks refused (more contacts than the capacity, an answer out of its
    /// bounds): the safe output applied instead.
    pub ticks_refused: AtomicU64,
    /// Controller references (joint trajectories) accepted.
    pub references_accepted: AtomicU64,
    /// Controller references refused: an unknown joint, wrong sizes, NaN, times.
    pub references_rejected: AtomicU64,
    /// Joint trajectories whose sampled position of a bounded joint left its URDF limits:
    /// the reference was held at the limit (counted once per trajectory).
    pub references_clamped: AtomicU64,
    /// Controller ticks whose safe output had a component that was not finite (−D·v at an
    /// extreme velocity on a joint without an effort limit): that component was set to 0.
    pub safe_outputs_non_finite: AtomicU64,
    /// External wrenches refused: an unknown link or body, NaN.
    pub wrenches_rejected: AtomicU64,
    /// JointState commands accepted (held per joint).
    pub joint_commands_accepted: AtomicU64,
    /// JointState commands refused whole: arrays neither empty nor as long as `name`, an
    /// unknown or repeated joint, NaN or infinity.
    pub joint_commands_rejected: AtomicU64,
    /// Contact solves that missed their tolerance: a simulator step's, or the controller's
    /// inverse dynamics (a tick the controller refused counts too).
    pub steps_not_converged: AtomicU64,
    /// Times the simulated state stopped being finite and was reset to the initial one.
    pub sim_resets: AtomicU64,
    /// Solves that missed their tolerance and whose step used `contact.fallback`'s impulses.
    pub solver_fallbacks: AtomicU64,
    /// Simulator steps whose unconverged contact solve left impulses the stepper's guard
    /// refused (not finite, or creating kinetic energy) and applied scaled down (the step
    /// report's `refused`).
    pub impulses_refused: AtomicU64,
    /// Simulator steps solved again with the points they had put below a half-space
    /// (`contact.regenerate`; the step report's `regenerated` > 0). Not a fault.
    pub steps_solved_again: AtomicU64,
    /// Contacts a simulator step dropped because more than `collision.max_contacts` were
    /// found (the deepest are kept).
    pub contacts_dropped: AtomicU64,
    /// Times the simulated state stopped being finite and the simulation halted
    /// (`sim.on_non_finite: halt`).
    pub sim_halts: AtomicU64,
    /// 1 while the simulation is halted (until `~/reset`), else 0: a report for
    /// /diagnostics, written by the simulator's job (which keeps the state itself).
    pub sim_halted: AtomicU64,
    /// Status lines the console dropped (its printer behind, or stdout closed).
    pub status_lines_dropped: AtomicU64,
    /// Requests of the standard simulator API refused: unsupported (a state, a reset
    /// scope), or wrong (a step while not paused, zero steps).
    pub simulation_requests_refused: AtomicU64,

    /// Contacts at the last step.
    pub last_contacts: AtomicU64,
    /// Solver iterations at the last step.
    pub last_iterations: AtomicU64,
    /// Freshness of the effort command at the loop's last tick (see [`Counters::input_freshness`]).
    input_freshness: AtomicU8,
}

/// A plain copy of [`Counters`] at one instant.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterSnapshot {
    /// See [`Counters::commands_accepted`].
    pub commands_accepted: u64,
    /// See [`Counters::commands_wrong_length`].
    pub commands_wrong_length: u64,
    /// See [`Counters::commands_non_finite`].
    pub commands_non_finite: u64,
    /// See [`Counters::input_stale_events`].
    pub input_stale_events: u64,
    /// See [`Counters::samples_dropped`].
    pub samples_dropped: u64,
    /// See [`Counters::samples_published`].
    pub samples_published: u64,
    /// See [`Counters::publish_errors`].
    pub publish_errors: u64,
    /// See [`Counters::states_rejected`].
    pub states_rejected: u64,
    /// See [`Counters::states_unpaired`].
    pub states_unpaired: u64,
    /// See [`Counters::odometry_rejected`].
    pub odometry_rejected: u64,
    /// See [`Counters::ticks_refused`].
    pub ticks_refused: u64,
    /// See [`Counters::references_accepted`].
    pub references_accepted: u64,
    /// See [`Counters::references_rejected`].
    pub references_rejected: u64,
    /// See [`Counters::references_clamped`].
    pub references_clamped: u64,
    /// See [`Counters::safe_outputs_non_finite`].
    pub safe_outputs_non_finite: u64,
    /// See [`Counters::wrenches_rejected`].
    pub wrenches_rejected: u64,
    /// See [`Counters::joint_commands_accepted`].
    pub joint_commands_accepted: u64,
    /// See [`Counters::joint_commands_rejected`].
    pub joint_commands_rejected: u64,
    /// See [`Counters::steps_not_converged`].
    pub steps_not_converged: u64,
    /// See [`Counters::sim_resets`].
    pub sim_resets: u64,
    /// See [`Counters::solver_fallbacks`].
    pub solver_fallbacks: u64,
    /// See [`Counters::impulses_refused`].
    pub impulses_refused: u64,
    /// See [`Counters::steps_solved_again`].
    pub steps_solved_again: u64,
    /// See [`Counters::contacts_dropped`].
    pub contacts_dropped: u64,
    /// See [`Counters::sim_halts`].
    pub sim_halts: u64,
    /// See [`Counters::sim_halted`].
    pub sim_halted: u64,
    /// See [`Counters::status_lines_dropped`].
    pub status_lines_dropped: u64,
    /// See [`Counters::simulation_requests_refused`].
    pub simulation_requests_refused: u64,

    /// See [`Counters::last_contacts`].
    pub last_contacts: u64,
    /// See [`Counters::last_iterations`].
    pub last_iterations: u64,
}

impl Counters {
    /// Adds one to `counter`.
    pub fn bump(counter: &AtomicU64) {
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a refused command under its reason.
    pub fn count_rejection(&self, why: CommandRejection) {
        match why {
            CommandRejection::WrongLength { .. } => Self::bump(&self.commands_wrong_length),
            CommandRejection::NonFinite { .. } => Self::bump(&self.commands_non_finite),
        }
    }

    /// Records a watchdog's verdict on the loop's input (the effort command, or the
    /// measured state in `mode: control`): a fall into staleness counted under
    /// `input_stale_events`, the freshness kept for /diagnostics.
    pub fn record_input(&self, verdict: Verdict) {
        if verdict.went_stale {
            Self::bump(&self.input_stale_events);
        }
        if verdict.changed {
            self.set_input_freshness(verdict.freshness);
        }
    }

    /// Records the effort command's freshness (written by the loop).
    pub fn set_input_freshness(&self, f: Freshness) {
        self.input_freshness.store(f as u8, Ordering::Relaxed);
    }

    /// The effort command's freshness at the loop's last tick.
    pub fn input_freshness(&self) -> Freshness {
        match self.input_freshness.load(Ordering::Relaxed) {
            x if x == Freshness::Fresh as u8 => Freshness::Fresh,
            x if x == Freshness::Stale as u8 => Freshness::Stale,
            _ => Freshness::NeverReceived,
        }
    }

    /// The current values.
    pub fn snapshot(&self) -> CounterSnapshot {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        CounterSnapshot {
            commands_accepted: get(&self.commands_accepted),
            commands_wrong_length: get(&self.commands_wrong_length),
            commands_non_finite: get(&self.commands_non_finite),
            input_stale_events: get(&self.input_stale_events),
            samples_dropped: get(&self.samples_dropped),
            samples_published: get(&self.samples_published),
            publish_errors: get(&self.publish_errors),
            states_rejected: get(&self.states_rejected),
            states_unpaired: get(&self.states_unpaired),
            odometry_rejected: get(&self.odometry_rejected),
            ticks_refused: get(&self.ticks_refused),
            references_accepted: get(&self.references_accepted),
            references_rejected: get(&self.references_rejected),
            references_clamped: get(&self.references_clamped),
            safe_outputs_non_finite: get(&self.safe_outputs_non_finite),
            wrenches_rejected: get(&self.wrenches_rejected),
            joint_commands_accepted: get(&self.joint_commands_accepted),
            joint_commands_rejected: get(&self.joint_commands_rejected),
            steps_not_converged: get(&self.steps_not_converged),
            sim_resets: get(&self.sim_resets),
            solver_fallbacks: get(&self.solver_fallbacks),
            impulses_refused: get(&self.impulses_refused),
            steps_solved_again: get(&self.steps_solved_again),
            contacts_dropped: get(&self.contacts_dropped),
            sim_halts: get(&self.sim_halts),
            sim_halted: get(&self.sim_halted),
            status_lines_dropped: get(&self.status_lines_dropped),
            simulation_requests_refused: get(&self.simulation_requests_refused),

            last_contacts: get(&self.last_contacts),
            last_iterations: get(&self.last_iterations),
        }
    }
}

impl CounterSnapshot {
    /// Commands refused for any reason.
    pub fn commands_rejected(&self) -> u64 {
        self.commands_wrong_length + self.commands_non_finite
    }
}
