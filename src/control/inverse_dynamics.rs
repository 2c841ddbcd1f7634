//! Proximal contact inverse dynamics, seed 000 §IV Algorithm 2.
//!
//! Given (q, v) and a reference next velocity v_ref (a = (v_ref − v)/Δt), the contact
//! velocities are fixed at c = J·v_ref + γ, so the Delassus matrix drops out of the
//! contact problem and the NCP becomes, per contact (seed 000 eq. 47),
//!
//! ```text
//! K_μ ∋ λ ⊥ σ + Γ(σ) ∈ K*_μ,     σ = R·λ + c.
//! ```
//!
//! Without G the contacts do not couple; each is solved by the proximal point iteration on
//! the KKT form (eq. 48) with the De Saxcé fixed point:
//!
//! ```text
//! s ← Γ(R λ + c)                                         (0 for the CCP)
//! λ ← P^{R+ρI}_K( −(R + ρI)⁻¹ (c + s − ρ λ) )             weighted projection, analytic
//! ```
//!
//! then τ = RNEA(q, v, a) + D·v_ref − Jᵀλ/Δt, with D the URDF joint damping the simulator
//! takes implicitly (so that the simulator driven by τ reproduces v_ref and λ). With a
//! floating base the rigid sticking contacts' impulses are then chosen to produce the base
//! wrench ([`super::floating_base`]). Compliant
//! contacts (R ≻ 0) make λ unique; rigid ones (R = 0) leave it under-determined and the
//! proximal term picks the solution nearest the start (the previous tick's, by contact
//! id). Under the CCP a sliding reference (c_N = 0, c_T ≠ 0) has no solution and the
//! iterates grow without bound (AT-13): the NCP is what makes sliding invertible.
//!
//! The stopping rule is Pinocchio's: ‖λ_k − λ_{k−1}‖∞ ≤ ε_abs or ≤ ε_rel·max‖λ‖∞, the
//! rigid blocks' also met when eq. 47 holds for them to a velocity tolerance. The
//! result also carries the residual of eq. 47 in velocity units (per contact, the distance
//! of σ + Γ(σ) from the dual cone and its component along λ, as the ADMM's start test).

use super::floating_base::{FloatingBase, FloatingBaseSettings};
use super::stance::StanceTarget;
use crate::collision::{Contact, ContactId};
use crate::contact::cone::{self, BlockSet};
use crate::contact::row_velocity;
use crate::contact::{
    Assembly, Bodies, Build, ContactModel, ContactProblem, ProblemError, ProblemSettings, Residuals, SolveResult,
    WarmStart, WarmStartCache,
};
use crate::dynamics;
use crate::model::{Data, Model};

/// Settings of Algorithm 2.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct InverseDynamicsSettings {
    /// NCP (with the De Saxcé term) or CCP (s = 0).
    pub model: ContactModel,
    /// Proximal weight ρ (impulse per velocity). The paper's rigid wall slide: 1e-8.
    pub rho: f64,
    /// Stop when ‖Δλ‖∞ ≤ this (N·s).
    pub absolute: f64,
    /// ... or ‖Δλ‖∞ ≤ this × max(‖λ_k‖∞, ‖λ_{k−1}‖∞).
    pub relative: f64,
    /// ... or, for the rigid blocks (R = 0), eq. 47's residual (m/s) ≤ this: a rigid
    /// sticking contact whose reference velocity is zero to rounding is solved by any λ of
    /// its cone, and with a small ρ its iterates would wander by σ/ρ without settling.
    pub velocity: f64,
    /// Iteration cap.
    pub max_iterations: usize,
    /// The base wrench's least squares, for a floating base ([`super::floating_base`]).
    pub floating_base: FloatingBaseSettings,
}

impl Default for InverseDynamicsSettings {
    fn default() -> Self {
        Self {
            model: ContactModel::Ncp,
            rho: 1e-8,
            absolute: 1e-12,
            relative: 1e-12,
            velocity: 1e-9,
            max_iterations: 100,
            floating_base: FloatingBaseSettings::default(),
        }
    }
}

/// Runs Algorithm 2 on `problem` (its G is not used: g holds c = J·v_ref + γ), from the
/// impulses in `result.lambda` (3 n_c, projected first; zeros when empty). Fills λ, σ,
/// z = σ + Γ(σ), the iteration count, convergence, and the residuals (primal: the last
/// ‖Δλ‖∞, dual and complementarity: eq. 47's, in velocity units).
pub fn solve_impulses(problem: &ContactProblem, settings: &InverseDynamicsSettings, result: &mut SolveResult) {
    let n = problem.contacts();
    let m = 3 * n;
    if result.lambda.len() != m {
        result.lambda.clear();
        result.lambda.resize(m, 0.0);
    }
    for v in [&mut result.sigma, &mut result.dual] {
        v.clear();
        v.resize(m, 0.0);
    }
    result.converged = n == 0;
    result.stats.stalled = false;
    result.stats.iterations = 0;
    result.rho = settings.rho;
    result.stats.factorizations = 0;
    for (i, set) in problem.sets().iter().enumerate() {
        let start = set.project(&cone::block(&result.lambda, i));
        cone::set_block(&mut result.lambda, i, &start);
    }
    let mut change = 0.0f64;
    for k in 1..=settings.max_iterations {
        let sweep = Sweep::run(problem, settings, &mut result.lambda);
        change = sweep.change;
        result.stats.iterations = k;
        if !change.is_finite() {
            break;
        }
        let small = |c: f64| c <= settings.absolute || c <= settings.relative * sweep.largest;
        if small(change) || (small(sweep.compliant_change) && sweep.rigid_error <= settings.velocity) {
            result.converged = true;
            break;
        }
    }
    // σ, z and the residual of eq. 47 at the final λ.
    let ncp = settings.model == ContactModel::Ncp;
    let mut error = 0.0f64;
    for (i, set) in problem.sets().iter().enumerate() {
        let l = cone::block(&result.lambda, i);
        let sigma = block_velocity(problem, i, &l);
        let z = cone::add(&sigma, &set.correction(ncp, &sigma));
        error = error.max(set.velocity_error(&l, &z));
        cone::set_block(&mut result.sigma, i, &sigma);
        cone::set_block(&mut result.dual, i, &z);
    }
    result.stats.residuals = Residuals { primal: change, dual: error, complementarity: error };
}

/// σ_i = R_i λ_i + c_i: contact `i`'s velocity under its impulse `l`.
fn block_velocity(problem: &ContactProblem, i: usize, l: &cone::Vec3c) -> cone::Vec3c {
    let (ri, ci) = (cone::block(problem.compliance(), i), cone::block(problem.g(), i));
    [ri[0] * l[0] + ci[0], ri[1] * l[1] + ci[1], ri[2] * l[2] + ci[2]]
}

/// What one pass of Algorithm 2 over the contacts changed.
struct Sweep {
    /// ‖Δλ‖∞.
    change: f64,
    /// max(‖λ_k‖∞, ‖λ_{k−1}‖∞).
    largest: f64,
    /// ‖Δλ‖∞ of the compliant blocks (R ≠ 0).
    compliant_change: f64,
    /// Eq. 47's residual of the rigid blocks (R = 0) at the new λ.
    rigid_error: f64,
}

impl Sweep {
    /// One proximal step (eq. 48 with the De Saxcé fixed point) of every contact of
    /// `problem`, λ updated in place: they do not couple without G.
    fn run(problem: &ContactProblem, settings: &InverseDynamicsSettings, lambda: &mut [f64]) -> Self {
        let (rho, ncp) = (settings.rho, settings.model == ContactModel::Ncp);
        let mut sweep = Sweep { change: 0.0, largest: 0.0, compliant_change: 0.0, rigid_error: 0.0 };
        for (i, set) in problem.sets().iter().enumerate() {
            let old = cone::block(lambda, i);
            let (ri, ci) = (cone::block(problem.compliance(), i), cone::block(problem.g(), i));
            let rigid = ri.iter().all(|&x| x == 0.0);
            let new = match *set {
                // σ = c: the step without its cancellation (see the function).
                BlockSet::Cone(mu) if rigid && ncp => cone::proximal_step_rigid_ncp(mu, &old, &ci, rho),
                _ => {
                    let s = set.correction(ncp, &block_velocity(problem, i, &old));
                    // The metric R + ρI; the two tangent rows share one compliance in an
                    // assembled problem (their geometric mean otherwise).
                    let d = [ri[0] + rho, ri[1] + rho, ri[2] + rho];
                    let x = [
                        -(ci[0] + s[0] - rho * old[0]) / d[0],
                        -(ci[1] + s[1] - rho * old[1]) / d[1],
                        -(ci[2] + s[2] - rho * old[2]) / d[2],
                    ];
                    set.project_weighted((d[0] * d[1]).sqrt(), d[2], &x)
                }
            };
            let mut block_change = 0.0f64;
            for a in 0..3 {
                block_change = block_change.max((new[a] - old[a]).abs());
                sweep.largest = sweep.largest.max(new[a].abs()).max(old[a].abs());
            }
            sweep.change = sweep.change.max(block_change);
            if rigid {
                let sigma = block_velocity(problem, i, &new);
                let z = cone::add(&sigma, &set.correction(ncp, &sigma));
                sweep.rigid_error = sweep.rigid_error.max(set.velocity_error(&new, &z));
            } else {
                sweep.compliant_change = sweep.compliant_change.max(block_change);
            }
            cone::set_block(lambda, i, &new);
        }
        sweep
    }
}

/// Refuses a step `dt` that is not positive and finite, and each (key, values, expected
/// size) of `fields` of the wrong size or holding a NaN or infinity, naming it.
pub(crate) fn check_inputs(dt: f64, fields: &[(&'static str, &[f64], usize)]) -> Result<(), ProblemError> {
    if dt.is_nan() || dt <= 0.0 || dt.is_infinite() {
        return Err(ProblemError::Value { key: "dt", index: 0, reason: "not a positive finite step" });
    }
    for &(key, x, expected) in fields {
        if x.len() != expected {
            return Err(ProblemError::Size { key, expected, found: x.len() });
        }
        // All finite by a branch-free pass (vectorized; the usual case), then where not.
        if !x.iter().fold(true, |finite, y| finite & y.is_finite())
            && let Some(index) = x.iter().position(|y| !y.is_finite())
        {
            return Err(ProblemError::Value { key, index, reason: "not a finite number" });
        }
    }
    Ok(())
}

/// A base wrench below this (N, N·m) is rounding: the base acceleration is not corrected.
const BASE_ROUNDING: f64 = 1e-8;

/// The base rows of `tau` (a floating base's) are a wrench nothing produces: let the base
/// accelerate by Δa = −M_bb⁻¹ τ_b instead of as the reference asked and add M_jb Δa to
/// the joints' torques, so that they realize the joint accelerations given that motion
/// (in flight, the free-floating dynamics exactly) and τ_b = 0.
fn absorb_base_residual(model: &Model, data: &mut Data, q: &[f64], tau: &mut [f64]) {
    if tau[..6].iter().all(|t| t.abs() <= BASE_ROUNDING) {
        tau[..6].fill(0.0);
        return;
    }
    // M alone (the kinematics of q are already in `data`): the joint-frame CRBA.
    let m = dynamics::crba_local(model, data, q);
    let m_bb = nalgebra::Matrix6::from_fn(|i, j| if i >= j { m[(i, j)] } else { m[(j, i)] });
    let Some(chol) = m_bb.cholesky() else { return };
    let delta = chol.solve(&-nalgebra::Vector6::from_column_slice(&tau[..6]));
    for (k, t) in tau.iter_mut().enumerate().skip(6) {
        *t += (0..6).map(|b| m[(k, b)] * delta[b]).sum::<f64>();
    }
    tau[..6].fill(0.0);
}

/// The workspace of contact inverse dynamics for one robot: sized once, reused every tick
/// without allocating.
#[derive(Debug)]
pub struct InverseDynamics {
    /// Algorithm 2's settings.
    pub settings: InverseDynamicsSettings,
    problem_settings: ProblemSettings,
    assembly: Assembly,
    problem: ContactProblem,
    cache: WarmStartCache,
    warm: WarmStart,
    result: SolveResult,
    accel: Vec<f64>,
    contact_torque: Vec<f64>,
    tau: Vec<f64>,
    /// For a floating base (the model's first joint a free flyer).
    base: Option<FloatingBase>,
}

impl InverseDynamics {
    /// A workspace for `model` and up to `capacity` contacts, with the contact problem's
    /// bias and compliance from `problem_settings` (the simulator's, for a controller that
    /// predicts it).
    pub fn new(
        model: &Model,
        capacity: usize,
        problem_settings: ProblemSettings,
        settings: InverseDynamicsSettings,
    ) -> Self {
        let nv = model.nv;
        Self {
            settings,
            problem_settings,
            assembly: Assembly::with_capacity(capacity, nv, nv),
            problem: ContactProblem::with_factor_capacity(capacity, nv),
            cache: WarmStartCache::with_capacity(capacity),
            warm: WarmStart::with_capacity(capacity),
            result: SolveResult::with_capacity(capacity, 0),
            accel: vec![0.0; nv],
            contact_torque: vec![0.0; nv],
            tau: vec![0.0; nv],
            base: model.has_free_flyer().then(|| FloatingBase::with_capacity(capacity, settings.floating_base)),
        }
    }

    /// The joint forces τ (nv) that take the robot from (q, v) to v_ref in one step of
    /// `dt` under `contacts` (detected at q between the robot and the static world), and
    /// the contact impulses that come with them ([`InverseDynamics::impulses`]). The
    /// impulses of contacts that persist (by id) start from the previous call's. A state or
    /// reference of the wrong size or with a NaN, a step that is not positive, or more
    /// contacts than the capacity is refused with an error naming it.
    #[allow(clippy::too_many_arguments)]
    pub fn compute(
        &mut self,
        model: &Model,
        data: &mut Data,
        q: &[f64],
        v: &[f64],
        v_ref: &[f64],
        contacts: &[Contact],
        dt: f64,
    ) -> Result<&[f64], ProblemError> {
        check_inputs(dt, &[("q", q, model.nq), ("v", v, model.nv), ("v_ref", v_ref, model.nv)])?;
        dynamics::compute_joint_jacobians(model, data, q);
        self.assemble(model, data, v, v_ref, contacts, dt)?;
        self.solve_contacts();
        Ok(self.joint_torques(model, data, q, v, v_ref, dt))
    }

    /// The contact rows the controller assembles its stance from and this inverse dynamics
    /// then solves with ([`Assembly::assemble`] into the problem, at the controller's v₀):
    /// one assembly per tick.
    pub(crate) fn rows_mut(&mut self) -> (&mut Assembly, &mut ContactProblem, &ProblemSettings) {
        (&mut self.assembly, &mut self.problem, &self.problem_settings)
    }

    /// The rows and the problem as last assembled.
    pub(crate) fn rows(&self) -> (&Assembly, &ContactProblem) {
        (&self.assembly, &self.problem)
    }

    /// [`InverseDynamics::compute`] for inputs already checked, with `data` holding the
    /// placements and joint Jacobians at q and the problem's rows assembled at q
    /// ([`InverseDynamics::rows_mut`], at any contact-free velocity): its g evaluated at
    /// v_ref, the contacts `targets` names moving as the controller's stance asks (their
    /// contact velocity c = J·v_ref − t instead of J·v_ref + γ, [`StanceTarget`]), then
    /// Algorithm 2 and the torques.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn compute_placed(
        &mut self,
        model: &Model,
        data: &mut Data,
        q: &[f64],
        v: &[f64],
        v_ref: &[f64],
        targets: &[StanceTarget],
        dt: f64,
    ) -> &[f64] {
        self.assembly.evaluate_g(&mut self.problem, v_ref);
        self.apply_targets(model.nv, v_ref, targets);
        self.solve_contacts();
        self.joint_torques(model, data, q, v, v_ref, dt)
    }

    /// The contact problem of Algorithm 2 from the reference: its rows J and
    /// c = J·v_ref + γ (eq. 47; the restitution in γ from the measured v). Nothing
    /// assembled (and the warm start forgotten) beyond the capacity.
    fn assemble(
        &mut self,
        model: &Model,
        data: &Data,
        v: &[f64],
        v_ref: &[f64],
        contacts: &[Contact],
        dt: f64,
    ) -> Result<(), ProblemError> {
        let bodies = Bodies::new(Some((model, data)), &[], &[]);
        let settings = &self.problem_settings;
        let assembled =
            self.assembly.assemble(&bodies, contacts, &[], v, v_ref, dt, settings, &mut self.problem, Build::Rows);
        if assembled.is_err() {
            self.cache.clear();
        }
        assembled
    }

    /// c = J·v_ref − t on the rows each stance target sets (the tangential rows' g is
    /// J_T·v_ref already: their bias is zero).
    fn apply_targets(&mut self, nv: usize, v_ref: &[f64], targets: &[StanceTarget]) {
        let j = self.assembly.jacobian();
        for t in targets {
            let i = t.contact;
            self.problem.g[3 * i] -= t.tangential[0];
            self.problem.g[3 * i + 1] -= t.tangential[1];
            if let Some(normal) = t.normal {
                let support = self.problem.factor_support(i);
                self.problem.g[3 * i + 2] = row_velocity(j, nv, support, 3 * i + 2, v_ref) - normal;
            }
        }
    }

    /// Algorithm 2 from the impulses of the contacts that persist (by id), the rest from
    /// zero; the answer stored for the next call.
    fn solve_contacts(&mut self) {
        self.cache.guess(self.problem.ids(), &mut self.warm);
        self.result.lambda.clear();
        self.result.lambda.extend_from_slice(&self.warm.lambda);
        solve_impulses(&self.problem, &self.settings, &mut self.result);
        self.cache.store(self.problem.ids(), &self.result);
    }

    /// τ = RNEA(q, v, a) + D·v_ref − Jᵀλ/Δt with a = (v_ref − v)/Δt (Algorithm 2's last
    /// line; D the URDF joint damping the simulator takes implicitly), a floating base's
    /// sticking impulses chosen first to produce its wrench ([`FloatingBase`]) and what
    /// they cannot produce absorbed by the joints.
    fn joint_torques(
        &mut self,
        model: &Model,
        data: &mut Data,
        q: &[f64],
        v: &[f64],
        v_ref: &[f64],
        dt: f64,
    ) -> &[f64] {
        let nv = model.nv;
        for k in 0..nv {
            self.accel[k] = (v_ref[k] - v[k]) / dt;
        }
        let rnea = dynamics::rnea_placed(model, data, v, &self.accel);
        for k in 0..nv {
            self.tau[k] = rnea[k] + model.damping[k] * v_ref[k];
        }
        if let Some(base) = self.base.as_mut() {
            base.solve(&self.problem, self.assembly.jacobian(), nv, dt, &self.tau[..6], &mut self.result);
        }
        self.contact_torque.fill(0.0);
        self.assembly.add_transpose_product(&self.result.lambda, &mut self.contact_torque);
        for k in 0..nv {
            self.tau[k] -= self.contact_torque[k] / dt;
        }
        if self.base.is_some() {
            absorb_base_residual(model, data, q, &mut self.tau);
        }
        &self.tau
    }

    /// For a floating base, the base wrench the contacts could not produce at the last
    /// call (N, N·m, in the base's velocity frame; zero for a feasible reference): the
    /// base then accelerates by −M_bb⁻¹ of it instead of as the reference asked, and the
    /// joint torques account for that. None for a fixed base.
    pub fn base_residual(&self) -> Option<&[f64; 6]> {
        self.base.as_ref().map(|b| b.residual())
    }

    /// Sets the impulses the next [`InverseDynamics::compute`] starts from for the contacts
    /// `ids` (3 each, N·s, in their frames), in place of the previous call's. For rigid
    /// contacts that stick or slide the motion does not determine the normal impulse, and
    /// Algorithm 2's proximal term keeps the one it starts from: this is how a controller
    /// asks a contact for a force (a tool pressed on a wall). Allocates (set-up, not the
    /// loop).
    pub fn seed(&mut self, ids: &[ContactId], lambda: &[f64]) {
        let seeded = SolveResult {
            lambda: lambda.to_vec(),
            dual: vec![0.0; lambda.len()],
            converged: true,
            ..Default::default()
        };
        self.cache.store(ids, &seeded);
    }

    /// The last τ (nv); a floating base's six rows are zero.
    pub fn torques(&self) -> &[f64] {
        &self.tau
    }

    /// The last contact impulses λ (N·s, 3 per contact in its (Tx, Ty, N) frame); forces
    /// are λ/Δt.
    pub fn impulses(&self) -> &[f64] {
        &self.result.lambda
    }

    /// The last solve: iterations, convergence, residuals, σ.
    pub fn result(&self) -> &SolveResult {
        &self.result
    }

    /// The last contact problem (g = J·v_ref + γ; G not built).
    pub fn problem(&self) -> &ContactProblem {
        &self.problem
    }
}

#[cfg(test)]
mod tests {
    //! AT-13 of the seed 000–002 digest: a rigid sliding contact.
    #![allow(clippy::needless_range_loop)]
    use super::*;

    /// One rigid contact (R = 0, μ = 0.5) sliding at c = (0.1, 0, 0) m/s.
    fn sliding() -> ContactProblem {
        let zero = vec![vec![0.0; 3]; 3];
        ContactProblem::from_dense(&zero, &[0.1, 0.0, 0.0], &[0.5], &[]).unwrap()
    }

    #[test]
    fn at13_one_iteration_puts_the_impulse_on_the_cone_edge_opposite_the_slip() {
        let settings = InverseDynamicsSettings { max_iterations: 1, ..Default::default() };
        let mut result = SolveResult::with_capacity(1, 0);
        result.lambda.extend([0.0, 0.0, 1.0]);
        solve_impulses(&sliding(), &settings, &mut result);
        // (λ₀·d) d with d = (−μ, 0, 1)/√(1 + μ²): (−0.4, 0, 0.8), to rounding: the two
        // terms of size μ|u|/ρ = 5e6 in μ‖x_T‖ + x_N cancel analytically (a plain
        // projection would leave ε_mach·5e6 ≈ 1e-9).
        let want = [-0.4, 0.0, 0.8];
        for a in 0..3 {
            assert!((result.lambda[a] - want[a]).abs() < 1e-15, "{:?}", result.lambda);
        }
        // A fixed point: further iterations keep it, and eq. 47 holds exactly.
        let settings = InverseDynamicsSettings::default();
        solve_impulses(&sliding(), &settings, &mut result);
        assert!(result.converged);
        assert!(result.stats.iterations <= 2, "{}", result.stats.iterations);
        for a in 0..3 {
            assert!((result.lambda[a] - want[a]).abs() < 1e-9, "{:?}", result.lambda);
        }
        assert!(result.stats.residuals.dual < 1e-15, "{:?}", result.stats.residuals);
    }

    #[test]
    fn at13_under_the_ccp_the_sliding_reference_has_no_solution_and_the_iterates_grow() {
        let settings = InverseDynamicsSettings { model: ContactModel::Ccp, ..Default::default() };
        let mut result = SolveResult::with_capacity(1, 0);
        result.lambda.extend([0.0, 0.0, 1.0]);
        solve_impulses(&sliding(), &settings, &mut result);
        assert!(!result.converged);
        let size = cone::norm(&cone::block(&result.lambda, 0));
        // ‖λ_k‖ grows like k·|u|/ρ: 100 iterations, 0.1 m/s, ρ = 1e-8.
        assert!(size > 1e8, "‖λ‖ = {size}");
    }

    #[test]
    fn compliant_contacts_give_the_closed_form_in_one_step() {
        // AT-14's first half: with R ≻ 0 and Γ ≡ 0, Alg. 2 with ρ → 0 is
        // λ = P^R_K(−R⁻¹ c) (the MuJoCo-style inverse).
        let zero = vec![vec![0.0; 3]; 3];
        let (r, c) = ([2e-3, 2e-3, 1e-3], [0.05, -0.02, -0.3]);
        let problem = ContactProblem::from_dense(&zero, &c, &[0.4], &r).unwrap();
        let settings = InverseDynamicsSettings { model: ContactModel::Ccp, rho: 1e-12, ..Default::default() };
        let mut result = SolveResult::with_capacity(1, 0);
        solve_impulses(&problem, &settings, &mut result);
        let want = cone::project_cone_weighted(0.4, r[0], r[2], &[-c[0] / r[0], -c[1] / r[1], -c[2] / r[2]]);
        assert!(result.converged);
        for a in 0..3 {
            assert!((result.lambda[a] - want[a]).abs() < 1e-9 * want[2], "{:?} vs {want:?}", result.lambda);
        }
    }
}
