//! What the I/O side asks of the simulator loop, lock-free: its state (playing, paused,
//! stopped), resets by scope, and steps while paused, with the checks of the standard
//! simulator API (simulation_interfaces 1.x, `msg/SimulationState.msg`,
//! `srv/SetSimulationState.srv`, `srv/ResetSimulation.srv`, `srv/StepSimulation.srv`,
//! `action/SimulateSteps.action`). No ROS here: the node's services call these, the loop
//! reads them with a few atomic operations per tick and never waits.
//!
//! - **State.** Playing steps every period; paused and stopped do not step (the loop keeps
//!   its period, nothing is published). Stopped is paused after a reset of time and state
//!   (`STATE_STOPPED`: "equivalent to pausing and resetting"). Every transition between the
//!   three is allowed (a stopped simulation "can be played. It can also be paused"); a
//!   request for the current state answers [`Refusal::AlreadyInTargetState`]; QUITTING,
//!   NO_WORLD, LOADING_WORLD and unknown values are not supported.
//! - **Resets** ([`ResetScope`]): time back to 0 and/or the robot and free bodies back to
//!   their initial state, applied by the loop at its next tick. The requester waits for
//!   its own reset by a generation number ([`ResetTicket`]).
//! - **Steps** ([`StepBudget`]): one stepping operation at a time holds the budget; the
//!   loop takes one step of it per period while paused and counts what it took and what
//!   it finished, so an operation knows exactly how many steps ran, also when it is
//!   interrupted (cancelled, the simulation played, stopped or halted).

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};

/// The simulation's state (`simulation_interfaces/msg/SimulationState`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SimulationState {
    /// `STATE_STOPPED` (0): paused at the initial state and time 0.
    Stopped = 0,
    /// `STATE_PLAYING` (1): stepping every period.
    Playing = 1,
    /// `STATE_PAUSED` (2): not stepping, except the steps asked for.
    Paused = 2,
}

/// `STATE_QUITTING` of SimulationState.msg.
pub const STATE_QUITTING: u8 = 3;
/// `STATE_NO_WORLD`.
pub const STATE_NO_WORLD: u8 = 4;
/// `STATE_LOADING_WORLD`.
pub const STATE_LOADING_WORLD: u8 = 5;

impl SimulationState {
    /// The state of a SetSimulationState request's code; QUITTING, NO_WORLD,
    /// LOADING_WORLD and unknown codes are refused as unsupported, naming the code.
    pub fn from_code(code: u8) -> Result<Self, Refusal> {
        match code {
            0 => Ok(Self::Stopped),
            1 => Ok(Self::Playing),
            2 => Ok(Self::Paused),
            STATE_QUITTING => Err(Refusal::FeatureUnsupported(
                "STATE_QUITTING (3) is not supported: stop the node with SIGINT or SIGTERM (its launch file)".into(),
            )),
            STATE_NO_WORLD | STATE_LOADING_WORLD => Err(Refusal::FeatureUnsupported(format!(
                "state {code} ({}) belongs to world loading, which signorini does not implement; \
                 settable: STATE_STOPPED (0), STATE_PLAYING (1), STATE_PAUSED (2)",
                if code == STATE_NO_WORLD { "STATE_NO_WORLD" } else { "STATE_LOADING_WORLD" }
            ))),
            _ => Err(Refusal::FeatureUnsupported(format!(
                "unknown state {code}: SimulationState defines 0 to 5; settable: STATE_STOPPED (0), \
                 STATE_PLAYING (1), STATE_PAUSED (2)"
            ))),
        }
    }

    /// The message constant's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stopped => "STATE_STOPPED",
            Self::Playing => "STATE_PLAYING",
            Self::Paused => "STATE_PAUSED",
        }
    }
}

/// Why a request was not carried out, as the standard's result codes say it
/// (`msg/Result.msg`, and `ALREADY_IN_TARGET_STATE` of SetSimulationState); each carries
/// the message for `error_message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// `RESULT_FEATURE_UNSUPPORTED` (0).
    #[error("{0}")]
    FeatureUnsupported(String),
    /// `RESULT_NOT_FOUND` (2): no entity of that name.
    #[error("{0}")]
    NotFound(String),
    /// `RESULT_INCORRECT_STATE` (3).
    #[error("{0}")]
    IncorrectState(String),
    /// `RESULT_OPERATION_FAILED` (4): the .srv and .action comments of StepSimulation and
    /// SimulateSteps name it for a step while not paused.
    #[error("{0}")]
    OperationFailed(String),
    /// `INVALID_POSE` (101) of SetEntityState: a non-finite position or not a unit
    /// quaternion.
    #[error("{0}")]
    InvalidPose(String),
    /// `ALREADY_IN_TARGET_STATE` (101) of SetSimulationState: nothing to do, not an error
    /// of the caller.
    #[error("already in {}", .0.name())]
    AlreadyInTargetState(SimulationState),
    /// A spawn's own result code (101–109 of SpawnEntity.srv and SpawnResult.msg).
    #[error("{1}")]
    Spawn(SpawnCode, String),
}

/// The additional result codes of `srv/SpawnEntity.srv` (and `msg/SpawnResult.msg`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpawnCode {
    /// `NAME_NOT_UNIQUE` (101).
    NameNotUnique = 101,
    /// `NAME_INVALID` (102).
    NameInvalid = 102,
    /// `UNSUPPORTED_FORMAT` (103).
    UnsupportedFormat = 103,
    /// `NO_RESOURCE` (104).
    NoResource = 104,
    /// `NAMESPACE_INVALID` (105).
    NamespaceInvalid = 105,
    /// `RESOURCE_PARSE_ERROR` (106).
    ResourceParseError = 106,
    /// `MISSING_ASSETS` (107).
    MissingAssets = 107,
    /// `UNSUPPORTED_ASSETS` (108).
    UnsupportedAssets = 108,
    /// `INVALID_POSE` (109).
    InvalidPose = 109,
}

impl Refusal {
    /// The result code of `msg/Result.msg` (or of SetSimulationState for 101).
    pub fn code(&self) -> u8 {
        match self {
            Self::FeatureUnsupported(_) => 0,
            Self::NotFound(_) => 2,
            Self::IncorrectState(_) => 3,
            Self::OperationFailed(_) => 4,
            Self::InvalidPose(_) | Self::AlreadyInTargetState(_) => 101,
            Self::Spawn(code, _) => *code as u8,
        }
    }

    /// Whether the caller asked for something wrong or unsupported (counted on
    /// /diagnostics); being already in the target state is not.
    pub fn is_bad_request(&self) -> bool {
        !matches!(self, Self::AlreadyInTargetState(_))
    }
}

/// What a ResetSimulation resets: a bit field of `SCOPE_TIME` (1), `SCOPE_STATE` (2) and
/// `SCOPE_SPAWNED` (4).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResetScope(u8);

impl ResetScope {
    /// `SCOPE_TIME`: simulated time back to 0 (`/clock` jumps back).
    pub const TIME: Self = Self(1);
    /// `SCOPE_STATE`: the robot and the free bodies back to their initial state, at rest
    /// as they started (a spawned body: at rest at the pose it was spawned at).
    pub const STATE: Self = Self(2);
    /// Time and state: what entering STATE_STOPPED resets (spawned bodies stay).
    pub const ALL: Self = Self(3);
    /// `SCOPE_SPAWNED`: every spawned body removed (applied by the spawn table,
    /// [`crate::app::spawning`], not by [`SimRequests`]).
    pub const SPAWNED: Self = Self(4);
    /// Time, state and spawned bodies: what SCOPE_DEFAULT and SCOPE_ALL reset ("as if it
    /// was closed and launched again").
    pub const EVERYTHING: Self = Self(7);
    /// `SCOPE_SPAWNED` of ResetSimulation.srv.
    pub const SPAWNED_BIT: u8 = 4;

    /// The scope of a request's bit field: `SCOPE_DEFAULT` (0) and `SCOPE_ALL` (255) are
    /// everything; a field with a bit the standard does not define is refused as
    /// unsupported, naming it (nothing is reset).
    pub fn from_bits(bits: u8) -> Result<Self, Refusal> {
        match bits {
            0 | 255 => Ok(Self::EVERYTHING),
            _ if bits & !Self::EVERYTHING.0 != 0 => Err(Refusal::FeatureUnsupported(format!(
                "scope {bits} has bits ResetSimulation does not define ({:#04x}); supported: SCOPE_TIME (1), \
                 SCOPE_STATE (2), SCOPE_SPAWNED (4), their sums, SCOPE_DEFAULT (0), SCOPE_ALL (255)",
                bits & !Self::EVERYTHING.0
            ))),
            _ => Ok(Self(bits)),
        }
    }

    /// Whether spawned bodies are removed.
    pub fn spawned(self) -> bool {
        self.0 & Self::SPAWNED_BIT != 0
    }

    /// The scope without its spawned bit (what [`SimRequests::reset`] applies).
    pub fn without_spawned(self) -> Self {
        Self(self.0 & Self::ALL.0)
    }

    /// Whether simulated time goes back to 0.
    pub fn time(self) -> bool {
        self.0 & Self::TIME.0 != 0
    }

    /// Whether the robot and the bodies go back to their initial state.
    pub fn state(self) -> bool {
        self.0 & Self::STATE.0 != 0
    }

    /// The bit field.
    pub fn bits(self) -> u8 {
        self.0
    }
}

/// A feature of `msg/SimulatorFeatures.msg`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Feature {
    /// `SPAWNING` (0).
    Spawning = 0,
    /// `DELETING` (1).
    Deleting = 1,
    /// `SPAWNING_RESOURCE_STRING` (9).
    SpawningResourceString = 9,
    /// `SIMULATION_RESET_SPAWNED` (23).
    SimulationResetSpawned = 23,
    /// `SPAWNING_ENTITIES` (50).
    SpawningEntities = 50,
    /// `SIMULATION_RESET` (20).
    SimulationReset = 20,
    /// `SIMULATION_RESET_TIME` (21).
    SimulationResetTime = 21,
    /// `SIMULATION_RESET_STATE` (22).
    SimulationResetState = 22,
    /// `SIMULATION_STATE_GETTING` (24).
    SimulationStateGetting = 24,
    /// `SIMULATION_STATE_SETTING` (25).
    SimulationStateSetting = 25,
    /// `SIMULATION_STATE_PAUSE` (26).
    SimulationStatePause = 26,
    /// `STEP_SIMULATION_SINGLE` (31).
    StepSimulationSingle = 31,
    /// `STEP_SIMULATION_MULTIPLE` (32).
    StepSimulationMultiple = 32,
    /// `STEP_SIMULATION_ACTION` (33).
    StepSimulationAction = 33,
    /// `ENTITY_CATEGORIES` (8): GetEntities and GetEntitiesStates filter by category.
    EntityCategories = 8,
    /// `ENTITY_STATE_GETTING` (10).
    EntityStateGetting = 10,
    /// `ENTITY_STATE_SETTING` (11).
    EntityStateSetting = 11,
}

/// The features the node implements, and only those (SIMULATION_RESET_SPAWNED, spawning,
/// entity tags, bounds and info, and worlds are not).
pub const FEATURES: [Feature; 12] = [
    Feature::EntityCategories,
    Feature::EntityStateGetting,
    Feature::EntityStateSetting,
    Feature::SimulationReset,
    Feature::SimulationResetTime,
    Feature::SimulationResetState,
    Feature::SimulationStateGetting,
    Feature::SimulationStateSetting,
    Feature::SimulationStatePause,
    Feature::StepSimulationSingle,
    Feature::StepSimulationMultiple,
    Feature::StepSimulationAction,
];

/// The features of spawning ([`crate::app::spawning`]), announced when
/// `simulation_interfaces.spawn_capacity` is not 0.
pub const SPAWN_FEATURES: [Feature; 5] = [
    Feature::Spawning,
    Feature::Deleting,
    Feature::SpawningResourceString,
    Feature::SimulationResetSpawned,
    Feature::SpawningEntities,
];

/// What a state change does: the state to store and the reset it needs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// The new state.
    pub to: SimulationState,
    /// A reset of time and state (entering STOPPED from PLAYING or PAUSED).
    pub reset: Option<ResetScope>,
}

/// The transition from `from` to `to`: every one of the three states may follow any
/// other; entering STOPPED resets time and state (a stopped simulation is already at its
/// start, so leaving it resets nothing); the same state again is
/// [`Refusal::AlreadyInTargetState`].
pub fn transition(from: SimulationState, to: SimulationState) -> Result<Transition, Refusal> {
    use SimulationState::*;
    match (from, to) {
        _ if from == to => Err(Refusal::AlreadyInTargetState(to)),
        (_, Stopped) => Ok(Transition { to, reset: Some(ResetScope::ALL) }),
        _ => Ok(Transition { to, reset: None }),
    }
}

/// A step request checked: at least one step, and the simulation paused (the .srv says
/// `RESULT_OPERATION_FAILED` otherwise).
pub fn check_steps(state: SimulationState, steps: u64) -> Result<(), Refusal> {
    if steps == 0 {
        return Err(Refusal::OperationFailed("steps must be at least 1 (got 0)".into()));
    }
    match state {
        SimulationState::Paused => Ok(()),
        other => Err(Refusal::OperationFailed(format!(
            "the simulation is {} ({}): steps run only while paused (SetSimulationState STATE_PAUSED first)",
            if other == SimulationState::Playing { "playing" } else { "stopped" },
            other.name()
        ))),
    }
}

/// A reset asked for; done once [`SimRequests::reset_done`] says so.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ResetTicket(u64);

/// Requests of the I/O side (the node's services) to the loop, lock-free.
#[derive(Debug)]
pub struct SimRequests {
    /// A [`SimulationState`] code.
    state: AtomicU8,
    /// Reset scope bits asked for (low 8 bits) and the generation that will take them
    /// (the rest): the loop takes the bits and advances the generation in one operation.
    reset_pending: AtomicU64,
    /// The last generation of resets the loop applied.
    reset_applied: AtomicU64,
    /// Steps still to run while paused.
    budget: AtomicU64,
    /// Steps the loop took from the budget, and those it finished.
    taken: AtomicU64,
    finished: AtomicU64,
    /// One stepping operation at a time holds the budget.
    stepping: AtomicBool,
    /// The loop halted on a non-finite state (`sim.on_non_finite: halt`).
    halted: AtomicBool,
    /// Simulated time of the loop's last output sample (ns).
    last_sample_ns: AtomicU64,
}

impl Default for SimRequests {
    fn default() -> Self {
        Self::new(SimulationState::Playing)
    }
}

impl SimRequests {
    /// Requests starting in `initial` (STOPPED and PAUSED alike do not step: the world is
    /// at its initial state and time 0 anyway).
    pub fn new(initial: SimulationState) -> Self {
        Self {
            state: AtomicU8::new(initial as u8),
            reset_pending: AtomicU64::new(0),
            reset_applied: AtomicU64::new(0),
            budget: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            stepping: AtomicBool::new(false),
            halted: AtomicBool::new(false),
            last_sample_ns: AtomicU64::new(0),
        }
    }

    /// The current state.
    pub fn state(&self) -> SimulationState {
        match self.state.load(Ordering::Acquire) {
            0 => SimulationState::Stopped,
            2 => SimulationState::Paused,
            _ => SimulationState::Playing,
        }
    }

    /// Changes the state as [`transition`] allows (atomically against concurrent
    /// changes); entering STOPPED also asks for the reset, whose ticket is returned.
    pub fn set_state(&self, to: SimulationState) -> Result<Option<ResetTicket>, Refusal> {
        let mut from = self.state();
        loop {
            let t = transition(from, to)?;
            match self.state.compare_exchange(from as u8, to as u8, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return Ok(t.reset.map(|scope| self.reset(scope))),
                Err(_) => from = self.state(),
            }
        }
    }

    /// Pauses (true) or plays (false), the old `~/pause`: the same as
    /// [`SimRequests::set_state`], already being there is fine.
    pub fn set_paused(&self, paused: bool) {
        let to = if paused { SimulationState::Paused } else { SimulationState::Playing };
        let _already = self.set_state(to);
    }

    /// Whether the simulation does not step by itself (paused or stopped).
    pub fn paused(&self) -> bool {
        self.state() != SimulationState::Playing
    }

    /// Asks the loop to reset `scope` at its next tick.
    pub fn reset(&self, scope: ResetScope) -> ResetTicket {
        let before = self.reset_pending.fetch_or(u64::from(scope.bits()), Ordering::AcqRel);
        ResetTicket((before >> 8) + 1)
    }

    /// Whether the reset of `ticket` was applied.
    pub fn reset_done(&self, ticket: ResetTicket) -> bool {
        self.reset_applied.load(Ordering::Acquire) >= ticket.0
    }

    /// Whether the loop halted on a non-finite state (until a reset of its state).
    pub fn halted(&self) -> bool {
        self.halted.load(Ordering::Acquire)
    }

    /// Simulated time of the loop's last output sample (ns).
    pub fn last_sample_ns(&self) -> u64 {
        self.last_sample_ns.load(Ordering::Acquire)
    }

    /// Starts a stepping operation of `steps` steps if none runs (None otherwise; try
    /// again later). The budget is the operation's until it is dropped.
    pub fn begin_steps(&self, steps: u64) -> Option<StepBudget<'_>> {
        self.stepping.compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire).ok()?;
        // Whatever an earlier, dropped operation left is void.
        self.budget.store(0, Ordering::Release);
        Some(StepBudget { requests: self, steps, start: None })
    }

    // The loop's side.

    /// For the loop: the resets asked for since the last call (taken), with their
    /// generation for [`SimRequests::reset_applied`].
    pub fn take_reset(&self) -> Option<(ResetScope, u64)> {
        let taken = self
            .reset_pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| (w & 0xff != 0).then(|| ((w >> 8) + 1) << 8))
            .ok()?;
        Some((ResetScope((taken & 0xff) as u8), (taken >> 8) + 1))
    }

    /// For the loop: the resets of `generation` are applied.
    pub fn reset_applied(&self, generation: u64) {
        self.reset_applied.store(generation, Ordering::Release);
    }

    /// For the loop: whether to step this tick, and whether the step is one of the
    /// budget's (to report to [`SimRequests::step_finished`]).
    pub fn take_step(&self) -> Option<bool> {
        if !self.paused() {
            return Some(false);
        }
        let took = self.budget.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1)).is_ok();
        took.then(|| {
            self.taken.fetch_add(1, Ordering::AcqRel);
            true
        })
    }

    /// For the loop: a step of the budget finished (its sample, if any, pushed).
    pub fn step_finished(&self) {
        self.finished.fetch_add(1, Ordering::AcqRel);
    }

    /// For the loop: whether it is halted.
    pub fn set_halted(&self, halted: bool) {
        self.halted.store(halted, Ordering::Release);
    }

    /// For the loop: the simulated time of the sample it pushed.
    pub fn sample_pushed(&self, time_ns: u64) {
        self.last_sample_ns.store(time_ns, Ordering::Release);
    }
}

/// How a stepping operation stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum StepProgress {
    /// Waiting for the loop to finish a step taken before the operation began.
    Starting,
    /// `done` of the steps finished, more to come.
    Running {
        /// Steps finished.
        done: u64,
    },
    /// All the steps finished.
    Done,
    /// Stopped early, after `done` steps (none in flight), for `why`.
    Interrupted {
        /// Steps finished.
        done: u64,
        /// Why, for the caller.
        why: Interruption,
    },
}

/// Why a stepping operation stopped early.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// Its caller cancelled it.
    Cancelled,
    /// The simulation left PAUSED (played or stopped).
    StateChanged(SimulationState),
    /// The simulation halted on a non-finite state.
    Halted,
}

/// The step budget held by one operation ([`SimRequests::begin_steps`]); dropping it voids
/// what is left of the budget.
#[derive(Debug)]
pub struct StepBudget<'a> {
    requests: &'a SimRequests,
    steps: u64,
    /// The loop's finished count when the budget was granted.
    start: Option<u64>,
}

impl StepBudget<'_> {
    /// The steps asked for.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Advances the operation (call it every so often: it grants the budget once the loop
    /// has no step in flight, then watches it): interrupted when `cancel`, when the state
    /// is no longer PAUSED or the loop halted, once the step in flight finished.
    pub fn poll(&mut self, cancel: bool) -> StepProgress {
        let r = self.requests;
        let quiet = || r.taken.load(Ordering::Acquire) == r.finished.load(Ordering::Acquire);
        let why = match (cancel, r.state(), r.halted()) {
            (true, _, _) => Some(Interruption::Cancelled),
            (_, _, true) => Some(Interruption::Halted),
            (_, SimulationState::Paused, _) => None,
            (_, other, _) => Some(Interruption::StateChanged(other)),
        };
        let Some(start) = self.start else {
            if let Some(why) = why {
                return StepProgress::Interrupted { done: 0, why };
            }
            if !quiet() {
                return StepProgress::Starting;
            }
            self.start = Some(r.finished.load(Ordering::Acquire));
            r.budget.store(self.steps, Ordering::Release);
            return StepProgress::Running { done: 0 };
        };
        if let Some(why) = why {
            r.budget.store(0, Ordering::Release);
            if !quiet() {
                return StepProgress::Running { done: r.finished.load(Ordering::Acquire) - start };
            }
            return StepProgress::Interrupted { done: r.finished.load(Ordering::Acquire) - start, why };
        }
        match r.finished.load(Ordering::Acquire) - start {
            done if done >= self.steps => StepProgress::Done,
            done => StepProgress::Running { done },
        }
    }
}

impl Drop for StepBudget<'_> {
    fn drop(&mut self) {
        self.requests.budget.store(0, Ordering::Release);
        self.requests.stepping.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SimulationState::*;

    /// The loop's side of one tick: resets, then a step if allowed (counted when budgeted).
    fn tick(r: &SimRequests, applied: &mut Vec<ResetScope>, steps: &mut u64) {
        if let Some((scope, generation)) = r.take_reset() {
            applied.push(scope);
            r.reset_applied(generation);
        }
        if let Some(budgeted) = r.take_step() {
            *steps += 1;
            if budgeted {
                r.step_finished();
            }
        }
    }

    #[test]
    fn every_transition_between_the_three_states_is_allowed_and_stopping_resets_all() {
        for from in [Stopped, Playing, Paused] {
            for to in [Stopped, Playing, Paused] {
                let t = transition(from, to);
                if from == to {
                    assert_eq!(t, Err(Refusal::AlreadyInTargetState(to)));
                    assert!(!t.unwrap_err().is_bad_request());
                    continue;
                }
                let reset = (to == Stopped).then_some(ResetScope::ALL);
                assert_eq!(t, Ok(Transition { to, reset }), "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn quitting_world_states_and_unknown_codes_are_unsupported_and_named() {
        assert_eq!(SimulationState::from_code(0), Ok(Stopped));
        assert_eq!(SimulationState::from_code(1), Ok(Playing));
        assert_eq!(SimulationState::from_code(2), Ok(Paused));
        for (code, name) in
            [(3, "STATE_QUITTING"), (4, "STATE_NO_WORLD"), (5, "STATE_LOADING_WORLD"), (7, "unknown state 7")]
        {
            let e = SimulationState::from_code(code).unwrap_err();
            assert_eq!(e.code(), 0, "{code}: RESULT_FEATURE_UNSUPPORTED");
            assert!(e.to_string().contains(name), "{e}");
            assert!(e.is_bad_request());
        }
    }

    #[test]
    fn reset_scopes_default_and_all_are_everything_and_unknown_bits_refused() {
        for bits in [0, 255] {
            assert_eq!(ResetScope::from_bits(bits), Ok(ResetScope::EVERYTHING));
        }
        let time = ResetScope::from_bits(1).unwrap();
        assert!(time.time() && !time.state() && !time.spawned());
        let state = ResetScope::from_bits(2).unwrap();
        assert!(!state.time() && state.state() && !state.spawned());
        assert_eq!(ResetScope::from_bits(3), Ok(ResetScope::ALL));
        let spawned = ResetScope::from_bits(4).unwrap();
        assert!(!spawned.time() && !spawned.state() && spawned.spawned());
        assert_eq!(ResetScope::from_bits(7).unwrap().without_spawned(), ResetScope::ALL);
        for bits in [8, 12, 128] {
            let e = ResetScope::from_bits(bits).unwrap_err();
            assert_eq!(e.code(), 0);
            assert!(e.to_string().contains(&format!("{:#04x}", bits & !7)), "{e}");
        }
    }

    #[test]
    fn steps_need_a_paused_simulation_and_at_least_one_step() {
        assert_eq!(check_steps(Paused, 1), Ok(()));
        assert_eq!(check_steps(Paused, 250), Ok(()));
        let e = check_steps(Paused, 0).unwrap_err();
        assert_eq!((e.code(), e.to_string().contains("at least 1")), (4, true));
        for state in [Playing, Stopped] {
            let e = check_steps(state, 1).unwrap_err();
            assert_eq!(e.code(), 4, "RESULT_OPERATION_FAILED, as StepSimulation.srv says");
            assert!(e.to_string().contains(state.name()), "{e}");
        }
    }

    #[test]
    fn the_features_are_the_constants_of_simulator_features_msg() {
        let codes: Vec<u16> = FEATURES.iter().map(|&f| f as u16).collect();
        assert_eq!(codes, [8, 10, 11, 20, 21, 22, 24, 25, 26, 31, 32, 33]);
        let codes: Vec<u16> = SPAWN_FEATURES.iter().map(|&f| f as u16).collect();
        assert_eq!(codes, [0, 1, 9, 23, 50]);
    }

    /// A stopped simulation does not step; played it does; stopping asks for the reset of
    /// time and state, which the next tick applies.
    #[test]
    fn stopping_pauses_and_resets_at_the_next_tick() {
        let r = SimRequests::new(Stopped);
        let (mut applied, mut steps) = (vec![], 0);
        tick(&r, &mut applied, &mut steps);
        assert_eq!(steps, 0);
        assert_eq!(r.set_state(Playing), Ok(None));
        tick(&r, &mut applied, &mut steps);
        assert_eq!(steps, 1);
        let ticket = r.set_state(Stopped).unwrap().expect("a reset");
        assert!(!r.reset_done(ticket));
        tick(&r, &mut applied, &mut steps);
        assert!(r.reset_done(ticket));
        assert_eq!((applied, steps), (vec![ResetScope::ALL], 1));
        assert_eq!(r.set_state(Stopped), Err(Refusal::AlreadyInTargetState(Stopped)));
    }

    /// Two resets asked for before a tick are applied together; a ticket is done only
    /// once the tick that took its bits applied them, not by an earlier generation.
    #[test]
    fn a_reset_ticket_waits_for_its_own_generation() {
        let r = SimRequests::default();
        let (mut applied, mut steps) = (vec![], 0);
        let a = r.reset(ResetScope::TIME);
        let b = r.reset(ResetScope::STATE);
        let taken = r.take_reset().unwrap();
        assert_eq!(taken.0, ResetScope::ALL);
        let c = r.reset(ResetScope::TIME); // asked while the loop applies a and b
        r.reset_applied(taken.1);
        assert!(r.reset_done(a) && r.reset_done(b));
        assert!(!r.reset_done(c), "c's bits were not taken yet");
        tick(&r, &mut applied, &mut steps);
        assert!(r.reset_done(c));
        assert_eq!(applied, vec![ResetScope::TIME]);
    }

    #[test]
    fn a_budget_runs_exactly_its_steps_while_paused() {
        let r = SimRequests::new(Paused);
        let (mut applied, mut steps) = (vec![], 0);
        let mut op = r.begin_steps(3).unwrap();
        assert!(r.begin_steps(1).is_none(), "one operation at a time");
        assert_eq!(op.poll(false), StepProgress::Running { done: 0 });
        for k in 1..=2 {
            tick(&r, &mut applied, &mut steps);
            assert_eq!(op.poll(false), StepProgress::Running { done: k });
        }
        tick(&r, &mut applied, &mut steps);
        assert_eq!(op.poll(false), StepProgress::Done);
        for _ in 0..5 {
            tick(&r, &mut applied, &mut steps);
        }
        assert_eq!(steps, 3, "nothing beyond the budget");
        drop(op);
        assert!(r.begin_steps(1).is_some(), "free again");
    }

    /// A cancel (or a state change) voids the budget; the operation reports its steps once
    /// the step the loop had taken finished, exactly.
    #[test]
    fn an_interrupted_budget_counts_the_step_in_flight() {
        for how in ["cancel", "play", "stop", "halt"] {
            let r = SimRequests::new(Paused);
            let (mut applied, mut steps) = (vec![], 0);
            let mut op = r.begin_steps(10).unwrap();
            op.poll(false);
            tick(&r, &mut applied, &mut steps);
            tick(&r, &mut applied, &mut steps);
            // The loop takes a third step and is still running it when the interruption
            // comes.
            assert_eq!(r.take_step(), Some(true));
            match how {
                "play" => assert_eq!(r.set_state(Playing), Ok(None)),
                "stop" => assert!(r.set_state(Stopped).is_ok()),
                "halt" => r.set_halted(true),
                _ => {}
            }
            let cancel = how == "cancel";
            assert_eq!(op.poll(cancel), StepProgress::Running { done: 2 }, "{how}: a step in flight");
            r.step_finished();
            let why = match how {
                "cancel" => Interruption::Cancelled,
                "play" => Interruption::StateChanged(Playing),
                "stop" => Interruption::StateChanged(Stopped),
                _ => Interruption::Halted,
            };
            assert_eq!(op.poll(cancel), StepProgress::Interrupted { done: 3, why }, "{how}");
            if how == "cancel" {
                tick(&r, &mut applied, &mut steps);
                assert_eq!(steps, 2, "{how}: no step after the cancel");
            }
        }
    }

    /// An operation begun while an earlier (dropped) one's step is in flight starts
    /// counting only once that step finished.
    #[test]
    fn a_new_budget_waits_for_the_step_in_flight() {
        let r = SimRequests::new(Paused);
        let mut first = r.begin_steps(5).unwrap();
        first.poll(false);
        assert_eq!(r.take_step(), Some(true));
        drop(first);
        let mut second = r.begin_steps(2).unwrap();
        assert_eq!(second.poll(false), StepProgress::Starting);
        r.step_finished();
        assert_eq!(second.poll(false), StepProgress::Running { done: 0 });
        let (mut applied, mut steps) = (vec![], 0);
        tick(&r, &mut applied, &mut steps);
        tick(&r, &mut applied, &mut steps);
        assert_eq!(second.poll(false), StepProgress::Done);
        assert_eq!(steps, 2);
    }

    #[test]
    fn the_old_pause_switch_plays_and_pauses_from_any_state() {
        let r = SimRequests::new(Stopped);
        r.set_paused(true);
        assert_eq!(r.state(), Paused);
        r.set_paused(true);
        assert_eq!(r.state(), Paused);
        r.set_paused(false);
        assert_eq!(r.state(), Playing);
        assert!(!r.paused());
    }
}
