//! What the node and the CLI build at start-up: the configuration, the robot it names, and
//! the joint list checked against that robot.

use std::path::{Path, PathBuf};

use crate::collision::{CollisionError, CollisionWorld};
use crate::config::{Config, ConfigError, MimicJoints};
use crate::model::{MimicPolicy, Model, ModelError, ModelOptions, RobotDescription, UrdfError};

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
    /// The URDF given as text (the `robot_description` parameter).
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
}

impl Setup {
    /// Loads `config_file` and its robot. `robot_description` (URDF text, e.g. from the ROS
    /// parameter of that name) replaces the URDF file named in the configuration.
    pub fn load(config_file: &Path, robot_description: Option<&str>) -> Result<Self, SetupError> {
        let config = Config::from_file(config_file)?;
        let mimic = match config.robot.mimic_joints {
            MimicJoints::Error => MimicPolicy::Error,
            MimicJoints::Independent => MimicPolicy::Independent,
        };
        let robot = match robot_description {
            Some(xml) => RobotDescription::from_xml_with(xml, "parameter robot_description", mimic)?,
            None => RobotDescription::from_file_with(&config.robot.urdf, mimic)
                .map_err(|source| SetupError::UrdfFile { config: config_file.display().to_string(), source })?,
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
        let mut initial_positions = vec![0.0; joint_names.len()];
        for (name, value) in &config.robot.initial_posture {
            let key = format!("robot.initial_posture.{name}");
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
            initial_positions[i] = value.get();
        }
        Ok(Self { config_file: config_file.to_owned(), config, robot, model, joint_names, initial_positions })
    }

    /// The collision world of the robot and the configured environment (loads meshes).
    pub fn collision_world(&self) -> Result<CollisionWorld, SetupError> {
        CollisionWorld::new(&self.model, &self.config.environment, &self.config.collision)
            .map_err(|source| SetupError::Collision { config: self.config_file.display().to_string(), source })
    }
}
