//! Joint position limits as unilateral constraints of the contact problem.
//!
//! A 1-dof joint at q with limits [q_lo, q_hi] keeps the gaps φ_lo = q − q_lo ≥ 0 and
//! φ_hi = q_hi − q ≥ 0. Each gap that may close within the step becomes one more block of
//! the problem with Jacobian ±e_dof on its normal row, no tangent rows and μ = 0: the cone
//! K_0 = {λ_T = 0, λ_N ≥ 0} makes it exactly Signorini's condition on the joint,
//! 0 ≤ λ ⊥ (±v⁺ + φ/Δt) ≥ 0, solved together with the contacts (seed 000 eq. 27 with the
//! joint-space rows of its §II-A). The bias is the contacts' (see [`super::assembly`]): a
//! gap may close within the step, a violation is removed at the penetration recovery rate.

use crate::collision::ContactId;
use crate::model::{JointType, Model};

/// One active joint limit.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointLimit {
    /// The limited dof.
    pub dof: usize,
    /// +1 for the lower limit (constraint row e_dof), −1 for the upper (−e_dof).
    pub sign: f64,
    /// φ: distance to the limit (rad or m), negative when past it.
    pub gap: f64,
    /// Persistent id (for warm starts), distinct from every collision contact's.
    pub id: ContactId,
}

/// Collects into `out` the limits of `model`'s 1-dof joints at configuration `q` that may
/// be reached within a step of `dt` at the contact-free velocity `v_free`, or lie within
/// `margin` of it. `out` keeps its capacity (2 nv is enough): nothing allocates.
pub fn collect(model: &Model, q: &[f64], v_free: &[f64], dt: f64, margin: f64, out: &mut Vec<JointLimit>) {
    out.clear();
    for j in 1..model.njoints() {
        if !matches!(model.joint_types[j], JointType::Revolute { .. } | JointType::Prismatic { .. }) {
            continue;
        }
        let (iq, iv) = (model.idx_q[j], model.idx_v[j]);
        let (Some(&x), Some(&v)) = (q.get(iq), v_free.get(iv)) else { continue };
        for (sign, bound) in [(1.0, model.lower_position_limit[iq]), (-1.0, model.upper_position_limit[iq])] {
            if !bound.is_finite() {
                continue;
            }
            let gap = sign * (x - bound);
            if gap + dt * (sign * v).min(0.0) <= margin && out.len() < out.capacity() {
                let side = if sign > 0.0 { 0 } else { 1 };
                out.push(JointLimit { dof: iv, sign, gap, id: ContactId::new(usize::MAX, iv, side, u32::MAX) });
            }
        }
    }
}
