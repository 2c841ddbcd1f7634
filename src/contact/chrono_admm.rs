//! Project Chrono's ADMM for the cone complementarity problem (seed 003, Tasora et al.;
//! digest §2): the convex QP
//!
//! ```text
//! min ½γᵀNγ + rᵀγ   s.t. γ ∈ Υ                  N = G + R, r = g            (eq. 15)
//! ```
//!
//! (the CCP: friction associated with the velocity, so a sliding contact separates at
//! μ‖c_T‖, AT-05), split γ = z with the diagonal, per-cone uniform step Θ = ρ·S⁻²,
//! S_ii = 1/√N_cc (the Jacobi preconditioning of eq. 47: N_cc the mean diagonal of the
//! cone's three rows, so that the projection commutes with the scaling):
//!
//! ```text
//! γ ← (N + Θ)⁻¹ (Θ z − r − y)                    (eq. 31 with Θ, 47)
//! z ← Π_Υ(γ + Θ⁻¹ y)                              (eq. 35)
//! y ← y + Θ (γ − z)                               (eq. 38)
//! r_prim = γ − z,   r_dual = Θ (z − z_prev)       (eqs. 39–40; N·s and m/s)
//! ```
//!
//! stopping when both ∞-norms are below the tolerance. Every `n_s` = 5 iterations ρ is
//! balanced (eq. 42): ρ ← ρ·η with η the ratio of the scaled residuals ‖S⁻¹r_prim‖∞ /
//! ‖S r_dual‖∞, clamped to [1/50, 50] and set to 1 within the dead band [1/2, 2] (no
//! refactorization); (N + Θ) is factored only then, and at most `max_rho_changes` times
//! (the rule can cycle: see [`ChronoAdmmSettings::max_rho_changes`]). Warm start (Algorithm 2): γ⁰ from the
//! guess, z⁰ = γ⁰, y⁰ = −(Nγ⁰ + r), ρ⁰ the previous solve's.
//!
//! The accelerated variant (FADMM, §7, Algorithm 3: Goldstein et al.'s fast ADMM with
//! restart) keeps ρ fixed, runs z → γ → y from extrapolated (γ̂, ŷ), and extrapolates by
//! (α_k − 1)/α_{k+1} while the combined residual ρ⁻¹‖y − ŷ‖² + ρ‖γ − γ̂‖² (in the scaled
//! metric) falls by ε_r = 0.999, restarting from the previous iterate otherwise.
//!
//! Output: λ = z (in the cone), σ = Nλ + r, z = σ. Defaults are the paper's (ρ₀ = 0.1,
//! FADMM ρ = 0.05, relative to the preconditioned unit diagonal).

use super::cone::{self, BlockSet};
use super::delassus::AugmentedDelassus;
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{ContactModel, Residuals, SolveError, SolveResult, Solver, StoppingRule, WarmStart};

/// Settings of Chrono's ADMM.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ChronoAdmmSettings {
    /// Stopping rules (absolute tolerance on both residuals).
    pub stop: StoppingRule,
    /// Initial (or, accelerated, fixed) ρ relative to the preconditioned diagonal.
    pub rho: f64,
    /// Balance ρ every this many iterations (0: never).
    pub balance_every: usize,
    /// η is clamped to [1/`clamp`, `clamp`].
    pub clamp: f64,
    /// η within [1/`dead_band`, `dead_band`] leaves ρ as it is.
    pub dead_band: f64,
    /// ρ changes at most this many times per solve, then stays (our safeguard, not the
    /// paper's: the balanced rule can cycle between two values, each overshooting the
    /// other by the clamped ratio, and ADMM converges once ρ stops changing).
    pub max_rho_changes: usize,
    /// FADMM: fixed ρ, Nesterov extrapolation with restart.
    pub accelerated: bool,
    /// FADMM's restart ratio ε_r.
    pub restart: f64,
    /// Record the residuals of every iteration in the result's history.
    pub record_history: bool,
}

impl Default for ChronoAdmmSettings {
    fn default() -> Self {
        Self {
            stop: StoppingRule::default(),
            rho: 0.1,
            balance_every: 5,
            clamp: 50.0,
            dead_band: 2.0,
            max_rho_changes: 25,
            accelerated: false,
            restart: 0.999,
            record_history: false,
        }
    }
}

impl ChronoAdmmSettings {
    /// The accelerated variant with the paper's fixed ρ = 0.05.
    pub fn accelerated() -> Self {
        Self { rho: 0.05, balance_every: 0, accelerated: true, ..Default::default() }
    }

    /// The balanced policy (eq. 42) after iteration `k`, with `factorizations` done so
    /// far: every `balance_every` iterations, while ρ has changed fewer than
    /// `max_rho_changes` times, ρ·η with η = ‖S⁻¹r_prim‖∞ / ‖S r_dual‖∞ (the `scaled`
    /// residuals) clamped to [1/`clamp`, `clamp`]; `None` (ρ stays) within the dead band
    /// or when the product is not finite.
    fn balanced_rho(&self, k: usize, factorizations: usize, rho: f64, scaled: (f64, f64)) -> Option<f64> {
        let (primal_scaled, dual_scaled) = scaled;
        let due = self.balance_every > 0
            && k.is_multiple_of(self.balance_every)
            && dual_scaled > 0.0
            && factorizations <= self.max_rho_changes;
        if !due {
            return None;
        }
        let eta = (primal_scaled / dual_scaled).clamp(1.0 / self.clamp, self.clamp);
        ((eta < 1.0 / self.dead_band || eta > self.dead_band) && (rho * eta).is_finite()).then_some(rho * eta)
    }
}

/// The solver and its workspace.
#[derive(Debug)]
pub struct ChronoAdmmSolver {
    /// Settings.
    pub settings: ChronoAdmmSettings,
    capacity: usize,
    delassus: AugmentedDelassus,
    /// Per row, the cone's mean diagonal N_cc (S⁻²).
    diagonal: Vec<f64>,
    /// R + Θ, the factored shift.
    shift: Vec<f64>,
    gamma: Vec<f64>,
    gamma_prev: Vec<f64>,
    z: Vec<f64>,
    z_prev: Vec<f64>,
    y: Vec<f64>,
    y_prev: Vec<f64>,
    /// FADMM's extrapolated γ̂, ŷ.
    gamma_hat: Vec<f64>,
    y_hat: Vec<f64>,
    rhs: Vec<f64>,
}

impl ChronoAdmmSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: ChronoAdmmSettings) -> Self {
        let m = 3 * capacity;
        let v = || Vec::with_capacity(m);
        Self {
            settings,
            capacity,
            delassus: AugmentedDelassus::with_capacity(m),
            diagonal: v(),
            shift: v(),
            gamma: v(),
            gamma_prev: v(),
            z: v(),
            z_prev: v(),
            y: v(),
            y_prev: v(),
            gamma_hat: v(),
            y_hat: v(),
            rhs: v(),
        }
    }

    /// Factors N + Θ = G + R + ρ·S⁻².
    fn factor(&mut self, problem: &ContactProblem, rho: f64) -> bool {
        for (k, s) in self.shift.iter_mut().enumerate() {
            *s = problem.compliance[k] + rho * self.diagonal[k];
        }
        self.delassus.factor(problem, &self.shift).is_ok()
    }

    /// γ = (N + Θ)⁻¹(Θ z − r − y) for the given z and y (eq. 31 with Θ, 47).
    fn gamma_step(&mut self, problem: &ContactProblem, rho: f64, z: &[f64], y: &[f64]) {
        for (k, out) in self.rhs.iter_mut().enumerate() {
            *out = rho * self.diagonal[k] * z[k] - problem.g[k] - y[k];
        }
        self.gamma.copy_from_slice(&self.rhs);
        self.delassus.solve(problem, &mut self.gamma);
    }

    /// The warm start (Algorithm 2): γ⁰ = z⁰ the projected guess, y⁰ = −(Nγ⁰ + r), with
    /// `sigma` as scratch; S⁻² per cone, the mean diagonal of N = G + R over the block's
    /// rows (a joint block's one row).
    fn start(&mut self, problem: &ContactProblem, warm: Option<&WarmStart>, sigma: &mut [f64]) {
        for i in 0..problem.contacts() {
            let (sum, rows) = problem.block_diagonal(i);
            let d = if rows > 0 { sum / rows as f64 } else { 1.0 };
            self.diagonal[3 * i..3 * i + 3].fill(d);
        }
        solve_skeleton::warm_impulses(warm, &problem.sets, &mut self.z, BlockSet::project);
        problem.contact_velocity(&self.z, sigma);
        for (y, sigma) in self.y.iter_mut().zip(sigma.iter()) {
            *y = -sigma;
        }
        self.gamma.copy_from_slice(&self.z);
        self.gamma_hat.copy_from_slice(&self.gamma);
        self.y_hat.copy_from_slice(&self.y);
    }

    /// One ADMM iteration: γ (eq. 31), z (eq. 35), y ← y + Θ(γ − z) (eq. 38).
    fn admm_step(&mut self, problem: &ContactProblem, rho: f64) {
        let (z, y) = (std::mem::take(&mut self.z), std::mem::take(&mut self.y));
        self.gamma_step(problem, rho, &z, &y);
        (self.z, self.y) = (z, y);
        z_step(&mut self.z, &problem.sets, rho, &self.diagonal, &self.gamma, &self.y);
        for j in 0..self.y.len() {
            self.y[j] += rho * self.diagonal[j] * (self.gamma[j] - self.z[j]);
        }
    }

    /// One FADMM iteration (Algorithm 3's order): z from the extrapolated (γ̂, ŷ), then
    /// γ, then y = ŷ + Θ(γ − z).
    fn fadmm_step(&mut self, problem: &ContactProblem, rho: f64) {
        z_step(&mut self.z, &problem.sets, rho, &self.diagonal, &self.gamma_hat, &self.y_hat);
        let (z, y_hat) = (std::mem::take(&mut self.z), std::mem::take(&mut self.y_hat));
        self.gamma_step(problem, rho, &z, &y_hat);
        (self.z, self.y_hat) = (z, y_hat);
        for j in 0..self.y.len() {
            self.y[j] = self.y_hat[j] + rho * self.diagonal[j] * (self.gamma[j] - self.z[j]);
        }
    }

    /// The residuals (eqs. 39–40): physical, r_prim = γ − z (N·s) and r_dual = Θ·(the
    /// move of the splitting's second block: z for the ADMM, γ for FADMM) (m/s), for the
    /// stopping rule; and scaled, ‖S⁻¹r_prim‖∞ and ‖S r_dual‖∞, for the ρ balance.
    fn residuals(&self, rho: f64) -> (Residuals, (f64, f64)) {
        let (mut primal, mut dual, mut primal_scaled, mut dual_scaled) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for j in 0..self.gamma.len() {
            let d = self.diagonal[j];
            let r_prim = self.gamma[j] - self.z[j];
            let moved =
                if self.settings.accelerated { self.gamma[j] - self.gamma_prev[j] } else { self.z[j] - self.z_prev[j] };
            let r_dual = rho * d * moved;
            primal = primal.max(r_prim.abs());
            dual = dual.max(r_dual.abs());
            primal_scaled = primal_scaled.max((r_prim * d.sqrt()).abs());
            dual_scaled = dual_scaled.max((r_dual / d.sqrt()).abs());
        }
        (Residuals { primal, dual, complementarity: 0.0 }, (primal_scaled, dual_scaled))
    }

    /// FADMM's momentum (Algorithm 3): while the combined residual
    /// ρ⁻¹‖y − ŷ‖² + ρ‖γ − γ̂‖² (scaled metric) falls by ε_r, extrapolate by
    /// (α_k − 1)/α_{k+1}; otherwise restart from the previous iterate. `momentum` is
    /// (α, the last combined residual).
    fn extrapolate(&mut self, rho: f64, momentum: &mut (f64, f64)) {
        let (alpha, combined) = momentum;
        let restart = self.settings.restart;
        let mut c = 0.0;
        for j in 0..self.gamma.len() {
            let d = self.diagonal[j];
            c +=
                (self.y[j] - self.y_hat[j]).powi(2) / (rho * d) + rho * d * (self.gamma[j] - self.gamma_hat[j]).powi(2);
        }
        if c < restart * *combined {
            let next = (1.0 + (1.0 + 4.0 * *alpha * *alpha).sqrt()) / 2.0;
            let beta = (*alpha - 1.0) / next;
            for j in 0..self.gamma.len() {
                self.gamma_hat[j] = self.gamma[j] + beta * (self.gamma[j] - self.gamma_prev[j]);
                self.y_hat[j] = self.y[j] + beta * (self.y[j] - self.y_prev[j]);
            }
            (*alpha, *combined) = (next, c);
        } else {
            *alpha = 1.0;
            self.gamma_hat.copy_from_slice(&self.gamma_prev);
            self.y_hat.copy_from_slice(&self.y_prev);
            self.gamma.copy_from_slice(&self.gamma_prev);
            self.y.copy_from_slice(&self.y_prev);
            *combined /= restart;
        }
    }

    /// The iterations from the start, to both residuals within the tolerance, stagnation
    /// of z (once primal feasible) or the cap; then FADMM's momentum or the ρ balance.
    /// Returns the final ρ.
    fn iterate(&mut self, problem: &ContactProblem, mut rho: f64, result: &mut SolveResult) -> f64 {
        let s = self.settings;
        let mut momentum = (1.0f64, f64::INFINITY);
        for k in 1..=s.stop.max_iterations {
            self.gamma_prev.copy_from_slice(&self.gamma);
            self.z_prev.copy_from_slice(&self.z);
            self.y_prev.copy_from_slice(&self.y);
            if s.accelerated {
                self.fadmm_step(problem, rho);
            } else {
                self.admm_step(problem, rho);
            }
            let (residuals, scaled) = self.residuals(rho);
            result.stats.record(k, residuals, s.record_history);
            if residuals.primal <= s.stop.absolute && residuals.dual <= s.stop.absolute {
                result.converged = true;
                break;
            }
            if k > 1 && s.stop.still(&self.z, &self.z_prev) && residuals.primal <= s.stop.absolute {
                result.stats.stalled = true;
                break;
            }
            if s.accelerated {
                self.extrapolate(rho, &mut momentum);
            } else if let Some(next) = s.balanced_rho(k, result.stats.factorizations, rho, scaled) {
                rho = next;
                if !self.factor(problem, rho) {
                    break;
                }
                result.stats.factorizations += 1;
            }
        }
        rho
    }
}

/// z ← Π_Υ(γ + Θ⁻¹y) per block (eq. 35), Θ = ρ·`diagonal`.
fn z_step(z: &mut [f64], sets: &[BlockSet], rho: f64, diagonal: &[f64], gamma: &[f64], y: &[f64]) {
    for (i, set) in sets.iter().enumerate() {
        let mut p = [0.0; 3];
        for a in 0..3 {
            let j = 3 * i + a;
            p[a] = gamma[j] + y[j] / (rho * diagonal[j]);
        }
        cone::set_block(z, i, &set.project(&p));
    }
}

impl Solver for ChronoAdmmSolver {
    fn name(&self) -> &'static str {
        if self.settings.accelerated { "chrono-fadmm" } else { "chrono-admm" }
    }

    fn model(&self) -> ContactModel {
        ContactModel::Ccp
    }

    fn solve(
        &mut self,
        problem: &ContactProblem,
        warm: Option<&WarmStart>,
        result: &mut SolveResult,
    ) -> Result<(), SolveError> {
        let Some(n) = solve_skeleton::start(self.name(), self.capacity, Needs::Delassus, problem, result)? else {
            return Ok(());
        };
        let s = self.settings;
        solve_skeleton::zeroed(
            3 * n,
            [
                &mut self.diagonal,
                &mut self.shift,
                &mut self.gamma,
                &mut self.gamma_prev,
                &mut self.z,
                &mut self.z_prev,
                &mut self.y,
                &mut self.y_prev,
                &mut self.gamma_hat,
                &mut self.y_hat,
                &mut self.rhs,
            ],
        );
        self.start(problem, warm, &mut result.sigma);
        let mut rho = match s.accelerated {
            true => s.rho,
            false => {
                warm.and_then(|w| w.rho_power).map(f64::exp).filter(|r| r.is_finite() && *r > 0.0).unwrap_or(s.rho)
            }
        };
        if self.factor(problem, rho) {
            result.stats.factorizations = 1;
            rho = self.iterate(problem, rho, result);
            // λ = z, σ = Nλ + r (z = σ: no De Saxcé term in the CCP).
            solve_skeleton::finish_from_impulses(problem, &self.z, result);
        }
        result.rho = rho;
        result.rho_power = rho.ln();
        Ok(())
    }
}
