//! Spatial force vectors (wrenches, momenta).

use std::ops::{Add, AddAssign, Mul, Neg, Sub, SubAssign};

use super::{Vec3, Vec6};

/// A spatial force `[linear; angular]` (force; torque about the frame origin) expressed
/// in a frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Force {
    /// Force, N.
    pub linear: Vec3,
    /// Torque about the frame origin, N·m.
    pub angular: Vec3,
}

impl Force {
    /// The zero force.
    pub const ZERO: Force = Force { linear: Vec3::new(0.0, 0.0, 0.0), angular: Vec3::new(0.0, 0.0, 0.0) };

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
}

impl Add for Force {
    type Output = Force;
    #[inline]
    fn add(self, o: Force) -> Force {
        Force { linear: self.linear + o.linear, angular: self.angular + o.angular }
    }
}

impl AddAssign for Force {
    #[inline]
    fn add_assign(&mut self, o: Force) {
        self.linear += o.linear;
        self.angular += o.angular;
    }
}

impl Sub for Force {
    type Output = Force;
    #[inline]
    fn sub(self, o: Force) -> Force {
        Force { linear: self.linear - o.linear, angular: self.angular - o.angular }
    }
}

impl SubAssign for Force {
    #[inline]
    fn sub_assign(&mut self, o: Force) {
        self.linear -= o.linear;
        self.angular -= o.angular;
    }
}

impl Neg for Force {
    type Output = Force;
    #[inline]
    fn neg(self) -> Force {
        Force { linear: -self.linear, angular: -self.angular }
    }
}

impl Mul<f64> for Force {
    type Output = Force;
    #[inline]
    fn mul(self, s: f64) -> Force {
        Force { linear: self.linear * s, angular: self.angular * s }
    }
}
