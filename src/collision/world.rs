//! The collision world: every shape of the robot, of the free bodies and of the static
//! environment, and contact detection between them into a preallocated buffer.
//!
//! Pairs tested: robot–environment always; robot–free body, free–free, free–environment
//! always; shapes of two different robots of a model of several
//! ([`crate::model::Model::append`]) always; shapes of one robot only with self-collision
//! on, never for shapes moved by the same joint or by a joint and its parent, nor for
//! disabled link pairs. Broad phase: a static
//! AABB tree for the environment, sweep-and-prune (insertion-sorted along x, nearly
//! linear with temporal coherence) among moving shapes, and a direct box–plane test for
//! half-spaces. Narrow phase: [`super::half_space`] for half-spaces, parry's contact
//! manifolds for the other convex pairs and triangle meshes.

use std::collections::HashMap;
use std::path::PathBuf;

use std::sync::Arc;

use super::bvh::Bvh;
use super::contact::{Contact, ContactBuffer, ContactId, Owner, combine_friction, contact_frame};
use super::environment::{CollisionSettings, Environment, ObstacleGeometry};
use super::half_space::{self, PlanePoint, PlaneScratch};
use super::parry_adapter::PairWorkspace;
use super::shape::{CollisionShape, MeshError, ShapeKind, load_mesh};
use crate::model::{Data, Model, Shape, Srdf};
use crate::spatial::{Mat3, SE3, Vec3};

/// One shape in the world.
#[derive(Clone, Debug)]
pub struct CollisionObject {
    /// Name: the robot link's geometry name (`link_k`), a free body's or an environment
    /// object's name.
    pub name: String,
    /// The URDF link (robot shapes) or the name again.
    pub link: String,
    /// Who moves it.
    pub owner: Owner,
    /// A robot shape's robot in a model of several (0 otherwise, and for other shapes).
    pub robot: usize,
    /// Placement of the shape in its owner's frame (joint frame, body frame or world).
    pub placement: SE3,
    /// The shape (meshes shared between objects that use the same file and scale).
    pub shape: Arc<CollisionShape>,
    /// Coulomb friction coefficient (∞: unspecified, defer to the other body).
    pub friction: f64,
    /// Restitution coefficient.
    pub restitution: f64,
    /// World pose at the last update (a robot shape's only while it is not
    /// [`CollisionObject::far`]).
    pub pose: SE3,
    aabb: (Vec3, Vec3),
    /// A sphere holding the shape, in its owner's frame: (centre, radius).
    bound: (Vec3, f64),
    /// Left out of the last update: a robot shape that can touch nothing (see
    /// [`CollisionWorld::update_robot`]).
    far: bool,
    /// Taking part in detection (false: an empty spawn slot's shape).
    active: bool,
}

impl CollisionObject {
    /// Whether the shape is fixed to the world (a link of a fixed-base robot's root): the
    /// static environment can neither move it nor be moved by it, so no contact is made
    /// between them (such a contact has no mobility: a zero row of G, which leaves the
    /// PGS solvers dividing by zero). Free bodies still collide with it.
    fn fixed_to_world(&self) -> bool {
        matches!(self.owner, Owner::Robot { joint: 0 })
    }

    fn new(name: &str, link: &str, owner: Owner, placement: SE3, shape: Arc<CollisionShape>) -> Self {
        let (centre, radius) = shape.bounding_sphere();
        Self {
            name: name.to_owned(),
            link: link.to_owned(),
            owner,
            robot: 0,
            placement,
            shape,
            friction: f64::INFINITY,
            restitution: 0.0,
            pose: placement,
            aabb: (Vec3::zeros(), Vec3::zeros()),
            bound: (placement.act_point(&centre), radius),
            far: false,
            active: true,
        }
    }

    /// The radius around its deepest point within which a patch of this object is that one
    /// point ([`half_space::point_patch`] of its shape and bounding radius).
    pub fn point_patch(&self) -> f64 {
        half_space::point_patch(&self.shape.kind, self.bound.1)
    }

    /// Whether the last [`CollisionWorld::update_robot`] left this robot shape out (and its
    /// pose as it was): it is farther than the margin from everything it can touch.
    pub fn far(&self) -> bool {
        self.far
    }

    /// Whether the object takes part in detection (an empty spawn slot's does not).
    pub fn active(&self) -> bool {
        self.active
    }

    /// The pose of a robot shape at the joint placements of `data`.
    fn robot_pose(&self, data: &Data) -> SE3 {
        match self.owner {
            Owner::Robot { joint } if joint > 0 => {
                let joint = &data.o_m_i[joint];
                if self.placement.rotation == Mat3::identity() {
                    // Most collision origins only translate (URDF rpy 0): the product
                    // without its rotation part (the same numbers).
                    SE3::new(joint.rotation, joint.act_point(&self.placement.translation))
                } else {
                    joint.compose(&self.placement)
                }
            }
            _ => self.placement,
        }
    }
}

/// Why a collision world cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum CollisionError {
    /// A mesh.
    #[error("{owner}: {source}")]
    Mesh {
        /// Whose: "link `name`" or the configuration key.
        owner: String,
        /// What is wrong with its mesh.
        source: MeshError,
    },
    /// The SRDF.
    #[error("{file}: {reason}")]
    Srdf {
        /// The file.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// A key of the configuration.
    #[error("key `{key}`: {message}")]
    Config {
        /// The key.
        key: String,
        /// Expected and found.
        message: String,
    },
}

/// A free rigid body's shape (the simulator owns its dynamics).
#[derive(Clone, Debug)]
pub struct FreeBodyShape {
    /// Name.
    pub name: String,
    /// The shape.
    pub shape: Arc<CollisionShape>,
    /// Placement in the body frame.
    pub placement: SE3,
    /// Friction coefficient.
    pub friction: f64,
    /// Restitution.
    pub restitution: f64,
}

/// Every shape and the state detection keeps between steps.
pub struct CollisionWorld {
    objects: Vec<CollisionObject>,
    /// Static half-spaces: (object, world normal, offset h of n·x = h, contact frame).
    planes: Vec<(usize, Vec3, f64, Mat3)>,
    /// Static non-plane objects and their tree (indices into `statics`).
    statics: Vec<usize>,
    static_tree: Bvh,
    /// Robot and free-body objects, kept sorted by their box's lower x (sweep and prune).
    moving: Vec<usize>,
    /// The same in index order: the half-space and static-tree passes go through them so,
    /// so that a shape's contacts come in an order the other moving shapes do not change
    /// (the sweep reorders `moving`; a robot far from another then has its contacts,
    /// hence its island's problem, in the order it has alone).
    by_index: Vec<usize>,
    /// Robot objects, and for each pair of them whether they may collide.
    robot_objects: Vec<usize>,
    self_pairs: Vec<bool>,
    margin: f64,
    self_collision: bool,
    /// The robot objects belong to more than one robot: they are swept against each other.
    several_robots: bool,
    self_friction: f64,
    workspace: PairWorkspace,
    plane_points: [PlanePoint; 4],
    plane_scratch: PlaneScratch,
    /// What the step found below a half-space at its end ([`CollisionWorld::force_below`]),
    /// for the detections until [`CollisionWorld::clear_forced`].
    forced: Vec<Forced>,
    /// Per object and plane, the hull vertex that was deepest last step.
    plane_hints: Vec<u32>,
    /// Per object, the hull vertex that was deepest under the last mesh face it met.
    mesh_hints: Vec<u32>,
    /// Free-body objects taking part in detection.
    active_free: usize,
    /// Per free body, its objects (a body's are added together: a range of `objects`);
    /// its length is the number of free bodies.
    free_objects: Vec<std::ops::Range<usize>>,
}

/// The most features [`CollisionWorld::force_below`] adds over a step.
pub const FORCED_CAPACITY: usize = 64;

/// A feature of a moving object that a step ended below a half-space with, not having
/// held it: detection holds it against that half-space whatever the reduction chooses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Forced {
    object: usize,
    /// The plane's number in `planes`.
    plane: usize,
    feature: u32,
}
/// The order of a pair in a contact: the robot first, then free bodies, then the
/// environment; by index among equals.
fn rank(o: &Owner) -> u8 {
    match o {
        Owner::Robot { .. } => 0,
        Owner::Free { .. } => 1,
        Owner::Static => 2,
    }
}

/// Shapes of the same mesh file and scale are loaded once.
type MeshCache = HashMap<(PathBuf, [u64; 3]), Arc<CollisionShape>>;

fn robot_shape(shape: &Shape, link: &str, cache: &mut MeshCache) -> Result<Arc<CollisionShape>, CollisionError> {
    Ok(match shape {
        Shape::Box { size } => Arc::new(CollisionShape::cuboid(size * 0.5)),
        Shape::Sphere { radius } => Arc::new(CollisionShape::sphere(*radius)),
        Shape::Cylinder { radius, length } => Arc::new(CollisionShape::cylinder(*radius, length * 0.5)),
        Shape::Capsule { radius, length } => Arc::new(CollisionShape::capsule(*radius, length * 0.5)),
        Shape::Mesh { file, scale } => {
            let key = (file.clone(), [scale.x.to_bits(), scale.y.to_bits(), scale.z.to_bits()]);
            if let Some(s) = cache.get(&key) {
                return Ok(s.clone());
            }
            let err = |source| CollisionError::Mesh { owner: format!("link `{link}`"), source };
            let (vertices, _) = load_mesh(file, scale).map_err(err)?;
            let hull = Arc::new(CollisionShape::convex_hull(&vertices, &file.display().to_string()).map_err(err)?);
            cache.insert(key, hull.clone());
            hull
        }
    })
}

/// The robot's collision geometries as objects (meshes as convex hulls, shared through
/// `cache`), with `friction` (infinite: the other body's applies).
fn robot_objects(model: &Model, friction: f64, cache: &mut MeshCache) -> Result<Vec<CollisionObject>, CollisionError> {
    let mut objects = Vec::with_capacity(model.collision_geometries.len());
    for g in &model.collision_geometries {
        let shape = robot_shape(&g.shape, &g.link, cache)?;
        let owner = Owner::Robot { joint: g.parent_joint };
        let object = CollisionObject::new(&g.name, &g.link, owner, g.placement, shape);
        objects.push(CollisionObject { friction, robot: g.robot, ..object });
    }
    Ok(objects)
}

/// Gives the shapes of each link of `link_friction` that link's friction; a link the
/// model does not have is an error naming its key.
fn override_link_friction(
    model: &Model,
    link_friction: &[(String, f64)],
    objects: &mut [CollisionObject],
) -> Result<(), CollisionError> {
    for (link, friction) in link_friction {
        let mut found = model.frame_id(link, None).is_some();
        for o in objects.iter_mut().filter(|o| &o.link == link) {
            o.friction = *friction;
            found = true;
        }
        if !found {
            return Err(CollisionError::Config {
                key: format!("collision.link_friction.{link}"),
                message: format!("expected a link of the robot, got `{link}`"),
            });
        }
    }
    Ok(())
}

/// The environment's ground and obstacles, appended to `objects` in order.
fn static_objects(environment: &Environment, objects: &mut Vec<CollisionObject>) -> Result<(), CollisionError> {
    let mut add = |name: &str, shape: CollisionShape, pose: SE3, friction: f64, restitution: f64| {
        objects.push(CollisionObject {
            friction,
            restitution,
            ..CollisionObject::new(name, name, Owner::Static, pose, Arc::new(shape))
        });
    };
    if let Some(g) = &environment.ground {
        let norm = g.normal.norm();
        if norm.is_nan() || norm <= 1e-9 {
            return Err(CollisionError::Config {
                key: "environment.ground.normal".into(),
                message: format!("expected a nonzero vector, got {:?}", [g.normal.x, g.normal.y, g.normal.z]),
            });
        }
        let pose = plane_pose(&(g.normal / norm), g.height);
        add("ground", CollisionShape::half_space(), pose, g.friction, g.restitution);
    }
    for o in &environment.obstacles {
        let shape = match &o.geometry {
            ObstacleGeometry::Cuboid { half } => CollisionShape::cuboid(*half),
            ObstacleGeometry::Mesh { file, scale, convex } => {
                let origin = file.display().to_string();
                let err = |source| CollisionError::Mesh { owner: o.origin.clone(), source };
                let (vertices, triangles) = load_mesh(file, scale).map_err(err)?;
                match convex {
                    true => CollisionShape::convex_hull(&vertices, &origin).map_err(err)?,
                    false => CollisionShape::trimesh(vertices, triangles, &origin).map_err(err)?,
                }
            }
        };
        add(&o.name, shape, o.pose, o.friction, o.restitution);
    }
    Ok(())
}

/// Which pairs of the robot's objects (`robot`, indices into `objects`) are tested for
/// self-collision: none without `settings.self_collision`; otherwise all but those of one
/// joint, of a joint and its parent, and the disabled link pairs (`disable_pairs`, whose
/// links must exist, and the SRDF's).
fn self_pairs(
    model: &Model,
    settings: &CollisionSettings,
    objects: &[CollisionObject],
    robot: &[usize],
) -> Result<Vec<bool>, CollisionError> {
    let mut disabled = settings.disable_pairs.clone();
    if let Some(srdf) = &settings.srdf {
        let srdf = Srdf::from_file(srdf).map_err(|e| CollisionError::Srdf { file: e.file, reason: e.reason })?;
        disabled.extend(srdf.disabled_collisions);
    }
    let links: std::collections::HashSet<&str> = robot.iter().map(|&i| objects[i].link.as_str()).collect();
    for (k, pair) in settings.disable_pairs.iter().enumerate() {
        for (side, link) in pair.iter().enumerate() {
            if !links.contains(link.as_str()) && model.frame_id(link, None).is_none() {
                return Err(CollisionError::Config {
                    key: format!("collision.disable_pairs[{k}][{side}]"),
                    message: format!("expected a link of the robot, got `{link}`"),
                });
            }
        }
    }
    let nr = robot.len();
    let mut pairs = vec![false; nr * nr];
    if !settings.self_collision {
        return Ok(pairs);
    }
    for a in 0..nr {
        for b in 0..nr {
            let (oa, ob) = (&objects[robot[a]], &objects[robot[b]]);
            let (Owner::Robot { joint: ja }, Owner::Robot { joint: jb }) = (oa.owner, ob.owner) else { continue };
            let adjacent = ja == jb || model.parents[ja] == jb || model.parents[jb] == ja;
            let off =
                disabled.iter().any(|[x, y]| (x == &oa.link && y == &ob.link) || (x == &ob.link && y == &oa.link));
            pairs[a * nr + b] = !adjacent && !off;
        }
    }
    Ok(pairs)
}

impl CollisionWorld {
    /// The robot's collision shapes (meshes as convex hulls), `environment`'s static
    /// objects, and the self-collision pairs `settings` leave on.
    pub fn new(model: &Model, environment: &Environment, settings: &CollisionSettings) -> Result<Self, CollisionError> {
        let mut cache = MeshCache::new();
        let mut objects = robot_objects(model, settings.robot_friction, &mut cache)?;
        override_link_friction(model, &settings.link_friction, &mut objects)?;
        static_objects(environment, &mut objects)?;
        let robot_objects: Vec<usize> =
            (0..objects.len()).filter(|&i| matches!(objects[i].owner, Owner::Robot { .. })).collect();
        let self_pairs = self_pairs(model, settings, &objects, &robot_objects)?;
        let mut world = CollisionWorld {
            planes: Vec::new(),
            statics: Vec::new(),
            static_tree: Bvh::default(),
            moving: robot_objects.clone(),
            by_index: robot_objects.clone(),
            robot_objects,
            self_pairs,
            margin: settings.margin,
            self_collision: settings.self_collision,
            several_robots: model.collision_geometries.iter().any(|g| g.robot > 0),
            self_friction: settings.self_friction,
            workspace: PairWorkspace::default(),
            plane_points: [PlanePoint::default(); 4],
            plane_scratch: PlaneScratch::default(),
            forced: Vec::with_capacity(FORCED_CAPACITY),
            plane_hints: Vec::new(),
            mesh_hints: Vec::new(),
            active_free: 0,
            free_objects: Vec::new(),
            objects,
        };
        world.index_statics();
        Ok(world)
    }

    fn index_statics(&mut self) {
        self.planes.clear();
        self.statics.clear();
        for (i, o) in self.objects.iter_mut().enumerate() {
            if o.owner != Owner::Static {
                continue;
            }
            if matches!(o.shape.kind, ShapeKind::HalfSpace) {
                let n = o.pose.rotation.column(2).into_owned();
                self.planes.push((i, n, n.dot(&o.pose.translation), contact_frame(&n)));
            } else {
                o.aabb = o.shape.world_aabb(&o.pose, 0.0);
                self.statics.push(i);
            }
        }
        let boxes: Vec<(Vec3, Vec3)> = self.statics.iter().map(|&i| self.objects[i].aabb).collect();
        self.static_tree = Bvh::build(&boxes);
        self.size_scratch();
    }

    /// Sizes the plane queries' scratch memory for the current objects (start-up only).
    fn size_scratch(&mut self) {
        let largest = self.objects.iter().map(|o| o.shape.vertex_count()).max().unwrap_or(16);
        self.plane_scratch = PlaneScratch::with_capacity(largest);
        self.plane_hints = vec![0; self.objects.len() * self.planes.len().max(1)];
        self.mesh_hints = vec![0; self.objects.len()];
    }

    /// Adds a free rigid body's shapes (at start-up); returns the body's index.
    pub fn add_free_body(&mut self, shapes: &[FreeBodyShape]) -> usize {
        let body = self.free_objects.len();
        self.free_objects.push(self.objects.len()..self.objects.len() + shapes.len());
        for s in shapes {
            self.active_free += 1;
            self.moving.push(self.objects.len());
            self.by_index.push(self.objects.len());
            self.objects.push(CollisionObject {
                friction: s.friction,
                restitution: s.restitution,
                ..CollisionObject::new(&s.name, &s.name, Owner::Free { body }, s.placement, s.shape.clone())
            });
        }
        self.size_scratch();
        body
    }

    /// Takes free body `body`'s shapes out of detection (false) or back (true): an empty
    /// spawn slot. Allocates nothing.
    pub fn set_free_body_active(&mut self, body: usize, active: bool) {
        for i in self.free_objects.get(body).cloned().unwrap_or_default() {
            let o = &mut self.objects[i];
            if o.active != active {
                o.active = active;
                if active {
                    self.active_free += 1;
                } else {
                    self.active_free -= 1;
                }
            }
        }
    }

    /// Swaps free body `body`'s (first) shape, its placement, material and name with
    /// `shape`'s, which then holds the old ones (to be dropped off the loop). Allocates
    /// nothing.
    pub fn swap_free_body_shape(&mut self, body: usize, shape: &mut FreeBodyShape) {
        let planes = self.planes.len().max(1);
        let Some(i) = self.free_objects.get(body).filter(|r| !r.is_empty()).map(|r| r.start) else { return };
        let o = &mut self.objects[i];
        std::mem::swap(&mut o.shape, &mut shape.shape);
        std::mem::swap(&mut o.name, &mut shape.name);
        std::mem::swap(&mut o.placement, &mut shape.placement);
        std::mem::swap(&mut o.friction, &mut shape.friction);
        std::mem::swap(&mut o.restitution, &mut shape.restitution);
        let (centre, radius) = o.shape.bounding_sphere();
        o.bound = (o.placement.act_point(&centre), radius);
        self.plane_hints[i * planes..(i + 1) * planes].fill(0);
        self.mesh_hints[i] = 0;
    }

    /// Gives every shape (robot, free bodies, environment) and the robot's self-contacts
    /// the Coulomb coefficient `mu`: every contact pair's friction is then `mu`
    /// ([`combine_friction`]), as MuJoCo's `geom_friction` set on every geom (domain
    /// randomization). Allocates nothing.
    pub fn set_friction(&mut self, mu: f64) {
        for o in &mut self.objects {
            o.friction = mu;
        }
        self.self_friction = mu;
    }

    /// Every object.
    pub fn objects(&self) -> &[CollisionObject] {
        &self.objects
    }

    /// Moves the robot's shapes to the joint placements of `data` (after forward
    /// kinematics).
    ///
    /// Where the robot can only meet half-spaces (no other static shape, no free body, no
    /// self-collision), a shape whose bounding sphere is farther than the margin from every
    /// half-space can touch nothing: it is marked [`CollisionObject::far`], not placed, and
    /// [`CollisionWorld::detect`] skips it (a standing robot's body and upper legs).
    pub fn update_robot(&mut self, data: &Data) {
        self.cull_and_place(data, true);
    }

    /// [`CollisionWorld::update_robot`] for shapes [`CollisionWorld::place_robot`] already
    /// placed at the joint placements of `data`: only the far ones marked.
    pub fn cull_placed_robot(&mut self, data: &Data) {
        self.cull_and_place(data, false);
    }

    fn cull_and_place(&mut self, data: &Data, place: bool) {
        let cull = self.statics.is_empty() && !self.sweeps();
        for &i in &self.robot_objects {
            let o = &mut self.objects[i];
            let Owner::Robot { joint } = o.owner else { continue };
            o.far = cull && {
                let (centre, radius) = o.bound;
                let centre = data.o_m_i[joint].act_point(&centre);
                self.planes.iter().all(|(_, n, h, _)| n.dot(&centre) - h - radius >= self.margin)
            };
            if place && !o.far {
                o.pose = o.robot_pose(data);
            }
        }
    }

    /// Whether detection sweeps the moving shapes against each other: there are free
    /// bodies, several robots, or self-collision is on.
    fn sweeps(&self) -> bool {
        self.self_collision || self.several_robots || self.active_free > 0
    }

    /// The lowest z of the robot's shapes at the joint placements of `data`: a convex
    /// shape's support point along −z (exact: a round foot's lowest point, not its box's),
    /// a shape without one (a triangle mesh) by its world box; None without shapes.
    pub fn robot_lowest_point(&self, data: &Data) -> Option<f64> {
        self.lowest_point_where(data, |_| true)
    }

    /// [`CollisionWorld::robot_lowest_point`] of the shapes moved by the subtree of joint
    /// `root` of `model` (one robot of a model of several).
    pub fn lowest_point_under(&self, model: &Model, data: &Data, root: usize) -> Option<f64> {
        self.lowest_point_where(data, |joint| model.supports(root, joint))
    }

    fn lowest_point_where(&self, data: &Data, moved_by: impl Fn(usize) -> bool) -> Option<f64> {
        self.robot_objects
            .iter()
            .filter(|&&i| matches!(self.objects[i].owner, Owner::Robot { joint } if moved_by(joint)))
            .map(|&i| self.objects[i].shape.lowest_z(&self.objects[i].robot_pose(data)))
            .reduce(f64::min)
    }

    /// Forgets the order the sweep and prune kept from earlier detections (shapes tied in x
    /// keep their previous order): the next detection pairs the shapes in the order of a
    /// new world, so that a world set back to an earlier state finds its contacts in the
    /// same order as on the first run, and repeats it exactly.
    pub fn forget_order(&mut self) {
        self.moving.sort_unstable();
    }

    /// Moves free body `body` to `world_m_body`.
    pub fn set_free_body_pose(&mut self, body: usize, world_m_body: &SE3) {
        for i in self.free_objects.get(body).cloned().unwrap_or_default() {
            let o = &mut self.objects[i];
            o.pose = world_m_body.compose(&o.placement);
        }
    }

    /// Moves every robot shape to the joint placements of `data`, none left out as far
    /// ([`CollisionWorld::update_robot`] leaves out those that cannot touch a half-space
    /// within the margin; the end of a step is checked whatever the start said).
    pub fn place_robot(&mut self, data: &Data) {
        for &i in &self.robot_objects {
            let o = &mut self.objects[i];
            o.far = false;
            o.pose = o.robot_pose(data);
        }
    }

    /// At the shapes' current placements, every feature of a moving shape deeper than
    /// `depth` below a half-space ([`half_space::below`]) is added to the features the
    /// next detections keep for that pair, beyond the 4 points the reduction chooses
    /// (up to [`FORCED_CAPACITY`] in all), unless `held` (the step's contacts) has it.
    /// Returns how many were added: 0 when nothing went below that the step's problem
    /// did not hold.
    ///
    /// The step's contacts are chosen at its start: a hull's support face reduced to 4
    /// points, the shapes within the margin. A rigid body rocking onto another face, or
    /// approaching faster than margin/Δt, puts points that were not in the problem below
    /// the ground at the step's end. Solving the step again with them added (at their
    /// distances at the start) keeps them out, as constraint generation does. A point the
    /// problem held can still end slightly below: on a turning body it moves on an arc,
    /// which the velocity-level constraint v_n ≥ −φ/Δt sees only to first order (½ω²Δt²r:
    /// 3 µm at 8 rad/s and 0.1 m); the next step's penetration recovery takes that out.
    /// (Lowering such a point's φ by it and solving again reached 4 µm over 94 falls of
    /// talos instead of 33 µm, but solved 37 000 of 188 000 steps again instead of 20 000,
    /// with 498 unconverged instead of 359.)
    pub fn force_below(&mut self, depth: f64, held: &[Contact]) -> usize {
        let mut added = 0;
        for k in 0..self.by_index.len() {
            let i = self.by_index[k];
            for p in 0..self.planes.len() {
                let (_, n, h, _) = self.planes[p];
                let o = &self.objects[i];
                if !o.active || o.fixed_to_world() || o.shape.lowest_along(&o.pose, &n) - h >= -depth {
                    continue;
                }
                let plane = self.planes[p].0;
                let hint = &mut self.plane_hints[i * self.planes.len() + p];
                for c in half_space::below(&o.shape.kind, &o.pose, &n, h, depth, &mut self.plane_scratch, hint) {
                    let forced = Forced { object: i, plane: p, feature: c.feature };
                    let id = ContactId::new(i, plane, c.feature, 0);
                    if self.forced.len() < FORCED_CAPACITY
                        && !self.forced.contains(&forced)
                        && !held.iter().any(|k| k.id == id)
                    {
                        self.forced.push(forced);
                        added += 1;
                    }
                }
            }
        }
        added
    }

    /// Forgets the features [`CollisionWorld::force_below`] added (the step is over).
    pub fn clear_forced(&mut self) {
        self.forced.clear();
    }

    /// Detects every contact closer than the margin into `out` (cleared first). Allocates
    /// nothing once the buffers have grown to the scene's size.
    pub fn detect(&mut self, out: &mut ContactBuffer) {
        out.clear();
        let margin = self.margin;
        // Moving shapes against half-spaces, by their oriented boxes first.
        for k in 0..self.by_index.len() {
            let i = self.by_index[k];
            for p in 0..self.planes.len() {
                let (_, n, h, _) = self.planes[p];
                let o = &self.objects[i];
                let near = !o.far && o.active && !o.fixed_to_world() && o.shape.lowest_along(&o.pose, &n) - h < margin;
                if near || self.forced.iter().any(|f| f.object == i && f.plane == p) {
                    self.plane_pair(i, p, out);
                }
            }
        }
        // The world boxes, for the static tree and among moving shapes (a lone robot on
        // the ground needs none).
        let sweep = self.sweeps();
        if self.statics.is_empty() && !sweep {
            return;
        }
        for &i in &self.moving {
            let o = &mut self.objects[i];
            o.aabb = o.shape.world_aabb(&o.pose, margin);
        }
        // Moving shapes against the static tree.
        // (The tree and its index are moved out for the query: no copy, no allocation.)
        let tree = std::mem::take(&mut self.static_tree);
        let statics = std::mem::take(&mut self.statics);
        for k in 0..self.by_index.len() {
            let i = self.by_index[k];
            if !self.objects[i].active || self.objects[i].fixed_to_world() {
                continue;
            }
            let (lo, hi) = self.objects[i].aabb;
            tree.query(&lo, &hi, |s| self.convex_pair(i, statics[s], out));
        }
        self.static_tree = tree;
        self.statics = statics;
        // Moving shapes among themselves: sweep and prune along x (nothing to do for a lone
        // robot without self-collision).
        if !sweep {
            return;
        }
        let objects = &self.objects;
        insertion_sort_by_key(&mut self.moving, |&i| objects[i].aabb.0.x);
        for a in 0..self.moving.len() {
            let i = self.moving[a];
            if !self.objects[i].active {
                continue;
            }
            let i_robot = matches!(self.objects[i].owner, Owner::Robot { .. });
            for b in a + 1..self.moving.len() {
                let j = self.moving[b];
                let (ai, aj) = (&self.objects[i].aabb, &self.objects[j].aabb);
                if aj.0.x > ai.1.x {
                    break;
                }
                if !self.objects[j].active
                    || (i_robot
                        && !self.self_collision
                        && matches!(self.objects[j].owner, Owner::Robot { .. })
                        && self.objects[i].robot == self.objects[j].robot)
                {
                    continue;
                }
                if ai.0.y > aj.1.y || aj.0.y > ai.1.y || ai.0.z > aj.1.z || aj.0.z > ai.1.z {
                    continue;
                }
                if self.may_collide(i, j) {
                    self.convex_pair(i, j, out);
                }
            }
        }
    }

    fn may_collide(&self, i: usize, j: usize) -> bool {
        match (self.objects[i].owner, self.objects[j].owner) {
            (Owner::Robot { .. }, Owner::Robot { .. }) if self.objects[i].robot != self.objects[j].robot => true,
            (Owner::Robot { .. }, Owner::Robot { .. }) => {
                let nr = self.robot_objects.len();
                let a = self.robot_objects.binary_search(&i);
                let b = self.robot_objects.binary_search(&j);
                matches!((a, b), (Ok(a), Ok(b)) if self.self_pairs[a * nr + b])
            }
            (Owner::Free { body: a }, Owner::Free { body: b }) => a != b,
            _ => true,
        }
    }

    fn materials(&self, i: usize, j: usize) -> (f64, f64) {
        let (a, b) = (&self.objects[i], &self.objects[j]);
        (combine_friction(a.friction, b.friction, self.self_friction), a.restitution.max(b.restitution))
    }

    /// Object `i` (moving) against plane number `p`.
    fn plane_pair(&mut self, i: usize, p: usize, out: &mut ContactBuffer) {
        let (plane, ref n, h, frame) = self.planes[p];
        let o = &self.objects[i];
        let hint = &mut self.plane_hints[i * self.planes.len() + p];
        let count = match o.shape.kind {
            ShapeKind::TriMesh { .. } | ShapeKind::HalfSpace => 0,
            ref kind => half_space::contacts(
                kind,
                o.point_patch(),
                &o.pose,
                n,
                h,
                self.margin,
                &mut self.plane_scratch,
                hint,
                &mut self.plane_points,
            ),
        };
        let (friction, restitution) = self.materials(i, plane);
        let forced = self.forced.iter().filter(|f| f.object == i && f.plane == p);
        let chosen = &self.plane_points[..count];
        let extra = forced
            .filter(|f| !chosen.iter().any(|c| c.feature == f.feature))
            .filter_map(|f| half_space::feature_point(&o.shape.kind, &o.pose, n, h, f.feature));
        for point in chosen.iter().copied().chain(extra) {
            out.push(Contact {
                object1: i,
                object2: plane,
                body1: o.owner,
                body2: Owner::Static,
                point: point.point - n * (0.5 * point.distance),
                frame,
                distance: point.distance,
                friction,
                restitution,
                id: ContactId::new(i, plane, point.feature, 0),
            });
        }
    }

    /// A convex moving object `i` against the static triangle mesh `j`: the triangles its
    /// box overlaps (the mesh's tree), each by the cheapest exact path; a point shared by
    /// neighbouring triangles is kept once; then the points are reduced per normal.
    ///
    /// A triangle whose edges all border coplanar or concave neighbours (the inside of a
    /// floor, a valley) has only its face normal in its Voronoi cone: its contacts are the
    /// half-space ones (module `half_space`) whose points lie over the triangle. Other
    /// triangles go through GJK/EPA (parry); a normal there outside the cone of the
    /// triangle's feature (across an edge to a coplanar or concave neighbour) is a seam
    /// artefact: separated, the point is left to the neighbour the object is over;
    /// penetrating, it is replaced by the face normal and the object's depth below the
    /// triangle's plane.
    fn mesh_pair(&mut self, i: usize, j: usize, out: &mut ContactBuffer) {
        let (friction, restitution) = self.materials(i, j);
        let (a, b) = (&self.objects[i], &self.objects[j]);
        let ShapeKind::TriMesh { vertices, triangles, tree, edges } = &b.shape.kind else { return };
        // The moving object's box in the mesh's frame (the box of the transformed box).
        let mesh_m_object = b.pose.inv_compose(&a.pose);
        let (lo, hi) = a.shape.world_aabb(&mesh_m_object, self.margin);
        let first = out.len();
        let margin = self.margin;
        let (workspace, scratch, hint) = (&mut self.workspace, &mut self.plane_scratch, &mut self.mesh_hints[i]);
        let emit = |out: &mut ContactBuffer, point: Vec3, normal: &Vec3, distance: f64, id: ContactId| {
            if out.contacts()[first..].iter().any(|c| c.id == id || (c.point - point).norm_squared() < 1e-12) {
                return;
            }
            out.push(Contact {
                object1: i,
                object2: j,
                body1: a.owner,
                body2: b.owner,
                point,
                frame: contact_frame(normal),
                distance,
                friction,
                restitution,
                id,
            });
        };
        tree.query(&lo, &hi, |t| {
            let corners = triangles[t].map(|k| b.pose.act_point(&vertices[k as usize]));
            let face = (corners[1] - corners[0]).cross(&(corners[2] - corners[0])).normalize();
            let outward = |k: usize| (corners[(k + 1) % 3] - corners[k]).normalize().cross(&face);
            let side = if (a.pose.translation - corners[0]).dot(&face) < 0.0 { -1.0 } else { 1.0 };
            if a.shape.has_plane_candidates() && edges[t].iter().all(|e| e.max_lean(side) == 0.0) {
                let n = face * side;
                for c in half_space::candidates(&a.shape.kind, &a.pose, &n, n.dot(&corners[0]), margin, scratch, hint) {
                    if (0..3).all(|k| (c.point - corners[k]).dot(&outward(k)) <= ON_EDGE) {
                        let id = ContactId::new(i, j, c.feature, FACE_FEATURE);
                        emit(out, c.point - n * (0.5 * c.distance), &n, c.distance, id);
                    }
                }
                return;
            }
            let Some(shape) = a.shape.parry.as_ref() else { return };
            workspace.triangle_contacts(shape, &a.pose, &corners, margin, |p| {
                // Our normal points from the triangle into the object.
                let mut normal = -p.normal1;
                let mut distance = p.distance;
                let side = if normal.dot(&face) < 0.0 { -1.0 } else { 1.0 };
                let seam = (0..3).any(|k| normal.dot(&outward(k)) > edges[t][k].max_lean(side) + SEAM_TOLERANCE);
                if seam {
                    if distance > 0.0 {
                        return;
                    }
                    normal = face * side;
                    let Some(deepest) = shape.support_point(&a.pose, &-normal) else { return };
                    distance = (deepest - p.point2).dot(&normal).min(0.0);
                }
                let id = ContactId::new(i, j, p.feature1, (t as u32) << 3 ^ p.feature2);
                emit(out, p.point2 + normal * (0.5 * distance), &normal, distance, id);
            });
        });
        reduce_by_normal(out, first, a.point_patch());
    }

    /// A pair of non-plane objects, through parry.
    fn convex_pair(&mut self, i: usize, j: usize, out: &mut ContactBuffer) {
        // Object 1 is on the robot side.
        let (i, j) = {
            let (ri, rj) = (rank(&self.objects[i].owner), rank(&self.objects[j].owner));
            if (ri, i) <= (rj, j) { (i, j) } else { (j, i) }
        };
        if matches!(self.objects[j].shape.kind, ShapeKind::TriMesh { .. }) {
            return self.mesh_pair(i, j, out);
        }
        let (friction, restitution) = self.materials(i, j);
        let (a, b) = (&self.objects[i], &self.objects[j]);
        let (Some(sa), Some(sb)) = (a.shape.parry.as_ref(), b.shape.parry.as_ref()) else { return };
        let (owner1, owner2) = (a.owner, b.owner);
        // Parry's normal points out of object 1; ours into it. Neighbouring triangles of a
        // mesh report the same point: keep it once.
        let first = out.len();
        let _ = self.workspace.contacts(sa, &a.pose, sb, &b.pose, self.margin, |p| {
            let n = -p.normal1;
            let point = (p.point1 + p.point2) * 0.5;
            if out.contacts()[first..].iter().any(|c| (c.point - point).norm_squared() < 1e-12) {
                return;
            }
            out.push(Contact {
                object1: i,
                object2: j,
                body1: owner1,
                body2: owner2,
                point,
                frame: contact_frame(&n),
                distance: p.distance,
                friction,
                restitution,
                id: ContactId::new(i, j, p.feature1, p.feature2),
            });
        });
    }
}

/// How far (sine) a mesh contact normal may lean past its edge's cone before it counts
/// as a seam artefact.
const SEAM_TOLERANCE: f64 = 1e-6;

/// How far (m) outside a triangle a point may project and still count as over it (points
/// on a seam belong to both triangles, and are kept once).
const ON_EDGE: f64 = 1e-9;

/// Feature number of the mesh side of a contact found by the face path: the id then
/// follows the object's point across the seams of a flat mesh.
const FACE_FEATURE: u32 = u32::MAX - 1;

/// Most contacts one mesh pair keeps before reduction (the rest are dropped).
const MESH_PAIR_POINTS: usize = 64;

/// The contacts from `first` on (one object pair) grouped by normal (within 5°), each
/// group reduced to at most 4 points spanning the largest area, like a plane contact
/// (`point_patch` the object's, [`CollisionObject::point_patch`]).
fn reduce_by_normal(out: &mut ContactBuffer, first: usize, point_patch: f64) {
    let count = out.len() - first;
    if count <= 1 {
        return;
    }
    let mut tail = [out.contacts()[first]; MESH_PAIR_POINTS];
    let count = count.min(MESH_PAIR_POINTS);
    tail[..count].copy_from_slice(&out.contacts()[first..first + count]);
    out.truncate(first);
    let mut done = [false; MESH_PAIR_POINTS];
    let mut candidates = [half_space::Candidate::default(); MESH_PAIR_POINTS];
    // The deepest contact not yet grouped sets the group's normal and tangents.
    while let Some(seed) =
        (0..count).filter(|&k| !done[k]).min_by(|&a, &b| tail[a].distance.total_cmp(&tail[b].distance))
    {
        let frame = tail[seed].frame;
        let (t1, t2, n) = (frame.column(0), frame.column(1), frame.column(2));
        let mut size = 0;
        for k in 0..count {
            if !done[k] && tail[k].frame.column(2).dot(&n) > 0.996 {
                done[k] = true;
                let p = tail[k].point;
                candidates[size] = half_space::Candidate {
                    u: t1.dot(&p),
                    v: t2.dot(&p),
                    distance: tail[k].distance,
                    feature: k as u32,
                    point: p,
                };
                size += 1;
            }
        }
        let mut chosen = [half_space::Candidate::default(); 4];
        let kept = half_space::reduce(&candidates[..size], point_patch, &mut chosen);
        for c in &chosen[..kept] {
            out.push(tail[c.feature as usize]);
        }
    }
}

/// The pose of the half-space whose surface is n·x = h (z axis along n).
fn plane_pose(n: &Vec3, h: f64) -> SE3 {
    let frame = contact_frame(n);
    SE3::new(Mat3::from_columns(&[frame.column(0).into_owned(), frame.column(1).into_owned(), *n]), n * h)
}

/// Stable insertion sort: O(n) on nearly sorted input (boxes move little between steps).
fn insertion_sort_by_key(v: &mut [usize], key: impl Fn(&usize) -> f64) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > key(&v[j]) {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}
