//! Simulation: the world (robot, free bodies, environment) and the time stepper, the joint
//! PD that stands in for a controller, and the loop job of the foundation slice, which
//! holds the posture.

pub mod hold_posture;
pub mod joint_pd;
pub mod stepper;
pub mod world;

pub use hold_posture::HoldPostureJob;
pub use joint_pd::JointPd;
pub use stepper::{StepReport, Stepper};
pub use world::{Robot, World, WorldError};
