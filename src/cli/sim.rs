//! `signorini sim`: the configured world simulated headless, as fast as possible or in
//! real time, with a summary of what happened (the contract is in README.md).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::app::{Setup, SetupError};
use crate::bag::{BagError, BagRecorder};
use crate::control::Controller;
use crate::sim::{JointPd, StepReport, Stepper, World};

/// How to run.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SimOptions {
    /// Simulated time (s).
    pub duration: f64,
    /// Pace the steps on the wall clock.
    pub realtime: bool,
    /// Drive the robot by the inverse-dynamics controller towards the posture reference
    /// (`control:`) instead of the joint PD of `sim.hold_kp`/`hold_kd`.
    pub control: bool,
}

/// What a run did (also written as JSON with `--json`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SimSummary {
    /// Robot name.
    pub robot: String,
    /// Free bodies.
    pub bodies: usize,
    /// Time step (s).
    pub dt: f64,
    /// Steps done.
    pub steps: u64,
    /// Simulated time (s).
    pub sim_time_s: f64,
    /// Wall time (s).
    pub wall_time_s: f64,
    /// Steps per wall second.
    pub steps_per_s: f64,
    /// Simulated seconds per wall second.
    pub realtime_factor: f64,
    /// Mean solver iterations per step with contacts.
    pub iterations_mean: f64,
    /// Most solver iterations in a step.
    pub iterations_max: usize,
    /// Steps whose solve did not reach the tolerance.
    pub not_converged: u64,
    /// Mean contacts per step.
    pub contacts_mean: f64,
    /// Most contacts in a step.
    pub contacts_max: usize,
    /// Contacts dropped because a step found more than `collision.max_contacts` (the
    /// deepest are kept), over the run.
    pub contacts_dropped: u64,
    /// Steps that dropped contacts.
    pub steps_with_dropped_contacts: u64,
    /// Deepest penetration seen (m).
    pub max_penetration_m: f64,
    /// Largest NCP criterion ε_abs of a step (seed 002 §2.3, force units).
    pub max_eps_abs: f64,
    /// Final floating-base position (m), if the robot has one.
    pub final_base_position: Option<[f64; 3]>,
    /// With `--control` and a floating base: the largest base wrench (∞-norm, N or N·m)
    /// the controller's contacts could not produce.
    pub max_base_residual: Option<f64>,
    /// Stopped by SIGINT or SIGTERM before `duration` (the bag is finished all the same).
    pub interrupted: bool,
    /// With a bag: the messages written to it.
    pub bag_messages: Option<u64>,
}

/// Why a run stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// Building the world.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The bag file.
    #[error(transparent)]
    Bag(#[from] BagError),
    /// The controller refused its tick (more contacts than `collision.max_contacts`, an
    /// answer out of its bounds).
    #[error("the controller at t = {time:.6} s: {source}")]
    Control {
        /// Simulated time.
        time: f64,
        /// Why.
        source: crate::control::TickError,
    },
    /// The state stopped being finite (never published; the run stops).
    #[error("the simulation diverged at t = {time:.6} s (step {step}): non-finite robot or body state")]
    Diverged {
        /// Simulated time.
        time: f64,
        /// Step index.
        step: u64,
    },
}

/// Runs the configured world for `options.duration`, or until `stop` is set (between two
/// steps; see [`super::interrupt::Interrupts`]); `progress` gets a line about once a wall second.
/// With `bag`, every step is recorded there (see [`crate::bag::BagRecorder`]), and the file
/// is finished when the run ends, early or not (an error of the run included, if the file
/// can still be written).
pub fn run(
    setup: &Setup,
    options: &SimOptions,
    bag: Option<&std::path::Path>,
    stop: &AtomicBool,
    mut progress: impl FnMut(&str),
) -> Result<SimSummary, SimError> {
    let mut world = setup.sim_world()?;
    let mut recorder = bag.map(|path| BagRecorder::create(path, setup, &world)).transpose()?;
    let mut tally = Tally {
        summary: SimSummary {
            robot: setup.robot.name.clone(),
            bodies: world.bodies.len(),
            dt: setup.config.sim_dt(),
            ..Default::default()
        },
        ..Default::default()
    };
    let stepped = step_loop(setup, options, &mut world, recorder.as_mut(), stop, &mut tally, &mut progress);
    // The bag is finished whatever stopped the steps; the steps' error comes first.
    let finished = recorder.map(BagRecorder::finish).transpose();
    let start = stepped?;
    tally.summary.bag_messages = finished?.map(|w| w.messages);
    Ok(tally.finish(start.elapsed().as_secs_f64(), &world))
}

/// The steps of [`run`], each recorded by `recorder`, until the duration or `stop`; the
/// instant the first step began.
fn step_loop(
    setup: &Setup,
    options: &SimOptions,
    world: &mut World,
    mut recorder: Option<&mut BagRecorder>,
    stop: &AtomicBool,
    tally: &mut Tally,
    progress: &mut impl FnMut(&str),
) -> Result<Instant, SimError> {
    let dt = setup.config.sim_dt();
    let mut stepper =
        Stepper::new(world, dt, &setup.config.contact.settings(), setup.config.collision.max_contacts.get());
    let mut drive = Drive::new(setup, options, world)?;
    let steps = (options.duration / dt).round().max(0.0) as u64;
    let start = Instant::now();
    let mut last_report = start;
    for k in 0..steps {
        if stop.load(Ordering::Relaxed) {
            tally.summary.interrupted = true;
            break;
        }
        let tau = drive.torques(world, dt, &mut tally.summary)?;
        let r = *stepper.step(world, tau);
        if !world.is_finite() {
            return Err(SimError::Diverged { time: world.time, step: k });
        }
        if let Some(bag) = recorder.as_deref_mut() {
            bag.record(world, &stepper)?;
        }
        tally.step(&r);
        if options.realtime {
            let due = start + Duration::from_secs_f64((k + 1) as f64 * dt);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        if last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            let rate = (k + 1) as f64 / start.elapsed().as_secs_f64();
            let (t, total) = (world.time, options.duration);
            let bag = recorder.as_deref().map_or(String::new(), |b| {
                let w = b.written();
                format!(", bag: {} messages in {} complete chunks", w.messages, w.chunks)
            });
            progress(&format!(
                "t = {t:.3} s of {total:.3} s, {} contacts, {} iterations, {rate:.0} steps/s{bag}",
                r.contacts, r.iterations
            ));
        }
    }
    Ok(start)
}

/// What drives the robot: the hold PD of `sim.hold_kp`/`hold_kd`, or (`--control`) the
/// inverse-dynamics controller towards the posture reference (the floating base held
/// where it starts), with the simulator's contact settings to predict it.
struct Drive {
    hold: JointPd,
    controller: Option<(Controller, Vec<f64>)>,
    actuated: Vec<bool>,
    zeros: Vec<f64>,
    tau: Vec<f64>,
}

impl Drive {
    fn new(setup: &Setup, options: &SimOptions, world: &World) -> Result<Self, SetupError> {
        let controller = match (options.control, world.robot.as_ref()) {
            (true, Some(r)) => Some((setup.controller()?, setup.posture_reference(&r.q))),
            _ => None,
        };
        let nv = setup.model.nv;
        Ok(Self {
            hold: setup.hold_pd(),
            controller,
            actuated: setup.actuated_dofs(),
            zeros: vec![0.0; nv],
            tau: vec![0.0; nv],
        })
    }

    /// The robot's joint torques for the next step (the controller's on the actuated
    /// dofs only); the controller's base residual into `summary`.
    fn torques(&mut self, world: &World, dt: f64, summary: &mut SimSummary) -> Result<&[f64], SimError> {
        let Some(r) = world.robot.as_ref() else {
            self.tau.fill(0.0);
            return Ok(&self.tau);
        };
        let Some((controller, posture)) = self.controller.as_mut() else {
            self.hold.torques(&r.model, &r.q, &r.v, &mut self.tau);
            return Ok(&self.tau);
        };
        let t = controller
            .tick(&r.model, &r.q, &r.v, posture, &self.zeros, &self.zeros, dt)
            .map_err(|source| SimError::Control { time: world.time, source })?;
        for ((tk, &x), &on) in self.tau.iter_mut().zip(t).zip(&self.actuated) {
            *tk = if on { x } else { 0.0 };
        }
        if let Some(e) = controller.inverse_dynamics().base_residual() {
            let e = e.iter().fold(0.0f64, |a, x| a.max(x.abs()));
            summary.max_base_residual = Some(summary.max_base_residual.map_or(e, |m| m.max(e)));
        }
        Ok(&self.tau)
    }
}

/// The summary as the steps go.
#[derive(Default)]
struct Tally {
    summary: SimSummary,
    iterations: u64,
    contact_steps: u64,
    contacts: u64,
}

impl Tally {
    fn step(&mut self, r: &StepReport) {
        let s = &mut self.summary;
        s.steps += 1;
        if r.contacts > 0 {
            self.contact_steps += 1;
            self.iterations += r.iterations as u64;
        }
        self.contacts += r.contacts as u64;
        s.iterations_max = s.iterations_max.max(r.iterations);
        s.contacts_max = s.contacts_max.max(r.contacts);
        s.contacts_dropped += r.contacts_dropped as u64;
        s.steps_with_dropped_contacts += u64::from(r.contacts_dropped > 0);
        s.not_converged += u64::from(!r.converged);
        s.max_penetration_m = s.max_penetration_m.max(r.max_penetration);
        s.max_eps_abs = s.max_eps_abs.max(r.metrics.eps_abs);
    }

    fn finish(self, wall_time_s: f64, world: &World) -> SimSummary {
        let per = |x: f64, n: f64| if n > 0.0 { x / n } else { 0.0 };
        let mut s = self.summary;
        s.wall_time_s = wall_time_s;
        s.sim_time_s = world.time;
        s.steps_per_s = per(s.steps as f64, wall_time_s);
        s.realtime_factor = per(s.sim_time_s, wall_time_s);
        s.iterations_mean = per(self.iterations as f64, self.contact_steps as f64);
        s.contacts_mean = per(self.contacts as f64, s.steps as f64);
        s.final_base_position =
            world.robot.as_ref().filter(|r| r.model.has_free_flyer()).map(|r| [r.q[0], r.q[1], r.q[2]]);
        s
    }
}
