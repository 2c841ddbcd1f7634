//! The standard simulator API's entity half: GetEntities, GetEntityState,
//! GetEntitiesStates and SetEntityState (simulation_interfaces 1.x) under the same
//! namespace as the simulation-state services ([`super::simulation_interfaces`]).
//!
//! Names, categories, states and the checks of a set are the library's
//! ([`crate::app::entities`]); states come from the loop's latest snapshot, the one of the
//! step whose sample was (or is being) published, stamped with its simulated time, so a
//! GetEntityState and /odom of the same stamp are the same numbers. A SetEntityState is
//! answered once the loop applied it (at its next tick, playing or paused). Refusals carry
//! the standard's result code and a message naming what is wrong, and are counted
//! (`simulation_requests_refused_total` on /diagnostics).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{Stream, StreamExt};
use r2r::ServiceRequest;
use r2r::geometry_msgs::msg::{Accel, Point, Pose, Quaternion, Twist, Vector3};
use r2r::simulation_interfaces::msg;
use r2r::simulation_interfaces::srv::{GetEntities, GetEntitiesStates, GetEntityState, SetEntityState};
use r2r::std_msgs::msg::Header;

use super::node::NodeError;
use super::simulation_interfaces::{Api, respond, result, service};
use super::state_publisher::ros_time;
use super::supervision::Tasks;
use crate::app::entities::{EntityQuery, EntityState, RequestedState, check_set};
use crate::app::sim_requests::Refusal;
use crate::app::{Entities, EntityEnds, EntityIo, EntitySetter, EntitySnapshot, EntityView};
use crate::config::SimulationInterfacesConfig;
use crate::runtime::{MailboxReader, Throttle};

/// How often a SetEntityState looks whether the loop applied it.
const POLL: Duration = Duration::from_millis(1);

/// The longest a SetEntityState waits for the loop (it applies it at its next tick).
const SET_TIMEOUT: Duration = Duration::from_secs(2);

/// What the getters share: the names, the latest snapshot and the kinematics to read it.
struct Reader {
    entities: Entities,
    view: EntityView,
    snapshots: MailboxReader<EntitySnapshot>,
}

type Shared = Arc<Mutex<Reader>>;

/// Creates the four services under `config.namespace` and adds their tasks.
pub fn serve(
    node: &mut r2r::Node,
    config: &SimulationInterfacesConfig,
    ends: EntityEnds,
    api: Api,
    tasks: &mut Tasks,
) -> Result<(), NodeError> {
    let name = |service: &str| config.namespace.service(service);
    let EntityEnds { entities, view, io: EntityIo { snapshots, setter } } = ends;
    let shared: Shared = Arc::new(Mutex::new(Reader { entities, view, snapshots }));
    let get_entities = service::<GetEntities::Service>(node, &name("get_entities"))?;
    let task = self::get_entities(get_entities, shared.clone(), api.clone(), name("get_entities"));
    tasks.spawn(name("get_entities"), task);
    let get_state = service::<GetEntityState::Service>(node, &name("get_entity_state"))?;
    let task = get_entity_state(get_state, shared.clone(), api.clone(), name("get_entity_state"));
    tasks.spawn(name("get_entity_state"), task);
    let get_states = service::<GetEntitiesStates::Service>(node, &name("get_entities_states"))?;
    let task = get_entities_states(get_states, shared.clone(), api.clone(), name("get_entities_states"));
    tasks.spawn(name("get_entities_states"), task);
    let set_state = service::<SetEntityState::Service>(node, &name("set_entity_state"))?;
    tasks.spawn(name("set_entity_state"), set_entity_state(set_state, shared, setter, api, name("set_entity_state")));
    Ok(())
}

/// The query of a request's filters.
fn query(filters: &msg::EntityFilters) -> EntityQuery<'_> {
    EntityQuery {
        filter: &filters.filter,
        categories: filters.categories.iter().map(|c| c.category).collect(),
        tags: &filters.tags.tags,
        bounds_type: filters.bounds.type_,
        bounds_points: filters.bounds.points.iter().map(|p| [p.x, p.y, p.z]).collect(),
    }
}

/// The message of a state, stamped with its simulated time, in `world`.
fn state_msg(s: &EntityState) -> msg::EntityState {
    let v = |a: [f64; 3]| Vector3 { x: a[0], y: a[1], z: a[2] };
    let [x, y, z, w] = s.orientation;
    msg::EntityState {
        header: Header { stamp: ros_time(s.time_ns), frame_id: "world".into() },
        pose: Pose {
            position: Point { x: s.position[0], y: s.position[1], z: s.position[2] },
            orientation: Quaternion { x, y, z, w },
        },
        twist: Twist { linear: v(s.linear), angular: v(s.angular) },
        acceleration: Accel { linear: v(s.linear_acceleration), angular: v(s.angular_acceleration) },
    }
}

impl Reader {
    /// The names and states `query` selects, at the latest snapshot.
    fn select(&mut self, query: &EntityQuery) -> Result<Vec<(String, EntityState)>, Refusal> {
        let Reader { entities, view, snapshots } = self;
        let snapshot = &snapshots.latest().value;
        let selected = entities.select_at(query, view, snapshot)?;
        Ok(selected.into_iter().map(|e| (e.name.clone(), view.state(&e, snapshot))).collect())
    }

    /// The names `query` selects, at the latest snapshot (for the bounds).
    fn names(&mut self, query: &EntityQuery) -> Result<Vec<String>, Refusal> {
        let Reader { entities, view, snapshots } = self;
        let selected = entities.select_at(query, view, &snapshots.latest().value)?;
        Ok(selected.into_iter().map(|e| e.name.clone()).collect())
    }

    /// The state of the entity `name` at the latest snapshot.
    fn state(&mut self, name: &str) -> Result<EntityState, Refusal> {
        let Reader { entities, view, snapshots } = self;
        let entity = entities.get(name)?;
        Ok(view.state(&entity, &snapshots.latest().value))
    }
}

/// Locks the reader (held for one request's computation, never by the loop; a panic while
/// holding it cannot leave it half-written: it is read-only but for the mailbox).
fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Reader> {
    shared.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// GetEntities: the names the filters select (name: POSIX extended expression; categories:
/// robot, object, static; bounds: a sphere; tags, boxes and hulls unsupported).
async fn get_entities(
    mut stream: impl Stream<Item = ServiceRequest<GetEntities::Service>> + Unpin,
    shared: Shared,
    api: Api,
    service: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(req) = stream.next().await {
        let outcome = lock(&shared).names(&query(&req.message.filters));
        let (status, entities) = split(outcome, &api, &mut throttle, &service);
        respond(req, GetEntities::Response { result: status, entities: entities.unwrap_or_default() }, &service);
    }
}

/// GetEntityState: one entity's state at the latest step.
async fn get_entity_state(
    mut stream: impl Stream<Item = ServiceRequest<GetEntityState::Service>> + Unpin,
    shared: Shared,
    api: Api,
    service: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(req) = stream.next().await {
        let outcome = lock(&shared).state(&req.message.entity);
        let (status, state) = split(outcome, &api, &mut throttle, &service);
        let state = state.as_ref().map(state_msg).unwrap_or_default();
        respond(req, GetEntityState::Response { result: status, state }, &service);
    }
}

/// GetEntitiesStates: the names and states the filters select, all of one step.
async fn get_entities_states(
    mut stream: impl Stream<Item = ServiceRequest<GetEntitiesStates::Service>> + Unpin,
    shared: Shared,
    api: Api,
    service: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(req) = stream.next().await {
        let outcome = lock(&shared).select(&query(&req.message.filters));
        let (status, selected) = split(outcome, &api, &mut throttle, &service);
        let (entities, states) = selected.unwrap_or_default().iter().map(|(n, s)| (n.clone(), state_msg(s))).unzip();
        respond(req, GetEntitiesStates::Response { result: status, entities, states }, &service);
    }
}

/// SetEntityState: a free body or the floating base teleported with its twist (the
/// request's acceleration ignored), answered once the loop applied it.
async fn set_entity_state(
    mut stream: impl Stream<Item = ServiceRequest<SetEntityState::Service>> + Unpin,
    shared: Shared,
    mut setter: EntitySetter,
    api: Api,
    service: String,
) {
    let mut throttle = Throttle::per_second();
    while let Some(req) = stream.next().await {
        let checked = {
            let reader = lock(&shared);
            let s = &req.message.state;
            let (p, o, l, a) = (&s.pose.position, &s.pose.orientation, &s.twist.linear, &s.twist.angular);
            let request = RequestedState {
                frame: &s.header.frame_id,
                position: [p.x, p.y, p.z],
                orientation: [o.x, o.y, o.z, o.w],
                linear: [l.x, l.y, l.z],
                angular: [a.x, a.y, a.z],
            };
            reader.entities.get(&req.message.entity).and_then(|e| check_set(&e, &request))
        };
        let outcome = match checked {
            Ok(command) => {
                let sequence = setter.send(command);
                applied(&setter, sequence).await
            }
            Err(why) => Err(why),
        };
        let (status, _) = split(outcome, &api, &mut throttle, &service);
        respond(req, SetEntityState::Response { result: status }, &service);
    }
}

/// Waits until the loop applied the set of `sequence`.
async fn applied(setter: &EntitySetter, sequence: u64) -> Result<(), Refusal> {
    let deadline = tokio::time::Instant::now() + SET_TIMEOUT;
    while !setter.applied(sequence) {
        if tokio::time::Instant::now() > deadline {
            return Err(Refusal::OperationFailed(format!(
                "the loop did not apply the state within {} s",
                SET_TIMEOUT.as_secs()
            )));
        }
        tokio::time::sleep(POLL).await;
    }
    Ok(())
}

/// The standard result of `outcome` (a refusal counted and logged) and its value.
fn split<T>(
    outcome: Result<T, Refusal>,
    api: &Api,
    throttle: &mut Throttle,
    service: &str,
) -> (msg::Result, Option<T>) {
    match outcome {
        Ok(value) => (result(&Ok(())), Some(value)),
        Err(why) => {
            api.refused(throttle, service, &why);
            (result(&Err(why)), None)
        }
    }
}
