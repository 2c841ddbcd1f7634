//! # signorini
//!
//! Real-time frictional contact simulation and proximal inverse dynamics for ROS 2 robots.
//!
//! The crate is a library and one binary (`signorini`). Layers, from the bottom:
//!
//! - [`spatial`]: 6-D spatial algebra (SE3, motions, forces, inertias).
//! - [`model`]: the robot read from URDF: Model (immutable) and Data (buffers).
//! - [`dynamics`]: kinematics, RNEA, CRBA, ABA, Jacobians, LTDL, integration.
//! - [`collision`]: collision shapes, the environment, contact detection.
//! - [`contact`]: the frictional contact problem and its solvers.
//! - [`runtime`]: the fixed-rate real-time loop, its statistics, watchdog and the
//!   wait-free exchanges with the I/O side. Nothing below `ros` knows ROS exists.
//! - [`sim`]: what the loop runs.
//! - [`control`]: contact-aware inverse dynamics.
//! - [`config`]: the YAML configuration, read into the cores' settings.
//! - [`app`]: start-up, the loop jobs and one loop assembly per mode (no ROS).
//! - [`sampling`]: deterministic pseudo-random inputs (property tests, benchmarks);
//!   [`scratch`]: private temporary directories.
//! - [`scenes`]: the scenes of the tests, the benches and `signorini bench`, built on the
//!   cores alone.
//! - `bench` (feature `tools`): every contact solver on the scenario suite (`signorini
//!   bench`).
//! - `cli` (feature `tools`): the logic of the command-line tools.
//! - `ros` (feature `ros`): the r2r node around the loop.
//!
//! Features: `ros` (the node) and `tools` (the command-line tools and the figures of
//! `signorini bench`; the `signorini` binary needs it), both default. Without them
//! (`--no-default-features`) the crate is the library alone.
#![warn(missing_docs)]

pub mod app;
pub mod bag;
#[cfg(feature = "tools")]
pub mod bench;
#[cfg(feature = "tools")]
pub mod cli;
pub mod collision;
pub mod config;
pub mod contact;
pub mod control;
pub mod dynamics;
pub mod model;
#[cfg(feature = "ros")]
pub mod ros;
pub mod runtime;
pub mod sampling;
pub mod scenes;
pub mod scratch;
pub mod sim;
pub mod spatial;
