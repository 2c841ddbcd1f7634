//! Active-set polish: a guess of each block's mode — the previous step's impulses (a
//! warm start) or the ADMM's iterate mid-solve — turns the NCP into a system of
//! equations, solved by Newton's method and then checked (OSQP's solution polishing,
//! Stellato et al. 2020 §4.2, extended to friction's sliding modes as a semi-smooth
//! Newton on a fixed active set).
//!
//! From the guess λ⁰ each block is in one mode:
//!
//! ```text
//! cone, μ > 0:   λ⁰_N ≤ 0                 separated     λ = 0
//!                ‖λ⁰_T‖ < μ λ⁰_N          sticking      σ = 0                        (3 rows)
//!                otherwise                sliding       σ_N = 0,                     (3 rows)
//!                                                       λ_T + μ λ_N σ_T/‖σ_T‖ = 0
//! cone, μ = 0:   λ⁰_N > 0                 normal        σ_N = 0, λ_T = 0             (1 row)
//! interval b:    |λ⁰_N| < b               normal        σ_N = 0                      (1 row)
//!                |λ⁰_N| = b               at the bound  λ_N = ±b
//! ```
//!
//! with σ = (G + R)λ + g. The sliding equations are the NCP's on the cone's edge: the
//! physical normal velocity zero (σ + Γ(σ) on the dual cone's edge, seed 000 eq. 27) and
//! the friction impulse opposing the slip at its bound (maximum dissipation). Sticking and
//! normal rows are linear, so without a sliding block one Newton step solves them; the
//! sliding rows' Jacobian (J_T = I + μ σ̂_T e_Nᵀ + (μ λ_N/‖σ_T‖)(I − σ̂_T σ̂_Tᵀ)(G + R)_T·)
//! makes the system nonsymmetric, solved by LU (Cholesky without a sliding block).
//!
//! A hyperstatic set — four corners of a box, a robot's flat feet, a wheel's two edges —
//! has a singular Newton matrix: its impulses are not unique. Sticking (a linear set), its
//! velocities are (σ_F = 0): it is solved by proximal-point steps on (G + R)_FF + εI from
//! λ_F = 0, which converge to the impulses of least norm (no internal forces between the
//! corners), on the joint-space side W_Fᵀ W_F when the problem's factor W has fewer
//! columns than the set has rows (`Polish::factor_joint_space`). Once some of its blocks
//! slide, neither are its velocities unique, and the set is refused. (A proximal Newton
//! step did solve such sets, but chose other solutions than the ADMM's: the bundled wheeled
//! base, rigid then, turned 3 % below its kinematic rate instead of 1 % above; neither is
//! wrong, its two edges' split of the load not being unique, and its tread is compliant
//! since. Re-enabled for near-singular LUs, talos falling from six postures then missed
//! the tolerance on 38 to 76 steps of 12 000 instead of 22: not kept.)
//!
//! A candidate is accepted only if every block stays in its mode's set and the NCP
//! criterion of the ADMM's start test ([`super::cone::BlockSet::velocity_error`]) is
//! within the tolerance: then it is a solution at the solver's own accuracy, found with a
//! few small factorizations instead of (more) iterations. From a warm start it pays off
//! when modes persist from one step to the next (a robot standing or walking on its stance
//! feet); mid-solve ([`ModeWatch`]), once the ADMM's iterate has found the modes, it
//! replaces the iterations that would only refine the impulses. A warm start that still
//! solves its linear set within [`AS_IS`] of the tolerance (bodies at rest) is kept as it
//! is, without the step's factorization.

use super::cone::{self, BlockSet, Vec3c};
use super::delassus;
use super::dense::{Cholesky, Lu};
use super::metrics::max_or_nan;
use super::problem::ContactProblem;
use super::solver::{ContactModel, Residuals, SolveResult, WarmStart};

/// More unknown rows than this are not polished (the Newton matrix is dense: its LU,
/// 2n³/3 flops, costs at 96 rows what about 16 ADMM iterations on 32 contacts do, 2m²
/// each with m = 96), nor a hyperstatic set solved on the joint-space side with more
/// columns (`Polish::factor_joint_space`).
pub const MAX_FREE_ROWS: usize = 96;

/// How hard a guess is tried: Newton steps, and mode switches of the primal-dual
/// active-set update, before it is given up.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Effort {
    /// Newton steps on one set of modes (sliding blocks converge quadratically once their
    /// slip direction is right; without them the first step is the solution).
    pub newton: usize,
    /// Mode switches ([`Polish::try_modes`]).
    pub switches: usize,
    /// Whether a linear set's guess is first checked as it is, before its step
    /// ([`AS_IS`]).
    pub as_is: bool,
}

impl Effort {
    /// A warm start, tried on every step before the solver: cheap when it fails (the
    /// previous step's modes, no switch).
    pub const WARM_START: Self = Self { newton: 3, switches: 0, as_is: true };
    /// The ADMM's iterate, tried a few times a solve ([`ModeWatch`]).
    pub const MID_SOLVE: Self = Self { newton: 3, switches: 3, as_is: false };
}

/// A linear set's warm start is kept as it is, without its Newton step, when its error is
/// within this fraction of the tolerance (bodies at rest: a settled pile's problem is the
/// same from one step to the next). Not at the tolerance itself: the step is exact, and
/// an error kept stays in the bodies' velocities, which the next step's guess then misses
/// by as much. At the tolerance, the 100-box pile's islands alternated kept steps and
/// solved ones, each guess missing by about 1e-6.
pub const AS_IS: f64 = 0.01;

/// Halvings of a Newton step that grew the error, before the modes are given up.
const HALVINGS: usize = 2;

/// A factorization whose smallest pivot is below this fraction of its largest (of
/// Cholesky's L, so the square root of the conditioning; squared for LU's U) is refused.
const PIVOT_RATIO: f64 = 1e-6;

/// The proximal term of a hyperstatic linear set, relative to the largest diagonal entry
/// of its Newton matrix ([`Polish::factor`], [`Polish::factor_joint_space`]). Each
/// proximal step shrinks the error along a non-zero eigenvalue s of G_FF by ε/(ε + s): an
/// eigenvalue 1e-4 of the largest loses a factor 1e5 a step. Small against the
/// eigenvalues, large enough that the factor's pivots stay above [`PIVOT_RATIO`]
/// (√1e-9 ≈ 3e-5); the null space, kept at zero, picks up rounding times 1/ε (2.3e-8 on
/// a duplicated contact, none through W, whose steps stay in its range).
const PROXIMAL: f64 = 1e-9;

/// A cone block whose friction is within this fraction of its bound slides: the ADMM's
/// projection puts sliding impulses on the edge to rounding.
const EDGE: f64 = 1e-9;

/// A block's mode (the module's table).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    /// λ = 0.
    Separated,
    /// σ = 0.
    Sticking,
    /// σ_N = 0 and the friction at its bound, opposing the slip.
    Sliding,
    /// σ_N = 0, no tangential impulse (a frictionless contact, a joint-friction interval
    /// inside its band).
    Normal,
    /// A joint-friction interval at its bound.
    Bound,
}

impl Mode {
    /// The mode of impulse `l` in `set`.
    pub fn of(set: &BlockSet, l: &Vec3c) -> Self {
        match *set {
            BlockSet::Cone(_) if l[2] <= 0.0 => Mode::Separated,
            BlockSet::Cone(mu) if mu <= 0.0 => Mode::Normal,
            BlockSet::Cone(mu) if cone::tangent_norm(l) < mu * l[2] * (1.0 - EDGE) => Mode::Sticking,
            BlockSet::Cone(_) => Mode::Sliding,
            BlockSet::Interval(b) if l[2].abs() < b => Mode::Normal,
            BlockSet::Interval(_) => Mode::Bound,
        }
    }

    /// The mode of a separated block of `set` that must push (its velocity would
    /// penetrate): sticking on a cone with friction, normal on a frictionless one (a
    /// joint limit has no tangent rows: sticking would put two zero rows in the Newton
    /// matrix, a singular factorization).
    fn pressed(set: &BlockSet) -> Self {
        if set.friction() > 0.0 { Mode::Sticking } else { Mode::Normal }
    }

    /// The start of a block entering this mode from impulse `l`: zero when separated,
    /// the normal part alone when normal, the bound held, on the cone when sliding.
    fn start(self, set: &BlockSet, l: &Vec3c) -> Vec3c {
        match (self, *set) {
            (Mode::Separated, _) => [0.0; 3],
            (Mode::Normal, _) => [0.0, 0.0, l[2]],
            (Mode::Bound, BlockSet::Interval(b)) => [0.0, 0.0, b.copysign(l[2])],
            (Mode::Sliding, _) => set.project(l),
            _ => *l,
        }
    }

    /// The block's unknown rows.
    fn rows(self) -> &'static [usize] {
        match self {
            Mode::Separated | Mode::Bound => &[],
            Mode::Normal => &[2],
            Mode::Sticking | Mode::Sliding => &[0, 1, 2],
        }
    }
}

/// The polish's workspace, sized once.
#[derive(Debug)]
pub struct Polish {
    lu: Lu,
    chol: Cholesky,
    zeros: Vec<f64>,
    modes: Vec<Mode>,
    /// The blocks with unknown rows, each with the offset of its first in the system.
    active: Vec<(usize, usize)>,
    /// Unknown rows of the system.
    unknowns: usize,
    /// The Newton matrix (rows contiguous).
    jacobian: Vec<f64>,
    /// Whether the set has more rigid unknown rows than the problem's dofs (G_FF singular).
    hyperstatic: bool,
    /// Whether every unknown row is rigid (R = 0: G_FF = W_F W_Fᵀ).
    rigid: bool,
    /// The columns of W when the last factor was of the joint-space matrix
    /// W_Fᵀ W_F + εI ([`Polish::factor_joint_space`]); 0 otherwise.
    joint_space: usize,
    /// W_Fᵀ W_F (rows contiguous), and a vector over W's columns.
    normal: Vec<f64>,
    joint: Vec<f64>,
    /// Whether the factor is of the current set (a linear set's matrix does not change
    /// with λ).
    factored: bool,
    /// The proximal term ε of the last factorization (0: none), ε on `shift`'s rows.
    proximal: f64,
    shift: Vec<f64>,
    /// The residual F.
    residual: Vec<f64>,
    /// The Newton step J⁻¹F.
    step: Vec<f64>,
    /// Wᵀλ (the factor's columns).
    t: Vec<f64>,
    /// The candidate (λ, σ, z).
    candidate: SolveResult,
    /// λ before the last Newton step.
    previous: Vec<f64>,
    /// The active blocks' linearizations, sliding ones (in `active`'s order).
    slips: Vec<Option<Slip>>,
}

impl Polish {
    /// A workspace for problems of up to `contacts` blocks and [`MAX_FREE_ROWS`] unknown
    /// rows, whose factor W has up to `cols` columns (their dofs).
    pub fn with_capacity(contacts: usize, cols: usize) -> Self {
        let n = MAX_FREE_ROWS;
        Self {
            lu: Lu::with_capacity(n),
            chol: Cholesky::with_capacity(n),
            zeros: vec![0.0; n],
            modes: Vec::with_capacity(contacts),
            active: Vec::with_capacity(contacts),
            unknowns: 0,
            jacobian: Vec::with_capacity(n * n),
            hyperstatic: false,
            rigid: false,
            joint_space: 0,
            normal: Vec::with_capacity(n * n),
            joint: vec![0.0; n],
            factored: false,
            proximal: 0.0,
            shift: vec![0.0; n],
            residual: Vec::with_capacity(n.max(3 * contacts)),
            step: vec![0.0; n.max(3 * contacts)],
            t: vec![0.0; cols],
            candidate: SolveResult::with_capacity(contacts, 0),
            previous: Vec::with_capacity(3 * contacts),
            slips: Vec::with_capacity(contacts),
        }
    }

    /// Tries the modes of a warm start `guess` on `problem` (G, or its factor W of at
    /// most the capacity's columns). On success `result` holds λ, σ = (G + R)λ + g and
    /// z = σ + Γ(σ) (converged, no iteration, its complementarity residual the velocity
    /// error, the guess's eigenvector estimate passed on) and true is returned; false when
    /// a block is new to the guess, or the guess fails (`result` untouched).
    pub fn try_solve(
        &mut self,
        problem: &ContactProblem,
        guess: &WarmStart,
        model: ContactModel,
        tolerance: f64,
        result: &mut SolveResult,
    ) -> bool {
        let n = problem.contacts();
        if guess.lambda.len() < 3 * n || !guess.known.get(..n).is_some_and(|k| k.iter().all(|&x| x)) {
            return false;
        }
        if !self.try_modes(problem, &guess.lambda[..3 * n], model, tolerance, Effort::WARM_START) {
            return false;
        }
        result.reset(3 * n);
        self.accept(0, result);
        // No power iteration here: the ADMM's estimate is passed on to the next step.
        result.eigen.extend(guess.eigen.get(..3 * n).into_iter().flatten());
        true
    }

    /// Tries the modes of `lambda` (3 per block of `problem`): true when Newton's method
    /// on them reaches a solution within `tolerance`, then held as the candidate for
    /// [`Polish::accept`]. The pyramid's problem is not polished (its modes are not the
    /// cone's), nor a CCP's sliding blocks (their edge equations are the NCP's).
    pub fn try_modes(
        &mut self,
        problem: &ContactProblem,
        lambda: &[f64],
        model: ContactModel,
        tolerance: f64,
        effort: Effort,
    ) -> bool {
        let n = problem.contacts();
        if model == ContactModel::Lcp || n == 0 || lambda.len() < 3 * n {
            return false;
        }
        let ncp = model == ContactModel::Ncp;
        self.select(problem, lambda, ncp) && self.newton(problem, ncp, tolerance, effort)
    }

    /// Newton's iterations from the candidate's start, to the tolerance (true); a block
    /// that leaves its mode's set switches mode (at most `effort.switches` times).
    fn newton(&mut self, problem: &ContactProblem, ncp: bool, tolerance: f64, effort: Effort) -> bool {
        let (mut switches, mut steps, mut halvings, mut last) = (0, 0, 0, f64::INFINITY);
        if effort.as_is && self.linear() {
            self.candidate_velocity(problem);
            if let Check::Solved(error) = self.check(problem, ncp, AS_IS * tolerance) {
                self.candidate.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: error };
                return true;
            }
        }
        self.linear_start();
        loop {
            self.candidate_velocity(problem);
            match self.check(problem, ncp, tolerance) {
                Check::Solved(error) => {
                    self.candidate.stats.residuals = Residuals { primal: 0.0, dual: 0.0, complementarity: error };
                    return true;
                }
                Check::Off if switches < effort.switches => {
                    (switches, steps, halvings, last) = (switches + 1, 0, 0, f64::INFINITY);
                    if !self.switch_modes(problem, ncp, tolerance) {
                        return false;
                    }
                    self.linear_start();
                    continue;
                }
                Check::Off => return false,
                // A step that grew the error overshot (the slip direction's linearization
                // holds for changes small against the slip): half of it, twice at most;
                // then the modes are wrong. A linear step is exact: halving it is no use.
                Check::Error(e) if e >= last && halvings < HALVINGS && !self.linear() => {
                    halvings += 1;
                    self.halve_step(problem);
                    continue;
                }
                // A linear set (no sliding block) is solved by its first step; more would
                // only refine an ill-conditioned one towards impulses as large as its
                // conditioning (internal forces between feet). A hyperstatic one takes
                // proximal steps, each shrinking the error by the factor's ε/(ε + s).
                Check::Error(e)
                    if steps >= effort.newton || e >= last || (steps > 0 && self.linear() && self.proximal == 0.0) =>
                {
                    return false;
                }
                Check::Error(e) => (last, halvings) = (e, 0),
            }
            self.previous.clear();
            self.previous.extend_from_slice(&self.candidate.lambda);
            if !self.newton_step(problem) {
                return false;
            }
            steps += 1;
        }
    }

    /// σ = (G + R)λ + g of the candidate, by G or by W.
    fn candidate_velocity(&mut self, problem: &ContactProblem) {
        let c = &mut self.candidate;
        if problem.has_delassus() || self.t.is_empty() {
            problem.contact_velocity(&c.lambda, &mut c.sigma);
        } else {
            problem.contact_velocity_by_factor(&c.lambda, &mut c.sigma, &mut self.t);
        }
    }

    /// The candidate of the last successful [`Polish::try_modes`] into `result`:
    /// converged after `iterations` (0 from a warm start), polished.
    /// `result` must be sized for the problem (its other counters are kept).
    pub fn accept(&self, iterations: usize, result: &mut SolveResult) {
        let c = &self.candidate;
        result.lambda.copy_from_slice(&c.lambda);
        result.sigma.copy_from_slice(&c.sigma);
        result.dual.copy_from_slice(&c.dual);
        result.converged = true;
        result.stats.iterations = iterations;
        result.stats.residuals = c.stats.residuals;
        result.stats.polished = true;
    }

    /// The modes of `lambda`, the active blocks and the candidate's start: the guess on
    /// the unknown rows, the fixed impulses elsewhere. False when the unknown rows exceed
    /// [`MAX_FREE_ROWS`], or a CCP block slides.
    fn select(&mut self, problem: &ContactProblem, lambda: &[f64], ncp: bool) -> bool {
        let n = problem.contacts();
        self.modes.clear();
        self.candidate.reset(3 * n);
        for (i, set) in problem.sets.iter().enumerate() {
            let l = cone::block(lambda, i);
            let mode = Mode::of(set, &l);
            if mode == Mode::Sliding && !ncp {
                return false;
            }
            cone::set_block(&mut self.candidate.lambda, i, &mode.start(set, &l));
            self.modes.push(mode);
        }
        self.layout(problem)
    }

    /// A linear set's free rows cleared, so that its one Newton step solves
    /// J λ_F = −(g + (G + R)λ_X)_F from the fixed impulses alone, as a direct solve does:
    /// a step from the guess would add J⁻¹J λ⁰_F, rounded by J's conditioning.
    fn linear_start(&mut self) {
        if !self.linear() {
            return;
        }
        for &(a, _) in &self.active {
            for &r in self.modes[a].rows() {
                self.candidate.lambda[3 * a + r] = 0.0;
            }
        }
    }

    /// The last Newton step halved: λ back to the midpoint of it and its start, sliding
    /// blocks projected onto their cones again.
    fn halve_step(&mut self, problem: &ContactProblem) {
        for &(a, _) in &self.active {
            for &r in self.modes[a].rows() {
                let j = 3 * a + r;
                self.candidate.lambda[j] = 0.5 * (self.candidate.lambda[j] + self.previous[j]);
            }
            if self.modes[a] == Mode::Sliding {
                let l = problem.sets[a].project(&cone::block(&self.candidate.lambda, a));
                cone::set_block(&mut self.candidate.lambda, a, &l);
            }
        }
    }

    /// Whether no block slides: the Newton system is then linear.
    fn linear(&self) -> bool {
        self.active.iter().all(|&(a, _)| self.modes[a] != Mode::Sliding)
    }

    /// The active blocks and their offsets from the modes; false beyond [`MAX_FREE_ROWS`]
    /// unknown rows, unless the set is solved on the joint-space side with at most as many
    /// columns. A set with more rigid unknown rows than the problem's dofs (the columns of
    /// its factor W, when it has one) has a singular G_FF = W_F W_Fᵀ: refused here when a
    /// block slides (the hyperstatic case [`Polish::factor`] would refuse after the
    /// work), marked for the proximal factor when the set is linear.
    fn layout(&mut self, problem: &ContactProblem) -> bool {
        self.active.clear();
        self.unknowns = 0;
        self.factored = false;
        let mut rigid = 0;
        for (i, mode) in self.modes.iter().enumerate() {
            let rows = mode.rows();
            if !rows.is_empty() {
                self.active.push((i, self.unknowns));
                self.unknowns += rows.len();
                rigid += rows.iter().filter(|&&r| problem.compliance[3 * i + r] == 0.0).count();
            }
        }
        let dofs = problem.delassus_factor().map_or(usize::MAX, |(_, cols)| cols);
        self.hyperstatic = rigid > dofs;
        self.rigid = rigid == self.unknowns;
        if self.hyperstatic && !self.linear() {
            return false;
        }
        // The joint-space factor's cost is in W's columns, not the set's rows.
        self.unknowns <= MAX_FREE_ROWS || (self.hyperstatic && self.rigid && dofs <= MAX_FREE_ROWS)
    }

    /// The primal-dual active-set update after a check found blocks off their mode's
    /// set: each such block takes the mode of its impulse ([`Mode::of`]: a sticking block
    /// pushed out of the cone slides, one pulled through it separates, an interval beyond
    /// its band holds the bound), a sliding block that does not slide ([`slides`]) sticks,
    /// and a separated block whose velocity is not in the dual cone (it would penetrate)
    /// sticks. False when the new set is too large, or a CCP block would slide.
    fn switch_modes(&mut self, problem: &ContactProblem, ncp: bool, tolerance: f64) -> bool {
        for (i, set) in problem.sets.iter().enumerate() {
            let l = cone::block(&self.candidate.lambda, i);
            let mode = self.modes[i];
            let new = if mode == Mode::Separated {
                let s = cone::block(&self.candidate.sigma, i);
                let z = cone::add(&s, &set.correction(ncp, &s));
                if set.dual_distance(&z) > tolerance { Mode::pressed(set) } else { mode }
            } else if mode == Mode::Sliding && !slides(&l, &cone::block(&self.candidate.sigma, i), tolerance) {
                Mode::Sticking
            } else if off_set(mode, set, &l) {
                Mode::of(set, &l)
            } else {
                mode
            };
            if new == Mode::Sliding && !ncp {
                return false;
            }
            if new != mode {
                self.modes[i] = new;
                cone::set_block(&mut self.candidate.lambda, i, &new.start(set, &l));
            }
        }
        self.layout(problem)
    }

    /// The candidate checked, σ given: every block in its mode's set (else
    /// [`Check::Off`]), then z = σ + Γ(σ) and the NCP criterion.
    fn check(&mut self, problem: &ContactProblem, ncp: bool, tolerance: f64) -> Check {
        let c = &mut self.candidate;
        let mut error = 0.0f64;
        let mut off = false;
        for (i, set) in problem.sets.iter().enumerate() {
            let l = cone::block(&c.lambda, i);
            if !l.iter().all(|x| x.is_finite()) {
                return Check::Off;
            }
            let s = cone::block(&c.sigma, i);
            off |= off_set(self.modes[i], set, &l) || (self.modes[i] == Mode::Sliding && !slides(&l, &s, tolerance));
            let (e, z) = set.ncp_error(ncp, &l, &s);
            // A NaN velocity must fail the check, not drop out of the maximum.
            error = max_or_nan(error, e);
            cone::set_block(&mut c.dual, i, &z);
        }
        if off || error.is_nan() {
            Check::Off
        } else if error <= tolerance {
            Check::Solved(error)
        } else {
            Check::Error(error)
        }
    }

    /// One Newton step on the unknown rows, σ given: F and its Jacobian (the module's
    /// equations), λ ← λ − J⁻¹F, sliding blocks projected back onto the cone. False when
    /// a sliding block has no slip to oppose or the matrix is singular. A linear set's
    /// matrix is (G + R)_FF whatever λ: factored on its first step only.
    fn newton_step(&mut self, problem: &ContactProblem) -> bool {
        let nr = self.unknowns;
        self.residual.clear();
        self.residual.resize(nr, 0.0);
        let symmetric = self.linear();
        if symmetric {
            for &(a, ra) in &self.active {
                let s = cone::block(&self.candidate.sigma, a);
                for (p, &r) in self.modes[a].rows().iter().enumerate() {
                    self.residual[ra + p] = s[r];
                }
            }
        }
        if !(symmetric && self.factored) {
            let joint_space = symmetric && self.hyperstatic && self.rigid;
            let factored = match problem.delassus_factor() {
                Some((w, cols)) if joint_space && cols <= MAX_FREE_ROWS => self.factor_joint_space(problem, w, cols),
                _ => self.jacobian_and_residual(problem) && self.factor(nr, symmetric),
            };
            if !factored {
                return false;
            }
        }
        self.factored = true;
        self.solve(problem, nr, symmetric);
        for &(a, ra) in &self.active {
            for (p, &r) in self.modes[a].rows().iter().enumerate() {
                self.candidate.lambda[3 * a + r] -= self.step[ra + p];
            }
            if self.modes[a] == Mode::Sliding {
                let l = problem.sets[a].project(&cone::block(&self.candidate.lambda, a));
                cone::set_block(&mut self.candidate.lambda, a, &l);
            }
        }
        true
    }

    /// The Newton matrix and F of the unknown rows (the module's equations), σ given;
    /// false when a sliding block has no slip to oppose. Each block G_ab of (G + R)_FF is
    /// formed once, for b ≤ a, and serves the rows of b against the columns of a as G_abᵀ
    /// (bit for bit G_ba: the same products summed in the same order).
    fn jacobian_and_residual(&mut self, problem: &ContactProblem) -> bool {
        let nr = self.unknowns;
        self.jacobian.clear();
        self.jacobian.resize(nr * nr, 0.0);
        self.slips.clear();
        for &(a, ra) in &self.active {
            let slip = match (self.modes[a], problem.sets[a]) {
                (Mode::Sliding, BlockSet::Cone(mu)) => match Slip::of(mu, &self.candidate, a) {
                    Some(slip) => Some(slip),
                    None => return false,
                },
                _ => None,
            };
            let (l, s) = (cone::block(&self.candidate.lambda, a), cone::block(&self.candidate.sigma, a));
            for (p, &r) in self.modes[a].rows().iter().enumerate() {
                self.residual[ra + p] = slip.map_or(s[r], |slip| slip.residual(r, &l, &s));
            }
            self.slips.push(slip);
        }
        for ia in 0..self.active.len() {
            let (a, ra) = self.active[ia];
            for ib in 0..=ia {
                let (b, rb) = self.active[ib];
                let mut gb = problem.delassus_block(a, b);
                if a == b {
                    for (k, row) in gb.iter_mut().enumerate() {
                        row[k] += problem.compliance[3 * a + k];
                    }
                }
                if self.slips[ia].is_none() && self.slips[ib].is_none() {
                    // Neither slides: the entries are (G + R)_ab's, and their mirror G_ba's.
                    for (p, &r) in self.modes[a].rows().iter().enumerate() {
                        for (q, &c) in self.modes[b].rows().iter().enumerate() {
                            self.jacobian[(ra + p) * nr + rb + q] = gb[r][c];
                            if a != b {
                                self.jacobian[(rb + q) * nr + ra + p] = gb[r][c];
                            }
                        }
                    }
                    continue;
                }
                self.fill_block((a, ra, self.slips[ia]), (b, rb), &gb);
                if a != b {
                    let gt = std::array::from_fn(|r| std::array::from_fn(|c| gb[c][r]));
                    self.fill_block((b, rb, self.slips[ib]), (a, ra), &gt);
                }
            }
        }
        true
    }

    /// The Newton matrix's entries of block `a`'s unknown rows (offset `ra`, its slip if it
    /// slides) against block `b`'s unknown columns (offset `rb`), `gb` their block of
    /// G + R: for a pair with a sliding block (the others are G's
    /// entries, written in place).
    #[inline]
    fn fill_block(&mut self, (a, ra, slip): (usize, usize, Option<Slip>), (b, rb): (usize, usize), gb: &[[f64; 3]; 3]) {
        let (nr, same) = (self.unknowns, a == b);
        for (q, &c) in self.modes[b].rows().iter().enumerate() {
            for (p, &r) in self.modes[a].rows().iter().enumerate() {
                let v = match slip.filter(|_| r < 2) {
                    Some(slip) => slip.tangent_row(r, c, gb, same),
                    None => gb[r][c],
                };
                self.jacobian[(ra + p) * nr + rb + q] = v;
            }
        }
    }
}

impl Polish {
    /// Factors the Newton matrix — by Cholesky when it is symmetric (no sliding block:
    /// (G + R)_FF), else by LU — refusing a singular or nearly singular LU (a
    /// hyperstatic set with sliding blocks: a wheel's two edges have no unique impulses,
    /// nor unique velocities once some of them slide, and the ADMM's proximal iterations
    /// pick among them). A singular symmetric one (four corners of a box sticking: unique
    /// velocities, σ_F = 0, but not impulses) is factored with a proximal term,
    /// (G + R)_FF + εI: its steps are the proximal-point iteration from the linear start
    /// λ_F = 0, which converges to the impulses of least norm among the solutions (the
    /// range of G_FF is corrected, its null space kept at zero: no internal forces
    /// between the corners), where a plain step would have no answer.
    fn factor(&mut self, nr: usize, symmetric: bool) -> bool {
        (self.proximal, self.joint_space) = (0.0, 0);
        if !symmetric {
            return self.lu.factor(&self.jacobian, nr).is_ok() && self.lu.pivot_ratio() >= PIVOT_RATIO * PIVOT_RATIO;
        }
        if !self.hyperstatic
            && self.chol.factor(&self.jacobian, &self.zeros[..nr], nr).is_ok()
            && self.chol.pivot_ratio() >= PIVOT_RATIO
        {
            return true;
        }
        let largest = (0..nr).map(|i| self.jacobian[i * nr + i]).fold(0.0f64, f64::max);
        self.proximal = PROXIMAL * largest;
        self.shift[..nr].fill(self.proximal);
        self.proximal > 0.0
            && self.chol.factor(&self.jacobian, &self.shift[..nr], nr).is_ok()
            && self.chol.pivot_ratio() >= PIVOT_RATIO
    }

    /// The proximal factor of a hyperstatic rigid linear set on the joint-space side,
    /// when the problem carries G = W Wᵀ with fewer columns than the set's rows (a pile
    /// of boxes: 12 rows a box on the ground, 6 dofs): N + εI with N = W_Fᵀ W_F, whose
    /// eigenvalues are G_FF's non-zero ones, factored at (cols)³/3 instead of (rows)³/3.
    /// Its step ([`Polish::solve`]) is W_F (N + εI)⁻² W_Fᵀ F, G_FF's pseudo-inverse to
    /// ε/s along each eigenvalue s: from the linear start λ_F = 0 every iterate lies in
    /// the range of W_F, so the impulses converge to those of least norm, exactly as the
    /// proximal steps on G_FF do (the identity W (WᵀW)⁻² Wᵀ = (W Wᵀ)⁺, MuJoCo's and
    /// Featherstone's joint-space side of the contact problem).
    fn factor_joint_space(&mut self, problem: &ContactProblem, w: &[f64], cols: usize) -> bool {
        self.normal.clear();
        self.normal.resize(cols * cols, 0.0);
        for &(a, _) in &self.active {
            // Weight 1 on the block's unknown rows, 0 on its fixed ones.
            let mut weight = [0.0; 3];
            for &r in self.modes[a].rows() {
                weight[r] = 1.0;
            }
            let (normal, support) = (&mut self.normal, problem.factor_support(a));
            delassus::add_gram(normal, |c| c * cols, delassus::rows(w, cols, a), weight, support);
        }
        delassus::mirror_lower(&mut self.normal, cols);
        let largest = (0..cols).map(|i| self.normal[i * cols + i]).fold(0.0f64, f64::max);
        (self.proximal, self.joint_space) = (PROXIMAL * largest, cols);
        self.shift[..cols].fill(self.proximal);
        self.proximal > 0.0
            && self.chol.factor(&self.normal, &self.shift[..cols], cols).is_ok()
            && self.chol.pivot_ratio() >= PIVOT_RATIO
    }

    /// The Newton step J⁻¹F into `step`, by the factor [`Polish::factor`] or
    /// [`Polish::factor_joint_space`] made.
    fn solve(&mut self, problem: &ContactProblem, nr: usize, symmetric: bool) {
        if let (cols @ 1.., Some((w, _))) = (self.joint_space, problem.delassus_factor()) {
            let x = &mut self.joint[..cols];
            x.fill(0.0);
            for &(a, ra) in &self.active {
                let support = problem.factor_support(a);
                for (p, &r) in self.modes[a].rows().iter().enumerate() {
                    let (row, f) = (&w[(3 * a + r) * cols..(3 * a + r + 1) * cols], self.residual[ra + p]);
                    for &(lo, hi) in support {
                        for c in lo..hi {
                            x[c] += f * row[c];
                        }
                    }
                }
            }
            self.chol.solve(x);
            self.chol.solve(x);
            for &(a, ra) in &self.active {
                let support = problem.factor_support(a);
                for (p, &r) in self.modes[a].rows().iter().enumerate() {
                    let row = &w[(3 * a + r) * cols..(3 * a + r + 1) * cols];
                    self.step[ra + p] = support.iter().flat_map(|&(lo, hi)| lo..hi).map(|c| row[c] * x[c]).sum();
                }
            }
        } else if symmetric {
            self.step[..nr].copy_from_slice(&self.residual);
            self.chol.solve(&mut self.step[..nr]);
        } else {
            self.lu.solve(&self.residual, &mut self.step[..nr]);
        }
    }
}

/// What a check of the candidate found.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Check {
    /// A block left its mode's set (or the candidate is not finite).
    Off,
    /// The NCP criterion, above the tolerance.
    Error(f64),
    /// The NCP criterion, within the tolerance.
    Solved(f64),
}

/// Whether impulse `l` of a block in `mode` has left the mode's set: outside the block's
/// set (beyond rounding), or a sliding block without a normal impulse.
fn off_set(mode: Mode, set: &BlockSet, l: &Vec3c) -> bool {
    set.distance(l) > EDGE * cone::norm(l) || (mode == Mode::Sliding && l[2] <= 0.0)
}

/// Whether a block on its cone's edge with impulse `l` and contact velocity `s` slides:
/// it slips by more than `tolerance` and its friction does not push along the slip. One
/// that does not slip is sticking on the edge (its slip direction is rounding, and
/// Newton's linearization of it, with gain μλ_N/‖σ_T‖, would explode); one whose
/// friction pushes along the slip sticks (the primal-dual active-set rule for friction).
fn slides(l: &Vec3c, s: &Vec3c, tolerance: f64) -> bool {
    cone::tangent_norm(s) > tolerance && l[0] * s[0] + l[1] * s[1] <= 0.0
}

/// A sliding block's linearization: μ, the slip direction σ̂_T and μλ_N/‖σ_T‖.
#[derive(Copy, Clone, Debug)]
struct Slip {
    mu: f64,
    dir: [f64; 2],
    gain: f64,
}

impl Slip {
    /// Block `i` of the candidate `c` sliding on a cone of friction `mu`; `None` without
    /// a slip velocity (no direction to oppose).
    fn of(mu: f64, c: &SolveResult, i: usize) -> Option<Self> {
        let (l, s) = (cone::block(&c.lambda, i), cone::block(&c.sigma, i));
        let norm = cone::tangent_norm(&s);
        if norm <= 0.0 || !norm.is_finite() {
            return None;
        }
        Some(Self { mu, dir: [s[0] / norm, s[1] / norm], gain: mu * l[2] / norm })
    }

    /// F on row `r`: σ_N, or λ_T + μ λ_N σ̂_T.
    fn residual(&self, r: usize, l: &Vec3c, s: &Vec3c) -> f64 {
        if r == 2 { s[2] } else { l[r] + self.mu * l[2] * self.dir[r] }
    }

    /// ∂F_r/∂λ_c of tangent row `r` against column `c` of a block whose (G + R) block
    /// with this one is `gb`, `same` when it is this block: δ_rc + μ σ̂_r δ_cN +
    /// (μλ_N/‖σ_T‖) Σ_u (δ_ru − σ̂_r σ̂_u) (G + R)_uc.
    fn tangent_row(&self, r: usize, c: usize, gb: &[[f64; 3]; 3], same: bool) -> f64 {
        let d = self.dir;
        let projected = gb[r][c] - d[r] * (d[0] * gb[0][c] + d[1] * gb[1][c]);
        let mut v = self.gain * projected;
        if same {
            if c == r {
                v += 1.0;
            }
            if c == 2 {
                v += self.mu * d[r];
            }
        }
        v
    }
}

/// When to polish the ADMM's iterate mid-solve: when its modes ([`Mode::of`] of y) have
/// held for [`ModeWatch::STABLE`] iterations and are not the modes tried last, and not
/// before twice the iteration of the last try (a geometric backoff: a try costs about what
/// (unknown rows)³/(3 m²) iterations do, so failed tries cost a bounded fraction of the
/// solve however long it runs, and a solve of k iterations tries at most log₂ k times).
#[derive(Debug)]
pub struct ModeWatch {
    current: Vec<Mode>,
    tried: Vec<Mode>,
    stable: usize,
    /// The earliest iteration of the next try.
    next: usize,
}

impl ModeWatch {
    /// Iterations the modes must hold.
    pub const STABLE: usize = 3;

    /// Room for `contacts` blocks.
    pub fn with_capacity(contacts: usize) -> Self {
        Self { current: Vec::with_capacity(contacts), tried: Vec::with_capacity(contacts), stable: 0, next: 0 }
    }

    /// A new solve.
    pub fn reset(&mut self) {
        self.current.clear();
        self.tried.clear();
        self.stable = 0;
        self.next = 0;
    }

    /// The iterate `lambda` of `problem` after iteration `k`: true when its modes are
    /// worth a try (then counted as one).
    pub fn ready(&mut self, problem: &ContactProblem, lambda: &[f64], k: usize) -> bool {
        let n = problem.contacts();
        let mut changed = self.current.len() != n;
        self.current.resize(n, Mode::Separated);
        for (i, set) in problem.sets.iter().enumerate() {
            let mode = Mode::of(set, &cone::block(lambda, i));
            changed |= self.current[i] != mode;
            self.current[i] = mode;
        }
        self.stable = if changed { 0 } else { self.stable + 1 };
        if self.stable + 1 < Self::STABLE || k < self.next || self.current == self.tried {
            return false;
        }
        self.tried.clear();
        self.tried.extend_from_slice(&self.current);
        self.next = 2 * k;
        true
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
        let mut polish = Polish::with_capacity(problem.contacts(), 0);
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

    /// A warm start that solves the problem within [`AS_IS`] of the tolerance is kept as
    /// it is (a body at rest); one that misses by more, though within the tolerance, takes
    /// its exact step. λ* = (0.05, −0.02, 0.5) sticks (μ 0.8), g = −Gλ*; the guesses are
    /// λ* + (0, 0, e), whose velocity error is about e.
    #[test]
    fn a_warm_start_that_solves_is_kept_as_it_is() {
        let g = [[2.0, 0.1, 0.3], [0.1, 1.5, 0.2], [0.3, 0.2, 1.0]];
        let exact = [0.05, -0.02, 0.5];
        let bias: Vec<f64> = g.iter().map(|r| -(0..3).map(|j| r[j] * exact[j]).sum::<f64>()).collect();
        let p = ContactProblem::from_dense(&rows(g), &bias, &[0.8], &[]).unwrap();
        let near = [exact[0], exact[1], exact[2] + 2e-12];
        let r = solve(&p, &near).expect("kept");
        assert_eq!(r.lambda, near.to_vec(), "no step taken");
        assert!(r.stats.residuals.complementarity <= AS_IS * 1e-9);
        let off = [exact[0], exact[1], exact[2] + 1e-10];
        let r = solve(&p, &off).expect("stepped");
        assert_ne!(r.lambda, off.to_vec());
        let mut sigma = vec![0.0; 3];
        p.contact_velocity(&r.lambda, &mut sigma);
        assert!(sigma.iter().all(|s| s.abs() < 1e-14), "{sigma:?}");
    }

    /// The same contact pushed sideways hard enough to slide: the sticking guess gives a
    /// λ outside the cone and is refused; a guess on the cone's edge slides, and Newton's
    /// method finds the analytic answer. G = I, g = (2, 0, −1), μ = 0.5: σ_N = λ_N − 1 = 0
    /// gives λ_N = 1, the friction −μλ_N along the slip, λ_T = (−0.5, 0), and the slip
    /// σ_T = (1.5, 0) opposes it.
    #[test]
    fn a_sliding_contact_slides_at_its_friction_bound() {
        let g = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let p = ContactProblem::from_dense(&rows(g), &[2.0, 0.0, -1.0], &[0.5], &[]).unwrap();
        assert!(solve(&p, &[0.0, 0.0, 1.0]).is_none(), "sticking would need |λ_T| = 2 > μλ_N");
        let r = solve(&p, &[-0.3, 0.1, 0.6]).expect("a guess at the cone's edge slides");
        for (x, want) in r.lambda.iter().zip([-0.5, 0.0, 1.0]) {
            assert!((x - want).abs() < 1e-12, "{:?}", r.lambda);
        }
        for (x, want) in r.sigma.iter().zip([1.5, 0.0, 0.0]) {
            assert!((x - want).abs() < 1e-12, "{:?}", r.sigma);
        }
    }

    /// Two contacts sliding on a coupled G (off-diagonal tangent terms): from the modes
    /// of a loose ADMM solve (1e-3), Newton's method reaches the tight one's impulses
    /// (1e-12) to 1.4e-8 (the polish stops at its tolerance, 1e-9 in velocity), each
    /// friction on its edge opposing its own slip.
    #[test]
    fn coupled_sliding_contacts_converge() {
        use crate::contact::{AdmmSettings, AdmmSolver, Solver, StoppingRule};
        let a = [[1.0, 0.2, 0.1], [0.2, 1.2, 0.05], [0.1, 0.05, 0.9]];
        let c = 0.3;
        let g: Vec<Vec<f64>> =
            (0..6).map(|i| (0..6).map(|j| a[i % 3][j % 3] * if i / 3 == j / 3 { 1.0 } else { c }).collect()).collect();
        let p = ContactProblem::from_dense(&g, &[1.5, 0.4, -1.0, -0.2, 1.8, -0.8], &[0.4, 0.4], &[]).unwrap();
        let admm = |absolute: f64| {
            let stop = StoppingRule { absolute, max_iterations: 10_000, ..Default::default() };
            let mut solver = AdmmSolver::with_capacity(2, AdmmSettings { stop, ..Default::default() });
            let mut r = SolveResult::with_capacity(2, 0);
            solver.solve(&p, None, &mut r).unwrap();
            assert!(r.converged);
            r
        };
        let (loose, tight) = (admm(1e-3), admm(1e-12));
        let r = solve(&p, &loose.lambda).expect("both slide");
        for i in 0..2 {
            let (l, s) = (cone::block(&r.lambda, i), cone::block(&r.sigma, i));
            assert_eq!(Mode::of(&BlockSet::Cone(0.4), &l), Mode::Sliding);
            assert!(s[2].abs() < 1e-9, "{s:?}");
            let along = (l[0] * s[0] + l[1] * s[1]) / (cone::tangent_norm(&l) * cone::tangent_norm(&s));
            assert!((along + 1.0).abs() < 1e-9, "friction opposes the slip: {along}");
        }
        for (x, t) in r.lambda.iter().zip(&tight.lambda) {
            assert!((x - t).abs() < 5e-8, "{:?} against {:?}", r.lambda, tight.lambda);
        }
    }

    /// A contact that sticks, guessed on its cone's edge (as an ADMM iterate can be): the
    /// warm start's effort (no mode switch) refuses it; mid-solve, the primal-dual update
    /// switches it to sticking and finds λ = −g exactly. G = I, g = (0.3, 0, −1), μ 0.5.
    #[test]
    fn a_sticking_contact_guessed_sliding_is_switched_mid_solve() {
        let g = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let p = ContactProblem::from_dense(&rows(g), &[0.3, 0.0, -1.0], &[0.5], &[]).unwrap();
        let edge = [-0.5, 0.0, 1.0];
        let mut polish = Polish::with_capacity(1, 0);
        assert!(!polish.try_modes(&p, &edge, ContactModel::Ncp, 1e-9, Effort::WARM_START));
        assert!(polish.try_modes(&p, &edge, ContactModel::Ncp, 1e-9, Effort::MID_SOLVE));
        let mut r = SolveResult::with_capacity(1, 0);
        r.reset(3);
        polish.accept(7, &mut r);
        for (x, want) in r.lambda.iter().zip([-0.3, 0.0, 1.0]) {
            assert!((x - want).abs() < 1e-15, "{:?}", r.lambda);
        }
        assert!(r.converged && r.stats.polished && r.stats.iterations == 7);
    }

    /// A separated block that must push, in the primal-dual switch: a contact with
    /// friction sticks, a joint limit (μ = 0, no tangent rows) takes its normal row alone
    /// (sticking's two zero rows made the Newton matrix singular: talos falling from 93
    /// postures, 736 unconverged steps against 483 with this).
    #[test]
    fn a_pressed_limit_takes_its_normal_row_alone() {
        assert_eq!(Mode::pressed(&BlockSet::Cone(0.0)), Mode::Normal);
        assert_eq!(Mode::pressed(&BlockSet::Cone(0.5)), Mode::Sticking);
        assert_eq!(Mode::pressed(&BlockSet::Cone(0.0)).rows(), &[2]);
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
    /// impulses. Sticking, their velocities are unique (σ = 0) and the proximal steps
    /// find the impulses of least norm: each carries half of the one contact's
    /// λ = −A⁻¹g, whatever the guess's split. Sliding (velocities not unique either),
    /// the set is refused.
    #[test]
    fn a_hyperstatic_pair_sticks_with_least_norm_impulses_and_is_refused_sliding() {
        let a = [[2.0, 0.1, 0.3], [0.1, 1.5, 0.2], [0.3, 0.2, 1.0]];
        let g: Vec<Vec<f64>> = (0..6).map(|i| (0..6).map(|j| a[i % 3][j % 3]).collect()).collect();
        let p = ContactProblem::from_dense(&g, &[0.1, -0.05, -1.0, 0.1, -0.05, -1.0], &[0.8, 0.8], &[]).unwrap();
        let single = ContactProblem::from_dense(&rows(a), &[0.1, -0.05, -1.0], &[0.8], &[]).unwrap();
        let whole = solve(&single, &[0.0, 0.0, 0.5]).expect("one contact sticks");
        let r = solve(&p, &[0.0, 0.0, 0.2, 0.0, 0.0, 0.3]).expect("the sticking pair is polished");
        assert!(r.stats.residuals.complementarity <= 1e-9);
        // The split is kept at zero to rounding times the proximal factor's conditioning
        // (1e-16 × 1/PROXIMAL): 2.3e-8 measured.
        for (k, x) in r.lambda.iter().enumerate() {
            assert!((x - 0.5 * whole.lambda[k % 3]).abs() < 1e-7, "{:?} against half of {:?}", r.lambda, whole.lambda);
        }
        assert!(solve(&p, &[0.16, 0.0, 0.2, 0.24, 0.0, 0.3]).is_none());
    }

    /// A 1 kg cube (half side h = 0.05 m) resting on points of its bottom face, given as
    /// its factor W = J M^{-1/2} (3 rows a point, 6 columns: the joint-space path), pushed
    /// sideways by g_x = 1 mm/s while gravity's Δt·9.81 presses it down: the sticking
    /// set is hyperstatic. Analytic least-norm impulses on N points symmetric about the
    /// centre: the friction split equally, λ_x = −0.001/N; the normal ones affine in x,
    /// balancing the friction's moment about the centre, λ_z,i = 0.00981/N + b·x_i with
    /// Σ x_i λ_z,i = h·0.001, whatever the guess's split. On the four corners (12 rows)
    /// and on a 6 × 6 grid (108 rows: more than [`MAX_FREE_ROWS`], solved by its 6
    /// columns). At a velocity tolerance of 1e-13 the proximal steps reach them to
    /// rounding.
    #[test]
    fn a_cube_on_its_bottom_face_sticks_with_least_norm_impulses_by_its_factor() {
        let h: f64 = 0.05;
        let inertia = 1.0 * (2.0 * h) * (2.0 * h) / 6.0;
        let grid: Vec<[f64; 2]> =
            (0..36).map(|k| [h * (2.0 * (k % 6) as f64 / 5.0 - 1.0), h * (2.0 * (k / 6) as f64 / 5.0 - 1.0)]).collect();
        for points in [vec![[h, h], [h, -h], [-h, h], [-h, -h]], grid] {
            let n = points.len();
            let mut w = Vec::new();
            for &[x, y] in &points {
                let z = -h;
                // Rows (x, y, z) of v + ω × p: [I, −[p]×], columns scaled by M^{-1/2}.
                let j = [[1.0, 0.0, 0.0, 0.0, z, -y], [0.0, 1.0, 0.0, -z, 0.0, x], [0.0, 0.0, 1.0, y, -x, 0.0]];
                for row in j {
                    w.extend(row.iter().enumerate().map(|(c, v)| if c < 3 { *v } else { v / inertia.sqrt() }));
                }
            }
            let g: Vec<f64> = (0..n).flat_map(|_| [0.001, 0.0, -0.00981]).collect();
            let p = ContactProblem::from_factor(&w, 6, &g, &vec![0.6; n]);
            let guess: Vec<f64> = (0..n).flat_map(|i| [0.0, 0.0, 0.001 * (1 + i % 4) as f64]).collect();
            let mut polish = Polish::with_capacity(n, 6);
            let mut r = SolveResult::with_capacity(n, 0);
            assert!(polish.try_solve(&p, &self::guess(&guess), ContactModel::Ncp, 1e-13, &mut r), "{n} points");
            assert_eq!(polish.joint_space, 6, "solved on the joint-space side");
            let b = h * 0.001 / points.iter().map(|[x, _]| x * x).sum::<f64>();
            for (i, [x, _]) in points.iter().enumerate() {
                let want = [-0.001 / n as f64, 0.0, 0.00981 / n as f64 + b * x];
                for (k, want) in want.iter().enumerate() {
                    // 4.3e-19 measured on the corners: the impulses are in the range of
                    // W_F by construction.
                    let l = &r.lambda[3 * i..3 * i + 3];
                    assert!((l[k] - want).abs() < 5e-18, "{n} points, point {i}: {l:?}");
                }
            }
        }
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
