//! The loop job of `mode: control`: one controller tick per period on the latest measured
//! state, next to a real (or simulated) robot.
//!
//! Each tick: the measured state (state mailbox → watchdog); while it is fresh, one
//! [`Controller::tick`] towards the posture reference (`control.posture`, the floating
//! base held where the first state put it) → the controlled joints' torques and the
//! predicted contact wrench of each link, pushed to the sample ring for the publisher.
//! Before the first state nothing is published; a state that went stale gives the safe
//! output, zero torque, and so does a tick the controller refuses (more contacts than its
//! capacity), counted. Nothing allocates after start-up.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::thread::Thread;
use std::time::Duration;

use super::{Controller, InverseDynamicsSettings};
use crate::model::Model;
use crate::runtime::{Counters, Freshness, Job, MailboxReader, SampleProducer, Tick, Watchdog};
use crate::setup::{JointSlot, Setup, SetupError};
use crate::sim::outputs::{Odometry, OutputLayout, Outputs};

/// A measured state: the controlled joints (configured order) and, for a floating base,
/// its odometry (pose in `world`, twist in the base frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeasuredState {
    /// Simulated or robot time of the measurement (ns).
    pub time_ns: u64,
    /// Joint positions (rad or m).
    pub position: Vec<f64>,
    /// Joint velocities.
    pub velocity: Vec<f64>,
    /// The floating base, once an odometry message came (None: not yet, or no base).
    pub base: Option<Odometry>,
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
    zeros: Vec<f64>,
    /// Whether q_des holds the reference (set at the first complete state).
    referenced: bool,
    dt: f64,
    publisher: Option<Thread>,
}

impl ControlJob {
    /// The controller of `setup`'s robot (its environment, contact settings and `control:`
    /// section). A state older than `stale_after` gives the safe output; `publisher`, if
    /// given, is unparked after each sample. The samples must be [`ControlJob::layout`]'s
    /// `outputs()`.
    pub fn new(
        setup: &Setup,
        states: MailboxReader<MeasuredState>,
        samples: SampleProducer<Outputs>,
        stale_after: Duration,
        counters: Arc<Counters>,
        publisher: Option<Thread>,
    ) -> Result<Self, SetupError> {
        let model = setup.model.clone();
        let config = &setup.config;
        let controller = Controller::new(
            &model,
            setup.collision_world()?,
            config.collision.max_contacts.get(),
            config.contact.problem_settings(),
            config.control.settings(),
            InverseDynamicsSettings::default(),
        );
        let layout = OutputLayout::of_objects(setup, controller.collision().objects(), Vec::new());
        let (nq, nv) = (model.nq, model.nv);
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
            zeros: vec![0.0; nv],
            referenced: false,
            dt: config.period().as_secs_f64(),
            publisher,
            model,
        })
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

impl Job for ControlJob {
    fn tick(&mut self, tick: &Tick) {
        let state = self.states.latest();
        let received = (state.sequence > 0).then_some(state.stamp);
        let freshness = self.watchdog.check_counted(received, tick.wake, &self.counters);
        if freshness == Freshness::NeverReceived {
            // Nothing is known of the robot: command nothing (the driver's own safe
            // behaviour applies), rather than a torque.
            return;
        }
        let time_ns = state.value.time_ns;
        let ready = freshness == Freshness::Fresh
            && read_state(&self.model, &self.joints, &state.value, &mut self.q, &mut self.v);
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
            let (q, v, q_des, zeros) = (&self.q, &self.v, &self.q_des, &self.zeros);
            tau_ok = self.controller.tick(&self.model, q, v, q_des, zeros, zeros, self.dt).is_ok();
            if !tau_ok || !self.controller.inverse_dynamics().result().converged {
                Counters::bump(&self.counters.steps_not_converged);
            }
        }
        let (joints, controller, layout) = (&self.joints, &self.controller, &self.layout);
        let pushed = self.samples.push_with(|s| {
            s.time_ns = time_ns;
            if tau_ok {
                let tau = controller.torques();
                for (e, slot) in s.effort.iter_mut().zip(joints) {
                    *e = tau[slot.idx_v];
                }
                let lambda = controller.inverse_dynamics().impulses();
                layout.fill_wrenches(
                    controller.contacts(),
                    lambda,
                    controller.dt(),
                    Some(controller.data()),
                    &mut s.wrenches,
                );
            } else {
                // The safe output.
                s.effort.fill(0.0);
                layout.fill_wrenches(&[], &[], 1.0, None, &mut s.wrenches);
            }
        });
        if !pushed {
            self.counters.samples_dropped.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(p) = &self.publisher {
            p.unpark();
        }
    }
}
