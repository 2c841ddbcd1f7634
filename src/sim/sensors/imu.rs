//! The inertial measurement unit: orientation, angular velocity and specific force of a
//! frame rigidly attached to a robot body, as `sensor_msgs/Imu` carries them.
//!
//! The accelerometer measures the specific force f = a_p − g (a_p the classical
//! acceleration of the sensor's origin in the world, g gravity), in the sensor frame: at
//! rest it reads +9.81 m/s² along the world's up axis. a_p is that of the step's
//! acceleration v̇ = (v⁺ − v)/Δt (the velocity change of the semi-implicit Euler step,
//! contact impulses included), at the state the step ended in (q⁺, v⁺): the classical
//! acceleration of a point is the spatial acceleration's linear part plus ω × v (Featherstone,
//! RBDA §2.11; Pinocchio's `getFrameClassicalAcceleration`; MuJoCo's accelerometer does the
//! same from its `qacc`).

use super::Mount;
use crate::model::{Data, Model};
use crate::sampling::Gaussian;

/// One IMU reading, in the sensor frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ImuReading {
    /// Orientation of the sensor frame in the world, quaternion (x, y, z, w).
    pub orientation: [f64; 4],
    /// Angular velocity (rad/s), sensor axes.
    pub angular_velocity: [f64; 3],
    /// Specific force a_p − g (m/s²), sensor axes.
    pub linear_acceleration: [f64; 3],
}

impl ImuReading {
    /// Whether every value is finite.
    pub fn is_finite(&self) -> bool {
        self.orientation.iter().chain(&self.angular_velocity).chain(&self.linear_acceleration).all(|x| x.is_finite())
    }
}

/// White noise and a constant bias on one three-axis channel: a reading x becomes
/// x + bias + σ·n, n ~ N(0, 1) per axis and sample.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ChannelNoise {
    /// Standard deviation per axis (≥ 0).
    pub std_dev: [f64; 3],
    /// Constant bias per axis.
    pub bias: [f64; 3],
}

impl ChannelNoise {
    /// Adds the bias and one draw of the noise from `rng` to `x`.
    pub fn apply(&self, x: &mut [f64; 3], rng: &mut Gaussian) {
        for ((x, bias), std_dev) in x.iter_mut().zip(&self.bias).zip(&self.std_dev) {
            *x += bias;
            if *std_dev > 0.0 {
                *x += std_dev * rng.next_normal();
            }
        }
    }

    /// The covariance matrix (row-major 3×3) of the noise: diag(σ²), as `sensor_msgs/Imu`
    /// carries it.
    pub fn covariance(&self) -> [f64; 9] {
        let mut c = [0.0; 9];
        for a in 0..3 {
            c[4 * a] = self.std_dev[a] * self.std_dev[a];
        }
        c
    }
}

/// An IMU's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ImuSettings {
    /// Name (the message's frame id).
    pub name: String,
    /// Where it is.
    pub mount: Mount,
    /// Measured every this many steps (≥ 1).
    pub every: u64,
    /// Gyroscope noise (rad/s).
    pub gyro: ChannelNoise,
    /// Accelerometer noise (m/s²).
    pub accel: ChannelNoise,
    /// Seed of the noise generator.
    pub seed: u64,
}

/// The noise-free reading of an IMU at `mount`, from `data` after
/// [`crate::dynamics::forward_kinematics_acceleration`] at (q⁺, v⁺, v̇) of the step.
pub fn measure(model: &Model, data: &Data, mount: &Mount) -> ImuReading {
    let placement = &mount.placement;
    let velocity = placement.act_inv_motion(&data.v[mount.joint]);
    let acceleration = placement.act_inv_motion(&data.a[mount.joint]);
    let world_from_sensor = data.o_m_i[mount.joint].compose(placement).rotation;
    let classical = acceleration.linear + velocity.angular.cross(&velocity.linear);
    let specific = classical - world_from_sensor.transpose() * model.gravity.linear;
    ImuReading {
        orientation: crate::model::joint::rotation_to_quaternion(&world_from_sensor),
        angular_velocity: velocity.angular.into(),
        linear_acceleration: specific.into(),
    }
}
