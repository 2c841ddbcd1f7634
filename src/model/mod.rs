//! The robot model: the validated URDF description, the immutable multibody [`Model`]
//! built from it (Pinocchio's conventions and joint order), and the [`Data`] every
//! algorithm writes into.

mod append;
mod build;
mod data;
pub mod frame;
pub mod free_body;
pub mod geometry;
pub mod joint;
mod multibody;
pub mod srdf;
pub mod urdf;

pub use build::{MIN_BODY_INERTIA, ModelError, ModelOptions};
pub use data::Data;
pub use frame::{Frame, FrameKind};
pub use free_body::{FreeBody, FreeBodyError, FreeBodyState};
pub use geometry::{CollisionGeometry, Containment, PackageDirs, Shape, Unresolved};
pub use joint::{Axis, JointType};
pub use multibody::{Model, NO_PARENT};
pub use srdf::{Srdf, SrdfError};
pub use urdf::{
    CollisionDescription, JointDescription, JointDynamics, JointKind, JointLimits, LinkDescription, MimicPolicy,
    RobotDescription, UrdfError, UrdfErrorKind,
};
