//! # signorini
//!
//! Real-time frictional contact simulation and proximal inverse dynamics for ROS 2 robots.
//!
//! The crate is a library and one binary (`signorini`). Layers, from the bottom:
//!
//! - [`model`]: the robot read from URDF.
//! - [`runtime`]: the fixed-rate real-time loop, its statistics, watchdog and the
//!   wait-free exchanges with the I/O side. Nothing below [`ros`] knows ROS exists.
//! - [`sim`]: what the loop runs.
//! - [`config`] and [`setup`]: the YAML configuration and what is built from it.
//! - `ros` (feature `ros`): the r2r node around the loop.
#![warn(missing_docs)]

pub mod config;
pub mod model;
#[cfg(feature = "ros")]
pub mod ros;
pub mod runtime;
pub mod setup;
pub mod sim;
