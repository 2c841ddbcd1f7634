//! The standard simulator API (simulation_interfaces 1.x, as Gazebo, Isaac Sim and O3DE
//! answer it), simulation-state half: GetSimulatorFeatures, GetSimulationState,
//! SetSimulationState, ResetSimulation, StepSimulation and the SimulateSteps action, under
//! `simulation_interfaces.namespace` (default `~`: `/signorini/get_simulator_features`),
//! named as Gazebo names them (the snake_case of the interface).
//!
//! Each request is checked by the library ([`crate::app::sim_requests`]) and reaches the
//! loop through [`SimRequests`]'s atomics; waiting for the loop polls them on the async
//! side ([`super::simulation_control`]). Every answer carries the standard's result code:
//! a refused request (unsupported, or wrong: a step while not paused, zero steps) names
//! what is wrong in `error_message`, is counted (`simulation_requests_refused_total` on
//! /diagnostics) and logged at most once per second per service; the simulation runs on.
//!
//! Built without the simulation_interfaces package (not installed, or not in
//! IDL_PACKAGE_FILTER), [`serve`] only says once that the services are off.

#[cfg(not(signorini_simulation_interfaces))]
pub use disabled::serve;

#[cfg(not(signorini_simulation_interfaces))]
mod disabled {
    use std::sync::Arc;

    use super::super::node::NodeError;
    use super::super::supervision::Tasks;
    use crate::app::{SimRequests, Spawns};
    use crate::config::SimulationInterfacesConfig;
    use crate::runtime::Counters;

    /// Built without simulation_interfaces: says once that the standard services are off.
    pub fn serve(
        _node: &mut r2r::Node,
        config: &SimulationInterfacesConfig,
        _requests: Arc<SimRequests>,
        _spawns: Arc<Spawns>,
        _entities: crate::app::EntityEnds,
        _counters: Arc<Counters>,
        _tasks: &mut Tasks,
    ) -> Result<(), NodeError> {
        r2r::log_warn!(
            crate::config::NODE_NAME,
            "the standard simulator services ({}) are off: signorini was built without simulation_interfaces \
         (not installed then, or not in IDL_PACKAGE_FILTER); ~/reset, ~/pause and ~/step remain",
            config.namespace.service("*")
        );
        Ok(())
    }
}

#[cfg(signorini_simulation_interfaces)]
pub(super) use enabled::{Api, respond, result, serve, service};

#[cfg(signorini_simulation_interfaces)]
pub(super) mod enabled {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use futures::{Stream, StreamExt};
    use r2r::simulation_interfaces::action::SimulateSteps;
    use r2r::simulation_interfaces::msg::{self, SimulatorFeatures};
    use r2r::simulation_interfaces::srv::{
        DeleteEntity, GetSimulationState, GetSimulatorFeatures, ResetSimulation, SetEntityState, SetSimulationState,
        SpawnEntities, SpawnEntity, StepSimulation,
    };
    use r2r::{QosProfile, ServiceRequest, WrappedServiceTypeSupport};

    use super::super::entity_services;
    use super::super::node::NodeError;
    use super::super::simulation_control::{self, Stepped};
    use super::super::supervision::Tasks;
    use crate::app::sim_requests::{FEATURES, Feature, Refusal, SPAWN_FEATURES, SpawnCode, check_steps};
    use crate::app::spawning::{self, SpawnRequest};
    use crate::app::{EntityEnds, ResetScope, SimRequests, SimulationState, Spawns};
    use crate::config::{NODE_NAME, SimulationInterfacesConfig};
    use crate::runtime::throttle::also;
    use crate::runtime::{Counters, Throttle};

    /// What GetSimulatorFeatures says besides the feature list.
    const CUSTOM_INFO: &str = "signorini: ResetSimulation scopes TIME, STATE and SPAWNED (DEFAULT and ALL: all \
         three); StepSimulation and SimulateSteps only while STATE_PAUSED (RESULT_OPERATION_FAILED otherwise); \
         SpawnEntity/SpawnEntities: free rigid bodies from a URDF resource_string of one link with one box, sphere \
         or cylinder collision and an <inertial> mass (no uri), in frame world, up to \
         simulation_interfaces.spawn_capacity at a time; DeleteEntity: spawned entities only; entities: the robot \
         (its URDF name, or each robot's namespace), its links (<robot>/<link>), the free bodies, the environment's \
         shapes; states in world, twist and acceleration in world axes at the entity's origin, acceleration the \
         last step's dv/dt; SetEntityState moves free bodies and floating bases; bounds: spheres; no tags or worlds";

    /// The requests and where refusals are counted.
    #[derive(Clone)]
    pub(in crate::ros) struct Api {
        pub(in crate::ros) requests: Arc<SimRequests>,
        pub(in crate::ros) spawns: Arc<Spawns>,
        pub(in crate::ros) counters: Arc<Counters>,
    }

    impl Api {
        /// Counts and logs (throttled) a refusal of `service` that is the caller's.
        pub(in crate::ros) fn refused(&self, throttle: &mut Throttle, service: &str, why: &Refusal) {
            if !why.is_bad_request() {
                return;
            }
            Counters::bump(&self.counters.simulation_requests_refused);
            if let Some(n) = throttle.event() {
                r2r::log_warn!(NODE_NAME, "{service}: refused: {why}{}", also(n));
            }
        }
    }

    /// Creates the services and the action under `config.namespace` and adds their tasks.
    pub fn serve(
        node: &mut r2r::Node,
        config: &SimulationInterfacesConfig,
        requests: Arc<SimRequests>,
        spawns: Arc<Spawns>,
        entities: EntityEnds,
        counters: Arc<Counters>,
        tasks: &mut Tasks,
    ) -> Result<(), NodeError> {
        let api = Api { requests, spawns, counters };
        entity_services::serve(node, config, entities, api.clone(), tasks)?;
        let name = |service: &str| config.namespace.service(service);
        let features = service::<GetSimulatorFeatures::Service>(node, &name("get_simulator_features"))?;
        let spawning = config.spawn_capacity > 0;
        tasks.spawn(name("get_simulator_features"), get_simulator_features(features, spawning));
        if spawning {
            serve_spawning(node, config, &api, tasks)?;
        }
        let get_state = service::<GetSimulationState::Service>(node, &name("get_simulation_state"))?;
        tasks.spawn(name("get_simulation_state"), get_simulation_state(get_state, api.clone()));
        let set_state = service::<SetSimulationState::Service>(node, &name("set_simulation_state"))?;
        tasks.spawn(
            name("set_simulation_state"),
            set_simulation_state(set_state, api.clone(), name("set_simulation_state")),
        );
        let reset = service::<ResetSimulation::Service>(node, &name("reset_simulation"))?;
        tasks.spawn(name("reset_simulation"), reset_simulation(reset, api.clone(), name("reset_simulation")));
        let step = service::<StepSimulation::Service>(node, &name("step_simulation"))?;
        tasks.spawn(name("step_simulation"), step_simulation(step, api.clone(), name("step_simulation")));
        let action = name("simulate_steps");
        let goals = node
            .create_action_server::<SimulateSteps::Action>(&action)
            .map_err(|source| NodeError::Ros { what: format!("creating the action server {action}"), source })?;
        tasks.spawn(action.clone(), simulate_steps(goals, api, action));
        Ok(())
    }

    /// SpawnEntity, SpawnEntities and DeleteEntity.
    fn serve_spawning(
        node: &mut r2r::Node,
        config: &SimulationInterfacesConfig,
        api: &Api,
        tasks: &mut Tasks,
    ) -> Result<(), NodeError> {
        let name = |service: &str| config.namespace.service(service);
        let spawn = service::<SpawnEntity::Service>(node, &name("spawn_entity"))?;
        tasks.spawn(name("spawn_entity"), spawn_entity(spawn, api.clone(), name("spawn_entity")));
        let spawn_all = service::<SpawnEntities::Service>(node, &name("spawn_entities"))?;
        tasks.spawn(name("spawn_entities"), spawn_entities(spawn_all, api.clone(), name("spawn_entities")));
        let delete = service::<DeleteEntity::Service>(node, &name("delete_entity"))?;
        tasks.spawn(name("delete_entity"), delete_entity(delete, api.clone(), name("delete_entity")));
        Ok(())
    }

    /// A service named `name`.
    pub(in crate::ros) fn service<T: WrappedServiceTypeSupport + 'static>(
        node: &mut r2r::Node,
        name: &str,
    ) -> Result<impl Stream<Item = ServiceRequest<T>> + Unpin + Send + use<T>, NodeError> {
        node.create_service::<T>(name, QosProfile::services_default())
            .map_err(|source| NodeError::Ros { what: format!("creating the service {name}"), source })
    }

    /// Sends `response`; a failure (the client gone) is logged.
    pub(in crate::ros) fn respond<T: WrappedServiceTypeSupport + 'static>(
        req: ServiceRequest<T>,
        response: T::Response,
        service: &str,
    ) {
        if req.respond(response).is_err() {
            r2r::log_warn!(NODE_NAME, "{service}: could not send the response");
        }
    }

    /// The standard result of an outcome.
    pub(in crate::ros) fn result(outcome: &Result<(), Refusal>) -> msg::Result {
        let (result, error_message) = match outcome {
            Ok(()) => (msg::Result::RESULT_OK as u8, String::new()),
            Err(why) => (result_code(why), why.to_string()),
        };
        msg::Result { result, error_message }
    }

    /// The generated constant of a refusal's code.
    fn result_code(why: &Refusal) -> u8 {
        match why {
            Refusal::FeatureUnsupported(_) => msg::Result::RESULT_FEATURE_UNSUPPORTED as u8,
            Refusal::NotFound(_) => msg::Result::RESULT_NOT_FOUND as u8,
            Refusal::InvalidPose(_) => SetEntityState::Response::INVALID_POSE as u8,
            Refusal::IncorrectState(_) => msg::Result::RESULT_INCORRECT_STATE as u8,
            Refusal::OperationFailed(_) => msg::Result::RESULT_OPERATION_FAILED as u8,
            Refusal::AlreadyInTargetState(_) => SetSimulationState::Response::ALREADY_IN_TARGET_STATE as u8,
            Refusal::Spawn(code, _) => spawn_code(*code),
        }
    }

    /// The generated constant of a spawn's code.
    fn spawn_code(code: SpawnCode) -> u8 {
        use SpawnEntity::Response as R;
        match code {
            SpawnCode::NameNotUnique => R::NAME_NOT_UNIQUE as u8,
            SpawnCode::NameInvalid => R::NAME_INVALID as u8,
            SpawnCode::UnsupportedFormat => R::UNSUPPORTED_FORMAT as u8,
            SpawnCode::NoResource => R::NO_RESOURCE as u8,
            SpawnCode::NamespaceInvalid => R::NAMESPACE_INVALID as u8,
            SpawnCode::ResourceParseError => R::RESOURCE_PARSE_ERROR as u8,
            SpawnCode::MissingAssets => R::MISSING_ASSETS as u8,
            SpawnCode::UnsupportedAssets => R::UNSUPPORTED_ASSETS as u8,
            SpawnCode::InvalidPose => R::INVALID_POSE as u8,
        }
    }

    /// The generated constant of a feature.
    fn feature_code(feature: Feature) -> u16 {
        match feature {
            Feature::Spawning => SimulatorFeatures::SPAWNING as u16,
            Feature::Deleting => SimulatorFeatures::DELETING as u16,
            Feature::SpawningResourceString => SimulatorFeatures::SPAWNING_RESOURCE_STRING as u16,
            Feature::SimulationResetSpawned => SimulatorFeatures::SIMULATION_RESET_SPAWNED as u16,
            Feature::SpawningEntities => SimulatorFeatures::SPAWNING_ENTITIES as u16,
            Feature::SimulationReset => SimulatorFeatures::SIMULATION_RESET as u16,
            Feature::SimulationResetTime => SimulatorFeatures::SIMULATION_RESET_TIME as u16,
            Feature::SimulationResetState => SimulatorFeatures::SIMULATION_RESET_STATE as u16,
            Feature::SimulationStateGetting => SimulatorFeatures::SIMULATION_STATE_GETTING as u16,
            Feature::SimulationStateSetting => SimulatorFeatures::SIMULATION_STATE_SETTING as u16,
            Feature::SimulationStatePause => SimulatorFeatures::SIMULATION_STATE_PAUSE as u16,
            Feature::StepSimulationSingle => SimulatorFeatures::STEP_SIMULATION_SINGLE as u16,
            Feature::StepSimulationMultiple => SimulatorFeatures::STEP_SIMULATION_MULTIPLE as u16,
            Feature::StepSimulationAction => SimulatorFeatures::STEP_SIMULATION_ACTION as u16,
            Feature::EntityCategories => SimulatorFeatures::ENTITY_CATEGORIES as u16,
            Feature::EntityStateGetting => SimulatorFeatures::ENTITY_STATE_GETTING as u16,
            Feature::EntityStateSetting => SimulatorFeatures::ENTITY_STATE_SETTING as u16,
        }
    }

    /// The generated constant of a state.
    fn state_code(state: SimulationState) -> u8 {
        match state {
            SimulationState::Stopped => msg::SimulationState::STATE_STOPPED as u8,
            SimulationState::Playing => msg::SimulationState::STATE_PLAYING as u8,
            SimulationState::Paused => msg::SimulationState::STATE_PAUSED as u8,
        }
    }

    /// GetSimulatorFeatures: exactly the implemented features ([`FEATURES`], and
    /// [`SPAWN_FEATURES`] with `spawning`).
    async fn get_simulator_features(
        mut stream: impl Stream<Item = ServiceRequest<GetSimulatorFeatures::Service>> + Unpin,
        spawning: bool,
    ) {
        let spawn_features = if spawning { SPAWN_FEATURES.as_slice() } else { &[] };
        while let Some(req) = stream.next().await {
            let features = SimulatorFeatures {
                features: FEATURES.iter().chain(spawn_features).map(|&f| feature_code(f)).collect(),
                spawn_formats: if spawning { vec!["urdf".to_owned()] } else { Vec::new() },
                custom_info: CUSTOM_INFO.to_owned(),
            };
            respond(req, GetSimulatorFeatures::Response { features }, "get_simulator_features");
        }
    }

    /// GetSimulationState: STOPPED, PLAYING or PAUSED.
    async fn get_simulation_state(
        mut stream: impl Stream<Item = ServiceRequest<GetSimulationState::Service>> + Unpin,
        api: Api,
    ) {
        while let Some(req) = stream.next().await {
            let state = msg::SimulationState { state: state_code(api.requests.state()) };
            respond(req, GetSimulationState::Response { state, result: result(&Ok(())) }, "get_simulation_state");
        }
    }

    /// SetSimulationState: any of the three states from any other (STOPPED resets time and
    /// state, answered once the loop applied it); ALREADY_IN_TARGET_STATE for the current
    /// one; QUITTING, the world states and unknown values unsupported.
    async fn set_simulation_state(
        mut stream: impl Stream<Item = ServiceRequest<SetSimulationState::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let outcome = match SimulationState::from_code(req.message.state.state) {
                Ok(to) => simulation_control::set_state(&api.requests, to).await,
                Err(why) => Err(why),
            };
            if let Err(why) = &outcome {
                api.refused(&mut throttle, &service, why);
            }
            respond(req, SetSimulationState::Response { result: result(&outcome) }, &service);
        }
    }

    /// A reset of `scope`: the spawned bodies deleted (SPAWNED), then time and state;
    /// returns once the loop applied all.
    async fn reset(api: &Api, scope: ResetScope) -> Result<(), Refusal> {
        if scope.spawned()
            && let Some(ticket) = api.spawns.delete_all()?
        {
            simulation_control::spawn_applied(&api.spawns, ticket).await?;
        }
        match scope.without_spawned() {
            rest if rest.bits() != 0 => simulation_control::reset(&api.requests, rest).await,
            _ => Ok(()),
        }
    }

    /// ResetSimulation: TIME, STATE, SPAWNED and their sums (DEFAULT, ALL: all three);
    /// undefined bits unsupported. Answered once the loop applied it.
    async fn reset_simulation(
        mut stream: impl Stream<Item = ServiceRequest<ResetSimulation::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let outcome = match ResetScope::from_bits(req.message.scope) {
                Ok(scope) => reset(&api, scope).await,
                Err(why) => Err(why),
            };
            if let Err(why) = &outcome {
                api.refused(&mut throttle, &service, why);
            }
            respond(req, ResetSimulation::Response { result: result(&outcome) }, &service);
        }
    }

    /// The library's request of a SpawnEntity request's fields.
    fn spawn_request(
        (name, allow_renaming, uri, resource_string, entity_namespace): (&str, bool, &str, &str, &str),
        pose: &r2r::geometry_msgs::msg::PoseStamped,
    ) -> SpawnRequest {
        let (p, q) = (&pose.pose.position, &pose.pose.orientation);
        SpawnRequest {
            name: name.to_owned(),
            allow_renaming,
            uri: uri.to_owned(),
            resource_string: resource_string.to_owned(),
            entity_namespace: entity_namespace.to_owned(),
            frame_id: pose.header.frame_id.clone(),
            position: [p.x, p.y, p.z],
            orientation: [q.x, q.y, q.z, q.w],
        }
    }

    /// One spawn: checked and built here, applied by the loop; the entity's name once it
    /// is in the simulation.
    async fn spawn(api: &Api, request: &SpawnRequest) -> Result<String, Refusal> {
        let prepared = spawning::prepare(request)?;
        let (name, ticket) = api.spawns.spawn(prepared)?;
        simulation_control::spawn_applied(&api.spawns, ticket).await?;
        Ok(name)
    }

    /// SpawnEntity: a free body from a URDF resource_string (see [`spawning`]).
    async fn spawn_entity(
        mut stream: impl Stream<Item = ServiceRequest<SpawnEntity::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let m = &req.message;
            let fields = (
                m.name.as_str(),
                m.allow_renaming,
                m.uri.as_str(),
                m.resource_string.as_str(),
                m.entity_namespace.as_str(),
            );
            let outcome = spawn(&api, &spawn_request(fields, &m.initial_pose)).await;
            if let Err(why) = &outcome {
                api.refused(&mut throttle, &service, why);
            }
            let entity_name = outcome.as_ref().map_or_else(|_| String::new(), Clone::clone);
            let response = SpawnEntity::Response { result: result(&outcome.map(|_| ())), entity_name };
            respond(req, response, &service);
        }
    }

    /// SpawnEntities: each request as SpawnEntity, in order; ENTITIES_SPAWN_FAILED when
    /// any failed (the others are spawned), each refusal counted.
    async fn spawn_entities(
        mut stream: impl Stream<Item = ServiceRequest<SpawnEntities::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let mut results = Vec::with_capacity(req.message.spawn_requests.len());
            let mut failed = 0;
            for m in &req.message.spawn_requests {
                let r = &m.entity_resource;
                let fields = (
                    m.name.as_str(),
                    m.allow_renaming,
                    r.uri.as_str(),
                    r.resource_string.as_str(),
                    m.entity_namespace.as_str(),
                );
                let outcome = spawn(&api, &spawn_request(fields, &m.initial_pose)).await;
                if let Err(why) = &outcome {
                    api.refused(&mut throttle, &service, why);
                    failed += 1;
                }
                let entity_name = outcome.as_ref().map_or_else(|_| String::new(), Clone::clone);
                results.push(msg::SpawnResult { result: result(&outcome.map(|_| ())), entity_name });
            }
            let result = match failed {
                0 => result(&Ok(())),
                n => msg::Result {
                    result: SpawnEntities::Response::ENTITIES_SPAWN_FAILED as u8,
                    error_message: format!("{n} of {} spawn requests failed: see results", results.len()),
                },
            };
            respond(req, SpawnEntities::Response { result, results }, &service);
        }
    }

    /// DeleteEntity: a spawned entity, by the name SpawnEntity returned.
    async fn delete_entity(
        mut stream: impl Stream<Item = ServiceRequest<DeleteEntity::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let outcome = match api.spawns.delete(&req.message.entity) {
                Ok(ticket) => simulation_control::spawn_applied(&api.spawns, ticket).await,
                Err(why) => Err(why),
            };
            if let Err(why) = &outcome {
                api.refused(&mut throttle, &service, why);
            }
            respond(req, DeleteEntity::Response { result: result(&outcome) }, &service);
        }
    }

    /// StepSimulation: answered once exactly `steps` steps ran and the last one's sample
    /// was published; each call in its own task (the others are answered meanwhile).
    async fn step_simulation(
        mut stream: impl Stream<Item = ServiceRequest<StepSimulation::Service>> + Unpin,
        api: Api,
        service: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(req) = stream.next().await {
            let steps = req.message.steps;
            if let Err(why) = check_steps(api.requests.state(), steps) {
                api.refused(&mut throttle, &service, &why);
                respond(req, StepSimulation::Response { result: result(&Err(why)) }, &service);
                continue;
            }
            let (api, service) = (api.clone(), service.clone());
            tokio::spawn(async move {
                let outcome = simulation_control::run_steps(&api.requests, &api.counters, steps, || false, |_| {});
                let outcome = match outcome.await {
                    Ok(Stepped::Done | Stepped::Cancelled { .. }) => Ok(()),
                    Ok(Stepped::Interrupted(why)) => Err(why),
                    Err(why) => {
                        api.refused(&mut Throttle::per_second(), &service, &why);
                        Err(why)
                    }
                };
                respond(req, StepSimulation::Response { result: result(&outcome) }, &service);
            });
        }
    }

    /// SimulateSteps: each goal is accepted (so that a refusal reaches the caller as the
    /// result, as the .action says) and then refused by an aborted result unless paused
    /// with steps ≥ 1; else its steps run with a feedback whenever steps completed (every
    /// step at 1 kHz, at most one per millisecond faster), until done (succeeded, OK), cancelled
    /// (stepping stops at once; canceled, OK, the steps done in the last feedback and the
    /// message) or interrupted (aborted, OPERATION_FAILED).
    async fn simulate_steps(
        mut goals: impl Stream<Item = r2r::ActionServerGoalRequest<SimulateSteps::Action>> + Unpin,
        api: Api,
        action: String,
    ) {
        let mut throttle = Throttle::per_second();
        while let Some(request) = goals.next().await {
            let steps = request.goal.steps;
            let (mut goal, cancels) = match request.accept() {
                Ok(accepted) => accepted,
                Err(e) => {
                    r2r::log_warn!(NODE_NAME, "{action}: could not accept a goal: {e}");
                    continue;
                }
            };
            if let Err(why) = check_steps(api.requests.state(), steps) {
                api.refused(&mut throttle, &action, &why);
                if goal.abort(SimulateSteps::Result { result: result(&Err(why)) }).is_err() {
                    r2r::log_warn!(NODE_NAME, "{action}: could not send a result");
                }
                continue;
            }
            tokio::spawn(run_goal(goal, cancels, api.clone(), action.clone()));
        }
    }

    /// One accepted goal of SimulateSteps, run to its end.
    async fn run_goal(
        mut goal: r2r::ActionServerGoal<SimulateSteps::Action>,
        mut cancels: impl Stream<Item = r2r::ActionServerCancelRequest> + Unpin + Send + 'static,
        api: Api,
        action: String,
    ) {
        let steps = goal.goal.steps;
        let cancelled = Arc::new(AtomicBool::new(false));
        let watcher = {
            let cancelled = cancelled.clone();
            tokio::spawn(async move {
                if let Some(request) = cancels.next().await {
                    request.accept();
                    cancelled.store(true, Ordering::Release);
                }
            })
        };
        let feedback = {
            let goal = goal.clone();
            move |done: u64| {
                let feedback = SimulateSteps::Feedback { completed_steps: done, remaining_steps: steps - done };
                let _ = goal.publish_feedback(feedback);
            }
        };
        let is_cancelled = move || cancelled.load(Ordering::Acquire);
        let outcome = simulation_control::run_steps(&api.requests, &api.counters, steps, is_cancelled, feedback).await;
        watcher.abort();
        let sent = match outcome {
            Ok(Stepped::Done) => goal.succeed(SimulateSteps::Result { result: result(&Ok(())) }),
            Ok(Stepped::Cancelled { done }) => {
                let _ = goal
                    .publish_feedback(SimulateSteps::Feedback { completed_steps: done, remaining_steps: steps - done });
                let message = format!("cancelled after {done} of {steps} steps");
                let result = msg::Result { result: msg::Result::RESULT_OK as u8, error_message: message };
                goal.cancel(SimulateSteps::Result { result })
            }
            Ok(Stepped::Interrupted(why)) => goal.abort(SimulateSteps::Result { result: result(&Err(why)) }),
            Err(why) => {
                api.refused(&mut Throttle::per_second(), &action, &why);
                goal.abort(SimulateSteps::Result { result: result(&Err(why)) })
            }
        };
        if sent.is_err() {
            r2r::log_warn!(NODE_NAME, "{action}: could not send a result");
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// The library's codes are the generated package's constants.
        #[test]
        fn the_library_codes_are_the_generated_constants() {
            for f in FEATURES.into_iter().chain(SPAWN_FEATURES) {
                assert_eq!(feature_code(f), f as u16, "{f:?}");
            }
            use SpawnCode::*;
            for c in [NameNotUnique, NameInvalid, UnsupportedFormat, NoResource, NamespaceInvalid, ResourceParseError] {
                assert_eq!(spawn_code(c), c as u8, "{c:?}");
            }
            for c in [MissingAssets, UnsupportedAssets, InvalidPose] {
                assert_eq!(spawn_code(c), c as u8, "{c:?}");
                assert_eq!(c as u8, msg::SpawnResult::NAME_NOT_UNIQUE as u8 + (c as u8 - 101));
            }
            for s in [SimulationState::Stopped, SimulationState::Playing, SimulationState::Paused] {
                assert_eq!(state_code(s), s as u8, "{s:?}");
            }
            let refusals = [
                Refusal::FeatureUnsupported(String::new()),
                Refusal::NotFound(String::new()),
                Refusal::InvalidPose(String::new()),
                Refusal::IncorrectState(String::new()),
                Refusal::OperationFailed(String::new()),
                Refusal::AlreadyInTargetState(SimulationState::Paused),
                Refusal::NotFound(String::new()),
                Refusal::Spawn(SpawnCode::InvalidPose, String::new()),
            ];
            for r in refusals {
                assert_eq!(result_code(&r), r.code(), "{r:?}");
            }
            let quitting = crate::app::sim_requests::STATE_QUITTING;
            assert_eq!(quitting, msg::SimulationState::STATE_QUITTING as u8);
            assert_eq!(crate::app::sim_requests::STATE_NO_WORLD, msg::SimulationState::STATE_NO_WORLD as u8);
            assert_eq!(crate::app::sim_requests::STATE_LOADING_WORLD, msg::SimulationState::STATE_LOADING_WORLD as u8);
            let scope = ResetScope::from_bits;
            assert_eq!(scope(ResetSimulation::Request::SCOPE_TIME as u8), Ok(ResetScope::TIME));
            assert_eq!(scope(ResetSimulation::Request::SCOPE_STATE as u8), Ok(ResetScope::STATE));
            assert_eq!(scope(ResetSimulation::Request::SCOPE_DEFAULT as u8), Ok(ResetScope::EVERYTHING));
            assert_eq!(scope(ResetSimulation::Request::SCOPE_ALL as u8), Ok(ResetScope::EVERYTHING));
            assert_eq!(scope(ResetSimulation::Request::SCOPE_SPAWNED as u8), Ok(ResetScope::SPAWNED));
            assert_eq!(ResetSimulation::Request::SCOPE_SPAWNED as u8, ResetScope::SPAWNED_BIT);
        }
    }
}
