//! Spatial force vectors (wrenches, momenta).

use super::Vec3;

/// A spatial force `[linear; angular]` (force; torque about the frame origin) expressed
/// in a frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Force {
    /// Force, N.
    pub linear: Vec3,
    /// Torque about the frame origin, N·m.
    pub angular: Vec3,
}

impl_six_vector_ops!(Force);
