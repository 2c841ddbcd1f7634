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
//! (eqs. 40–43), or when the iterate y itself solves the NCP to ε_abs: the start test's
//! criterion (σ = (G + R)y + g, σ + Γ(σ) in K* and orthogonal to y, in velocity units),
//! tried every [`NCP_TEST_EVERY`] iterations once the residuals are within α of ε_abs
//! ([`AdmmSolver::ncp_error`]: where the impulses are not unique the iterates can drift
//! along the solutions with the dual residual above ε_abs). The penalty follows the
//! spectral rule ρ = √(mL)·κ^p, κ = L/m, p ± 0.05 when one residual exceeds α = 10 times
//! the other (eqs. 45–46, [`Penalty`] and
//! [`RhoRule::update`]), with L the largest eigenvalue of G + R + ηI (power iteration)
//! and m = η + min R; the augmented Delassus is refactored ([`super::delassus`]) only
//! when ρ changes. Output λ = y, σ = z − Γ(z) (after the NCP test σ = (G + R)y + g).
//!
//! Joint blocks get ρ scaled by their Delassus diagonal (seed 003 eq. 47, see
//! `scale_blocks`).
//!
//! Options, off by default (issue 28 item 3; examples/admm_study.rs and
//! tests/contact_hard_scenes.rs measure them): `contact_scaling` scales each contact's ρ
//! by its Delassus diagonal too, ρ_i = ρ·s_i (the Jacobi preconditioning of Chrono's
//! P-ADMM, one scale per block so that the projection commutes), and the rule then
//! balances the preconditioned problem's residuals. On the 15-cube wall hit by the ball
//! (1 to 10⁴ kg) 99 of 100 steps miss 1e-6 within 1000 iterations with the paper's
//! scalar ρ, 2 with the scaling (the two after the impact; median 640 iterations), 0
//! with the scaling and p₀ = 0.1 (max 768); the other scenes of `signorini bench` are
//! unchanged within a few percent; but two quadrupeds colliding
//! (tests/sim_several_robots.rs) then miss the tolerance on a step, and p₀ = 0.1 gives
//! a resting quadruped 3 iterations a step where 0.2 needs at most 1
//! (tests/contact_warm_start.rs). With the polish and Anderson (below) the two
//! quadrupeds converge with the scaling too, and talos falling over from six postures
//! takes 39.1 iterations a step against 50.9 (100 unconverged steps of 12 000 against 125;
//! scripts/talos_postures.py), so the simulator scales by default
//! ([`super::DEFAULT_CONTACT_SCALING`], `contact.scaling`). Where the rigid problem has
//! many solutions (hyperstatic sliding contacts, as a wheel's two edges turning in
//! place), the penalty picks one, and the scaling picks another than the scalar ρ.
//! `anderson` extrapolates the iterates
//! ([`super::anderson`]): 2 to 30 times fewer iterations on solo12, talos falling and
//! the sliding cube; with the scaling and the polish, the wall converged on all but 1 of
//! its 100 steps (median 269 iterations) against 2 without Anderson (median 642), once
//! Anderson extrapolates only from full histories (17 before,
//! [`super::anderson::Anderson::extrapolate`]), and on every step (median 319) with the
//! NCP test of iterates. It is off
//! in these settings' default
//! (the controller's inverse dynamics runs the paper's iteration) and on, depth
//! [`super::DEFAULT_ANDERSON`], in the simulator's (`contact.anderson`,
//! [`super::SolverKind::build`]).
//!
//! `polish` (off by default, on in the simulator's with `contact.polish`) tries Newton's
//! method on the contact modes of the iterate y once they hold for a few iterations
//! ([`super::polish::ModeWatch`]) and stops with its solution when that meets the
//! tolerance (OSQP's polishing, extended to sliding modes): on the dynamic suite
//! (scripts/bench_sim.py --part dynamic) solo12 under random torques and pushes took 46.7
//! ADMM iterations a step on average with the polish of sticking warm starts alone, 7.8
//! with this and the sliding modes (4.58 → 1.31 times MuJoCo's step).
//!
//! Defaults (η = 1e-6, p₀ = 0.2, Δp = 0.05, α = 10, 20 power iterations) are Pinocchio's
//! where the paper is silent. Unlike Pinocchio, ρ is not scaled by an extra factor τ:
//! the iteration is the paper's.

use super::anderson::Anderson;
use super::cone;
use super::delassus::AugmentedDelassus;
use super::dense::largest_eigenvalue;
use super::metrics::max_or_nan;
use super::polish::{Effort, ModeWatch, Polish};
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{Capacity, ContactModel, Residuals, SolveError, SolveResult, Solver, StoppingRule, WarmStart};

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
    /// ρ × √(primal / dual) (OSQP's rule, Stellato et al. 2020 §5.2; the default of
    /// Pinocchio 4's ADMM).
    Osqp,
}

impl RhoRule {
    /// The penalty after an iteration whose primal and dual residuals are `primal` and
    /// `dual`: ρ grows when the primal one is at least `ratio` (α) times the dual one and
    /// shrinks in the opposite case (seed 000 eq. 44 or 46); p follows. Returns whether ρ
    /// changed (to a finite positive value), i.e. whether G + R + (η+ρ)I is to be
    /// refactored.
    pub fn update(&self, penalty: &mut Penalty, ratio: f64, primal: f64, dual: f64) -> bool {
        let grow = primal >= ratio * dual;
        let shrink = dual >= ratio * primal;
        if grow == shrink {
            return false;
        }
        let sign = if grow { 1.0 } else { -1.0 };
        let p = penalty;
        let rho = match *self {
            RhoRule::Spectral { step } => {
                p.power += sign * step;
                p.base * p.kappa.powf(p.power)
            }
            RhoRule::Linear { factor } => {
                let r = if grow { p.rho * factor } else { p.rho / factor };
                p.power = (r / p.base).ln() / p.kappa.ln();
                r
            }
            RhoRule::Osqp => {
                let r = p.rho * (primal / dual).sqrt();
                if !(r.is_finite() && r > 0.0) {
                    return false;
                }
                p.power = (r / p.base).ln() / p.kappa.ln();
                r
            }
        };
        let changed = rho != p.rho && rho.is_finite() && rho > 0.0;
        if changed {
            p.rho = rho;
        }
        changed
    }
}

/// The ADMM's penalty ρ = √(mL)·κ^p, κ = L/m (seed 000 eq. 45), with L the largest
/// eigenvalue of G + R + ηI and m = η + min R; [`RhoRule::update`] moves it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Penalty {
    /// √(mL).
    base: f64,
    /// κ = L/m (> 1).
    kappa: f64,
    /// p.
    power: f64,
    /// ρ.
    rho: f64,
}

impl Penalty {
    /// The penalty of exponent `power` for L = `lipschitz` and m = `strong` (eq. 45; κ is
    /// kept above 1 so that p stays defined).
    pub fn spectral(lipschitz: f64, strong: f64, power: f64) -> Self {
        let kappa = (lipschitz / strong).max(1.0 + 1e-12);
        let base = (strong * lipschitz).sqrt();
        Self { base, kappa, power, rho: base * kappa.powf(power) }
    }

    /// ρ.
    pub fn rho(&self) -> f64 {
        self.rho
    }

    /// p (for the next warm start).
    pub fn power(&self) -> f64 {
        self.power
    }
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
    /// Anderson acceleration's depth m (0 or 1: off): each iteration starts from the
    /// extrapolation of the last m iterates ([`super::anderson`]; Pinocchio 4's
    /// `anderson_capacity`), the history cleared when ρ changes or when an extrapolated
    /// start did not shrink the fixed-point residual.
    pub anderson: usize,
    /// Exponent s of the contacts' penalty scale (d_i/d̄)^s, d_i a contact's mean
    /// Delassus diagonal and d̄ their geometric mean (0, the default: the paper's scalar
    /// ρ; 1: the Jacobi preconditioning of seed 003 eq. 47 per contact). When non-zero,
    /// the rule balances the preconditioned problem's residuals.
    pub contact_scaling: f64,
    /// L and m of the spectral rule from the preconditioned problem
    /// S^{-1/2}(G + R + ηI)S^{-1/2} instead of G + R + ηI (off by default). At a fixed
    /// ρ = √(mL) (`rho_power` 0, `ratio` ∞) it solves the 15-cube wall's steps in 87
    /// iterations (median) instead of ~640; the adaptive rule moves away from that ρ, and
    /// a fixed one fails elsewhere (examples/admm_study.rs `--preconditioned-spectrum`).
    pub preconditioned_spectrum: bool,
    /// Polish the iterate mid-solve ([`super::polish`]): once y's contact modes hold for
    /// a few iterations, Newton's method on them, accepted when it meets the tolerance
    /// (off by default: the controller's inverse dynamics runs the paper's iteration; on
    /// in the simulator's with `contact.polish`, [`super::SolverKind::build`]).
    pub polish: bool,
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
            anderson: 0,
            contact_scaling: 0.0,
            preconditioned_spectrum: false,
            polish: false,
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
    /// Per row, √(ρ·scale) at the last factorization: the weight of the fixed-point
    /// residual ([`weighted_residual`]), a square root per row per factorization instead
    /// of per iteration.
    root: Vec<f64>,
    /// The last iteration's weighted fixed-point residual (y part, then z part), from
    /// [`Self::fixed_point_residual`] for [`Self::accelerate`].
    residual: Vec<f64>,
    f: Vec<f64>,
    f_prev: Vec<f64>,
    y_prev: Vec<f64>,
    z_prev: Vec<f64>,
    rhs: Vec<f64>,
    /// Power-iteration vectors (`eigen` starts from the warm start's estimate).
    eigen: Vec<f64>,
    scratch: Vec<f64>,
    /// Wᵀx, for products by W of a problem without G (W's columns).
    t: Vec<f64>,
    /// Anderson's history of (f, y, z) and of the residual (ρ(y − ŷ), z − ẑ), and the
    /// extrapolated start.
    anderson: Anderson,
    start: Vec<f64>,
    /// The mid-solve polish and when to try it (`settings.polish`).
    polish: Option<(Polish, ModeWatch)>,
}

impl AdmmSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: AdmmSettings) -> Self {
        Self::with_sizing(capacity.into(), settings)
    }

    /// A solver for `sizing.blocks` blocks, whose problems come with G up to
    /// `sizing.dense` contacts and are solved by W of up to `sizing.cols` columns beyond
    /// (the f-step by the Woodbury identity, G·x by W: [`ContactProblem::delassus_product`];
    /// nothing of size (3 n_c)² is reserved for them).
    pub fn with_sizing(sizing: Capacity, settings: AdmmSettings) -> Self {
        let capacity = sizing.blocks;
        let m = 3 * capacity;
        let v = || Vec::with_capacity(m);
        Self {
            settings,
            capacity,
            delassus: AugmentedDelassus::with_sizing(m, sizing.cols, 3 * sizing.dense),
            shift: v(),
            scale: v(),
            root: v(),
            residual: Vec::with_capacity(2 * m),
            f: v(),
            f_prev: v(),
            y_prev: v(),
            z_prev: v(),
            rhs: v(),
            eigen: v(),
            scratch: v(),
            t: vec![0.0; sizing.cols],
            anderson: Anderson::with_capacity(settings.anderson, 3 * m, 2 * m),
            start: if settings.anderson >= 2 { vec![0.0; 3 * m] } else { Vec::new() },
            polish: settings.polish.then(|| mid_solve_polish(capacity, sizing.cols)),
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
            self.root[k] = (rho * self.scale[k]).sqrt();
        }
        self.delassus.factor(problem, &self.shift[..m]).is_ok()
    }

    /// The starting point (Alg. 1's initialization): y = P_K(λ guess), f = y; z from the
    /// guess, else the dual-cone projection of the De Saxcé-shifted contact velocity of y
    /// (what Pinocchio does). Returns the NCP criterion of the start.
    fn start_point(
        &mut self,
        problem: &ContactProblem,
        guess: Option<&WarmStart>,
        ncp: bool,
        result: &mut SolveResult,
    ) -> f64 {
        let (y, sigma, z) = (&mut result.lambda, &mut result.sigma, &mut result.dual);
        solve_skeleton::warm_impulses(guess, &problem.sets, y, cone::BlockSet::project);
        self.f.copy_from_slice(y);
        problem.contact_velocity_by_factor(y, sigma, &mut self.t);
        let mut start_error = 0.0f64;
        for (i, set) in problem.sets.iter().enumerate() {
            // A cold start of separating contacts, or a warm start that still solves this
            // step's problem, needs no iteration.
            let (error, shifted) = set.ncp_error(ncp, &cone::block(y, i), &cone::block(sigma, i));
            start_error = start_error.max(error);
            let zi = match guess {
                Some(w) => set.project_dual(&cone::block(&w.dual, i)),
                None => set.project_dual(&shifted),
            };
            cone::set_block(z, i, &zi);
        }
        start_error
    }

    /// Per-block penalty scale. A joint block (one row: a limit or a friction interval)
    /// has the inverse inertia of its dof as Delassus diagonal, often 100 times the
    /// contacts'; under the contacts' ρ its iterates crawl (the bundled quadruped with
    /// joint friction: 200 iterations a step, then a failure). Its ρ is scaled by its
    /// diagonal relative to the contacts' (geometric mean of their mean diagonals): the
    /// Jacobi preconditioning of Chrono's P-ADMM (seed 003 eq. 47, step Θ·diag(N_ii)
    /// with one scale per block so that the projection commutes). A contact's ρ is
    /// scaled by (d_i/d̄)^s, d_i its mean diagonal, s = `contact_scaling` (0: the
    /// paper's scalar ρ).
    fn scale_blocks(&mut self, problem: &ContactProblem) {
        let n = problem.contacts();
        let (mut contact_logs, mut contacts, mut joint_logs, mut joints) = (0.0, 0usize, 0.0, 0usize);
        for i in 0..n {
            let (sum, rows) = problem.block_diagonal(i);
            // 0 marks a contact, d > 0 a joint block's diagonal.
            self.scale[3 * i] = 0.0;
            if rows == 1 {
                self.scale[3 * i] = sum;
                joint_logs += sum.ln();
                joints += 1;
            } else if rows > 1 {
                contact_logs += (sum / rows as f64).ln();
                contacts += 1;
                // −d marks a contact's mean diagonal.
                self.scale[3 * i] = -(sum / rows as f64);
            }
        }
        let reference = match (contacts, joints) {
            (0, 0) => 1.0,
            (0, j) => (joint_logs / j as f64).exp(),
            (c, _) => (contact_logs / c as f64).exp(),
        };
        for i in 0..n {
            let d = self.scale[3 * i];
            let exponent = self.settings.contact_scaling;
            let scale = if self.settings.block_scaling && d > 0.0 {
                d / reference
            } else if d < 0.0 && exponent != 0.0 {
                (-d / reference).powf(exponent)
            } else {
                1.0
            };
            self.scale[3 * i..3 * i + 3].fill(scale);
        }
    }

    /// The initial penalty (eq. 45): L by power iteration on G + R + ηI (warm-started
    /// from the eigenvector estimate of the contacts' last solves, [`WarmStart::eigen`],
    /// else from ones), m = η + min R, p from the
    /// warm start, else the settings'. With contact scaling on, the per-block penalties
    /// ρ·s_i are the scalar ρ of the preconditioned problem S^{-1/2}(G + R + ηI)S^{-1/2}
    /// (seed 003 eq. 47), and L and m are that problem's: L of the scaled matrix, m =
    /// min (η + R_i)/s_i. (The unscaled L of the 15-cube wall is its lightest cube's: the
    /// rule started ρ far above the penalty that solves it fastest.)
    fn initial_penalty(&mut self, problem: &ContactProblem, warm: Option<&WarmStart>) -> Penalty {
        let (s, m) = (self.settings, 3 * problem.contacts());
        self.eigen.clear();
        match warm.map(|w| &w.eigen).filter(|e| e.len() == m) {
            Some(e) => self.eigen.extend_from_slice(e),
            None => self.eigen.resize(m, 1.0),
        }
        let scaled = s.preconditioned_spectrum;
        let mut strong = f64::INFINITY;
        for k in 0..m {
            let scale = if scaled { self.scale[k] } else { 1.0 };
            self.shift[k] = (problem.compliance[k] + s.eta) / scale;
            strong = strong.min(self.shift[k]);
            // 1/√s_k, in the f-step's right-hand side buffer (free until the iterations).
            self.rhs[k] = 1.0 / scale.sqrt();
        }
        let t = &mut self.t;
        // By G or by W: `solve` checked that one applies.
        let product = |x: &[f64], y: &mut [f64]| {
            problem.delassus_product(x, y, t);
        };
        let lipschitz = largest_eigenvalue(
            product,
            scaled.then_some(&self.rhs[..m]),
            &self.shift,
            m,
            s.power_iterations,
            &mut self.eigen,
            &mut self.scratch,
        )
        .max(s.eta);
        let power = warm.and_then(|w| w.rho_power).filter(|p| p.is_finite()).unwrap_or(s.rho_power);
        Penalty::spectral(lipschitz, strong, power)
    }

    /// The f-step (eq. 37) with s = Γ(z_{k−1}):
    /// f_k = −(G + R + (η+ρ)I)⁻¹ (g + s − η f_{k−1} − ρ y_{k−1} − z_{k−1}).
    fn f_step(&mut self, problem: &ContactProblem, ncp: bool, rho: f64, y: &[f64], z: &[f64]) {
        let eta = self.settings.eta;
        for (i, set) in problem.sets.iter().enumerate() {
            let gi = set.correction(ncp, &cone::block(z, i));
            for a in 0..3 {
                let j = 3 * i + a;
                self.rhs[j] = -(problem.g[j] + gi[a] - eta * self.f[j] - rho * self.scale[j] * y[j] - z[j]);
            }
        }
        self.f.copy_from_slice(&self.rhs);
        self.delassus.solve(problem, &mut self.f);
    }

    /// The y-step (eq. 39) and the dual step (eq. 36c) per block, and the residuals of
    /// eqs. 40–42; second, the primal and dual residuals of the preconditioned problem
    /// (seed 003 §6.1: f̌ = S^{1/2} f, so ř_prim = S^{1/2}(f − y) and ř_dual =
    /// S^{-1/2}(η Δf + ρS Δy), s_i the block's penalty scale), which the penalty rule
    /// balances. (Balancing the unscaled ones, the 15-cube wall's heavy contacts, whose
    /// impulses are 10⁴ times the light ones', drove ρ: twice as many refactorizations
    /// on the wall and on talos falling.)
    fn y_z_step(&self, problem: &ContactProblem, rho: f64, y: &mut [f64], z: &mut [f64]) -> (Residuals, Residuals) {
        let eta = self.settings.eta;
        let (mut primal, mut dual, mut complementarity) = (0.0f64, 0.0f64, 0.0f64);
        let (mut scaled_primal, mut scaled_dual) = (0.0f64, 0.0f64);
        for (i, set) in problem.sets.iter().enumerate() {
            let fi = cone::block(&self.f, i);
            let zi = cone::block(z, i);
            let rho_i = rho * self.scale[3 * i];
            let inv_rho = 1.0 / rho_i;
            let yi = set.project(&[fi[0] - zi[0] * inv_rho, fi[1] - zi[1] * inv_rho, fi[2] - zi[2] * inv_rho]);
            let r = cone::sub(&fi, &yi);
            let zi = [zi[0] - rho_i * r[0], zi[1] - rho_i * r[1], zi[2] - rho_i * r[2]];
            cone::set_block(y, i, &yi);
            cone::set_block(z, i, &zi);
            let root = self.scale[3 * i].sqrt();
            for a in 0..3 {
                let j = 3 * i + a;
                let d = (eta * (self.f[j] - self.f_prev[j]) + rho_i * (yi[a] - self.y_prev[j])).abs();
                primal = primal.max(r[a].abs());
                dual = dual.max(d);
                scaled_primal = scaled_primal.max(root * r[a].abs());
                scaled_dual = scaled_dual.max(d / root);
            }
            complementarity = complementarity.max(set.gap(&fi, &zi));
        }
        let balanced = Residuals { primal: scaled_primal, dual: scaled_dual, complementarity };
        (Residuals { primal, dual, complementarity }, balanced)
    }

    /// Algorithm 1's iterations, to the tolerance (eq. 43), stagnation or the cap; the
    /// penalty updated by the rule after each, refactoring only when ρ changes; with
    /// Anderson acceleration, the next iteration started from the extrapolation
    /// ([`Self::accelerate`]).
    fn iterate(
        &mut self,
        problem: &ContactProblem,
        ncp: bool,
        penalty: &mut Penalty,
        result: &mut SolveResult,
    ) -> Ending {
        let s = self.settings;
        let (y, z, sigma) = (&mut result.lambda, &mut result.dual, &mut result.sigma);
        let m = 3 * problem.contacts();
        self.anderson.reset(3 * m, 2 * m);
        if let Some((_, watch)) = self.polish.as_mut() {
            watch.reset();
        }
        let mut last = f64::INFINITY;
        let mut polished = None;
        let (mut next_test, mut ending) = (1, Ending::Iterate);
        for k in 1..=s.stop.max_iterations {
            self.f_prev.copy_from_slice(&self.f);
            self.y_prev.copy_from_slice(y);
            self.z_prev.copy_from_slice(z);
            self.f_step(problem, ncp, penalty.rho, y, z);
            let (residuals, balanced) = self.y_z_step(problem, penalty.rho, y, z);
            result.stats.record(k, residuals, s.record_history);
            if s.stop.reached(&residuals) {
                result.converged = true;
                break;
            }
            if k >= next_test && residuals.primal.max(residuals.dual) <= s.ratio * s.stop.absolute {
                next_test = k + NCP_TEST_EVERY;
                let error = self.ncp_error(problem, ncp, y, sigma);
                if error <= s.stop.absolute {
                    result.converged = true;
                    result.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: error };
                    ending = Ending::Velocity;
                    break;
                }
            }
            if self.polish_iterate(problem, y, k) {
                polished = Some(k);
                break;
            }
            if k > 1 && s.stop.still(y, &self.y_prev) && s.stop.still(z, &self.z_prev) {
                result.stats.stalled = true;
                break;
            }
            if s.anderson >= 2 {
                // Pinocchio's safeguard: a residual that did not shrink ends the history
                // (the last extrapolation, or the map's non-smoothness, broke the model).
                let norm = self.fixed_point_residual(y, z);
                if norm >= last {
                    self.anderson.clear();
                }
                last = norm;
            }
            // With the contacts preconditioned, the rule balances the residuals of the
            // problem it then solves ([`Self::y_z_step`]).
            let balanced = if s.contact_scaling != 0.0 { balanced } else { residuals };
            if s.rule.update(penalty, s.ratio, balanced.primal, balanced.dual) {
                // A failure here cannot happen (G + R ⪰ 0, η + ρ > 0) unless G holds
                // garbage: stop with what there is.
                if !self.factor(problem, penalty.rho) {
                    break;
                }
                result.stats.factorizations += 1;
                // Another ρ, another map: the history no longer describes it.
                self.anderson.clear();
                last = f64::INFINITY;
            } else if s.anderson >= 2 && k < s.stop.max_iterations {
                self.accelerate(y, z);
            }
        }
        if let (Some(k), Some((polish, _))) = (polished, self.polish.as_ref()) {
            polish.accept(k, result);
            ending = Ending::Polished;
        }
        ending
    }

    /// The NCP criterion of the iterate λ = y ∈ K (the start test's, in velocity units),
    /// with σ = (G + R)y + g into `sigma`. ADMM's dual residual measures how far the
    /// iterates still move, not how far y is from solving the problem: where the impulses
    /// are not unique (a hyperstatic stack, a wall of cubes) the iterates can drift along
    /// the solutions, G·δy ≈ 0, at a dual residual above the tolerance. On the 15-cube
    /// wall's step 22 (examples/admm_study.rs --history 22) the residual stays at
    /// 1.07e-6 from iteration 300 to the cap of 1000 while y moves by 2e-5 an iteration
    /// with |(G + R)δy| 7e-8, and y already solves the problem to 9.6e-7 at iteration 300.
    fn ncp_error(&mut self, problem: &ContactProblem, ncp: bool, y: &[f64], sigma: &mut [f64]) -> f64 {
        problem.contact_velocity_by_factor(y, sigma, &mut self.t);
        problem
            .sets
            .iter()
            .enumerate()
            .map(|(i, set)| set.ncp_error(ncp, &cone::block(y, i), &cone::block(sigma, i)).0)
            .fold(0.0, max_or_nan)
    }

    /// Whether the iterate `y`'s modes after iteration `k`, when the watch says they are
    /// worth a try, solve the problem ([`Polish::try_modes`]; the candidate is then the
    /// polish's).
    fn polish_iterate(&mut self, problem: &ContactProblem, y: &[f64], k: usize) -> bool {
        let s = self.settings;
        let Some((polish, watch)) = self.polish.as_mut() else { return false };
        watch.ready(problem, y, k) && polish.try_modes(problem, y, s.model, s.stop.absolute, Effort::MID_SOLVE)
    }

    /// The ∞-norm of the fixed-point residual of the last iteration in the ADMM's own
    /// metric, (√ρ_i (y − ŷ), (z − ẑ)/√ρ_i) (ŷ, ẑ its start): the norm in which the
    /// iteration is non-expansive (Boyd et al. 2011 §3.3, with ρ_i per block).
    /// The residual itself is kept for [`Self::accelerate`]; the weights are those of ρ
    /// at the last factorization, the iteration's.
    fn fixed_point_residual(&mut self, y: &[f64], z: &[f64]) -> f64 {
        let m = y.len();
        self.residual.clear();
        self.residual.resize(2 * m, 0.0);
        let mut norm = 0.0f64;
        for j in 0..m {
            let (ry, rz) = weighted_residual(self.root[j], y[j] - self.y_prev[j], z[j] - self.z_prev[j]);
            (self.residual[j], self.residual[m + j]) = (ry, rz);
            norm = norm.max(ry.abs()).max(rz.abs());
        }
        norm
    }

    /// Anderson's step after an iteration that kept ρ: the output (f, y, z) and its
    /// fixed-point residual (√ρ_i(y − ŷ), (z − ẑ)/√ρ_i) (ŷ, ẑ the iteration's start)
    /// join the history; the next start is the extrapolation. The residual is weighted in
    /// the ADMM's own metric: with per-contact penalties, the previous weighting
    /// (ρ_i(y − ŷ), z − ẑ) made the least squares ignore the heavy contacts' impulses and
    /// the 15-cube wall diverged under it (21 steps at fixed ρ: 17 unconverged against 0).
    /// The residual is the one [`Self::fixed_point_residual`] kept for this iteration.
    fn accelerate(&mut self, y: &mut [f64], z: &mut [f64]) {
        let m = y.len();
        let (w, r) = self.anderson.push();
        w[..m].copy_from_slice(&self.f);
        w[m..2 * m].copy_from_slice(y);
        w[2 * m..].copy_from_slice(z);
        r[..2 * m].copy_from_slice(&self.residual[..2 * m]);
        if self.anderson.extrapolate(&mut self.start[..3 * m]) {
            self.f.copy_from_slice(&self.start[..m]);
            y.copy_from_slice(&self.start[m..2 * m]);
            z.copy_from_slice(&self.start[2 * m..3 * m]);
        }
    }
}

/// The mid-solve polish's workspace for `capacity` blocks and W of `cols` columns (σ by
/// G when the problem has it, else by W).
fn mid_solve_polish(capacity: usize, cols: usize) -> (Polish, ModeWatch) {
    (Polish::with_capacity(capacity, cols), ModeWatch::with_capacity(capacity))
}

/// An entry of the fixed-point residual in the ADMM's metric, its y and its z part, from
/// the root √ρ_j of the entry's penalty and the iteration's changes Δy_j, Δz_j:
/// (√ρ_j Δy_j, Δz_j/√ρ_j).
#[inline]
fn weighted_residual(root: f64, dy: f64, dz: f64) -> (f64, f64) {
    (root * dy, dz / root)
}

/// How [`AdmmSolver::iterate`] ended, and so where the output velocity comes from.
enum Ending {
    /// The residuals' test, stagnation or the cap: σ from the final dual z.
    Iterate,
    /// The iterate's NCP test ([`AdmmSolver::ncp_error`]): σ computed from λ.
    Velocity,
    /// The polish's candidate, σ included.
    Polished,
}

/// Iterations between two NCP tests of iterates within α (`ratio`) of the tolerance
/// ([`AdmmSolver::ncp_error`]): a test costs about an iteration (a product by G or W).
const NCP_TEST_EVERY: usize = 10;

/// The output velocity σ = z − Γ(z) of the final dual (λ = y is in the result already).
fn velocity_of_dual(problem: &ContactProblem, ncp: bool, result: &mut SolveResult) {
    for (i, set) in problem.sets.iter().enumerate() {
        let zi = cone::block(&result.dual, i);
        cone::set_block(&mut result.sigma, i, &cone::sub(&zi, &set.correction(ncp, &zi)));
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
        let Some(n) = solve_skeleton::start(self.name(), self.capacity, Needs::DelassusOrFactor, problem, result)?
        else {
            return Ok(());
        };
        if let Err(e) = self.delassus.path(problem) {
            result.reset(0);
            return Err(e);
        }
        let (s, ncp) = (self.settings, self.settings.model == ContactModel::Ncp);
        if s.anderson >= 2 && (s.anderson != self.anderson.depth() || self.start.len() < 9 * self.capacity) {
            // The depth was set after construction: sized once here.
            self.anderson = Anderson::with_capacity(s.anderson, 9 * self.capacity, 6 * self.capacity);
            self.start = vec![0.0; 9 * self.capacity];
        }
        if s.polish != self.polish.is_some() {
            // Switched after construction: sized once here.
            self.polish = s.polish.then(|| mid_solve_polish(self.capacity, self.t.len()));
        }
        solve_skeleton::zeroed(
            3 * n,
            [
                &mut self.shift,
                &mut self.scale,
                &mut self.root,
                &mut self.f,
                &mut self.f_prev,
                &mut self.y_prev,
                &mut self.z_prev,
                &mut self.rhs,
                &mut self.scratch,
            ],
        );
        // (λ, z) are reused only when every contact has them. A partial guess — a new
        // contact among persistent ones — is an unbalanced load: on a ton resting on a gram
        // the ADMM needed 636 iterations (1000+ with the old ρ) to redistribute it, against
        // 2 from a cold start with the previous penalty exponent, which is kept either way.
        let guess = warm.filter(|w| (0..n).all(|i| w.known.get(i).copied().unwrap_or(false)));
        let start_error = self.start_point(problem, guess, ncp, result);
        if start_error <= s.stop.absolute {
            // σ is exact here; z = σ + Γ(σ) is the consistent dual.
            solve_skeleton::dual_of_velocity(problem, ncp, &result.sigma, &mut result.dual);
            result.converged = true;
            result.rho_power = warm.and_then(|w| w.rho_power).unwrap_or(s.rho_power);
            result.eigen.extend(warm.iter().flat_map(|w| w.eigen.get(..3 * n)).flatten());
            result.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: start_error };
            return Ok(());
        }
        self.scale_blocks(problem);
        let mut penalty = self.initial_penalty(problem, warm);
        result.eigen.extend_from_slice(&self.eigen);
        if self.factor(problem, penalty.rho) {
            result.stats.factorizations = 1;
            match self.iterate(problem, ncp, &mut penalty, result) {
                Ending::Iterate => velocity_of_dual(problem, ncp, result),
                // σ is exact; z stays the ADMM's dual iterate (within α of the tolerance of
                // σ + Γ(σ)): as the next step's warm start it served talos falling from six
                // postures better than σ + Γ(σ) (20 unconverged steps of 12 000 and 3
                // fallbacks, against 155 and 41).
                Ending::Velocity => {}
                Ending::Polished => {}
            }
        }
        result.rho = penalty.rho;
        result.rho_power = penalty.power;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::metrics::Metrics;
    use super::*;

    /// A problem without G (beyond the dense limit, as the simulator leaves a large
    /// island) is solved by W — the Woodbury f-step with W wider than G's rows, G·x by
    /// W — to the solution the dense path finds with G built: G = W·Wᵀ is positive
    /// definite here (48 columns, 36 rows), so the NCP's solution is unique. Both solved to
    /// 1e-10, they agree to 1e-12 relative (4.8e-15 measured: the same iterates but for
    /// rounding).
    #[test]
    fn a_problem_without_g_is_solved_by_w_to_the_dense_solution() {
        let (n, cols) = (12, 48);
        let m = 3 * n;
        let w: Vec<f64> = (0..m * cols).map(|k| ((k * 37 % 101) as f64 * 0.173).sin() / 8.0).collect();
        // Half the contacts pressed (negative normal velocity), a third of those sliding.
        let g: Vec<f64> = (0..m)
            .map(|r| match (r / 3 % 2, r % 3) {
                (0, 2) => -0.5,
                (1, 2) => 0.2,
                (_, _) => 0.3 * ((r as f64) * 1.3).cos(),
            })
            .collect();
        let mu = vec![0.4; n];
        let by_w = ContactProblem::from_factor(&w, cols, &g, &mu);
        let mut with_g = by_w.clone();
        with_g.build_delassus();
        assert!(!by_w.has_delassus() && with_g.has_delassus());
        let stop = StoppingRule { absolute: 1e-10, max_iterations: 5000, ..StoppingRule::default() };
        let settings = AdmmSettings { stop, ..AdmmSettings::default() };

        let solve = |problem: &ContactProblem, sizing: Capacity| {
            let mut solver = AdmmSolver::with_sizing(sizing, settings);
            let mut result = SolveResult::with_capacity(n, 0);
            solver.solve(problem, None, &mut result).unwrap();
            assert!(result.converged, "{:?}", result.stats);
            let mut sigma = vec![0.0; m];
            let metrics = Metrics::evaluate(&with_g, &result.lambda, 1.0, ContactModel::Ncp, &mut sigma);
            assert!(metrics.eps_abs < 1e-9, "{metrics:?}");
            result.lambda
        };
        let dense = solve(&with_g, Capacity::from(n));
        // No room for G at all: the path by W is the only one.
        let free = solve(&by_w, Capacity { blocks: n, cols, dense: 0 });
        let scale = dense.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let gap = dense.iter().zip(&free).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        println!("λ by W against λ by G: {gap:.2e} of {scale:.2e}");
        assert!(gap < 1e-12 * scale, "λ by W differs from λ by G by {gap:.2e} (of {scale:.2e})");

        // A solver sized for G alone refuses a problem without G wider than its room for K.
        let mut narrow = AdmmSolver::with_sizing(Capacity { blocks: n, cols: cols - 1, dense: n }, settings);
        let mut result = SolveResult::with_capacity(n, 0);
        let e = narrow.solve(&by_w, None, &mut result).unwrap_err();
        assert_eq!(e.to_string(), "W's columns (48) exceed the solver's capacity of 47");
    }
}
