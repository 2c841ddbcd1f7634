//! Simulation. For now the loop job of the foundation slice, which holds the posture.

pub mod hold_posture;

pub use hold_posture::HoldPostureJob;
