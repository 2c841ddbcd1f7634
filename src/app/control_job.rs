//! The loop job of `mode: control`: one controller tick per period on the latest measured
//! state, next to a real (or simulated) robot.
//!
//! Each tick: the measured state (state mailbox → watchdog); while it is fresh, one
//! [`Controller::tick`] towards the reference — the posture (`control.posture`, the
//! floating base held where the first state put it, or at the latest base pose
//! reference), or the latest joint trajectory
//! (reference mailbox, trajectory_msgs/JointTrajectory semantics, timed on the measured
//! state's clock) — → the controlled joints' torques and the predicted contact wrench of
//! each link, pushed to the sample ring for the publisher (and, in one process with the
//! simulator, written to its command mailbox). Before the first state nothing is
//! published; a state that went stale, or a tick the controller refuses (more contacts
//! than its capacity), gives the safe output of `control.safe_output` (zero torque,
//! damping, or gravity hold at the last measured state), counted. Two guards on what goes
//! out: a trajectory's sample beyond a bounded joint's URDF position limits is held at the
//! limit ([`saturate`], counted once per trajectory as `references_clamped`), and a safe
//! output component that is not finite (−D·v at an extreme measured velocity on a joint
//! without an effort limit) is replaced by 0 (counted per tick as
//! `safe_outputs_non_finite`): the job never publishes a NaN or an infinity. Nothing
//! allocates after start-up.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::Thread;
use std::time::Duration;

use super::outputs::{OutputLayout, Outputs};
use crate::app::{JointSlot, Setup, SetupError};
use crate::config::SafeOutput;
use crate::control::reference::saturate;
use crate::control::{Controller, JointTrajectory};
use crate::dynamics;
use crate::model::{Data, Model};
use crate::runtime::MeasuredState;
use crate::runtime::{
    Counters, EffortCommand, Freshness, HandOff, Job, MailboxReader, MailboxWriter, SampleProducer, Tick, Watchdog,
};

/// The controller's reference from `~/reference`: a trajectory of the controlled joints
/// (configured order, [`JointTrajectory::for_joints`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReferenceCommand {
    /// None: the posture (`control.posture`).
    pub trajectory: Option<JointTrajectory>,
    /// When the trajectory starts (ns, on the measured state's clock); 0: at the state the
    /// controller sees it with (trajectory_msgs' zero stamp, "now").
    pub start_ns: u64,
}

/// The controller in the loop.
pub struct ControlJob {
    model: Model,
    controller: Controller,
    joints: Vec<JointSlot>,
    posture: Vec<f64>,
    layout: OutputLayout,
    states: MailboxReader<MeasuredState>,
    samples: SampleProducer<Outputs>,
    watchdog: Watchdog,
    counters: Arc<Counters>,
    q: Vec<f64>,
    v: Vec<f64>,
    q_des: Vec<f64>,
    v_des: Vec<f64>,
    a_des: Vec<f64>,
    /// A trajectory's sample: position, velocity, acceleration per controlled joint.
    sample: [Vec<f64>; 3],
    /// The URDF position limits (lower, upper) of each controlled joint; ±∞ for a
    /// continuous joint.
    position_limits: Vec<(f64, f64)>,
    /// The sequence of the last trajectory counted as clamped (one count per trajectory).
    clamp_counted: u64,
    /// Whether q_des holds the reference (set at the first complete state).
    referenced: bool,
    /// Whether a state was ever read completely (q and v hold a measured state).
    measured: bool,
    /// Whether the state's freshness is reported on the counters (/diagnostics): not in
    /// one process with the simulator, whose command is the watched input.
    reports_input: bool,
    references: Option<MailboxReader<ReferenceCommand>>,
    /// The floating base's pose reference (x, y, z, qx, qy, qz, qw in `world`), when one
    /// came; before, the pose of the first state.
    base_references: Option<MailboxReader<Option<[f64; 7]>>>,
    /// The trajectory followed (the reference mailbox's sequence) and its start (ns).
    following: (u64, u64),
    /// The effort of each controlled joint, as published.
    effort: Vec<f64>,
    safe_output: SafeOutput,
    safe_damping: f64,
    /// For the gravity hold.
    data: Data,
    /// In one process with the simulator: the torques go straight to it.
    commands_out: Option<MailboxWriter<EffortCommand>>,
    dt: f64,
    /// The publisher woken after a tick that pushed a sample.
    hand_off: HandOff,
}

impl ControlJob {
    /// The controller of `setup`'s robot (its environment, contact settings and `control:`
    /// section). A state older than `stale_after` gives the safe output
    /// ([`ControlJob::hand_off_to`] wakes a publisher after each sample). The samples must
    /// be [`ControlJob::layout`]'s
    /// `outputs()`.
    pub fn new(
        setup: &Setup,
        states: MailboxReader<MeasuredState>,
        samples: SampleProducer<Outputs>,
        stale_after: Duration,
        counters: Arc<Counters>,
    ) -> Result<Self, SetupError> {
        let model = setup.model.clone();
        let config = &setup.config;
        let controller = setup.controller()?;
        let layout = OutputLayout::of_objects(setup, controller.collision().objects(), Vec::new());
        let (nq, nv, n) = (model.nq, model.nv, setup.joint_names.len());
        Ok(Self {
            controller,
            joints: setup.joint_slots(),
            posture: setup.posture_positions.clone(),
            layout,
            states,
            samples,
            watchdog: Watchdog::new(stale_after),
            counters,
            q: model.neutral_configuration().as_slice().to_vec(),
            v: vec![0.0; nv],
            q_des: vec![0.0; nq],
            v_des: vec![0.0; nv],
            a_des: vec![0.0; nv],
            sample: [vec![0.0; n], vec![0.0; n], vec![0.0; n]],
            position_limits: position_limits(&model, &setup.joint_slots()),
            clamp_counted: 0,
            referenced: false,
            measured: false,
            reports_input: true,
            references: None,
            base_references: None,
            following: (0, 0),
            effort: vec![0.0; n],
            safe_output: config.control.safe_output,
            safe_damping: config.control.safe_damping.get(),
            data: Data::new(&model),
            commands_out: None,
            dt: config.period().as_secs_f64(),
            hand_off: HandOff::default(),
            model,
        })
    }

    /// Follows the trajectories `references` delivers (the posture until the first).
    pub fn with_references(mut self, references: MailboxReader<ReferenceCommand>) -> Self {
        self.references = Some(references);
        self
    }

    /// Unparks `publisher` after each sample (the hand-off, measured apart in the loop
    /// report).
    pub fn hand_off_to(&mut self, publisher: Thread) {
        self.hand_off.to(publisher);
    }

    /// Holds the floating base at the poses `references` delivers (a floating base only).
    pub fn with_base_references(mut self, references: MailboxReader<Option<[f64; 7]>>) -> Self {
        self.base_references = Some(references);
        self
    }

    /// Also writes each tick's torques (or the safe output) to `commands`: the simulator's
    /// command mailbox when both run in one process (the state's freshness is then not
    /// reported: the simulator's command is the input /diagnostics watches).
    pub fn with_command_output(mut self, commands: MailboxWriter<EffortCommand>) -> Self {
        self.commands_out = Some(commands);
        self.reports_input = false;
        self
    }

    /// Ticks of `dt` seconds instead of 1/`rate_hz` (one per simulated step when both run
    /// in one process).
    pub fn with_step(mut self, dt: f64) -> Self {
        self.dt = dt;
        self
    }

    /// What the samples hold: effort = the commanded torques, wrenches = the predicted
    /// contact wrenches.
    pub fn layout(&self) -> &OutputLayout {
        &self.layout
    }

    /// Freshness of the measured state at the last tick.
    pub fn state_freshness(&self) -> Freshness {
        self.watchdog.state()
    }
}

/// The position limits (lower, upper) of the joints at `joints`: the URDF's for a revolute
/// or prismatic joint, ±∞ for a continuous one (q holds its cos and sin).
fn position_limits(model: &Model, joints: &[JointSlot]) -> Vec<(f64, f64)> {
    let unlimited = (f64::NEG_INFINITY, f64::INFINITY);
    let limits = |s: &JointSlot| (model.lower_position_limit[s.idx_q], model.upper_position_limit[s.idx_q]);
    joints.iter().map(|s| if s.unbounded { unlimited } else { limits(s) }).collect()
}

/// Sets each component of `effort` that is not finite to 0; returns how many were.
fn zero_non_finite(effort: &mut [f64]) -> usize {
    let mut replaced = 0;
    for e in effort.iter_mut().filter(|e| !e.is_finite()) {
        *e = 0.0;
        replaced += 1;
    }
    replaced
}

/// q and v (of `model`, joints at `joints`) from the measured state `s`; false if its
/// sizes are wrong or a floating base's odometry is missing.
fn read_state(model: &Model, joints: &[JointSlot], s: &MeasuredState, q: &mut [f64], v: &mut [f64]) -> bool {
    if s.position.len() != joints.len() || s.velocity.len() != joints.len() {
        return false;
    }
    if model.has_free_flyer() {
        let Some(b) = s.base else { return false };
        q[..3].copy_from_slice(&b.position);
        q[3..7].copy_from_slice(&b.orientation);
        v[..3].copy_from_slice(&b.linear);
        v[3..6].copy_from_slice(&b.angular);
    }
    for ((slot, &p), &w) in joints.iter().zip(&s.position).zip(&s.velocity) {
        slot.set_position(q, p);
        v[slot.idx_v] = w;
    }
    true
}

impl ControlJob {
    /// q_des, v_des and a_des of the controlled joints from the latest trajectory at the
    /// measured time `time_ns` (a new trajectory starts at its stamp, or now); the
    /// posture until the first.
    fn follow_trajectory(&mut self, time_ns: u64) {
        let Some(references) = self.references.as_mut() else { return };
        let latest = references.latest();
        let new = latest.sequence != self.following.0;
        if new {
            let start = if latest.value.start_ns > 0 { latest.value.start_ns } else { time_ns };
            self.following = (latest.sequence, start);
        }
        let Some(trajectory) = latest.value.trajectory.as_ref().filter(|t| t.joints() == self.joints.len()) else {
            if new {
                // No trajectory (an empty one came): back to the posture, at rest.
                for (slot, &p) in self.joints.iter().zip(&self.posture) {
                    slot.set_position(&mut self.q_des, p);
                    self.v_des[slot.idx_v] = 0.0;
                    self.a_des[slot.idx_v] = 0.0;
                }
            }
            return;
        };
        let t = (time_ns as f64 - self.following.1 as f64) * 1e-9;
        let [q, v, a] = &mut self.sample;
        trajectory.sample(t, q, v, a);
        if saturate(&self.position_limits, q, v, a) && self.clamp_counted != self.following.0 {
            self.clamp_counted = self.following.0;
            Counters::bump(&self.counters.references_clamped);
        }
        for (k, slot) in self.joints.iter().enumerate() {
            slot.set_position(&mut self.q_des, q[k]);
            self.v_des[slot.idx_v] = v[k];
            self.a_des[slot.idx_v] = a[k];
        }
    }

    /// The safe output into `effort`, at the last measured state (zero torque if no state
    /// was ever read completely), within the effort limits; a component that is not finite
    /// (−D·v at an extreme velocity on a joint without an effort limit) is 0, counted.
    fn safe_effort(&mut self) {
        let output = if self.measured { self.safe_output } else { SafeOutput::Zero };
        match output {
            SafeOutput::Zero => self.effort.fill(0.0),
            SafeOutput::Damping => {
                for (e, slot) in self.effort.iter_mut().zip(&self.joints) {
                    *e = -self.safe_damping * self.v[slot.idx_v];
                }
            }
            SafeOutput::Gravity => {
                let g = dynamics::gravity_torque(&self.model, &mut self.data, &self.q);
                for (e, slot) in self.effort.iter_mut().zip(&self.joints) {
                    *e = g[slot.idx_v];
                }
            }
        }
        // Within the effort limits, as the controller's own torques are.
        for (e, slot) in self.effort.iter_mut().zip(&self.joints) {
            let limit = self.model.effort_limit[slot.idx_v];
            if limit > 0.0 && limit.is_finite() {
                *e = e.clamp(-limit, limit);
            }
        }
        if zero_non_finite(&mut self.effort) > 0 {
            Counters::bump(&self.counters.safe_outputs_non_finite);
        }
    }

    /// The safe output this job applies.
    pub fn safe_output(&self) -> SafeOutput {
        self.safe_output
    }
}

impl Job for ControlJob {
    fn start(&mut self) {
        crate::contact::dense::warm_up_thread();
    }

    fn tick(&mut self, tick: &Tick) {
        let state = self.states.latest();
        let received = (state.sequence > 0).then_some(state.stamp);
        let verdict = self.watchdog.verdict(received, tick.wake);
        if self.reports_input {
            self.counters.record_input(verdict);
        }
        let freshness = verdict.freshness;
        if freshness == Freshness::NeverReceived {
            // Nothing is known of the robot: command nothing (the driver's own safe
            // behaviour applies), rather than a torque.
            return;
        }
        let time_ns = state.value.time_ns;
        let ready = freshness == Freshness::Fresh
            && read_state(&self.model, &self.joints, &state.value, &mut self.q, &mut self.v);
        self.measured |= ready;
        let mut tau_ok = false;
        if ready {
            if !self.referenced {
                // The posture, the floating base where it is now.
                self.q_des.copy_from_slice(&self.q);
                for (slot, &p) in self.joints.iter().zip(&self.posture) {
                    slot.set_position(&mut self.q_des, p);
                }
                self.referenced = true;
            }
            self.follow_trajectory(time_ns);
            if let Some(pose) = self.base_references.as_mut().and_then(|r| r.latest().value)
                && self.model.has_free_flyer()
            {
                self.q_des[..7].copy_from_slice(&pose);
            }
            let (q, v, q_des, v_des, a_des) = (&self.q, &self.v, &self.q_des, &self.v_des, &self.a_des);
            // A tick out of its bounds (a predicted force beyond `max_contact_force`, a
            // torque that is not finite) is refused like bad input: the safe output.
            tau_ok = self.controller.tick(&self.model, q, v, q_des, v_des, a_des, self.dt).is_ok();
            if !tau_ok {
                Counters::bump(&self.counters.ticks_refused);
            } else if !self.controller.inverse_dynamics().result().converged {
                Counters::bump(&self.counters.steps_not_converged);
            }
        }
        if tau_ok {
            let tau = self.controller.torques();
            for (e, slot) in self.effort.iter_mut().zip(&self.joints) {
                *e = tau[slot.idx_v];
            }
        } else {
            self.safe_effort();
        }
        if let Some(out) = self.commands_out.as_mut() {
            out.write_with(|c| c.effort.copy_from_slice(&self.effort));
        }
        let (controller, layout, effort) = (&self.controller, &self.layout, &self.effort);
        let pushed = self.samples.push_with(|s| {
            s.time_ns = time_ns;
            s.effort.copy_from_slice(effort);
            if tau_ok {
                let lambda = controller.inverse_dynamics().impulses();
                layout.fill_wrenches(
                    controller.contacts(),
                    lambda,
                    controller.dt(),
                    Some(controller.data()),
                    &mut s.wrenches,
                );
            } else {
                layout.fill_wrenches(&[], &[], 1.0, None, &mut s.wrenches);
            }
        });
        if !pushed {
            self.counters.samples_dropped.fetch_add(1, Ordering::Relaxed);
        }
        self.hand_off.sample_pushed();
    }

    fn hand_off(&mut self) {
        self.hand_off.wake();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_components_become_zero_and_are_counted() {
        let mut effort = [1.0, f64::INFINITY, -2.0, f64::NAN, f64::NEG_INFINITY];
        assert_eq!(zero_non_finite(&mut effort), 3);
        assert_eq!(effort, [1.0, 0.0, -2.0, 0.0, 0.0]);
        assert_eq!(zero_non_finite(&mut effort), 0, "finite values are kept");
    }
}
