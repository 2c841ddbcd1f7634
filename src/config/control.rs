//! `control:` — the inverse-dynamics controller ([`crate::control::Controller`]): its
//! gains, the stance projection, and the posture it holds.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::scene::NonNegativeF64;
use super::values::{FiniteF64, PositiveF64};
use crate::control::ControllerSettings;

/// `control:` (defaults in the field docs: [`ControllerSettings::default`]).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of controller settings")]
pub struct ControlConfig {
    /// Joint stiffness of the reference acceleration (1/s²). 400.
    pub kp: NonNegativeF64,
    /// Joint damping (1/s). 40.
    pub kd: NonNegativeF64,
    /// Floating base pose stiffness (1/s²). 400.
    pub base_kp: NonNegativeF64,
    /// Floating base damping (1/s). 40.
    pub base_kd: NonNegativeF64,
    /// Weight of the joints against the base's 1 in the stance projection (small: the
    /// legs follow the body). 1e-3.
    pub joint_weight: PositiveF64,
    /// Contacts closer than this (m) are stance contacts, kept still. 1e-6.
    pub stance_gap: NonNegativeF64,
    /// The rate (1/s) at which the reference damps the measured velocity of a stance
    /// contact (a real robot's soft, noisy feet: not stopped within one step). 40.
    pub stance_damping: NonNegativeF64,
    /// Contact points of one link closer than this (m) to a deeper one are one contact:
    /// a round foot's hull facet. 0.005.
    pub patch_radius: NonNegativeF64,
    /// A tick predicting a contact force above this (N) is refused and the safe output
    /// applies (a numerical blow-up, never a physical answer). Default: ten times the
    /// robot's weight.
    pub max_contact_force: Option<PositiveF64>,
    /// A JointState and the floating base's odometry are one state when their stamps are
    /// at most this far apart (s; a state estimator stamps on its own clock). Default:
    /// half the loop period.
    pub pairing_tolerance: Option<PositiveF64>,
    /// A stance contact the reference puts more than this (m) above where it is, in the
    /// world and relative to the floating base, leaves the stance (a foot taking a step).
    /// 0.02.
    pub release_height: NonNegativeF64,
    /// The links the robot stands on (its feet). Only their touching contacts are stance
    /// contacts, held still; another link's contact (the body, a knee) only keeps the
    /// reference from pushing it into the ground, so a robot lying on the ground is raised
    /// off it instead of held there. Default: every link.
    pub stance_links: Option<Vec<String>>,
    /// The posture reference: joint positions (rad or m) by joint name. Unlisted joints:
    /// `robot.initial_posture`, then 0.
    pub posture: BTreeMap<String, FiniteF64>,
    /// What the node commands while the measured state is stale (`watchdog`) or a tick
    /// fails: `zero` torque (default), `damping` (−`safe_damping`·v at the last measured
    /// velocity) or `gravity` (the gravity torques at the last measured configuration).
    pub safe_output: SafeOutput,
    /// The damping of `safe_output: damping` (N·m·s/rad or N·s/m). 1.
    pub safe_damping: NonNegativeF64,
}

/// `control.safe_output`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SafeOutput {
    /// Zero torque: the drives' own behaviour applies.
    #[default]
    Zero,
    /// τ = −D·v at the last measured velocity: brakes the motion the robot had.
    Damping,
    /// τ = g(q) at the last measured configuration: holds a robot that stands still.
    Gravity,
}

impl std::fmt::Display for SafeOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Zero => "zero torque",
            Self::Damping => "damping",
            Self::Gravity => "gravity hold",
        })
    }
}

impl Default for ControlConfig {
    fn default() -> Self {
        let d = ControllerSettings::default();
        let nn = |x| NonNegativeF64::new(x).expect("a non-negative default");
        Self {
            kp: nn(d.kp),
            kd: nn(d.kd),
            base_kp: nn(d.base_kp),
            base_kd: nn(d.base_kd),
            joint_weight: PositiveF64::new(d.joint_weight).expect("positive"),
            stance_gap: nn(d.stance_gap),
            stance_damping: nn(d.stance_damping),
            patch_radius: nn(d.patch_radius),
            max_contact_force: None,
            pairing_tolerance: None,
            release_height: nn(d.release_height),
            stance_links: None,
            posture: BTreeMap::new(),
            safe_output: SafeOutput::Zero,
            safe_damping: nn(1.0),
        }
    }
}

impl ControlConfig {
    /// The controller's gains and stance settings.
    pub fn settings(&self) -> ControllerSettings {
        ControllerSettings {
            kp: self.kp.get(),
            kd: self.kd.get(),
            base_kp: self.base_kp.get(),
            base_kd: self.base_kd.get(),
            joint_weight: self.joint_weight.get(),
            stance_gap: self.stance_gap.get(),
            stance_damping: self.stance_damping.get(),
            patch_radius: self.patch_radius.get(),
            max_contact_force: self.max_contact_force.map(|f| f.get()),
            release_height: self.release_height.get(),
        }
    }
}
