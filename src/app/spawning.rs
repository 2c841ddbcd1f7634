//! Spawning and deleting free bodies while the simulation runs (simulation_interfaces 1.x
//! `srv/SpawnEntity.srv`, `srv/SpawnEntities.srv`, `srv/DeleteEntity.srv` and the
//! `SCOPE_SPAWNED` of `srv/ResetSimulation.srv`), without ROS.
//!
//! The world keeps `simulation_interfaces.spawn_capacity` empty free-body slots from
//! start-up ([`crate::sim::World::add_spawn_slots`]), so that the stepper, the collision
//! world and the samples are sized for them once. A request is checked and its body built
//! off the loop ([`prepare`]: one URDF link with one box, sphere or cylinder collision,
//! its `<inertial>`, the pose); the [`Spawns`] table picks the name and a free slot and
//! sends the body to the loop through a [`crate::runtime::swap_ring`]; the loop swaps it
//! into the slot between two steps ([`apply_orders`]: no allocation, no lock, no wait) and
//! hands the slot's previous contents back to be dropped on the I/O side. A delete empties
//! the slot the same way. The caller waits for its [`Ticket`] (the loop applies orders at
//! the top of its next tick, playing or paused).
//!
//! What is spawned: a free rigid body named after the request (`entity_namespace/name`
//! when a namespace is given), at `initial_pose` in `world` (the only frame; an empty
//! frame means `world`), at rest. Its pose is published on /tf (child frame: its name).
//! The configured `sim.bodies` and the robot are not spawned: DeleteEntity and
//! `SCOPE_SPAWNED` leave them. A reset of `SCOPE_STATE` puts a spawned body back at rest
//! at the pose it was spawned at.

use std::sync::Mutex;

use nalgebra::{Quaternion, UnitQuaternion};

use super::sim_requests::{Refusal, SpawnCode};
use crate::collision::{CollisionShape, FreeBodyShape};
use crate::model::{FreeBody, FreeBodyState};
use crate::runtime::{SwapSender, SwapServer, Ticket, swap_ring};
use crate::sim::World;
use crate::spatial::{Inertia, Mat3, SE3, Vec3, rotation_from_rpy};

/// Friction coefficient of a spawned body (URDF has none; the default of `sim.bodies`).
pub const SPAWN_FRICTION: f64 = 1.0;

/// How far a quaternion's norm may be from 1 (it is then normalized).
pub const QUATERNION_TOLERANCE: f64 = 1e-6;

/// One spawn request, as SpawnEntity.srv and SpawnEntity.msg carry it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpawnRequest {
    /// The name asked for (empty: the URDF's robot name).
    pub name: String,
    /// Whether a taken or empty name may be replaced by a generated one.
    pub allow_renaming: bool,
    /// A resource URI (not supported: [`SpawnCode::UnsupportedFormat`]).
    pub uri: String,
    /// The URDF text.
    pub resource_string: String,
    /// A namespace for the entity's name (empty: none).
    pub entity_namespace: String,
    /// `initial_pose.header.frame_id`.
    pub frame_id: String,
    /// `initial_pose.pose.position`.
    pub position: [f64; 3],
    /// `initial_pose.pose.orientation` (x, y, z, w).
    pub orientation: [f64; 4],
}

/// A checked request: the body, its shape and pose, built off the loop.
#[derive(Clone, Debug)]
pub struct PreparedSpawn {
    /// The inertial model.
    pub body: FreeBody,
    /// Its collision shape (placement in the body frame, friction, restitution).
    pub shape: FreeBodyShape,
    /// world_from_body.
    pub pose: SE3,
    /// The name asked for, or the URDF's robot name (may be empty).
    pub name: String,
    /// The namespace (checked; may be empty).
    pub namespace: String,
    /// Whether renaming is allowed.
    pub allow_renaming: bool,
}

fn spawn_error(code: SpawnCode, message: impl Into<String>) -> Refusal {
    Refusal::Spawn(code, message.into())
}

/// Checks `request` and builds its body (everything but the name's uniqueness and the
/// slot, which the table decides).
pub fn prepare(request: &SpawnRequest) -> Result<PreparedSpawn, Refusal> {
    if !request.uri.is_empty() {
        return Err(spawn_error(
            SpawnCode::UnsupportedFormat,
            format!(
                "uri `{}`: spawning from a URI is not supported (no GetSpawnables); pass the URDF text in \
                 resource_string (spawn_formats: urdf)",
                request.uri
            ),
        ));
    }
    if request.resource_string.trim().is_empty() {
        return Err(spawn_error(SpawnCode::NoResource, "both uri and resource_string are empty"));
    }
    if !request.name.is_empty() && !valid_name(&request.name) {
        return Err(spawn_error(
            SpawnCode::NameInvalid,
            format!(
                "name `{}` is not a ROS name token (letters, digits and `_`, not starting with a digit)",
                request.name
            ),
        ));
    }
    let namespace = check_namespace(&request.entity_namespace)?;
    let pose = check_pose(&request.frame_id, request.position, request.orientation)?;
    let (urdf_name, body, shape) = parse_urdf(&request.resource_string)?;
    let name = if request.name.is_empty() && valid_name(&urdf_name) { urdf_name } else { request.name.clone() };
    Ok(PreparedSpawn { body, shape, pose, name, namespace, allow_renaming: request.allow_renaming })
}

/// Whether `s` is a ROS name token: letters, digits and `_`, not starting with a digit.
pub fn valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// An entity namespace: empty, or name tokens separated by `/` (a leading `/` is dropped).
fn check_namespace(ns: &str) -> Result<String, Refusal> {
    let trimmed = ns.strip_prefix('/').unwrap_or(ns);
    if trimmed.is_empty() || trimmed.split('/').all(valid_name) {
        return Ok(trimmed.to_owned());
    }
    Err(spawn_error(
        SpawnCode::NamespaceInvalid,
        format!("entity_namespace `{ns}` is not a ROS namespace (name tokens separated by `/`)"),
    ))
}

/// The initial pose: in `world` (or an empty frame), finite, with a unit quaternion
/// (within [`QUATERNION_TOLERANCE`], then normalized).
pub fn check_pose(frame: &str, position: [f64; 3], orientation: [f64; 4]) -> Result<SE3, Refusal> {
    let invalid = |message: String| spawn_error(SpawnCode::InvalidPose, message);
    if !frame.is_empty() && frame != "world" {
        return Err(invalid(format!(
            "initial_pose.header.frame_id `{frame}` is not known: poses are given in `world` (or an empty frame)"
        )));
    }
    if !position.iter().all(|x| x.is_finite()) {
        return Err(invalid(format!("initial_pose.pose.position {position:?} is not finite")));
    }
    let [x, y, z, w] = orientation;
    let norm = (x * x + y * y + z * z + w * w).sqrt();
    if !norm.is_finite() || (norm - 1.0).abs() > QUATERNION_TOLERANCE {
        return Err(invalid(format!(
            "initial_pose.pose.orientation {orientation:?} (x, y, z, w) is not a unit quaternion (norm {norm})"
        )));
    }
    let rotation = UnitQuaternion::from_quaternion(Quaternion::new(w, x, y, z)).to_rotation_matrix().into_inner();
    Ok(SE3::new(rotation, Vec3::from(position)))
}

/// A URDF pose as an SE3.
fn urdf_pose(p: &urdf_rs::Pose) -> SE3 {
    SE3::new(rotation_from_rpy(p.rpy[0], p.rpy[1], p.rpy[2]), Vec3::from(p.xyz.0))
}

/// The URDF of one link with one box, sphere or cylinder collision and an `<inertial>`
/// with a positive mass: its robot name, the body and its shape. The inertia is the
/// `<inertial>`'s when any of its six values is non-zero, else the uniform solid's of the
/// collision geometry (centred on the collision origin).
pub fn parse_urdf(xml: &str) -> Result<(String, FreeBody, FreeBodyShape), Refusal> {
    let parse = |message: String| spawn_error(SpawnCode::ResourceParseError, message);
    let robot = urdf_rs::read_from_string(xml).map_err(|e| parse(format!("resource_string is not URDF: {e}")))?;
    let [link] = robot.links.as_slice() else {
        return Err(parse(format!("resource_string has {} links: a spawned body is one link", robot.links.len())));
    };
    if !robot.joints.is_empty() {
        return Err(parse(format!("resource_string has {} joints: a spawned body is one link", robot.joints.len())));
    }
    let [collision] = link.collision.as_slice() else {
        return Err(parse(format!(
            "link `{}` has {} collision elements: a spawned body has exactly one (box, sphere or cylinder)",
            link.name,
            link.collision.len()
        )));
    };
    let positive = |x: f64| x.is_finite() && x > 0.0;
    let (shape, solid): (CollisionShape, SolidInertia) = match &collision.geometry {
        urdf_rs::Geometry::Box { size } if size.0.iter().all(|&s| positive(s)) => {
            (CollisionShape::cuboid(Vec3::from(size.0) * 0.5), box_inertia)
        }
        urdf_rs::Geometry::Sphere { radius } if positive(*radius) => {
            (CollisionShape::sphere(*radius), |m, d| Mat3::identity() * (0.4 * m * d[0] * d[0]))
        }
        urdf_rs::Geometry::Cylinder { radius, length } if positive(*radius) && positive(*length) => {
            (CollisionShape::cylinder(*radius, length / 2.0), cylinder_inertia)
        }
        urdf_rs::Geometry::Mesh { filename, .. } => {
            return Err(spawn_error(
                SpawnCode::UnsupportedAssets,
                format!("link `{}`: mesh `{filename}` is not supported: box, sphere or cylinder", link.name),
            ));
        }
        other => {
            return Err(parse(format!(
                "link `{}`: collision geometry {other:?} is not a box, sphere or cylinder with positive sizes",
                link.name
            )));
        }
    };
    let dims = match &collision.geometry {
        urdf_rs::Geometry::Box { size } => size.0,
        urdf_rs::Geometry::Sphere { radius } => [*radius, 0.0, 0.0],
        urdf_rs::Geometry::Cylinder { radius, length } => [*radius, *length, 0.0],
        _ => [0.0; 3],
    };
    let body = inertial_body(link, &urdf_pose(&collision.origin), |m| solid(m, &dims))?;
    let placement = urdf_pose(&collision.origin);
    let shape = FreeBodyShape {
        name: String::new(),
        shape: std::sync::Arc::new(shape),
        placement,
        friction: SPAWN_FRICTION,
        restitution: 0.0,
    };
    Ok((robot.name, body, shape))
}

/// A uniform solid's rotational inertia about its centre, of its mass and sizes.
type SolidInertia = fn(f64, &[f64; 3]) -> Mat3;

/// A solid box's rotational inertia about its centre (full sizes `d`).
fn box_inertia(m: f64, d: &[f64; 3]) -> Mat3 {
    let [x, y, z] = d.map(|s| s * s);
    Mat3::from_diagonal(&Vec3::new(y + z, x + z, x + y)) * (m / 12.0)
}

/// A solid cylinder's (radius `d[0]`, length `d[1]`, along z) about its centre.
fn cylinder_inertia(m: f64, d: &[f64; 3]) -> Mat3 {
    let side = m * (3.0 * d[0] * d[0] + d[1] * d[1]) / 12.0;
    Mat3::from_diagonal(&Vec3::new(side, side, 0.5 * m * d[0] * d[0]))
}

/// The body of `link`'s `<inertial>`: its mass (positive) and its inertia at its origin,
/// or when the inertia is all zero, `solid(mass)` about the collision origin `centre`.
fn inertial_body(link: &urdf_rs::Link, centre: &SE3, solid: impl Fn(f64) -> Mat3) -> Result<FreeBody, Refusal> {
    let parse = |message: String| spawn_error(SpawnCode::ResourceParseError, message);
    let inertial = &link.inertial;
    let mass = inertial.mass.value;
    if !(mass.is_finite() && mass > 0.0) {
        return Err(parse(format!(
            "link `{}`: <inertial><mass value> must be positive and finite (got {mass})",
            link.name
        )));
    }
    let i = &inertial.inertia;
    let values = [i.ixx, i.ixy, i.ixz, i.iyy, i.iyz, i.izz];
    let (frame, rotational) = if values.iter().all(|&v| v == 0.0) {
        (*centre, solid(mass))
    } else {
        (urdf_pose(&inertial.origin), Mat3::new(i.ixx, i.ixy, i.ixz, i.ixy, i.iyy, i.iyz, i.ixz, i.iyz, i.izz))
    };
    let rotational = frame.rotation * rotational * frame.rotation.transpose();
    FreeBody::new(&link.name, Inertia::new(mass, frame.translation, rotational))
        .map_err(|e| parse(format!("link `{}`: <inertial>: {}", link.name, e.reason)))
}

/// What the I/O side asks the loop: fill a slot, or empty one. A served Spawn holds the
/// slot's previous body and shape (dropped on the I/O side).
#[derive(Debug)]
// The orders live in the ring's preallocated slots: boxing the large variant would
// allocate per order and save nothing.
#[allow(clippy::large_enum_variant)]
pub enum SpawnOrder {
    /// Put `body` (id `id`) into spawn slot `slot` at `state`.
    Spawn {
        /// The slot.
        slot: usize,
        /// The body's id (see [`crate::sim::SpawnSlots::occupant`]).
        id: u64,
        /// Its model; afterwards the slot's previous one.
        body: FreeBody,
        /// Its shape; afterwards the slot's previous one.
        shape: FreeBodyShape,
        /// Where and how it starts.
        state: FreeBodyState,
    },
    /// Empty spawn slot `slot`.
    Delete {
        /// The slot.
        slot: usize,
    },
}

/// For the loop: applies every pending order to `world` (between two steps); a spawned
/// body's state also becomes its slot's entry of `initial` (the states a reset of
/// SCOPE_STATE restores); `applied` sees the world after each order, before the order is
/// reported served. Allocates nothing.
pub fn apply_orders(
    orders: &mut SwapServer<SpawnOrder>,
    world: &mut World,
    initial: &mut [FreeBodyState],
    mut applied: impl FnMut(&World),
) {
    orders.serve(|order| {
        match order {
            SpawnOrder::Spawn { slot, id, body, shape, state } => {
                if world.fill_spawn_slot(*slot, *id, body, shape, *state)
                    && let Some(s) = initial.get_mut(world.spawn_slots.first + *slot)
                {
                    *s = *state;
                }
            }
            SpawnOrder::Delete { slot } => world.empty_spawn_slot(*slot),
        }
        applied(world);
    });
}

/// The placeholder an empty spawn slot holds: a 1 kg, 0.1 m cube (never simulated).
pub fn placeholder() -> (FreeBody, FreeBodyShape) {
    let half = Vec3::new(0.05, 0.05, 0.05);
    let body = FreeBody::cuboid("", 1.0, &half).expect("a cube has a valid inertia");
    let shape = FreeBodyShape {
        name: String::new(),
        shape: std::sync::Arc::new(CollisionShape::cuboid(half)),
        placement: SE3::IDENTITY,
        friction: SPAWN_FRICTION,
        restitution: 0.0,
    };
    (body, shape)
}

/// Orders in flight at most (beyond, a request fails rather than waits).
const ORDERS_IN_FLIGHT: usize = 64;

/// One spawned entity.
#[derive(Clone, Debug)]
struct Entry {
    name: String,
    id: u64,
    /// Its shape (for the entity services' bounds).
    shape: FreeBodyShape,
}

/// The spawned entities by name and slot, and the sender of orders to the loop: the I/O
/// side's half (services, the publisher, entity queries). Locks only on the I/O side.
pub struct Spawns {
    inner: Mutex<Table>,
    capacity: usize,
}

struct Table {
    entries: Vec<Option<Entry>>,
    /// Names of what is not spawned (the robot, `sim.bodies`): never given out.
    fixed: Vec<String>,
    next_id: u64,
    sender: SwapSender<SpawnOrder>,
}

/// The loop's end of the orders ([`apply_orders`]).
pub type SpawnOrders = SwapServer<SpawnOrder>;

impl Spawns {
    /// A table of `capacity` slots; `fixed` are the names of entities that are not
    /// spawned (never given to a spawned body). Returns the loop's end too.
    pub fn new(capacity: usize, fixed: Vec<String>) -> (Self, SpawnOrders) {
        let (sender, orders) = swap_ring(ORDERS_IN_FLIGHT);
        let table = Table { entries: vec![None; capacity], fixed, next_id: 1, sender };
        (Self { inner: Mutex::new(table), capacity }, orders)
    }

    /// The configured number of slots (`simulation_interfaces.spawn_capacity`).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // A panic elsewhere while holding the lock leaves a table that is still whole.
        self.inner.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The spawned entities' names, by slot.
    pub fn names(&self) -> Vec<String> {
        self.table().entries.iter().flatten().map(|e| e.name.clone()).collect()
    }

    /// Each spawned entity: its name, its slot and its shape (in the body frame).
    pub fn entries(&self) -> Vec<(String, usize, FreeBodyShape)> {
        let table = self.table();
        let slots = table.entries.iter().enumerate();
        slots.filter_map(|(slot, e)| e.as_ref().map(|e| (e.name.clone(), slot, e.shape.clone()))).collect()
    }

    /// The slot of the spawned entity `name` (its body is `world.spawn_slots.first + slot`).
    pub fn slot_of(&self, name: &str) -> Option<usize> {
        self.table().entries.iter().position(|e| e.as_ref().is_some_and(|e| e.name == name))
    }

    /// The name of the body of id `id` in `slot`, if it is still there.
    pub fn name_of(&self, slot: usize, id: u64) -> Option<String> {
        let table = self.table();
        table.entries.get(slot)?.as_ref().filter(|e| e.id == id).map(|e| e.name.clone())
    }

    /// Whether the loop applied the order of `ticket`.
    pub fn applied(&self, ticket: Ticket) -> bool {
        self.table().sender.applied(ticket)
    }

    /// Spawns `prepared`: the name (namespaced; renamed if allowed and needed), a free
    /// slot, the order sent. Returns the entity's name and the ticket to wait for.
    pub fn spawn(&self, prepared: PreparedSpawn) -> Result<(String, Ticket), Refusal> {
        let mut table = self.table();
        let name = table.pick_name(&prepared)?;
        let Some(slot) = table.entries.iter().position(Option::is_none) else {
            return Err(Refusal::OperationFailed(format!(
                "cannot spawn `{name}`: all {} spawn slots are taken (simulation_interfaces.spawn_capacity); \
                 delete an entity first",
                self.capacity
            )));
        };
        let id = table.next_id;
        let state = FreeBodyState::at_rest(prepared.pose);
        let mut shape = prepared.shape;
        shape.name.clone_from(&name);
        let kept = shape.clone();
        let order = SpawnOrder::Spawn { slot, id, body: prepared.body, shape, state };
        let ticket = table.send(order)?;
        table.next_id += 1;
        table.entries[slot] = Some(Entry { name: name.clone(), id, shape: kept });
        Ok((name, ticket))
    }

    /// Deletes the spawned entity `name`.
    pub fn delete(&self, name: &str) -> Result<Ticket, Refusal> {
        let mut table = self.table();
        let Some(slot) = table.entries.iter().position(|e| e.as_ref().is_some_and(|e| e.name == name)) else {
            if table.fixed.iter().any(|f| f == name) {
                return Err(Refusal::OperationFailed(format!(
                    "entity `{name}` was not spawned (the robot or a body of sim.bodies): only spawned entities \
                     can be deleted"
                )));
            }
            return Err(Refusal::NotFound(format!("no entity `{name}` (spawned: {})", table.listing())));
        };
        let ticket = table.send(SpawnOrder::Delete { slot })?;
        table.entries[slot] = None;
        Ok(ticket)
    }

    /// Deletes every spawned entity (`SCOPE_SPAWNED`); the ticket of the last order, if
    /// any was sent.
    pub fn delete_all(&self) -> Result<Option<Ticket>, Refusal> {
        let mut table = self.table();
        let mut last = None;
        for slot in 0..table.entries.len() {
            if table.entries[slot].is_some() {
                last = Some(table.send(SpawnOrder::Delete { slot })?);
                table.entries[slot] = None;
            }
        }
        Ok(last)
    }
}

impl Table {
    fn taken(&self, name: &str) -> bool {
        self.fixed.iter().any(|f| f == name) || self.entries.iter().flatten().any(|e| e.name == name)
    }

    fn listing(&self) -> String {
        let names: Vec<&str> = self.entries.iter().flatten().map(|e| e.name.as_str()).collect();
        if names.is_empty() { "none".into() } else { names.join(", ") }
    }

    /// The full name of `p`: `namespace/name`; a taken or empty name is replaced by the
    /// first free `<name>_<k>` (`body_<k>` for an empty one) when renaming is allowed.
    fn pick_name(&self, p: &PreparedSpawn) -> Result<String, Refusal> {
        let full =
            |name: &str| if p.namespace.is_empty() { name.to_owned() } else { format!("{}/{name}", p.namespace) };
        if !p.name.is_empty() && !self.taken(&full(&p.name)) {
            return Ok(full(&p.name));
        }
        if !p.allow_renaming {
            return Err(match p.name.is_empty() {
                true => Refusal::Spawn(
                    SpawnCode::NameInvalid,
                    "name is empty (and the URDF's robot name is not usable) and allow_renaming is false".into(),
                ),
                false => Refusal::Spawn(
                    SpawnCode::NameNotUnique,
                    format!("name `{}` is taken and allow_renaming is false", full(&p.name)),
                ),
            });
        }
        let base = if p.name.is_empty() { "body" } else { p.name.as_str() };
        (1..)
            .map(|k| full(&format!("{base}_{k}")))
            .find(|n| !self.taken(n))
            .ok_or_else(|| Refusal::OperationFailed("no free generated name".into()))
    }

    /// Sends `order`; fails when the loop is that far behind.
    fn send(&mut self, order: SpawnOrder) -> Result<Ticket, Refusal> {
        self.sender.send(order).map_err(|_| {
            Refusal::OperationFailed(format!(
                "{ORDERS_IN_FLIGHT} spawn and delete orders are waiting for the loop: is it running?"
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOX: &str = r#"<robot name="crate"><link name="crate">
        <inertial><mass value="2"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
        <collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.4 0.6"/></geometry></collision>
        </link></robot>"#;

    fn request(name: &str, urdf: &str) -> SpawnRequest {
        SpawnRequest {
            name: name.into(),
            resource_string: urdf.into(),
            orientation: [0.0, 0.0, 0.0, 1.0],
            ..SpawnRequest::default()
        }
    }

    fn code(r: Result<PreparedSpawn, Refusal>) -> u8 {
        r.unwrap_err().code()
    }

    /// The inertia of a box without one given is the uniform solid's (m/12·(b²+c²), …),
    /// about the collision origin; a given one is taken as it is.
    #[test]
    fn a_box_link_becomes_a_body_with_the_uniform_solids_inertia_unless_given() {
        let p = prepare(&request("", BOX)).unwrap();
        assert_eq!(p.name, "crate", "the URDF's name when none is asked for");
        let i = &p.body.inertia;
        assert_eq!(i.mass, 2.0);
        assert_eq!(i.com, Vec3::new(0.0, 0.0, 0.1));
        let want = [2.0 / 12.0 * (0.16 + 0.36), 2.0 / 12.0 * (0.04 + 0.36), 2.0 / 12.0 * (0.04 + 0.16)];
        for (k, want) in want.iter().enumerate() {
            assert!((i.rotational[(k, k)] - want).abs() < 1e-15, "{k}");
        }
        assert_eq!(p.shape.placement.translation, Vec3::new(0.0, 0.0, 0.1));
        let given = BOX.replace(r#"ixx="0""#, r#"ixx="0.5""#).replace(r#"iyy="0""#, r#"iyy="0.5""#);
        let given = given.replace(r#"izz="0""#, r#"izz="0.5""#);
        let p = prepare(&request("c", &given)).unwrap();
        assert_eq!(p.body.inertia.rotational, Mat3::identity() * 0.5);
        assert_eq!(p.body.inertia.com, Vec3::zeros(), "the <inertial> origin");
    }

    #[test]
    fn bad_requests_get_the_spawn_codes_naming_what_is_wrong() {
        assert_eq!(code(prepare(&request("a", "<robot"))), 106, "malformed URDF");
        assert_eq!(code(prepare(&request("a", ""))), 104, "no resource");
        assert_eq!(code(prepare(&SpawnRequest { uri: "file:///a.urdf".into(), ..request("a", BOX) })), 103);
        assert_eq!(code(prepare(&request("1a", BOX))), 102, "a name starting with a digit");
        assert_eq!(code(prepare(&SpawnRequest { entity_namespace: "a b".into(), ..request("a", BOX) })), 105);
        let two = BOX.replace("</link>", "</link><link name='b'/>");
        let e = prepare(&request("a", &two)).unwrap_err();
        assert_eq!((e.code(), e.to_string().contains("2 links")), (106, true), "{e}");
        let mesh = BOX.replace(r#"<box size="0.2 0.4 0.6"/>"#, r#"<mesh filename="x.stl"/>"#);
        assert_eq!(code(prepare(&request("a", &mesh))), 108);
        let massless = BOX.replace(r#"<mass value="2"/>"#, r#"<mass value="0"/>"#);
        let e = prepare(&request("a", &massless)).unwrap_err();
        assert!(e.to_string().contains("mass"), "{e}");
        let flat = BOX.replace("0.2 0.4 0.6", "0.2 0 0.6");
        assert_eq!(code(prepare(&request("a", &flat))), 106, "a zero size");
        for (frame, position, q) in [
            ("map", [0.0; 3], [0.0, 0.0, 0.0, 1.0]),
            ("world", [f64::NAN, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]),
            ("", [0.0; 3], [0.0, 0.0, 0.0, 0.0]),
            ("", [0.0; 3], [0.0, 0.0, 0.1, 1.0]),
            ("", [0.0; 3], [f64::NAN, 0.0, 0.0, 1.0]),
        ] {
            let r = SpawnRequest { frame_id: frame.into(), position, orientation: q, ..request("a", BOX) };
            assert_eq!(code(prepare(&r)), 109, "{frame} {position:?} {q:?}");
        }
    }

    #[test]
    fn names_are_unique_renamed_on_request_and_slots_limited() {
        let (spawns, mut orders) = Spawns::new(2, vec!["robot".into()]);
        let p = |name: &str, renaming: bool| PreparedSpawn {
            allow_renaming: renaming,
            ..prepare(&request(name, BOX)).unwrap()
        };
        let (a, _) = spawns.spawn(p("box", false)).unwrap();
        assert_eq!(a, "box");
        assert_eq!(spawns.spawn(p("box", false)).unwrap_err().code(), 101);
        assert_eq!(spawns.spawn(p("robot", false)).unwrap_err().code(), 101, "the robot's name is taken");
        let (b, ticket) = spawns.spawn(p("box", true)).unwrap();
        assert_eq!(b, "box_1");
        let e = spawns.spawn(p("c", false)).unwrap_err();
        assert_eq!(e.code(), 4);
        assert!(e.to_string().contains("all 2 spawn slots"), "{e}");
        assert_eq!((spawns.slot_of("box"), spawns.slot_of("box_1")), (Some(0), Some(1)));
        assert_eq!(spawns.names(), ["box", "box_1"]);
        assert!(!spawns.applied(ticket));
        orders.serve(|_| {});
        assert!(spawns.applied(ticket));
        assert_eq!(spawns.delete("nothing").unwrap_err().code(), 2);
        assert_eq!(spawns.delete("robot").unwrap_err().code(), 4);
        spawns.delete("box").unwrap();
        assert_eq!(spawns.names(), ["box_1"]);
        let namespaced = PreparedSpawn { namespace: "ns".into(), ..p("box", false) };
        assert_eq!(spawns.spawn(namespaced).unwrap().0, "ns/box");
        assert!(spawns.delete_all().unwrap().is_some());
        assert!(spawns.names().is_empty());
        assert_eq!(spawns.delete_all().unwrap(), None, "nothing left to delete");
    }
}
