//! Projected Gauss–Seidel, the per-contact baseline of Bullet, ODE and friends (seed 002
//! §III), for the NCP and for the CCP:
//!
//! - NCP-PGS (seed 002 Alg. 6): per contact, a normal step λ_N ← max(0, λ_N − σ_N/G_NN),
//!   then a tangential step λ_T ← λ_T − σ_T/min(G_TxTx, G_TyTy) with σ_T updated for the
//!   new λ_N, projected "horizontally" onto the disk ‖λ_T‖ ≤ μλ_N.
//! - CCP-PGS (seed 002 Alg. 2): λ_i ← P_K(λ_i − 3σ_i / tr(G_ii)).
//! - LCP-PGS (seed 002 Alg. 1, [`super::lcp`]): the NCP's normal step, then the tangential
//!   one clamped componentwise to the pyramid |λ_t| ≤ μλ_N.
//! - A joint-friction interval (any model): λ_N ← clamp(λ_N − σ_N/G_NN, −b, b).
//!
//! with σ = (G + R)λ + g from the latest values (Gauss–Seidel). Relaxation uses the usual
//! convention λ ← ω·λ_new + (1 − ω)·λ_old (ω = 1: plain Gauss–Seidel; the digest's §2.5.5
//! notes the paper's printed formula weights the other way). The sweep stops when the NCP
//! criterion (the CCP one for CCP-PGS), evaluated per contact right after its update, is
//! below the tolerance for every contact. Fast on well-conditioned problems; it stalls on
//! strongly coupled ones (mass ratios) and leaves internal forces in hyperstatic ones,
//! which is why it is a baseline here.

use super::cone::{self, BlockSet, Vec3c};
use super::dense::dot;
use super::lcp;
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{ContactModel, Residuals, SolveError, SolveResult, Solver, StoppingRule, WarmStart};

/// PGS settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PgsSettings {
    /// NCP (Alg. 6) or CCP (Alg. 2).
    pub model: ContactModel,
    /// Stopping rules (an iteration is one sweep over the contacts).
    pub stop: StoppingRule,
    /// Relaxation ω ∈ (0, 2).
    pub relaxation: f64,
    /// Record the residuals of every sweep in the result's history.
    pub record_history: bool,
}

impl Default for PgsSettings {
    fn default() -> Self {
        Self { model: ContactModel::Ncp, stop: StoppingRule::default(), relaxation: 1.0, record_history: false }
    }
}

/// The PGS solver.
#[derive(Debug)]
pub struct PgsSolver {
    /// Settings.
    pub settings: PgsSettings,
    capacity: usize,
    previous: Vec<f64>,
}

impl PgsSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: PgsSettings) -> Self {
        Self { settings, capacity, previous: Vec::with_capacity(3 * capacity) }
    }
}

/// Projection on a block's set: the pyramid for the LCP, else the cone.
fn project(model: ContactModel, set: &BlockSet, x: &Vec3c) -> Vec3c {
    if model == ContactModel::Lcp { lcp::project(set, x) } else { set.project(x) }
}

/// σ_i = row i of (G + R)λ + g, from the latest values.
fn velocity(problem: &ContactProblem, lambda: &[f64], i: usize) -> Vec3c {
    let (g_mat, g, r, m) = (&problem.delassus, &problem.g, &problem.compliance, 3 * problem.contacts());
    let mut v = [0.0; 3];
    for a in 0..3 {
        let j = 3 * i + a;
        v[a] = dot(&g_mat[j * m..j * m + m], lambda) + r[j] * lambda[j] + g[j];
    }
    v
}

/// 1/d for a diagonal entry d of G + R, or 0 where d is not positive: a row of G that is
/// zero (a contact whose body cannot move along it, e.g. on a link fixed to the world) has
/// no step, and its impulse stays where it is instead of becoming ±∞ and then NaN.
fn inverse(d: f64) -> f64 {
    if d > 0.0 { 1.0 / d } else { 0.0 }
}

/// Block `i`'s new impulse from `old` and its velocity `sigma`, before relaxation: the
/// exact 1-D step clamped for a joint-friction interval; for a cone the normal then the
/// tangential step projected on the disk (NCP, seed 002 Alg. 6), the pyramid's step (LCP,
/// Alg. 1) or the projected step 3σ_i / tr(G_ii) (CCP, Alg. 2).
fn block_step(problem: &ContactProblem, model: ContactModel, i: usize, old: &Vec3c, sigma: &Vec3c) -> Vec3c {
    let (g_mat, r, m) = (&problem.delassus, &problem.compliance, 3 * problem.contacts());
    let d = |a: usize| g_mat[(3 * i + a) * m + 3 * i + a] + r[3 * i + a];
    let (inv_t, inv_n) = (inverse(d(0).min(d(1))), inverse(d(2)));
    // Column N of the contact's block: σ_T after the normal change.
    let column = |a: usize| g_mat[(3 * i + a) * m + 3 * i + 2];
    match (problem.sets[i], model) {
        (BlockSet::Interval(b), _) => [0.0, 0.0, (old[2] - sigma[2] * inv_n).clamp(-b, b)],
        (BlockSet::Cone(mu), ContactModel::Ncp) => {
            let normal = (old[2] - sigma[2] * inv_n).max(0.0);
            let dn = normal - old[2];
            let st = [sigma[0] + column(0) * dn, sigma[1] + column(1) * dn];
            let mut t = [old[0] - st[0] * inv_t, old[1] - st[1] * inv_t];
            let limit = mu * normal;
            let len = (t[0] * t[0] + t[1] * t[1]).sqrt();
            if len > limit {
                let scale = if len > 0.0 { limit / len } else { 0.0 };
                t = [t[0] * scale, t[1] * scale];
            }
            [t[0], t[1], normal]
        }
        (BlockSet::Cone(mu), ContactModel::Lcp) => {
            lcp::pyramid_step(mu, old, sigma, inv_t, inv_n, [column(0), column(1)])
        }
        (BlockSet::Cone(mu), ContactModel::Ccp) => {
            let step = 3.0 * inverse(d(0) + d(1) + d(2));
            cone::project_cone(mu, &[old[0] - step * sigma[0], old[1] - step * sigma[1], old[2] - step * sigma[2]])
        }
    }
}

/// Adds to `worst` block `i`'s criterion with its new impulse `next` (was `old`, at
/// velocity `sigma`; σ_i moves by (G_ii + R_i)Δλ_i): the LCP's, or the NCP's (the CCP's)
/// cone violation, dual-cone violation and complementarity (seed 002 §2.3).
fn add_criterion(
    problem: &ContactProblem,
    model: ContactModel,
    i: usize,
    (old, next, sigma): (&Vec3c, &Vec3c, &Vec3c),
    worst: &mut Residuals,
) {
    let (g_mat, r, m) = (&problem.delassus, &problem.compliance, 3 * problem.contacts());
    let set = &problem.sets[i];
    let change = cone::sub(next, old);
    let mut after = *sigma;
    for a in 0..3 {
        let j = 3 * i + a;
        after[a] += (0..3).map(|b| g_mat[j * m + 3 * i + b] * change[b]).sum::<f64>() + r[j] * change[a];
    }
    if model == ContactModel::Lcp {
        worst.dual = worst.dual.max(lcp::violation(set, next, &after));
        worst.complementarity = worst.complementarity.max((next[2] * after[2]).abs());
    } else {
        let shifted = cone::add(&after, &set.correction(model == ContactModel::Ncp, &after));
        worst.primal = worst.primal.max(set.distance(next));
        worst.dual = worst.dual.max(set.dual_distance(&shifted));
        worst.complementarity = worst.complementarity.max(set.gap(next, &shifted));
    }
}

impl PgsSolver {
    /// One Gauss–Seidel sweep over the blocks, each relaxed (λ ← ω·λ_new + (1 − ω)·λ_old,
    /// projected again when ω > 1); returns the worst criterion of the blocks right after
    /// their update.
    fn sweep(&self, problem: &ContactProblem, lambda: &mut [f64]) -> Residuals {
        let (model, omega) = (self.settings.model, self.settings.relaxation);
        let mut worst = Residuals::default();
        for (i, set) in problem.sets.iter().enumerate() {
            let old = cone::block(lambda, i);
            let sigma = velocity(problem, lambda, i);
            let new = block_step(problem, model, i, &old, &sigma);
            let mut next = [0.0; 3];
            for a in 0..3 {
                next[a] = omega * new[a] + (1.0 - omega) * old[a];
            }
            if omega > 1.0 {
                next = project(model, set, &next);
            }
            cone::set_block(lambda, i, &next);
            add_criterion(problem, model, i, (&old, &next, &sigma), &mut worst);
        }
        worst
    }
}

impl Solver for PgsSolver {
    fn name(&self) -> &'static str {
        if self.settings.model == ContactModel::Lcp { "lcp" } else { "pgs" }
    }

    fn model(&self) -> ContactModel {
        self.settings.model
    }

    fn solve(
        &mut self,
        problem: &ContactProblem,
        warm: Option<&WarmStart>,
        result: &mut SolveResult,
    ) -> Result<(), SolveError> {
        // An empty problem is one empty sweep: converged at iteration 1.
        let n = solve_skeleton::check_and_size(self.name(), self.capacity, Needs::Delassus, problem, result)?;
        let s = self.settings;
        solve_skeleton::zeroed(3 * n, [&mut self.previous]);
        solve_skeleton::warm_impulses(warm, &problem.sets, &mut result.lambda, |set, x| project(s.model, set, x));
        for k in 1..=s.stop.max_iterations {
            self.previous.copy_from_slice(&result.lambda);
            let worst = self.sweep(problem, &mut result.lambda);
            result.stats.record(k, worst, s.record_history);
            if s.stop.reached(&worst) {
                result.converged = true;
                break;
            }
            if s.stop.still(&result.lambda, &self.previous) {
                result.stats.stalled = true;
                break;
            }
        }
        // σ and z = σ + Γ(σ) for the final λ.
        solve_skeleton::finish_with_velocity(problem, s.model == ContactModel::Ncp, result);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::{SolveResult, Solver};

    /// Two contacts, the second on a body that cannot move along any of its rows (G's block
    /// zero, as a contact on a link fixed to the world has): on every model PGS leaves that
    /// impulse at 0 and solves the first (a unit mass at rest on the ground), where dividing
    /// by the zero diagonal gave ±∞ and then NaN. Pressed into the ground (g_N < 0), the
    /// immobile contact has no solution: the impulses stay finite and the solve says so.
    #[test]
    fn a_contact_that_cannot_move_gets_no_impulse_and_no_nan() {
        let mut g_mat = vec![vec![0.0; 6]; 6];
        for (a, row) in g_mat.iter_mut().enumerate().take(3) {
            row[a] = 1.0;
        }
        let weight = 9.81e-3;
        for model in [ContactModel::Ncp, ContactModel::Lcp, ContactModel::Ccp] {
            for (pressed, solvable) in [(0.0, true), (-0.01, false)] {
                let problem =
                    ContactProblem::from_dense(&g_mat, &[0.0, 0.0, -weight, 0.0, 0.0, pressed], &[0.5, 0.5], &[])
                        .unwrap();
                let mut solver = PgsSolver::with_capacity(2, PgsSettings { model, ..Default::default() });
                let mut result = SolveResult::with_capacity(2, 0);
                solver.solve(&problem, None, &mut result).unwrap();
                assert!(result.lambda.iter().all(|x| x.is_finite()), "{model:?}: {:?}", result.lambda);
                assert_eq!(result.lambda[3..6], [0.0; 3], "{model:?}");
                assert!((result.lambda[2] - weight).abs() < 1e-15, "{model:?}: {:?}", result.lambda);
                assert_eq!(result.converged, solvable, "{model:?} pressed {pressed}");
            }
        }
    }
}
