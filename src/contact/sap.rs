//! SAP, Drake's semi-analytic primal solver (seed 001, Castro et al.; digest §1): the
//! convex contact problem solved as an unconstrained minimization over velocities,
//!
//! ```text
//! min_v ℓ_p(v) = ½‖v − v*‖²_A + ½‖P_F(y(v))‖²_R,   y = −R⁻¹(J v − v̂)       (eq. 24)
//! ```
//!
//! whose minimizer gives the impulses γ = P_F(y) (eq. 23), the unique solution of the dual
//! min_{γ ∈ F} ½γᵀ(G + R)γ + (J v* − v̂)ᵀγ (eq. 22): the compliant CCP.
//!
//! Velocities: with W the problem's factor (G = W·Wᵀ, W = J·U⁻ᵀ·D^{-1/2} for A = U·D·Uᵀ,
//! [`ContactProblem::delassus_factor`]), w = D^{1/2}Uᵀ(v − v*) turns ‖v − v*‖²_A into ‖w‖²
//! and the contact velocity into W·w + g: A = I, v* = 0 in these coordinates. A problem
//! given as plain data (G, g) is factored here, W = V·Λ^{1/2} from G's eigenvectors.
//!
//! Regularization (§1.4, eq. 29–30): per contact w_i = ‖G_ii‖_F/3 (Drake's first
//! definition; for a joint-friction row its diagonal entry), R_n = max(β²w_i/(4π²), R_n of
//! the problem), R_t = max(σ·w_i, R_t of the problem): near-rigid contacts get the
//! stabilization of β, compliant ones keep their physical compliance, and with a problem's
//! R above both SAP solves exactly that problem (the cross-check with Chrono's ADMM, A10).
//! Stabilization velocities v̂ are in g already (the gap's bias).
//!
//! Newton (Algorithm 2): the projection and its derivative G_c = −∂γ/∂v_c per contact in
//! closed form (§1.3, App. C), gradient ∇ℓ = w − Wᵀγ (the momentum balance), Hessian
//! H = I + Wᵀ G_c W factored by Cholesky, the exact line search along the Newton
//! direction by a safeguarded Newton–Raphson on dℓ/dα (rtsafe, α_max = 1.5, to
//! |ℓ'(α)| ≤ 10⁻⁸|ℓ'(0)|; each evaluation O(n_w + n_c)). Stopping (eq. 26, checked before
//! each factorization, so a warm start at the solution takes 0 iterations):
//! ‖∇ℓ‖ ≤ ε_a + ε_r·max(‖w‖, ‖Wᵀγ‖). Warm start: w⁰ = Wᵀλ_warm (the momentum of the
//! previous impulses). γ is in the cone and complementary to the regularized velocity at
//! every iterate: only the momentum balance is iterated.

use super::cone::BlockSet;
use super::dense::{Cholesky, dot};
use super::problem::ContactProblem;
use super::solve_skeleton::{self, Needs};
use super::solver::{ContactModel, Residuals, SolveError, SolveResult, Solver, WarmStart};

/// Settings of SAP (defaults: the digest's, from Drake).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SapSettings {
    /// ε_r of eq. 26 (dimensionless).
    pub relative: f64,
    /// ε_a of eq. 26 (√J).
    pub absolute: f64,
    /// Newton iterations at most.
    pub max_iterations: usize,
    /// Near-rigid parameter β (the resolved time scale in steps).
    pub beta: f64,
    /// Friction regularization σ (R_t = σ·w_i).
    pub sigma: f64,
    /// Line search: largest step and iterations at most.
    pub alpha_max: f64,
    /// Line search iterations at most.
    pub line_search_iterations: usize,
    /// Record ‖∇ℓ‖ of every iteration (as the dual residual) in the result's history.
    pub record_history: bool,
}

impl Default for SapSettings {
    fn default() -> Self {
        Self {
            relative: 1e-6,
            absolute: 1e-14,
            max_iterations: 100,
            beta: 1.0,
            sigma: 1e-3,
            alpha_max: 1.5,
            line_search_iterations: 100,
            record_history: false,
        }
    }
}

/// One contact's projection γ = P_F(y), y = −R⁻¹v_c, in the R-norm (§1.3), its cost
/// ½γᵀRγ and, if asked, G = −∂γ/∂v_c (row-major 3 × 3, symmetric positive semi-definite).
/// `r` = (R_t, R_t, R_n); a joint-friction interval acts on the third row only.
pub(crate) fn project(set: &BlockSet, r: &[f64; 3], vc: &[f64; 3], hessian: Option<&mut [f64; 9]>) -> ([f64; 3], f64) {
    let mut h = [0.0; 9];
    let gamma = match *set {
        BlockSet::Cone(mu) => {
            let y = [-vc[0] / r[0], -vc[1] / r[1], -vc[2] / r[2]];
            let yr = y[0].hypot(y[1]);
            // y_n ≥ 0 first: with μ = 0 and y_T = 0, yr ≤ μ y_n holds for any y_n < 0.
            if y[2] >= 0.0 && yr <= mu * y[2] {
                // Stiction: γ = y, G = R⁻¹.
                h[0] = 1.0 / r[0];
                h[4] = 1.0 / r[1];
                h[8] = 1.0 / r[2];
                y
            } else if y[2] <= -mu * r[0] / r[2] * yr {
                [0.0; 3]
            } else {
                // Sliding: γ_n = (y_n + μ̂ y_r)/(1 + μ̃²), γ_t = μ γ_n t̂ (yr > 0 here).
                let (mu_hat, f) = (mu * r[0] / r[2], 1.0 / (1.0 + mu * mu * r[0] / r[2]));
                let gn = (y[2] + mu_hat * yr) * f;
                let t = [y[0] / yr, y[1] / yr];
                // ∂γ/∂y, then G = ∂γ/∂y · R⁻¹ (columns over R).
                let mut d = [0.0; 9];
                for a in 0..2 {
                    for b in 0..2 {
                        let p = t[a] * t[b];
                        let perp = f64::from(u8::from(a == b)) - p;
                        d[3 * a + b] = mu * (gn / yr * perp + mu_hat * f * p);
                    }
                    d[3 * a + 2] = mu * f * t[a];
                    d[6 + a] = mu_hat * f * t[a];
                }
                d[8] = f;
                for row in 0..3 {
                    for col in 0..3 {
                        h[3 * row + col] = d[3 * row + col] / r[col];
                    }
                }
                [mu * gn * t[0], mu * gn * t[1], gn]
            }
        }
        BlockSet::Interval(bound) => {
            let y = -vc[2] / r[2];
            if y.abs() < bound {
                h[8] = 1.0 / r[2];
            }
            [0.0, 0.0, y.clamp(-bound, bound)]
        }
    };
    if let Some(out) = hessian {
        *out = h;
    }
    let cost = 0.5 * (r[0] * gamma[0] * gamma[0] + r[1] * gamma[1] * gamma[1] + r[2] * gamma[2] * gamma[2]);
    (gamma, cost)
}

/// The solver and its workspace (sized on the first solve of each size; nothing
/// allocates once the sizes have been seen).
#[derive(Debug)]
pub struct SapSolver {
    /// Settings.
    pub settings: SapSettings,
    capacity: usize,
    /// W of a problem given as plain data (3 n_c × 3 n_c).
    own_factor: Vec<f64>,
    ws: Workspace,
}

#[derive(Debug, Default)]
struct Workspace {
    /// Per row, R of the regularized problem.
    r: Vec<f64>,
    /// w (n_w), the gradient, the Newton direction, Wᵀγ, scratch.
    w: Vec<f64>,
    grad: Vec<f64>,
    dir: Vec<f64>,
    jc: Vec<f64>,
    /// v_c = W w + g, W·dir, γ (3 n_c).
    vc: Vec<f64>,
    dvc: Vec<f64>,
    gamma: Vec<f64>,
    /// Per contact, G_c (9 each), and G_c·W's rows (3 n_c × n_w).
    hess_blocks: Vec<f64>,
    gw: Vec<f64>,
    /// H = Wᵀ G_c W (n_w², the identity added by the factorization).
    hessian: Vec<f64>,
    ones: Vec<f64>,
    cholesky: Option<Cholesky>,
}

impl SapSolver {
    /// A solver for up to `capacity` contacts.
    pub fn with_capacity(capacity: usize, settings: SapSettings) -> Self {
        Self { settings, capacity, own_factor: Vec::new(), ws: Workspace::default() }
    }

    /// The diagonal R the last solve regularized with (3 per contact: R_t, R_t, R_n).
    pub fn regularization(&self) -> &[f64] {
        &self.ws.r
    }
}

/// y = W·x (W: `rows` × `cols`, rows contiguous).
fn w_times(w: &[f64], cols: usize, x: &[f64], y: &mut [f64]) {
    for (k, out) in y.iter_mut().enumerate() {
        *out = dot(&w[k * cols..(k + 1) * cols], x);
    }
}

/// y = Wᵀ·x.
fn wt_times(w: &[f64], cols: usize, x: &[f64], y: &mut [f64]) {
    y.fill(0.0);
    for (k, &xk) in x.iter().enumerate() {
        if xk != 0.0 {
            for (out, &wk) in y.iter_mut().zip(&w[k * cols..(k + 1) * cols]) {
                *out += wk * xk;
            }
        }
    }
}

fn norm2(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

impl Workspace {
    /// Sizes the buffers for `n` contacts and W of `cols` columns (allocating only for a
    /// size not seen before).
    fn size(&mut self, n: usize, cols: usize) {
        let m = 3 * n;
        solve_skeleton::zeroed(m, [&mut self.r, &mut self.vc, &mut self.dvc, &mut self.gamma]);
        solve_skeleton::zeroed(cols, [&mut self.w, &mut self.grad, &mut self.dir, &mut self.jc, &mut self.ones]);
        solve_skeleton::zeroed(9 * n, [&mut self.hess_blocks]);
        solve_skeleton::zeroed(m * cols, [&mut self.gw]);
        solve_skeleton::zeroed(cols * cols, [&mut self.hessian]);
        self.ones.fill(1.0);
        if self.cholesky.as_ref().is_none_or(|c| c.capacity() < cols) {
            self.cholesky = Some(Cholesky::with_capacity(cols));
        }
    }

    /// R (eq. 29–30) from w_i = ‖G_ii‖_F/3 (a joint-friction row: its diagonal entry):
    /// R_t = max(σ·w_i, R_t of the problem), R_n = max(β²w_i/(4π²), R_n of the problem).
    fn regularize(&mut self, problem: &ContactProblem, s: &SapSettings) {
        let m = 3 * problem.contacts();
        let g_at = |a: usize, b: usize| problem.delassus[a * m + b];
        let near_rigid = s.beta * s.beta / (4.0 * std::f64::consts::PI * std::f64::consts::PI);
        for (i, set) in problem.sets.iter().enumerate() {
            let k = 3 * i;
            let w = match set {
                BlockSet::Cone(_) => {
                    let mut f = 0.0;
                    for a in k..k + 3 {
                        for b in k..k + 3 {
                            f += g_at(a, b) * g_at(a, b);
                        }
                    }
                    f.sqrt() / 3.0
                }
                BlockSet::Interval(_) => g_at(k + 2, k + 2),
            };
            let w = if w > 0.0 { w } else { 1.0 };
            let c = &problem.compliance[k..k + 3];
            self.r[k] = (s.sigma * w).max(c[0]);
            self.r[k + 1] = (s.sigma * w).max(c[1]);
            self.r[k + 2] = (near_rigid * w).max(c[2]);
        }
    }

    /// At w: v_c = W w + g, γ = P_F(y(v_c)) and G_c per contact (eq. 23), the gradient
    /// ∇ℓ = w − Wᵀγ (the momentum balance). Returns ‖∇ℓ‖.
    fn evaluate(&mut self, problem: &ContactProblem, factor: &[f64], cols: usize) -> f64 {
        w_times(factor, cols, &self.w, &mut self.vc);
        for (v, g) in self.vc.iter_mut().zip(&problem.g) {
            *v += g;
        }
        for (i, set) in problem.sets.iter().enumerate() {
            let j = 3 * i;
            let r = [self.r[j], self.r[j + 1], self.r[j + 2]];
            let vc = [self.vc[j], self.vc[j + 1], self.vc[j + 2]];
            let mut h = [0.0; 9];
            let (gamma, _) = project(set, &r, &vc, Some(&mut h));
            self.gamma[j..j + 3].copy_from_slice(&gamma);
            self.hess_blocks[9 * i..9 * i + 9].copy_from_slice(&h);
        }
        wt_times(factor, cols, &self.gamma, &mut self.jc);
        for j in 0..cols {
            self.grad[j] = self.w[j] - self.jc[j];
        }
        norm2(&self.grad)
    }

    /// H − I = Wᵀ G_c W: (G_c W) per contact, then Wᵀ·(G_c W) (the identity is added by
    /// the factorization).
    fn hessian(&mut self, factor: &[f64], cols: usize) {
        let m = self.vc.len();
        for i in 0..m / 3 {
            let h = &self.hess_blocks[9 * i..9 * i + 9];
            for a in 0..3 {
                let row = (3 * i + a) * cols;
                for c in 0..cols {
                    let mut sum = 0.0;
                    for b in 0..3 {
                        sum += h[3 * a + b] * factor[(3 * i + b) * cols + c];
                    }
                    self.gw[row + c] = sum;
                }
            }
        }
        self.hessian.fill(0.0);
        for row in 0..m {
            let wr = &factor[row * cols..(row + 1) * cols];
            let gr = &self.gw[row * cols..(row + 1) * cols];
            if gr.iter().all(|&x| x == 0.0) {
                continue;
            }
            for a in 0..cols {
                if wr[a] != 0.0 {
                    let out = &mut self.hessian[a * cols..(a + 1) * cols];
                    for (o, &x) in out.iter_mut().zip(gr) {
                        *o += wr[a] * x;
                    }
                }
            }
        }
    }

    /// γ(v_c + α·Δv_c) for every contact; returns (ℓ'(α), ℓ''(α)) along the direction,
    /// with w + α·dir for the A-part.
    fn along(&self, sets: &[BlockSet], alpha: f64) -> (f64, f64) {
        let (mut d1, mut d2) = (0.0, dot(&self.dir, &self.dir));
        for (j, d) in self.dir.iter().enumerate() {
            d1 += (self.w[j] + alpha * d) * d;
        }
        let mut h = [0.0; 9];
        for (i, set) in sets.iter().enumerate() {
            let k = 3 * i;
            let vc = [
                self.vc[k] + alpha * self.dvc[k],
                self.vc[k + 1] + alpha * self.dvc[k + 1],
                self.vc[k + 2] + alpha * self.dvc[k + 2],
            ];
            let r = [self.r[k], self.r[k + 1], self.r[k + 2]];
            let (gamma, _) = project(set, &r, &vc, Some(&mut h));
            let dv = [self.dvc[k], self.dvc[k + 1], self.dvc[k + 2]];
            for a in 0..3 {
                d1 -= dv[a] * gamma[a];
                for b in 0..3 {
                    d2 += dv[a] * h[3 * a + b] * dv[b];
                }
            }
        }
        (d1, d2)
    }

    /// The exact line search along `dir` (Algorithm 2): a safeguarded Newton–Raphson on
    /// ℓ'(α) (rtsafe) in [0, α_max], to |ℓ'(α)| ≤ 10⁻⁸|ℓ'(0)|; `d0` = ℓ'(0) < 0. α_max
    /// itself when ℓ is still decreasing there.
    fn line_search(&self, sets: &[BlockSet], s: &SapSettings, d0: f64) -> f64 {
        let (d_max, _) = self.along(sets, s.alpha_max);
        if d_max <= 0.0 {
            return s.alpha_max;
        }
        let (mut lo, mut hi) = (0.0, s.alpha_max);
        let (_, dd0) = self.along(sets, 0.0);
        let mut alpha = if dd0 > 0.0 { (-d0 / dd0).min(s.alpha_max) } else { 1.0 };
        for _ in 0..s.line_search_iterations {
            let (d1, d2) = self.along(sets, alpha);
            if d1.abs() <= 1e-8 * d0.abs() {
                break;
            }
            if d1 < 0.0 {
                lo = alpha;
            } else {
                hi = alpha;
            }
            let newton = if d2 > 0.0 { alpha - d1 / d2 } else { f64::NAN };
            alpha = if newton > lo && newton < hi { newton } else { 0.5 * (lo + hi) };
            if hi - lo <= f64::EPSILON * hi {
                break;
            }
        }
        alpha
    }

    /// Newton's iterations (Algorithm 2) from w, to eq. 26's tolerance (checked before
    /// each factorization), a failed factorization or ascent direction (stalled), or the
    /// cap.
    fn newton(
        &mut self,
        problem: &ContactProblem,
        factor: &[f64],
        cols: usize,
        s: &SapSettings,
        result: &mut SolveResult,
    ) {
        for k in 0..=s.max_iterations {
            let gradient_norm = self.evaluate(problem, factor, cols);
            let residuals = Residuals { primal: 0.0, dual: gradient_norm, complementarity: 0.0 };
            result.stats.record(k, residuals, s.record_history);
            if gradient_norm <= s.absolute + s.relative * norm2(&self.w).max(norm2(&self.jc)) {
                result.converged = true;
                break;
            }
            if k == s.max_iterations {
                break;
            }
            self.hessian(factor, cols);
            let Some(cholesky) = self.cholesky.as_mut() else { break };
            if cholesky.factor(&self.hessian, &self.ones, cols).is_err() {
                result.stats.stalled = true;
                break;
            }
            result.stats.factorizations += 1;
            for j in 0..cols {
                self.dir[j] = -self.grad[j];
            }
            cholesky.solve(&mut self.dir);
            w_times(factor, cols, &self.dir, &mut self.dvc);
            let d0 = dot(&self.grad, &self.dir);
            if d0 >= 0.0 {
                result.stats.stalled = true;
                break;
            }
            let alpha = self.line_search(&problem.sets, s, d0);
            for j in 0..cols {
                self.w[j] += alpha * self.dir[j];
            }
        }
    }
}

impl Solver for SapSolver {
    fn name(&self) -> &'static str {
        "sap"
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
        // W: the problem's, or G's square root.
        let (factor, cols) = problem.factor_or_square_root(&mut self.own_factor);
        let ws = &mut self.ws;
        ws.size(n, cols);
        ws.regularize(problem, &s);
        // Warm start: w⁰ = Wᵀλ (known, projected blocks).
        if warm.is_some() {
            solve_skeleton::warm_impulses(warm, &problem.sets, &mut ws.gamma, BlockSet::project);
            wt_times(factor, cols, &ws.gamma, &mut ws.w);
        }
        ws.newton(problem, factor, cols, &s, result);
        solve_skeleton::finish_from_impulses(problem, &ws.gamma, result);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A8: the closed form against a brute-force search of (x − y)ᵀR(x − y) over the
    /// cone (no point of a polar grid of its surface nor the apex is closer), the
    /// projection's characterization in the R inner product (γ ⊥ R(y − γ), R(y − γ) in the
    /// polar cone: together with γ ∈ F they make γ the minimizer), and G against central
    /// differences of γ(v_c).
    #[test]
    fn the_projection_is_the_r_norm_minimizer_and_g_its_derivative() {
        let mut next = crate::sampling::uniform(7);
        for case in 0..200 {
            let mu = 0.2 + 0.8 * next().abs();
            let (rt, rn) = (0.01 + next().abs(), 0.01 + next().abs());
            let r = [rt, rt, rn];
            let vc = [next(), next(), next()];
            let set = BlockSet::Cone(mu);
            let mut h = [0.0; 9];
            let (gamma, _) = project(&set, &r, &vc, Some(&mut h));
            let y = [-vc[0] / rt, -vc[1] / rt, -vc[2] / rn];
            let dist = |x: [f64; 3]| (0..3).map(|a| r[a] * (x[a] - y[a]).powi(2)).sum::<f64>();
            // In the cone.
            assert!(gamma[0].hypot(gamma[1]) <= mu * gamma[2] * (1.0 + 1e-12) + 1e-15, "case {case}");
            // No surface point or the apex is closer; inside, γ = y.
            let best = dist(gamma);
            let mut brute = dist([0.0; 3]);
            for a in 0..720 {
                let th = a as f64 * std::f64::consts::TAU / 720.0;
                // Along the ray at angle th the distance is quadratic in the normal: its
                // minimizer in closed form.
                let (c, sn) = (mu * th.cos(), mu * th.sin());
                let num = rt * (c * y[0] + sn * y[1]) + rn * y[2];
                let den = rt * (c * c + sn * sn) + rn;
                let t = (num / den).max(0.0);
                brute = brute.min(dist([c * t, sn * t, t]));
            }
            if y[0].hypot(y[1]) <= mu * y[2] {
                assert_eq!(gamma, y);
            } else {
                assert!(best <= brute * (1.0 + 1e-9) + 1e-14, "case {case}: {best} vs {brute}");
            }
            // G symmetric PSD and −∂γ/∂v_c.
            for a in 0..3 {
                for b in 0..3 {
                    assert!((h[3 * a + b] - h[3 * b + a]).abs() <= 1e-9 * (1.0 + h[3 * a + b].abs()), "case {case}");
                }
            }
            let eps = 1e-7;
            for b in 0..3 {
                let (mut p, mut q) = (vc, vc);
                p[b] += eps;
                q[b] -= eps;
                let (gp, _) = project(&set, &r, &p, None);
                let (gq, _) = project(&set, &r, &q, None);
                for a in 0..3 {
                    let fd = -(gp[a] - gq[a]) / (2.0 * eps);
                    let scale = 1.0 + h[3 * a + b].abs();
                    // Away from a region boundary the difference quotient is G's entry.
                    assert!(
                        (fd - h[3 * a + b]).abs() < 1e-4 * scale,
                        "case {case}: G[{a}][{b}] {} vs {fd}",
                        h[3 * a + b]
                    );
                }
            }
            // Complementarity: γ ⊥ R(y − γ), the latter in the polar cone.
            let s = [r[0] * (y[0] - gamma[0]), r[1] * (y[1] - gamma[1]), r[2] * (y[2] - gamma[2])];
            let comp = gamma[0] * s[0] + gamma[1] * s[1] + gamma[2] * s[2];
            assert!(comp.abs() < 1e-12, "case {case}: {comp}");
            assert!(mu * s[0].hypot(s[1]) <= -s[2] * (1.0 + 1e-9) + 1e-12, "case {case}: {s:?}");
        }
    }

    /// A joint limit (μ = 0) whose unconstrained impulse pulls projects to zero, with a zero
    /// derivative: the limit holds only by pushing.
    #[test]
    fn a_limit_pulled_away_carries_no_impulse() {
        let r = [1.0, 1.0, 0.5];
        let mut h = [1.0; 9];
        let (gamma, cost) = project(&BlockSet::Cone(0.0), &r, &[0.0, 0.0, 2.0], Some(&mut h));
        assert_eq!((gamma, cost), ([0.0; 3], 0.0));
        assert_eq!(h, [0.0; 9]);
    }
}
