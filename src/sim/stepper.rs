//! One time step of the world, semi-implicit Euler at the velocity level (seed 000 eq. 22),
//! in four stages ([`Stepper::step`]):
//!
//! 1. free velocity: v_f = v + Δt·M⁻¹(τ − b(q, v)) for the robot (τ clamped to the effort
//!    limits, URDF joint damping D taken implicitly: M + Δt·D is factored) and for every
//!    free body (gravity, its external wrench, gyroscopic term);
//! 2. detect and assemble: contact detection at q, the joint position limits the step may
//!    reach (unilateral μ = 0 blocks) and the joints' Coulomb friction (interval blocks,
//!    [`crate::contact::joint_blocks`]): the contact problem (G, g) of the step;
//! 3. solve: from the previous step's impulses (warm start by contact id), the warm
//!    start's active set polished, else the solver, else its fallback, then the guard
//!    (impulses that would create kinetic energy are scaled down, `Stepper::guard`); with
//!    `contact.islands`, each island of the contacts ([`crate::contact::islands`]: the
//!    bodies connected through contacts) assembled and solved so on its own when there
//!    are several, the report aggregating them;
//! 4. integrate: v⁺ = v_f + M⁻¹Jᵀλ, q⁺ = q ⊕ Δt·v⁺.
//!
//! After [`Stepper::new`] a step neither allocates nor locks (tested with a counting
//! allocator); contacts beyond the capacity are dropped, the deepest kept, and counted
//! ([`StepReport::contacts_dropped`]).

use crate::collision::{Contact, ContactBuffer, Owner};
use crate::contact::polish::Polish;
use crate::contact::{
    Assembly, Bodies, Build, Capacity, ContactModel, ContactProblem, ContactSettings, DENSE_CONTACTS,
    DENSE_FREE_CONTACTS, Fallback, Islands, JointBlock, Metrics, ProblemSettings, SolveResult, Solver, SolverKind,
    Subset, WarmStart, WarmStartCache, joint_blocks,
};
use crate::dynamics;
use crate::model::{Data, Model};
use crate::spatial::{Force, Motion};

use super::world::World;

/// A joint limit closer than this (rad or m) is in the problem even when the step's
/// contact-free velocity does not reach it (contact impulses may push it there).
const LIMIT_MARGIN: f64 = 1e-3;

/// Iterations at least of the convex relaxation's solve in `contact.fallback: ccp`.
const FALLBACK_ITERATIONS: usize = 1000;

/// How far below a half-space (m) a point the step's problem did not hold may end a step
/// before the step is solved again with it (`contact.regenerate`): issue 28's bound on
/// rigid penetration.
pub const REGENERATION_DEPTH: f64 = 1e-6;

/// What one step did.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Contacts in the problem.
    pub contacts: usize,
    /// Contacts detected beyond the capacity and dropped (the deepest are kept).
    pub contacts_dropped: usize,
    /// Problems the contacts were solved as: the islands with `contact.islands` (a
    /// tree's joint blocks alone count as one), else 1; 0 without contacts or joint
    /// blocks.
    pub islands: usize,
    /// Solver iterations (summed over the islands).
    pub iterations: usize,
    /// Whether the solver reached its tolerance.
    pub converged: bool,
    /// Whether the warm start's active set solved the step (no iteration; see
    /// [`crate::contact::polish`]).
    pub polished: bool,
    /// Cholesky factorizations the solve did (ADMM: 1 + the penalty changes; summed over
    /// the islands).
    pub factorizations: usize,
    /// Joint limits in the problem (after the contacts).
    pub joint_limits: usize,
    /// Joints with Coulomb friction in the problem (after the contacts): their friction
    /// blocks, and the limits holding the friction of a joint resting on them
    /// ([`joint_blocks`]).
    pub joint_friction: usize,
    /// The NCP criterion of the step's impulses (seed 002 §2.3, force units).
    pub metrics: Metrics,
    /// Deepest penetration at the start of the step (m, ≥ 0).
    pub max_penetration: f64,
    /// The fallback whose impulses the step used because the solve missed its tolerance
    /// (`contact.fallback`), `None` otherwise.
    pub fallback: Fallback,
    /// Whether the guard refused the impulses the unconverged solve and its fallback
    /// left (not finite, or adding kinetic energy beyond the position bias's work) and
    /// the step applied them scaled down instead (`Stepper::guard`).
    pub refused: bool,
    /// Times the step was solved again with the points it had put below a half-space
    /// (`contact.regenerate`, [`Stepper::step`]); `contacts` and the solve's figures are
    /// the last solve's, `iterations` the sum over the solves (`max_penetration` is the
    /// start's, as first detected).
    pub regenerated: usize,
}

/// Which way stage 3 took on one problem: polished, the fallback used, and whether the
/// guard refused the impulses.
#[derive(Copy, Clone, Debug)]
struct Solved {
    polished: bool,
    fallback: Fallback,
    refused: bool,
}

impl Solved {
    /// Not polished, no fallback (not [`Fallback`]'s default, the configuration's `ccp`),
    /// nothing refused.
    const PLAIN: Self = Self { polished: false, fallback: Fallback::None, refused: false };
}

/// What the solve of one problem (the step's, or one island's) did, for the report.
#[derive(Copy, Clone, Debug)]
struct Outcome {
    iterations: usize,
    converged: bool,
    polished: bool,
    factorizations: usize,
    metrics: Metrics,
    fallback: Fallback,
    refused: bool,
}

impl Outcome {
    /// Nothing solved yet: the identity of [`Outcome::and`].
    const NONE: Self = Self {
        iterations: 0,
        converged: true,
        polished: true,
        factorizations: 0,
        metrics: Metrics { eps_p: 0.0, eps_d: 0.0, eps_c: 0.0, eps_abs: 0.0, signorini: 0.0, mdp: 0.0 },
        fallback: Fallback::None,
        refused: false,
    };

    /// Two islands' outcomes as one step's: iterations and factorizations summed,
    /// converged and polished only if both are, the worst NCP criterion, the fallback
    /// of the last island that took one, refused if either was.
    fn and(self, other: &Self) -> Self {
        Self {
            iterations: self.iterations + other.iterations,
            converged: self.converged && other.converged,
            polished: self.polished && other.polished,
            factorizations: self.factorizations + other.factorizations,
            metrics: self.metrics.worst(&other.metrics),
            fallback: if other.fallback == Fallback::None { self.fallback } else { other.fallback },
            refused: self.refused || other.refused,
        }
    }
}

/// The stepper's workspace: sized once for a world and a contact capacity.
pub struct Stepper {
    /// Time step (s).
    pub dt: f64,
    settings: ProblemSettings,
    solver: Box<dyn Solver + Send + Sync>,
    /// The warm start's active set, tried before the solver (None: `contact.polish` off).
    polish: Option<Polish>,
    /// What a solve that misses its tolerance falls back to, the convex relaxation's
    /// solver and its result, and the previous impulses as a candidate.
    fallback: Fallback,
    ccp: Option<(Box<dyn Solver + Send + Sync>, SolveResult)>,
    candidate: Vec<f64>,
    tolerance: f64,
    contacts: ContactBuffer,
    joints: Vec<JointBlock>,
    problem: ContactProblem,
    assembly: Assembly,
    cache: WarmStartCache,
    warm: WarmStart,
    /// The most contacts of a problem G is built for, with the robot and without.
    dense: usize,
    dense_free: usize,
    /// Whether the solver works by W ([`SolverKind::works_by_factor`]): G is then built
    /// only where it pays ([`ContactProblem::delassus_pays`]).
    by_factor: bool,
    /// `contact.islands`, the islands of the step, one island's contacts, the step's
    /// impulses gathered from its islands, the velocity their impulses make and the warm
    /// start cache the islands fill (swapped with `cache` at the end of the step).
    split_islands: bool,
    islands: Islands,
    island_contacts: Vec<Contact>,
    /// One island's joint blocks (those of its trees).
    island_joints: Vec<JointBlock>,
    /// An island's free bodies, the column of each of the world's in its problem
    /// ([`Subset`]), and its velocities at the start, free and changed by its impulses,
    /// over its own columns.
    island_bodies: Vec<usize>,
    island_column: Vec<usize>,
    island_v: Vec<f64>,
    island_v_free: Vec<f64>,
    island_dv: Vec<f64>,
    gathered: Vec<f64>,
    v_split: Vec<f64>,
    next: WarmStartCache,
    result: SolveResult,
    tau: Vec<f64>,
    /// The joints' friction held by the limits they rest on, as generalized forces, then
    /// the free velocity they add (robot nv; [`JointBlock::held_friction`]).
    held: Vec<f64>,
    v: Vec<f64>,
    v_free: Vec<f64>,
    displacement: Vec<f64>,
    q_next: Vec<f64>,
    sigma: Vec<f64>,
    /// Wᵀλ, for σ by W of a problem without G (nv).
    product: Vec<f64>,
    /// `contact.regenerate`: the most times a step is solved again.
    regenerate: usize,
    /// The state at the start of the step (robot q; every body's velocity, as `v` holds
    /// it; free bodies), and Data for the placements at its end (stage 5).
    start_q: Vec<f64>,
    start_v: Vec<f64>,
    start_states: Vec<crate::model::FreeBodyState>,
    end_data: Option<Data>,
    /// The q whose placements `end_data` holds (the last end-of-step check's), when
    /// `end_placed`: the next step starts from them if its q is still that one.
    end_q: Vec<f64>,
    end_placed: bool,
    report: StepReport,
}

impl Stepper {
    /// A stepper of `dt` for `world`, solving with `contact`'s settings for up to
    /// `capacity` contacts (plus the robot's joint limits and friction).
    pub fn new(world: &World, dt: f64, contact: &ContactSettings, capacity: usize) -> Self {
        let nv = world.nv();
        let (robot_nv, nq) = world.robot.as_ref().map_or((0, 0), |r| (r.model.nv, r.model.nq));
        let joint_capacity = world.robot.as_ref().map_or(0, |r| joint_blocks::capacity(&r.model));
        let blocks = capacity + joint_capacity;
        // G only up to DENSE_CONTACTS (DENSE_FREE_CONTACTS without the robot) when the
        // solver works by W: the islands beyond are solved by W alone, nothing of (3 n_c)²
        // reserved for them.
        let by_factor = contact.solver.works_by_factor();
        let dense = if by_factor { DENSE_CONTACTS.min(blocks) } else { blocks };
        let sizing = Capacity { blocks, cols: nv.min(3 * blocks), dense };
        // Compliant contacts penetrate by design.
        let regenerate = if contact.problem.compliance_normal > 0.0 { 0 } else { contact.regenerate };
        Self {
            dt,
            settings: contact.problem,
            solver: contact.build_solver(sizing),
            polish: contact.polish.then(|| Polish::with_capacity(blocks, nv)),
            fallback: contact.fallback,
            ccp: {
                // Its own cap: the solver's may be tight (PGS's sweeps are cheap), the
                // relaxation's ADMM converges in tens of iterations where it converges.
                let mut stop = contact.stop;
                stop.max_iterations = stop.max_iterations.max(FALLBACK_ITERATIONS);
                // Seed 000's ADMM on the CCP with as many iterations already is the
                // solver that missed: solving again would repeat it.
                let same = contact.solver == SolverKind::Admm
                    && contact.model == ContactModel::Ccp
                    && contact.stop.max_iterations == stop.max_iterations;
                (contact.fallback == Fallback::Ccp && !same).then(|| {
                    let solver = SolverKind::Admm.build(ContactModel::Ccp, stop, contact.admm_options(), sizing, false);
                    (solver, SolveResult::with_capacity(blocks, 0))
                })
            },
            candidate: Vec::with_capacity(3 * blocks),
            tolerance: contact.stop.absolute,
            contacts: ContactBuffer::with_capacity(capacity),
            joints: Vec::with_capacity(joint_capacity),
            problem: ContactProblem::with_factor_capacity_dense_up_to(blocks, nv, dense),
            assembly: Assembly::with_capacity(blocks, nv, robot_nv),
            cache: WarmStartCache::with_capacity(blocks),
            warm: WarmStart::with_capacity(blocks),
            dense_free: if by_factor { DENSE_FREE_CONTACTS.min(dense) } else { dense },
            dense,
            by_factor,
            split_islands: contact.islands,
            islands: Islands::new(
                world.robot.as_ref().map(|r| &*r.model),
                world.bodies.len(),
                capacity,
                joint_capacity,
            ),
            island_contacts: Vec::with_capacity(capacity),
            island_joints: Vec::with_capacity(joint_capacity),
            island_bodies: Vec::with_capacity(world.bodies.len()),
            island_column: vec![Subset::NONE; world.bodies.len()],
            island_v: vec![0.0; nv],
            island_v_free: vec![0.0; nv],
            island_dv: vec![0.0; nv],
            gathered: Vec::with_capacity(3 * blocks),
            v_split: vec![0.0; nv],
            next: WarmStartCache::with_capacity(blocks),
            result: SolveResult::with_capacity(blocks, 0),
            tau: vec![0.0; robot_nv],
            held: vec![0.0; robot_nv],
            v: vec![0.0; nv],
            v_free: vec![0.0; nv],
            displacement: vec![0.0; robot_nv],
            q_next: vec![0.0; nq],
            sigma: vec![0.0; 3 * blocks],
            product: vec![0.0; nv],
            regenerate,
            start_q: vec![0.0; nq],
            start_v: vec![0.0; nv],
            start_states: Vec::with_capacity(world.states.len()),
            end_data: world.robot.as_ref().filter(|_| regenerate > 0).map(|r| Data::new(&r.model)),
            end_q: if regenerate > 0 { vec![0.0; nq] } else { Vec::new() },
            end_placed: false,
            report: StepReport::default(),
        }
    }

    /// The same with `solver` in place of the one `contact.solver` names (a study of a
    /// solver's settings); it must hold [`Stepper::blocks`] blocks.
    pub fn with_solver(
        world: &World,
        dt: f64,
        contact: &ContactSettings,
        capacity: usize,
        solver: Box<dyn Solver + Send + Sync>,
    ) -> Self {
        let mut stepper = Self::new(world, dt, contact, capacity);
        stepper.solver = solver;
        stepper
    }

    /// The blocks a solver of a stepper for `world` with `capacity` contacts holds: the
    /// contacts, the robot's joint limits and joint friction.
    pub fn blocks(world: &World, capacity: usize) -> usize {
        capacity + world.robot.as_ref().map_or(0, |r| joint_blocks::capacity(&r.model))
    }

    /// Forgets the previous steps' contact impulses and what the solvers carry between
    /// solves ([`Solver::forget`]): the next solve starts cold, as the first one did (a
    /// reset of the state to replay a trajectory exactly).
    pub fn forget_warm_start(&mut self) {
        self.cache.clear();
        self.solver.forget();
        if let Some((solver, _)) = self.ccp.as_mut() {
            solver.forget();
        }
    }

    /// The contacts of the last step.
    pub fn contacts(&self) -> &ContactBuffer {
        &self.contacts
    }

    /// The robot joint forces the last step applied (τ clamped to the effort limits, nv).
    pub fn applied_torques(&self) -> &[f64] {
        &self.tau
    }

    /// The joint blocks (limits, friction) in the last step's problem, after the contacts.
    pub fn joint_blocks(&self) -> &[JointBlock] {
        &self.joints
    }

    /// The last step's impulses λ (N·s, 3 per block in its (Tx, Ty, N) frame: the contacts,
    /// then the joint blocks, whose N is the joint impulse in N·m·s or N·s); forces are
    /// λ/Δt. A limit holding its joint's friction ([`JointBlock::held_friction`] non-zero)
    /// reports λ' = Λ + F·Δt, Λ the limit's and the friction's impulses together along
    /// its row (the friction's −F·Δt is in the free motion: [`joint_blocks`]'s "Both").
    pub fn impulses(&self) -> &[f64] {
        &self.result.lambda
    }

    /// The last step's contact problem (for inspection and export); with islands, the
    /// last island's.
    pub fn problem(&self) -> &ContactProblem {
        &self.problem
    }

    /// The last step's report.
    pub fn report(&self) -> &StepReport {
        &self.report
    }

    /// Which contact model the solver solves.
    pub fn model(&self) -> ContactModel {
        self.solver.model()
    }

    /// The next step places the joints again rather than starting from the placements
    /// the end-of-step check computed (for tests: the two give the same step, bit for bit).
    #[doc(hidden)]
    pub fn forget_end_placements(&mut self) {
        self.end_placed = false;
    }

    /// Advances `world` by one step under joint forces `tau` (robot nv; ignored without a
    /// robot): the pipeline of seed 000 §II-E, one named stage each, as MuJoCo's `mj_step`.
    pub fn step(&mut self, world: &mut World, tau: &[f64]) -> &StepReport {
        let placed = self.free_velocity(world, tau);
        self.detect(world, placed);
        let penetration = self.contacts.contacts().iter().fold(0.0f64, |m, c| m.max(-c.distance));
        self.keep_start(world);
        let (mut outcome, mut split) = self.solve_contacts(world);
        self.integrate(world, split);
        let mut rounds = 0;
        while rounds < self.regenerate && self.went_below(world) {
            let iterations = outcome.iterations;
            self.redetect(world);
            (outcome, split) = self.solve_contacts(world);
            outcome.iterations += iterations;
            self.integrate(world, split);
            rounds += 1;
        }
        world.collision.clear_forced();
        self.record(outcome, split, rounds, penetration);
        &self.report
    }

    /// Stages 2 and 3 past detection: the contact impulses, island by island with
    /// `contact.islands`, else as one problem. Returns the outcome and whether the step
    /// was split.
    fn solve_contacts(&mut self, world: &World) -> (Outcome, bool) {
        let split = self.split_islands && {
            self.islands.partition(self.contacts.contacts(), world.bodies.len(), &self.joints);
            self.islands.len() > 1
        };
        let outcome = if split {
            self.solve_islands(world)
        } else {
            let assembled = self.assemble(world).is_ok();
            let solved = self.solve(assembled);
            self.outcome(solved)
        };
        (outcome, split)
    }

    /// Keeps the state at the start of the step (the robot's q, the velocities, the free
    /// bodies'),
    /// for a step solved again ([`Stepper::redetect`]); nothing with `contact.regenerate` 0.
    fn keep_start(&mut self, world: &World) {
        if self.regenerate == 0 {
            return;
        }
        if let Some(r) = world.robot.as_ref() {
            self.start_q.copy_from_slice(&r.q);
        }
        self.start_v.copy_from_slice(&self.v);
        self.start_states.clear();
        self.start_states.extend_from_slice(&world.states);
    }

    /// Stage 5 (`contact.regenerate`): whether the step put a point of a moving shape
    /// more than [`REGENERATION_DEPTH`] below a half-space that its problem did not hold
    /// — the shapes placed at the end of the step (forward kinematics of q⁺ into Data of
    /// its own: the robot's keeps the start's), each such point added to the next
    /// detection's ([`crate::collision::CollisionWorld::force_below`]).
    fn went_below(&mut self, world: &mut World) -> bool {
        if let (Some(r), Some(data)) = (world.robot.as_ref(), self.end_data.as_mut()) {
            dynamics::forward_kinematics(&r.model, data, &r.q);
            world.collision.place_robot(data);
            self.end_q.copy_from_slice(&r.q);
            self.end_placed = true;
        }
        world.place_free_bodies();
        world.collision.force_below(REGENERATION_DEPTH, self.contacts.contacts()) > 0
    }

    /// The state set back to the step's start and the contacts detected again, with the
    /// points [`Stepper::went_below`] found (at their distances at the start): the step's
    /// problem with them, to solve again. The joint blocks and the free velocity stay.
    fn redetect(&mut self, world: &mut World) {
        // The shapes go back to the start: the end placements are no longer theirs.
        self.end_placed = false;
        self.v.copy_from_slice(&self.start_v);
        if let Some(r) = world.robot.as_mut() {
            r.q.copy_from_slice(&self.start_q);
            r.v.copy_from_slice(&self.start_v[..r.model.nv]);
            // The start's placements are still in the robot's Data (stage 1's).
            world.collision.place_robot(&r.data);
        }
        world.states.copy_from_slice(&self.start_states);
        world.place_free_bodies();
        world.steps -= 1;
        world.time = world.steps as f64 * self.dt;
        world.collision.detect(&mut self.contacts);
    }

    /// Stage 1, the contact-free velocity v_f = v + Δt·M⁻¹(τ − b(q, v)) of every body
    /// (seed 002 eq. 2; seed 000 eq. 22 with λ = 0): the robot's under `tau` clamped to the
    /// effort limits ([`dynamics::free_velocity`], which leaves the placements, Jacobians
    /// and M's factors in its Data for the stages below), each free body's under gravity,
    /// its external wrench and its gyroscopic term. Keeps v, the velocity at the start.
    /// Returns whether the robot started from the placements of the previous step's end
    /// ([`Stepper::went_below`]'s, where its shapes still are).
    fn free_velocity(&mut self, world: &mut World, tau: &[f64]) -> bool {
        let dt = self.dt;
        let robot_nv = world.robot.as_ref().map_or(0, |r| r.model.nv);
        let mut placed = false;
        if let Some(r) = world.robot.as_mut() {
            let m = &r.model;
            for k in 0..m.nv {
                let limit = m.effort_limit[k];
                let t = tau.get(k).copied().unwrap_or(0.0);
                self.tau[k] = if limit > 0.0 && limit.is_finite() { t.clamp(-limit, limit) } else { t };
            }
            let (external, damping, v_free) = (r.wrenches.as_slice(), m.damping.as_slice(), &mut self.v_free[..m.nv]);
            // The previous step's end-of-step placements, when q is still theirs (nothing
            // set it since): the same forward kinematics, not computed twice. Exact
            // equality: any change of q, or a NaN, places the joints again.
            match self.end_data.as_mut().filter(|_| self.end_placed && r.q == self.end_q) {
                Some(end) => {
                    std::mem::swap(&mut r.data, end);
                    placed = true;
                    dynamics::free_velocity_placed(m, &mut r.data, &r.v, &self.tau, external, damping, dt, v_free);
                }
                None => dynamics::free_velocity(m, &mut r.data, &r.q, &r.v, &self.tau, external, damping, dt, v_free),
            }
            self.end_placed = false;
            self.v[..m.nv].copy_from_slice(&r.v);
        }
        for (b, (body, state)) in world.bodies.iter().zip(&world.states).enumerate() {
            let at = robot_nv + 6 * b;
            if !world.body_active(b) {
                // An empty spawn slot: at rest, out of every contact.
                self.v_free[at..at + 6].fill(0.0);
                self.v[at..at + 6].fill(0.0);
                continue;
            }
            let w = &world.wrenches[b];
            let rt = state.pose.rotation.transpose();
            let external = Force { linear: rt * w.linear, angular: rt * w.angular };
            let vf = body.free_velocity(state, &world.gravity, &external, dt);
            self.v_free[at..at + 6].copy_from_slice(vf.to_vector().as_slice());
            self.v[at..at + 6].copy_from_slice(state.velocity.to_vector().as_slice());
        }
        placed
    }

    /// Stage 2, the contacts detected at q and the robot's joint blocks: the position
    /// limits v_f may reach and the joints' Coulomb friction ([`joint_blocks`]). The
    /// robot's shapes are only culled when `placed` (stage 1 started from the placements
    /// they were moved to).
    fn detect(&mut self, world: &mut World, placed: bool) {
        if let Some(r) = world.robot.as_ref() {
            let m = &r.model;
            joint_blocks::collect(m, &r.q, &self.v_free[..m.nv], self.dt, LIMIT_MARGIN, &mut self.joints);
            hold_friction(m, &r.data, &self.joints, self.dt, &mut self.held, &mut self.v_free[..m.nv]);
            if placed {
                world.collision.cull_placed_robot(&r.data);
            } else {
                world.collision.update_robot(&r.data);
            }
        }
        world.place_free_bodies();
        world.collision.detect(&mut self.contacts);
    }

    /// Stage 2, the contact problem (G's factor W, g = J v_f + γ; seed 000 eq. 27) of the
    /// detected contacts and joint blocks, all in one.
    fn assemble(&mut self, world: &World) -> Result<(), crate::contact::ProblemError> {
        self.problem.limit_dense(if world.robot.is_some() { self.dense } else { self.dense_free });
        self.assembly.assemble(
            &bodies(world),
            self.contacts.contacts(),
            &self.joints,
            &self.v,
            &self.v_free,
            self.dt,
            &self.settings,
            &mut self.problem,
            Build::Factor,
        )
    }

    /// Stage 3, the impulses λ of the assembled problem: the warm start by contact id,
    /// then its active set solved exactly ([`Polish`]), else the solver (G built for it
    /// where it pays) and, when it misses its tolerance, the fallback and the guard; the
    /// warm start stored for the next step. No problem (none assembled, or no contact) is no impulse.
    /// Returns the way it took.
    fn solve(&mut self, assembled: bool) -> Solved {
        let solved = self.solve_problem(assembled);
        if !assembled || self.problem.contacts() == 0 {
            self.cache.clear();
        } else {
            self.cache.store(self.problem.ids(), &self.result);
        }
        solved
    }

    /// Stage 3 on the assembled problem (the step's or an island's), the warm start
    /// cache left as it is.
    fn solve_problem(&mut self, assembled: bool) -> Solved {
        if !assembled || self.problem.contacts() == 0 {
            self.result.lambda.clear();
            self.result.stats.iterations = 0;
            self.result.converged = assembled;
            return Solved::PLAIN;
        }
        self.cache.guess(self.problem.ids(), &mut self.warm);
        let model = self.solver.model();
        let polished = (self.polish.as_mut())
            .is_some_and(|p| p.try_solve(&self.problem, &self.warm, model, self.tolerance, &mut self.result));
        let mut solved = Solved { polished, ..Solved::PLAIN };
        if !polished {
            if !self.by_factor || self.problem.delassus_pays() {
                self.problem.build_delassus();
            }
            if self.solver.solve(&self.problem, Some(&self.warm), &mut self.result).is_err() {
                // Sized for the problem's capacity, with G built unless the solver works by
                // W: the solver does not refuse it. Were it to, the step has no impulses and
                // did not converge.
                self.result.reset(3 * self.problem.contacts());
            }
            // Impulses that are not numbers solve nothing, whatever the solver says.
            self.result.converged &= self.result.lambda.iter().all(|x| x.is_finite());
            if !self.result.converged && self.fallback != Fallback::None {
                solved.fallback = self.fall_back(self.dt);
            }
            solved.refused = !self.result.converged && self.guard();
        }
        solved
    }

    /// Stages 2 and 3 island by island ([`Islands`]): each assembled from its contacts
    /// and its trees' joint blocks, solved from its own warm start (polish,
    /// solver, fallback), its impulses gathered into the step's (contact order) and their
    /// velocity change M⁻¹Jᵀλ added to `v_split`; the warm start cache rebuilt from the
    /// islands that converged. Returns the step's outcome.
    fn solve_islands(&mut self, world: &World) -> Outcome {
        let islands = std::mem::take(&mut self.islands);
        self.gathered.clear();
        self.gathered.resize(3 * (self.contacts.len() + self.joints.len()), 0.0);
        self.v_split.copy_from_slice(&self.v_free);
        self.next.begin(&self.cache);
        let mut outcome = Outcome::NONE;
        for i in 0..islands.len() {
            outcome = outcome.and(&self.solve_island(world, &islands, i));
        }
        self.islands = islands;
        std::mem::swap(&mut self.cache, &mut self.next);
        self.cache.seal();
        self.result.lambda.clear();
        self.result.lambda.extend_from_slice(&self.gathered);
        outcome
    }

    /// Island `i` of `islands`: assembled over its own bodies' columns, solved, gathered
    /// and applied ([`Stepper::solve_islands`]).
    fn solve_island(&mut self, world: &World, islands: &Islands, i: usize) -> Outcome {
        let (members, joint_members) = (islands.contacts(i), islands.joints(i));
        self.island_contacts.clear();
        self.island_contacts.extend(members.iter().map(|&k| self.contacts.contacts()[k]));
        self.island_joints.clear();
        self.island_joints.extend(joint_members.iter().map(|&b| self.joints[b]));
        let robot = self.gather_island(world);
        self.problem.limit_dense(if robot { self.dense } else { self.dense_free });
        let bodies = island_bodies(world, robot, &self.island_bodies, &self.island_column);
        let nv = bodies.nv();
        let assembled = (self.assembly)
            .assemble(
                &bodies,
                &self.island_contacts,
                &self.island_joints,
                &self.island_v[..nv],
                &self.island_v_free[..nv],
                self.dt,
                &self.settings,
                &mut self.problem,
                Build::Factor,
            )
            .is_ok();
        let solved = self.solve_problem(assembled);
        let lambda = &self.result.lambda;
        if assembled && lambda.len() == 3 * self.problem.contacts() {
            let nc = self.contacts.len();
            let rows = members.iter().map(|&k| 3 * k).chain(joint_members.iter().map(|&b| 3 * (nc + b)));
            for (j, at) in rows.enumerate() {
                self.gathered[at..at + 3].copy_from_slice(&lambda[3 * j..3 * j + 3]);
            }
            if self.problem.contacts() > 0 && lambda.iter().all(|x| x.is_finite()) {
                let bodies = island_bodies(world, robot, &self.island_bodies, &self.island_column);
                self.island_dv[..nv].fill(0.0);
                self.assembly.apply_impulses(&bodies, lambda, &mut self.island_dv[..nv]);
                self.scatter_island(world, robot);
            }
            self.next.append(self.problem.ids(), &self.result);
        }
        for &b in &self.island_bodies {
            self.island_column[b] = Subset::NONE;
        }
        self.outcome(solved)
    }

    /// The free bodies of the island in `island_contacts` and `island_joints` (their
    /// columns after the robot's, when it has some of the robot's trees: a contact on a
    /// link that moves, or a joint block), and its start and free velocities over those
    /// columns. Returns whether the robot is in it. The robot's columns are all its dofs,
    /// the island's trees' and the others': a contact's rows of J and W are zero outside
    /// its tree's dofs (M and its factor U are block-diagonal over the trees), so its
    /// impulses change the other trees' velocities by exactly zero.
    fn gather_island(&mut self, world: &World) -> bool {
        let moving = |o: &Owner| matches!(o, Owner::Robot { joint } if *joint > 0);
        let robot =
            !self.island_joints.is_empty() || self.island_contacts.iter().any(|c| moving(&c.body1) || moving(&c.body2));
        let robot_nv = if robot { robot_dofs(world) } else { 0 };
        self.island_bodies.clear();
        for c in &self.island_contacts {
            for owner in [c.body1, c.body2] {
                if let Owner::Free { body } = owner
                    && self.island_column[body] == Subset::NONE
                {
                    self.island_column[body] = robot_nv + 6 * self.island_bodies.len();
                    self.island_bodies.push(body);
                }
            }
        }
        for (world_at, at, n) in island_spans(world, robot, &self.island_bodies, &self.island_column) {
            self.island_v[at..at + n].copy_from_slice(&self.v[world_at..world_at + n]);
            self.island_v_free[at..at + n].copy_from_slice(&self.v_free[world_at..world_at + n]);
        }
        robot
    }

    /// Adds the island's velocity change (`island_dv`, its columns) to `v_split`.
    fn scatter_island(&mut self, world: &World, robot: bool) {
        for (world_at, at, n) in island_spans(world, robot, &self.island_bodies, &self.island_column) {
            for (v, dv) in self.v_split[world_at..world_at + n].iter_mut().zip(&self.island_dv[at..at + n]) {
                *v += dv;
            }
        }
    }

    /// After a solve that missed its tolerance: the candidates of `contact.fallback` (the
    /// previous step's impulses, projected onto their sets; the convex relaxation solved by
    /// seed 000's ADMM from them) replace the solver's iterate when their NCP criterion is
    /// smaller — with the cone violation and the complementarity taken relative to the
    /// candidate's largest force, so that no impulse at all (ε_p = ε_c = 0) does not beat a
    /// heavy stack's nearly right impulses (ε_c large in newtons) while it lets the stack
    /// fall (ε_d, the approach acceleration, large). A candidate that is not finite, or
    /// that the guard would refuse (it adds kinetic energy, [`Stepper::guard`]), always
    /// loses. Returns the one used.
    fn fall_back(&mut self, dt: f64) -> Fallback {
        let n = self.problem.contacts();
        let (sigma, t) = (&mut self.sigma[..3 * n], &mut self.product);
        let mut criterion = |problem: &ContactProblem, lambda: &[f64]| {
            if !lambda.iter().all(|x| x.is_finite()) {
                return f64::INFINITY;
            }
            problem.contact_velocity_by_factor(lambda, sigma, t);
            let m = Metrics::of_velocities(problem, lambda, sigma, dt, ContactModel::Ncp);
            if !Energy::of_velocities(problem, lambda, sigma).accepted() {
                return f64::INFINITY;
            }
            let force = lambda.iter().fold(0.0f64, |f, x| f.max(x.abs())) / dt;
            let relative = |e: f64| if force > 0.0 { e / force } else { e };
            m.eps_d.max(relative(m.eps_c)).max(relative(m.eps_p))
        };
        let mut best = criterion(&self.problem, &self.result.lambda);
        let mut used = Fallback::None;
        self.candidate.clear();
        for (i, set) in self.problem.sets().iter().enumerate() {
            self.candidate.extend_from_slice(&self.warm.projected(i, set).unwrap_or([0.0; 3]));
        }
        let warm = criterion(&self.problem, &self.candidate);
        if warm < best {
            (best, used) = (warm, Fallback::WarmStart);
            self.result.lambda.copy_from_slice(&self.candidate);
        }
        if let Some((solver, result)) = self.ccp.as_mut() {
            let solved = solver.solve(&self.problem, Some(&self.warm), result).is_ok();
            if solved && criterion(&self.problem, &result.lambda) < best {
                used = Fallback::Ccp;
                self.result.lambda.copy_from_slice(&result.lambda);
            }
        }
        if used != Fallback::None {
            self.problem.contact_velocity_by_factor(&self.result.lambda, &mut self.result.sigma, &mut self.product);
            self.result.dual.copy_from_slice(&self.result.sigma);
        }
        used
    }

    /// Stage 3's guard, after a solve that missed its tolerance (and its fallback): the
    /// impulses λ it leaves must not create kinetic energy. Every exact solution of the
    /// step's problem, NCP, CCP or pyramid LCP, rigid or compliant, does no positive work
    /// on the end-of-step contact velocities σ = (G + R)λ + g: λᵀσ ≤ 0 (Signorini
    /// λ_N σ_N = 0; maximum dissipation λ_T·σ_T = −μλ_N‖σ_T‖; the CCP's λ ⊥ σ; a joint
    /// friction interval's λσ = −F|σ|). So its energy f(λ) = ½λᵀ(G + R)λ + λᵀg is at most
    /// −½λᵀ(G + R)λ ≤ 0 = f(0) — and since the kinetic energy the impulses add to the free
    /// motion is ½‖v⁺‖²_M − ½‖v_f‖²_M = λᵀJv_f + ½λᵀGλ = f(λ) − ½λᵀRλ − λᵀγ (g = Jv_f +
    /// γ), f(λ) ≤ 0 says the contacts add none beyond the work −λᵀγ of the position bias
    /// (the gap and restitution terms), at any scale of masses, speeds or Δt. Impulses
    /// with f(λ) > 0 are refused: they do worse than no impulse at all on the convex
    /// objective, and they are how an unconverged iterate pumps energy into a scene step
    /// after step until it is no longer finite. No tolerance: an iterate near a solution
    /// has f ≈ −½λᵀ(G + R)λ, far below 0. Impulses that are not finite are refused too.
    ///
    /// The step then applies the same impulses scaled by s = clamp(−λᵀg / λᵀ(G + R)λ, 0,
    /// 1), the minimizer of f along them (f(sλ) = −(λᵀg)²/2λᵀ(G + R)λ ≤ 0): each block
    /// stays in its cone or interval (s ≤ 1), the friction keeps the direction the solver
    /// gave it, and what the impulses do against the free contact velocities g is kept
    /// while the energy they would create is not. No impulse (s = 0) when they are not
    /// finite or push along g. The fallback already preferred a candidate the guard
    /// accepts ([`Stepper::fall_back`]); holding the velocities instead would drop gravity
    /// and the joint torques of the step, dropping the contacts would let bodies fall
    /// through each other. Returns whether it refused them.
    fn guard(&mut self) -> bool {
        let n = self.problem.contacts();
        let (lambda, sigma) = (&mut self.result.lambda, &mut self.sigma[..3 * n]);
        if lambda.len() != 3 * n {
            return false;
        }
        let scale = if lambda.iter().all(|x| x.is_finite()) {
            let energy = Energy::of(&self.problem, lambda, sigma, &mut self.product);
            if energy.accepted() {
                return false;
            }
            energy.best_scale()
        } else {
            0.0
        };
        for x in lambda.iter_mut() {
            *x = if scale > 0.0 { *x * scale } else { 0.0 };
        }
        self.problem.contact_velocity_by_factor(&self.result.lambda, &mut self.result.sigma, &mut self.product);
        self.result.dual.copy_from_slice(&self.result.sigma);
        true
    }

    /// Stage 4, semi-implicit Euler: v⁺ = v_f + M⁻¹Jᵀλ (seed 000 eq. 22; M's factors of
    /// stage 1), then q⁺ = q ⊕ Δt·v⁺ for the robot and each free body, and the clock.
    /// With `split` islands, their impulses' velocity change is already in `v_split`.
    fn integrate(&mut self, world: &mut World, split: bool) {
        let dt = self.dt;
        let robot_nv = world.robot.as_ref().map_or(0, |r| r.model.nv);
        if split {
            self.v.copy_from_slice(&self.v_split);
        } else {
            self.v.copy_from_slice(&self.v_free);
            if self.problem.contacts() > 0 && self.result.lambda.iter().all(|x| x.is_finite()) {
                self.assembly.apply_impulses(&bodies(world), &self.result.lambda, &mut self.v);
            }
        }
        if let Some(r) = world.robot.as_mut() {
            r.v.copy_from_slice(&self.v[..robot_nv]);
            for (d, v) in self.displacement.iter_mut().zip(&r.v) {
                *d = v * dt;
            }
            dynamics::integrate(&r.model, &r.q, &self.displacement, &mut self.q_next);
            r.q.copy_from_slice(&self.q_next);
        }
        for b in 0..world.states.len() {
            if !world.body_active(b) {
                continue;
            }
            let state = &mut world.states[b];
            let at = robot_nv + 6 * b;
            let v = Motion::from_vector(&nalgebra::Vector6::from_column_slice(&self.v[at..at + 6]));
            state.integrate(&v, dt);
        }
        // From the count, not summed: /clock advances by exactly Δt however long it runs.
        world.steps += 1;
        world.time = world.steps as f64 * dt;
    }

    /// The outcome of the problem just solved, with the NCP criterion of its impulses
    /// whatever the solver solves: a CCP's lift-off and an LCP's anisotropy show there
    /// (the same yardstick for every solver, seed 002).
    fn outcome(&mut self, solved: Solved) -> Outcome {
        let Solved { polished, fallback, refused } = solved;
        let (n, dt, ncp) = (self.problem.contacts(), self.dt, ContactModel::Ncp);
        let metrics = if polished {
            Metrics::of_velocities(&self.problem, &self.result.lambda, &self.result.sigma, dt, ncp)
        } else if n > 0 {
            let sigma = &mut self.sigma[..3 * n];
            self.problem.contact_velocity_by_factor(&self.result.lambda, sigma, &mut self.product);
            Metrics::of_velocities(&self.problem, &self.result.lambda, sigma, dt, ncp)
        } else {
            Metrics::default()
        };
        Outcome {
            iterations: self.result.stats.iterations,
            converged: self.result.converged,
            polished,
            factorizations: if n > 0 { self.result.stats.factorizations } else { 0 },
            metrics,
            fallback,
            refused,
        }
    }

    /// The step's report from its solve's `outcome` (the islands' aggregated).
    fn record(&mut self, outcome: Outcome, split: bool, regenerated: usize, max_penetration: f64) {
        let blocks = self.contacts.len() + self.joints.len();
        self.report = StepReport {
            contacts: self.contacts.len(),
            contacts_dropped: self.contacts.overflowed(),
            islands: if split { self.islands.len() } else { usize::from(blocks > 0) },
            iterations: outcome.iterations,
            converged: outcome.converged,
            polished: outcome.polished,
            factorizations: outcome.factorizations,
            joint_limits: self.joints.iter().filter(|b| b.is_limit()).count(),
            joint_friction: self.joints.iter().filter(|b| b.has_friction()).count(),
            metrics: outcome.metrics,
            max_penetration,
            fallback: outcome.fallback,
            refused: outcome.refused,
            regenerated,
        };
    }
}

/// The energy terms of impulses λ for a problem ([`Stepper::guard`]): λᵀg and
/// λᵀ(G + R)λ, from σ = (G + R)λ + g.
#[derive(Copy, Clone, Debug)]
struct Energy {
    along_g: f64,
    quadratic: f64,
}

impl Energy {
    /// The terms of `lambda`, with `sigma` (3 n_c) scratch left holding σ (by G, else
    /// by W with `t` scratch of its columns).
    fn of(problem: &ContactProblem, lambda: &[f64], sigma: &mut [f64], t: &mut [f64]) -> Self {
        problem.contact_velocity_by_factor(lambda, sigma, t);
        Self::of_velocities(problem, lambda, sigma)
    }

    /// The terms of `lambda` whose σ is `sigma` (as [`Metrics::evaluate`] leaves it).
    fn of_velocities(problem: &ContactProblem, lambda: &[f64], sigma: &[f64]) -> Self {
        let along_g = crate::dynamics::dot(lambda, problem.g());
        let work = crate::dynamics::dot(lambda, sigma);
        Self { along_g, quadratic: work - along_g }
    }

    /// Whether f(λ) = ½λᵀ(G + R)λ + λᵀg ≤ 0: the impulses add no kinetic energy beyond
    /// the position bias's work (false when a term is NaN).
    fn accepted(&self) -> bool {
        0.5 * self.quadratic + self.along_g <= 0.0
    }

    /// The s in [0, 1] minimizing f(sλ): −λᵀg / λᵀ(G + R)λ, 0 when λ pushes along g or
    /// has no energy.
    fn best_scale(&self) -> f64 {
        if self.quadratic > 0.0 && self.along_g < 0.0 { (-self.along_g / self.quadratic).min(1.0) } else { 0.0 }
    }
}

/// The robot's dofs in `world` (0 without one).
fn robot_dofs(world: &World) -> usize {
    world.robot.as_ref().map_or(0, |r| r.model.nv)
}

/// The spans (world column, island column, length) of an island's velocities: the robot's
/// dofs if it is in it, then each of its free bodies' six (`list`, `column`: [`Subset`]).
fn island_spans<'a>(
    world: &World,
    robot: bool,
    list: &'a [usize],
    column: &'a [usize],
) -> impl Iterator<Item = (usize, usize, usize)> + 'a {
    let world_robot_nv = robot_dofs(world);
    let robot = robot.then_some((0, 0, world_robot_nv));
    robot.into_iter().chain(list.iter().map(move |&b| (world_robot_nv + 6 * b, column[b], 6)))
}

/// The bodies of an island of `world`: the robot if it is in it, and the free bodies
/// `list` with their columns `column` ([`Subset`]).
fn island_bodies<'a>(world: &'a World, robot: bool, list: &'a [usize], column: &'a [usize]) -> Bodies<'a> {
    let robot = world.robot.as_ref().filter(|_| robot).map(|r| (&*r.model, &r.data));
    Bodies { subset: Some(Subset { bodies: list, column }), ..Bodies::new(robot, &world.bodies, &world.states) }
}

/// The bodies of `world` contact impulses act on (the robot's Data as stage 1 left it).
fn bodies(world: &World) -> Bodies<'_> {
    Bodies::new(world.robot.as_ref().map(|r| (&*r.model, &r.data)), &world.bodies, &world.states)
}

/// Stage 2, the friction of the joints resting on a limit, which their limit's block holds
/// ([`joint_blocks`]'s "Both"): v_f += Δt (M + Δt D)⁻¹ τ_held, τ_held = −sign·F on each
/// such dof, by the factor stage 1 left in `data`. Nothing when no limit holds friction.
fn hold_friction(model: &Model, data: &Data, joints: &[JointBlock], dt: f64, held: &mut [f64], v_free: &mut [f64]) {
    let mut any = false;
    held.fill(0.0);
    for j in joints {
        let f = j.held_friction();
        if f != 0.0 && j.dof < held.len() {
            held[j.dof] += f;
            any = true;
        }
    }
    if !any {
        return;
    }
    dynamics::ltdl_solve(model, data, held);
    for (v, h) in v_free.iter_mut().zip(held.iter()) {
        *v += dt * h;
    }
}
