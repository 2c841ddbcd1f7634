//! Joint references: a trajectory with trajectory_msgs/JointTrajectory semantics, sampled
//! at any time.
//!
//! Points carry positions and, optionally, velocities and accelerations, at increasing
//! times from the start. Between two points the segment is the polynomial the given
//! derivatives determine, as ROS's joint_trajectory_controller does: linear with
//! positions only, cubic Hermite with velocities, quintic with accelerations too (a
//! derivative counts only when both ends give it). Before the first point the first is
//! held, after the last the last (velocity and acceleration zero).

use thiserror::Error;

/// A trajectory that cannot be followed, naming the point and the field.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ReferenceError {
    /// No point.
    #[error("a trajectory needs at least one point")]
    Empty,
    /// A field of the wrong size.
    #[error("point {point}: `{key}` has {found} values, expected {expected}")]
    Size {
        /// The point.
        point: usize,
        /// positions, velocities or accelerations.
        key: &'static str,
        /// The joints.
        expected: usize,
        /// What it has.
        found: usize,
    },
    /// A NaN or infinite value, or a time that does not increase.
    #[error("point {point}: `{key}` {reason}")]
    Value {
        /// The point.
        point: usize,
        /// The field.
        key: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// A joint name that is not one of the controlled joints, or named twice.
    #[error("`joint_names`: `{name}` {reason}")]
    Joint {
        /// The name.
        name: String,
        /// Unknown or repeated.
        reason: &'static str,
    },
}

/// One point (trajectory_msgs/JointTrajectoryPoint): velocities and accelerations empty
/// when not given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrajectoryPoint {
    /// Joint positions (rad or m).
    pub positions: Vec<f64>,
    /// Joint velocities, or empty.
    pub velocities: Vec<f64>,
    /// Joint accelerations, or empty.
    pub accelerations: Vec<f64>,
    /// Time from the start of the trajectory (s).
    pub time_from_start: f64,
}

/// A validated trajectory of a fixed number of joints.
#[derive(Clone, Debug, PartialEq)]
pub struct JointTrajectory {
    joints: usize,
    points: Vec<TrajectoryPoint>,
}

impl JointTrajectory {
    /// Checks `points`: sizes; values finite and within physical bounds (|position| and
    /// |velocity| ≤ 10⁶, |acceleration| ≤ 10⁹, in rad or m and per second); times within
    /// [0, 10⁷] s, each at least 1 µs after the previous one. The bounds keep every sample
    /// finite: a segment's polynomial divides by its duration.
    pub fn new(points: Vec<TrajectoryPoint>) -> Result<Self, ReferenceError> {
        let joints = points.first().ok_or(ReferenceError::Empty)?.positions.len();
        let mut last = f64::NEG_INFINITY;
        for (i, p) in points.iter().enumerate() {
            for (key, x, optional, bound, reason) in [
                ("positions", &p.positions, false, 1e6, "holds a NaN, an infinity or a magnitude above 1e6"),
                ("velocities", &p.velocities, true, 1e6, "holds a NaN, an infinity or a magnitude above 1e6"),
                ("accelerations", &p.accelerations, true, 1e9, "holds a NaN, an infinity or a magnitude above 1e9"),
            ] {
                if x.len() != joints && !(optional && x.is_empty()) {
                    return Err(ReferenceError::Size { point: i, key, expected: joints, found: x.len() });
                }
                if x.iter().any(|v| !(-bound..=bound).contains(v)) {
                    return Err(ReferenceError::Value { point: i, key, reason });
                }
            }
            let t = p.time_from_start;
            if !(0.0..=1e7).contains(&t) || t < last + 1e-6 {
                let reason = "must be within [0, 1e7] s and at least 1 µs after the previous point's";
                return Err(ReferenceError::Value { point: i, key: "time_from_start", reason });
            }
            last = t;
        }
        Ok(Self { joints, points })
    }

    /// A trajectory of the controlled joints `joints` from one that names its own joints
    /// (`names`, a subset in any order, as trajectory_msgs/JointTrajectory's
    /// `joint_names`): the joints it leaves out hold their position in `hold` (velocity
    /// and acceleration zero). Unknown and repeated names are refused by name, then the
    /// points as [`JointTrajectory::new`] checks them.
    pub fn for_joints(
        joints: &[String],
        hold: &[f64],
        names: &[String],
        points: &[TrajectoryPoint],
    ) -> Result<Self, ReferenceError> {
        let mut column = vec![None; joints.len()];
        for (k, name) in names.iter().enumerate() {
            let j = joints
                .iter()
                .position(|n| n == name)
                .ok_or_else(|| ReferenceError::Joint { name: name.clone(), reason: "is not a controlled joint" })?;
            if column[j].replace(k).is_some() {
                return Err(ReferenceError::Joint { name: name.clone(), reason: "is named twice" });
            }
        }
        let spread = |point: usize, key: &'static str, x: &[f64], fill: &dyn Fn(usize) -> f64| {
            if x.is_empty() && key != "positions" {
                return Ok(Vec::new());
            }
            if x.len() != names.len() {
                return Err(ReferenceError::Size { point, key, expected: names.len(), found: x.len() });
            }
            Ok(column.iter().enumerate().map(|(j, c)| c.map_or_else(|| fill(j), |k| x[k])).collect())
        };
        let points = points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                Ok(TrajectoryPoint {
                    positions: spread(i, "positions", &p.positions, &|j| hold[j])?,
                    velocities: spread(i, "velocities", &p.velocities, &|_| 0.0)?,
                    accelerations: spread(i, "accelerations", &p.accelerations, &|_| 0.0)?,
                    time_from_start: p.time_from_start,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Self::new(points)
    }

    /// Joints of each point.
    pub fn joints(&self) -> usize {
        self.joints
    }

    /// Duration (the last point's time).
    pub fn duration(&self) -> f64 {
        self.points.last().map_or(0.0, |p| p.time_from_start)
    }

    /// Position, velocity and acceleration at time `t` into the three slices (joints
    /// each).
    pub fn sample(&self, t: f64, q: &mut [f64], v: &mut [f64], a: &mut [f64]) {
        let n = self.joints;
        let points = &self.points;
        let first = &points[0];
        let k = points.partition_point(|p| p.time_from_start <= t);
        if k == 0 || k == points.len() {
            let p = if k == 0 { first } else { &points[k - 1] };
            q[..n].copy_from_slice(&p.positions);
            v[..n].fill(0.0);
            a[..n].fill(0.0);
            return;
        }
        let (p0, p1) = (&points[k - 1], &points[k]);
        let h = p1.time_from_start - p0.time_from_start;
        let s = t - p0.time_from_start;
        let with_v = !p0.velocities.is_empty() && !p1.velocities.is_empty();
        let with_a = with_v && !p0.accelerations.is_empty() && !p1.accelerations.is_empty();
        for j in 0..n {
            let (x0, x1) = (p0.positions[j], p1.positions[j]);
            let (v0, v1) = if with_v { (p0.velocities[j], p1.velocities[j]) } else { (0.0, 0.0) };
            let (a0, a1) = if with_a { (p0.accelerations[j], p1.accelerations[j]) } else { (0.0, 0.0) };
            let c = if with_a {
                quintic(x0, v0, a0, x1, v1, a1, h)
            } else if with_v {
                let c = cubic(x0, v0, x1, v1, h);
                [c[0], c[1], c[2], c[3], 0.0, 0.0]
            } else {
                [x0, (x1 - x0) / h, 0.0, 0.0, 0.0, 0.0]
            };
            q[j] = c[0] + s * (c[1] + s * (c[2] + s * (c[3] + s * (c[4] + s * c[5]))));
            v[j] = c[1] + s * (2.0 * c[2] + s * (3.0 * c[3] + s * (4.0 * c[4] + s * 5.0 * c[5])));
            a[j] = 2.0 * c[2] + s * (6.0 * c[3] + s * (12.0 * c[4] + s * 20.0 * c[5]));
        }
    }
}

/// Holds a sample (positions `q`, velocities `v`, accelerations `a` of the controlled
/// joints) within the joints' position limits `limits` (URDF `lower`, `upper`; ±∞ for a
/// continuous joint): a position beyond its limit is set to the limit, with velocity and
/// acceleration zero, so the reference rests there. Clamping, not refusing, is what
/// ros2_control's joint limiters (JointSaturationLimiter) and MoveIt's `enforceBounds` do
/// with a position beyond the limits; refusing the whole trajectory would also stop it for
/// a planner's rounding just past a limit. Returns whether a position was clamped.
pub fn saturate(limits: &[(f64, f64)], q: &mut [f64], v: &mut [f64], a: &mut [f64]) -> bool {
    let mut clamped = false;
    for (k, &(lower, upper)) in limits.iter().enumerate() {
        if !(lower..=upper).contains(&q[k]) {
            q[k] = q[k].clamp(lower, upper);
            v[k] = 0.0;
            a[k] = 0.0;
            clamped = true;
        }
    }
    clamped
}

/// Coefficients of the cubic with x(0) = x0, x'(0) = v0, x(h) = x1, x'(h) = v1.
fn cubic(x0: f64, v0: f64, x1: f64, v1: f64, h: f64) -> [f64; 4] {
    let d = x1 - x0;
    [x0, v0, (3.0 * d - (2.0 * v0 + v1) * h) / (h * h), (-2.0 * d + (v0 + v1) * h) / (h * h * h)]
}

/// Coefficients of the quintic with position, velocity and acceleration given at 0 and h.
fn quintic(x0: f64, v0: f64, a0: f64, x1: f64, v1: f64, a1: f64, h: f64) -> [f64; 6] {
    let (h2, h3) = (h * h, h * h * h);
    let d = x1 - x0 - v0 * h - 0.5 * a0 * h2;
    let e = v1 - v0 - a0 * h;
    let f = a1 - a0;
    [
        x0,
        v0,
        0.5 * a0,
        (10.0 * d - 4.0 * e * h + 0.5 * f * h2) / h3,
        (-15.0 * d + 7.0 * e * h - f * h2) / (h3 * h),
        (6.0 * d - 3.0 * e * h + 0.5 * f * h2) / (h3 * h2),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(t: f64, x: f64, v: Option<f64>, a: Option<f64>) -> TrajectoryPoint {
        TrajectoryPoint {
            positions: vec![x],
            velocities: v.into_iter().collect(),
            accelerations: a.into_iter().collect(),
            time_from_start: t,
        }
    }

    fn at(tr: &JointTrajectory, t: f64) -> [f64; 3] {
        let (mut q, mut v, mut a) = ([0.0], [0.0], [0.0]);
        tr.sample(t, &mut q, &mut v, &mut a);
        [q[0], v[0], a[0]]
    }

    /// Each segment type reproduces its end conditions and the polynomial it should be.
    #[test]
    fn segments_match_their_end_conditions() {
        let linear = JointTrajectory::new(vec![point(0.0, 1.0, None, None), point(2.0, 3.0, None, None)]).unwrap();
        assert_eq!(at(&linear, 0.5), [1.5, 1.0, 0.0]);
        // sin on [0, 1] with exact derivatives at the ends: the quintic is within 1e-4 of
        // it in the middle, the cubic within 1e-2; both hit the ends exactly.
        let f = |t: f64| [t.sin(), t.cos(), -t.sin()];
        let ends = |with_a: bool| {
            (0..2)
                .map(|k| {
                    let [x, v, a] = f(k as f64);
                    point(k as f64, x, Some(v), with_a.then_some(a))
                })
                .collect::<Vec<_>>()
        };
        let quintic = JointTrajectory::new(ends(true)).unwrap();
        let cubic = JointTrajectory::new(ends(false)).unwrap();
        for (tr, tol) in [(&quintic, 1e-4), (&cubic, 1e-2)] {
            let end = at(tr, 1.0 - 1e-12);
            assert!((end[0] - f(1.0)[0]).abs() < 1e-9 && (end[1] - f(1.0)[1]).abs() < 1e-9, "{end:?}");
            let mid = at(tr, 0.5);
            assert!((mid[0] - f(0.5)[0]).abs() < tol, "{mid:?}");
        }
        let end = at(&quintic, 1.0 - 1e-12);
        assert!((end[2] - f(1.0)[2]).abs() < 1e-9, "{end:?}");
        // Held before and after.
        assert_eq!(at(&quintic, -1.0), [0.0, 0.0, 0.0]);
        assert_eq!(at(&quintic, 5.0), [f(1.0)[0], 0.0, 0.0]);
    }

    #[test]
    fn a_trajectory_of_some_joints_in_any_order_holds_the_others() {
        let joints: Vec<String> = ["a", "b", "c"].map(String::from).into();
        let names: Vec<String> = ["c", "a"].map(String::from).into();
        let p = |t: f64, x: [f64; 2]| TrajectoryPoint {
            positions: x.into(),
            velocities: vec![1.0, 2.0],
            accelerations: vec![],
            time_from_start: t,
        };
        let tr = JointTrajectory::for_joints(
            &joints,
            &[10.0, 20.0, 30.0],
            &names,
            &[p(0.0, [3.0, 1.0]), p(1.0, [4.0, 2.0])],
        )
        .unwrap();
        assert_eq!(tr.joints(), 3);
        let (mut q, mut v, mut a) = ([0.0; 3], [0.0; 3], [0.0; 3]);
        tr.sample(0.0, &mut q, &mut v, &mut a);
        assert_eq!((q, v), ([1.0, 20.0, 3.0], [2.0, 0.0, 1.0]));
        let unknown: Vec<String> = ["a", "x"].map(String::from).into();
        let e = JointTrajectory::for_joints(&joints, &[0.0; 3], &unknown, &[p(0.0, [0.0, 0.0])]).unwrap_err();
        assert_eq!(e.to_string(), "`joint_names`: `x` is not a controlled joint");
        let twice: Vec<String> = ["a", "a"].map(String::from).into();
        let e = JointTrajectory::for_joints(&joints, &[0.0; 3], &twice, &[p(0.0, [0.0, 0.0])]).unwrap_err();
        assert_eq!(e.to_string(), "`joint_names`: `a` is named twice");
        let mut short = p(0.0, [0.0, 0.0]);
        short.positions.pop();
        let e = JointTrajectory::for_joints(&joints, &[0.0; 3], &names, &[short]).unwrap_err();
        assert_eq!(e.to_string(), "point 0: `positions` has 1 values, expected 2");
    }

    #[test]
    fn a_sample_beyond_a_limit_rests_at_it() {
        let limits = [(-1.0, 1.0), (f64::NEG_INFINITY, f64::INFINITY), (0.0, 2.0)];
        let (mut q, mut v, mut a) = ([0.5, 100.0, 2.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
        assert!(!saturate(&limits, &mut q, &mut v, &mut a), "within (a limit itself included)");
        assert_eq!((q, v, a), ([0.5, 100.0, 2.0], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]));
        let (mut q, mut v, mut a) = ([-1.5, -1e6, 2.5], [1.0, 2.0, 3.0], [4.0, 5.0, 6.0]);
        assert!(saturate(&limits, &mut q, &mut v, &mut a));
        // The bounded joints at their limits and at rest; the continuous one untouched.
        assert_eq!((q, v, a), ([-1.0, -1e6, 2.0], [0.0, 2.0, 0.0], [0.0, 5.0, 0.0]));
    }

    #[test]
    fn bad_points_are_named() {
        let e = JointTrajectory::new(vec![]).unwrap_err();
        assert_eq!(e.to_string(), "a trajectory needs at least one point");
        let mut p = vec![point(0.0, 1.0, Some(0.0), None), point(1.0, 1.0, None, None)];
        p[1].velocities = vec![0.0, 0.0];
        let e = JointTrajectory::new(p).unwrap_err();
        assert_eq!(e.to_string(), "point 1: `velocities` has 2 values, expected 1");
        let e = JointTrajectory::new(vec![point(1.0, 1.0, None, None), point(1.0, 2.0, None, None)]).unwrap_err();
        assert!(e.to_string().starts_with("point 1: `time_from_start` must be"), "{e}");
        let e = JointTrajectory::new(vec![point(0.0, f64::NAN, None, None)]).unwrap_err();
        assert_eq!(e.to_string(), "point 0: `positions` holds a NaN, an infinity or a magnitude above 1e6");
        // Bounds that keep every sample finite (found by tests/fuzz.rs: f64::MAX positions,
        // times 1e308 apart or 1e-300 apart overflowed the segment polynomials).
        let e = JointTrajectory::new(vec![point(0.0, 1e7, None, None)]).unwrap_err();
        assert!(e.to_string().contains("magnitude above 1e6"), "{e}");
        let e = JointTrajectory::new(vec![point(0.0, 1.0, None, None), point(1e-9, 2.0, None, None)]).unwrap_err();
        assert!(e.to_string().contains("at least 1 µs after"), "{e}");
        let e = JointTrajectory::new(vec![point(1e300, 1.0, None, None)]).unwrap_err();
        assert!(e.to_string().contains("within [0, 1e7] s"), "{e}");
    }
}
