//! Samples leaving the loop.

/// The robot's joints at one instant, in configured joint order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct JointStateSample {
    /// Simulation time of the sample (ns since the simulation started).
    pub sim_time_ns: u64,
    /// Positions (rad or m).
    pub position: Vec<f64>,
    /// Velocities (rad/s or m/s).
    pub velocity: Vec<f64>,
    /// Efforts applied (N·m or N).
    pub effort: Vec<f64>,
}

impl JointStateSample {
    /// A sample for `n` joints, all zero.
    pub fn zeros(n: usize) -> Self {
        Self { sim_time_ns: 0, position: vec![0.0; n], velocity: vec![0.0; n], effort: vec![0.0; n] }
    }
}
