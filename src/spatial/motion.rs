//! Spatial motion vectors (twists, spatial accelerations).

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use super::{Force, Vec3, Vec6};

/// A spatial motion `[linear; angular]` expressed in a frame, at its origin.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Motion {
    /// Linear part (velocity of the point at the frame origin), m/s.
    pub linear: Vec3,
    /// Angular part, rad/s.
    pub angular: Vec3,
}

impl Motion {
    /// The zero motion.
    pub const ZERO: Motion = Motion { linear: Vec3::new(0.0, 0.0, 0.0), angular: Vec3::new(0.0, 0.0, 0.0) };

    /// From its parts.
    #[inline]
    pub const fn new(linear: Vec3, angular: Vec3) -> Self {
        Self { linear, angular }
    }

    /// From a 6-vector `[linear; angular]`.
    #[inline]
    pub fn from_vector(v: &Vec6) -> Self {
        Self { linear: Vec3::new(v[0], v[1], v[2]), angular: Vec3::new(v[3], v[4], v[5]) }
    }

    /// As a 6-vector `[linear; angular]`.
    #[inline]
    pub fn to_vector(&self) -> Vec6 {
        Vec6::new(self.linear.x, self.linear.y, self.linear.z, self.angular.x, self.angular.y, self.angular.z)
    }

    /// Motion cross product `self × other` (the derivative of `other` in a frame moving
    /// with `self`).
    #[inline]
    pub fn cross(&self, other: &Motion) -> Motion {
        Motion {
            linear: self.angular.cross(&other.linear) + self.linear.cross(&other.angular),
            angular: self.angular.cross(&other.angular),
        }
    }

    /// Force cross product `self ×* f`.
    #[inline]
    pub fn cross_force(&self, f: &Force) -> Force {
        Force {
            linear: self.angular.cross(&f.linear),
            angular: self.angular.cross(&f.angular) + self.linear.cross(&f.linear),
        }
    }

    /// Power ⟨self, f⟩ (W).
    #[inline]
    pub fn dot(&self, f: &Force) -> f64 {
        self.linear.dot(&f.linear) + self.angular.dot(&f.angular)
    }
}

impl Add for Motion {
    type Output = Motion;
    #[inline]
    fn add(self, o: Motion) -> Motion {
        Motion { linear: self.linear + o.linear, angular: self.angular + o.angular }
    }
}

impl AddAssign for Motion {
    #[inline]
    fn add_assign(&mut self, o: Motion) {
        self.linear += o.linear;
        self.angular += o.angular;
    }
}

impl Sub for Motion {
    type Output = Motion;
    #[inline]
    fn sub(self, o: Motion) -> Motion {
        Motion { linear: self.linear - o.linear, angular: self.angular - o.angular }
    }
}

impl SubAssign for Motion {
    #[inline]
    fn sub_assign(&mut self, o: Motion) {
        self.linear -= o.linear;
        self.angular -= o.angular;
    }
}

impl Neg for Motion {
    type Output = Motion;
    #[inline]
    fn neg(self) -> Motion {
        Motion { linear: -self.linear, angular: -self.angular }
    }
}

impl Mul<f64> for Motion {
    type Output = Motion;
    #[inline]
    fn mul(self, s: f64) -> Motion {
        Motion { linear: self.linear * s, angular: self.angular * s }
    }
}
