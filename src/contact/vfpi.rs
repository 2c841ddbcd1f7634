//! V-FPI, the velocity fixed-point iteration with contact nodalization and
//! diagonalization of seed 004 (Lee, Lee & Lee, "COND"; digest §3).
//!
//! Seed 004 iterates on velocities instead of impulses: a preconditioned gradient step on
//! the momentum balance, then a contact solve on *surrogate* dynamics whose Delassus
//! operator is diagonal, so that every contact is solved alone and in closed form. Two
//! ideas make the surrogate Delassus diagonal:
//!
//! - **Virtual nodes** (§III-A, eq. 14–18): each contact acts on a massless 3-dof node
//!   tied to the material point by a stiff implicit spring k_v, not on the bodies. In the
//!   problem's coordinates (the factor W of G = W·Wᵀ, [`ContactProblem::delassus_factor`],
//!   where the momentum balance reads w = Wᵀλ: A = I, v* = 0) the unknowns are w and the
//!   nodes' velocities u (3 per contact, in the contact frame), and the step solves
//!
//!   ```text
//!   min ½‖w‖² + ½ Σ_r K_r (W_r·w + g_r − u_r)²,   SCC on u           (eq. 15, A = I)
//!   ```
//!
//!   whose optimality gives w = Wᵀλ, λ = −K(Ww + g − u), i.e. u = (G + K⁻¹)λ + g: the
//!   contact velocity of the problem with compliance K⁻¹. A compliant row (R > 0) gets
//!   K = 1/R, which is exactly the problem; a rigid row gets k_v = `stiffness`/w̄_i with
//!   w̄_i the contact's mean Delassus diagonal, a perturbation of relative size
//!   1/`stiffness` (Prop. 2: the error ∝ 1/k_v, Table I).
//! - **Diagonalization** (§III-C, Prop. 3): with a diagonal preconditioner D equal on a
//!   node's three rows (d̄_i), the surrogate Delassus J_c D J_cᵀ of a node is d̄_i·I₃.
//!
//! One iteration (Algorithm 1, eq. 20–24), with e = Ww + g − u:
//!
//! ```text
//! w* = w − D_w (w + Wᵀ K e),    u* = u + D_u K e                    (gradient step, eq. 20)
//! λ*_i = −u*_i / d̄_i,           λ_i = P(λ*_i)                       (Algorithm 2, eq. 26)
//! u_i ← u*_i + d̄_i λ_i,         w ← w*                              (eq. 24)
//! ```
//!
//! P is the **strict** operator for the NCP (λ_N = max(λ*_N, 0), then λ_T clamped to the
//! disk of radius μλ_N: the per-contact Signorini–Coulomb conditions with maximum
//! dissipation hold exactly at every iterate, Prop. 4) or the **proximal** operator for
//! the CCP (the Euclidean projection onto K_μ, Prop. 5: its fixed point is the convex
//! relaxation, which glides). A joint-friction interval clamps its row.
//!
//! D is the Frobenius-norm minimizer of ‖I − D·A‖ (Tarazaga & Cuéllar, §IV-C):
//! d_j = a_jj / ‖A_j*‖² for a body row, d̄_i = Σ a_rr / Σ ‖A_r*‖² over a node's rows,
//! from the rows of the augmented Hessian A = [[I + WᵀKW, −WᵀK], [−KW, K]]. That
//! diagonal is far from A's body block on an articulated robot (W's columns, a leg's
//! dofs, are strongly coupled through WᵀKW): the quadruped standing needs about 90 000
//! iterations (5 000 with Chebyshev) where G's eigenvector basis needs 25. Diagonalization
//! only needs D diagonal on the nodes' rows, so [`Preconditioner::BodyBlock`] takes the
//! inverse of the body block instead (one Cholesky of n_w × n_w per solve; the gradient
//! step then minimizes over the bodies' velocities exactly): 13 iterations in either
//! basis. Chebyshev
//! acceleration (§III-G, Algorithm 3, eq. 38–39, in Wang's form with under-relaxation
//! γ): x ← ν(γ(x̂ − x) + x − x_prev) + x_prev with ν = 1 before `chebyshev_start`,
//! then 2/(2 − ϱ²) and 4/(4 − ϱ²ν), ϱ the ratio of the last two increments (capped).
//!
//! Stopping: the paper's increment ‖u^{l+1} − u^l‖∞ (m/s) triggers a check of the
//! certificate the paper lacks: the consistency ‖û − ((G + K⁻¹)λ + g)‖∞ of the nodes'
//! velocities û (which satisfy the SCC with λ exactly) with the velocity λ produces. Both
//! below the tolerance: λ solves the (virtual-node) problem to it. The solver's residuals
//! are (consistency, increment, 0); the shared [`super::Metrics`] measure the problem
//! itself, where the virtual nodes' compliance shows. A non-finite increment (the
//! iteration diverged: Chebyshev's ν on a long chain) stops it unconverged; both norms
//! carry a NaN row through rather than skip it.
//!
//! Seed 004 uses the midpoint velocity v̂ = (v_k + v_{k+1})/2; here the unknown is the
//! end-of-step velocity of the problem every solver shares (seed 000 eq. 22), so the
//! solvers are compared on the same problem.

use super::cone::{self, BlockSet};
use super::dense::{Cholesky, dot};
use super::metrics::max_or_nan;
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{ContactModel, Residuals, SolveError, SolveResult, Solver, StoppingRule, WarmStart};

/// Settings of V-FPI.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VfpiSettings {
    /// `Ncp`: the strict operator; `Ccp`: the proximal one.
    pub model: ContactModel,
    /// Stopping rules (absolute tolerance, m/s, on the increment and the consistency).
    pub stop: StoppingRule,
    /// The preconditioner of the bodies' rows.
    pub preconditioner: Preconditioner,
    /// Virtual-node stiffness of a rigid contact relative to its effective mass
    /// (k_v = `stiffness`/w̄_i): its velocity error is 1/`stiffness` of w̄_i·λ.
    pub stiffness: f64,
    /// Chebyshev acceleration from this iteration on (0: never).
    pub chebyshev_start: usize,
    /// Under-relaxation γ of every update (1: none).
    pub under_relaxation: f64,
    /// Cap of the spectral-radius estimate ϱ (below 1, so that ν stays below 2).
    pub max_spectral_radius: f64,
    /// Record the residuals of every iteration in the result's history.
    pub record_history: bool,
}

impl Default for VfpiSettings {
    fn default() -> Self {
        Self {
            model: ContactModel::Ncp,
            stop: StoppingRule::default(),
            preconditioner: Preconditioner::Frobenius,
            stiffness: 1e4,
            chebyshev_start: 10,
            under_relaxation: 0.9,
            max_spectral_radius: 0.999,
            record_history: false,
        }
    }
}

/// D's rows of the bodies (the nodes' rows are Frobenius's in both: diagonalization needs
/// them diagonal and equal on a node's three rows).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Preconditioner {
    /// Seed 004 §IV-C: diagonal, the Frobenius-norm minimizer of ‖I − D·A‖.
    Frobenius,
    /// The inverse of the bodies' block I + WᵀKW of A (factored once per solve): the
    /// gradient step minimizes over the bodies' velocities exactly.
    BodyBlock,
}

/// The solver and its workspace (sized on the first solve of each size; nothing
/// allocates once the sizes have been seen).
#[derive(Debug)]
pub struct VfpiSolver {
    /// Settings.
    pub settings: VfpiSettings,
    capacity: usize,
    /// W of a problem given as plain data.
    own_factor: Vec<f64>,
    ws: Workspace,
}

#[derive(Debug, Default)]
struct Workspace {
    /// Per row: the spring K_r, the node's d̄ (repeated on its three rows), e, Wᵀ-scratch.
    k: Vec<f64>,
    d_u: Vec<f64>,
    e: Vec<f64>,
    /// Body rows: D_w, w, the previous iterate, the plain update, Wᵀ(K e).
    d_w: Vec<f64>,
    w: Vec<f64>,
    w_prev: Vec<f64>,
    w_hat: Vec<f64>,
    t: Vec<f64>,
    /// Node rows: u, the previous iterate, the plain update û, λ.
    u: Vec<f64>,
    u_prev: Vec<f64>,
    u_hat: Vec<f64>,
    lambda: Vec<f64>,
    /// I + WᵀKW (n_w²), for D's row norms.
    hessian: Vec<f64>,
    zeros: Vec<f64>,
    cholesky: Option<Cholesky>,
}

impl VfpiSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: VfpiSettings) -> Self {
        Self { settings, capacity, own_factor: Vec::new(), ws: Workspace::default() }
    }

    /// The compliance K⁻¹ the last solve's virtual nodes realized (3 per contact): the
    /// problem's R where it is positive, 1/k_v on rigid rows.
    pub fn node_compliance(&self) -> impl Iterator<Item = f64> + '_ {
        self.ws.k.iter().map(|&k| if k > 0.0 { 1.0 / k } else { 0.0 })
    }
}

/// The strict operator (seed 004 eq. 26, Prop. 4): λ_N = max(λ*_N, 0), λ_T clamped to the
/// disk of radius μλ_N — for the isotropic surrogate (Γ = d̄·I) the exact solution of the
/// contact's Signorini–Coulomb conditions with maximum dissipation.
pub fn strict(set: &BlockSet, x: &cone::Vec3c) -> cone::Vec3c {
    match *set {
        BlockSet::Cone(mu) => {
            let n = x[2].max(0.0);
            let r = cone::tangent_norm(x);
            let bound = mu * n;
            if r <= bound { [x[0], x[1], n] } else { [x[0] * bound / r, x[1] * bound / r, n] }
        }
        BlockSet::Interval(b) => [0.0, 0.0, x[2].clamp(-b, b)],
    }
}

/// W (3 n_c rows of `cols` columns, rows contiguous) with each contact's support.
struct Factor<'a> {
    problem: &'a ContactProblem,
    w: &'a [f64],
    cols: usize,
    /// Every column, for a factor without supports.
    all: [(usize, usize); 1],
}

impl Factor<'_> {
    /// Row `r` of W.
    fn row(&self, r: usize) -> &[f64] {
        &self.w[r * self.cols..(r + 1) * self.cols]
    }

    /// The runs of columns contact `i`'s rows can be non-zero on: the problem's, or every
    /// column for a factor without them.
    fn support(&self, i: usize) -> &[(usize, usize)] {
        let s = self.problem.factor_support(i);
        if s.is_empty() { &self.all } else { s }
    }

    /// W_r·x over row r's support.
    fn row_dot(&self, r: usize, x: &[f64]) -> f64 {
        row_dot(self.row(r), x, self.support(r / 3))
    }

    /// y = Wᵀλ over the non-zero impulses (y zeroed first).
    fn transpose_times(&self, lambda: &[f64], y: &mut [f64]) {
        y.fill(0.0);
        for (r, &l) in lambda.iter().enumerate() {
            if l != 0.0 {
                row_axpy(l, self.row(r), y, self.support(r / 3));
            }
        }
    }
}

/// Row · x over the runs.
fn row_dot(row: &[f64], x: &[f64], runs: &[(usize, usize)]) -> f64 {
    runs.iter().map(|&(lo, hi)| dot(&row[lo..hi], &x[lo..hi])).sum()
}

/// y += f·row over the runs.
fn row_axpy(f: f64, row: &[f64], y: &mut [f64], runs: &[(usize, usize)]) {
    for &(lo, hi) in runs {
        for (o, &x) in y[lo..hi].iter_mut().zip(&row[lo..hi]) {
            *o += f * x;
        }
    }
}

impl Workspace {
    /// Sizes the buffers for `m` rows and W of `cols` columns (allocating only for a size
    /// not seen before).
    fn size(&mut self, m: usize, cols: usize) {
        let rows = [&mut self.k, &mut self.d_u, &mut self.e, &mut self.u, &mut self.u_prev, &mut self.u_hat];
        solve_skeleton::zeroed(m, rows);
        solve_skeleton::zeroed(m, [&mut self.lambda]);
        let body = [&mut self.d_w, &mut self.w, &mut self.w_prev, &mut self.w_hat, &mut self.t, &mut self.zeros];
        solve_skeleton::zeroed(cols, body);
        solve_skeleton::zeroed(cols * cols, [&mut self.hessian]);
    }

    /// The springs (§III-A): K = 1/R where compliant, k_v = `stiffness`/w̄_i where rigid
    /// (and where R is stiffer than that), w̄_i the contact's mean Delassus diagonal.
    fn springs(&mut self, f: &Factor, stiffness: f64) {
        for (i, set) in f.problem.sets.iter().enumerate() {
            let k = 3 * i;
            let diag = |r: usize| f.row_dot(r, f.row(r));
            let mean = match set {
                BlockSet::Cone(_) => (diag(k) + diag(k + 1) + diag(k + 2)) / 3.0,
                BlockSet::Interval(_) => diag(k + 2),
            };
            let rigid = if mean > 0.0 { stiffness / mean } else { stiffness };
            for r in k..k + 3 {
                let c = f.problem.compliance[r];
                self.k[r] = if c > 0.0 { (1.0 / c).min(rigid) } else { rigid };
            }
        }
    }

    /// D, the Frobenius-norm minimizer of ‖I − D·A‖ (§IV-C): a body row j of A is
    /// (I + WᵀKW)_j and (−K_r W_rj)_r, a node row r is −K_r W_r and K_r. Leaves
    /// I + WᵀKW in `hessian`.
    fn frobenius(&mut self, f: &Factor) {
        let cols = f.cols;
        for j in 0..cols {
            self.hessian[j * cols + j] = 1.0;
        }
        for i in 0..f.problem.contacts() {
            let runs = f.support(i);
            for r in 3 * i..3 * i + 3 {
                let (wr, kr) = (f.row(r), self.k[r]);
                for &(lo, hi) in runs {
                    for a in lo..hi {
                        if wr[a] != 0.0 {
                            row_axpy(kr * wr[a], wr, &mut self.hessian[a * cols..(a + 1) * cols], runs);
                            self.t[a] += (kr * wr[a]) * (kr * wr[a]);
                        }
                    }
                }
            }
            let (mut diag, mut norm2) = (0.0, 0.0);
            for r in 3 * i..3 * i + 3 {
                let kr = self.k[r];
                diag += kr;
                norm2 += kr * kr * (row_dot(f.row(r), f.row(r), runs) + 1.0);
            }
            self.d_u[3 * i..3 * i + 3].fill(diag / norm2);
        }
        for j in 0..cols {
            let h = &self.hessian[j * cols..(j + 1) * cols];
            self.d_w[j] = h[j] / (dot(h, h) + self.t[j]);
        }
    }

    /// The gradient step on the bodies (eq. 20), their plain update ŵ: by the body
    /// block's inverse when factored, else by D_w; with e = W w + g − u and t = Wᵀ K e.
    fn gradient_step(&mut self, f: &Factor, block: bool) {
        self.t.fill(0.0);
        for r in 0..self.e.len() {
            let runs = f.support(r / 3);
            let e = row_dot(f.row(r), &self.w, runs) + f.problem.g[r] - self.u[r];
            self.e[r] = e;
            if e != 0.0 {
                row_axpy(self.k[r] * e, f.row(r), &mut self.t, runs);
            }
        }
        if let (true, Some(c)) = (block, self.cholesky.as_ref()) {
            for j in 0..f.cols {
                self.w_hat[j] = self.w[j] + self.t[j];
            }
            c.solve(&mut self.w_hat);
            for j in 0..f.cols {
                self.w_hat[j] = self.w[j] - self.w_hat[j];
            }
        } else {
            for j in 0..f.cols {
                self.w_hat[j] = self.w[j] - self.d_w[j] * (self.w[j] + self.t[j]);
            }
        }
    }

    /// The nodes: the gradient step u* = u + D_u K e (eq. 20), the contact solve on the
    /// diagonal surrogate λ = P(−u*/d̄) (Algorithm 2, eq. 26: strict or proximal) and
    /// û = u* + d̄λ (eq. 24).
    fn node_step(&mut self, sets: &[BlockSet], ncp: bool) {
        for (i, set) in sets.iter().enumerate() {
            let k = 3 * i;
            let d = self.d_u[k];
            let u_star: [f64; 3] = std::array::from_fn(|a| self.u[k + a] + d * self.k[k + a] * self.e[k + a]);
            let trial = [-u_star[0] / d, -u_star[1] / d, -u_star[2] / d];
            let lambda = if ncp { strict(set, &trial) } else { set.project(&trial) };
            cone::set_block(&mut self.lambda, i, &lambda);
            for a in 0..3 {
                self.u_hat[k + a] = u_star[a] + d * lambda[a];
            }
        }
    }

    /// Chebyshev's update (eq. 38–39) with under-relaxation γ, x ← ν(γ(x̂ − x) + x −
    /// x_prev) + x_prev for w and u; ν = 1 before `chebyshev_start`, then from ϱ, the
    /// ratio of the last two increments (capped). Returns ‖u^{l+1} − u^l‖∞.
    fn chebyshev(&mut self, s: &VfpiSettings, l: usize, state: &mut Chebyshev) -> f64 {
        let gamma = s.under_relaxation;
        let increment = (self.w_hat.iter().zip(&self.w).chain(self.u_hat.iter().zip(&self.u)))
            .map(|(a, b)| (gamma * (a - b)).powi(2))
            .sum::<f64>()
            .sqrt();
        let Chebyshev { nu, last_increment, rho } = state;
        if s.chebyshev_start > 0 && l >= s.chebyshev_start {
            if *last_increment > 0.0 {
                *rho = (increment / *last_increment).min(s.max_spectral_radius);
            }
            *nu = if l == s.chebyshev_start { 2.0 / (2.0 - *rho * *rho) } else { 4.0 / (4.0 - *rho * *rho * *nu) };
        }
        *last_increment = increment;
        let nu = *nu;
        for j in 0..self.w.len() {
            let x = nu * (gamma * (self.w_hat[j] - self.w[j]) + self.w[j] - self.w_prev[j]) + self.w_prev[j];
            self.w_prev[j] = self.w[j];
            self.w[j] = x;
        }
        let mut du: f64 = 0.0;
        for r in 0..self.u.len() {
            let x = nu * (gamma * (self.u_hat[r] - self.u[r]) + self.u[r] - self.u_prev[r]) + self.u_prev[r];
            du = max_or_nan(du, (x - self.u[r]).abs());
            self.u_prev[r] = self.u[r];
            self.u[r] = x;
        }
        du
    }

    /// The certificate: ‖û − ((G + K⁻¹)λ + g)‖∞, the nodes' velocities against the
    /// velocity λ produces.
    fn consistency(&mut self, f: &Factor) -> f64 {
        f.transpose_times(&self.lambda, &mut self.t);
        let mut consistency: f64 = 0.0;
        for r in 0..self.lambda.len() {
            let sigma = f.row_dot(r, &self.t) + f.problem.g[r] + self.lambda[r] / self.k[r];
            consistency = max_or_nan(consistency, (self.u_hat[r] - sigma).abs());
        }
        consistency
    }

    /// Algorithm 1's iterations, to the increment and the certificate within the
    /// tolerance (the certificate computed when the increment says so, or at the cap), a
    /// non-finite increment or the cap. Returns the final residuals (consistency,
    /// increment, 0).
    fn iterate(&mut self, f: &Factor, s: &VfpiSettings, block: bool, result: &mut SolveResult) -> Residuals {
        let ncp = s.model != ContactModel::Ccp;
        let mut chebyshev = Chebyshev { nu: 1.0, last_increment: 0.0, rho: 0.0 };
        let mut residuals = Residuals { primal: f64::INFINITY, dual: f64::INFINITY, complementarity: 0.0 };
        for l in 1..=s.stop.max_iterations {
            self.gradient_step(f, block);
            self.node_step(&f.problem.sets, ncp);
            let du = self.chebyshev(s, l, &mut chebyshev);
            residuals.dual = du;
            if !du.is_finite() {
                result.stats.iterations = l;
                break;
            }
            if du <= s.stop.absolute || l == s.stop.max_iterations {
                residuals.primal = self.consistency(f);
            }
            result.stats.record(l, residuals, s.record_history);
            if residuals.primal <= s.stop.absolute && du <= s.stop.absolute {
                result.converged = true;
                break;
            }
        }
        residuals
    }
}

/// Chebyshev's state: ν, the last increment and the spectral-radius estimate ϱ.
struct Chebyshev {
    nu: f64,
    last_increment: f64,
    rho: f64,
}

impl Solver for VfpiSolver {
    fn name(&self) -> &'static str {
        "vfpi"
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
        let s = self.settings;
        let (w, cols) = problem.factor_or_square_root(&mut self.own_factor);
        let f = Factor { problem, w, cols, all: [(0, cols)] };
        let ws = &mut self.ws;
        ws.size(3 * n, cols);
        ws.springs(&f, s.stiffness);
        ws.frobenius(&f);
        // I + WᵀKW ⪰ I is positive definite; should rounding say otherwise, the diagonal
        // serves.
        let mut block = s.preconditioner == Preconditioner::BodyBlock;
        if block {
            if ws.cholesky.as_ref().is_none_or(|c| c.capacity() < cols) {
                ws.cholesky = Some(Cholesky::with_capacity(cols));
            }
            block = ws.cholesky.as_mut().is_some_and(|c| c.factor(&ws.hessian, &ws.zeros, cols).is_ok());
        }
        // Start: λ from the warm start (projected), w = Wᵀλ, u = W w + g + K⁻¹λ (the
        // fixed point's relations).
        solve_skeleton::warm_impulses(warm, &problem.sets, &mut ws.lambda, BlockSet::project);
        f.transpose_times(&ws.lambda, &mut ws.w);
        for r in 0..3 * n {
            ws.u[r] = f.row_dot(r, &ws.w) + problem.g[r] + ws.lambda[r] / ws.k[r];
        }
        ws.w_prev.copy_from_slice(&ws.w);
        ws.u_prev.copy_from_slice(&ws.u);
        result.stats.residuals = ws.iterate(&f, &s, block, result);
        solve_skeleton::finish_from_impulses(problem, &ws.lambda, result);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A11 / Prop. 4: for any trial λ* and surrogate d̄ > 0 the strict operator's λ and the
    /// node velocity u = d̄(λ − λ*) satisfy the contact's Signorini–Coulomb conditions with
    /// maximum dissipation exactly: λ ∈ K_μ, u_N ≥ 0, λ_N·u_N = 0, u_T = 0 inside the cone,
    /// else u_T = −s·λ_T with s ≥ 0 (friction exactly opposite the slip).
    #[test]
    fn the_strict_operator_solves_the_surrogate_contact_exactly() {
        let mut next = crate::sampling::uniform(11);
        for case in 0..1000 {
            let mu = 0.1 + next().abs();
            let d = 0.01 + next().abs();
            let trial = [next(), next(), next()];
            let set = BlockSet::Cone(mu);
            let l = strict(&set, &trial);
            let u = [d * (l[0] - trial[0]), d * (l[1] - trial[1]), d * (l[2] - trial[2])];
            let lt = cone::tangent_norm(&l);
            assert!(l[2] >= 0.0 && lt <= mu * l[2] * (1.0 + 1e-15), "case {case}: {l:?}");
            assert!(u[2] >= 0.0 && l[2] * u[2] == 0.0, "case {case}: λ {l:?}, u {u:?}");
            let ut = cone::tangent_norm(&u);
            if lt < mu * l[2] * (1.0 - 1e-12) {
                assert!(ut == 0.0, "case {case}: sticking with u_T {u:?}");
            } else if lt > 0.0 {
                // u_T ∥ −λ_T: the cross product vanishes and the dot product is ≤ 0.
                let cross = u[0] * l[1] - u[1] * l[0];
                assert!(cross.abs() <= 1e-12 * (1.0 + ut * lt), "case {case}: {u:?} vs {l:?}");
                assert!(u[0] * l[0] + u[1] * l[1] <= 1e-15, "case {case}");
            }
        }
        // An interval clamps its row and zeroes the others.
        assert_eq!(strict(&BlockSet::Interval(0.5), &[1.0, 2.0, -3.0]), [0.0, 0.0, -0.5]);
    }

    /// An iteration that diverges (here forced by over-relaxing every update threefold;
    /// Chebyshev's ν does it on the 300-bead cable, tests/sim_cable.rs) overflows its nodes'
    /// velocities to ±∞, then NaN: the increment and the certificate must say so, not
    /// skip the NaN rows (`f64::max` drops a NaN operand) and report a NaN λ converged.
    #[test]
    fn a_diverging_iteration_is_never_reported_converged() {
        let rows: Vec<Vec<f64>> = (0..6).map(|i| (0..6).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        let problem = ContactProblem::from_dense(&rows, &[0.3, 0.0, -1.0, 0.0, 0.2, -1.0], &[0.5, 0.5], &[]).unwrap();
        let settings = VfpiSettings { under_relaxation: 3.0, chebyshev_start: 0, ..Default::default() };
        let mut solver = VfpiSolver::with_capacity(2, settings);
        let mut result = SolveResult::with_capacity(2, 0);
        solver.solve(&problem, None, &mut result).unwrap();
        let finite = result.lambda.iter().all(|x| x.is_finite());
        assert!(!finite, "the over-relaxed iteration diverges: {:?}", result.lambda);
        assert!(!result.converged, "a NaN λ reported converged after {} iterations", result.stats.iterations);
        assert!(result.stats.iterations < settings.stop.max_iterations, "stopped at the first non-finite increment");
        // The plain iteration converges on the same problem: λ_N = 1 per contact, less the
        // virtual nodes' compliance (1/`stiffness` relative).
        let mut solver = VfpiSolver::with_capacity(2, VfpiSettings::default());
        solver.solve(&problem, None, &mut result).unwrap();
        assert!(result.converged && (result.lambda[2] - 1.0).abs() < 1e-3, "{:?}", result.lambda);
    }
}
