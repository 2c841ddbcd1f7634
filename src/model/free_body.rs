//! A free rigid body (a box on the floor, a ball, a payload): six degrees of freedom with
//! the floating-base convention (Pinocchio's free flyer): the pose world_from_body and the
//! velocity (linear, angular) in the body frame, so that its mass matrix is the constant
//! spatial inertia in the body frame.

use thiserror::Error;

use crate::spatial::{Force, Inertia, Mat3, Mat6, Motion, SE3, Vec3};

/// Why a free body's inertia is refused.
#[derive(Clone, Debug, PartialEq, Error)]
#[error("free body `{name}`: {reason}")]
pub struct FreeBodyError {
    /// The body.
    pub name: String,
    /// What is wrong.
    pub reason: String,
}

/// A free body's inertial model (immutable).
#[derive(Clone, Debug, PartialEq)]
pub struct FreeBody {
    /// Name.
    pub name: String,
    /// Spatial inertia in the body frame.
    pub inertia: Inertia,
    /// Its inverse, acting on forces (linear, angular) in the body frame.
    inverse: Mat6,
    /// The Cholesky factor C of the inverse, M⁻¹ = C·Cᵀ (lower triangular).
    inverse_factor: Mat6,
}

/// Where a free body is and how it moves.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FreeBodyState {
    /// world_from_body.
    pub pose: SE3,
    /// Velocity in the body frame (linear of its origin, angular).
    pub velocity: Motion,
}

impl FreeBody {
    /// A body of this inertia: positive mass and a positive definite rotational inertia.
    pub fn new(name: &str, inertia: Inertia) -> Result<Self, FreeBodyError> {
        let fail = |reason: &str| FreeBodyError { name: name.to_owned(), reason: reason.to_owned() };
        if !(inertia.mass > 0.0 && inertia.mass.is_finite()) {
            return Err(fail("mass must be positive and finite"));
        }
        let inverse = inertia.matrix().try_inverse().ok_or_else(|| fail("singular inertia"))?;
        if !inertia.rotational.symmetric_eigenvalues().iter().all(|&e| e > 0.0)
            || !inverse.iter().all(|x| x.is_finite())
        {
            return Err(fail("rotational inertia must be positive definite"));
        }
        let inverse_factor = inverse.cholesky().ok_or_else(|| fail("singular inertia"))?.l();
        Ok(Self { name: name.to_owned(), inertia, inverse, inverse_factor })
    }

    /// A solid box of `mass` and half extents `h`, centred on its frame.
    pub fn cuboid(name: &str, mass: f64, h: &Vec3) -> Result<Self, FreeBodyError> {
        let (x, y, z) = ((2.0 * h.x).powi(2), (2.0 * h.y).powi(2), (2.0 * h.z).powi(2));
        let rotational = Mat3::from_diagonal(&Vec3::new(y + z, x + z, x + y)) * (mass / 12.0);
        Self::new(name, Inertia::new(mass, Vec3::zeros(), rotational))
    }

    /// A solid ball of `mass` and `radius`.
    pub fn ball(name: &str, mass: f64, radius: f64) -> Result<Self, FreeBodyError> {
        Self::new(name, Inertia::new(mass, Vec3::zeros(), Mat3::identity() * (0.4 * mass * radius * radius)))
    }

    /// A solid cylinder of `mass`, `radius` and `length` along its z axis, centred on its
    /// frame.
    pub fn cylinder(name: &str, mass: f64, radius: f64, length: f64) -> Result<Self, FreeBodyError> {
        let side = mass * (3.0 * radius * radius + length * length) / 12.0;
        let rotational = Mat3::from_diagonal(&Vec3::new(side, side, 0.5 * mass * radius * radius));
        Self::new(name, Inertia::new(mass, Vec3::zeros(), rotational))
    }

    /// M⁻¹ in the body frame.
    pub fn inverse_mass_matrix(&self) -> &Mat6 {
        &self.inverse
    }

    /// C with M⁻¹ = C·Cᵀ (lower triangular, body frame): J·M⁻¹·Jᵀ = (J·C)(J·C)ᵀ.
    pub fn inverse_factor(&self) -> &Mat6 {
        &self.inverse_factor
    }

    /// The velocity after `dt` under `gravity` (world, m/s²) and the wrench `external` (body
    /// frame) without contacts, semi-implicit Euler: v + dt·M⁻¹(f − v ×* M v).
    pub fn free_velocity(&self, state: &FreeBodyState, gravity: &Vec3, external: &Force, dt: f64) -> Motion {
        let g_body = state.pose.rotation.transpose() * gravity;
        let weight = self.inertia.mass * g_body;
        let f_gravity = Force { linear: weight, angular: self.inertia.com.cross(&weight) };
        let bias = self.inertia.vxiv(&state.velocity);
        let f = (f_gravity + *external - bias).to_vector();
        Motion::from_vector(&(state.velocity.to_vector() + self.inverse * f * dt))
    }
}

impl FreeBodyState {
    /// At rest at `pose`.
    pub fn at_rest(pose: SE3) -> Self {
        Self { pose, velocity: Motion::ZERO }
    }

    /// The pose after moving with the body-frame velocity `v` for `dt` (exact on SE(3),
    /// as the free flyer's integration).
    pub fn integrate(&mut self, v: &Motion, dt: f64) {
        self.velocity = *v;
        self.pose = self.pose.compose(&SE3::exp(&(*v * dt)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_falls_with_gravity_and_spins_freely() {
        let b = FreeBody::cuboid("box", 2.0, &Vec3::new(0.1, 0.2, 0.3)).unwrap();
        let s = FreeBodyState::at_rest(SE3::new(crate::spatial::rotation_from_rpy(0.3, 0.2, 0.1), Vec3::zeros()));
        let v = b.free_velocity(&s, &Vec3::new(0.0, 0.0, -9.81), &Force::ZERO, 1e-3);
        // Body-frame linear velocity = Rᵀ·(0, 0, −g·dt).
        let want = s.pose.rotation.transpose() * Vec3::new(0.0, 0.0, -9.81e-3);
        assert!((v.linear - want).norm() < 1e-15 && v.angular.norm() < 1e-15);
        assert!(FreeBody::cuboid("flat", 1.0, &Vec3::new(0.1, 0.1, 0.0)).is_ok(), "a plate has inertia");
        assert!(FreeBody::new("nothing", Inertia::ZERO).is_err());
    }
}
