//! `joint_commands:` — per-joint commands on a sensor_msgs/JointState topic, as
//! ros2_control's `JointStateTopicSystem` publishes them: which interface each joint takes
//! (position, velocity or effort) and the gains of the simulator's servos
//! ([`crate::sim::servo`]). Checked against the robot by [`crate::app::Setup`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::scene::{NonNegativeF64, zero};
use super::values::TopicName;

/// `joint_commands:`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of joint command settings")]
pub struct JointCommandsConfig {
    /// The sensor_msgs/JointState command topic (`/robot_joint_commands`, the default
    /// `joint_commands_topic` of JointStateTopicSystem); `""` subscribes to none.
    #[serde(with = "super::optional_topic")]
    pub topic: Option<TopicName>,
    /// The interface of each joint by name; unlisted joints take `effort`.
    pub interfaces: BTreeMap<String, InterfaceName>,
    /// The position servos' gains: `default` and per joint.
    pub position_gains: BTreeMap<String, PositionGains>,
    /// The velocity servos' gains: `default` and per joint.
    pub velocity_gains: BTreeMap<String, VelocityGains>,
}

/// A ros2_control command interface name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InterfaceName {
    /// `position`.
    Position,
    /// `velocity`.
    Velocity,
    /// `effort`.
    Effort,
}

/// A position servo's PID gains.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of position gains (kp, kd, ki)")]
pub struct PositionGains {
    /// N·m/rad (N/m).
    pub kp: NonNegativeF64,
    /// N·m·s/rad (N·s/m). Default 0.
    #[serde(default = "zero")]
    pub kd: NonNegativeF64,
    /// N·m/(rad·s) (N/(m·s)). Default 0.
    #[serde(default = "zero")]
    pub ki: NonNegativeF64,
}

/// A velocity servo's PI gains.
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of velocity gains (kp, ki)")]
pub struct VelocityGains {
    /// N·m·s/rad (N·s/m).
    pub kp: NonNegativeF64,
    /// N·m/rad (N/m). Default 0.
    #[serde(default = "zero")]
    pub ki: NonNegativeF64,
}

/// The key of the gains every joint without its own takes.
pub const DEFAULT_GAINS: &str = "default";

impl Default for JointCommandsConfig {
    fn default() -> Self {
        Self {
            topic: Some(TopicName::new("/robot_joint_commands").expect("a valid topic")),
            interfaces: BTreeMap::new(),
            position_gains: BTreeMap::new(),
            velocity_gains: BTreeMap::new(),
        }
    }
}
