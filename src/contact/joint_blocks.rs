//! Joint position limits and joint Coulomb friction as blocks of the contact problem.
//!
//! - Limits. A 1-dof joint at q with limits [q_lo, q_hi] keeps the gaps φ_lo = q − q_lo ≥ 0
//!   and φ_hi = q_hi − q ≥ 0. Each gap that may close within the step becomes one more
//!   block of the problem with Jacobian ±e_dof on its normal row, no tangent rows and
//!   μ = 0: the cone K_0 = {λ_T = 0, λ_N ≥ 0} makes it exactly Signorini's condition on the
//!   joint, 0 ≤ λ ⊥ (±v⁺ + φ/Δt) ≥ 0, solved together with the contacts (seed 000 eq. 27
//!   with the joint-space rows of its §II-A). The bias is the contacts' (see
//!   [`super::assembly`]): a gap may close within the step, a violation is removed at the
//!   penetration recovery rate.
//! - Friction. A joint with URDF `<dynamics friction="F">` gets a block with e_dof on its
//!   normal row and the interval |λ| ≤ F·Δt ([`super::cone::BlockSet::Interval`]): the
//!   joint sticks (v⁺ = 0) while the friction it needs is below F, and otherwise slips
//!   against exactly F (maximum dissipation), coupled with the contacts in the same solve.

use crate::collision::ContactId;
use crate::model::{JointType, Model};

/// What a joint block enforces.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum JointBlockKind {
    /// A position limit.
    Limit {
        /// +1 for the lower limit (constraint row e_dof), −1 for the upper (−e_dof).
        sign: f64,
        /// φ: distance to the limit (rad or m), negative when past it.
        gap: f64,
    },
    /// Coulomb friction of at most `force` (N·m or N).
    Friction {
        /// F, from the URDF.
        force: f64,
    },
}

/// One joint block of the problem.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointBlock {
    /// The dof.
    pub dof: usize,
    /// Limit or friction.
    pub kind: JointBlockKind,
    /// Persistent id (for warm starts), distinct from every collision contact's.
    pub id: ContactId,
}

impl JointBlock {
    /// The sign of e_dof on the block's row (friction rows are +e_dof).
    pub fn sign(&self) -> f64 {
        match self.kind {
            JointBlockKind::Limit { sign, .. } => sign,
            JointBlockKind::Friction { .. } => 1.0,
        }
    }

    /// Whether this is a position limit.
    pub fn is_limit(&self) -> bool {
        matches!(self.kind, JointBlockKind::Limit { .. })
    }
}

/// How many joint blocks `model` can need at most: two limits per limited dof and one
/// friction block per dof with friction.
pub fn capacity(model: &Model) -> usize {
    2 * model.nv + model.friction.iter().filter(|&&f| f > 0.0).count()
}

/// Collects into `out` the limits of `model`'s 1-dof joints at configuration `q` that may
/// be reached within a step of `dt` at the contact-free velocity `v_free`, or lie within
/// `margin` of it, then a friction block for every 1-dof joint (continuous ones too) with friction. `out` keeps
/// its capacity ([`capacity`] is enough): nothing allocates.
pub fn collect(model: &Model, q: &[f64], v_free: &[f64], dt: f64, margin: f64, out: &mut Vec<JointBlock>) {
    out.clear();
    for j in 1..model.njoints() {
        let ty = model.joint_types[j];
        if ty.nv() != 1 {
            continue;
        }
        let (iq, iv) = (model.idx_q[j], model.idx_v[j]);
        let (Some(&x), Some(&v)) = (q.get(iq), v_free.get(iv)) else { continue };
        // Only a revolute or prismatic coordinate is an angle or a length that limits bound.
        let limited = matches!(ty, JointType::Revolute { .. } | JointType::Prismatic { .. });
        for (sign, bound) in [(1.0, model.lower_position_limit[iq]), (-1.0, model.upper_position_limit[iq])] {
            if !limited || !bound.is_finite() {
                continue;
            }
            let gap = sign * (x - bound);
            if gap + dt * (sign * v).min(0.0) <= margin && out.len() < out.capacity() {
                let side = if sign > 0.0 { 0 } else { 1 };
                let id = ContactId::new(usize::MAX, iv, side, u32::MAX);
                out.push(JointBlock { dof: iv, kind: JointBlockKind::Limit { sign, gap }, id });
            }
        }
        let force = model.friction[iv];
        if force > 0.0 && force.is_finite() && out.len() < out.capacity() {
            let id = ContactId::new(usize::MAX, iv, 2, u32::MAX);
            out.push(JointBlock { dof: iv, kind: JointBlockKind::Friction { force }, id });
        }
    }
}
