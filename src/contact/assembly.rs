//! Builds the [`ContactProblem`] of one step from the bodies and the detected contacts.
//!
//! Generalized velocity: the robot's nv first, then 6 per free body (linear, angular, in
//! the body frame). For contact k between body 1 and body 2 at world point p with frame
//! C = (Tx, Ty, N) (N into body 1):
//!
//! ```text
//! J_k = Cᵀ (J₁(p) − J₂(p))          rows 3k..3k+3: the velocity of body 1 relative to body 2
//! G   = J M⁻¹ Jᵀ                    M⁻¹Jᵀ by the robot's tree-sparse LTDL and the free
//!                                   bodies' constant 6×6 inverses
//! g   = J v_f + γ                   v_f: the velocity after the step without contacts
//! ```
//!
//! The bias γ = (0, 0, −c*_N) states Signorini at the position level, c_N ≥ c*_N with
//!
//! ```text
//! c*_N = −φ/Δt                    for a gap φ ≥ 0: it may close within the step, not more
//! c*_N = −β φ/Δt                  for a penetration φ < 0: β = 1 removes it in one step;
//!                                 β < 1 is Baumgarte's stabilization with k_B = β/Δt
//! c*_N = max(c*_N, −e·c⁻_N)       restitution e, when the contact closes within the step
//!                                 at c⁻_N = (J v)_N < −v_e (the pre-step velocity)
//! ```
//!
//! so that a normal impulse appears only when the bodies would otherwise overlap at the end
//! of the step. Compliance (m/N, penetration per newton) enters as R = compliance/Δt²: at
//! rest φ = −R·Δt·λ_N (seed 000 eq. 24, digest AT-12).

use nalgebra::Matrix3xX;
use serde::{Deserialize, Serialize};

use super::dense::dot;
use super::problem::{ContactProblem, ProblemError};
use crate::collision::{Contact, Owner};
use crate::dynamics;
use crate::model::{Data, FreeBody, FreeBodyState, Model};
use crate::spatial::{Vec3, skew};

/// The bodies contact impulses act on.
#[derive(Copy, Clone, Debug)]
pub struct Bodies<'a> {
    /// The robot: its Data must hold the joint Jacobians (`compute_joint_jacobians`) and
    /// the LTDL factors of M (`crba` then `ltdl_decompose`) at the current configuration.
    pub robot: Option<(&'a Model, &'a Data)>,
    /// Free bodies and their states.
    pub free: &'a [FreeBody],
    /// States, one per free body.
    pub free_states: &'a [FreeBodyState],
}

impl Bodies<'_> {
    /// Robot dofs.
    pub fn robot_nv(&self) -> usize {
        self.robot.map_or(0, |(m, _)| m.nv)
    }

    /// Total dofs.
    pub fn nv(&self) -> usize {
        self.robot_nv() + 6 * self.free.len()
    }
}

/// How contacts become the problem's bias and compliance (`contact:` in the
/// configuration).
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProblemSettings {
    /// β: fraction of a penetration removed per step (1: all of it; Baumgarte k_B = β/Δt).
    pub penetration_recovery: f64,
    /// v_e: below this approach speed (m/s) restitution is ignored (a resting contact does
    /// not bounce).
    pub restitution_threshold: f64,
    /// Normal compliance (m/N); 0 = rigid.
    pub compliance_normal: f64,
    /// Tangential compliance (m/N); 0 = exact stiction.
    pub compliance_tangential: f64,
}

impl Default for ProblemSettings {
    fn default() -> Self {
        Self {
            penetration_recovery: 1.0,
            restitution_threshold: 0.1,
            compliance_normal: 0.0,
            compliance_tangential: 0.0,
        }
    }
}

/// The Jacobian and M⁻¹Jᵀ of the last assembled problem (needed again to apply the
/// impulses), in buffers sized once.
#[derive(Clone, Debug)]
pub struct Assembly {
    capacity: usize,
    nv: usize,
    rows: usize,
    /// J, 3 n_c rows of nv (rows contiguous).
    jacobian: Vec<f64>,
    /// M⁻¹Jᵀ stored transposed: row r = (M⁻¹ J_rᵀ)ᵀ.
    minv_jt: Vec<f64>,
    point: Matrix3xX<f64>,
}

impl Assembly {
    /// Room for `capacity` contacts and `nv` dofs.
    pub fn with_capacity(capacity: usize, nv: usize, robot_nv: usize) -> Self {
        Self {
            capacity,
            nv,
            rows: 0,
            jacobian: Vec::with_capacity(3 * capacity * nv),
            minv_jt: Vec::with_capacity(3 * capacity * nv),
            point: Matrix3xX::zeros(robot_nv),
        }
    }

    /// J of the last problem (3 n_c × nv, rows contiguous).
    pub fn jacobian(&self) -> &[f64] {
        &self.jacobian[..self.rows * self.nv]
    }

    /// Adds M⁻¹Jᵀλ to `v` (nv): the velocity change the impulses cause.
    pub fn apply_impulses(&self, lambda: &[f64], v: &mut [f64]) {
        let nv = self.nv;
        for (r, l) in lambda[..self.rows].iter().enumerate() {
            if *l != 0.0 {
                for (vk, xk) in v[..nv].iter_mut().zip(&self.minv_jt[r * nv..r * nv + nv]) {
                    *vk += l * xk;
                }
            }
        }
    }

    /// Adds Jᵀλ to `tau` (nv): the generalized impulse (or force, for forces) of λ.
    pub fn add_transpose_product(&self, lambda: &[f64], tau: &mut [f64]) {
        let nv = self.nv;
        for (r, l) in lambda[..self.rows].iter().enumerate() {
            for (tk, jk) in tau[..nv].iter_mut().zip(&self.jacobian[r * nv..r * nv + nv]) {
                *tk += l * jk;
            }
        }
    }

    /// Fills `problem` for `contacts` between `bodies` over a step `dt`: `v` is the
    /// velocity at the start of the step, `v_free` the velocity at its end without contact
    /// impulses (both nv). Errors (and leaves an empty problem) beyond the capacity.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        bodies: &Bodies,
        contacts: &[Contact],
        v: &[f64],
        v_free: &[f64],
        dt: f64,
        settings: &ProblemSettings,
        problem: &mut ContactProblem,
    ) -> Result<(), ProblemError> {
        let n = contacts.len();
        let nv = bodies.nv();
        assert_eq!(nv, self.nv, "the assembly was sized for {} dofs", self.nv);
        if n > self.capacity {
            problem.reset(0)?;
            self.rows = 0;
            return Err(ProblemError::Capacity { contacts: n, capacity: self.capacity });
        }
        problem.reset(n)?;
        let m = 3 * n;
        self.rows = m;
        self.jacobian.clear();
        self.jacobian.resize(m * nv, 0.0);
        self.minv_jt.clear();
        self.minv_jt.resize(m * nv, 0.0);
        let robot_nv = bodies.robot_nv();

        for (k, c) in contacts.iter().enumerate() {
            for (owner, sign) in [(c.body1, 1.0), (c.body2, -1.0)] {
                self.add_body_rows(bodies, k, &owner, &c.point, &c.frame, sign, robot_nv);
            }
        }
        // M⁻¹Jᵀ, row by row.
        self.minv_jt.copy_from_slice(&self.jacobian);
        for r in 0..m {
            let row = &mut self.minv_jt[r * nv..r * nv + nv];
            if let Some((model, data)) = bodies.robot {
                dynamics::ltdl_solve(model, data, &mut row[..robot_nv]);
            }
            for (b, body) in bodies.free.iter().enumerate() {
                let seg = &mut row[robot_nv + 6 * b..robot_nv + 6 * b + 6];
                if seg.iter().any(|x| *x != 0.0) {
                    let x = body.inverse_mass_matrix() * nalgebra::Vector6::from_column_slice(seg);
                    seg.copy_from_slice(x.as_slice());
                }
            }
        }
        // G = J M⁻¹ Jᵀ (symmetric: the lower triangle, mirrored).
        for a in 0..m {
            let ja = &self.jacobian[a * nv..a * nv + nv];
            for b in 0..=a {
                let x = dot(ja, &self.minv_jt[b * nv..b * nv + nv]);
                problem.delassus[a * m + b] = x;
                problem.delassus[b * m + a] = x;
            }
        }
        // g = J v_f + γ, μ, R, ids.
        let r_n = settings.compliance_normal / (dt * dt);
        let r_t = settings.compliance_tangential / (dt * dt);
        for (k, c) in contacts.iter().enumerate() {
            for a in 0..3 {
                let r = 3 * k + a;
                problem.g[r] = dot(&self.jacobian[r * nv..r * nv + nv], v_free);
            }
            let rn = 3 * k + 2;
            let phi = c.distance;
            let mut target = if phi >= 0.0 { -phi / dt } else { -settings.penetration_recovery * phi / dt };
            if c.restitution > 0.0 {
                let before = dot(&self.jacobian[rn * nv..rn * nv + nv], v);
                if before < -settings.restitution_threshold && phi + dt * before < 0.0 {
                    target = target.max(-c.restitution * before);
                }
            }
            problem.g[rn] -= target;
            problem.mu[k] = c.friction;
            problem.compliance[3 * k] = r_t;
            problem.compliance[3 * k + 1] = r_t;
            problem.compliance[rn] = r_n;
            problem.ids[k] = c.id;
        }
        Ok(())
    }

    /// Adds `sign`·Cᵀ·J_body(p) to the rows of contact `k`.
    #[allow(clippy::too_many_arguments)]
    fn add_body_rows(
        &mut self,
        bodies: &Bodies,
        k: usize,
        owner: &Owner,
        p: &Vec3,
        frame: &crate::spatial::Mat3,
        sign: f64,
        robot_nv: usize,
    ) {
        let nv = self.nv;
        match *owner {
            Owner::Static => {}
            Owner::Robot { joint } => {
                let Some((model, data)) = bodies.robot else { return };
                if joint == 0 {
                    return; // fixed to the world
                }
                dynamics::point_jacobian(model, data, joint, p, &mut self.point);
                // Only the dofs supporting the joint are non-zero.
                let mut col = model.idx_v[joint] + model.joint_types[joint].nv() - 1;
                loop {
                    let jc = self.point.column(col);
                    for a in 0..3 {
                        self.jacobian[(3 * k + a) * nv + col] += sign * frame.column(a).dot(&jc);
                    }
                    col = model.dof_parent[col];
                    if col == crate::model::NO_PARENT {
                        break;
                    }
                }
            }
            Owner::Free { body } => {
                let Some(state) = bodies.free_states.get(body) else { return };
                // ṗ = R (v + ω × r) = R v − R [r]ₓ ω, r = p in the body frame.
                let rot = &state.pose.rotation;
                let r_local = state.pose.act_inv_point(p);
                let lin = rot;
                let ang = -(rot * skew(&r_local));
                let base = robot_nv + 6 * body;
                for a in 0..3 {
                    let ca = frame.column(a);
                    let row = (3 * k + a) * nv + base;
                    for j in 0..3 {
                        self.jacobian[row + j] += sign * ca.dot(&lin.column(j));
                        self.jacobian[row + 3 + j] += sign * ca.dot(&ang.column(j));
                    }
                }
            }
        }
    }
}

/// The robot's part of a step's setup at (q, v) under joint forces `tau`: placements and
/// joint Jacobians, M and its LTDL factors in `data`, and the contact-free velocity
/// v_f = v + Δt·M⁻¹(τ − b(q, v)) into `v_free` (nv). Reuses the factorization of M instead
/// of running ABA. `damping` (one viscous coefficient per dof, or empty) is taken
/// implicitly: M + Δt·D is factored, so that v_f solves (M + Δt·D) v_f = M v + Δt(τ − b)
/// and G = J (M + Δt·D)⁻¹ Jᵀ stays consistent with it.
#[allow(clippy::too_many_arguments)]
pub fn prepare_robot(
    model: &Model,
    data: &mut Data,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    damping: &[f64],
    dt: f64,
    v_free: &mut [f64],
) {
    dynamics::compute_joint_jacobians(model, data, q);
    dynamics::crba(model, data, q);
    for (k, d) in damping.iter().enumerate() {
        data.mass_matrix[(k, k)] += dt * d;
    }
    dynamics::ltdl_decompose(model, data);
    let b = dynamics::nonlinear_effects(model, data, q, v);
    for k in 0..model.nv {
        v_free[k] = tau[k] - b[k];
    }
    dynamics::ltdl_solve(model, data, &mut v_free[..model.nv]);
    for k in 0..model.nv {
        v_free[k] = v[k] + dt * v_free[k];
    }
}
