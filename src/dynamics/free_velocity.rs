//! The contact-free velocity of one semi-implicit Euler step (seed 002 eq. 2, seed 000
//! eq. 22): the velocity the robot reaches at the end of the step if no contact impulse
//! acts, v_f = v + Δt·M⁻¹(τ + τ_ext − b(q, v)), by the tree-sparse LTDL factors of M
//! rather than ABA, so that the same factors serve the Delassus operator G = J M⁻¹ Jᵀ and
//! the impulses' velocity change M⁻¹Jᵀλ of the step.

use super::{crba_placed, forward_kinematics, ltdl_decompose, ltdl_solve, rnea_placed};
use crate::model::{Data, Model};
use crate::spatial::{Force, Vec3};

/// The contact-free velocity v_f (nv) into `v_free` at (q, v) under joint forces `tau`
/// over a step `dt`, leaving in `data` what the step's contact problem is built from: the
/// placements and world joint Jacobians at q, M and its LTDL factors.
///
/// `damping` (one viscous coefficient per dof, or empty) is taken implicitly: M + Δt·D is
/// factored, so that v_f solves (M + Δt·D) v_f = M v + Δt(τ − b) and G = J (M + Δt·D)⁻¹ Jᵀ
/// stays consistent with it. `external` (one per joint, or empty) are wrenches on the
/// joints' bodies, world axes, torque about the joint's origin: τ_ext = Σ_i J_iᵀ F_i.
#[allow(clippy::too_many_arguments)]
pub fn free_velocity(
    model: &Model,
    data: &mut Data,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    external: &[Force],
    damping: &[f64],
    dt: f64,
    v_free: &mut [f64],
) {
    forward_kinematics(model, data, q);
    free_velocity_placed(model, data, v, tau, external, damping, dt, v_free);
}

/// [`free_velocity`] with the placements already in `data` at q (left by
/// [`super::forward_kinematics`] at the same q, as the simulator's end-of-step check leaves
/// them for the next step): the joints are not placed again.
#[allow(clippy::too_many_arguments)]
pub fn free_velocity_placed(
    model: &Model,
    data: &mut Data,
    v: &[f64],
    tau: &[f64],
    external: &[Force],
    damping: &[f64],
    dt: f64,
    v_free: &mut [f64],
) {
    // CRBA fills the world Jacobians on its way down.
    crba_placed(model, data);
    for (k, d) in damping.iter().enumerate() {
        data.mass_matrix[(k, k)] += dt * d;
    }
    ltdl_decompose(model, data);
    let b = rnea_placed(model, data, v, &[]);
    // (M + Δt·D)(v_f − v) = Δt(τ − b − D·v), i.e. M(v_f − v) = Δt(τ − b − D·v_f).
    for k in 0..model.nv {
        v_free[k] = tau[k] - b[k] - damping.get(k).map_or(0.0, |d| d * v[k]);
    }
    add_external_forces(model, data, external, v_free);
    ltdl_solve(model, data, &mut v_free[..model.nv]);
    for k in 0..model.nv {
        v_free[k] = v[k] + dt * v_free[k];
    }
}

/// Adds Σ_i J_iᵀ F_i to `tau` (nv) for the wrenches `external` (per joint: world axes,
/// torque about the joint's origin), with the world Jacobian columns of `data` (the
/// spatial force at the world origin is (f, n + p_i × f)).
fn add_external_forces(model: &Model, data: &Data, external: &[Force], tau: &mut [f64]) {
    for (i, w) in external.iter().enumerate().skip(1) {
        if *w == Force::ZERO {
            continue;
        }
        let at_origin = w.angular + data.o_m_i[i].translation.cross(&w.linear);
        let mut k = model.idx_v[i] + model.joint_types[i].nv() - 1;
        while k != crate::model::NO_PARENT {
            let c = data.j.fixed_view::<6, 1>(0, k);
            tau[k] += Vec3::new(c[0], c[1], c[2]).dot(&w.linear) + Vec3::new(c[3], c[4], c[5]).dot(&at_origin);
            k = model.dof_parent[k];
        }
    }
}
