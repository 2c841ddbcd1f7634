//! One simulation instance as the Python classes hold it: a world, its stepper and its
//! initial state, built from a signorini configuration file; the flat state vector of
//! `get_state`/`set_state` and `rollout` (MuJoCo's `mj_getState` in spirit):
//!
//! ```text
//! [time, q (nq), v (nv), then per free body: position (3), quaternion x y z w (4),
//!  twist in the body frame: linear of its origin (3), angular (3)]
//! ```
//!
//! Controls are the actuated joints' torques (`nu` of them, the configuration's controlled
//! joints in order); a floating base gets none. `World` (one instance) and `Batch` (N of
//! them, one shared model) both hold these.

use nalgebra::{Quaternion, UnitQuaternion};
use signorini::app::{Setup, add_bodies, check_mass_matrix};
use signorini::config::Config;
use signorini::model::{FreeBodyState, JointType, Model};
use signorini::sim::{JointPd, Robot, StepReport, Stepper, World};
use signorini::spatial::{Motion, SE3, Vec3};
use std::path::Path;
use std::sync::Arc;

/// Values per free body in the state vector.
pub const BODY_STATE: usize = 13;

/// How an instance is built, kept by a `World` so that a `Batch` of it builds N alike.
#[derive(Clone, Debug)]
pub enum Recipe {
    /// A configuration file, loaded (`World.from_config`, `Batch(path)`): its robot,
    /// environment, bodies, contact settings, hold PD and controlled joints.
    Config(Box<Setup>),
    /// A model and the YAML sections given as Python values (`World(model, ...)`): every
    /// dof but a floating base's is a control, no hold PD.
    Parts {
        /// The model.
        model: Arc<Model>,
        /// The sections (environment, sim.bodies, sim.dt, contact), checked.
        config: Box<Config>,
        /// The initial configuration (None: neutral, a floating base set on the ground).
        q: Option<Vec<f64>>,
    },
}

impl Recipe {
    /// The recipe of a configuration file.
    pub fn load(path: &Path) -> Result<Self, String> {
        Setup::load(path, None).map(|s| Recipe::Config(Box::new(s))).map_err(|e| e.to_string())
    }

    /// The model the instances share (a new `Arc` for a configuration: call once).
    pub fn model(&self) -> Arc<Model> {
        match self {
            Recipe::Config(setup) => Arc::new(setup.model.clone()),
            Recipe::Parts { model, .. } => Arc::clone(model),
        }
    }

    /// The contact capacity (`collision.max_contacts`).
    pub fn max_contacts(&self) -> usize {
        match self {
            Recipe::Config(setup) => setup.config.collision.max_contacts.get(),
            Recipe::Parts { config, .. } => config.collision.max_contacts.get(),
        }
    }

    /// A new instance sharing `model` (from [`Recipe::model`]), at its initial state.
    pub fn build(&self, model: Arc<Model>) -> Result<Instance, String> {
        match self {
            Recipe::Config(setup) => Instance::from_setup(setup, model),
            Recipe::Parts { config, q, .. } => Instance::from_parts(model, config, q.clone()),
        }
    }
}

/// The dofs a world of parts controls, and their names: every joint's but a floating
/// base's (a multi-dof joint's named `joint[k]`).
fn model_controls(model: &Model) -> (Vec<usize>, Vec<String>) {
    let roots: Vec<usize> = model.floating_roots().collect();
    let (mut dofs, mut names) = (Vec::new(), Vec::new());
    for j in (1..model.njoints()).filter(|j| !roots.contains(j)) {
        let nv = model.joint_types[j].nv();
        for k in 0..nv {
            dofs.push(model.idx_v[j] + k);
            let name = &model.joint_names[j];
            names.push(if nv == 1 { name.clone() } else { format!("{name}[{k}]") });
        }
    }
    (dofs, names)
}

/// The state a reset returns to.
#[derive(Clone, Debug)]
struct Initial {
    q: Vec<f64>,
    v: Vec<f64>,
    bodies: Vec<FreeBodyState>,
}

/// A world, its stepper, its initial state and the map from controls to joint torques.
pub struct Instance {
    /// The world stepped.
    pub world: World,
    /// Its stepper (Δt, contact settings, warm start).
    pub stepper: Stepper,
    /// The velocity index of each control.
    pub actuated: Vec<usize>,
    /// The controlled joints' names, in control order.
    pub control_names: Vec<String>,
    initial: Initial,
    tau: Vec<f64>,
    /// The configuration's hold PD (`sim.hold_kp`/`hold_kd` towards the initial posture),
    /// applied by [`Instance::hold_step`].
    hold: Option<JointPd>,
}

impl Instance {
    /// The world of a loaded configuration with `model` (the setup's, shared by the
    /// instances of a batch), at its initial state, with the configuration's hold PD.
    pub fn from_setup(setup: &Setup, model: Arc<Model>) -> Result<Self, String> {
        let world = setup.sim_world_sharing(model).map_err(|e| e.to_string())?;
        let stepper = Stepper::new(
            &world,
            setup.config.sim_dt(),
            &setup.config.contact.settings(),
            setup.config.collision.max_contacts.get(),
        );
        let slots = setup.joint_slots();
        let mut instance =
            Self::new(world, stepper, slots.iter().map(|s| s.idx_v).collect(), setup.joint_names.clone());
        instance.hold = Some(setup.hold_pd());
        Ok(instance)
    }

    /// A world of `model` in `config`'s environment with its `sim.bodies`, stepped every
    /// `sim.dt` with its contact settings; the robot at rest at `q`, else at the neutral
    /// configuration with a floating base lowered onto the ground.
    pub fn from_parts(model: Arc<Model>, config: &Config, q: Option<Vec<f64>>) -> Result<Self, String> {
        let placed = q.is_some();
        let mut q0 = q.unwrap_or_else(|| model.neutral_configuration().as_slice().to_vec());
        signorini::dynamics::normalize(&model, &mut q0);
        check_mass_matrix(&model, &q0).map_err(|e| format!("World: model `{}`: {e}", model.name))?;
        let (dofs, names) = model_controls(&model);
        let robot = Robot::new(model, q0);
        let mut world = World::new(Some(robot), &config.environment.description(), &config.collision.settings())
            .map_err(|e| format!("World: {e}"))?;
        if !placed {
            world.place_robot_on(config.environment.ground.as_ref().map_or(0.0, |g| g.height.get()));
        }
        add_bodies(&mut world, &config.sim.bodies, "World").map_err(|e| e.to_string())?;
        let settings = config.contact.settings();
        let stepper = Stepper::new(&world, config.sim_dt(), &settings, config.collision.max_contacts.get());
        Ok(Self::new(world, stepper, dofs, names))
    }

    /// An instance of `world` stepped by `stepper`, controlled on the velocity indices
    /// `actuated` (named `control_names`); its current state is the initial one.
    pub fn new(world: World, stepper: Stepper, actuated: Vec<usize>, control_names: Vec<String>) -> Self {
        let (q, v) = world.robot.as_ref().map_or((Vec::new(), Vec::new()), |r| (r.q.clone(), r.v.clone()));
        let nv = v.len();
        let initial = Initial { q, v, bodies: world.states.clone() };
        Self { world, stepper, actuated, control_names, initial, tau: vec![0.0; nv], hold: None }
    }

    /// The robot's model, if any.
    pub fn model(&self) -> Option<&Model> {
        self.world.robot.as_ref().map(|r| &*r.model)
    }

    /// Configuration size (0 without a robot).
    pub fn nq(&self) -> usize {
        self.initial.q.len()
    }

    /// Velocity size of the robot (0 without a robot).
    pub fn nv(&self) -> usize {
        self.initial.v.len()
    }

    /// Number of controls.
    pub fn nu(&self) -> usize {
        self.actuated.len()
    }

    /// Length of the state vector.
    pub fn nstate(&self) -> usize {
        1 + self.nq() + self.nv() + BODY_STATE * self.world.states.len()
    }

    /// Contacts of the last step.
    pub fn contacts(&self) -> usize {
        self.stepper.contacts().len()
    }

    /// The world force (N, 3 per contact: λ's frame rotated to the world, over Δt) of each
    /// contact of the last step into `out` (3 per contact, at most `out.len() / 3`
    /// contacts; zero for a step that assembled no problem); returns how many were written.
    pub fn contact_forces(&self, out: &mut [f64]) -> usize {
        let (contacts, impulses) = (self.stepper.contacts().contacts(), self.stepper.impulses());
        let n = contacts.len().min(out.len() / 3);
        for (i, c) in contacts.iter().take(n).enumerate() {
            let lambda = impulses.get(3 * i..3 * i + 3).map_or(Vec3::zeros(), Vec3::from_column_slice);
            let f = c.frame * lambda / self.stepper.dt;
            out[3 * i..3 * i + 3].copy_from_slice(f.as_slice());
        }
        n
    }

    /// One step under the controls `u` (nu, checked by the caller).
    pub fn step(&mut self, u: &[f64]) -> &StepReport {
        debug_assert_eq!(u.len(), self.actuated.len());
        for (&k, &x) in self.actuated.iter().zip(u) {
            self.tau[k] = x;
        }
        self.stepper.step(&mut self.world, &self.tau)
    }

    /// One step under the hold PD's torques at the current state (zero torques without
    /// one: an instance built from parts, or `sim.hold_kp` = `hold_kd` = 0).
    pub fn hold_step(&mut self) -> &StepReport {
        match (self.hold.as_mut(), self.world.robot.as_ref()) {
            (Some(pd), Some(r)) => pd.torques(&r.model, &r.q, &r.v, &mut self.tau),
            _ => self.tau.fill(0.0),
        }
        self.stepper.step(&mut self.world, &self.tau)
    }

    /// Back to the initial state at time 0, the warm start and the collision sweep's order
    /// forgotten: the steps after a reset repeat those after construction exactly.
    pub fn reset(&mut self) {
        if let Some(r) = self.world.robot.as_mut() {
            r.q.copy_from_slice(&self.initial.q);
            r.v.copy_from_slice(&self.initial.v);
        }
        self.world.states.clone_from_slice(&self.initial.bodies);
        self.world.time = 0.0;
        self.world.steps = 0;
        self.stepper.forget_warm_start();
        self.world.collision.forget_order();
    }

    /// Makes the current state the one `reset` returns to.
    pub fn keep_as_initial(&mut self) {
        if let Some(r) = self.world.robot.as_ref() {
            self.initial.q.copy_from_slice(&r.q);
            self.initial.v.copy_from_slice(&r.v);
        }
        self.initial.bodies.clone_from_slice(&self.world.states);
    }

    /// Writes the state vector into `out` (nstate).
    pub fn get_state(&self, out: &mut [f64]) {
        out[0] = self.world.time;
        let mut k = 1;
        if let Some(r) = self.world.robot.as_ref() {
            out[k..k + r.q.len()].copy_from_slice(&r.q);
            k += r.q.len();
            out[k..k + r.v.len()].copy_from_slice(&r.v);
            k += r.v.len();
        }
        for s in &self.world.states {
            let rotation = UnitQuaternion::from_matrix(&s.pose.rotation);
            let c = rotation.coords;
            out[k..k + 3].copy_from_slice(s.pose.translation.as_slice());
            out[k + 3..k + 7].copy_from_slice(&[c.x, c.y, c.z, c.w]);
            out[k + 7..k + 10].copy_from_slice(s.velocity.linear.as_slice());
            out[k + 10..k + 13].copy_from_slice(s.velocity.angular.as_slice());
            k += BODY_STATE;
        }
    }

    /// Refuses a configuration `q` (nq) whose unit parts (a free flyer's quaternion, a
    /// continuous joint's (cos, sin)) are zero: they cannot be normalized.
    pub fn check_configuration(&self, q: &[f64]) -> Result<(), String> {
        let Some(m) = self.model() else { return Ok(()) };
        for (j, t) in m.joint_types.iter().enumerate().skip(1) {
            let at = m.idx_q[j];
            let part = match t {
                JointType::FreeFlyer => &q[at + 3..at + 7],
                JointType::RevoluteUnbounded { .. } => &q[at..at + 2],
                _ => continue,
            };
            if part.iter().map(|x| x * x).sum::<f64>().sqrt() < 1e-9 {
                return Err(format!("joint `{}`'s unit quaternion or (cos, sin) is zero", m.joint_names[j]));
            }
        }
        Ok(())
    }

    /// The free bodies' poses of `state` (nstate, finite, checked by the caller), their
    /// quaternions normalized; a zero one (or a zero one of the robot's) is refused.
    fn poses(&self, state: &[f64]) -> Result<Vec<SE3>, String> {
        self.check_configuration(&state[1..1 + self.nq()]).map_err(|e| format!("state: {e}"))?;
        let mut poses = Vec::with_capacity(self.world.states.len());
        for (b, chunk) in state[1 + self.nq() + self.nv()..].chunks_exact(BODY_STATE).enumerate() {
            let q = Quaternion::new(chunk[6], chunk[3], chunk[4], chunk[5]);
            if q.norm() < 1e-9 {
                return Err(format!("state: body {b}'s quaternion is zero"));
            }
            poses.push(SE3::new(
                UnitQuaternion::from_quaternion(q).to_rotation_matrix().into_inner(),
                Vec3::new(chunk[0], chunk[1], chunk[2]),
            ));
        }
        Ok(poses)
    }

    /// The configuration, velocity and free bodies of `state`, written into `q`, `v` and
    /// `bodies` (q's quaternions normalized).
    fn unpack(&self, state: &[f64], q: &mut [f64], v: &mut [f64], bodies: &mut [FreeBodyState]) -> Result<(), String> {
        let (nq, nv) = (self.nq(), self.nv());
        let poses = self.poses(state)?;
        q.copy_from_slice(&state[1..1 + nq]);
        if let Some(model) = self.model() {
            signorini::dynamics::normalize(model, q);
        }
        v.copy_from_slice(&state[1 + nq..1 + nq + nv]);
        let chunks = state[1 + nq + nv..].chunks_exact(BODY_STATE);
        for ((s, pose), chunk) in bodies.iter_mut().zip(poses).zip(chunks) {
            s.pose = pose;
            s.velocity =
                Motion::new(Vec3::new(chunk[7], chunk[8], chunk[9]), Vec3::new(chunk[10], chunk[11], chunk[12]));
        }
        Ok(())
    }

    /// Whether `state` (nstate, finite) can be set: no zero quaternion.
    pub fn check_state(&self, state: &[f64]) -> Result<(), String> {
        self.poses(state).map(|_| ())
    }

    /// Sets the state from `state` (nstate, finite, checked by the caller); the quaternions
    /// are normalized, a zero one is refused. The warm start and the collision sweep's order
    /// are forgotten: the steps that follow are those of a new world set to `state`.
    pub fn set_state(&mut self, state: &[f64]) -> Result<(), String> {
        let (mut q, mut v, mut bodies) = (self.initial.q.clone(), self.initial.v.clone(), self.world.states.clone());
        self.unpack(state, &mut q, &mut v, &mut bodies)?;
        self.world.time = state[0];
        self.world.steps = (state[0] / self.stepper.dt).round().max(0.0) as u64;
        if let Some(r) = self.world.robot.as_mut() {
            r.q.copy_from_slice(&q);
            r.v.copy_from_slice(&v);
        }
        self.world.states.clone_from_slice(&bodies);
        self.stepper.forget_warm_start();
        self.world.collision.forget_order();
        Ok(())
    }

    /// Sets the state `reset` returns to from `state` (its time ignored: a reset is at
    /// time 0); the current state is unchanged.
    pub fn set_initial(&mut self, state: &[f64]) -> Result<(), String> {
        let mut initial = self.initial.clone();
        self.unpack(state, &mut initial.q, &mut initial.v, &mut initial.bodies)?;
        self.initial = initial;
        Ok(())
    }

    /// The robot's q and v, mutable (empty without a robot).
    pub fn robot_state_mut(&mut self) -> (&mut [f64], &mut [f64]) {
        match self.world.robot.as_mut() {
            Some(r) => (&mut r.q, &mut r.v),
            None => (&mut [], &mut []),
        }
    }
}
