//! The controller's measured state from its two sources: sensor_msgs/JointState (the
//! joints, [`super::select_joints`]) and, for a floating base, nav_msgs/Odometry of a
//! state estimator (pose in the odometry frame, twist in the base frame, REP-105).
//!
//! The two arrive separately and an estimator stamps its odometry on its own clock, so
//! a JointState is paired with the odometry whose stamp is nearest its own within
//! `tolerance` (a state whose base and joints are from different instants puts the feet
//! where they are not). A JointState that finds none waits for the next odometry; one
//! that can no longer be paired (a newer JointState came, or odometry beyond the
//! tolerance) is given up and counted. Odometry whose stamp is not a time, which holds a
//! NaN or an infinity, or whose quaternion is not a rotation (its norm off by more than
//! [`QUATERNION_NORM_TOLERANCE`]) is refused; the others are normalized (an estimator's
//! rounding). Nothing allocates per message.

use std::collections::VecDeque;
use std::fmt;
use std::time::Duration;

use super::state::{MeasuredState, Odometry};
use super::state::{StateRejection, select_joints, stamp_ns};

/// An odometry quaternion whose norm is off 1 by more than this is not an orientation.
pub const QUATERNION_NORM_TOLERANCE: f64 = 0.01;

/// Recent odometry kept for pairing.
const RECENT_ODOMETRY: usize = 64;

/// Why an odometry message was refused.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum OdometryRejection {
    /// A header stamp before the epoch or with nanoseconds beyond a second.
    Stamp {
        /// Seconds.
        sec: i32,
        /// Nanoseconds.
        nanosec: u32,
    },
    /// A NaN or an infinity in the pose or the twist.
    NonFinite,
    /// The orientation quaternion's norm is not 1 (to [`QUATERNION_NORM_TOLERANCE`]).
    NotARotation {
        /// Its norm.
        norm: f64,
    },
}

impl fmt::Display for OdometryRejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::Stamp { sec, nanosec } => write!(f, "stamp {sec} s {nanosec} ns is not a time"),
            Self::NonFinite => f.write_str("a pose or twist value is not finite"),
            Self::NotARotation { norm } => write!(f, "orientation quaternion of norm {norm:.6}, not a rotation"),
        }
    }
}

/// What a message did to the assembly.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Assembled {
    /// The output holds a new complete state.
    pub ready: bool,
    /// JointStates given up on: no odometry within the tolerance came for them.
    pub unpaired: u32,
}

/// Pairs JointStates with odometry (see the module).
#[derive(Debug)]
pub struct StateAssembly {
    configured: Vec<String>,
    floating: bool,
    tolerance_ns: u64,
    /// Per configured joint, its index in the last JointState.
    index: Vec<usize>,
    /// Recent odometry by stamp (ns), oldest first.
    bases: VecDeque<(u64, Odometry)>,
    /// A JointState waiting for its odometry (`waiting`), its base not yet set.
    pending: MeasuredState,
    waiting: bool,
}

impl StateAssembly {
    /// An assembly of the `configured` joints (the state's order), with odometry for a
    /// `floating` base paired within `tolerance`.
    pub fn new(configured: Vec<String>, floating: bool, tolerance: Duration) -> Self {
        let n = configured.len();
        Self {
            index: vec![0; n],
            pending: MeasuredState::of_joints(n),
            configured,
            floating,
            tolerance_ns: tolerance.as_nanos().min(u128::from(u64::MAX)) as u64,
            bases: VecDeque::with_capacity(RECENT_ODOMETRY),
            waiting: false,
        }
    }

    /// The configured joints.
    pub fn joints(&self) -> &[String] {
        &self.configured
    }

    /// A JointState (header stamp, names, positions, velocities): refused as
    /// [`select_joints`] says, or taken; when it completes a state, `out` holds it.
    pub fn joint_state(
        &mut self,
        (sec, nanosec): (i32, u32),
        names: &[String],
        position: &[f64],
        velocity: &[f64],
        out: &mut MeasuredState,
    ) -> Result<Assembled, StateRejection> {
        let time_ns = stamp_ns(sec, nanosec).ok_or(StateRejection::Stamp { sec, nanosec })?;
        select_joints(&self.configured, names, position, velocity, &mut self.index)?;
        let mut assembled = Assembled { ready: false, unpaired: u32::from(self.waiting) };
        let state = &mut self.pending;
        state.time_ns = time_ns;
        for (k, &i) in self.index.iter().enumerate() {
            state.position[k] = position[i];
            state.velocity[k] = velocity[i];
        }
        state.base = None;
        self.waiting = self.floating;
        if !self.floating {
            out.clone_from(&self.pending);
            assembled.ready = true;
            return Ok(assembled);
        }
        assembled.ready = self.pair(out);
        Ok(assembled)
    }

    /// An odometry message (header stamp, the base's pose and twist): refused, or taken
    /// (normalized); when it completes a waiting JointState, `out` holds the state.
    pub fn odometry(
        &mut self,
        (sec, nanosec): (i32, u32),
        mut odometry: Odometry,
        out: &mut MeasuredState,
    ) -> Result<Assembled, OdometryRejection> {
        let time_ns = stamp_ns(sec, nanosec).ok_or(OdometryRejection::Stamp { sec, nanosec })?;
        let o = &odometry;
        if !o.position.iter().chain(&o.orientation).chain(&o.linear).chain(&o.angular).all(|x| x.is_finite()) {
            return Err(OdometryRejection::NonFinite);
        }
        let norm = o.orientation.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm.is_nan() || (norm - 1.0).abs() > QUATERNION_NORM_TOLERANCE {
            return Err(OdometryRejection::NotARotation { norm });
        }
        odometry.orientation.iter_mut().for_each(|x| *x /= norm);
        if !self.floating {
            return Ok(Assembled::default());
        }
        if self.bases.len() == RECENT_ODOMETRY {
            self.bases.pop_front();
        }
        self.bases.push_back((time_ns, odometry));
        let mut assembled = Assembled::default();
        if self.waiting {
            assembled.ready = self.pair(out);
            // Odometry beyond the tolerance after the waiting state: none will come nearer.
            if !assembled.ready && time_ns > self.pending.time_ns.saturating_add(self.tolerance_ns) {
                self.waiting = false;
                assembled.unpaired = 1;
            }
        }
        Ok(assembled)
    }

    /// Pairs the waiting JointState with the nearest odometry within the tolerance (the
    /// newer of two as near) into `out`; whether it did.
    fn pair(&mut self, out: &mut MeasuredState) -> bool {
        let t = self.pending.time_ns;
        let nearest = self
            .bases
            .iter()
            .rev()
            .map(|(s, b)| (s.abs_diff(t), b))
            .filter(|&(d, _)| d <= self.tolerance_ns)
            .min_by_key(|&(d, _)| d);
        let Some((_, base)) = nearest else { return false };
        self.pending.base = Some(*base);
        out.clone_from(&self.pending);
        self.waiting = false;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assembly(floating: bool) -> StateAssembly {
        StateAssembly::new(vec!["a".into(), "b".into()], floating, Duration::from_micros(500))
    }

    fn stamp(ns: u64) -> (i32, u32) {
        ((ns / 1_000_000_000) as i32, (ns % 1_000_000_000) as u32)
    }

    fn base(z: f64) -> Odometry {
        Odometry { position: [0.0, 0.0, z], orientation: [0.0, 0.0, 0.0, 1.0], ..Default::default() }
    }

    fn joints(s: &mut StateAssembly, ns: u64, out: &mut MeasuredState) -> Assembled {
        let names = vec!["b".to_owned(), "a".to_owned()];
        s.joint_state(stamp(ns), &names, &[2.0, 1.0], &[0.2, 0.1], out).unwrap()
    }

    #[test]
    fn a_fixed_base_needs_no_odometry() {
        let (mut s, mut out) = (assembly(false), MeasuredState::of_joints(2));
        assert_eq!(joints(&mut s, 7, &mut out), Assembled { ready: true, unpaired: 0 });
        assert_eq!(
            (out.time_ns, out.position.as_slice(), out.velocity.as_slice()),
            (7, &[1.0, 2.0][..], &[0.1, 0.2][..])
        );
        assert_eq!(out.base, None);
    }

    #[test]
    fn joints_pair_with_the_nearest_odometry_within_the_tolerance_in_either_order() {
        let (mut s, mut out) = (assembly(true), MeasuredState::of_joints(2));
        // Odometry first, stamped 0.3 ms later on the estimator's clock.
        s.odometry(stamp(1_000_300_000), base(1.0), &mut out).unwrap();
        assert!(joints(&mut s, 1_000_000_000, &mut out).ready);
        assert_eq!(out.base.unwrap().position[2], 1.0);
        // Joints first: they wait, and the odometry 0.4 ms earlier completes them.
        assert_eq!(joints(&mut s, 2_000_000_000, &mut out), Assembled { ready: false, unpaired: 0 });
        assert_eq!(
            s.odometry(stamp(1_999_600_000), base(2.0), &mut out).unwrap(),
            Assembled { ready: true, unpaired: 0 }
        );
        assert_eq!((out.time_ns, out.base.unwrap().position[2]), (2_000_000_000, 2.0));
        // Of two within the tolerance, the nearer.
        s.odometry(stamp(2_999_700_000), base(3.0), &mut out).unwrap();
        s.odometry(stamp(3_000_100_000), base(3.1), &mut out).unwrap();
        assert!(joints(&mut s, 3_000_000_000, &mut out).ready);
        assert_eq!(out.base.unwrap().position[2], 3.1);
    }

    #[test]
    fn joints_no_odometry_can_pair_are_counted_unpaired() {
        let (mut s, mut out) = (assembly(true), MeasuredState::of_joints(2));
        // The estimator's clock 0.6 ms off: beyond the 0.5 ms tolerance.
        assert!(!joints(&mut s, 1_000_000_000, &mut out).ready);
        // Odometry before the state but too early: it may still come; one after it and
        // beyond: it cannot.
        assert_eq!(s.odometry(stamp(999_400_000), base(1.0), &mut out).unwrap(), Assembled::default());
        assert_eq!(
            s.odometry(stamp(1_000_600_000), base(1.0), &mut out).unwrap(),
            Assembled { ready: false, unpaired: 1 }
        );
        // A waiting state replaced by a newer one is counted too.
        assert!(!joints(&mut s, 2_000_000_000, &mut out).ready);
        assert_eq!(joints(&mut s, 2_001_000_000, &mut out), Assembled { ready: false, unpaired: 1 });
        assert_eq!(out.time_ns, 0, "no state went out");
    }

    #[test]
    fn odometry_must_be_finite_stamped_and_a_rotation_and_is_normalized() {
        let (mut s, mut out) = (assembly(true), MeasuredState::of_joints(2));
        let mut o = base(1.0);
        o.linear[1] = f64::NAN;
        assert_eq!(s.odometry(stamp(5), o, &mut out), Err(OdometryRejection::NonFinite));
        assert_eq!(s.odometry((-1, 0), base(1.0), &mut out), Err(OdometryRejection::Stamp { sec: -1, nanosec: 0 }));
        let mut o = base(1.0);
        o.orientation = [0.0, 0.0, 0.0, 1.02];
        assert!(
            matches!(s.odometry(stamp(5), o, &mut out), Err(OdometryRejection::NotARotation { norm }) if (norm - 1.02).abs() < 1e-12)
        );
        o.orientation = [0.0; 4];
        assert!(matches!(s.odometry(stamp(5), o, &mut out), Err(OdometryRejection::NotARotation { .. })));
        // 0.5 % off: normalized.
        o.orientation = [0.0, 0.6 * 1.005, 0.0, 0.8 * 1.005];
        s.odometry(stamp(5), o, &mut out).unwrap();
        assert!(joints(&mut s, 5, &mut out).ready);
        let q = out.base.unwrap().orientation;
        assert!((q[1] - 0.6).abs() < 1e-15 && (q[3] - 0.8).abs() < 1e-15, "{q:?}");
    }

    #[test]
    fn bad_joint_states_are_refused_as_select_joints_says() {
        let (mut s, mut out) = (assembly(true), MeasuredState::of_joints(2));
        let names = vec!["a".to_owned()];
        assert_eq!(
            s.joint_state(stamp(1), &names, &[1.0], &[0.0], &mut out),
            Err(StateRejection::MissingJoint { configured: 1 })
        );
        let names = vec!["a".to_owned(), "b".to_owned()];
        assert_eq!(
            s.joint_state((3, 1_000_000_000), &names, &[1.0, 2.0], &[0.0, 0.0], &mut out),
            Err(StateRejection::Stamp { sec: 3, nanosec: 1_000_000_000 })
        );
    }
}
