//! Spatial motion vectors (twists, spatial accelerations).

use super::{Force, Vec3};

/// A spatial motion `[linear; angular]` expressed in a frame, at its origin.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Motion {
    /// Linear part (velocity of the point at the frame origin), m/s.
    pub linear: Vec3,
    /// Angular part, rad/s.
    pub angular: Vec3,
}

impl Motion {
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

    /// The velocity of the point `p` (coordinates in the motion's frame) of a body moving
    /// with `self`: ν + ω × p.
    #[inline]
    pub fn velocity_at(&self, p: &Vec3) -> Vec3 {
        self.linear + self.angular.cross(p)
    }

    /// Power ⟨self, f⟩ (W).
    #[inline]
    pub fn dot(&self, f: &Force) -> f64 {
        self.linear.dot(&f.linear) + self.angular.dot(&f.angular)
    }
}

impl_six_vector_ops!(Motion);
