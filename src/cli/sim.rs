//! `signorini sim`: the configured world simulated headless, as fast as possible or in
//! real time, with a summary of what happened (the contract is in README.md).

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::app::{Setup, SetupError};
use crate::bag::{BagError, BagRecorder};
use crate::control::{Controller, InverseDynamicsSettings};
use crate::sim::{JointPd, Stepper};

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
    /// Deepest penetration seen (m).
    pub max_penetration_m: f64,
    /// Largest NCP criterion ε_abs of a step (seed 002 §2.3, force units).
    pub max_eps_abs: f64,
    /// Final floating-base position (m), if the robot has one.
    pub final_base_position: Option<[f64; 3]>,
    /// With `--control` and a floating base: the largest base wrench (∞-norm, N or N·m)
    /// the controller's contacts could not produce.
    pub max_base_residual: Option<f64>,
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

/// Runs the configured world for `options.duration`; `progress` gets a line about once a
/// wall second.
/// With `bag`, every step is recorded there (see [`crate::bag::BagRecorder`]).
pub fn run(
    setup: &Setup,
    options: &SimOptions,
    bag: Option<&std::path::Path>,
    mut progress: impl FnMut(&str),
) -> Result<SimSummary, SimError> {
    let mut world = setup.sim_world()?;
    let mut recorder = bag.map(|path| BagRecorder::create(path, setup, &world)).transpose()?;
    let dt = setup.config.sim_dt();
    let capacity = setup.config.collision.max_contacts.get();
    let mut stepper = Stepper::new(&world, dt, &setup.config.contact.settings(), capacity);
    // The joint PD of `sim.hold_kp`/`hold_kd` towards the initial posture, for the
    // controlled joints; zero elsewhere (and on a floating base).
    let mut actuated = vec![false; setup.model.nv];
    for slot in setup.joint_slots() {
        actuated[slot.idx_v] = true;
    }
    let mut hold = JointPd::with_dofs(
        &setup.model,
        setup.initial_configuration(),
        setup.config.sim.hold_kp.get(),
        setup.config.sim.hold_kd.get(),
        actuated.clone(),
    );
    // Or the inverse-dynamics controller towards the posture reference (the floating base
    // held where it starts), with the simulator's contact settings to predict it.
    let mut controller = match (options.control, world.robot.as_ref()) {
        (true, Some(r)) => Some((
            Controller::new(
                &setup.model,
                setup.collision_world()?,
                capacity,
                setup.config.contact.problem_settings(),
                setup.config.control.settings(),
                InverseDynamicsSettings::default(),
            ),
            setup.posture_reference(&r.q),
        )),
        _ => None,
    };
    let zeros = vec![0.0; setup.model.nv];
    let robot_nv = setup.model.nv;
    let mut tau = vec![0.0; robot_nv];
    let steps = (options.duration / dt).round().max(0.0) as u64;
    let mut s = SimSummary { robot: setup.robot.name.clone(), bodies: world.bodies.len(), dt, ..Default::default() };
    let (mut iterations, mut contact_steps, mut contacts) = (0u64, 0u64, 0u64);
    let start = Instant::now();
    let mut last_report = start;
    for k in 0..steps {
        match (world.robot.as_ref(), controller.as_mut()) {
            (Some(r), Some((controller, posture))) => {
                let t = controller
                    .tick(&r.model, &r.q, &r.v, posture, &zeros, &zeros, dt)
                    .map_err(|source| SimError::Control { time: world.time, source })?;
                for ((tk, &x), &on) in tau.iter_mut().zip(t).zip(&actuated) {
                    *tk = if on { x } else { 0.0 };
                }
                if let Some(e) = controller.inverse_dynamics().base_residual() {
                    let e = e.iter().fold(0.0f64, |a, x| a.max(x.abs()));
                    s.max_base_residual = Some(s.max_base_residual.map_or(e, |m| m.max(e)));
                }
            }
            (Some(r), None) => hold.torques(&r.model, &r.q, &r.v, &mut tau),
            (None, _) => tau.fill(0.0),
        }
        let r = *stepper.step(&mut world, &tau);
        if !world.is_finite() {
            return Err(SimError::Diverged { time: world.time, step: k });
        }
        if let Some(bag) = recorder.as_mut() {
            bag.record(&world, &stepper)?;
        }
        s.steps = k + 1;
        if r.contacts > 0 {
            contact_steps += 1;
            iterations += r.iterations as u64;
        }
        contacts += r.contacts as u64;
        s.iterations_max = s.iterations_max.max(r.iterations);
        s.contacts_max = s.contacts_max.max(r.contacts);
        s.not_converged += u64::from(!r.converged);
        s.max_penetration_m = s.max_penetration_m.max(r.max_penetration);
        s.max_eps_abs = s.max_eps_abs.max(r.metrics.eps_abs);
        if options.realtime {
            let due = start + Duration::from_secs_f64((k + 1) as f64 * dt);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
        }
        if last_report.elapsed() >= Duration::from_secs(1) {
            last_report = Instant::now();
            progress(&format!(
                "t = {:.3} s of {:.3} s, {} contacts, {} iterations, {:.0} steps/s",
                world.time,
                options.duration,
                r.contacts,
                r.iterations,
                (k + 1) as f64 / start.elapsed().as_secs_f64()
            ));
        }
    }
    if let Some(bag) = recorder {
        bag.finish()?;
    }
    s.wall_time_s = start.elapsed().as_secs_f64();
    s.sim_time_s = world.time;
    s.steps_per_s = if s.wall_time_s > 0.0 { s.steps as f64 / s.wall_time_s } else { 0.0 };
    s.realtime_factor = if s.wall_time_s > 0.0 { s.sim_time_s / s.wall_time_s } else { 0.0 };
    s.iterations_mean = if contact_steps > 0 { iterations as f64 / contact_steps as f64 } else { 0.0 };
    s.contacts_mean = if s.steps > 0 { contacts as f64 / s.steps as f64 } else { 0.0 };
    s.final_base_position = world.robot.as_ref().filter(|r| r.model.has_free_flyer()).map(|r| [r.q[0], r.q[1], r.q[2]]);
    Ok(s)
}
