//! Active-set polish of a warm start: the previous step's impulses say which blocks
//! stick, which are separated and which sit at a friction bound; with that guess the NCP
//! is a linear system, solved exactly and then checked.
//!
//! From the guess λ⁰ each row is either free (its velocity is zero, its impulse unknown)
//! or fixed (its impulse known):
//!
//! ```text
//! cone, μ > 0:   λ⁰_N = 0             separated     three rows fixed at 0
//!                ‖λ⁰_T‖ < μ λ⁰_N      sticking      three rows free
//!                otherwise            sliding       no polish (the ADMM iterates)
//! cone, μ = 0:   λ⁰_N > 0             at a limit    N free, T fixed at 0
//! interval b:    |λ⁰_N| < b           sticking      N free, T fixed at 0
//!                |λ⁰_N| = b           slipping      N fixed at ±b, T at 0
//! ```
//!
//! and the free impulses solve (G + R)_FF λ_F = −(g_F + (G + R)_FX λ_X), by a Cholesky
//! factorization refused when ill-conditioned (a hyperstatic set — four corners of a box
//! sticking — has a singular G_FF and no unique answer to polish). The candidate is
//! accepted only if every block is in its set and the NCP criterion the ADMM's start test
//! uses ([`super::cone::BlockSet::velocity_error`]) is within the tolerance: then it is a
//! solution at the solver's own accuracy — exact up to rounding on the free rows — found
//! with one small factorization instead of a penalty setup and several iterations. This
//! is OSQP's solution polishing (Stellato et al. 2020, §4.2) applied to a warm start; it
//! pays off when contact modes persist from one step to the next (a robot standing or
//! walking on its stance feet), and costs one failed small solve when they do not.

use super::cone::{self, BlockSet};
use super::dense::{Cholesky, NotPositiveDefinite};
use super::problem::ContactProblem;
use super::solver::{ContactModel, Residuals, SolveResult, WarmStart};

/// More free rows than this are not polished: with rigid contacts G has rank at most the
/// dofs, so a large free set is singular anyway.
pub const MAX_FREE_ROWS: usize = 48;

/// A factorization whose smallest pivot is below this fraction of its largest (of L, so
/// the square root of the conditioning) is refused.
const PIVOT_RATIO: f64 = 1e-6;

/// The polish's workspace, sized once.
#[derive(Debug)]
pub struct Polish {
    chol: Cholesky,
    /// The free rows.
    free: Vec<usize>,
    /// The blocks with a free row.
    active: Vec<usize>,
    /// (G + R)_FF, then its factor.
    a: Vec<f64>,
    /// The right-hand side, then λ_F.
    b: Vec<f64>,
    zeros: Vec<f64>,
    /// Wᵀλ (the factor's columns).
    t: Vec<f64>,
}

impl Polish {
    /// A workspace for up to [`MAX_FREE_ROWS`] free rows, for problems whose factor W
    /// has up to `cols` columns (their dofs).
    pub fn with_capacity(cols: usize) -> Self {
        let n = MAX_FREE_ROWS;
        Self {
            chol: Cholesky::with_capacity(n),
            free: Vec::with_capacity(n),
            active: Vec::with_capacity(n),
            a: Vec::with_capacity(n * n),
            b: Vec::with_capacity(n),
            zeros: vec![0.0; n],
            t: vec![0.0; cols],
        }
    }

    /// Tries the active set of `guess` on `problem` (G, or its factor W of at most the
    /// capacity's columns). On success `result` holds λ, σ = (G + R)λ + g and
    /// z = σ + Γ(σ) (converged, no iteration, its complementarity residual the velocity
    /// error) and true is returned; false when a block is new to the guess, or the guess
    /// fails as described above (`result` is then to be reset).
    pub fn try_solve(
        &mut self,
        problem: &ContactProblem,
        guess: &WarmStart,
        model: ContactModel,
        tolerance: f64,
        result: &mut SolveResult,
    ) -> bool {
        let n = problem.contacts();
        let m = 3 * n;
        // The modes are the cone's: the pyramid's problem is not polished.
        if model == ContactModel::Lcp
            || n == 0
            || guess.lambda.len() < m
            || !guess.known.get(..n).is_some_and(|k| k.iter().all(|&x| x))
        {
            return false;
        }
        result.reset(m);
        if !self.select(problem, guess, &mut result.lambda) {
            return false;
        }
        self.free_rows_system(problem, &result.lambda, &mut result.sigma);
        let nf = self.free.len();
        if nf > 0 {
            if self.factor(nf).is_err() {
                return false;
            }
            self.chol.solve(&mut self.b);
        }
        for (&r, x) in self.free.iter().zip(&self.b) {
            result.lambda[r] = *x;
        }
        let Some(error) = self.check(problem, model == ContactModel::Ncp, result) else { return false };
        if error.is_nan() || error > tolerance {
            return false;
        }
        result.converged = true;
        result.stats.iterations = 0;
        result.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: error };
        result.stats.polished = true;
        // No power iteration here: the ADMM's estimate is passed on to the next step.
        result.eigen.extend(guess.eigen.get(..m).into_iter().flatten());
        true
    }

    /// The modes of the guess (the module's table): the free rows, the blocks with one,
    /// and the fixed impulses λ_X in `lambda` (zero on the free rows). False when a block
    /// slides or the free rows exceed [`MAX_FREE_ROWS`].
    fn select(&mut self, problem: &ContactProblem, guess: &WarmStart, lambda: &mut [f64]) -> bool {
        self.free.clear();
        self.active.clear();
        for (i, set) in problem.sets.iter().enumerate() {
            let g = cone::block(&guess.lambda, i);
            let mut fixed = [0.0; 3];
            let free: &[usize] = match *set {
                BlockSet::Cone(_) if g[2] <= 0.0 => &[],
                BlockSet::Cone(0.0) => &[2],
                BlockSet::Cone(mu) if cone::tangent_norm(&g) < mu * g[2] => &[0, 1, 2],
                BlockSet::Cone(_) => return false,
                BlockSet::Interval(b) if g[2].abs() < b => &[2],
                BlockSet::Interval(b) => {
                    fixed[2] = b.copysign(g[2]);
                    &[]
                }
            };
            cone::set_block(lambda, i, &fixed);
            if self.free.len() + free.len() > MAX_FREE_ROWS {
                return false;
            }
            if !free.is_empty() {
                self.active.push(i);
            }
            self.free.extend(free.iter().map(|a| 3 * i + a));
        }
        true
    }

    /// The free rows' system: b = −(g + (G + R)·λ_X) on them (`lambda` holds λ_X, zero
    /// on F; `sigma` is scratch) and (G + R)_FF in `a`, by the 3 × 3 blocks of the active
    /// blocks' pairs (free rows ascending).
    fn free_rows_system(&mut self, problem: &ContactProblem, lambda: &[f64], sigma: &mut [f64]) {
        let nf = self.free.len();
        self.b.clear();
        if lambda.iter().all(|&x| x == 0.0) {
            self.b.extend(self.free.iter().map(|&r| -problem.g[r]));
        } else {
            problem.contact_velocity_by_factor(lambda, sigma, &mut self.t);
            self.b.extend(self.free.iter().map(|&r| -sigma[r]));
        }
        self.a.clear();
        self.a.resize(nf * nf, 0.0);
        let (mut ra, mut ca) = (0, 0);
        for (x, &a) in self.active.iter().enumerate() {
            let rows_a = self.free[ra..].iter().take_while(|&&r| r / 3 == a).count();
            for &b in &self.active[..=x] {
                let rows_b = self.free[ca..].iter().take_while(|&&r| r / 3 == b).count();
                let block = problem.delassus_block(a, b);
                for p in ra..ra + rows_a {
                    for q in ca..ca + rows_b {
                        let v = block[self.free[p] % 3][self.free[q] % 3];
                        self.a[p * nf + q] = v;
                        self.a[q * nf + p] = v;
                    }
                }
                ca += rows_b;
            }
            ca = 0;
            ra += rows_a;
        }
        for (k, &r) in self.free.iter().enumerate() {
            self.a[k * nf + k] += problem.compliance[r];
        }
    }

    /// The candidate in `result.lambda` checked: every block in its set (else `None`),
    /// then σ = (G + R)λ + g, z = σ + Γ(σ) and the NCP criterion, returned.
    fn check(&mut self, problem: &ContactProblem, ncp: bool, result: &mut SolveResult) -> Option<f64> {
        let (lambda, sigma) = (&result.lambda, &mut result.sigma);
        problem.contact_velocity_by_factor(lambda, sigma, &mut self.t);
        let mut error = 0.0f64;
        for (i, set) in problem.sets.iter().enumerate() {
            let l = cone::block(lambda, i);
            if set.distance(&l) > 0.0 || !l.iter().all(|x| x.is_finite()) {
                return None;
            }
            let s = cone::block(sigma, i);
            let z = cone::add(&s, &set.correction(ncp, &s));
            error = error.max(set.velocity_error(&l, &z));
            cone::set_block(&mut result.dual, i, &z);
        }
        Some(error)
    }

    /// Factors the nf × nf matrix in `a`, refusing an ill-conditioned one.
    fn factor(&mut self, nf: usize) -> Result<(), NotPositiveDefinite> {
        self.chol.factor(&self.a, &self.zeros[..nf], nf)?;
        if self.chol.pivot_ratio() < PIVOT_RATIO {
            return Err(NotPositiveDefinite { index: 0 });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guess(lambda: &[f64]) -> WarmStart {
        WarmStart {
            lambda: lambda.to_vec(),
            dual: vec![0.0; lambda.len()],
            known: vec![true; lambda.len() / 3],
            rho_power: None,
            eigen: Vec::new(),
        }
    }

    fn solve(problem: &ContactProblem, lambda: &[f64]) -> Option<SolveResult> {
        let mut polish = Polish::with_capacity(0);
        let mut result = SolveResult::with_capacity(problem.contacts(), 0);
        polish.try_solve(problem, &guess(lambda), ContactModel::Ncp, 1e-9, &mut result).then_some(result)
    }

    fn rows(g: [[f64; 3]; 3]) -> Vec<Vec<f64>> {
        g.iter().map(|r| r.to_vec()).collect()
    }

    /// A sticking contact: σ = Gλ + g = 0 solved exactly, λ inside the cone.
    #[test]
    fn a_sticking_contact_is_solved_exactly() {
        let g = [[2.0, 0.1, 0.3], [0.1, 1.5, 0.2], [0.3, 0.2, 1.0]];
        let p = ContactProblem::from_dense(&rows(g), &[0.1, -0.05, -1.0], &[0.8], &[]).unwrap();
        let r = solve(&p, &[0.0, 0.0, 0.5]).expect("polished");
        assert!(r.converged && r.stats.polished && r.stats.iterations == 0);
        let mut sigma = vec![0.0; 3];
        p.contact_velocity(&r.lambda, &mut sigma);
        assert!(sigma.iter().all(|s| s.abs() < 1e-14), "{sigma:?}");
        assert!(r.lambda[2] > 0.0 && cone::tangent_norm(&cone::block(&r.lambda, 0)) < 0.8 * r.lambda[2]);
    }

    /// The same contact pushed sideways hard enough to slide: the sticking guess gives a
    /// λ outside the cone, and a guess on the cone's edge is not polished at all.
    #[test]
    fn a_sliding_contact_is_left_to_the_solver() {
        let g = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let p = ContactProblem::from_dense(&rows(g), &[2.0, 0.0, -1.0], &[0.5], &[]).unwrap();
        assert!(solve(&p, &[0.0, 0.0, 1.0]).is_none(), "sticking would need |λ_T| = 2 > μλ_N");
        assert!(solve(&p, &[-0.5, 0.0, 1.0]).is_none(), "a guess at the cone's edge slides");
    }

    /// A separated contact stays separated (λ = 0) when its gap velocity is positive, and
    /// a wrong separated guess for a contact that must push is refused.
    #[test]
    fn separation_is_checked() {
        let g = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let open = ContactProblem::from_dense(&rows(g), &[0.0, 0.0, 0.5], &[0.5], &[]).unwrap();
        let r = solve(&open, &[0.0, 0.0, 0.0]).expect("polished");
        assert_eq!(r.lambda, vec![0.0; 3]);
        let closing = ContactProblem::from_dense(&rows(g), &[0.0, 0.0, -0.5], &[0.5], &[]).unwrap();
        assert!(solve(&closing, &[0.0, 0.0, 0.0]).is_none());
    }

    /// Two contacts at the same point (a hyperstatic pair: G singular) have no unique
    /// impulses: refused.
    #[test]
    fn a_singular_active_set_is_refused() {
        let a = [[2.0, 0.1, 0.3], [0.1, 1.5, 0.2], [0.3, 0.2, 1.0]];
        let g: Vec<Vec<f64>> = (0..6).map(|i| (0..6).map(|j| a[i % 3][j % 3]).collect()).collect();
        let p = ContactProblem::from_dense(&g, &[0.1, -0.05, -1.0, 0.1, -0.05, -1.0], &[0.8, 0.8], &[]).unwrap();
        assert!(solve(&p, &[0.0, 0.0, 0.2, 0.0, 0.0, 0.3]).is_none());
    }

    /// Joint friction: a joint inside its band sticks (its impulse balances g), one at its
    /// bound keeps the bound.
    #[test]
    fn friction_intervals_stick_or_keep_their_bound() {
        let g = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 2.0]];
        let mut p = ContactProblem::from_dense(&rows(g), &[0.0, 0.0, 0.4], &[0.0], &[]).unwrap();
        p.sets[0] = BlockSet::Interval(0.5);
        let r = solve(&p, &[0.0, 0.0, -0.1]).expect("sticks");
        assert!((r.lambda[2] + 0.2).abs() < 1e-15, "{:?}", r.lambda);
        p.g[2] = 2.0;
        let r = solve(&p, &[0.0, 0.0, -0.5]).expect("at the bound");
        assert_eq!(r.lambda[2], -0.5);
        assert!(solve(&p, &[0.0, 0.0, -0.2]).is_none(), "sticking would need −1 beyond the bound");
    }
}
