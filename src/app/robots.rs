//! `robots:`: several robots in one simulation, as one model of several trees
//! ([`crate::model::Model::append`]: the numerics see one robot whose mass matrix is block
//! diagonal) and, for the I/O, one [`RobotView`] per robot saying which part of the
//! combined joints, configuration and frames is its own.
//!
//! Inside the simulation every joint, link and frame name of a robot is prefixed by its
//! namespace (`a/lf_hfe`): the combined `Setup::joint_names`, the external wrench targets,
//! `sensors:` links and /tf frames use these. On its own topics (`/<ns>/joint_states`,
//! `/<ns>/commands`) a robot's joints carry their URDF names, so one controller serves any
//! namespace.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use super::setup::{Setup, SetupError};
use crate::config::{Config, ConfigError, FiniteF64, MimicJoints, Mode, RobotEntry};
use crate::model::{MimicPolicy, Model, ModelOptions, RobotDescription};
use crate::spatial::{SE3, Vec3, rotation_from_rpy};

/// One robot of a configuration with `robots:`: its namespace and its part of the combined
/// model.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotView {
    /// Its namespace (topics `/<namespace>/...`, names `<namespace>/...`).
    pub namespace: String,
    /// Its controlled joints: a range of `Setup::joint_names` (and of every vector in that
    /// order: commands, JointState arrays).
    pub joints: Range<usize>,
    /// The same joints' URDF names (without the namespace), as its topics carry them.
    pub joint_names: Vec<String>,
    /// Its floating base's joint in the combined model, if it has one.
    pub base: Option<usize>,
    /// Its root link's name in the simulation (`<namespace>/<root link>`): its odometry's
    /// child frame.
    pub root_link: String,
    /// The configured base position (m), if any (else a floating base is put on the ground).
    pub base_position: Option<[f64; 3]>,
    /// The base orientation, roll-pitch-yaw (rad).
    pub base_rpy: [f64; 3],
}

impl RobotView {
    /// The topic `/<namespace>/<name>`.
    pub fn topic(&self, name: &str) -> String {
        format!("/{}/{name}", self.namespace)
    }
}

/// One robot loaded from its entry, before it joins the combined model.
struct Loaded {
    description: RobotDescription,
    model: Model,
    joints: Vec<String>,
    initial: Vec<f64>,
}

/// The configuration error of `key`.
fn invalid(file: &str, key: String, message: String) -> SetupError {
    SetupError::Config(ConfigError::Invalid { file: file.to_owned(), key, message })
}

/// The keys of `config` that `robots:` replaces or cannot run with: the single robot's
/// URDF, description topic, joints, posture and floating base, a base placement in `sim:`,
/// a mode other than `sim`, a namespace used twice or by a free body (both would publish
/// `/<name>/odom`).
fn check_keys(file: &str, config: &Config) -> Result<(), SetupError> {
    let r = &config.robot;
    let single = [
        ("robot.urdf", r.urdf.is_some()),
        ("robot.description_topic", r.description_topic.is_some()),
        ("robot.joints", r.joints.is_some()),
        ("robot.initial_posture", !r.initial_posture.is_empty()),
        ("robot.floating_base", r.floating_base),
        ("sim.base_position", config.sim.base_position.is_some()),
    ];
    if let Some((key, _)) = single.iter().find(|(_, set)| *set) {
        let message = "belongs to the single robot of `robot:`; with `robots:` give it in each entry".to_owned();
        return Err(invalid(file, (*key).to_owned(), message));
    }
    if config.mode != Mode::Sim {
        let message = format!("several robots are simulated in `mode: sim` only, got `mode: {}`", config.mode);
        return Err(invalid(file, "robots".to_owned(), message));
    }
    for (i, entry) in config.robots.iter().enumerate() {
        let ns = entry.namespace.as_str();
        let key = format!("robots[{i}].namespace");
        if config.robots[..i].iter().any(|e| e.namespace.as_str() == ns) {
            return Err(invalid(file, key, format!("namespace `{ns}` is used twice")));
        }
        if config.sim.bodies.iter().any(|b| b.name == ns) {
            let message =
                format!("namespace `{ns}` is also the name of a body of `sim.bodies` (both publish /{ns}/odom)");
            return Err(invalid(file, key, message));
        }
    }
    Ok(())
}

/// Entry `i`'s URDF, model, controlled joints and initial positions, checked (keys named
/// `robots[i]...`).
fn load(file: &str, config: &Config, i: usize, entry: &RobotEntry) -> Result<Loaded, SetupError> {
    let mimic = match config.robot.mimic_joints {
        MimicJoints::Error => MimicPolicy::Error,
        MimicJoints::Independent => MimicPolicy::Independent,
    };
    let description = RobotDescription::from_file_with(&entry.urdf, mimic)
        .map_err(|source| invalid(file, format!("robots[{i}].urdf"), source.to_string()))?;
    let options = ModelOptions {
        floating_base: entry.floating_base,
        mimic,
        package_dirs: config.robot.package_dirs.clone(),
        skip_meshes: false,
        allow_invalid_inertia: config.robot.allow_invalid_inertia,
        mesh_paths: config.robot.mesh_paths(),
    };
    let model = Model::from_description(&description, &options)
        .map_err(|e| invalid(file, format!("robots[{i}].urdf"), e.to_string()))?;
    super::setup::check_mass_matrix(&model, model.neutral_configuration().as_slice()).map_err(|e| {
        invalid(
            file,
            format!("robots[{i}].urdf"),
            format!("{}: {e} (at the neutral configuration)", description.origin),
        )
    })?;
    let movable: Vec<&str> = description.movable_joints().map(|j| j.name.as_str()).collect();
    let joints: Vec<String> = match &entry.joints {
        None => movable.iter().map(|s| (*s).to_owned()).collect(),
        Some(list) => {
            for (k, name) in list.iter().enumerate() {
                let key = format!("robots[{i}].joints[{k}]");
                if !movable.contains(&name.as_str()) {
                    let expected = format!("a revolute, continuous or prismatic joint of {}", description.origin);
                    return Err(invalid(
                        file,
                        key,
                        format!("expected {expected} (one of {}), got `{name}`", movable.join(", ")),
                    ));
                }
                if list[..k].contains(name) {
                    return Err(invalid(file, key, format!("joint `{name}` is listed twice")));
                }
            }
            list.clone()
        }
    };
    let initial = initial_positions(file, i, &entry.initial_posture, &joints, &description)?;
    Ok(Loaded { description, model, joints, initial })
}

/// The initial positions of `joints` from `posture` (URDF names), within the URDF limits.
fn initial_positions(
    file: &str,
    i: usize,
    posture: &BTreeMap<String, FiniteF64>,
    joints: &[String],
    description: &RobotDescription,
) -> Result<Vec<f64>, SetupError> {
    let mut positions = vec![0.0; joints.len()];
    for (name, value) in posture {
        let key = format!("robots[{i}].initial_posture.{name}");
        let Some(k) = joints.iter().position(|j| j == name) else {
            let message =
                format!("expected one of the robot's controlled joints ({}), got `{name}`", joints.join(", "));
            return Err(invalid(file, key, message));
        };
        if let Some(l) = description.joint(name).map(|j| j.limits)
            && !(l.lower..=l.upper).contains(&value.get())
        {
            let message =
                format!("expected a position within the URDF limits [{}, {}], got {}", l.lower, l.upper, value.get());
            return Err(invalid(file, key, message));
        }
        positions[k] = value.get();
    }
    Ok(positions)
}

impl Setup {
    /// The robots of `config.robots` as one model (each robot's names prefixed by its
    /// namespace; a fixed base at its configured placement, a floating base's placement in
    /// the initial configuration), its views, and the combined joint list and posture.
    pub fn several(config_file: &Path, config: Config) -> Result<Self, SetupError> {
        let file = config_file.display().to_string();
        check_keys(&file, &config)?;
        let mut loaded = Vec::with_capacity(config.robots.len());
        for (i, entry) in config.robots.iter().enumerate() {
            loaded.push(load(&file, &config, i, entry)?);
        }
        let mut model = Model::universe("robots");
        let (mut robots, mut joint_names, mut initial_positions) = (Vec::new(), Vec::new(), Vec::new());
        for (i, (entry, robot)) in config.robots.iter().zip(&loaded).enumerate() {
            let ns = entry.namespace.as_str();
            let base_position = entry.base_position.map(|p| p.map(|v| v.get()));
            let base_rpy = entry.base_rpy.map(|v| v.get());
            let [r, p, y] = base_rpy;
            let placement = SE3::new(rotation_from_rpy(r, p, y), Vec3::from(base_position.unwrap_or([0.0; 3])));
            let floating = robot.model.floating_roots().next().is_some();
            let first_joint = model.njoints();
            model =
                model.append(&robot.model, i, &format!("{ns}/"), if floating { &SE3::IDENTITY } else { &placement });
            let start = joint_names.len();
            joint_names.extend(robot.joints.iter().map(|j| format!("{ns}/{j}")));
            initial_positions.extend_from_slice(&robot.initial);
            robots.push(RobotView {
                namespace: ns.to_owned(),
                joints: start..joint_names.len(),
                joint_names: robot.joints.clone(),
                base: floating.then_some(first_joint),
                root_link: format!("{ns}/{}", robot.description.root_link()),
                base_position,
                base_rpy,
            });
        }
        let sensors = config.sensors.settings(&model, config.sim_dt(), &file)?;
        let description = loaded.swap_remove(0).description;
        let setup = Self {
            config_file: config_file.to_owned(),
            config,
            robot: description,
            model,
            posture_positions: initial_positions.clone(),
            joint_names,
            initial_positions,
            sensors,
            robots,
        };
        setup.joint_servos()?;
        Ok(setup)
    }
}
