//! `sim:` — what the simulator adds to the robot: where its floating base starts, the
//! joint PD that holds the initial posture when no effort command drives it, the free
//! rigid bodies, and the time step.

use serde::{Deserialize, Serialize};

use super::scene::{NonNegativeF64, one, zero, zero3};
use super::values::{FiniteF64, PositiveF64, RealtimeFactor};

/// `sim:`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of simulation settings")]
pub struct SimConfig {
    /// Time step (s). Default: the loop period, 1/`rate_hz`.
    pub dt: Option<PositiveF64>,
    /// Floating base position (m). Default: above the origin, lowered until the robot's
    /// lowest collision shape touches z = 0.
    pub base_position: Option<[FiniteF64; 3]>,
    /// Floating base orientation, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub base_rpy: [FiniteF64; 3],
    /// Joint PD towards the initial posture, applied when no effort command is (the
    /// headless `signorini sim`): τ = kp (q₀ − q) − kd v. 0 (default): zero effort.
    #[serde(default = "zero")]
    pub hold_kp: NonNegativeF64,
    /// Its damping gain (N·m·s/rad).
    #[serde(default = "zero")]
    pub hold_kd: NonNegativeF64,
    /// Free rigid bodies.
    pub bodies: Vec<BodyConfig>,
    /// The node's pace (`mode: sim`, `sim+control`): simulated seconds per wall second,
    /// or `max` (as fast as possible). The loop then runs at realtime_factor / `dt`.
    /// Default 1.
    pub realtime_factor: RealtimeFactor,
    /// Publish the state (and /clock) every this many steps. Default 1.
    pub publish_every: std::num::NonZeroUsize,
    /// How far behind the wall clock (s) a paced simulation may fall after a stall and
    /// still catch up by running the missed steps back to back; beyond, they are skipped
    /// and simulated time falls behind. 0: always skip. Default 0.1.
    pub catch_up: NonNegativeF64,
    /// What the node does when the simulated state stops being finite: `reset` (to the
    /// initial state; time runs on) or `halt` (stop stepping until `~/reset`). Default
    /// `reset`.
    pub on_non_finite: NonFinitePolicy,
}

/// What the node does with a simulated state that stopped being finite.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NonFinitePolicy {
    /// Back to the initial state, counted; the simulation runs on.
    #[default]
    Reset,
    /// The simulation stops stepping and publishing (the node stays up) until `~/reset`.
    Halt,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            dt: None,
            base_position: None,
            base_rpy: zero3(),
            hold_kp: zero(),
            hold_kd: zero(),
            bodies: Vec::new(),
            realtime_factor: RealtimeFactor::default(),
            publish_every: std::num::NonZeroUsize::MIN,
            catch_up: NonNegativeF64::new(0.1).expect("non-negative"),
            on_non_finite: NonFinitePolicy::Reset,
        }
    }
}

/// A free body's shape.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    tag = "type",
    rename_all = "lowercase",
    deny_unknown_fields,
    expecting = "a shape: {type: box, size: [x, y, z]}, {type: sphere, radius: r} or {type: cylinder, radius: r, length: l}"
)]
pub enum BodyShape {
    /// A box of full side lengths `size` (m).
    Box {
        /// Side lengths.
        size: [PositiveF64; 3],
    },
    /// A ball.
    Sphere {
        /// Radius (m).
        radius: PositiveF64,
    },
    /// A cylinder along its z axis.
    Cylinder {
        /// Radius (m).
        radius: PositiveF64,
        /// Length (m).
        length: PositiveF64,
    },
}

/// One free rigid body: a uniform solid.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of body settings (name, shape, mass, position, rpy, velocity, friction, restitution)"
)]
pub struct BodyConfig {
    /// Name (its odometry topic is `/<name>/odom`).
    pub name: String,
    /// Shape.
    pub shape: BodyShape,
    /// Mass (kg).
    pub mass: PositiveF64,
    /// Initial position of its centre (m).
    pub position: [FiniteF64; 3],
    /// Initial orientation, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub rpy: [FiniteF64; 3],
    /// Initial linear velocity (m/s, world). Default 0.
    #[serde(default = "zero3")]
    pub velocity: [FiniteF64; 3],
    /// Coulomb friction coefficient. Default 1.
    #[serde(default = "one")]
    pub friction: NonNegativeF64,
    /// Restitution. Default 0.
    #[serde(default = "zero")]
    pub restitution: NonNegativeF64,
}
