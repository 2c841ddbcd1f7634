//! Simulation: the world (robot, free bodies, environment) and the time stepper, and the
//! loop job of the foundation slice, which holds the posture.

pub mod hold_posture;
pub mod stepper;
pub mod world;

pub use hold_posture::HoldPostureJob;
pub use stepper::{StepReport, Stepper};
pub use world::{Robot, World, WorldError};
