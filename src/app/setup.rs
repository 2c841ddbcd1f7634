//! What the node and the CLI build at start-up: the configuration, the robot it names, and
//! the joint list checked against that robot.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use crate::collision::{CollisionError, CollisionShape, CollisionWorld, FreeBodyShape};
use crate::config::joint_commands::DEFAULT_GAINS;
use crate::config::{BodyConfig, BodyShape, Config, ConfigError, FiniteF64, InterfaceName, MimicJoints};
use crate::control::{Controller, InverseDynamicsSettings, UnknownLink};
use crate::model::{
    FreeBody, FreeBodyState, JointType, MimicPolicy, Model, ModelError, ModelOptions, RobotDescription, UrdfError,
};
use crate::sim::{Gains, Interface, JointPd, JointServo, Robot, SensorSettings, World, WorldError};
use crate::spatial::{Motion, SE3, Vec3, rotation_from_rpy};

/// A configuration whose robot was loaded and whose joint names and posture were checked
/// against it.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The configuration file.
    pub config_file: PathBuf,
    /// Its content.
    pub config: Config,
    /// The robot as described by its URDF.
    pub robot: RobotDescription,
    /// The multibody model built from it (with the free flyer if configured).
    pub model: Model,
    /// Controlled joints, in command and JointState order.
    pub joint_names: Vec<String>,
    /// Initial position of each controlled joint.
    pub initial_positions: Vec<f64>,
    /// The posture reference of `control.posture` over the initial positions, same order.
    pub posture_positions: Vec<f64>,
    /// The simulator's sensors (`sensors:`), checked against the model.
    pub sensors: SensorSettings,
    /// With `robots:`, each robot's part of the model and of `joint_names`
    /// ([`super::robots`]: then `model` holds them all, `robot` is the first one's URDF);
    /// empty for the single robot of `robot:`.
    pub robots: Vec<super::RobotView>,
}

/// Where a controlled joint lives in q and v.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct JointSlot {
    /// Index in q.
    pub idx_q: usize,
    /// Index in v.
    pub idx_v: usize,
    /// A continuous joint: q holds (cos θ, sin θ).
    pub unbounded: bool,
}

impl JointSlot {
    /// The joint's position (the angle θ for a continuous joint).
    pub fn position(&self, q: &[f64]) -> f64 {
        if self.unbounded { q[self.idx_q + 1].atan2(q[self.idx_q]) } else { q[self.idx_q] }
    }

    /// Puts the joint of `q` at `position` (the inverse of [`JointSlot::position`]).
    pub fn set_position(&self, q: &mut [f64], position: f64) {
        if self.unbounded {
            q[self.idx_q] = position.cos();
            q[self.idx_q + 1] = position.sin();
        } else {
            q[self.idx_q] = position;
        }
    }
}

/// An interface's name in YAML.
fn word(interface: InterfaceName) -> &'static str {
    match interface {
        InterfaceName::Position => "position",
        InterfaceName::Velocity => "velocity",
        InterfaceName::Effort => "effort",
    }
}

/// Why start-up failed.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The configuration file.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The URDF named by the configuration.
    #[error("{config}: key `robot.urdf`: {source}")]
    UrdfFile {
        /// The configuration file naming the URDF.
        config: String,
        /// What is wrong with the URDF.
        source: UrdfError,
    },
    /// The URDF given as text (the `robot_description` parameter or a topic; the error
    /// names which).
    #[error(transparent)]
    Urdf(#[from] UrdfError),
    /// The model built from the URDF (meshes, inertias).
    #[error("{config}: key `robot`: {source}")]
    Model {
        /// The configuration file.
        config: String,
        /// What is wrong.
        source: Box<ModelError>,
    },
    /// The collision world (meshes, environment, collision settings).
    #[error("{config}: {source}")]
    Collision {
        /// The configuration file.
        config: String,
        /// What is wrong.
        source: CollisionError,
    },
    /// The robot's mass matrix is singular in its initial configuration.
    #[error("{config}: key `robot`: {urdf}: {singular}")]
    SingularMassMatrix {
        /// The configuration file.
        config: String,
        /// The URDF.
        urdf: String,
        /// Where.
        singular: SingularMassMatrix,
    },
    /// `control.stance_links` names a link the robot has no collision shapes on.
    #[error("{config}: key `control.stance_links`: {source}")]
    StanceLink {
        /// The configuration file.
        config: String,
        /// The link.
        source: UnknownLink,
    },
}

/// The largest condition number λ_max/λ_min of M(q) a robot may start with. Every
/// example-robot-data robot whose bodies pass the model builder's inertia check stays
/// below 10⁷ (pr2: 8·10⁶, at its neutral configuration and 4 around it, by Pinocchio);
/// icub's point masses on their joint axes give 10¹⁷, romeo's massless fingers ∞. Past 10¹²
/// a solve with M keeps fewer than 4 digits (ε·κ).
pub const MAX_MASS_MATRIX_CONDITION: f64 = 1e12;

/// A mass matrix that is singular, indefinite or too ill-conditioned to solve with at a
/// configuration: the joint of its weakest direction and M's condition number there.
#[derive(Clone, Debug, PartialEq)]
pub struct SingularMassMatrix {
    /// The joint owning the largest component of the eigenvector of M's smallest
    /// eigenvalue.
    pub joint: String,
    /// λ_max/λ_min (infinite when λ_min ≤ 0).
    pub condition: f64,
}

impl std::fmt::Display for SingularMassMatrix {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the mass matrix is singular at joint `{}` (condition number {:e}, at most {:e}): the bodies it moves carry (almost) no mass or inertia about it; give their links an <inertial>",
            self.joint, self.condition, MAX_MASS_MATRIX_CONDITION
        )
    }
}

/// M(q) of `model` is positive definite with a condition number of at most
/// [`MAX_MASS_MATRIX_CONDITION`]: what the simulator's and the controller's solves need.
/// So for bodies that pass the model builder's inertia check; with
/// `robot.allow_invalid_inertia`, a joint whose subtree carries no mass (example-robot-
/// data's romeo fingers) or no inertia about its axis (icub's point masses) fails here.
pub fn check_mass_matrix(model: &Model, q: &[f64]) -> Result<(), SingularMassMatrix> {
    let (condition, dof) = mass_matrix_condition(model, q);
    if condition <= MAX_MASS_MATRIX_CONDITION {
        return Ok(());
    }
    let joint = (1..model.njoints())
        .find(|&i| (model.idx_v[i]..model.idx_v[i] + model.joint_types[i].nv()).contains(&dof))
        .map_or_else(|| format!("dof {dof}"), |i| model.joint_names[i].clone());
    Err(SingularMassMatrix { joint, condition })
}

/// M(q)'s condition number λ_max/λ_min (infinite when λ_min ≤ 0 or M is not finite) and
/// the dof with the largest component in the eigenvector of λ_min (its weakest direction);
/// (1, 0) without dofs.
pub fn mass_matrix_condition(model: &Model, q: &[f64]) -> (f64, usize) {
    if model.nv == 0 {
        return (1.0, 0);
    }
    let mut data = crate::model::Data::new(model);
    let m = crate::dynamics::crba_symmetric(model, &mut data, q).clone();
    if !m.iter().all(|x| x.is_finite()) {
        return (f64::INFINITY, 0);
    }
    let eigen = nalgebra::SymmetricEigen::new(m);
    let (weakest, &smallest) =
        eigen.eigenvalues.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1)).unwrap_or((0, &0.0));
    let largest = eigen.eigenvalues.iter().fold(0.0f64, |l, x| l.max(x.abs()));
    let condition = if smallest > 0.0 { largest / smallest } else { f64::INFINITY };
    (condition, eigen.eigenvectors.column(weakest).iamax())
}

/// URDF text given instead of the configuration's `robot.urdf` file, and where it came
/// from: errors and the start-up line name `origin` (`parameter robot_description`,
/// `topic /robot_description`). It is validated as a file's text is; relative mesh paths
/// in it resolve against the working directory, `package://` URIs as a file's do.
#[derive(Copy, Clone, Debug)]
pub struct UrdfText<'a> {
    /// The URDF XML.
    pub xml: &'a str,
    /// Where it came from.
    pub origin: &'a str,
}

impl Setup {
    /// Loads `config_file` and its robot. `robot_description` (URDF text, e.g. from the ROS
    /// parameter of that name) replaces the URDF file named in the configuration.
    pub fn load(config_file: &Path, robot_description: Option<&str>) -> Result<Self, SetupError> {
        let config = Config::from_file(config_file)?;
        let text = robot_description.map(|xml| UrdfText { xml, origin: "parameter robot_description" });
        Self::with_urdf(config_file, config, text)
    }

    /// Loads the robot of `config` (read from `config_file`): from `text` if given, else
    /// from the file of `robot.urdf` (then required).
    pub fn with_urdf(config_file: &Path, config: Config, text: Option<UrdfText>) -> Result<Self, SetupError> {
        if !config.robots.is_empty() {
            if let Some(text) = text {
                return Err(ConfigError::Invalid {
                    file: config_file.display().to_string(),
                    key: "robots".to_owned(),
                    message: format!(
                        "each robot's URDF is its `urdf` file; the one URDF of the {} cannot be used",
                        text.origin
                    ),
                }
                .into());
            }
            return Self::several(config_file, config);
        }
        let mimic = match config.robot.mimic_joints {
            MimicJoints::Error => MimicPolicy::Error,
            MimicJoints::Independent => MimicPolicy::Independent,
        };
        let file = config_file.display().to_string();
        let robot = match (text, &config.robot.urdf) {
            (Some(text), _) => RobotDescription::from_xml_with(text.xml, text.origin, mimic)?,
            (None, Some(urdf)) => RobotDescription::from_file_with(urdf, mimic)
                .map_err(|source| SetupError::UrdfFile { config: file, source })?,
            (None, None) => {
                return Err(ConfigError::Invalid {
                    file,
                    key: "robot.urdf".to_owned(),
                    message: "required, but missing (the node can take the URDF text from the ROS parameter robot_description or from robot.description_topic instead)".to_owned(),
                }
                .into());
            }
        };
        Self::new(config_file, config, robot)
    }

    /// Checks `config` against `robot` and builds the model.
    pub fn new(config_file: &Path, config: Config, robot: RobotDescription) -> Result<Self, SetupError> {
        let file = config_file.display().to_string();
        let options = ModelOptions {
            floating_base: config.robot.floating_base,
            mimic: match config.robot.mimic_joints {
                MimicJoints::Error => MimicPolicy::Error,
                MimicJoints::Independent => MimicPolicy::Independent,
            },
            package_dirs: config.robot.package_dirs.clone(),
            skip_meshes: false,
            allow_invalid_inertia: config.robot.allow_invalid_inertia,
            mesh_paths: config.robot.mesh_paths(),
        };
        let model = Model::from_description(&robot, &options)
            .map_err(|source| SetupError::Model { config: file.clone(), source: Box::new(source) })?;
        let invalid = |key: String, message: String| ConfigError::Invalid { file: file.clone(), key, message };
        let movable: Vec<&str> = robot.movable_joints().map(|j| j.name.as_str()).collect();
        let joint_names: Vec<String> = match &config.robot.joints {
            None => movable.iter().map(|s| (*s).to_owned()).collect(),
            Some(list) => {
                for (i, name) in list.iter().enumerate() {
                    if !movable.contains(&name.as_str()) {
                        return Err(invalid(
                            format!("robot.joints[{i}]"),
                            format!(
                                "expected a revolute, continuous or prismatic joint of {} (one of {}), got `{name}`",
                                robot.origin,
                                movable.join(", ")
                            ),
                        )
                        .into());
                    }
                    if list[..i].contains(name) {
                        return Err(
                            invalid(format!("robot.joints[{i}]"), format!("joint `{name}` is listed twice")).into()
                        );
                    }
                }
                list.clone()
            }
        };
        // Joint positions by name under `key`, over `into` (the configured joints' order).
        let positions = |key: &str, map: &BTreeMap<String, FiniteF64>, into: &mut [f64]| -> Result<(), SetupError> {
            for (name, value) in map {
                let key = format!("{key}.{name}");
                let Some(i) = joint_names.iter().position(|j| j == name) else {
                    return Err(invalid(
                        key,
                        format!("expected one of the configured joints ({}), got `{name}`", joint_names.join(", ")),
                    )
                    .into());
                };
                let limits = robot.joint(name).map(|j| j.limits);
                if let Some(l) = limits
                    && !(l.lower..=l.upper).contains(&value.get())
                {
                    return Err(invalid(
                        key,
                        format!(
                            "expected a position within the URDF limits [{}, {}], got {}",
                            l.lower,
                            l.upper,
                            value.get()
                        ),
                    )
                    .into());
                }
                into[i] = value.get();
            }
            Ok(())
        };
        let mut initial_positions = vec![0.0; joint_names.len()];
        positions("robot.initial_posture", &config.robot.initial_posture, &mut initial_positions)?;
        let mut posture_positions = initial_positions.clone();
        positions("control.posture", &config.control.posture, &mut posture_positions)?;
        let sensors = config.sensors.settings(&model, config.sim_dt(), &file)?;
        let setup = Self {
            config_file: config_file.to_owned(),
            config,
            robot,
            model,
            joint_names,
            initial_positions,
            posture_positions,
            sensors,
            robots: Vec::new(),
        };
        setup.joint_servos()?;
        check_mass_matrix(&setup.model, &setup.initial_configuration()).map_err(|singular| {
            SetupError::SingularMassMatrix { config: file.clone(), urdf: setup.robot.origin.clone(), singular }
        })?;
        Ok(setup)
    }

    /// The servo of each controlled joint (`joint_names` order) for commands on
    /// `joint_commands.topic`: its interface (`joint_commands.interfaces`, else effort),
    /// its gains (its own in `joint_commands.position_gains` / `velocity_gains`, else
    /// their `default`) and its URDF limits. A key naming no joint of that interface, or
    /// a position or velocity joint without gains, is an error naming the key.
    pub fn joint_servos(&self) -> Result<Vec<JointServo>, SetupError> {
        let c = &self.config.joint_commands;
        let invalid = |key: String, message: String| {
            SetupError::Config(ConfigError::Invalid { file: self.config_file.display().to_string(), key, message })
        };
        let interface_of = |name: &str| c.interfaces.get(name).copied().unwrap_or(InterfaceName::Effort);
        if let Some(name) = c.interfaces.keys().find(|n| !self.joint_names.contains(n)) {
            let expected = format!("one of the configured joints ({})", self.joint_names.join(", "));
            return Err(invalid(
                format!("joint_commands.interfaces.{name}"),
                format!("expected {expected}, got `{name}`"),
            ));
        }
        let keys = [
            ("position_gains", InterfaceName::Position, c.position_gains.keys().collect::<Vec<_>>()),
            ("velocity_gains", InterfaceName::Velocity, c.velocity_gains.keys().collect()),
        ];
        for (section, interface, names) in &keys {
            if let Some(name) = names.iter().find(|n| **n != DEFAULT_GAINS && interface_of(n) != *interface) {
                return Err(invalid(
                    format!("joint_commands.{section}.{name}"),
                    format!("expected `default` or a joint whose interface is {}, got `{name}`", word(*interface)),
                ));
            }
        }
        let slots = self.joint_slots();
        let mut servos = Vec::with_capacity(slots.len());
        for (name, slot) in self.joint_names.iter().zip(&slots) {
            let (interface, gains) = match interface_of(name) {
                InterfaceName::Effort => (Interface::Effort, Some(Gains::default())),
                InterfaceName::Position => (
                    Interface::Position,
                    c.position_gains.get(name).or(c.position_gains.get(DEFAULT_GAINS)).map(|g| Gains {
                        kp: g.kp.get(),
                        kd: g.kd.get(),
                        ki: g.ki.get(),
                    }),
                ),
                InterfaceName::Velocity => (
                    Interface::Velocity,
                    c.velocity_gains.get(name).or(c.velocity_gains.get(DEFAULT_GAINS)).map(|g| Gains {
                        kp: g.kp.get(),
                        kd: 0.0,
                        ki: g.ki.get(),
                    }),
                ),
            };
            let Some(gains) = gains else {
                let word = if interface == Interface::Position { "position" } else { "velocity" };
                return Err(invalid(
                    format!("joint_commands.{word}_gains"),
                    format!("joint `{name}` takes {word} commands: give its gains or `default`"),
                ));
            };
            let m = &self.model;
            let effort = m.effort_limit[slot.idx_v];
            let (lower, upper) = match slot.unbounded {
                true => (f64::NEG_INFINITY, f64::INFINITY),
                false => (m.lower_position_limit[slot.idx_q], m.upper_position_limit[slot.idx_q]),
            };
            servos.push(JointServo {
                interface,
                gains,
                lower,
                upper,
                unbounded: slot.unbounded,
                effort_limit: if effort > 0.0 && effort.is_finite() { effort } else { f64::INFINITY },
                velocity_limit: match m.velocity_limit[slot.idx_v] {
                    v if v > 0.0 && v.is_finite() => v,
                    _ => f64::INFINITY,
                },
            });
        }
        Ok(servos)
    }

    /// The controlled joints' slots in q and v, in `joint_names` order.
    pub fn joint_slots(&self) -> Vec<JointSlot> {
        let m = &self.model;
        self.joint_names
            .iter()
            .filter_map(|name| m.joint_id(name))
            .map(|j| JointSlot {
                idx_q: m.idx_q[j],
                idx_v: m.idx_v[j],
                unbounded: matches!(m.joint_types[j], JointType::RevoluteUnbounded { .. }),
            })
            .collect()
    }

    /// The configuration q of the initial posture (nq): the floating base at `sim:`'s
    /// placement (x, y, z, quaternion x y z w), each controlled joint at its initial position.
    pub fn initial_configuration(&self) -> Vec<f64> {
        let m = &self.model;
        let mut q = m.neutral_configuration().as_slice().to_vec();
        self.set_joints(&mut q, &self.initial_positions);
        for r in &self.robots {
            let Some(base) = r.base else { continue };
            let [roll, pitch, yaw] = r.base_rpy;
            let rotation = crate::model::joint::rotation_to_quaternion(&rotation_from_rpy(roll, pitch, yaw));
            let at = m.idx_q[base];
            q[at..at + 3].copy_from_slice(&r.base_position.unwrap_or([0.0; 3]));
            q[at + 3..at + 7].copy_from_slice(&rotation);
        }
        if m.has_free_flyer() && self.robots.is_empty() {
            let sim = &self.config.sim;
            let [r, p, y] = sim.base_rpy.map(|v| v.get());
            let rotation = crate::model::joint::rotation_to_quaternion(&rotation_from_rpy(r, p, y));
            let position = sim.base_position.map_or([0.0; 3], |p| p.map(|v| v.get()));
            q[..3].copy_from_slice(&position);
            q[3..7].copy_from_slice(&rotation);
        }
        q
    }

    /// The controller's posture reference at the measured configuration `q` (nq): the
    /// controlled joints at `control.posture` (else `robot.initial_posture`, else 0), the
    /// floating base and any other joint where `q` has them.
    pub fn posture_reference(&self, q: &[f64]) -> Vec<f64> {
        let mut reference = q.to_vec();
        self.set_joints(&mut reference, &self.posture_positions);
        reference
    }

    /// Puts the controlled joints of `q` at `positions` (`joint_names` order).
    fn set_joints(&self, q: &mut [f64], positions: &[f64]) {
        for (slot, &value) in self.joint_slots().iter().zip(positions) {
            slot.set_position(q, value);
        }
    }

    /// The simulated world: the robot at its initial configuration (a floating base
    /// without `sim.base_position` lowered until its lowest collision shape touches the
    /// ground), the environment and the free bodies of `sim.bodies`.
    pub fn sim_world(&self) -> Result<World, SetupError> {
        self.sim_world_sharing(Arc::new(self.model.clone()))
    }

    /// [`Setup::sim_world`] with `model` (this setup's, shared): the worlds of a batch hold
    /// one model.
    pub fn sim_world_sharing(&self, model: Arc<Model>) -> Result<World, SetupError> {
        debug_assert_eq!((model.nq, model.nv), (self.model.nq, self.model.nv));
        let file = self.config_file.display().to_string();
        let collision_error = |e: WorldError| match e {
            WorldError::Collision(source) => SetupError::Collision { config: file.clone(), source },
            WorldError::Model(source) => SetupError::Model { config: file.clone(), source: Box::new(source) },
        };
        let robot = Robot::new(model, self.initial_configuration());
        let mut world =
            World::new(Some(robot), &self.config.environment.description(), &self.config.collision.settings())
                .map_err(collision_error)?;
        let ground = self.config.environment.ground.as_ref().map_or(0.0, |g| g.height.get());
        if self.robots.is_empty() && self.config.sim.base_position.is_none() {
            world.place_robot_on(ground);
        }
        for base in self.robots.iter().filter(|r| r.base_position.is_none()).filter_map(|r| r.base) {
            world.place_base_on(base, ground);
        }
        add_bodies(&mut world, &self.config.sim.bodies, &file)?;
        Ok(world)
    }

    /// Which velocity dofs the controlled joints drive (the rest, and a floating base,
    /// are passive).
    pub fn actuated_dofs(&self) -> Vec<bool> {
        let mut actuated = vec![false; self.model.nv];
        for slot in self.joint_slots() {
            actuated[slot.idx_v] = true;
        }
        actuated
    }

    /// The joint PD of `sim.hold_kp`/`hold_kd` towards the initial posture on the
    /// controlled joints: what the simulator applies without a (fresh) command.
    pub fn hold_pd(&self) -> JointPd {
        let sim = &self.config.sim;
        let q = self.initial_configuration();
        JointPd::with_dofs(&self.model, q, sim.hold_kp.get(), sim.hold_kd.get(), self.actuated_dofs())
    }

    /// The controller of this robot, predicting its contacts with the simulator's contact
    /// settings (`contact:`) and `control:`'s.
    pub fn controller(&self) -> Result<Controller, SetupError> {
        let mut controller = Controller::new(
            &self.model,
            self.collision_world()?,
            self.config.collision.max_contacts.get(),
            self.config.contact.problem_settings(),
            self.config.control.settings(),
            InverseDynamicsSettings::default(),
        );
        if let Some(links) = &self.config.control.stance_links {
            controller
                .stand_on(links)
                .map_err(|source| SetupError::StanceLink { config: self.config_file.display().to_string(), source })?;
        }
        Ok(controller)
    }

    /// The collision world of the robot and the configured environment (loads meshes).
    pub fn collision_world(&self) -> Result<CollisionWorld, SetupError> {
        CollisionWorld::new(&self.model, &self.config.environment.description(), &self.config.collision.settings())
            .map_err(|source| SetupError::Collision { config: self.config_file.display().to_string(), source })
    }
}

/// Adds the free bodies of `sim.bodies` (`bodies`, from the configuration file `file`) to
/// `world`, each a uniform solid of its shape at its initial pose and velocity (the world
/// velocity turned into the body frame); an error names the key `sim.bodies[i]`.
pub fn add_bodies(world: &mut World, bodies: &[BodyConfig], file: &str) -> Result<(), ConfigError> {
    for (i, b) in bodies.iter().enumerate() {
        let (mass, name) = (b.mass.get(), b.name.as_str());
        let (body, shape) = match b.shape {
            BodyShape::Box { size } => {
                let half = Vec3::from(size.map(|v| v.get() / 2.0));
                (FreeBody::cuboid(name, mass, &half), CollisionShape::cuboid(half))
            }
            BodyShape::Sphere { radius } => {
                (FreeBody::ball(name, mass, radius.get()), CollisionShape::sphere(radius.get()))
            }
            BodyShape::Cylinder { radius, length } => (
                FreeBody::cylinder(name, mass, radius.get(), length.get()),
                CollisionShape::cylinder(radius.get(), length.get() / 2.0),
            ),
        };
        let body = body.map_err(|e| ConfigError::Invalid {
            file: file.to_owned(),
            key: format!("sim.bodies[{i}]"),
            message: e.reason,
        })?;
        let [r, p, y] = b.rpy.map(|v| v.get());
        let pose = SE3::new(rotation_from_rpy(r, p, y), Vec3::from(b.position.map(|v| v.get())));
        let velocity = pose.rotation.transpose() * Vec3::from(b.velocity.map(|v| v.get()));
        let shape = FreeBodyShape {
            name: b.name.clone(),
            shape: Arc::new(shape),
            placement: SE3::IDENTITY,
            friction: b.friction.get(),
            restitution: b.restitution.get(),
        };
        world.add_body(body, &[shape], FreeBodyState { pose, velocity: Motion::new(velocity, Vec3::zeros()) });
    }
    Ok(())
}
