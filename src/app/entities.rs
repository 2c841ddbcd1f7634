//! The simulation's entities as the standard simulator API sees them (simulation_interfaces
//! 1.x: `srv/GetEntities.srv`, `srv/GetEntityState.srv`, `srv/GetEntitiesStates.srv`,
//! `srv/SetEntityState.srv`, `msg/EntityState.msg`, `msg/EntityCategory.msg`), without ROS.
//!
//! - **Names and categories** ([`Entities`]): the robot under its URDF name
//!   (`CATEGORY_ROBOT`; its state is its root link's), each of its links as
//!   `<robot>/<link>` (`CATEGORY_ROBOT`), each free body under its name
//!   (`CATEGORY_OBJECT`), each shape of the environment under its name (`ground`, the
//!   obstacles: `CATEGORY_STATIC_OBJECT`).
//! - **States** ([`EntityView`]): from the loop's latest [`EntitySnapshot`] (the state after
//!   a step, or after a reset or a SetEntityState), in `world`: the pose, the twist and the
//!   acceleration of the entity's frame origin, both in world axes (ROS's
//!   `LOCAL_WORLD_ALIGNED`: the linear velocity of the origin, the angular velocity; the
//!   classical linear acceleration of the origin, the angular acceleration, as Pinocchio's
//!   `getFrameClassicalAcceleration`). The acceleration is the last step's: Δv/Δt of the
//!   semi-implicit Euler step (seed 000 eq. 22), so a body in free fall reads exactly g; it
//!   is zero after a reset or a SetEntityState. Links are computed off the loop by forward
//!   kinematics of second order at the snapshot's (q, v, a).
//! - **Setting** ([`check_set`]): a free body, or the robot's floating base (the robot or
//!   its root link), is teleported with the requested twist; its joints keep their
//!   positions and velocities. A link other than the root follows its joints, the
//!   environment is fixed, a fixed-base robot cannot be moved: each is refused, naming why.

use super::name_filter::NameFilter;
use super::sim_requests::Refusal;
use std::sync::Arc;

use crate::collision::{CollisionObject, CollisionShape, FreeBodyShape, Owner};
use crate::dynamics;
use crate::model::joint::{quaternion_to_rotation, rotation_to_quaternion};
use crate::model::{Data, FrameKind, JointType, Model};
use crate::spatial::{Motion, SE3, Vec3};

use super::entity_exchange::EntitySnapshot;
use super::robots::RobotView;
use super::spawning::Spawns;

/// `msg/EntityCategory.msg`'s categories signorini has.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Category {
    /// `CATEGORY_OBJECT` (0): a free body.
    Object = 0,
    /// `CATEGORY_ROBOT` (1): the robot and its links.
    Robot = 1,
    /// `CATEGORY_STATIC_OBJECT` (5): the ground and the obstacles of `environment`.
    Static = 5,
}

/// What an entity is in the world.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum EntityKind {
    /// A robot (its root link's state).
    Robot {
        /// The root link's frame.
        frame: usize,
        /// Its floating base's joint, if it has one.
        base: Option<usize>,
    },
    /// A link of a robot.
    Link {
        /// Its frame (a `FrameKind::Body` frame of the model).
        frame: usize,
        /// The robot's floating base's joint when this link is its root link (moved with
        /// it).
        base: Option<usize>,
    },
    /// A free body.
    Body {
        /// Its index in the world's bodies.
        slot: usize,
    },
    /// A shape of the environment, at its fixed pose.
    Static {
        /// World pose.
        pose: SE3,
    },
}

/// A named entity.
#[derive(Clone, Debug)]
pub struct Entity {
    /// Unique name.
    pub name: String,
    /// Category.
    pub category: Category,
    /// What it is.
    pub kind: EntityKind,
    /// Its collision shapes (for the bounds filter), placed in their owner's frame.
    pub shapes: Vec<EntityShape>,
}

/// A collision shape of an entity.
#[derive(Clone, Debug)]
pub struct EntityShape {
    /// Who moves it.
    pub owner: Owner,
    /// Its placement in the owner's frame (joint, body or world).
    pub placement: SE3,
    /// The shape.
    pub shape: Arc<CollisionShape>,
}

impl From<&CollisionObject> for EntityShape {
    fn from(o: &CollisionObject) -> Self {
        Self { owner: o.owner, placement: o.placement, shape: o.shape.clone() }
    }
}

/// A sphere of the bounds filter (`msg/Bounds.msg` TYPE_SPHERE: the centre, then the
/// radius in the second point's x), in `world`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Sphere {
    /// Centre (m).
    pub centre: [f64; 3],
    /// Radius (m).
    pub radius: f64,
}

/// What GetEntities and GetEntitiesStates filter by (`msg/EntityFilters.msg`).
#[derive(Clone, Debug, Default)]
pub struct EntityQuery<'a> {
    /// POSIX extended regular expression on the names; empty: every name.
    pub filter: &'a str,
    /// `EntityCategory` codes, any of which matches; empty: every category.
    pub categories: Vec<u8>,
    /// Tags: signorini's entities have none, so a tag filter is unsupported.
    pub tags: &'a [String],
    /// `Bounds.type`: `TYPE_EMPTY` (0) or `TYPE_SPHERE` (3); box and convex hull are not
    /// supported.
    pub bounds_type: u8,
    /// `Bounds.points`.
    pub bounds_points: Vec<[f64; 3]>,
}

/// `Bounds.TYPE_SPHERE`.
pub const BOUNDS_SPHERE: u8 = 3;

/// The entities of a world, fixed at start-up.
#[derive(Clone, Default)]
pub struct Entities {
    entities: Vec<Entity>,
    /// The spawned bodies' table and the world index of its first slot.
    spawns: Option<(Arc<Spawns>, usize)>,
}

impl Entities {
    /// The entities of a world holding `model`'s robot (if any; several robots when
    /// `robots` has their views: [`super::robots`]), free bodies named `bodies` (in the
    /// world's order) and the static shapes among `objects`.
    pub fn new(model: Option<&Model>, robots: &[RobotView], bodies: &[String], objects: &[CollisionObject]) -> Self {
        let mut entities = Vec::new();
        if let Some(m) = model {
            match robots {
                [] => robot_entities(m, &m.name, "", &m.name, objects, &mut entities),
                views => {
                    for r in views {
                        let prefix = format!("{}/", r.namespace);
                        robot_entities(m, &r.namespace, &prefix, "", objects, &mut entities);
                    }
                }
            }
        }
        for (slot, name) in bodies.iter().enumerate() {
            entities.push(Entity {
                name: name.clone(),
                category: Category::Object,
                kind: EntityKind::Body { slot },
                shapes: objects
                    .iter()
                    .filter(|o| o.owner == Owner::Free { body: slot })
                    .map(EntityShape::from)
                    .collect(),
            });
        }
        for o in objects.iter().filter(|o| o.owner == Owner::Static) {
            entities.push(Entity {
                name: o.name.clone(),
                category: Category::Static,
                kind: EntityKind::Static { pose: o.pose },
                shapes: vec![EntityShape::from(o)],
            });
        }
        Self { entities, spawns: None }
    }

    /// Also the bodies spawned while running (`spawns`; `first`: the world index of its
    /// first slot), CATEGORY_OBJECT, after the fixed entities.
    pub fn with_spawns(mut self, spawns: Arc<Spawns>, first: usize) -> Self {
        self.spawns = Some((spawns, first));
        self
    }

    /// The bodies spawned now, as entities.
    fn spawned(&self) -> Vec<Entity> {
        let Some((spawns, first)) = &self.spawns else { return Vec::new() };
        let entity = |(name, slot, shape): (String, usize, FreeBodyShape)| {
            let body = first + slot;
            let shapes =
                vec![EntityShape { owner: Owner::Free { body }, placement: shape.placement, shape: shape.shape }];
            Entity { name, category: Category::Object, kind: EntityKind::Body { slot: body }, shapes }
        };
        spawns.entries().into_iter().map(entity).collect()
    }

    /// Every entity fixed at start-up, in order (robots, links, bodies, statics).
    pub fn all(&self) -> &[Entity] {
        &self.entities
    }

    /// The entity named `name` (fixed or spawned); RESULT_NOT_FOUND otherwise.
    pub fn get(&self, name: &str) -> Result<Entity, Refusal> {
        match self.entities.iter().find(|e| e.name == name) {
            Some(e) => Ok(e.clone()),
            None => self.spawned().into_iter().find(|e| e.name == name).ok_or_else(|| {
                Refusal::NotFound(format!("no entity named {name:?} (GetEntities lists them: {})", self.sample()))
            }),
        }
    }

    /// The entities `query` selects, in order; a malformed expression is
    /// RESULT_OPERATION_FAILED, tags and bounds RESULT_FEATURE_UNSUPPORTED.
    pub fn select(&self, query: &EntityQuery) -> Result<Vec<Entity>, Refusal> {
        if !query.tags.is_empty() {
            return Err(Refusal::FeatureUnsupported(format!(
                "tag filters are not supported (ENTITY_TAGS is not a feature: signorini's entities have no tags); got {:?}",
                query.tags
            )));
        }
        query.sphere()?;
        let filter = match query.filter {
            "" => None,
            pattern => Some(NameFilter::new(pattern).map_err(Refusal::OperationFailed)?),
        };
        let category = |e: &Entity| query.categories.is_empty() || query.categories.contains(&(e.category as u8));
        let name = |e: &Entity| filter.as_ref().is_none_or(|f| f.matches(&e.name));
        let spawned = self.spawned();
        Ok(self.entities.iter().chain(&spawned).filter(|e| category(e) && name(e)).cloned().collect())
    }

    /// The entities `query` selects that overlap its sphere, if it has one (their shapes
    /// at the `snapshot`'s state, computed by `view`); all of them otherwise.
    pub fn select_at(
        &self,
        query: &EntityQuery,
        view: &mut EntityView,
        snapshot: &EntitySnapshot,
    ) -> Result<Vec<Entity>, Refusal> {
        let selected = self.select(query)?;
        let Some(sphere) = query.sphere()? else { return Ok(selected) };
        Ok(selected.into_iter().filter(|e| view.overlaps(e, snapshot, &sphere)).collect())
    }

    /// A few names, for an error message.
    fn sample(&self) -> String {
        let names: Vec<&str> = self.entities.iter().take(4).map(|e| e.name.as_str()).collect();
        let more = if self.entities.len() > names.len() { ", …" } else { "" };
        format!("{}{more}", names.join(", "))
    }
}

/// The entities of the robot whose link frames are named `<prefix><link>` (all of the
/// model's when `prefix` is empty): the robot as `name`, its root link's state, and each
/// link as `<link_prefix>/<frame name>` (`<robot>/<link>` for a single robot; the frame
/// name, already `<namespace>/<link>`, for one of several).
fn robot_entities(
    m: &Model,
    name: &str,
    prefix: &str,
    link_prefix: &str,
    objects: &[CollisionObject],
    entities: &mut Vec<Entity>,
) {
    let links: Vec<usize> = (0..m.frames.len())
        .filter(|&k| m.frames[k].kind == FrameKind::Body && m.frames[k].name.starts_with(prefix))
        .collect();
    let Some(&root) = links.first() else { return };
    let mine = |o: &CollisionObject| matches!(o.owner, Owner::Robot { .. }) && o.link.starts_with(prefix);
    // A free flyer carrying the root link directly from the universe: the floating base.
    let joint = m.frames[root].parent_joint;
    let base = (joint > 0 && m.parents[joint] == 0 && m.joint_types[joint] == JointType::FreeFlyer).then_some(joint);
    entities.push(Entity {
        name: name.to_owned(),
        category: Category::Robot,
        kind: EntityKind::Robot { frame: root, base },
        shapes: objects.iter().filter(|o| mine(o)).map(EntityShape::from).collect(),
    });
    for &frame in &links {
        let link = &m.frames[frame].name;
        entities.push(Entity {
            name: if link_prefix.is_empty() { link.clone() } else { format!("{link_prefix}/{link}") },
            category: Category::Robot,
            kind: EntityKind::Link { frame, base: if frame == root { base } else { None } },
            shapes: objects.iter().filter(|o| mine(o) && o.link == *link).map(EntityShape::from).collect(),
        });
    }
}

impl EntityQuery<'_> {
    /// The bounds' sphere: None for TYPE_EMPTY; box and convex hull
    /// RESULT_FEATURE_UNSUPPORTED; a sphere without its two points, or with a non-finite
    /// centre or a negative or non-finite radius, RESULT_OPERATION_FAILED.
    pub fn sphere(&self) -> Result<Option<Sphere>, Refusal> {
        match self.bounds_type {
            0 => Ok(None),
            BOUNDS_SPHERE => match self.bounds_points.as_slice() {
                [centre, [radius, ..], ..]
                    if centre.iter().all(|c| c.is_finite()) && radius.is_finite() && *radius >= 0.0 =>
                {
                    Ok(Some(Sphere { centre: *centre, radius: *radius }))
                }
                points => Err(Refusal::OperationFailed(format!(
                    "bounds TYPE_SPHERE needs two points, a finite centre and a radius >= 0 in the second's x; got {points:?}"
                ))),
            },
            other => Err(Refusal::FeatureUnsupported(format!(
                "bounds of type {other} are not supported (ENTITY_BOUNDS_BOX and ENTITY_BOUNDS_CONVEX are not \
                 features); use TYPE_EMPTY (0) or TYPE_SPHERE (3)"
            ))),
        }
    }
}

/// An entity's state in `world` (`msg/EntityState.msg`): the frame origin's pose, twist and
/// acceleration, in world axes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct EntityState {
    /// Simulated time of the state (ns).
    pub time_ns: u64,
    /// Position (m).
    pub position: [f64; 3],
    /// Orientation, quaternion x, y, z, w.
    pub orientation: [f64; 4],
    /// Linear velocity of the origin (m/s).
    pub linear: [f64; 3],
    /// Angular velocity (rad/s).
    pub angular: [f64; 3],
    /// Classical linear acceleration of the origin (m/s²).
    pub linear_acceleration: [f64; 3],
    /// Angular acceleration (rad/s²).
    pub angular_acceleration: [f64; 3],
}

impl EntityState {
    /// The state of a frame at `pose` moving with `v` and accelerating with `a`, both
    /// spatial in the frame's own coordinates: world axes, the classical acceleration of
    /// the origin aᶜ = R (a_lin + ω × v_lin).
    fn of_frame(time_ns: u64, pose: &SE3, v: &Motion, a: &Motion) -> Self {
        let r = &pose.rotation;
        let classical = a.linear + v.angular.cross(&v.linear);
        Self {
            time_ns,
            position: pose.translation.into(),
            orientation: rotation_to_quaternion(r),
            linear: (r * v.linear).into(),
            angular: (r * v.angular).into(),
            linear_acceleration: (r * classical).into(),
            angular_acceleration: (r * a.angular).into(),
        }
    }
}

/// Computes entity states from snapshots, off the loop (its own Data).
pub struct EntityView {
    robot: Option<(Model, Data)>,
    /// The (q, v, a) the robot's Data holds the kinematics of: a query over many entities
    /// of one snapshot runs forward kinematics once.
    placed: Option<(Vec<f64>, Vec<f64>, Vec<f64>)>,
}

impl EntityView {
    /// A view of a world holding `model`'s robot (if any).
    pub fn new(model: Option<&Model>) -> Self {
        Self { robot: model.map(|m| (m.clone(), Data::new(m))), placed: None }
    }

    /// Forward kinematics of second order at the snapshot's (q, v, a) unless the Data
    /// already holds them; false without a robot or with sizes not the model's.
    fn place(&mut self, snapshot: &EntitySnapshot) -> bool {
        let Some((model, data)) = self.robot.as_mut() else { return false };
        let (q, v, a) = (&snapshot.q, &snapshot.v, &snapshot.a);
        if q.len() != model.nq || v.len() != model.nv || a.len() != model.nv {
            return false;
        }
        if self.placed.as_ref().is_none_or(|(pq, pv, pa)| pq != q || pv != v || pa != a) {
            dynamics::forward_kinematics_acceleration(model, data, q, v, a);
            self.placed = Some((q.clone(), v.clone(), a.clone()));
        }
        true
    }

    /// The state of `entity` in `snapshot`.
    pub fn state(&mut self, entity: &Entity, snapshot: &EntitySnapshot) -> EntityState {
        let t = snapshot.time_ns;
        match entity.kind {
            EntityKind::Static { pose } => EntityState::of_frame(t, &pose, &Motion::ZERO, &Motion::ZERO),
            EntityKind::Body { slot } => match snapshot.bodies.get(slot) {
                Some(b) => EntityState::of_frame(t, &b.state.pose, &b.state.velocity, &b.acceleration),
                None => EntityState { time_ns: t, ..Default::default() },
            },
            EntityKind::Robot { frame, .. } | EntityKind::Link { frame, .. } => self.frame_state(frame, snapshot),
        }
    }

    /// Whether one of `entity`'s shapes, at the `snapshot`'s state, overlaps `sphere`.
    pub fn overlaps(&mut self, entity: &Entity, snapshot: &EntitySnapshot, sphere: &Sphere) -> bool {
        let robot = entity.shapes.iter().any(|o| matches!(o.owner, Owner::Robot { .. }));
        if robot && !self.place(snapshot) {
            return false;
        }
        let centre = Vec3::from(sphere.centre);
        entity.shapes.iter().any(|o| {
            let owner = match o.owner {
                Owner::Robot { joint } => match self.robot.as_ref() {
                    Some((_, data)) if joint > 0 => data.o_m_i[joint],
                    _ => SE3::IDENTITY,
                },
                Owner::Free { body } => snapshot.bodies.get(body).map_or(SE3::IDENTITY, |b| b.state.pose),
                Owner::Static => SE3::IDENTITY,
            };
            o.shape.overlaps_ball(&owner.compose(&o.placement), &centre, sphere.radius)
        })
    }

    /// A robot frame's state by forward kinematics of second order at the snapshot's
    /// (q, v, a). The floating base's pose is q's own numbers (the quaternion as
    /// /odom carries it, not converted twice).
    fn frame_state(&mut self, frame: usize, snapshot: &EntitySnapshot) -> EntityState {
        if !self.place(snapshot) {
            return EntityState { time_ns: snapshot.time_ns, ..Default::default() };
        }
        let Some((model, data)) = self.robot.as_mut() else { return EntityState::default() };
        let q = &snapshot.q;
        let pose = dynamics::update_frame_placement(model, data, frame);
        let f = &model.frames[frame];
        let (vf, af) =
            (f.placement.act_inv_motion(&data.v[f.parent_joint]), f.placement.act_inv_motion(&data.a[f.parent_joint]));
        let mut state = EntityState::of_frame(snapshot.time_ns, &pose, &vf, &af);
        let j = f.parent_joint;
        if j > 0
            && model.parents[j] == 0
            && model.joint_types[j] == JointType::FreeFlyer
            && f.placement == SE3::IDENTITY
        {
            let at = model.idx_q[j];
            state.position = [q[at], q[at + 1], q[at + 2]];
            state.orientation = [q[at + 3], q[at + 4], q[at + 5], q[at + 6]];
        }
        state
    }
}

/// What a SetEntityState asks, in `world` (`msg/EntityState.msg` with the header's frame).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct RequestedState<'a> {
    /// The header's frame: empty or `world`.
    pub frame: &'a str,
    /// Position (m).
    pub position: [f64; 3],
    /// Orientation, quaternion x, y, z, w.
    pub orientation: [f64; 4],
    /// Linear velocity of the origin, world axes (m/s).
    pub linear: [f64; 3],
    /// Angular velocity, world axes (rad/s).
    pub angular: [f64; 3],
}

/// What a SetEntityState moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SetTarget {
    /// A robot's floating base: its free-flyer joint.
    Base(usize),
    /// A free body.
    Body(usize),
}

/// A checked SetEntityState for the loop: the new pose and the velocity in the entity's
/// own coordinates (the free flyer's and the free bodies' convention).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EntityCommand {
    /// What moves.
    pub target: SetTarget,
    /// world_from_entity.
    pub pose: SE3,
    /// Velocity in the entity's frame.
    pub velocity: Motion,
}

impl Default for EntityCommand {
    fn default() -> Self {
        Self { target: SetTarget::Body(usize::MAX), pose: SE3::IDENTITY, velocity: Motion::ZERO }
    }
}

/// How far from 1 a requested quaternion's norm may be (it is then normalized).
pub const QUATERNION_TOLERANCE: f64 = 1e-3;

/// Checks a SetEntityState of `entity`: the
/// frame (empty or `world`), a finite position and a unit quaternion (INVALID_POSE
/// otherwise, SetEntityState.srv's 101), a finite twist, and an entity that can be moved.
/// The acceleration of the request is ignored (the .srv allows it).
pub fn check_set(entity: &Entity, request: &RequestedState) -> Result<EntityCommand, Refusal> {
    let target = match entity.kind {
        EntityKind::Body { slot } => SetTarget::Body(slot),
        EntityKind::Robot { base: Some(joint), .. } | EntityKind::Link { base: Some(joint), .. } => {
            SetTarget::Base(joint)
        }
        EntityKind::Robot { .. } => {
            return Err(Refusal::OperationFailed(format!("{}: a fixed-base robot cannot be moved", entity.name)));
        }
        EntityKind::Link { .. } => {
            return Err(Refusal::OperationFailed(format!(
                "{}: a link follows its joints; set the robot's floating base (the robot entity) instead",
                entity.name
            )));
        }
        EntityKind::Static { .. } => {
            return Err(Refusal::OperationFailed(format!(
                "{}: the environment's static shapes are fixed in signorini",
                entity.name
            )));
        }
    };
    if !(request.frame.is_empty() || request.frame == "world") {
        return Err(Refusal::FeatureUnsupported(format!(
            "header.frame_id {:?}: only `world` (or empty) is supported",
            request.frame
        )));
    }
    let [x, y, z, w] = request.orientation;
    let norm = (x * x + y * y + z * z + w * w).sqrt();
    if !request.position.iter().all(|p| p.is_finite()) || !norm.is_finite() {
        return Err(Refusal::InvalidPose(format!(
            "pose of {}: position {:?} and orientation {:?} must be finite",
            entity.name, request.position, request.orientation
        )));
    }
    if (norm - 1.0).abs() > QUATERNION_TOLERANCE {
        return Err(Refusal::InvalidPose(format!(
            "pose of {}: orientation {:?} is not a unit quaternion (norm {norm})",
            entity.name, request.orientation
        )));
    }
    if !request.linear.iter().chain(&request.angular).all(|v| v.is_finite()) {
        return Err(Refusal::OperationFailed(format!(
            "twist of {}: linear {:?} and angular {:?} must be finite",
            entity.name, request.linear, request.angular
        )));
    }
    let rotation = quaternion_to_rotation(x / norm, y / norm, z / norm, w / norm);
    let pose = SE3::new(rotation, Vec3::from(request.position));
    let rt = rotation.transpose();
    let velocity = Motion { linear: rt * Vec3::from(request.linear), angular: rt * Vec3::from(request.angular) };
    Ok(EntityCommand { target, pose, velocity })
}
