//! 6-D spatial algebra on nalgebra fixed-size types (Featherstone's, in Pinocchio's
//! conventions so that numbers can be compared one to one).
//!
//! Conventions:
//! - A spatial [`Motion`] (twist) and a spatial [`Force`] (wrench) are stored
//!   `[linear; angular]`, both expressed in some frame at that frame's origin. Units: m/s
//!   and rad/s; N and N·m.
//! - An [`SE3`] named `a_m_b` (read "a from b") maps coordinates in frame b to coordinates
//!   in frame a: `p_a = a_m_b.act_point(p_b) = R·p_b + t`. `act` moves a motion, force or
//!   inertia from b to a; `act_inv` from a to b.
//! - An [`Inertia`] is (mass, centre of mass, rotational inertia about the centre of mass),
//!   all expressed in the body frame. SI units.
//! - Cross products: `v.cross(w)` is the motion cross product v×w; `v.cross_force(f)` is the
//!   force cross product v×*f. They satisfy ⟨v×w, f⟩ = −⟨w, v×*f⟩.

/// Constructors (`ZERO`, `new`, `from_vector`, `to_vector`) and `+`, `+=`, `-`, `-=`,
/// unary `-`, `* f64` for a `[linear; angular]` pair type.
macro_rules! impl_six_vector_ops {
    ($t:ident) => {
        impl $t {
            /// Zero.
            pub const ZERO: $t = $t {
                linear: $crate::spatial::Vec3::new(0.0, 0.0, 0.0),
                angular: $crate::spatial::Vec3::new(0.0, 0.0, 0.0),
            };

            /// From its parts.
            #[inline]
            pub const fn new(linear: $crate::spatial::Vec3, angular: $crate::spatial::Vec3) -> Self {
                Self { linear, angular }
            }

            /// From a 6-vector `[linear; angular]`.
            #[inline]
            pub fn from_vector(v: &$crate::spatial::Vec6) -> Self {
                Self {
                    linear: $crate::spatial::Vec3::new(v[0], v[1], v[2]),
                    angular: $crate::spatial::Vec3::new(v[3], v[4], v[5]),
                }
            }

            /// As a 6-vector `[linear; angular]`.
            #[inline]
            pub fn to_vector(&self) -> $crate::spatial::Vec6 {
                $crate::spatial::Vec6::new(
                    self.linear.x,
                    self.linear.y,
                    self.linear.z,
                    self.angular.x,
                    self.angular.y,
                    self.angular.z,
                )
            }
        }

        impl std::ops::Add for $t {
            type Output = $t;
            #[inline]
            fn add(self, o: $t) -> $t {
                $t { linear: self.linear + o.linear, angular: self.angular + o.angular }
            }
        }
        impl std::ops::AddAssign for $t {
            #[inline]
            fn add_assign(&mut self, o: $t) {
                self.linear += o.linear;
                self.angular += o.angular;
            }
        }
        impl std::ops::Sub for $t {
            type Output = $t;
            #[inline]
            fn sub(self, o: $t) -> $t {
                $t { linear: self.linear - o.linear, angular: self.angular - o.angular }
            }
        }
        impl std::ops::SubAssign for $t {
            #[inline]
            fn sub_assign(&mut self, o: $t) {
                self.linear -= o.linear;
                self.angular -= o.angular;
            }
        }
        impl std::ops::Neg for $t {
            type Output = $t;
            #[inline]
            fn neg(self) -> $t {
                $t { linear: -self.linear, angular: -self.angular }
            }
        }
        impl std::ops::Mul<f64> for $t {
            type Output = $t;
            #[inline]
            fn mul(self, s: f64) -> $t {
                $t { linear: self.linear * s, angular: self.angular * s }
            }
        }
    };
}

mod force;
mod inertia;
mod motion;
mod se3;

pub use force::Force;
pub use inertia::{Inertia, OriginInertia};
pub use motion::Motion;
pub use se3::SE3;

/// 3-vector.
pub type Vec3 = nalgebra::Vector3<f64>;
/// 3×3 matrix.
pub type Mat3 = nalgebra::Matrix3<f64>;
/// 6-vector.
pub type Vec6 = nalgebra::Vector6<f64>;
/// 6×6 matrix.
pub type Mat6 = nalgebra::Matrix6<f64>;

/// [x]ₓ, the matrix of the cross product by x: `skew(x) * y == x.cross(&y)`.
#[inline]
pub fn skew(x: &Vec3) -> Mat3 {
    Mat3::new(0.0, -x.z, x.y, x.z, 0.0, -x.x, -x.y, x.x, 0.0)
}

/// Rotation from roll-pitch-yaw (URDF): R = Rz(yaw)·Ry(pitch)·Rx(roll).
pub fn rotation_from_rpy(roll: f64, pitch: f64, yaw: f64) -> Mat3 {
    let (sr, cr) = roll.sin_cos();
    let (sp, cp) = pitch.sin_cos();
    let (sy, cy) = yaw.sin_cos();
    Mat3::new(
        cy * cp,
        cy * sp * sr - sy * cr,
        cy * sp * cr + sy * sr,
        sy * cp,
        sy * sp * sr + cy * cr,
        sy * sp * cr - cy * sr,
        -sp,
        cp * sr,
        cp * cr,
    )
}

/// Rotation of `angle` about the unit `axis` (Rodrigues), from its cosine and sine.
#[inline]
pub fn rotation_about_axis(axis: &Vec3, cos: f64, sin: f64) -> Mat3 {
    let t = 1.0 - cos;
    let (x, y, z) = (axis.x, axis.y, axis.z);
    Mat3::new(
        t * x * x + cos,
        t * x * y - sin * z,
        t * x * z + sin * y,
        t * x * y + sin * z,
        t * y * y + cos,
        t * y * z - sin * x,
        t * x * z - sin * y,
        t * y * z + sin * x,
        t * z * z + cos,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rpy_matches_the_urdf_definition() {
        let (r, p, y): (f64, f64, f64) = (0.3, -0.7, 1.9);
        let rx = rotation_about_axis(&Vec3::x(), r.cos(), r.sin());
        let ry = rotation_about_axis(&Vec3::y(), p.cos(), p.sin());
        let rz = rotation_about_axis(&Vec3::z(), y.cos(), y.sin());
        assert!((rotation_from_rpy(r, p, y) - rz * ry * rx).norm() < 1e-15);
    }

    #[test]
    fn axis_rotation_is_the_exponential_of_the_skew_matrix() {
        let axis = Vec3::new(1.0, -2.0, 0.5).normalize();
        let angle: f64 = 0.83;
        let expected = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
        assert!((rotation_about_axis(&axis, angle.cos(), angle.sin()) - expected.matrix()).norm() < 1e-15);
        let x = Vec3::new(0.1, 0.2, 0.3);
        let y = Vec3::new(-1.0, 0.5, 2.0);
        assert!((skew(&x) * y - x.cross(&y)).norm() < 1e-16);
    }
}
