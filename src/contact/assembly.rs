//! Builds the [`ContactProblem`] of one step from the bodies and the detected contacts.
//!
//! Generalized velocity: the robot's nv first, then 6 per free body (linear, angular, in
//! the body frame). For contact k between body 1 and body 2 at world point p with frame
//! C = (Tx, Ty, N) (N into body 1):
//!
//! ```text
//! J_k = Cᵀ (J₁(p) − J₂(p))          rows 3k..3k+3: the velocity of body 1 relative to body 2
//! G   = J M⁻¹ Jᵀ = W Wᵀ             W = J U⁻ᵀ D^{-1/2} on the robot's dofs (M = U D Uᵀ, the
//!                                   tree-sparse LTDL) and J C on a free body's (M⁻¹ = C Cᵀ)
//! g   = J v_f + γ                   v_f: the velocity after the step without contacts
//! ```
//!
//! A row of J is non-zero only on the dofs supporting the bodies it touches (a foot: the
//! floating base and its leg), and U⁻¹ keeps that sparsity (U[i][j] ≠ 0 only for i an
//! ancestor of j), so W is built on those dofs alone and G's entries are dot products over
//! the dofs two contacts share (Featherstone, RBDA §6.5; MuJoCo's `mj_solveM2` does the
//! same). The impulses are applied as M⁻¹(Jᵀλ): one solve, not one per row.
//!
//! The bias γ = (0, 0, −c*_N) states Signorini at the position level, c_N ≥ c*_N with
//!
//! ```text
//! c*_N = −φ/Δt                    for a gap φ ≥ 0: it may close within the step, not more
//! c*_N = −β φ/Δt                  for a penetration φ < 0: β = 1 removes it in one step;
//!                                 β < 1 is Baumgarte's stabilization with k_B = β/Δt
//! c*_N = max(c*_N, −e·c⁻_N)       restitution e, when the contact closes within the step
//!                                 at c⁻_N = (J v)_N < −v_e (the pre-step velocity)
//! ```
//!
//! so that a normal impulse appears only when the bodies would otherwise overlap at the end
//! of the step. Compliance (m/N, penetration per newton) enters as R = compliance/Δt²: at
//! rest φ = −R·Δt·λ_N (seed 000 eq. 24, digest AT-12).

use serde::{Deserialize, Serialize};

use super::cone::BlockSet;
use super::joint_blocks::{JointBlock, JointBlockKind};
use super::problem::{ContactProblem, ProblemError};
use crate::collision::{Contact, Owner};
use crate::dynamics;
use crate::model::{Data, FreeBody, FreeBodyState, Model};
use crate::spatial::Vec3;

/// The bodies contact impulses act on.
#[derive(Copy, Clone, Debug)]
pub struct Bodies<'a> {
    /// The robot: its Data must hold the joint Jacobians (`compute_joint_jacobians`) and
    /// the LTDL factors of M (`crba` then `ltdl_decompose`) at the current configuration.
    pub robot: Option<(&'a Model, &'a Data)>,
    /// Free bodies and their states.
    pub free: &'a [FreeBody],
    /// States, one per free body.
    pub free_states: &'a [FreeBodyState],
    /// Some free bodies only (an island's, [`super::islands`]): the problem's columns are
    /// the robot's, then 6 for each of these, and the contacts touch no other.
    pub subset: Option<Subset<'a>>,
}

/// The free bodies a problem is assembled over when not all of them: its columns are
/// O(its own bodies), not O(the world's), so that an island of a few boxes among a
/// thousand costs a few boxes' work ([`Bodies::subset`]).
#[derive(Copy, Clone, Debug)]
pub struct Subset<'a> {
    /// The bodies (indices into [`Bodies::free`]), in column order.
    pub bodies: &'a [usize],
    /// Per free body of the world, its column among the problem's, or [`Subset::NONE`]
    /// when it is not one of `bodies`.
    pub column: &'a [usize],
}

impl Subset<'_> {
    /// Not in the subset.
    pub const NONE: usize = usize::MAX;
}

impl<'a> Bodies<'a> {
    /// All the free bodies (and the robot, if any).
    pub fn new(robot: Option<(&'a Model, &'a Data)>, free: &'a [FreeBody], free_states: &'a [FreeBodyState]) -> Self {
        Self { robot, free, free_states, subset: None }
    }

    /// Robot dofs.
    pub fn robot_nv(&self) -> usize {
        self.robot.map_or(0, |(m, _)| m.nv)
    }

    /// Total dofs: the problem's columns.
    pub fn nv(&self) -> usize {
        self.robot_nv() + 6 * self.subset.map_or(self.free.len(), |s| s.bodies.len())
    }

    /// The first of free body `body`'s six columns, if the problem has it.
    pub fn column(&self, body: usize) -> Option<usize> {
        match self.subset {
            None => (body < self.free.len()).then(|| self.robot_nv() + 6 * body),
            Some(s) => s.column.get(body).copied().filter(|&c| c != Subset::NONE),
        }
    }

    /// The free bodies the problem has, with their first column.
    pub fn columns(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let all = self.subset.is_none().then_some(0..self.free.len());
        let some = self.subset.map(|s| s.bodies.iter().copied());
        let bodies = all.into_iter().flatten().chain(some.into_iter().flatten());
        bodies.filter_map(|b| self.column(b).map(|at| (b, at)))
    }
}

/// How contacts become the problem's bias and compliance (`contact:` in the
/// configuration).
#[derive(Copy, Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct ProblemSettings {
    /// β: fraction of a penetration removed per step (1: all of it; Baumgarte k_B = β/Δt).
    pub penetration_recovery: f64,
    /// v_e: below this approach speed (m/s) restitution is ignored (a resting contact does
    /// not bounce).
    pub restitution_threshold: f64,
    /// Normal compliance (m/N); 0 = rigid.
    pub compliance_normal: f64,
    /// Tangential compliance (m/N); 0 = exact stiction.
    pub compliance_tangential: f64,
}

impl Default for ProblemSettings {
    fn default() -> Self {
        Self {
            penetration_recovery: 1.0,
            restitution_threshold: 0.1,
            compliance_normal: 0.0,
            compliance_tangential: 0.0,
        }
    }
}

impl ProblemSettings {
    /// c*_N for a gap φ (m, or rad for a joint limit) over a step `dt`: −φ/Δt when open (it
    /// may close within the step), −β·φ/Δt when violated (the recovery rate β).
    pub fn gap_velocity(&self, phi: f64, dt: f64) -> f64 {
        if phi >= 0.0 { -phi / dt } else { -self.penetration_recovery * phi / dt }
    }
}

/// What [`Assembly::assemble`] builds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Build {
    /// Everything, G = W·Wᵀ included.
    Delassus,
    /// The rows and W, G left to [`ContactProblem::build_delassus`] (the simulator: a
    /// polished step needs only W, [`super::polish`]).
    Factor,
    /// The rows J, g, the sets, R and the ids (inverse dynamics: no G).
    Rows,
}

/// What every block of one [`Assembly::assemble`] is built from (its arguments but the
/// blocks).
#[derive(Copy, Clone)]
struct Pass<'a> {
    bodies: &'a Bodies<'a>,
    v: &'a [f64],
    v_free: &'a [f64],
    dt: f64,
    settings: &'a ProblemSettings,
    build: Build,
}

/// Row `row` of the contact rows `j` (rows of `nv`) times `x`, over the `support` of its
/// contact (the runs of dofs its rows can be non-zero on).
pub fn row_velocity(j: &[f64], nv: usize, support: &[(usize, usize)], row: usize, x: &[f64]) -> f64 {
    let row = &j[row * nv..(row + 1) * nv];
    support.iter().map(|&(lo, hi)| dynamics::dot(&row[lo..hi], &x[lo..hi])).sum()
}

/// The Jacobian and the factor W (G = W·Wᵀ) of the last assembled problem, in buffers
/// sized once.
#[derive(Clone, Debug)]
pub struct Assembly {
    capacity: usize,
    nv: usize,
    rows: usize,
    /// J, 3 n_c rows of nv (rows contiguous); zero outside the blocks' supports, beyond
    /// its rows too (as W: [`ContactProblem::reset`]).
    jacobian: Vec<f64>,
    /// The runs of J's entries written since the last reset, [start, end) of a block's
    /// first row (its three rows: + nv, + 2nv), zeroed at the next; `overflow` when more
    /// were written than it holds (J is then zeroed whole).
    written: Vec<(usize, usize)>,
    overflow: bool,
    /// γ per row: g = J v_f + γ.
    bias: Vec<f64>,
    /// The dofs supporting the contact being assembled (its rows of J can be non-zero only
    /// there), deepest first once closed.
    support: Vec<usize>,
    /// Jᵀλ, then M⁻¹Jᵀλ (nv).
    impulse: Vec<f64>,
    /// D^{-1/2} of the robot's M = U·D·Uᵀ (robot nv).
    inv_sqrt_d: Vec<f64>,
}

impl Assembly {
    /// Room for `capacity` contacts and `nv` dofs.
    pub fn with_capacity(capacity: usize, nv: usize, robot_nv: usize) -> Self {
        Self {
            capacity,
            nv,
            rows: 0,
            jacobian: Vec::with_capacity(3 * capacity * nv),
            // Two runs a block: a free body or two, a robot's chain and its base.
            written: Vec::with_capacity(2 * capacity),
            overflow: false,
            bias: Vec::with_capacity(3 * capacity),
            support: Vec::with_capacity(2 * robot_nv + 12),
            impulse: vec![0.0; nv],
            inv_sqrt_d: vec![0.0; robot_nv],
        }
    }

    /// J of the last problem (3 n_c × nv, rows contiguous).
    pub fn jacobian(&self) -> &[f64] {
        &self.jacobian[..self.rows * self.nv]
    }

    /// γ of the last problem, per row: its g = J v_f + γ (the gap and restitution terms;
    /// zero on the tangent rows).
    pub fn bias(&self) -> &[f64] {
        &self.bias[..self.rows]
    }

    /// g of `problem` (assembled last by this assembly) at the contact-free velocity
    /// `v_free` (nv): g = J v_free + γ, the only part of the problem that depends on it
    /// (eq. 27; inverse dynamics evaluates it at its reference v_ref).
    pub fn evaluate_g(&self, problem: &mut ContactProblem, v_free: &[f64]) {
        let nv = self.nv;
        for k in 0..problem.contacts() {
            for r in 3 * k..3 * k + 3 {
                let row = &self.jacobian[r * nv..(r + 1) * nv];
                let velocity: f64 = problem
                    .factor_support(k)
                    .iter()
                    .map(|&(lo, hi)| crate::dynamics::dot(&row[lo..hi], &v_free[lo..hi]))
                    .sum();
                problem.g[r] = velocity + self.bias[r];
            }
        }
    }

    /// Adds M⁻¹Jᵀλ to `v` (nv): the velocity change the impulses cause. `bodies` must be
    /// those of the last [`Assembly::assemble`] (M's factors unchanged).
    pub fn apply_impulses(&mut self, bodies: &Bodies, lambda: &[f64], v: &mut [f64]) {
        let nv = self.nv;
        // Taking the buffer out (and back) moves it, no allocation.
        let mut impulse = std::mem::take(&mut self.impulse);
        impulse[..nv].fill(0.0);
        self.add_transpose_product(lambda, &mut impulse);
        self.impulse = impulse;
        let robot_nv = bodies.robot_nv();
        if let Some((model, data)) = bodies.robot {
            dynamics::ltdl_solve(model, data, &mut self.impulse[..robot_nv]);
        }
        for (b, at) in bodies.columns() {
            let mut x = [0.0; 6];
            x.copy_from_slice(&self.impulse[at..at + 6]);
            bodies.free[b].apply_inverse(&mut x);
            self.impulse[at..at + 6].copy_from_slice(&x);
        }
        for (vk, dk) in v[..nv].iter_mut().zip(&self.impulse[..nv]) {
            *vk += dk;
        }
    }

    /// Adds Jᵀλ to `tau` (nv): the generalized impulse (or force, for forces) of λ, over
    /// each block's support (the rows in the same order as over all dofs: the same sums).
    pub fn add_transpose_product(&self, lambda: &[f64], tau: &mut [f64]) {
        let nv = self.nv;
        let mut add = |r: usize, lo: usize, hi: usize| {
            let l = lambda[r];
            if l != 0.0 {
                for (tk, jk) in tau[lo..hi].iter_mut().zip(&self.jacobian[r * nv + lo..r * nv + hi]) {
                    *tk += l * jk;
                }
            }
        };
        if self.overflow {
            (0..self.rows).for_each(|r| add(r, 0, nv));
            return;
        }
        for &(a, b) in &self.written {
            let (k, lo) = (a / (3 * nv), a % (3 * nv));
            for r in 3 * k..3 * k + 3 {
                add(r, lo, lo + b - a);
            }
        }
    }

    /// Fills `problem` for `contacts` between `bodies`, then the robot's `joints` blocks
    /// (limits and friction, [`super::joint_blocks`]), over a step `dt`: `v` is the
    /// velocity at the start of the step, `v_free` the velocity at its end without contact
    /// impulses (both nv; inverse dynamics passes its reference v_ref), so g = J·v_free + γ.
    /// `build` says whether G and its factor W are built ([`Build::Delassus`], which needs
    /// M's factors in the robot's Data), W alone ([`Build::Factor`]) or only the rows J, g,
    /// the sets, R and the ids ([`Build::Rows`]: no G, W empty). Errors (and leaves an
    /// empty problem) beyond the capacity.
    #[allow(clippy::too_many_arguments)]
    pub fn assemble(
        &mut self,
        bodies: &Bodies,
        contacts: &[Contact],
        joints: &[JointBlock],
        v: &[f64],
        v_free: &[f64],
        dt: f64,
        settings: &ProblemSettings,
        problem: &mut ContactProblem,
        build: Build,
    ) -> Result<(), ProblemError> {
        let nc = contacts.len();
        self.reset(bodies, nc + joints.len(), problem, build)?;
        let pass = Pass { bodies, v, v_free, dt, settings, build };
        for (k, c) in contacts.iter().enumerate() {
            self.contact_block(&pass, k, c, problem);
        }
        for (i, l) in joints.iter().enumerate() {
            self.joint_block(&pass, nc + i, l, problem);
        }
        if build == Build::Delassus {
            problem.build_delassus();
        }
        Ok(())
    }

    /// Sizes `problem`, J and (unless [`Build::Rows`]) W for `n` blocks between `bodies`,
    /// and D^{-1/2} from the robot's factors; errors (and leaves an empty problem) beyond
    /// the capacity.
    fn reset(
        &mut self,
        bodies: &Bodies,
        n: usize,
        problem: &mut ContactProblem,
        build: Build,
    ) -> Result<(), ProblemError> {
        let nv = bodies.nv();
        assert!(nv <= self.impulse.len(), "the assembly was sized for {} dofs, not {nv}", self.impulse.len());
        self.clear_written();
        (self.nv, self.rows) = (nv, 0);
        if n > self.capacity {
            problem.reset(0)?;
            return Err(ProblemError::Capacity { contacts: n, capacity: self.capacity });
        }
        problem.reset(n)?;
        let m = 3 * n;
        self.rows = m;
        if self.jacobian.len() < m * nv {
            self.jacobian.resize(m * nv, 0.0); // within the capacity reserved
        }
        self.bias.clear();
        self.bias.resize(m, 0.0); // within the capacity reserved
        if build != Build::Rows {
            problem.factor_rows_mut(nv);
            if let Some((_, data)) = bodies.robot {
                for (s, d) in self.inv_sqrt_d.iter_mut().zip(data.ltdl_d.iter()) {
                    *s = 1.0 / d.sqrt();
                }
            }
        }
        Ok(())
    }

    /// Block `k` of `problem` for contact `c`: its rows, support, g = J v_f + γ, μ, R and
    /// id, in one pass (and its rows of W unless [`Build::Rows`]).
    fn contact_block(&mut self, pass: &Pass, k: usize, c: &Contact, problem: &mut ContactProblem) {
        let Pass { bodies, v, v_free, dt, settings, build } = *pass;
        let (nv, robot_nv) = (self.nv, bodies.robot_nv());
        self.support.clear();
        // J_r·v_f for the three rows, and J_N·v (restitution).
        let mut velocity = [0.0; 4];
        // The owner with the higher columns first (a free body's are above the robot's),
        // each adding its support deepest first: the support comes out in the order
        // [`Assembly::close_support`] wants, unsorted, unless both owners are the robot.
        let first = |o: &Owner| match *o {
            Owner::Free { body } => bodies.column(body).map_or(0, |c| c + 1),
            _ => 0,
        };
        let mut owners = [(c.body1, 1.0), (c.body2, -1.0)];
        if first(&owners[1].0) > first(&owners[0].0) {
            owners.swap(0, 1);
        }
        for (owner, sign) in owners {
            let part = self.add_body_rows(bodies, k, &owner, c, sign, v, v_free);
            for (x, y) in velocity.iter_mut().zip(part) {
                *x += y;
            }
        }
        self.close_support(problem);
        if build != Build::Rows {
            let w = &mut problem.factor[3 * k * nv..3 * (k + 1) * nv];
            self.factor_rows(bodies, [c.body1, c.body2], k, robot_nv, w);
        }
        let rn = 3 * k + 2;
        problem.g[3 * k..3 * k + 3].copy_from_slice(&velocity[..3]);
        let (phi, before) = (c.distance, velocity[3]);
        let mut target = settings.gap_velocity(phi, dt);
        if c.restitution > 0.0 && before < -settings.restitution_threshold && phi + dt * before < 0.0 {
            target = target.max(-c.restitution * before);
        }
        problem.g[rn] -= target;
        self.bias[rn] = -target;
        problem.sets[k] = BlockSet::Cone(c.friction);
        let (r_n, r_t) = (settings.compliance_normal / (dt * dt), settings.compliance_tangential / (dt * dt));
        problem.compliance[3 * k] = r_t;
        problem.compliance[3 * k + 1] = r_t;
        problem.compliance[rn] = r_n;
        problem.ids[k] = c.id;
    }

    /// Block `k` of `problem` for the joint block `l`: one normal row ±e_dof, no tangent
    /// rows.
    fn joint_block(&mut self, pass: &Pass, k: usize, l: &JointBlock, problem: &mut ContactProblem) {
        let Pass { bodies, v_free, dt, settings, build, .. } = *pass;
        let (nv, robot_nv) = (self.nv, bodies.robot_nv());
        self.support.clear();
        if let Some((model, _)) = bodies.robot.filter(|_| l.dof < robot_nv) {
            self.add_chain(model, l.dof);
            self.jacobian[(3 * k + 2) * nv + l.dof] = l.sign();
        }
        self.close_support(problem);
        if build != Build::Rows && !self.support.is_empty() {
            let w = &mut problem.factor[3 * k * nv..3 * (k + 1) * nv];
            self.factor_rows(bodies, [Owner::Static; 2], k, robot_nv, w);
        }
        let rn = 3 * k + 2;
        let velocity = v_free.get(l.dof).map_or(0.0, |v| l.sign() * v);
        match l.kind {
            JointBlockKind::Limit { gap, .. } => {
                problem.g[rn] = velocity - settings.gap_velocity(gap, dt);
                self.bias[rn] = -settings.gap_velocity(gap, dt);
                problem.sets[k] = BlockSet::Cone(0.0);
            }
            JointBlockKind::Friction { force } => {
                problem.g[rn] = velocity;
                problem.sets[k] = BlockSet::Interval(force * dt);
            }
        }
        problem.ids[k] = l.id;
        problem.normal_only[k] = true;
    }

    /// Adds dof `last` and its ancestors to the support.
    fn add_chain(&mut self, model: &Model, last: usize) {
        let mut col = last;
        while col != crate::model::NO_PARENT {
            self.support.push(col);
            col = model.dof_parent[col];
        }
    }

    /// Sorts the support deepest (highest dof) first, as [`Assembly::factor_rows`] walks
    /// it, and pushes it to `problem` as runs of consecutive dofs.
    fn close_support(&mut self, problem: &mut ContactProblem) {
        if !self.support.is_sorted_by(|a, b| a > b) {
            self.support.sort_unstable_by(|a, b| b.cmp(a));
            self.support.dedup();
        }
        problem.push_support_descending(&self.support);
        let k = problem.run_start.len() - 2;
        let row = 3 * k * self.nv;
        let runs = problem.factor_support(k);
        if self.written.len() + runs.len() > self.written.capacity() {
            self.overflow = true;
        } else {
            self.written.extend(runs.iter().map(|&(lo, hi)| (row + lo, row + hi)));
        }
    }

    /// J zeroed where the last assembly wrote (its blocks' supports), or whole when it
    /// wrote more runs than were recorded; J is then zero up to its length.
    fn clear_written(&mut self) {
        let nv = self.nv;
        if self.overflow {
            self.jacobian.fill(0.0);
        } else {
            for &(a, b) in &self.written {
                for r in 0..3 {
                    self.jacobian[a + r * nv..b + r * nv].fill(0.0);
                }
            }
        }
        self.written.clear();
        self.overflow = false;
    }

    /// Rows 3k..3k+3 of W (`w`, 3 rows of nv) from those of J: D^{-1/2}·U⁻¹·J_rᵀ on the
    /// robot's support (U·y = J_rᵀ from the deepest dof up: y[j] = J_r[j] − Σ_{i below j}
    /// U[j][i]·y[i], the three rows at once: they share U's entries) and Cᵀ·J_rᵀ on each
    /// free body among `owners`.
    fn factor_rows(&self, bodies: &Bodies, owners: [Owner; 2], k: usize, robot_nv: usize, w: &mut [f64]) {
        let nv = self.nv;
        let j_rows = &self.jacobian[3 * k * nv..3 * (k + 1) * nv];
        let (w0, rest) = w.split_at_mut(nv);
        let (w1, w2) = rest.split_at_mut(nv);
        let (j0, j1, j2) = (&j_rows[..nv], &j_rows[nv..2 * nv], &j_rows[2 * nv..]);
        if let Some((_, data)) = bodies.robot {
            let u = data.ltdl_u.as_slice();
            // The robot's dofs of the support (free bodies' come first, being higher).
            let robot = &self.support[self.support.partition_point(|&d| d >= robot_nv)..];
            for (a, &j) in robot.iter().enumerate() {
                let (mut y0, mut y1, mut y2) = (j0[j], j1[j], j2[j]);
                let u_j = &u[j * robot_nv..j * robot_nv + robot_nv];
                for &i in &robot[..a] {
                    let uji = u_j[i];
                    y0 -= uji * w0[i];
                    y1 -= uji * w1[i];
                    y2 -= uji * w2[i];
                }
                (w0[j], w1[j], w2[j]) = (y0, y1, y2);
            }
            for &j in robot {
                let s = self.inv_sqrt_d[j];
                (w0[j], w1[j], w2[j]) = (w0[j] * s, w1[j] * s, w2[j] * s);
            }
        }
        for owner in owners {
            if let Owner::Free { body } = owner
                && let (Some(b), Some(at)) = (bodies.free.get(body), bodies.column(body))
            {
                for (w_r, j_r) in [(&mut *w0, j0), (&mut *w1, j1), (&mut *w2, j2)] {
                    let mut x = [0.0; 6];
                    x.copy_from_slice(&j_r[at..at + 6]);
                    b.apply_factor_transpose(&mut x);
                    w_r[at..at + 6].copy_from_slice(&x);
                }
            }
        }
    }

    /// Adds `sign`·Cᵀ·J_body(p) to the rows of contact `k` (`c`'s point and frame) and the
    /// dofs it touches to the support; returns its part of the three rows' products with
    /// `v_free` and of the normal row's with `v`.
    #[allow(clippy::too_many_arguments)]
    fn add_body_rows(
        &mut self,
        bodies: &Bodies,
        k: usize,
        owner: &Owner,
        c: &Contact,
        sign: f64,
        v: &[f64],
        v_free: &[f64],
    ) -> [f64; 4] {
        let nv = self.nv;
        let (p, frame) = (&c.point, &c.frame);
        let mut velocity = [0.0; 4];
        match *owner {
            Owner::Static => {}
            Owner::Robot { joint } => {
                let Some((model, data)) = bodies.robot else { return velocity };
                if joint == 0 {
                    return velocity; // fixed to the world
                }
                // Row a at dof k: C_a·(v_k + ω_k × p), the velocity of the point along the
                // frame's axes (Cᵀ times it, the three rows at once), from the joint
                // Jacobians' columns; only the dofs supporting the joint (the chain walked
                // here, deepest first) are non-zero.
                let signed = frame * sign;
                let columns = data.j.as_slice();
                let rows = &mut self.jacobian[3 * k * nv..3 * (k + 1) * nv];
                let (row0, rest) = rows.split_at_mut(nv);
                let (row1, row2) = rest.split_at_mut(nv);
                let mut col = model.idx_v[joint] + model.joint_types[joint].nv() - 1;
                while col != crate::model::NO_PARENT {
                    let j = &columns[6 * col..6 * col + 6];
                    let point = Vec3::new(j[0], j[1], j[2]) + Vec3::new(j[3], j[4], j[5]).cross(p);
                    let x = signed.tr_mul(&point);
                    row0[col] += x.x;
                    row1[col] += x.y;
                    row2[col] += x.z;
                    let (vf, v0) = (v_free[col], v[col]);
                    velocity[0] += x.x * vf;
                    velocity[1] += x.y * vf;
                    velocity[2] += x.z * vf;
                    velocity[3] += x.z * v0;
                    self.support.push(col);
                    col = model.dof_parent[col];
                }
            }
            Owner::Free { body } => {
                let (Some(state), Some(base)) = (bodies.free_states.get(body), bodies.column(body)) else {
                    return velocity;
                };
                // ṗ = R (v + ω × r) = R v − R [r]ₓ ω, r = p in the body frame: row a is
                // u = (Fᵀ R)_a (F the contact frame) on the linear dofs, −u [r]ₓ = r × u on the
                // angular ones.
                let r_local = state.pose.act_inv_point(p);
                let rows = frame.tr_mul(&state.pose.rotation) * sign;
                let (vf, v0) = (&v_free[base..base + 6], &v[base..base + 6]);
                for a in 0..3 {
                    let lin = rows.row(a).transpose();
                    let ang = r_local.cross(&lin);
                    let at = (3 * k + a) * nv + base;
                    let row = &mut self.jacobian[at..at + 6];
                    for j in 0..3 {
                        row[j] += lin[j];
                        row[3 + j] += ang[j];
                    }
                    velocity[a] +=
                        lin.dot(&Vec3::from_column_slice(&vf[..3])) + ang.dot(&Vec3::from_column_slice(&vf[3..]));
                    if a == 2 {
                        velocity[3] +=
                            lin.dot(&Vec3::from_column_slice(&v0[..3])) + ang.dot(&Vec3::from_column_slice(&v0[3..]));
                    }
                }
                self.support.extend((base..base + 6).rev());
            }
        }
        velocity
    }
}
