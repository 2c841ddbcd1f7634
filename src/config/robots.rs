//! `robots:`, several robots in one simulation, each under its own namespace.
//!
//! Each entry is a robot as `robot:` describes one (URDF, floating base, controlled joints,
//! initial posture) plus its namespace and, for a floating base, its placement (what
//! `sim.base_position` / `sim.base_rpy` are for a single robot). The settings of `robot:`
//! that are not about one robot (`package_dirs`, `mimic_joints`, `allow_invalid_inertia`)
//! apply to every entry; the single robot's keys must then be left out.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::scene::zero3;
use super::values::{FiniteF64, NameToken};

/// One entry of `robots:`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of robot settings (namespace, urdf, floating_base, ...)")]
pub struct RobotEntry {
    /// The robot's namespace: its topics are `/<namespace>/joint_states`, ...; its joint,
    /// link and frame names inside the simulation (external wrench targets, /tf frames,
    /// `sensors:` links) are `<namespace>/<name>`. Unique among the entries.
    pub namespace: NameToken,
    /// URDF file (relative to the configuration file).
    pub urdf: PathBuf,
    /// Add a free-flyer root joint to a fixed-root URDF (legged robots).
    #[serde(default)]
    pub floating_base: bool,
    /// The controlled joints (URDF names), in command and JointState order. Default:
    /// every revolute, continuous and prismatic joint in the URDF's depth-first order.
    #[serde(default)]
    pub joints: Option<Vec<String>>,
    /// Initial joint positions (rad or m) by URDF joint name; unlisted joints start at 0.
    #[serde(default)]
    pub initial_posture: BTreeMap<String, FiniteF64>,
    /// Floating base position (m), or a fixed base's placement. Default: the origin, a
    /// floating base lowered until its lowest collision shape touches the ground.
    #[serde(default)]
    pub base_position: Option<[FiniteF64; 3]>,
    /// Base orientation, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub base_rpy: [FiniteF64; 3],
}
