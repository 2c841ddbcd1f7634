//! What is simulated: at most one robot (its Model, Data and state; several robots are one
//! model of several trees, [`crate::model::Model::append`]), free rigid bodies with their
//! shapes, and the static environment, all in one collision world.

use crate::collision::{CollisionError, CollisionSettings, CollisionWorld, Environment, FreeBodyShape};
use crate::dynamics;
use crate::model::{Data, FreeBody, FreeBodyState, Model, ModelError, ModelOptions};
use crate::spatial::{Force, Motion, SE3, Vec3};
use std::sync::Arc;

/// A robot in the world: its model, buffers and state (q: nq, v: nv, Pinocchio's
/// conventions).
pub struct Robot {
    /// The model (immutable; shared by the worlds of a batch, each world's own copy made
    /// on write by [`Arc::make_mut`] when one world's parameters are changed).
    pub model: Arc<Model>,
    /// Its buffers.
    pub data: Data,
    /// Configuration.
    pub q: Vec<f64>,
    /// Velocity.
    pub v: Vec<f64>,
    /// External wrench on each joint's body (pushes, drags): world axes, torque about the
    /// joint's origin (the convention of the contact wrenches); kept until changed.
    pub wrenches: Vec<Force>,
}

impl Robot {
    /// `model` (owned, or shared with other worlds) at `q` (nq values) and rest.
    pub fn new(model: impl Into<Arc<Model>>, q: Vec<f64>) -> Self {
        let model = model.into();
        assert_eq!(q.len(), model.nq, "q has {} values, the model nq = {}", q.len(), model.nq);
        let data = Data::new(&model);
        let v = vec![0.0; model.nv];
        let wrenches = vec![Force::ZERO; model.njoints()];
        Self { model, data, q, v, wrenches }
    }
}

/// Everything the stepper moves.
pub struct World {
    /// The robot, if any.
    pub robot: Option<Robot>,
    /// Free bodies' inertial models.
    pub bodies: Vec<FreeBody>,
    /// Their states.
    pub states: Vec<FreeBodyState>,
    /// External wrench on each free body, in the world frame at the body's origin
    /// (pushes, drags); kept until changed.
    pub wrenches: Vec<Force>,
    /// Gravity on the free bodies (world, m/s²); the robot uses its model's gravity.
    pub gravity: Vec3,
    /// Shapes and contact detection.
    pub collision: CollisionWorld,
    /// Simulated time (s): `steps`·Δt.
    pub time: f64,
    /// Steps taken.
    pub steps: u64,
    /// The free-body slots kept for bodies spawned while running (none unless
    /// [`World::add_spawn_slots`]).
    pub spawn_slots: SpawnSlots,
}

/// Free-body slots for bodies spawned while the simulation runs: the last bodies of
/// [`World::bodies`], from `first` on, each empty (not detected, not integrated, no
/// contact) or holding a spawned body.
#[derive(Clone, Debug, Default)]
pub struct SpawnSlots {
    /// The body index of the first slot.
    pub first: usize,
    /// Per slot, the id of the body it holds (None: empty).
    pub occupant: Vec<Option<u64>>,
}

/// A world that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum WorldError {
    /// The robot's shapes or the environment.
    #[error(transparent)]
    Collision(#[from] CollisionError),
    /// The placeholder model of a world without robot.
    #[error(transparent)]
    Model(#[from] ModelError),
}

impl World {
    /// A world with `robot` (or none) in `environment`.
    pub fn new(
        robot: Option<Robot>,
        environment: &Environment,
        collision: &CollisionSettings,
    ) -> Result<Self, WorldError> {
        let collision = match &robot {
            Some(r) => CollisionWorld::new(&r.model, environment, collision)?,
            None => {
                let empty = Model::from_urdf_xml(
                    "<robot name='none'><link name='world'/></robot>",
                    "none",
                    &ModelOptions::default(),
                )?;
                CollisionWorld::new(&empty, environment, collision)?
            }
        };
        let gravity = Model::default_gravity().linear;
        Ok(Self {
            robot,
            bodies: Vec::new(),
            states: Vec::new(),
            wrenches: Vec::new(),
            gravity,
            collision,
            time: 0.0,
            steps: 0,
            spawn_slots: SpawnSlots::default(),
        })
    }

    /// Adds a free body with its shapes (in its frame) at `state`; returns its index.
    pub fn add_body(&mut self, body: FreeBody, shapes: &[FreeBodyShape], state: FreeBodyState) -> usize {
        let index = self.collision.add_free_body(shapes);
        debug_assert_eq!(index, self.bodies.len());
        self.collision.set_free_body_pose(index, &state.pose);
        self.bodies.push(body);
        self.states.push(state);
        self.wrenches.push(Force::ZERO);
        index
    }

    /// The collision world's free-body shapes moved to the bodies' poses in `states`.
    pub fn place_free_bodies(&mut self) {
        for (b, state) in self.states.iter().enumerate() {
            self.collision.set_free_body_pose(b, &state.pose);
        }
    }

    /// Adds `count` empty slots for spawned bodies after the bodies added so far (at
    /// start-up, so that the stepper is sized for them): each holds `placeholder` and
    /// its `shape` until filled ([`World::fill_spawn_slot`]).
    pub fn add_spawn_slots(&mut self, count: usize, placeholder: &FreeBody, shape: &FreeBodyShape) {
        self.spawn_slots = SpawnSlots { first: self.bodies.len(), occupant: vec![None; count] };
        for _ in 0..count {
            let b =
                self.add_body(placeholder.clone(), std::slice::from_ref(shape), FreeBodyState::at_rest(SE3::IDENTITY));
            self.collision.set_free_body_active(b, false);
        }
    }

    /// How many bodies of [`World::bodies`] come before the spawn slots (all without
    /// slots).
    pub fn configured_bodies(&self) -> usize {
        if self.spawn_slots.occupant.is_empty() { self.bodies.len() } else { self.spawn_slots.first }
    }

    /// Whether free body `b` takes part in the simulation: a configured body, or a slot
    /// holding a spawned body.
    pub fn body_active(&self, b: usize) -> bool {
        let slots = &self.spawn_slots;
        b < self.configured_bodies() || slots.occupant.get(b - slots.first).is_some_and(|o| o.is_some())
    }

    /// Puts the spawned `body` (id `id`, shape `shape`) into spawn slot `slot` at `state`,
    /// by swapping: `body` and `shape` then hold what the slot held (to be dropped off the
    /// loop). Allocates nothing. False (nothing done) for a slot that does not exist.
    pub fn fill_spawn_slot(
        &mut self,
        slot: usize,
        id: u64,
        body: &mut FreeBody,
        shape: &mut FreeBodyShape,
        state: FreeBodyState,
    ) -> bool {
        let b = self.spawn_slots.first + slot;
        if slot >= self.spawn_slots.occupant.len() {
            return false;
        }
        std::mem::swap(&mut self.bodies[b], body);
        self.collision.swap_free_body_shape(b, shape);
        self.states[b] = state;
        self.wrenches[b] = Force::ZERO;
        self.collision.set_free_body_pose(b, &state.pose);
        self.collision.set_free_body_active(b, true);
        self.spawn_slots.occupant[slot] = Some(id);
        true
    }

    /// Empties spawn slot `slot`: its body leaves detection and integration (its model
    /// stays until the slot is filled again).
    pub fn empty_spawn_slot(&mut self, slot: usize) {
        let b = self.spawn_slots.first + slot;
        if let Some(occupant) = self.spawn_slots.occupant.get_mut(slot) {
            *occupant = None;
            self.collision.set_free_body_active(b, false);
            self.states[b].velocity = Motion::ZERO;
            self.wrenches[b] = Force::ZERO;
        }
    }

    /// Lowers (or raises) each floating base along z until the lowest collision shape of
    /// its robot touches the height `ground`; nothing for a fixed base or a robot without
    /// shapes.
    pub fn place_robot_on(&mut self, ground: f64) {
        let roots: Vec<usize> = self.robot.as_ref().map_or(Vec::new(), |r| r.model.floating_roots().collect());
        for root in roots {
            self.place_base_on(root, ground);
        }
    }

    /// Lowers (or raises) the floating base of joint `root` (a free flyer child of the
    /// universe) along z until the lowest collision shape it moves touches `ground`.
    pub fn place_base_on(&mut self, root: usize, ground: f64) {
        let Some(r) = self.robot.as_mut() else { return };
        dynamics::forward_kinematics(&r.model, &mut r.data, &r.q);
        if let Some(lowest) = self.collision.lowest_point_under(&r.model, &r.data, root) {
            r.q[r.model.idx_q[root] + 2] += ground - lowest;
            dynamics::forward_kinematics(&r.model, &mut r.data, &r.q);
            self.collision.update_robot(&r.data);
        }
    }

    /// Whether the robot's and the free bodies' states are all finite numbers.
    pub fn is_finite(&self) -> bool {
        self.robot.as_ref().is_none_or(|r| r.q.iter().chain(&r.v).all(|x| x.is_finite()))
            && self.states.iter().all(|b| {
                let (pose, velocity) = (&b.pose, &b.velocity);
                pose.translation.iter().chain(pose.rotation.iter()).all(|x| x.is_finite())
                    && velocity.linear.iter().chain(velocity.angular.iter()).all(|x| x.is_finite())
            })
    }

    /// Simulated time in nanoseconds (exact for a step of whole nanoseconds: computed from
    /// the step count, not summed).
    pub fn time_ns(&self) -> u64 {
        (self.time * 1e9).round() as u64
    }

    /// Degrees of freedom: the robot's nv, then 6 per free body.
    pub fn nv(&self) -> usize {
        self.robot.as_ref().map_or(0, |r| r.model.nv) + 6 * self.bodies.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::CollisionShape;
    use crate::spatial::Vec3;

    /// Without spawn slots every body is active; with them, the configured bodies and the
    /// filled slots only.
    #[test]
    fn configured_bodies_are_active_with_or_without_spawn_slots() {
        let mut world = World::new(None, &Environment::default(), &CollisionSettings::default()).unwrap();
        let half = Vec3::new(0.1, 0.1, 0.1);
        let shape = FreeBodyShape {
            name: "box".into(),
            shape: std::sync::Arc::new(CollisionShape::cuboid(half)),
            placement: SE3::IDENTITY,
            friction: 1.0,
            restitution: 0.0,
        };
        let body = FreeBody::cuboid("box", 1.0, &half).unwrap();
        world.add_body(body.clone(), std::slice::from_ref(&shape), FreeBodyState::at_rest(SE3::IDENTITY));
        assert!(world.body_active(0), "no slots: the configured body moves");
        world.add_spawn_slots(2, &body, &shape);
        assert!(world.body_active(0) && !world.body_active(1) && !world.body_active(2));
    }
}
