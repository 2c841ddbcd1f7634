//! The proximal ADMM for the frictional contact NCP, seed 000 Algorithm 1 (§III).
//!
//! With h₁(f) = ½fᵀ(G+R)f + fᵀ(g + s) and h₂ the indicator of K_μ, split f = y:
//!
//! ```text
//! s_k = Γ(z_{k−1})                                              De Saxcé estimate (§III-A)
//! f_k = −(G + R + (η+ρ)I)⁻¹ (g + s_k − η f_{k−1} − ρ y_{k−1} − z_{k−1})           (eq. 37)
//! y_k = P_K(f_k − z_{k−1}/ρ)                                                     (eq. 39)
//! z_k = z_{k−1} − ρ (f_k − y_k)                                                 (eq. 36c)
//! ```
//!
//! y_k ∈ K, z_k ∈ K* and y_k ⊥ z_k per contact after every iteration (Moreau; on a
//! joint-friction interval C, z_k ∈ −N_C(y_k): [`cone::BlockSet`]). Stop when the primal
//! ‖f − y‖∞, dual ‖η(f_k − f_{k−1}) + ρ(y_k − y_{k−1})‖∞ and complementarity
//! max_i |f_i·z_i| (the Fenchel–Young gap on an interval) residuals are all below ε_abs
//! (eqs. 40–43). The penalty follows the spectral rule ρ = √(mL)·κ^p, κ = L/m, p ± 0.05
//! when one residual exceeds α = 10 times the other (eqs. 45–46), with L the largest eigenvalue of G + R + ηI (power iteration)
//! and m = η + min R; the augmented Delassus is refactored ([`super::delassus`]) only
//! when ρ changes. Joint blocks (limits, friction intervals) get ρ scaled by their
//! Delassus diagonal (seed 003 eq. 47, see `solve`). Output λ = y, σ = z − Γ(z).
//!
//! Defaults (η = 1e-6, p₀ = 0.2, Δp = 0.05, α = 10, 20 power iterations) are Pinocchio's,
//! where the paper is silent. Unlike Pinocchio, ρ is not scaled by an extra factor τ: the
//! iteration is the paper's.

use super::cone;
use super::delassus::AugmentedDelassus;
use super::dense::largest_eigenvalue;
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{ContactModel, Residuals, SolveError, SolveResult, Solver, StoppingRule, WarmStart};

/// How ρ adapts.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum RhoRule {
    /// ρ = √(mL)·κ^p, p ± `step` (seed 000 eqs. 45–46).
    Spectral {
        /// Δp (0.05).
        step: f64,
    },
    /// ρ × `factor` or ρ / `factor` (seed 000 eq. 44), the OSQP-style baseline.
    Linear {
        /// τ_inc = τ_dec.
        factor: f64,
    },
}

/// ADMM settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AdmmSettings {
    /// Model solved (NCP by default; CCP drops Γ).
    pub model: ContactModel,
    /// Stopping rules.
    pub stop: StoppingRule,
    /// Proximal weight η (seed 000 eq. 35).
    pub eta: f64,
    /// Initial exponent p₀ of the spectral rule (also the linear rule's starting ρ).
    pub rho_power: f64,
    /// How ρ adapts.
    pub rule: RhoRule,
    /// α: ρ changes when one residual exceeds α times the other.
    pub ratio: f64,
    /// Power iterations for L.
    pub power_iterations: usize,
    /// Record the residuals of every iteration in the result's history.
    pub record_history: bool,
    /// Scale the penalty of joint blocks by their Delassus diagonal relative to the
    /// contacts' (ρ_i = ρ·d_i/d̄; contacts keep ρ).
    pub block_scaling: bool,
}

impl Default for AdmmSettings {
    fn default() -> Self {
        Self {
            model: ContactModel::Ncp,
            stop: StoppingRule::default(),
            eta: 1e-6,
            rho_power: 0.2,
            rule: RhoRule::Spectral { step: 0.05 },
            ratio: 10.0,
            power_iterations: 20,
            record_history: false,
            block_scaling: true,
        }
    }
}

/// The ADMM solver: settings and a workspace sized for a number of contacts.
#[derive(Debug)]
pub struct AdmmSolver {
    /// Settings (may be changed between solves).
    pub settings: AdmmSettings,
    capacity: usize,
    delassus: AugmentedDelassus,
    /// Diagonal added to G: R + η + ρ·scale.
    shift: Vec<f64>,
    /// Per row, the block's penalty scale d_i/d̄ (1 without block scaling).
    scale: Vec<f64>,
    f: Vec<f64>,
    f_prev: Vec<f64>,
    y_prev: Vec<f64>,
    z_prev: Vec<f64>,
    rhs: Vec<f64>,
    /// Power-iteration vectors; `eigen` keeps the last eigenvector estimate.
    eigen: Vec<f64>,
    scratch: Vec<f64>,
}

impl AdmmSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: AdmmSettings) -> Self {
        let m = 3 * capacity;
        let v = || Vec::with_capacity(m);
        Self {
            settings,
            capacity,
            delassus: AugmentedDelassus::with_capacity(m),
            shift: v(),
            scale: v(),
            f: v(),
            f_prev: v(),
            y_prev: v(),
            z_prev: v(),
            rhs: v(),
            eigen: v(),
            scratch: v(),
        }
    }

    /// Contacts the workspace holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn factor(&mut self, problem: &ContactProblem, rho: f64) -> bool {
        let m = 3 * problem.contacts();
        for k in 0..m {
            self.shift[k] = problem.compliance[k] + self.settings.eta + rho * self.scale[k];
        }
        self.delassus.factor(problem, &self.shift[..m]).is_ok()
    }
}

impl Solver for AdmmSolver {
    fn name(&self) -> &'static str {
        "admm"
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
        let Some(n) = solve_skeleton::start(self.name(), self.capacity, Needs::Delassus, problem, result)? else {
            return Ok(());
        };
        let m = 3 * n;
        let s = self.settings;
        solve_skeleton::zeroed(
            m,
            [
                &mut self.shift,
                &mut self.scale,
                &mut self.f,
                &mut self.f_prev,
                &mut self.y_prev,
                &mut self.z_prev,
                &mut self.rhs,
                &mut self.scratch,
            ],
        );
        let sets = &problem.sets;
        let ncp = s.model == ContactModel::Ncp;
        // (λ, z) are reused only when every contact has them. A partial guess — a new
        // contact among persistent ones — is an unbalanced load: on a ton resting on a gram
        // the ADMM needed 636 iterations (1000+ with the old ρ) to redistribute it, against
        // 2 from a cold start with the previous penalty exponent, which is kept either way.
        let guess = warm.filter(|w| (0..n).all(|i| w.known.get(i).copied().unwrap_or(false)));

        // Start: y = P_K(λ guess), f = y; z from the guess, else the dual-cone projection of
        // the De Saxcé-shifted contact velocity of y (what Pinocchio does).
        let y = &mut result.lambda;
        solve_skeleton::warm_impulses(guess, sets, y, cone::BlockSet::project);
        self.f.copy_from_slice(y);
        let sigma = &mut result.sigma;
        problem.contact_velocity(y, sigma);
        let z = &mut result.dual;
        let mut start_error = 0.0f64;
        for i in 0..n {
            let si = cone::block(sigma, i);
            let shifted = cone::add(&si, &sets[i].correction(ncp, &si));
            // The NCP criterion of the starting point in velocity units (y ∈ K by
            // construction): s = σ + Γ(σ) in K*, and s's component along y,
            // |⟨y, s⟩| / ‖y‖ — zero for a sticking contact only if σ = 0, for a sliding one
            // only if s lies on the dual ray opposite y. (The product ⟨y, s⟩ itself would
            // scale with the impulses and accept velocity errors of a light robot's feet.)
            // A cold start of separating contacts, or a warm start that still solves this
            // step's problem, needs no iteration.
            start_error = start_error.max(sets[i].velocity_error(&cone::block(y, i), &shifted));
            let zi = match guess {
                Some(w) => sets[i].project_dual(&cone::block(&w.dual, i)),
                None => sets[i].project_dual(&shifted),
            };
            cone::set_block(z, i, &zi);
        }
        if start_error <= s.stop.absolute {
            // σ is exact here; z = σ + Γ(σ) is the consistent dual.
            solve_skeleton::dual_of_velocity(problem, ncp, sigma, z);
            result.converged = true;
            result.rho_power = warm.and_then(|w| w.rho_power).unwrap_or(s.rho_power);
            result.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: start_error };
            return Ok(());
        }

        // Per-block penalty scale. A joint block (one row: a limit or a friction interval)
        // has the inverse inertia of its dof as Delassus diagonal, often 100 times the
        // contacts'; under the contacts' ρ its iterates crawl (the bundled quadruped with
        // joint friction: 200 iterations a step, then a failure). Its ρ is scaled by its
        // diagonal relative to the contacts' (geometric mean of their mean diagonals): the
        // Jacobi preconditioning of Chrono's P-ADMM (seed 003 eq. 47, step Θ·diag(N_ii)
        // with one scale per block so that the projection commutes) for these blocks only:
        // contacts keep the paper's scalar ρ, which handles mass ratios better than a
        // per-contact one (the 15-cube wall: 62 cold-start iterations against 272).
        let (mut contact_logs, mut contacts, mut joint_logs, mut joints) = (0.0, 0usize, 0.0, 0usize);
        for i in 0..n {
            let (mut sum, mut rows) = (0.0, 0);
            for r in 3 * i..3 * i + 3 {
                let d = problem.delassus[r * m + r] + problem.compliance[r];
                if d > 0.0 {
                    sum += d;
                    rows += 1;
                }
            }
            // 0 marks a contact, d > 0 a joint block's diagonal.
            self.scale[3 * i] = 0.0;
            if rows == 1 {
                self.scale[3 * i] = sum;
                joint_logs += sum.ln();
                joints += 1;
            } else if rows > 1 {
                contact_logs += (sum / rows as f64).ln();
                contacts += 1;
            }
        }
        let reference = match (contacts, joints) {
            (0, 0) => 1.0,
            (0, j) => (joint_logs / j as f64).exp(),
            (c, _) => (contact_logs / c as f64).exp(),
        };
        for i in 0..n {
            let d = self.scale[3 * i];
            let scale = if s.block_scaling && d > 0.0 { d / reference } else { 1.0 };
            self.scale[3 * i..3 * i + 3].fill(scale);
        }

        // Penalty: L by power iteration on G + R + ηI (warm-started from the last
        // eigenvector when the size is unchanged), m = η + min R.
        if self.eigen.len() != m {
            self.eigen.clear();
            self.eigen.resize(m, 1.0);
        }
        for k in 0..m {
            self.shift[k] = problem.compliance[k] + s.eta;
        }
        let lipschitz = largest_eigenvalue(
            &problem.delassus,
            &self.shift,
            m,
            s.power_iterations,
            &mut self.eigen,
            &mut self.scratch,
        )
        .max(s.eta);
        let strong = s.eta + problem.compliance.iter().copied().fold(f64::INFINITY, f64::min);
        let kappa = (lipschitz / strong).max(1.0 + 1e-12);
        let base = (strong * lipschitz).sqrt();
        let mut power = warm.and_then(|w| w.rho_power).filter(|p| p.is_finite()).unwrap_or(s.rho_power);
        let mut rho = base * kappa.powf(power);
        if !self.factor(problem, rho) {
            result.rho = rho;
            result.rho_power = power;
            return Ok(());
        }
        result.stats.factorizations = 1;

        let y = &mut result.lambda;
        let z = &mut result.dual;
        for k in 1..=s.stop.max_iterations {
            self.f_prev.copy_from_slice(&self.f);
            self.y_prev.copy_from_slice(y);
            self.z_prev.copy_from_slice(z);
            // f-step (eq. 37) with s = Γ(z_{k−1}).
            for i in 0..n {
                let gi = sets[i].correction(ncp, &cone::block(z, i));
                for a in 0..3 {
                    let j = 3 * i + a;
                    self.rhs[j] = -(problem.g[j] + gi[a] - s.eta * self.f[j] - rho * self.scale[j] * y[j] - z[j]);
                }
            }
            self.f.copy_from_slice(&self.rhs);
            self.delassus.solve(problem, &mut self.f);
            // y-step (eq. 39) and dual step (eq. 36c), per contact.
            let mut primal = 0.0f64;
            let mut dual = 0.0f64;
            let mut complementarity = 0.0f64;
            for i in 0..n {
                let fi = cone::block(&self.f, i);
                let zi = cone::block(z, i);
                let rho_i = rho * self.scale[3 * i];
                let inv_rho = 1.0 / rho_i;
                let yi = sets[i].project(&[fi[0] - zi[0] * inv_rho, fi[1] - zi[1] * inv_rho, fi[2] - zi[2] * inv_rho]);
                let r = cone::sub(&fi, &yi);
                let zi = [zi[0] - rho_i * r[0], zi[1] - rho_i * r[1], zi[2] - rho_i * r[2]];
                cone::set_block(y, i, &yi);
                cone::set_block(z, i, &zi);
                for a in 0..3 {
                    let j = 3 * i + a;
                    primal = primal.max(r[a].abs());
                    dual = dual.max((s.eta * (self.f[j] - self.f_prev[j]) + rho_i * (yi[a] - self.y_prev[j])).abs());
                }
                complementarity = complementarity.max(sets[i].gap(&fi, &zi));
            }
            let residuals = Residuals { primal, dual, complementarity };
            result.stats.record(k, residuals, s.record_history);
            if s.stop.reached(&residuals) {
                result.converged = true;
                break;
            }
            if k > 1 && s.stop.still(y, &self.y_prev) && s.stop.still(z, &self.z_prev) {
                result.stats.stalled = true;
                break;
            }
            // Penalty update (eq. 44 or 46); refactor only when ρ changes.
            let grow = primal >= s.ratio * dual;
            let shrink = dual >= s.ratio * primal;
            if grow != shrink {
                let sign = if grow { 1.0 } else { -1.0 };
                let new_rho = match s.rule {
                    RhoRule::Spectral { step } => {
                        power += sign * step;
                        base * kappa.powf(power)
                    }
                    RhoRule::Linear { factor } => {
                        let r = if grow { rho * factor } else { rho / factor };
                        power = (r / base).ln() / kappa.ln();
                        r
                    }
                };
                if new_rho != rho && new_rho.is_finite() && new_rho > 0.0 {
                    rho = new_rho;
                    // A failure here cannot happen (G + R ⪰ 0, η + ρ > 0) unless G holds
                    // garbage: stop with what there is.
                    if !self.factor(problem, rho) {
                        break;
                    }
                    result.stats.factorizations += 1;
                }
            }
        }
        // σ = z − Γ(z).
        for i in 0..n {
            let zi = cone::block(z, i);
            cone::set_block(&mut result.sigma, i, &cone::sub(&zi, &sets[i].correction(ncp, &zi)));
        }
        result.rho = rho;
        result.rho_power = power;
        Ok(())
    }
}
