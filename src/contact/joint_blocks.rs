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
//! - Both. A joint resting on its limit (φ ≤ [`RESTING`]) with friction F would have two
//!   blocks on the same row e_dof: while both can hold it (v⁺ = 0), their impulses are not
//!   unique (only their sum is), G is singular along the pair, and the ADMM's penalty rule
//!   swings from one iteration to the next without meeting the tolerance (a turntable on
//!   its limit pulled away below F: 1000 iterations, 1001 factorizations,
//!   tests/sim_joints.rs). There the law is one block: with u = ±v⁺ the velocity away
//!   from the limit and t = −(penetration recovery)·φ/Δt ≥ 0 its target, the limit's
//!   0 ≤ λ_L ⊥ u − t ≥ 0 and the friction's λ_F ∈ −F·Δt·Sign(u) sum to Λ = λ_L + λ_F
//!   with Λ + F·Δt ≥ 0 ⊥ u − t ≥ 0 (moving away, u > 0, the friction holds back at
//!   exactly F; at rest any split is the same motion). So the joint gets its friction F
//!   against the direction away from the limit in its free motion
//!   ([`JointBlock::held_friction`], added by the simulator's stage 2) and the limit's
//!   block alone, on λ' = Λ + F·Δt: the same solutions, unique.

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
        /// The joint's Coulomb friction F folded into the limit's block when it rests on
        /// the limit (the module's "Both"), else 0.
        friction: f64,
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

    /// Whether the block carries the joint's Coulomb friction: a friction block, or a
    /// limit holding it (the module's "Both").
    pub fn has_friction(&self) -> bool {
        match self.kind {
            JointBlockKind::Limit { friction, .. } => friction > 0.0,
            JointBlockKind::Friction { .. } => true,
        }
    }

    /// The generalized force on the dof that a limit holding the joint's friction adds to
    /// its free motion: −sign·F, the friction against motion away from the limit (the
    /// module's "Both"); 0 for the other blocks.
    pub fn held_friction(&self) -> f64 {
        match self.kind {
            JointBlockKind::Limit { sign, friction, .. } => -sign * friction,
            JointBlockKind::Friction { .. } => 0.0,
        }
    }
}

/// A limit's gap at or below which the joint rests on it and its friction joins the
/// limit's block (rad or m): a joint stopped by its limit ends the step at φ = 0 to the
/// solver's tolerance on its velocity (1e-6 rad/s over a step of 1 ms).
pub const RESTING: f64 = 1e-9;

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
        let force = model.friction[iv];
        let force = if force > 0.0 && force.is_finite() { force } else { 0.0 };
        let mut held = false;
        for (sign, bound) in [(1.0, model.lower_position_limit[iq]), (-1.0, model.upper_position_limit[iq])] {
            if !limited || !bound.is_finite() {
                continue;
            }
            let gap = sign * (x - bound);
            if gap + dt * (sign * v).min(0.0) <= margin && out.len() < out.capacity() {
                let side = if sign > 0.0 { 0 } else { 1 };
                let id = ContactId::new(usize::MAX, iv, side, u32::MAX);
                let resting = gap <= RESTING && !held;
                held |= resting;
                let friction = if resting { force } else { 0.0 };
                out.push(JointBlock { dof: iv, kind: JointBlockKind::Limit { sign, gap, friction }, id });
            }
        }
        if force > 0.0 && !held && out.len() < out.capacity() {
            let id = ContactId::new(usize::MAX, iv, 2, u32::MAX);
            out.push(JointBlock { dof: iv, kind: JointBlockKind::Friction { force }, id });
        }
    }
}
