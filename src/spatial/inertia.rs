//! Spatial inertia of a rigid body.

use std::ops::Add;

use super::{Force, Mat3, Mat6, Motion, SE3, Vec3, skew};

/// Spatial inertia: mass, centre of mass and rotational inertia about the centre of mass,
/// all in the body frame.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Inertia {
    /// Mass, kg.
    pub mass: f64,
    /// Centre of mass in the body frame, m.
    pub com: Vec3,
    /// Rotational inertia about the centre of mass, in the body frame's axes, kg·m².
    pub rotational: Mat3,
}

impl Default for Inertia {
    fn default() -> Self {
        Self::ZERO
    }
}

impl Inertia {
    /// No mass.
    pub const ZERO: Inertia = Inertia {
        mass: 0.0,
        com: Vec3::new(0.0, 0.0, 0.0),
        rotational: Mat3::new(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    };

    /// From mass, centre of mass and rotational inertia about it.
    pub fn new(mass: f64, com: Vec3, rotational: Mat3) -> Self {
        Self { mass, com, rotational }
    }

    /// Momentum `I·v` of the body moving with `v` (both in the body frame).
    #[inline]
    pub fn apply(&self, v: &Motion) -> Force {
        // f = m (v − c × ω), τ = I_c ω + c × f
        let linear = (v.linear - self.com.cross(&v.angular)) * self.mass;
        Force { linear, angular: self.rotational * v.angular + self.com.cross(&linear) }
    }

    /// `v ×* (I·v)`: the gyroscopic/Coriolis force of the body moving with `v`.
    #[inline]
    pub fn vxiv(&self, v: &Motion) -> Force {
        v.cross_force(&self.apply(v))
    }

    /// This inertia, given in frame b, expressed in frame a (`a_m_b`).
    #[inline]
    pub fn transformed(&self, a_m_b: &SE3) -> Inertia {
        let r = &a_m_b.rotation;
        Inertia { mass: self.mass, com: a_m_b.act_point(&self.com), rotational: r * self.rotational * r.transpose() }
    }

    /// The 6×6 matrix acting on motions `[linear; angular]`:
    /// `[[m·1, −m[c]ₓ], [m[c]ₓ, I_c − m[c]ₓ²]]`.
    pub fn matrix(&self) -> Mat6 {
        let m = self.mass;
        let cx = skew(&self.com);
        let mut out = Mat6::zeros();
        out.fixed_view_mut::<3, 3>(0, 0).copy_from(&(Mat3::identity() * m));
        out.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-cx * m));
        out.fixed_view_mut::<3, 3>(3, 0).copy_from(&(cx * m));
        out.fixed_view_mut::<3, 3>(3, 3).copy_from(&(self.rotational - cx * cx * m));
        out
    }

    /// Rotational inertia about the body frame's origin (not the centre of mass).
    pub fn rotational_at_origin(&self) -> Mat3 {
        let cx = skew(&self.com);
        self.rotational - cx * cx * self.mass
    }
}

impl Add for Inertia {
    type Output = Inertia;
    /// Inertia of two bodies rigidly joined (both expressed in the same frame).
    fn add(self, o: Inertia) -> Inertia {
        let mass = self.mass + o.mass;
        if mass <= 0.0 {
            return Inertia { mass: 0.0, com: Vec3::zeros(), rotational: self.rotational + o.rotational };
        }
        let com = (self.com * self.mass + o.com * o.mass) / mass;
        // Parallel axis: each body's I_c shifted to the common centre of mass.
        let d = self.com - o.com;
        let dx = skew(&d);
        let rotational = self.rotational + o.rotational - dx * dx * (self.mass * o.mass / mass);
        Inertia { mass, com, rotational }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::rotation_from_rpy;

    fn body() -> Inertia {
        let r = rotation_from_rpy(0.2, 0.3, -0.4);
        let diag = Mat3::from_diagonal(&Vec3::new(0.02, 0.05, 0.07));
        Inertia::new(2.5, Vec3::new(0.1, -0.05, 0.2), r * diag * r.transpose())
    }

    #[test]
    fn apply_matches_the_matrix() {
        let i = body();
        let v = Motion::new(Vec3::new(0.3, -0.1, 0.2), Vec3::new(1.0, -2.0, 0.5));
        assert!((i.apply(&v).to_vector() - i.matrix() * v.to_vector()).norm() < 1e-14);
        let m = i.matrix();
        assert!((m - m.transpose()).norm() < 1e-15);
    }

    #[test]
    fn transforming_is_the_congruence_by_the_action_matrix() {
        let i = body();
        let a_m_b = SE3::new(rotation_from_rpy(-0.5, 1.0, 0.3), Vec3::new(0.4, 0.2, -0.9));
        // I_a = X⁻ᵀ I_b X⁻¹ with X the motion action matrix of a_m_b.
        let x_inv = a_m_b.inverse().action_matrix();
        let expected = x_inv.transpose() * i.matrix() * x_inv;
        assert!((i.transformed(&a_m_b).matrix() - expected).norm() < 1e-13);
    }

    #[test]
    fn sum_is_the_sum_of_matrices() {
        let a = body();
        let b = Inertia::new(0.7, Vec3::new(-0.3, 0.4, 0.0), Mat3::from_diagonal(&Vec3::new(0.01, 0.02, 0.03)));
        assert!(((a + b).matrix() - (a.matrix() + b.matrix())).norm() < 1e-13);
        assert_eq!((Inertia::ZERO + Inertia::ZERO).mass, 0.0);
    }
}

/// A spatial inertia expressed about its frame's origin: mass, first moment `h = m·c` and
/// rotational inertia about the origin. Inertias of bodies expressed in the same frame add
/// componentwise in this form (no parallel-axis terms), which is what composite inertias
/// (CRBA) do all the time.
///
/// Stored as ten numbers in one array, `[m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`
/// (the rotational inertia is symmetric: its upper triangle, row by row). One flat array
/// is added and copied in the same aligned pairs of lanes every time, so that a composite
/// inertia stored by a child's `+=` is read back by its parent straight from the store
/// buffer (a load that straddles two stores of different widths waits for them to reach
/// the cache instead); and 10 additions per composite update, not 13.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct OriginInertia {
    /// `[m, hx, hy, hz, Ixx, Ixy, Ixz, Iyy, Iyz, Izz]`: mass (kg), first moment of mass
    /// `m·c` (kg·m), rotational inertia about the frame origin (kg·m²).
    pub coefficients: [f64; 10],
}

impl OriginInertia {
    /// `body` (given in frame b) expressed in frame a about a's origin.
    #[inline]
    pub fn from_body(body: &Inertia, a_m_b: &SE3) -> Self {
        let c = a_m_b.act_point(&body.com);
        // I_o = R·I_c·Rᵀ + m·(|c|²·1 − c·cᵀ), symmetric: 6 entries computed.
        Self::about_origin(body.mass, &c, rotate_symmetric(&body.rotational, &a_m_b.rotation))
    }

    /// `body` about its own frame's origin, in its own axes: h = m·c,
    /// I_o = I_c + m·(|c|²·1 − c·cᵀ).
    #[inline]
    pub fn of_body(body: &Inertia) -> Self {
        let r = &body.rotational;
        let lower = [r[(0, 0)], r[(0, 1)], r[(0, 2)], r[(1, 1)], r[(1, 2)], r[(2, 2)]];
        Self::about_origin(body.mass, &body.com, lower)
    }

    /// Mass `m` with centre `c` and rotational inertia about it `r` (xx, xy, xz, yy, yz,
    /// zz) about the origin: h = m·c, I_o = I_c + m·(|c|²·1 − c·cᵀ).
    #[inline]
    fn about_origin(m: f64, c: &Vec3, r: [f64; 6]) -> Self {
        let h = c * m;
        let (xx, yy, zz) = (h.x * c.x, h.y * c.y, h.z * c.z);
        let (xy, xz, yz) = (h.x * c.y, h.x * c.z, h.y * c.z);
        OriginInertia {
            coefficients: [
                m,
                h.x,
                h.y,
                h.z,
                r[0] + yy + zz,
                r[1] - xy,
                r[2] - xz,
                r[3] + xx + zz,
                r[4] - yz,
                r[5] + xx + yy,
            ],
        }
    }

    /// This inertia, given about frame b's origin in b's axes, about frame a's origin in
    /// a's axes (`a_m_b` = (R, p)). With h_s = R·h and the new first moment h' = h_s + m·p,
    /// `I_a = R·I_b·Rᵀ + tr(T)·1 − T` where `T = p·h'ᵀ + h_s·pᵀ` (symmetric: the
    /// parallel-axis terms m(|p|²1 − ppᵀ) + 2(p·h_s)1 − (p h_sᵀ + h_s pᵀ) gathered).
    #[inline]
    pub fn transformed(&self, a_m_b: &SE3) -> Self {
        let c = &self.coefficients;
        let m = c[0];
        let rotational = Mat3::new(c[4], c[5], c[6], c[5], c[7], c[8], c[6], c[8], c[9]);
        let r = rotate_symmetric(&rotational, &a_m_b.rotation);
        let hs = a_m_b.rotation * Vec3::new(c[1], c[2], c[3]);
        let p = &a_m_b.translation;
        let h = hs + p * m;
        let t = |a: usize, b: usize| p[a] * h[b] + hs[a] * p[b];
        let (txx, tyy, tzz) = (t(0, 0), t(1, 1), t(2, 2));
        OriginInertia {
            coefficients: [
                m,
                h.x,
                h.y,
                h.z,
                r[0] + tyy + tzz,
                r[1] - t(0, 1),
                r[2] - t(0, 2),
                r[3] + txx + tzz,
                r[4] - t(1, 2),
                r[5] + txx + tyy,
            ],
        }
    }

    /// Mass, kg.
    #[inline]
    pub fn mass(&self) -> f64 {
        self.coefficients[0]
    }

    /// First moment of mass `m·c`, kg·m.
    #[inline]
    pub fn first_moment(&self) -> Vec3 {
        let c = &self.coefficients;
        Vec3::new(c[1], c[2], c[3])
    }

    /// Rotational inertia about the frame origin, kg·m².
    #[inline]
    pub fn rotational(&self) -> Mat3 {
        let c = &self.coefficients;
        Mat3::new(c[4], c[5], c[6], c[5], c[7], c[8], c[6], c[8], c[9])
    }

    /// Momentum of the body moving with `v = [linear; angular]` (same frame), as
    /// `[linear; angular]`: f = m·v_o − h × ω, τ = I_o·ω + h × v_o.
    #[inline]
    pub fn apply_array(&self, v: &[f64; 6]) -> [f64; 6] {
        let [m, hx, hy, hz, ixx, ixy, ixz, iyy, iyz, izz] = self.coefficients;
        let [vx, vy, vz, wx, wy, wz] = *v;
        [
            m * vx - (hy * wz - hz * wy),
            m * vy - (hz * wx - hx * wz),
            m * vz - (hx * wy - hy * wx),
            (ixx * wx + ixy * wy + ixz * wz) + (hy * vz - hz * vy),
            (ixy * wx + iyy * wy + iyz * wz) + (hz * vx - hx * vz),
            (ixz * wx + iyz * wy + izz * wz) + (hx * vy - hy * vx),
        ]
    }

    /// Column `k` of the 6 × 6 matrix: [`OriginInertia::apply_array`] of the unit motion
    /// e_k (k < 3: a unit linear velocity along axis k; 3 + k: a unit angular velocity),
    /// without the multiplications by zero.
    #[inline]
    pub fn unit_column(&self, k: usize) -> [f64; 6] {
        let [m, hx, hy, hz, ixx, ixy, ixz, iyy, iyz, izz] = self.coefficients;
        match k {
            // f = m·e, τ = h × e
            0 => [m, 0.0, 0.0, 0.0, hz, -hy],
            1 => [0.0, m, 0.0, -hz, 0.0, hx],
            2 => [0.0, 0.0, m, hy, -hx, 0.0],
            // f = −h × e = e × h, τ = I·e
            3 => [0.0, -hz, hy, ixx, ixy, ixz],
            4 => [hz, 0.0, -hx, ixy, iyy, iyz],
            _ => [-hy, hx, 0.0, ixz, iyz, izz],
        }
    }

    /// Momentum of the body moving with `v` (same frame).
    #[inline]
    pub fn apply(&self, v: &Motion) -> Force {
        let f = self.apply_array(&[v.linear.x, v.linear.y, v.linear.z, v.angular.x, v.angular.y, v.angular.z]);
        Force { linear: Vec3::new(f[0], f[1], f[2]), angular: Vec3::new(f[3], f[4], f[5]) }
    }

    /// In (mass, centre of mass, inertia about the centre of mass) form.
    pub fn to_inertia(&self) -> Inertia {
        let mass = self.mass();
        if mass <= 0.0 {
            return Inertia { mass: 0.0, com: Vec3::zeros(), rotational: self.rotational() };
        }
        let c = self.first_moment() / mass;
        let cx = skew(&c);
        Inertia { mass, com: c, rotational: self.rotational() + cx * cx * mass }
    }
}

impl std::ops::AddAssign for OriginInertia {
    #[inline]
    fn add_assign(&mut self, o: OriginInertia) {
        for (a, b) in self.coefficients.iter_mut().zip(o.coefficients) {
            *a += b;
        }
    }
}

/// The 6 distinct entries (xx, xy, xz, yy, yz, zz) of R·S·Rᵀ for a symmetric S: A = R·S,
/// then the upper triangle of A·Rᵀ (45 multiplications instead of 54).
#[inline]
fn rotate_symmetric(s: &Mat3, r: &Mat3) -> [f64; 6] {
    let a = r * s;
    let e = |p: usize, q: usize| a[(p, 0)] * r[(q, 0)] + a[(p, 1)] * r[(q, 1)] + a[(p, 2)] * r[(q, 2)];
    [e(0, 0), e(0, 1), e(0, 2), e(1, 1), e(1, 2), e(2, 2)]
}

#[cfg(test)]
mod origin_tests {
    use super::*;
    use crate::spatial::rotation_from_rpy;

    #[test]
    fn origin_form_agrees_with_the_com_form() {
        let r = rotation_from_rpy(0.2, 0.3, -0.4);
        let body = Inertia::new(
            2.5,
            Vec3::new(0.1, -0.05, 0.2),
            r * Mat3::from_diagonal(&Vec3::new(0.02, 0.05, 0.07)) * r.transpose(),
        );
        let a_m_b = SE3::new(rotation_from_rpy(-0.5, 1.0, 0.3), Vec3::new(0.4, 0.2, -0.9));
        let o = OriginInertia::from_body(&body, &a_m_b);
        let expected = body.transformed(&a_m_b);
        let v = Motion::new(Vec3::new(0.3, -0.1, 0.2), Vec3::new(1.0, -2.0, 0.5));
        assert!((o.apply(&v).to_vector() - expected.apply(&v).to_vector()).norm() < 1e-13);
        for k in 0..6 {
            let mut e = [0.0; 6];
            e[k] = 1.0;
            assert_eq!(o.unit_column(k), o.apply_array(&e), "column {k}");
        }
        assert!((o.to_inertia().matrix() - expected.matrix()).norm() < 1e-13);
        let other = Inertia::new(0.7, Vec3::new(-0.3, 0.4, 0.0), Mat3::from_diagonal(&Vec3::new(0.01, 0.02, 0.03)));
        let mut sum = o;
        sum += OriginInertia::from_body(&other, &SE3::IDENTITY);
        assert!((sum.to_inertia().matrix() - (expected + other).matrix()).norm() < 1e-12);
        // Moved between frames in the origin form: the same as from the body's own frame.
        let a_m_c = SE3::new(rotation_from_rpy(0.7, -0.2, 0.1), Vec3::new(-0.3, 0.5, 0.25));
        let via = OriginInertia::of_body(&body).transformed(&a_m_b).transformed(&a_m_c);
        let direct = OriginInertia::from_body(&body, &a_m_c.compose(&a_m_b));
        for (x, y) in via.coefficients.iter().zip(&direct.coefficients) {
            assert!((x - y).abs() < 1e-13, "{via:?} {direct:?}");
        }
    }
}
