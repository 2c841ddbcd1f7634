//! Joint types: their configuration spaces, transforms and motion subspaces.
//!
//! Configuration layouts are Pinocchio's: a revolute or prismatic joint has q = θ (nq = nv
//! = 1); an unbounded revolute (URDF `continuous`) has q = (cos θ, sin θ) (nq = 2, nv = 1);
//! a free flyer has q = (x, y, z, qx, qy, qz, qw) and v = (linear, angular) expressed in
//! the joint's own (child) frame (nq = 7, nv = 6).

use crate::spatial::{Mat3, Motion, SE3, Vec3, rotation_about_axis};

/// A joint's unit axis, with a note of whether it is a coordinate axis (±x, ±y, ±z): a
/// rotation about a coordinate axis changes only two columns of a rotation matrix, which
/// is what makes forward kinematics of most robots cheap (Pinocchio's RX/RY/RZ joints).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Axis {
    /// The unit vector.
    pub vector: Vec3,
    /// `Some((k, ±1))` when the axis is ±e_k.
    aligned: Option<(usize, f64)>,
}

impl Axis {
    /// From a unit vector.
    pub fn new(vector: Vec3) -> Self {
        let aligned = (0..3).find_map(|k| {
            let others_zero = (0..3).all(|j| j == k || vector[j] == 0.0);
            (others_zero && vector[k].abs() == 1.0).then_some((k, vector[k]))
        });
        Axis { vector, aligned }
    }

    /// The unit x, y or z axis.
    pub fn unit(k: usize) -> Self {
        let mut v = Vec3::zeros();
        v[k] = 1.0;
        Self::new(v)
    }

    /// `Some((k, ±1))` when the axis is ±e_k.
    #[inline]
    pub(crate) fn aligned(&self) -> Option<(usize, f64)> {
        self.aligned
    }

    /// `rotation · axis`.
    #[inline]
    pub fn rotated(&self, rotation: &Mat3) -> Vec3 {
        match self.aligned {
            Some((k, sign)) => rotation.column(k) * sign,
            None => rotation * self.vector,
        }
    }

    /// `placement · Rot(axis, θ)` from cos θ and sin θ.
    #[inline]
    pub fn rotate(&self, placement: &SE3, cos: f64, sin: f64) -> SE3 {
        match self.aligned {
            Some((k, sign)) => {
                let s = sin * sign;
                // Columns i = k + 1 and j = k + 2 (mod 3) turn in their plane; column k stays.
                // The column numbers as constants: fixed-index code, no index arithmetic.
                let rotation = match k {
                    0 => turn_columns::<1, 2>(&placement.rotation, cos, s),
                    1 => turn_columns::<2, 0>(&placement.rotation, cos, s),
                    _ => turn_columns::<0, 1>(&placement.rotation, cos, s),
                };
                SE3::new(rotation, placement.translation)
            }
            None => SE3::new(placement.rotation * rotation_about_axis(&self.vector, cos, sin), placement.translation),
        }
    }
}

/// `r` with columns I and J turned by the angle of (cos, sin) in their plane: column I
/// becomes c_I cos + c_J sin, column J becomes c_J cos − c_I sin.
#[inline]
fn turn_columns<const I: usize, const J: usize>(r: &Mat3, cos: f64, sin: f64) -> Mat3 {
    let (ci, cj) = (r.column(I).into_owned(), r.column(J).into_owned());
    let mut rotation = *r;
    rotation.set_column(I, &(ci * cos + cj * sin));
    rotation.set_column(J, &(cj * cos - ci * sin));
    rotation
}

/// The kind of a joint and its constant parameters.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum JointType {
    /// Joint 0: the fixed world. No dof.
    Universe,
    /// Rotation about a unit axis of the joint frame.
    Revolute {
        /// Unit axis.
        axis: Axis,
    },
    /// Rotation about a unit axis, configuration (cos θ, sin θ).
    RevoluteUnbounded {
        /// Unit axis.
        axis: Axis,
    },
    /// Translation along a unit axis of the joint frame.
    Prismatic {
        /// Unit axis.
        axis: Axis,
    },
    /// Free 6-dof motion of the child frame in the parent frame.
    FreeFlyer,
}

impl JointType {
    /// Configuration dimension.
    #[inline]
    pub fn nq(&self) -> usize {
        match self {
            Self::Universe => 0,
            Self::Revolute { .. } | Self::Prismatic { .. } => 1,
            Self::RevoluteUnbounded { .. } => 2,
            Self::FreeFlyer => 7,
        }
    }

    /// Velocity (tangent) dimension.
    #[inline]
    pub fn nv(&self) -> usize {
        match self {
            Self::Universe => 0,
            Self::Revolute { .. } | Self::Prismatic { .. } | Self::RevoluteUnbounded { .. } => 1,
            Self::FreeFlyer => 6,
        }
    }

    /// Short name, as Pinocchio's shortname() for the same joint.
    pub fn short_name(&self) -> &'static str {
        match self {
            Self::Universe => "Universe",
            Self::Revolute { .. } => "Revolute",
            Self::RevoluteUnbounded { .. } => "RevoluteUnbounded",
            Self::Prismatic { .. } => "Prismatic",
            Self::FreeFlyer => "FreeFlyer",
        }
    }

    /// The joint's own transform `parent-side frame ← child frame` at configuration `q`
    /// (this joint's slice of the configuration vector).
    #[inline]
    pub fn transform(&self, q: &[f64]) -> SE3 {
        match self {
            Self::Universe => SE3::IDENTITY,
            Self::Revolute { axis } => {
                let (s, c) = q[0].sin_cos();
                SE3::new(rotation_about_axis(&axis.vector, c, s), Vec3::zeros())
            }
            Self::RevoluteUnbounded { axis } => SE3::new(rotation_about_axis(&axis.vector, q[0], q[1]), Vec3::zeros()),
            Self::Prismatic { axis } => SE3::new(Mat3::identity(), axis.vector * q[0]),
            Self::FreeFlyer => SE3::new(quaternion_to_rotation(q[3], q[4], q[5], q[6]), Vec3::new(q[0], q[1], q[2])),
        }
    }

    /// Motion subspace of a 1-dof joint in its child frame (the motion of one unit of
    /// velocity). Zero for the other joints.
    #[inline]
    pub fn axis_motion(&self) -> Motion {
        match self {
            Self::Revolute { axis } | Self::RevoluteUnbounded { axis } => Motion::new(Vec3::zeros(), axis.vector),
            Self::Prismatic { axis } => Motion::new(axis.vector, Vec3::zeros()),
            Self::Universe | Self::FreeFlyer => Motion::ZERO,
        }
    }

    /// The motion subspace of a 1-dof joint expressed in the world, for the joint frame at
    /// `o_m_i`: `o_m_i.act_motion(self.axis_motion())`, with fewer operations.
    #[inline]
    pub fn axis_motion_world(&self, o_m_i: &SE3) -> Motion {
        match self {
            Self::Revolute { axis } | Self::RevoluteUnbounded { axis } => {
                let w = axis.rotated(&o_m_i.rotation);
                Motion::new(o_m_i.translation.cross(&w), w)
            }
            Self::Prismatic { axis } => Motion::new(axis.rotated(&o_m_i.rotation), Vec3::zeros()),
            Self::Universe | Self::FreeFlyer => Motion::ZERO,
        }
    }

    /// True for the 1-dof joints (revolute, unbounded revolute, prismatic).
    #[inline]
    pub fn is_one_dof(&self) -> bool {
        self.nv() == 1
    }

    /// `placement · M_J(q)`: the joint's transform preceded by its fixed placement, with
    /// the shortcuts of coordinate axes and pure translations.
    #[inline]
    pub fn placed_transform(&self, placement: &SE3, q: &[f64]) -> SE3 {
        match self {
            Self::Revolute { axis } => {
                let (s, c) = q[0].sin_cos();
                axis.rotate(placement, c, s)
            }
            Self::RevoluteUnbounded { axis } => axis.rotate(placement, q[0], q[1]),
            Self::Prismatic { axis } => {
                SE3::new(placement.rotation, placement.translation + placement.rotation * (axis.vector * q[0]))
            }
            Self::FreeFlyer => placement.compose(&self.transform(q)),
            Self::Universe => *placement,
        }
    }

    /// The neutral configuration (zero angle, identity placement).
    pub fn neutral(&self, q: &mut [f64]) {
        match self {
            Self::Universe => {}
            Self::Revolute { .. } | Self::Prismatic { .. } => q[0] = 0.0,
            Self::RevoluteUnbounded { .. } => q.copy_from_slice(&[1.0, 0.0]),
            Self::FreeFlyer => q.copy_from_slice(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]),
        }
    }

    /// `out = q ⊕ v`: the configuration reached from `q` moving with the constant joint
    /// velocity `v` for unit time (scale `v` by Δt before). Same formulas as Pinocchio:
    /// the free flyer moves on SE(3) (`M(q)·exp(v)`), the unbounded revolute on SO(2);
    /// both renormalize to first order.
    pub fn integrate(&self, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self {
            Self::Universe => {}
            Self::Revolute { .. } | Self::Prismatic { .. } => out[0] = q[0] + v[0],
            Self::RevoluteUnbounded { .. } => {
                let (s, c) = v[0].sin_cos();
                let (c0, s0) = (q[0], q[1]);
                let (c1, s1) = (c0 * c - s0 * s, s0 * c + c0 * s);
                // First-order renormalization, as Pinocchio's SO(2) integrate.
                let scale = (3.0 - (c1 * c1 + s1 * s1)) * 0.5;
                out[0] = c1 * scale;
                out[1] = s1 * scale;
            }
            Self::FreeFlyer => {
                let m0 = self.transform(q);
                let m1 = m0.compose(&SE3::exp(&Motion::new(Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]))));
                out[..3].copy_from_slice(m1.translation.as_slice());
                let mut quat = rotation_to_quaternion(&m1.rotation);
                // Stay in the hemisphere of the input quaternion.
                let dot = quat[0] * q[3] + quat[1] * q[4] + quat[2] * q[5] + quat[3] * q[6];
                if dot < 0.0 {
                    quat.iter_mut().for_each(|x| *x = -*x);
                }
                let scale = (3.0 - quat.iter().map(|x| x * x).sum::<f64>()) * 0.5;
                for k in 0..4 {
                    out[3 + k] = quat[k] * scale;
                }
            }
        }
    }

    /// `out = q1 ⊖ q0`: the constant velocity that goes from `q0` to `q1` in unit time.
    pub fn difference(&self, q0: &[f64], q1: &[f64], out: &mut [f64]) {
        match self {
            Self::Universe => {}
            Self::Revolute { .. } | Self::Prismatic { .. } => out[0] = q1[0] - q0[0],
            Self::RevoluteUnbounded { .. } => {
                // Angle of R0ᵀ R1.
                let (c0, s0, c1, s1) = (q0[0], q0[1], q1[0], q1[1]);
                out[0] = (c0 * s1 - s0 * c1).atan2(c0 * c1 + s0 * s1);
            }
            Self::FreeFlyer => {
                let m0 = self.transform(q0);
                let m1 = self.transform(q1);
                let d = m0.inv_compose(&m1).log();
                out[..3].copy_from_slice(d.linear.as_slice());
                out[3..6].copy_from_slice(d.angular.as_slice());
            }
        }
    }
}

/// Rotation matrix of the unit quaternion (x, y, z, w) (Eigen's formula: the quaternion
/// is assumed normalized).
#[inline]
pub fn quaternion_to_rotation(x: f64, y: f64, z: f64, w: f64) -> Mat3 {
    let (tx, ty, tz) = (2.0 * x, 2.0 * y, 2.0 * z);
    let (twx, twy, twz) = (tx * w, ty * w, tz * w);
    let (txx, txy, txz) = (tx * x, ty * x, tz * x);
    let (tyy, tyz, tzz) = (ty * y, tz * y, tz * z);
    Mat3::new(
        1.0 - (tyy + tzz),
        txy - twz,
        txz + twy,
        txy + twz,
        1.0 - (txx + tzz),
        tyz - twx,
        txz - twy,
        tyz + twx,
        1.0 - (txx + tyy),
    )
}

/// Unit quaternion (x, y, z, w) of a rotation matrix (Shepperd's method, as Eigen).
pub fn rotation_to_quaternion(m: &Mat3) -> [f64; 4] {
    let trace = m.trace();
    if trace > 0.0 {
        let t = (trace + 1.0).sqrt();
        let w = 0.5 * t;
        let t = 0.5 / t;
        [(m[(2, 1)] - m[(1, 2)]) * t, (m[(0, 2)] - m[(2, 0)]) * t, (m[(1, 0)] - m[(0, 1)]) * t, w]
    } else {
        let mut i = 0;
        if m[(1, 1)] > m[(0, 0)] {
            i = 1;
        }
        if m[(2, 2)] > m[(i, i)] {
            i = 2;
        }
        let j = (i + 1) % 3;
        let k = (j + 1) % 3;
        let t = (m[(i, i)] - m[(j, j)] - m[(k, k)] + 1.0).sqrt();
        let mut q = [0.0; 4];
        q[i] = 0.5 * t;
        let t = 0.5 / t;
        q[3] = (m[(k, j)] - m[(j, k)]) * t;
        q[j] = (m[(j, i)] + m[(i, j)]) * t;
        q[k] = (m[(k, i)] + m[(i, k)]) * t;
        q
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::rotation_from_rpy;

    #[test]
    fn the_placed_transform_is_the_placement_times_the_transform() {
        let placement = SE3::new(rotation_from_rpy(0.3, -0.2, 1.1), Vec3::new(0.1, 0.2, 0.3));
        let axes =
            [Vec3::x(), Vec3::y(), Vec3::z(), -Vec3::x(), -Vec3::y(), -Vec3::z(), Vec3::new(1.0, 2.0, -2.0) / 3.0];
        for v in axes {
            for t in [
                JointType::Revolute { axis: Axis::new(v) },
                JointType::RevoluteUnbounded { axis: Axis::new(v) },
                JointType::Prismatic { axis: Axis::new(v) },
            ] {
                let q = if t.nq() == 2 { vec![0.7f64.cos(), 0.7f64.sin()] } else { vec![0.7] };
                let fast = t.placed_transform(&placement, &q);
                let slow = placement.compose(&t.transform(&q));
                assert!((fast.rotation - slow.rotation).norm() < 1e-15, "{t:?}");
                assert!((fast.translation - slow.translation).norm() < 1e-15, "{t:?}");
            }
        }
        assert!(Axis::new(-Vec3::y()).aligned.is_some());
        for v in axes {
            for t in [JointType::Revolute { axis: Axis::new(v) }, JointType::Prismatic { axis: Axis::new(v) }] {
                let fast = t.axis_motion_world(&placement).to_vector();
                let slow = placement.act_motion(&t.axis_motion()).to_vector();
                assert!((fast - slow).norm() < 1e-15, "{t:?}");
            }
        }
        assert!(Axis::new(Vec3::new(0.6, 0.8, 0.0)).aligned.is_none());
    }

    #[test]
    fn quaternion_round_trip() {
        for (r, p, y) in [(0.1, 0.2, 0.3), (3.0, -1.2, 0.4), (0.0, std::f64::consts::PI - 1e-4, 0.0), (-2.9, 0.1, 3.0)]
        {
            let m = rotation_from_rpy(r, p, y);
            let q = rotation_to_quaternion(&m);
            assert!((q.iter().map(|x| x * x).sum::<f64>() - 1.0).abs() < 1e-14);
            assert!((quaternion_to_rotation(q[0], q[1], q[2], q[3]) - m).norm() < 1e-14);
        }
    }

    #[test]
    fn integrate_then_difference_returns_the_velocity() {
        let ff = JointType::FreeFlyer;
        let q0 = {
            let quat = rotation_to_quaternion(&rotation_from_rpy(0.3, -0.4, 1.0));
            [0.1, -0.2, 0.5, quat[0], quat[1], quat[2], quat[3]]
        };
        let v = [0.3, -0.1, 0.2, 0.5, -0.7, 0.25];
        let mut q1 = [0.0; 7];
        ff.integrate(&q0, &v, &mut q1);
        let mut d = [0.0; 6];
        ff.difference(&q0, &q1, &mut d);
        for k in 0..6 {
            assert!((d[k] - v[k]).abs() < 1e-12, "{d:?}");
        }
        let ru = JointType::RevoluteUnbounded { axis: Axis::unit(2) };
        let q0 = [0.3f64.cos(), 0.3f64.sin()];
        let mut q1 = [0.0; 2];
        ru.integrate(&q0, &[2.0], &mut q1);
        assert!((q1[0] - 2.3f64.cos()).abs() < 1e-15 && (q1[1] - 2.3f64.sin()).abs() < 1e-15);
        let mut d = [0.0];
        ru.difference(&q0, &q1, &mut d);
        assert!((d[0] - 2.0).abs() < 1e-14);
    }

    #[test]
    fn the_free_flyer_velocity_is_expressed_in_the_child_frame() {
        // A pure "forward" velocity along the child's x moves along the rotated x.
        let ff = JointType::FreeFlyer;
        let quat = rotation_to_quaternion(&rotation_from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2));
        let q0 = [0.0, 0.0, 0.0, quat[0], quat[1], quat[2], quat[3]];
        let mut q1 = [0.0; 7];
        ff.integrate(&q0, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], &mut q1);
        assert!((q1[0]).abs() < 1e-15 && (q1[1] - 1.0).abs() < 1e-15);
    }
}
