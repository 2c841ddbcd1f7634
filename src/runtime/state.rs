//! Measured states entering the loop (joints, and a floating base's odometry), and their
//! validation at the edge (sensor_msgs/JointState semantics: joints by name, in any order, extra joints ignored).

use std::fmt;

/// Why a measured state was refused. Small and `Copy`, like [`super::CommandRejection`]:
/// [`StateRejection::describe`] names the joints when it is logged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StateRejection {
    /// A configured joint is not in the message (its index among the configured ones).
    MissingJoint {
        /// Index in the configured joints.
        configured: usize,
    },
    /// The position or velocity array does not have one entry per name.
    Lengths {
        /// Names in the message.
        names: usize,
        /// Positions.
        positions: usize,
        /// Velocities.
        velocities: usize,
    },
    /// A configured joint's position or velocity is NaN or infinite (its index in the
    /// message).
    NonFinite {
        /// Index in the message.
        index: usize,
    },
    /// A header stamp before the epoch or with nanoseconds beyond a second.
    Stamp {
        /// Seconds.
        sec: i32,
        /// Nanoseconds.
        nanosec: u32,
    },
}

impl StateRejection {
    /// The rejection in words, with the joints' names.
    pub fn describe(&self, configured: &[String], names: &[String]) -> String {
        let name = |list: &[String], i: usize| list.get(i).map_or("?", String::as_str).to_owned();
        match *self {
            Self::MissingJoint { configured: i } => format!("no joint `{}`", name(configured, i)),
            Self::NonFinite { index } => format!("joint `{}` is not finite", name(names, index)),
            other => other.to_string(),
        }
    }
}

impl fmt::Display for StateRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::MissingJoint { configured } => write!(f, "configured joint [{configured}] missing"),
            Self::Lengths { names, positions, velocities } => {
                write!(f, "{names} names, {positions} positions, {velocities} velocities")
            }
            Self::NonFinite { index } => write!(f, "joint [{index}] is not finite"),
            Self::Stamp { sec, nanosec } => write!(f, "stamp {sec} s {nanosec} ns is not a time"),
        }
    }
}

/// Finds every `configured` joint in the message's `names` (the first of repeated names)
/// into `index`, and checks that positions and velocities have one entry per name and are
/// finite for the configured joints. `index` has one slot per configured joint.
pub fn select_joints(
    configured: &[String],
    names: &[String],
    position: &[f64],
    velocity: &[f64],
    index: &mut [usize],
) -> Result<(), StateRejection> {
    for (k, (slot, name)) in index.iter_mut().zip(configured).enumerate() {
        *slot = names.iter().position(|n| n == name).ok_or(StateRejection::MissingJoint { configured: k })?;
    }
    if position.len() != names.len() || velocity.len() != names.len() {
        return Err(StateRejection::Lengths {
            names: names.len(),
            positions: position.len(),
            velocities: velocity.len(),
        });
    }
    match index.iter().find(|&&i| !(position[i].is_finite() && velocity[i].is_finite())) {
        Some(&index) => Err(StateRejection::NonFinite { index }),
        None => Ok(()),
    }
}

/// A builtin_interfaces/Time in nanoseconds; None before the epoch or with nanoseconds of
/// a second or more (a wrapped negative stamp would be a time far in the future).
pub fn stamp_ns(sec: i32, nanosec: u32) -> Option<u64> {
    (sec >= 0 && nanosec < 1_000_000_000).then(|| sec as u64 * 1_000_000_000 + u64::from(nanosec))
}

/// A pose and twist: position (3), quaternion (x, y, z, w), linear and angular velocity
/// in the body frame (3 + 3).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Odometry {
    /// Position in `world` (m).
    pub position: [f64; 3],
    /// Orientation, quaternion x, y, z, w.
    pub orientation: [f64; 4],
    /// Linear velocity, body frame (m/s).
    pub linear: [f64; 3],
    /// Angular velocity, body frame (rad/s).
    pub angular: [f64; 3],
}

impl Odometry {
    /// The floating base's (q and v of a model whose first joint is a free flyer).
    pub fn of_free_flyer(q: &[f64], v: &[f64]) -> Self {
        Self {
            position: [q[0], q[1], q[2]],
            orientation: [q[3], q[4], q[5], q[6]],
            linear: [v[0], v[1], v[2]],
            angular: [v[3], v[4], v[5]],
        }
    }
}

/// A measured state: the controlled joints (configured order) and, for a floating base,
/// its odometry (pose in `world`, twist in the base frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeasuredState {
    /// Simulated or robot time of the measurement (ns).
    pub time_ns: u64,
    /// Joint positions (rad or m).
    pub position: Vec<f64>,
    /// Joint velocities.
    pub velocity: Vec<f64>,
    /// The floating base, once an odometry message came (None: not yet, or no base).
    pub base: Option<Odometry>,
}

impl MeasuredState {
    /// An empty state (never measured) of `n` joints.
    pub fn of_joints(n: usize) -> Self {
        Self { time_ns: 0, position: vec![0.0; n], velocity: vec![0.0; n], base: None }
    }
}

/// How far a base pose reference's quaternion norm may be off 1 and still be a rotation.
pub const POSE_QUATERNION_TOLERANCE: f64 = 1e-3;

/// A floating base's pose reference from outside (x, y, z, qx, qy, qz, qw in `world`):
/// None if anything is NaN or infinite or the quaternion's norm is off 1 by more than
/// [`POSE_QUATERNION_TOLERANCE`]; otherwise the pose with its quaternion normalized.
pub fn base_pose(pose: [f64; 7]) -> Option<[f64; 7]> {
    let norm = pose[3..].iter().map(|x| x * x).sum::<f64>().sqrt();
    if !pose.iter().all(|x| x.is_finite()) || (norm - 1.0).abs() > POSE_QUATERNION_TOLERANCE {
        return None;
    }
    let mut pose = pose;
    pose[3..].iter_mut().for_each(|x| *x /= norm);
    Some(pose)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn joints_by_name_in_any_order() {
        let configured = names(&["a", "b"]);
        let mut index = [0; 2];
        assert_eq!(
            select_joints(&configured, &names(&["x", "b", "a"]), &[0.0, 1.0, 2.0], &[0.0; 3], &mut index),
            Ok(())
        );
        assert_eq!(index, [2, 1]);
        let e = select_joints(&configured, &names(&["b"]), &[1.0], &[0.0], &mut index).unwrap_err();
        assert_eq!(e.describe(&configured, &names(&["b"])), "no joint `a`");
        let e = select_joints(&configured, &names(&["a", "b"]), &[1.0], &[0.0, 0.0], &mut index).unwrap_err();
        assert_eq!(e.to_string(), "2 names, 1 positions, 2 velocities");
        let msg = names(&["a", "b"]);
        let e = select_joints(&configured, &msg, &[1.0, f64::NAN], &[0.0, 0.0], &mut index).unwrap_err();
        assert_eq!(e.describe(&configured, &msg), "joint `b` is not finite");
        // A NaN on a joint that is not configured does not matter.
        let msg = names(&["a", "c", "b"]);
        assert_eq!(select_joints(&configured, &msg, &[1.0, f64::NAN, 2.0], &[0.0; 3], &mut index), Ok(()));
    }

    #[test]
    fn a_base_pose_is_finite_with_a_unit_quaternion_and_comes_out_normalized() {
        let p = base_pose([1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0005]).expect("within the tolerance");
        assert_eq!(p[..3], [1.0, 2.0, 3.0]);
        assert!((p[6] - 1.0).abs() < 1e-15);
        assert_eq!(base_pose([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.002]), None);
        assert_eq!(base_pose([0.0; 7]), None);
        assert_eq!(base_pose([f64::NAN, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]), None);
        assert_eq!(base_pose([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, f64::INFINITY]), None);
    }

    #[test]
    fn stamps_before_the_epoch_are_not_times() {
        assert_eq!(stamp_ns(1, 5), Some(1_000_000_005));
        assert_eq!(stamp_ns(-1, 0), None);
        assert_eq!(stamp_ns(0, 1_000_000_000), None);
        assert_eq!(stamp_ns(i32::MAX, 999_999_999), Some(i32::MAX as u64 * 1_000_000_000 + 999_999_999));
    }
}
