//! The robot model. For now: the validated kinematic tree read from URDF (links, joints,
//! limits, Pinocchio's joint order).

pub mod urdf;

pub use urdf::{JointDescription, JointKind, JointLimits, RobotDescription, UrdfError, UrdfErrorKind};
