//! One control tick: kinematics, contacts (robot vs environment), a reference velocity
//! the stance contacts allow, inverse dynamics → joint torques and predicted contact
//! forces. [`Controller::tick`] reads as its stages:
//!
//! 1. select the stance: the contacts that can carry load, their rows assembled once into
//!    the inverse dynamics' problem (J and γ; g = J v₀ + γ at the PD's reference), and
//!    among them those that must not move;
//! 2. project the reference: the PD's v₀ moved to the nearest velocity that gives the
//!    stance contacts their targets (`stance`); a contact the projected
//!    reference closes joins the stance and 1–2 are redone;
//! 3. inverse dynamics, one call: the problem's g evaluated at the final v_ref
//!    (J v_ref + γ) with the stance targets, Algorithm 2, τ ([`InverseDynamics`]);
//! 4. limits: τ clamped to the effort limits, an answer out of its physical bounds
//!    refused.
//!
//! The reference acceleration is a PD with feed-forward on every dof, the floating base
//! included (its pose error the SE(3) difference, in the base frame):
//!
//! ```text
//! a* = a_des + kp (q_des ⊖ q) + kd (v_des − v),     v₀ = v + Δt a*
//! ```
//!
//! With feet on the ground v₀ generally moves them. The stance contacts (distance below
//! `stance_gap`) must not move other than as they measurably do, J_S v_ref = t_S, so the
//! reference is the nearest such velocity in the metric W = diag(1 on the base,
//! `joint_weight` on the joints):
//!
//! ```text
//! v_ref = v₀ + W⁻¹ J_Sᵀ μ,     (J_S W⁻¹ J_Sᵀ + εI) μ = t_S − J_S v₀
//! ```
//!
//! A small joint weight lets the joints absorb the constraint and the base follow its
//! reference (the legs of a standing quadruped follow its body).
//!
//! The stance target t of a touching contact (φ ≤ 0) is its measured velocity J v damped
//! at the rate `stance_damping` (t = (1 − α) J v, α = `stance_damping`·Δt), not the
//! simulator's Signorini bias: a real robot's feet are soft (they sink millimetres under
//! load) and its velocities noisy, and a reference that stopped every stance point within
//! the step and pushed a measured penetration out (−φ/Δt) would ask for impulses that the
//! soft ground answers by sinking further — a loop that diverges within milliseconds next
//! to MuJoCo's robot (issue 22). Against a rigid simulator a resting contact has J v ≈ 0
//! and φ ≈ 0, and the two agree. An open stance contact (φ > 0, within the gap or
//! promoted) closes its gap within the step (t_N = −φ/Δt, as the simulator's bias allows)
//! and keeps its measured tangential velocity damped. Inverse dynamics then sees the
//! stance contacts sticking (c = J v_ref − t = 0). The targets of one rigid body are
//! consistent (they come from one velocity v), so nearly redundant rows cannot blow the
//! projection up; for the same reason points of one link closer than `patch_radius` to a
//! deeper one are one contact (its deepest point): points a millimetre apart on one link
//! (a cylinder's rim points near its lowest one; a round foot's hull facet, which the
//! detection already makes one point) would, held all, pin the link's orientation, which
//! a point foot does not have.
//!
//! A stance contact the reference lifts leaves the stance (a foot taking a step): when
//! q_des puts its point more than `release_height` above where it is, both in the world
//! and relative to the floating base (first order: n·J (q_des ⊖ q), with and without the
//! base's part), it is left out of the problem and its leg follows the PD. Both, so that
//! a base reference alone (raise or tilt the body, legs at their posture) or legs that
//! follow the body (a crouch computed by inverse kinematics) keep the feet down.
//!
//! Which links are stance links is `control.stance_links` ([`Controller::stand_on`]; every
//! link by default). A touching contact of another link (a body or a knee on the ground
//! after a fall) is no stance contact: held still, it would hold the body where it lies
//! whatever the reference. It enters the stance only as a guard when the reference would
//! push it into the ground: its normal row alone holds (J_N v_ref = 0 touching, its gap
//! closed when open), its tangential rows are left out of the projection, and inverse
//! dynamics sees it as the contact problem's own (sliding, separating), so the legs can
//! raise the body off it.
//!
//! Only the contacts that can carry load enter the contact problem: the stance contacts
//! and those the reference closes within the step (φ + Δt·c_N < 0, at v₀, at v when the
//! contact has restitution, and at v_ref). The others separate (c_N > 0), where
//! Algorithm 2's impulse is zero whatever the reference. A contact that the projected
//! reference would close although v₀ did not joins the stance, and the projection is
//! redone, so that no contact of the problem is asked to meet a penetrating reference
//! (which a rigid contact could only meet with an unbounded impulse). Inverse dynamics
//! ([`super::inverse_dynamics`], with the floating base's least squares) then gives τ and
//! the impulses; τ is clamped to the effort limits. A tick whose predicted contact force
//! exceeds `max_contact_force` (a numerical blow-up, never a physical answer) is refused
//! ([`TickError::OutOfBounds`]). Nothing allocates after construction.

use thiserror::Error;

use crate::collision::{CollisionObject, CollisionWorld, Contact, ContactBuffer, Owner};
use crate::contact::{Bodies, Build, ProblemError, ProblemSettings};
use crate::dynamics;
use crate::model::{Data, Model};
use crate::spatial::{Motion, Vec3};

use super::inverse_dynamics::{InverseDynamics, InverseDynamicsSettings, check_inputs};
use super::stance::{StanceProjection, StanceTarget};
use crate::contact::row_velocity;

/// Rounds of contact selection and stance projection: each but the last promotes the
/// contacts the projected reference closes (most often none: one round).
const SELECTION_ROUNDS: usize = 4;

/// Whether contact `c` closes within a step `dt` (φ + Δt·c_N < 0) when the robot's bodies
/// move with `twists` ([`dynamics::world_velocities`]); robot–robot and robot–environment
/// contacts.
fn closes(c: &Contact, twists: &[Motion], dt: f64) -> bool {
    let body = |owner: Owner| match owner {
        Owner::Robot { joint } => twists[joint].velocity_at(&c.point),
        _ => Vec3::zeros(),
    };
    c.distance + dt * c.normal().dot(&(body(c.body1) - body(c.body2))) < 0.0
}

/// Whether contact `i` of `contacts` lies within `radius` of a deeper contact between the
/// same two objects (the deeper of two equally deep ones: the first), which stands for it.
fn in_deeper_patch(contacts: &[Contact], i: usize, radius: f64) -> bool {
    let c = &contacts[i];
    contacts.iter().enumerate().any(|(k, d)| {
        k != i
            && d.object1 == c.object1
            && d.object2 == c.object2
            && (d.distance < c.distance || (d.distance == c.distance && k < i))
            && (d.point - c.point).norm() < radius
    })
}

/// Gains and the stance projection's settings.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ControllerSettings {
    /// Joint stiffness (1/s²: the PD acts on accelerations).
    pub kp: f64,
    /// Joint damping (1/s).
    pub kd: f64,
    /// Base pose stiffness (1/s²).
    pub base_kp: f64,
    /// Base damping (1/s).
    pub base_kd: f64,
    /// W's weight of the joints against the base's 1.
    pub joint_weight: f64,
    /// Contacts closer than this (m) are stance contacts: a resting contact of the
    /// simulator sits at 0 (penetration recovery), the other points of a foot's hull a few
    /// 10 µm above.
    pub stance_gap: f64,
    /// The rate (1/s) at which the reference damps the measured velocity of a touching
    /// stance contact (α = this·Δt of it per step, at most 1: stopped within the step).
    pub stance_damping: f64,
    /// A contact point closer than this (m) to a deeper one of the same pair of objects is
    /// the same contact (a round foot's hull facet); only the deepest is solved.
    pub patch_radius: f64,
    /// A tick predicting a contact force larger than this (N) is refused; None: ten times
    /// the robot's weight.
    pub max_contact_force: Option<f64>,
    /// A stance contact that q_des puts more than this (m) above where it is, in the world
    /// and relative to the floating base, leaves the stance (∞: never).
    pub release_height: f64,
}

impl Default for ControllerSettings {
    fn default() -> Self {
        Self {
            kp: 400.0,
            kd: 40.0,
            base_kp: 400.0,
            base_kd: 40.0,
            joint_weight: 1e-3,
            stance_gap: 1e-6,
            stance_damping: 40.0,
            patch_radius: 5e-3,
            max_contact_force: None,
            release_height: 0.02,
        }
    }
}

/// Why a tick gives no torques.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum TickError {
    /// An input of the wrong size, not finite, or more contacts than the capacity.
    #[error(transparent)]
    Input(#[from] ProblemError),
    /// More contacts than the controller's capacity (`collision.max_contacts`): the ones
    /// dropped could carry load, so the predicted forces and torques would be wrong.
    #[error("{found} contacts found, more than collision.max_contacts = {capacity}")]
    ContactOverflow {
        /// Contacts detected.
        found: usize,
        /// The capacity.
        capacity: usize,
    },
    /// A torque that is not finite (no input makes one: hardening).
    #[error("the torque of dof {index} is not finite")]
    NotFinite {
        /// The dof.
        index: usize,
    },
    /// The answer is out of its physical bounds: a numerical blow-up (the safe output
    /// applies instead).
    #[error("{what} {index} is {value:.3e}, beyond the bound {bound:.3e}")]
    OutOfBounds {
        /// What is out of bounds.
        what: &'static str,
        /// Which one (a contact's index among [`Controller::contacts`]).
        index: usize,
        /// Its size.
        value: f64,
        /// The bound.
        bound: f64,
    },
}

/// A link named as one the robot stands on that is no robot link with collision shapes.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("`{0}` is no link of the robot with collision shapes")]
pub struct UnknownLink(pub String);

/// The bound of [`ControllerSettings::max_contact_force`] when none is set, in robot
/// weights.
const DEFAULT_FORCE_BOUND_WEIGHTS: f64 = 10.0;

/// The controller's workspace for one robot.
pub struct Controller {
    /// Gains and stance settings (fixed at construction: the gains and W are laid out per
    /// dof there).
    settings: ControllerSettings,
    id: InverseDynamics,
    data: Data,
    collision: CollisionWorld,
    /// Every contact detected this tick.
    detected: ContactBuffer,
    /// Those that can carry load: the contact problem's.
    contacts: ContactBuffer,
    /// Per detected contact: made a stance contact because the projected reference
    /// closes it.
    promoted: Vec<bool>,
    /// Per detected contact: in the stance of the last projection.
    in_stance: Vec<bool>,
    /// Per contact of the problem: its index among the detected ones.
    source: Vec<usize>,
    /// The bodies' world velocities under a reference (per joint).
    twists: Vec<Motion>,
    /// The same under the measured velocity.
    twists_measured: Vec<Motion>,
    /// The same under q_des ⊖ q as a velocity: the reference's displacement (first order).
    lift: Vec<Motion>,
    /// The stance contacts (indices into the tick's contacts).
    stance: Vec<usize>,
    /// Their targets, for inverse dynamics.
    targets: Vec<StanceTarget>,
    /// Per stance contact, t − J v₀: what the projection adds to its velocity.
    shortfall: Vec<Vec3>,
    projection: StanceProjection,
    /// W⁻¹'s diagonal.
    w_inv: Vec<f64>,
    error: Vec<f64>,
    /// The PD's reference velocity before the stance projection.
    v0: Vec<f64>,
    v_ref: Vec<f64>,
    tau: Vec<f64>,
    /// |τ_k| ≤ this: the joints' effort limits (∞ for the base and unlimited joints).
    effort_limit: Vec<f64>,
    /// The PD's gains per dof (the base's, then the joints').
    kp: Vec<f64>,
    kd: Vec<f64>,
    dt: f64,
    /// The bound on a predicted contact force (N).
    force_bound: f64,
    /// Per collision object: whether the robot stands on it (its touching contacts are
    /// stance contacts; [`Controller::stand_on`]). Static objects and, by default, every
    /// link: true.
    stands: Vec<bool>,
    /// Per stance contact: a guard (a link the robot does not stand on, which the
    /// reference would push into the ground): its normal row alone holds.
    guard: Vec<bool>,
}

impl Controller {
    /// A controller of `model` seeing `collision` (the robot's shapes and the environment),
    /// for up to `capacity` contacts of the contact problem `problem_settings` describes
    /// (the simulator's, to predict it).
    pub fn new(
        model: &Model,
        collision: CollisionWorld,
        capacity: usize,
        problem_settings: ProblemSettings,
        settings: ControllerSettings,
        id_settings: InverseDynamicsSettings,
    ) -> Self {
        let nv = model.nv;
        let base = if model.has_free_flyer() { 6 } else { 0 };
        // A value per dof: the floating base's, then the joints'.
        let per_dof =
            |on_base: f64, on_joints: f64| (0..nv).map(|k| if k < base { on_base } else { on_joints }).collect();
        let collision_objects = collision.objects().len();
        Self {
            settings,
            id: InverseDynamics::new(model, capacity, problem_settings, id_settings),
            data: Data::new(model),
            collision,
            detected: ContactBuffer::with_capacity(capacity),
            contacts: ContactBuffer::with_capacity(capacity),
            promoted: Vec::with_capacity(capacity),
            in_stance: Vec::with_capacity(capacity),
            source: Vec::with_capacity(capacity),
            twists: vec![Motion::default(); model.njoints()],
            twists_measured: vec![Motion::default(); model.njoints()],
            lift: vec![Motion::default(); model.njoints()],
            stance: Vec::with_capacity(capacity),
            targets: Vec::with_capacity(capacity),
            shortfall: Vec::with_capacity(capacity),
            projection: StanceProjection::with_capacity(capacity),
            w_inv: per_dof(1.0, settings.joint_weight.recip()),
            error: vec![0.0; nv],
            v0: vec![0.0; nv],
            v_ref: vec![0.0; nv],
            tau: vec![0.0; nv],
            effort_limit: (model.effort_limit.iter().enumerate())
                .map(|(k, &l)| if k >= base && l > 0.0 && l.is_finite() { l } else { f64::INFINITY })
                .collect(),
            kp: per_dof(settings.base_kp, settings.kp),
            kd: per_dof(settings.base_kd, settings.kd),
            dt: 0.0,
            force_bound: settings
                .max_contact_force
                .unwrap_or_else(|| DEFAULT_FORCE_BOUND_WEIGHTS * model.total_mass() * model.gravity.linear.norm()),
            stands: vec![true; collision_objects],
            guard: Vec::with_capacity(capacity),
        }
    }

    /// Makes the touching contacts of `links` alone stance contacts (the robot's feet). A
    /// touching contact of another link is left to separate; one the reference would push
    /// into the ground is a guard, whose normal row alone holds (see the module). Returns
    /// the first name that is no robot link with collision shapes (and then changes
    /// nothing).
    pub fn stand_on(&mut self, links: &[String]) -> Result<(), UnknownLink> {
        let objects = self.collision.objects();
        let robot_link = |o: &CollisionObject, link: &str| matches!(o.owner, Owner::Robot { .. }) && o.link == link;
        if let Some(unknown) = links.iter().find(|l| !objects.iter().any(|o| robot_link(o, l))) {
            return Err(UnknownLink(unknown.clone()));
        }
        for (stands, o) in self.stands.iter_mut().zip(objects) {
            *stands = !matches!(o.owner, Owner::Robot { .. }) || links.iter().any(|l| robot_link(o, l));
        }
        Ok(())
    }

    /// One tick at the measured (q, v) towards (q_des, v_des, a_des) (nq, nv, nv) over a
    /// step `dt`: τ (nv; a floating base's rows are the wrench it still lacks). Sizes, NaNs
    /// and a bad step are refused by name (see [`InverseDynamics::compute`]), and so is an
    /// answer out of its bounds (a predicted contact force beyond `max_contact_force`, a
    /// torque that is not finite).
    #[allow(clippy::too_many_arguments)]
    pub fn tick(
        &mut self,
        model: &Model,
        q: &[f64],
        v: &[f64],
        q_des: &[f64],
        v_des: &[f64],
        a_des: &[f64],
        dt: f64,
    ) -> Result<&[f64], TickError> {
        let nv = model.nv;
        check_inputs(
            dt,
            &[("q", q, model.nq), ("v", v, nv), ("q_des", q_des, model.nq), ("v_des", v_des, nv), ("a_des", a_des, nv)],
        )?;
        self.dt = dt;
        self.detect(model, q, v);
        if self.detected.overflowed() > 0 {
            let capacity = self.detected.capacity();
            return Err(TickError::ContactOverflow { found: capacity + self.detected.overflowed(), capacity });
        }
        self.pd_reference(model, q, v, q_des, v_des, a_des);
        for round in 1..=SELECTION_ROUNDS {
            self.select_stance(model, v)?;
            self.project_reference(nv, v);
            // The last round projects with every promotion made so far, and promotes no
            // more.
            if round == SELECTION_ROUNDS || !self.promote_closing(model) {
                break;
            }
        }
        // Inputs checked and kinematics done above; v_ref is finite from them.
        self.id.compute_placed(model, &mut self.data, q, v, &self.v_ref, &self.targets, dt);
        self.limit_torques()?;
        Ok(&self.tau)
    }

    /// Kinematics at q and the contacts detected there (the bodies' measured twists when
    /// a contact has restitution: its bias depends on them).
    fn detect(&mut self, model: &Model, q: &[f64], v: &[f64]) {
        dynamics::compute_joint_jacobians(model, &mut self.data, q);
        self.collision.update_robot(&self.data);
        self.collision.detect(&mut self.detected);
        for flags in [&mut self.promoted, &mut self.in_stance] {
            flags.clear();
            flags.resize(self.detected.len(), false);
        }
        if self.detected.contacts().iter().any(|c| c.restitution > 0.0) {
            dynamics::world_velocities(model, &self.data, v, &mut self.twists_measured);
        }
    }

    /// The PD's reference v₀ = v + Δt (a_des + kp (q_des ⊖ q) + kd (v_des − v)), and the
    /// bodies' displacement under q_des ⊖ q (which feet the reference lifts).
    fn pd_reference(&mut self, model: &Model, q: &[f64], v: &[f64], q_des: &[f64], v_des: &[f64], a_des: &[f64]) {
        dynamics::difference(model, q, q_des, &mut self.error);
        for k in 0..model.nv {
            let (kp, kd) = (self.kp[k], self.kd[k]);
            self.v0[k] = v[k] + self.dt * (a_des[k] + kp * self.error[k] + kd * (v_des[k] - v[k]));
        }
        if self.settings.release_height.is_finite() {
            dynamics::world_velocities(model, &self.data, &self.error, &mut self.lift);
        }
    }

    /// The contacts that can carry load ([`Controller::select_contacts`]), their rows and
    /// g = J v₀ + γ, and among them the stance: those within the stance gap, promoted,
    /// and those v₀ would close within the step (c_N < 0: a touch-down, which a rigid
    /// contact could only meet with an unbounded impulse).
    fn select_stance(&mut self, model: &Model, v: &[f64]) -> Result<(), ProblemError> {
        self.select_contacts(model);
        let bodies = Bodies::new(Some((model, &self.data)), &[], &[]);
        let contacts = self.contacts.contacts();
        let (rows, at_v0, settings) = self.id.rows_mut();
        rows.assemble(&bodies, contacts, &[], v, &self.v0, self.dt, settings, at_v0, Build::Rows)?;
        self.stance.clear();
        self.guard.clear();
        self.in_stance.fill(false);
        let g = at_v0.g();
        for (i, c) in contacts.iter().enumerate() {
            let d = self.source[i];
            let stands = self.stands[c.object1] && self.stands[c.object2];
            let touching = c.distance <= self.settings.stance_gap && stands;
            if touching || g[3 * i + 2] < 0.0 || self.promoted[d] {
                self.stance.push(i);
                self.guard.push(!stands);
                self.in_stance[d] = true;
            }
        }
        Ok(())
    }

    /// The stance contacts' targets t (see the module: a touching contact's measured
    /// velocity damped, an open one's tangential velocity damped and its gap closed) and
    /// v_ref = v₀ + W⁻¹ J_Sᵀ μ meeting them ([`StanceProjection`]).
    fn project_reference(&mut self, nv: usize, v: &[f64]) {
        self.v_ref.copy_from_slice(&self.v0);
        self.targets.clear();
        self.shortfall.clear();
        let damped = 1.0 - (self.settings.stance_damping * self.dt).min(1.0);
        let (rows, at_v0) = self.id.rows();
        let (j, g) = (rows.jacobian(), at_v0.g());
        for (&i, &guard) in self.stance.iter().zip(&self.guard) {
            let support = at_v0.factor_support(i);
            let velocity = |r: usize, x: &[f64]| row_velocity(j, nv, support, 3 * i + r, x);
            let touching = self.contacts.contacts()[i].distance <= 0.0;
            let target = match guard {
                // Slides freely (c_T = J_T v_ref, the problem's own) and stops sinking.
                true => StanceTarget { contact: i, tangential: [0.0; 2], normal: touching.then_some(0.0) },
                false => StanceTarget {
                    contact: i,
                    tangential: [damped * velocity(0, v), damped * velocity(1, v)],
                    normal: touching.then(|| damped * velocity(2, v)),
                },
            };
            // J_T v₀ is the tangential rows' g (their bias is zero); an open contact's
            // normal row closes its gap, t_N − J_N v₀ = −g_N. A guard's tangential rows
            // are out of the projection.
            let normal = target.normal.map_or(-g[3 * i + 2], |t| t - velocity(2, &self.v0));
            let tangential = match guard {
                true => [0.0; 2],
                false => [target.tangential[0] - g[3 * i], target.tangential[1] - g[3 * i + 1]],
            };
            self.shortfall.push(Vec3::new(tangential[0], tangential[1], normal));
            self.targets.push(target);
        }
        if !self.stance.is_empty() {
            let (stance, guard, shortfall) = (&self.stance, &self.guard, &self.shortfall);
            self.projection.project(at_v0, j, nv, stance, guard, shortfall, &self.w_inv, &mut self.v_ref);
        }
    }

    /// τ clamped to the effort limits, and the answer refused when no physical contact
    /// gives it: a predicted contact force beyond the bound (or not finite), a torque that
    /// is not finite.
    fn limit_torques(&mut self) -> Result<(), TickError> {
        for ((t, &x), &limit) in self.tau.iter_mut().zip(self.id.torques()).zip(&self.effort_limit) {
            *t = x.clamp(-limit, limit);
        }
        let lambda = self.id.impulses();
        for i in 0..self.contacts.len() {
            let l = &lambda[3 * i..3 * i + 3];
            let force = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt() / self.dt;
            if force.is_nan() || force > self.force_bound {
                return Err(TickError::OutOfBounds {
                    what: "predicted force of contact",
                    index: i,
                    value: force,
                    bound: self.force_bound,
                });
            }
        }
        match self.tau.iter().position(|t| !t.is_finite()) {
            Some(index) => Err(TickError::NotFinite { index }),
            None => Ok(()),
        }
    }

    /// Fills `contacts` with the detected contacts that can carry load: within the stance
    /// gap, promoted, or closed within the step at v₀ (or at the measured velocity, for a
    /// contact with restitution: the problem's bias then depends on it).
    fn select_contacts(&mut self, model: &Model) {
        self.contacts.clear();
        self.source.clear();
        dynamics::world_velocities(model, &self.data, &self.v0, &mut self.twists);
        let detected = self.detected.contacts();
        for (i, (c, &promoted)) in detected.iter().zip(&self.promoted).enumerate() {
            let can_carry = c.distance <= self.settings.stance_gap
                || promoted
                || closes(c, &self.twists, self.dt)
                || (c.restitution > 0.0 && closes(c, &self.twists_measured, self.dt));
            if can_carry && !in_deeper_patch(detected, i, self.settings.patch_radius) && !self.lifted(model, c) {
                self.contacts.push(*c);
                self.source.push(i);
            }
        }
    }

    /// Whether q_des lifts the robot's point of contact `c` beyond the release height, in
    /// the world and relative to a floating base (see the module).
    fn lifted(&self, model: &Model, c: &Contact) -> bool {
        let (Owner::Robot { joint }, Owner::Static | Owner::Free { .. }) = (c.body1, c.body2) else { return false };
        if !self.settings.release_height.is_finite() || joint == 0 {
            return false;
        }
        let height = |twist: &Motion| c.normal().dot(&twist.velocity_at(&c.point));
        let world = height(&self.lift[joint]);
        let base = if model.has_free_flyer() { height(&self.lift[1]) } else { 0.0 };
        world.min(world - base) > self.settings.release_height
    }

    /// Promotes to the stance every detected contact outside it that v_ref closes within
    /// the step; returns whether there was one (the selection and the projection are then
    /// redone).
    fn promote_closing(&mut self, model: &Model) -> bool {
        let mut any = false;
        dynamics::world_velocities(model, &self.data, &self.v_ref, &mut self.twists);
        for ((c, promoted), &in_stance) in
            self.detected.contacts().iter().zip(self.promoted.iter_mut()).zip(&self.in_stance)
        {
            if !in_stance && closes(c, &self.twists, self.dt) {
                *promoted = true;
                any = true;
            }
        }
        any
    }

    /// The gains and stance settings it was built with.
    pub fn settings(&self) -> &ControllerSettings {
        &self.settings
    }

    /// The torques of the last tick (nv).
    pub fn torques(&self) -> &[f64] {
        &self.tau
    }

    /// The contacts of the last tick that could carry load (in stance, or closing within
    /// the step), in the order of [`Controller::predicted_force`] and of the inverse
    /// dynamics' impulses; the other detected contacts separate and carry nothing.
    pub fn contacts(&self) -> &[Contact] {
        self.contacts.contacts()
    }

    /// Every contact detected at the last tick.
    pub fn detected(&self) -> &[Contact] {
        self.detected.contacts()
    }

    /// The force the environment applies to the robot at contact `i` of the last tick,
    /// as inverse dynamics predicts it (world frame, N).
    pub fn predicted_force(&self, i: usize) -> Vec3 {
        let l = &self.id.impulses()[3 * i..3 * i + 3];
        self.contacts.contacts()[i].frame * Vec3::new(l[0], l[1], l[2]) / self.dt
    }

    /// The inverse dynamics of the last tick (impulses, base residual, the solve).
    pub fn inverse_dynamics(&self) -> &InverseDynamics {
        &self.id
    }

    /// The contact detection it runs (its objects give the contacts' links).
    pub fn collision(&self) -> &CollisionWorld {
        &self.collision
    }

    /// The step of the last tick (s).
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Kinematics at the last tick's configuration (placements, joint Jacobians).
    pub fn data(&self) -> &Data {
        &self.data
    }

    /// The reference velocity the last tick realized (nv).
    pub fn reference_velocity(&self) -> &[f64] {
        &self.v_ref
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::ContactId;
    use crate::spatial::Mat3;

    /// A link's points within `patch_radius` of a deeper one of the same object pair are
    /// one contact, the deepest (a facet of a round foot's hull, when the detection keeps
    /// several: cylinders' rim points, which it keeps for exact primitives); points farther
    /// apart, or of another pair, stand for themselves.
    #[test]
    fn points_near_a_deeper_one_of_the_same_pair_are_that_contact() {
        let at = |object1: usize, x: f64, distance: f64, feature: u32| Contact {
            object1,
            object2: 9,
            body1: Owner::Robot { joint: 1 },
            body2: Owner::Static,
            point: Vec3::new(x, 0.0, 0.0),
            frame: Mat3::identity(),
            distance,
            friction: 1.0,
            restitution: 0.0,
            id: ContactId::new(object1, 9, feature, 0),
        };
        let contacts = [
            at(0, 0.0, -1e-3, 0),
            at(0, 1e-3, -2e-3, 1),
            at(0, 2e-3, -2e-3, 2),
            at(0, 0.05, -1e-3, 3),
            at(1, 1e-3, -1e-3, 4),
        ];
        let kept: Vec<usize> = (0..contacts.len()).filter(|&i| !in_deeper_patch(&contacts, i, 5e-3)).collect();
        // 1 stands for 0 and for 2 (as deep, later); 3 is 5 cm away; 4 is another pair's.
        assert_eq!(kept, [1, 3, 4]);
        assert_eq!((0..contacts.len()).filter(|&i| !in_deeper_patch(&contacts, i, 0.0)).count(), 5);
    }
}
