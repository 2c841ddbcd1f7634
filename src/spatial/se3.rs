//! Rigid transforms SE(3) and their action on points, motions, forces.

use std::ops::Mul;

use super::{Force, Mat3, Mat6, Motion, Vec3, Vec6, skew};

/// A rigid transform `a_m_b` (rotation and translation of frame b in frame a):
/// `p_a = rotation · p_b + translation`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SE3 {
    /// Rotation (orthonormal, det +1).
    pub rotation: Mat3,
    /// Translation (position of b's origin in a), m.
    pub translation: Vec3,
}

impl Default for SE3 {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl SE3 {
    /// The identity.
    pub const IDENTITY: SE3 =
        SE3 { rotation: Mat3::new(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0), translation: Vec3::new(0.0, 0.0, 0.0) };

    /// From its parts.
    #[inline]
    pub const fn new(rotation: Mat3, translation: Vec3) -> Self {
        Self { rotation, translation }
    }

    /// A pure translation.
    #[inline]
    pub fn from_translation(translation: Vec3) -> Self {
        Self { rotation: Mat3::identity(), translation }
    }

    /// `b_m_a` from `a_m_b`.
    #[inline]
    pub fn inverse(&self) -> SE3 {
        let rt = self.rotation.transpose();
        SE3 { rotation: rt, translation: -(rt * self.translation) }
    }

    /// `a_m_c = a_m_b · b_m_c`.
    #[inline]
    pub fn compose(&self, b_m_c: &SE3) -> SE3 {
        SE3 {
            rotation: self.rotation * b_m_c.rotation,
            translation: self.rotation * b_m_c.translation + self.translation,
        }
    }

    /// `b_m_c = a_m_b⁻¹ · a_m_c` without forming the inverse.
    #[inline]
    pub fn inv_compose(&self, a_m_c: &SE3) -> SE3 {
        let rt = self.rotation.transpose();
        SE3 { rotation: rt * a_m_c.rotation, translation: rt * (a_m_c.translation - self.translation) }
    }

    /// A point of b in a.
    #[inline]
    pub fn act_point(&self, p: &Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    /// A point of a in b.
    #[inline]
    pub fn act_inv_point(&self, p: &Vec3) -> Vec3 {
        self.rotation.tr_mul(&(p - self.translation))
    }

    /// A motion expressed in b, expressed in a.
    #[inline]
    pub fn act_motion(&self, m: &Motion) -> Motion {
        let angular = self.rotation * m.angular;
        Motion { linear: self.rotation * m.linear + self.translation.cross(&angular), angular }
    }

    /// A motion expressed in a, expressed in b.
    #[inline]
    pub fn act_inv_motion(&self, m: &Motion) -> Motion {
        Motion {
            linear: self.rotation.tr_mul(&(m.linear - self.translation.cross(&m.angular))),
            angular: self.rotation.tr_mul(&m.angular),
        }
    }

    /// A force expressed in b, expressed in a.
    #[inline]
    pub fn act_force(&self, f: &Force) -> Force {
        let linear = self.rotation * f.linear;
        Force { linear, angular: self.rotation * f.angular + self.translation.cross(&linear) }
    }

    /// A force expressed in a, expressed in b.
    #[inline]
    pub fn act_inv_force(&self, f: &Force) -> Force {
        Force {
            linear: self.rotation.tr_mul(&f.linear),
            angular: self.rotation.tr_mul(&(f.angular - self.translation.cross(&f.linear))),
        }
    }

    /// The 6×6 matrix acting on motions `[linear; angular]`: `[[R, [t]ₓR], [0, R]]`.
    pub fn action_matrix(&self) -> Mat6 {
        let mut x = Mat6::zeros();
        let r = &self.rotation;
        x.fixed_view_mut::<3, 3>(0, 0).copy_from(r);
        x.fixed_view_mut::<3, 3>(3, 3).copy_from(r);
        x.fixed_view_mut::<3, 3>(0, 3).copy_from(&(skew(&self.translation) * r));
        x
    }

    /// Act on the motion columns of a 6×n matrix (column by column).
    #[inline]
    pub fn act_motion_vector(&self, v: &Vec6) -> Vec6 {
        self.act_motion(&Motion::from_vector(v)).to_vector()
    }

    /// The SE(3) exponential of a twist `[v; ω]` (the transform reached after moving with
    /// this constant body twist for unit time).
    pub fn exp(twist: &Motion) -> SE3 {
        let w = twist.angular;
        let v = twist.linear;
        let t2 = w.norm_squared();
        let t = t2.sqrt();
        // Coefficients of Rodrigues' formula and of the left Jacobian, with Taylor
        // expansions below a small angle.
        let (a, b, c) = if t < 1e-4 {
            (1.0 - t2 / 6.0, 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0)
        } else {
            let (s, co) = t.sin_cos();
            (s / t, (1.0 - co) / t2, (t - s) / (t2 * t))
        };
        let wx = skew(&w);
        let wx2 = wx * wx;
        let rotation = Mat3::identity() + wx * a + wx2 * b;
        let left_jacobian = Mat3::identity() + wx * b + wx2 * c;
        SE3 { rotation, translation: left_jacobian * v }
    }

    /// The SE(3) logarithm: the twist whose exponential is `self`.
    pub fn log(&self) -> Motion {
        let r = &self.rotation;
        let vee = Vec3::new(r[(2, 1)] - r[(1, 2)], r[(0, 2)] - r[(2, 0)], r[(1, 0)] - r[(0, 1)]);
        // vee = 2·sin θ·axis and trace = 1 + 2·cos θ: atan2 is accurate at every angle
        // (acos loses half the digits near 0 and π).
        let cos = (r.trace() - 1.0) * 0.5;
        let angle = (vee.norm() * 0.5).atan2(cos);
        let w = if angle < 1e-6 {
            vee * (0.5 + angle * angle / 12.0)
        } else if angle > std::f64::consts::PI - 1e-2 {
            // Near π, vee vanishes: the axis from the symmetric part R + Rᵀ = 2(cos θ·1 +
            // (1 − cos θ)·a·aᵀ), its sign from vee.
            let d = Vec3::new(r[(0, 0)], r[(1, 1)], r[(2, 2)]);
            let i = d.imax();
            let mut axis = Vec3::zeros();
            axis[i] = ((d[i] - cos) / (1.0 - cos)).max(0.0).sqrt();
            for j in 0..3 {
                if j != i {
                    axis[j] = (r[(i, j)] + r[(j, i)]) / (2.0 * (1.0 - cos) * axis[i]);
                }
            }
            if axis.dot(&vee) < 0.0 {
                axis = -axis;
            }
            axis * angle
        } else {
            vee * (angle / (2.0 * angle.sin()))
        };
        // Inverse of the left Jacobian applied to the translation.
        let t2 = w.norm_squared();
        let t = t2.sqrt();
        let wx = skew(&w);
        let coef = if t < 1e-4 {
            1.0 / 12.0 + t2 / 720.0
        } else {
            let (s, c) = t.sin_cos();
            (1.0 - t * s / (2.0 * (1.0 - c))) / t2
        };
        let v = (Mat3::identity() - wx * 0.5 + wx * wx * coef) * self.translation;
        Motion { linear: v, angular: w }
    }
}

impl Mul for SE3 {
    type Output = SE3;
    #[inline]
    fn mul(self, o: SE3) -> SE3 {
        self.compose(&o)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{Force, rotation_from_rpy};

    fn sample() -> SE3 {
        SE3::new(rotation_from_rpy(0.4, -1.1, 2.3), Vec3::new(0.3, -0.2, 1.5))
    }

    #[test]
    fn inverse_and_composition() {
        let m = sample();
        let id = m.compose(&m.inverse());
        assert!((id.rotation - Mat3::identity()).norm() < 1e-15 && id.translation.norm() < 1e-15);
        let n = SE3::new(rotation_from_rpy(-0.2, 0.5, 0.1), Vec3::new(1.0, 2.0, 3.0));
        let a = m.inv_compose(&n);
        let b = m.inverse().compose(&n);
        assert!((a.rotation - b.rotation).norm() < 1e-15 && (a.translation - b.translation).norm() < 1e-14);
        let p = Vec3::new(0.5, 0.1, -0.4);
        assert!((m.act_inv_point(&m.act_point(&p)) - p).norm() < 1e-15);
    }

    #[test]
    fn actions_agree_with_the_action_matrix_and_preserve_power() {
        let m = sample();
        let v = Motion::new(Vec3::new(0.1, -0.3, 0.7), Vec3::new(1.2, 0.4, -0.5));
        let f = Force::new(Vec3::new(3.0, -1.0, 2.0), Vec3::new(-0.2, 0.6, 0.9));
        let x = m.action_matrix();
        assert!((m.act_motion(&v).to_vector() - x * v.to_vector()).norm() < 1e-14);
        // Forces transform with X^{-T}.
        let xf = x.try_inverse().unwrap().transpose();
        assert!((m.act_force(&f).to_vector() - xf * f.to_vector()).norm() < 1e-13);
        assert!((m.act_motion(&v).dot(&m.act_force(&f)) - v.dot(&f)).abs() < 1e-13);
        let back = m.act_inv_motion(&m.act_motion(&v));
        assert!((back.to_vector() - v.to_vector()).norm() < 1e-14);
        let back = m.act_inv_force(&m.act_force(&f));
        assert!((back.to_vector() - f.to_vector()).norm() < 1e-14);
    }

    #[test]
    fn cross_products_are_dual() {
        let v = Motion::new(Vec3::new(0.1, -0.3, 0.7), Vec3::new(1.2, 0.4, -0.5));
        let w = Motion::new(Vec3::new(-2.0, 0.3, 0.1), Vec3::new(0.2, 0.9, 0.3));
        let f = Force::new(Vec3::new(3.0, -1.0, 2.0), Vec3::new(-0.2, 0.6, 0.9));
        assert!((v.cross(&w).dot(&f) + w.dot(&v.cross_force(&f))).abs() < 1e-13);
        assert!(v.cross(&v).to_vector().norm() < 1e-15);
    }

    #[test]
    fn exp_and_log_are_inverse() {
        for twist in [
            Motion::new(Vec3::new(0.3, -0.2, 0.9), Vec3::new(0.7, -1.3, 0.4)),
            Motion::new(Vec3::new(0.3, -0.2, 0.9), Vec3::new(1e-7, 2e-7, -1e-7)),
            Motion::new(Vec3::new(1.0, 2.0, 3.0), Vec3::zeros()),
            Motion::new(Vec3::new(0.1, 0.0, 0.2), Vec3::new(0.0, std::f64::consts::PI - 2.6e-6, 0.0)),
        ] {
            let m = SE3::exp(&twist);
            assert!((m.rotation.transpose() * m.rotation - Mat3::identity()).norm() < 1e-14);
            let back = m.log();
            assert!((back.to_vector() - twist.to_vector()).norm() < 1e-8, "{twist:?} -> {back:?}");
        }
        // A pure rotation about z by θ moves the frame's x axis.
        let m = SE3::exp(&Motion::new(Vec3::zeros(), Vec3::new(0.0, 0.0, 0.5)));
        assert!((m.rotation * Vec3::x() - Vec3::new(0.5f64.cos(), 0.5f64.sin(), 0.0)).norm() < 1e-15);
    }
}
