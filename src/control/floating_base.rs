//! The floating base of contact inverse dynamics (what seed 000 leaves open, §VII).
//!
//! Algorithm 2 gives the impulses λ₀ the contact model predicts for the reference, and
//! τ = RNEA − Jᵀλ/Δt. With a floating base the six base rows of τ cannot be actuated: the
//! contacts must produce the base wrench c = RNEA_base (in force units, F = λ/Δt):
//!
//! ```text
//! J_bᵀ F = c                J_b: the base columns of J (3 n_c × 6)
//! ```
//!
//! Which contacts may change: the rigid ones the reference keeps sticking (σ = J v_ref + γ
//! ≈ 0, where any impulse of the cone is complementary to σ). A separating contact
//! (σ_N > 0) must stay at zero, a sliding one on the cone's edge opposite its slip, and a
//! compliant one (R ≻ 0: σ = Rλ + c) has the one impulse its deformation gives, so they
//! keep Algorithm 2's impulses and their wrench moves to the right-hand side. The sticking
//! ones solve the cone-constrained least squares
//!
//! ```text
//! min ½‖J_Sᵀ F_S − c'‖² + ½ε‖F_S − F₀‖²   s.t. F_S ∈ K_μ,     c' = c − Σ_{fixed} J_iᵀ F_i
//! ```
//!
//! with F₀ = 0. Where the feet are redundant (four feet, six base equations) the proximal
//! term alone decides how the load is shared: F₀ = 0 gives the least-norm answer, with no
//! internal forces beyond what the cones need, the same for the same state. (A prior at the
//! previous tick's answer would let the internal forces wander from tick to tick:
//! harmless against a rigid simulator, but on a real robot they squeeze the feet against
//! each other and make them creep.) Its metric weighs a contact's tangential force by
//! (F̄ / μF̂_N)², F̂_N its normal force at the previous tick and F̄ their mean: a
//! lateral load (a push) is then shared in proportion to μ·F_N, so that no foot reaches
//! the edge of its cone before the others do (equal friction use, the usual criterion of
//! legged force distribution), and the answer stays inside the cones — one 6 × 6 solve —
//! unless the stance as a whole cannot hold the load. That is a CCP of the contact
//! problem's form — G = W·Wᵀ with W = J_S's base columns (6 of them), R = ε,
//! g = −(W c' + ε F₀) — solved by the same ADMM (Woodbury on 6 columns) and cones, after
//! the polish of the last answer's modes ([`crate::contact::polish`]). What it
//! cannot produce, the residual wrench J_bᵀF − c, is reported: zero for a feasible
//! reference, otherwise how far the reference is from what the contacts allow.

use nalgebra::{Matrix6, Vector6};

use crate::collision::ContactId;
use crate::contact::cone::{self, BlockSet};
use crate::contact::polish::Polish;
use crate::contact::{AdmmSettings, AdmmSolver, ContactModel, ContactProblem, SolveResult, Solver, StoppingRule};
use crate::contact::{WarmStart, WarmStartCache};

/// Proximal point passes of the least squares.
const PASSES: usize = 2;

/// The smallest normal force, relative to the mean, a contact's tangential weight is set
/// from.
const LIGHTEST_SHARE: f64 = 0.01;

/// Settings of the base solve.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FloatingBaseSettings {
    /// ε relative to the mean diagonal of J_S J_Sᵀ.
    pub regularization: f64,
    /// A contact whose reference velocity σ is within this (m/s, ∞-norm) of zero sticks.
    pub stick_velocity: f64,
    /// Absolute tolerance of the ADMM (N).
    pub tolerance: f64,
}

impl Default for FloatingBaseSettings {
    fn default() -> Self {
        Self { regularization: 1e-6, stick_velocity: 1e-6, tolerance: 1e-9 }
    }
}

/// The base solve's workspace, sized once.
#[derive(Debug)]
pub struct FloatingBase {
    /// Settings.
    pub settings: FloatingBaseSettings,
    problem: ContactProblem,
    solver: AdmmSolver,
    cache: WarmStartCache,
    warm: WarmStart,
    result: SolveResult,
    /// The contacts of the least squares (indices into the contact problem).
    sticking: Vec<usize>,
    /// Their rows of J's base columns (W; 3 per sticking contact).
    rows: Vec<[f64; 6]>,
    /// F₀ of the proximal term (3 per sticking contact, N).
    prior: Vec<f64>,
    /// D⁻¹ of the metric, per row of the sticking contacts.
    inv_weight: Vec<f64>,
    polish: Polish,
    /// The sticking contacts' ids.
    ids: Vec<ContactId>,
    residual: [f64; 6],
}

impl FloatingBase {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: FloatingBaseSettings) -> Self {
        let admm = AdmmSettings {
            model: ContactModel::Ccp,
            stop: StoppingRule { absolute: settings.tolerance, ..Default::default() },
            ..Default::default()
        };
        Self {
            settings,
            problem: ContactProblem::with_factor_capacity(capacity, 6),
            solver: AdmmSolver::with_capacity(capacity, admm),
            cache: WarmStartCache::with_capacity(capacity),
            warm: WarmStart::with_capacity(capacity),
            result: SolveResult::with_capacity(capacity, 0),
            sticking: Vec::with_capacity(capacity),
            rows: Vec::with_capacity(3 * capacity),
            prior: Vec::with_capacity(3 * capacity),
            inv_weight: Vec::with_capacity(3 * capacity),
            polish: Polish::with_capacity(capacity, 6),
            ids: Vec::with_capacity(capacity),
            residual: [0.0; 6],
        }
    }

    /// Replaces the impulses of the sticking contacts of `contacts` (Algorithm 2's problem
    /// and solution, `jacobian` its 3 n_c rows of `nv`) by the least squares' so that the
    /// contacts produce the base wrench `wrench` (RNEA's base rows, N and N·m) as well as
    /// they can over a step `dt`; returns whether the ADMM converged. The residual is then
    /// [`FloatingBase::residual`].
    pub fn solve(
        &mut self,
        contacts: &ContactProblem,
        jacobian: &[f64],
        nv: usize,
        dt: f64,
        wrench: &[f64],
        solution: &mut SolveResult,
    ) -> bool {
        let target = self.select_sticking(contacts, jacobian, nv, dt, wrench, solution);
        let ns = self.sticking.len();
        if ns == 0 {
            self.cache.clear();
            self.residual_of(contacts.contacts(), jacobian, nv, dt, wrench, solution);
            return true;
        }
        let m = 3 * ns;
        // ε relative to the mean diagonal of G = W Wᵀ (its trace, Σ‖w‖², over m).
        let trace: f64 = self.rows.iter().flatten().map(|w| w * w).sum();
        let eps = self.settings.regularization * (trace / m as f64).max(f64::MIN_POSITIVE);
        // F₀ = 0: the least-norm forces (see the module).
        self.prior.clear();
        self.prior.resize(m, 0.0);
        let converged = match self.interior(contacts, &target, eps) {
            true => true,
            false => match self.cone_solve(contacts, &target, eps) {
                Some(converged) => converged,
                None => return false,
            },
        };
        for (k, &i) in self.sticking.iter().enumerate() {
            for r in 0..3 {
                solution.lambda[3 * i + r] = self.result.lambda[3 * k + r] * dt;
            }
        }
        self.residual_of(contacts.contacts(), jacobian, nv, dt, wrench, solution);
        converged
    }

    /// The sticking contacts (rigid, in a cone with friction, slipping at most
    /// `stick_velocity`) and their base rows W; returns the base wrench they are to
    /// produce: `wrench` less what the others' impulses already give.
    fn select_sticking(
        &mut self,
        contacts: &ContactProblem,
        jacobian: &[f64],
        nv: usize,
        dt: f64,
        wrench: &[f64],
        solution: &SolveResult,
    ) -> [f64; 6] {
        let base = |i: usize, r: usize| &jacobian[(3 * i + r) * nv..(3 * i + r) * nv + 6];
        self.sticking.clear();
        self.rows.clear();
        let mut target = [0.0; 6];
        target.copy_from_slice(&wrench[..6]);
        for i in 0..contacts.contacts() {
            let sigma = cone::block(&solution.sigma, i);
            let rigid = cone::block(contacts.compliance(), i).iter().all(|&r| r == 0.0);
            let sticks = rigid
                && matches!(contacts.sets()[i], BlockSet::Cone(mu) if mu > 0.0)
                && sigma.iter().all(|s| s.abs() <= self.settings.stick_velocity);
            if sticks {
                self.sticking.push(i);
                for r in 0..3 {
                    let mut w = [0.0; 6];
                    w.copy_from_slice(base(i, r));
                    self.rows.push(w);
                }
                continue;
            }
            for r in 0..3 {
                let f = solution.lambda[3 * i + r] / dt;
                for (t, j) in target.iter_mut().zip(base(i, r)) {
                    *t -= j * f;
                }
            }
        }
        target
    }

    /// The cone-constrained least squares by the ADMM (or the polish) on G = W Wᵀ,
    /// g = −(W c' + ε F₀), in proximal passes; its forces in `self.result`. None when the
    /// sticking contacts do not fit the problem's capacity.
    fn cone_solve(&mut self, contacts: &ContactProblem, target: &[f64; 6], eps: f64) -> Option<bool> {
        let (ns, m) = (self.sticking.len(), 3 * self.sticking.len());
        let p = &mut self.problem;
        p.reset(ns).ok()?;
        p.factor_rows_mut(6);
        for (k, &i) in self.sticking.iter().enumerate() {
            for r in 0..3 {
                p.factor[(3 * k + r) * 6..(3 * k + r + 1) * 6].copy_from_slice(&self.rows[3 * k + r]);
            }
            p.push_support([(0, 6)]);
            p.sets[k] = contacts.sets()[i];
            p.ids[k] = contacts.ids()[i];
        }
        p.build_delassus();
        let mut converged = true;
        // Proximal point iterations: each pulls towards the last answer, so the bias of the
        // proximal term (about ε·‖F − F₀‖ in the residual) shrinks by about ε/σ² per pass:
        // two passes leave the base wrench exact to rounding.
        for pass in 0..PASSES {
            let p = &mut self.problem;
            for row in 0..m {
                let wc: f64 = p.factor[row * 6..row * 6 + 6].iter().zip(target).map(|(w, c)| w * c).sum();
                p.g[row] = -(wc + eps * self.prior[row]);
                p.compliance[row] = eps;
            }
            if pass == 0 {
                self.cache.guess(self.problem.ids(), &mut self.warm);
            } else {
                self.warm.lambda.clone_from(&self.result.lambda);
                self.warm.dual.clone_from(&self.result.dual);
                self.warm.known.clear();
                self.warm.known.resize(ns, true);
            }
            // Standing, the answer keeps the last one's modes (every foot inside its cone):
            // one 12 × 12 solve instead of the ADMM.
            let tolerance = self.settings.tolerance;
            if !self.polish.try_solve(&self.problem, &self.warm, ContactModel::Ccp, tolerance, &mut self.result)
                && self.solver.solve(&self.problem, Some(&self.warm), &mut self.result).is_err()
            {
                // Sized as the problem, with G built: not refused; were it, no answer.
                return None;
            }
            converged = self.result.converged;
            self.prior.clone_from(&self.result.lambda);
        }
        self.cache.store(self.problem.ids(), &self.result);
        Some(converged)
    }

    /// The least squares without the cones, in the friction-sharing metric of the module,
    /// from its 6 × 6 normal equations: when every sticking contact's answer lies strictly
    /// inside its cone it is also the constrained minimizer (a convex problem whose
    /// unconstrained minimizer is feasible), and the general path is not needed. D's
    /// tangential weights come from the contacts' normal forces of the previous tick (by
    /// contact id; the mean of those for a new contact, and D = I when none is known): one
    /// solve per tick, and a metric that changes as smoothly as the loads do. Leaves F (N)
    /// in `result` (with a zero dual, an interior point's) and the warm-start cache;
    /// returns whether it is inside.
    fn interior(&mut self, contacts: &ContactProblem, target: &[f64; 6], eps: f64) -> bool {
        let ns = self.sticking.len();
        self.ids.clear();
        self.ids.extend(self.sticking.iter().map(|&i| contacts.ids()[i]));
        self.cache.guess(&self.ids, &mut self.warm);
        // F̄ over the known contacts, and each contact's tangential weight (F̄ / μF̂_N)², F̂_N
        // at least a hundredth of F̄ (a contact that carried nothing takes hardly any
        // tangential load).
        let (mut sum, mut known) = (0.0, 0);
        for k in (0..ns).filter(|&k| self.warm.known[k]) {
            sum += self.warm.lambda[3 * k + 2].max(0.0);
            known += 1;
        }
        let mean = if known > 0 { sum / known as f64 } else { 0.0 };
        self.inv_weight.clear();
        self.inv_weight.resize(3 * ns, 1.0);
        if mean > 0.0 {
            for (k, &i) in self.sticking.iter().enumerate() {
                let BlockSet::Cone(mu) = contacts.sets()[i] else { return false };
                let normal = if self.warm.known[k] { self.warm.lambda[3 * k + 2] } else { mean };
                let share = mu * normal.max(LIGHTEST_SHARE * mean) / mean;
                self.inv_weight[3 * k] = share * share;
                self.inv_weight[3 * k + 1] = share * share;
            }
        }
        if !self.least_squares(target, eps) {
            return false;
        }
        let (sticking, force) = (&self.sticking, &self.result.lambda);
        let inside = sticking.iter().enumerate().all(|(k, &i)| {
            let f = cone::block(force, k);
            matches!(contacts.sets()[i], BlockSet::Cone(mu) if f[2] > 0.0 && cone::tangent_norm(&f) < mu * f[2])
        });
        if !inside {
            return false;
        }
        let r = &mut self.result;
        r.dual.clear();
        r.dual.resize(3 * ns, 0.0);
        r.converged = true;
        r.stats.iterations = 0;
        r.stats.residuals = Default::default();
        self.cache.store(&self.ids, r);
        true
    }

    /// F minimizing ½‖WᵀF − c'‖² + ½ε (F − F₀)ᵀ D (F − F₀) from F₀ = the prior (zero), by
    /// proximal passes F ← F + D⁻¹W (WᵀD⁻¹W + εI)⁻¹ (c' − WᵀF) (the push-through form of
    /// the normal equations), D⁻¹ = `inv_weight` per row; into `result.lambda`. False if
    /// WᵀD⁻¹W + εI is not positive definite.
    fn least_squares(&mut self, target: &[f64; 6], eps: f64) -> bool {
        let (rows, inv_weight) = (&self.rows, &self.inv_weight);
        let mut h = Matrix6::<f64>::zeros();
        for (w, &d) in rows.iter().zip(inv_weight) {
            // Column b of the lower triangle, rows b..6: plain arrays, no index checks.
            for (b, &wb) in w.iter().enumerate() {
                for (hab, &wa) in h.column_mut(b).as_mut_slice()[b..].iter_mut().zip(&w[b..]) {
                    *hab += d * wa * wb;
                }
            }
        }
        for a in 0..6 {
            h[(a, a)] += eps;
        }
        let Some(inv_diag) = cholesky6(&mut h) else { return false };
        let force = &mut self.result.lambda;
        force.clone_from(&self.prior);
        for _ in 0..PASSES {
            let mut e = Vector6::from_column_slice(target);
            for (w, f) in rows.iter().zip(force.iter()) {
                for (ea, wa) in e.iter_mut().zip(w) {
                    *ea -= wa * f;
                }
            }
            let y = solve6(&h, &inv_diag, e);
            for ((w, f), &d) in rows.iter().zip(force.iter_mut()).zip(inv_weight) {
                *f += d * w.iter().zip(y.iter()).map(|(wa, ya)| wa * ya).sum::<f64>();
            }
        }
        true
    }

    /// The residual wrench J_bᵀF − c over all `n` contacts.
    fn residual_of(&mut self, n: usize, jacobian: &[f64], nv: usize, dt: f64, wrench: &[f64], solution: &SolveResult) {
        self.residual = [0.0; 6];
        for i in 0..n {
            for r in 0..3 {
                let f = solution.lambda[3 * i + r] / dt;
                let j = &jacobian[(3 * i + r) * nv..(3 * i + r) * nv + 6];
                for (e, j) in self.residual.iter_mut().zip(j) {
                    *e += j * f;
                }
            }
        }
        for (e, c) in self.residual.iter_mut().zip(wrench) {
            *e -= c;
        }
    }

    /// The base wrench the contacts could not produce at the last solve (N, N·m; the
    /// base's velocity frame): J_bᵀF − RNEA_base.
    pub fn residual(&self) -> &[f64; 6] {
        &self.residual
    }

    /// The last least squares (its contacts are the sticking ones, in order).
    pub fn result(&self) -> &SolveResult {
        &self.result
    }
}

/// The Cholesky factor L of the symmetric positive definite `h` (its lower triangle is
/// read) into `h`'s lower triangle, and 1/L_kk: the solves then multiply where they would
/// divide (a chain of divisions is what a 6 × 6 solve waits on). None if a pivot is not
/// positive (or NaN).
fn cholesky6(h: &mut Matrix6<f64>) -> Option<[f64; 6]> {
    let mut inv_diag = [0.0; 6];
    for k in 0..6 {
        let mut pivot = h[(k, k)];
        for j in 0..k {
            pivot -= h[(k, j)] * h[(k, j)];
        }
        if pivot.is_nan() || pivot <= 0.0 {
            return None;
        }
        let l = pivot.sqrt();
        h[(k, k)] = l;
        inv_diag[k] = 1.0 / l;
        for i in k + 1..6 {
            let mut x = h[(i, k)];
            for j in 0..k {
                x -= h[(i, j)] * h[(k, j)];
            }
            h[(i, k)] = x * inv_diag[k];
        }
    }
    Some(inv_diag)
}

/// Solves L Lᵀ y = e with L and 1/L_kk from [`cholesky6`].
fn solve6(l: &Matrix6<f64>, inv_diag: &[f64; 6], mut e: Vector6<f64>) -> Vector6<f64> {
    for k in 0..6 {
        let mut x = e[k];
        for j in 0..k {
            x -= l[(k, j)] * e[j];
        }
        e[k] = x * inv_diag[k];
    }
    for k in (0..6).rev() {
        let mut x = e[k];
        for j in k + 1..6 {
            x -= l[(j, k)] * e[j];
        }
        e[k] = x * inv_diag[k];
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_6x6_factor_solves_and_refuses_a_singular_matrix() {
        let b = Matrix6::<f64>::from_fn(|i, j| ((i * 7 + j * 3 + 1) % 11) as f64 / 11.0 - 0.4);
        let a = b * b.transpose() + Matrix6::identity();
        let mut l = a;
        let inv_diag = cholesky6(&mut l).unwrap();
        let lower = l.lower_triangle();
        assert!((lower * lower.transpose() - a).norm() < 1e-13);
        let want = Vector6::new(1.0, -2.0, 0.5, 3.0, 0.0, -1.0);
        assert!((solve6(&l, &inv_diag, a * want) - want).norm() < 1e-12);
        let mut singular = Matrix6::<f64>::identity();
        singular[(3, 3)] = -1.0;
        assert!(cholesky6(&mut singular).is_none());
        assert!(cholesky6(&mut (Matrix6::<f64>::identity() * f64::NAN)).is_none());
    }

    /// One rigid sticking contact under the base origin (J_b = [I | 0], frame = world):
    /// an upward 10 N base wrench is produced exactly; a downward one would need the foot
    /// to pull, so the impulse stays zero and the whole wrench is the residual; a sideways
    /// one beyond μ·N is cut to the cone's edge.
    #[test]
    fn the_contacts_produce_what_the_cone_allows_and_the_rest_is_the_residual() {
        let dt = 1e-3;
        let zero = vec![vec![0.0; 3]; 3];
        let contacts = ContactProblem::from_dense(&zero, &[0.0; 3], &[0.5], &[]).unwrap();
        let mut jacobian = vec![0.0; 3 * 6];
        for r in 0..3 {
            jacobian[r * 6 + r] = 1.0;
        }
        let mut base = FloatingBase::with_capacity(1, FloatingBaseSettings::default());
        let mut solve = |wrench: [f64; 6]| {
            let mut solution = SolveResult::with_capacity(1, 0);
            solution.lambda.extend([0.0; 3]);
            solution.sigma.extend([0.0; 3]);
            assert!(base.solve(&contacts, &jacobian, 6, dt, &wrench, &mut solution));
            (solution.lambda.iter().map(|l| l / dt).collect::<Vec<_>>(), *base.residual())
        };
        let (force, residual) = solve([0.0, 0.0, 10.0, 0.0, 0.0, 0.0]);
        assert!((force[2] - 10.0).abs() < 1e-6 && force[0].abs() < 1e-6, "{force:?}");
        assert!(residual.iter().all(|e| e.abs() < 1e-6), "{residual:?}");
        let (force, residual) = solve([0.0, 0.0, -10.0, 0.0, 0.0, 0.0]);
        assert!(force.iter().all(|f| f.abs() < 1e-6), "{force:?}");
        assert!((residual[2] - 10.0).abs() < 1e-6, "{residual:?}");
        let (force, residual) = solve([8.0, 0.0, 10.0, 0.0, 0.0, 0.0]);
        // The nearest point of the cone to (8, 0, 10) in the least-squares sense.
        let want = cone::project_cone_weighted(0.5, 1.0, 1.0, &[8.0, 0.0, 10.0]);
        for a in 0..3 {
            assert!((force[a] - want[a]).abs() < 1e-5, "{force:?} vs {want:?}");
            assert!((residual[a] - (want[a] - [8.0, 0.0, 10.0][a])).abs() < 1e-5, "{residual:?}");
        }
    }
}
