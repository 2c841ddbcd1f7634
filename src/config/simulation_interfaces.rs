//! `simulation_interfaces:`: the standard simulator API's services (simulation_interfaces
//! 1.x) in `mode: sim` and `mode: sim+control`.

use serde::{Deserialize, Serialize};

use super::values::TopicName;

/// `simulation_interfaces:`
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    default,
    expecting = "a mapping of simulation_interfaces settings (namespace, initial_state, spawn_capacity)"
)]
pub struct SimulationInterfacesConfig {
    /// The namespace of the services and the action: `<namespace>/get_simulator_features`
    /// and so on. Default `~` (the node's name: `/signorini/...`, as Gazebo's are under
    /// `/gzserver/...`).
    pub namespace: ServiceNamespace,
    /// The state the simulation starts in: `playing` (stepping from the first period),
    /// `paused` or `stopped` (no step until SetSimulationState, StepSimulation or
    /// SimulateSteps; the two differ only in what GetSimulationState reports). Default
    /// `playing`.
    pub initial_state: InitialState,
    /// How many free bodies SpawnEntity may add while the simulation runs: slots sized in
    /// the world, the collision world and the stepper at start-up (each adds 6 velocity
    /// dofs to the contact problem's size). 0 turns spawning off (not announced). Default
    /// 16; at most [`MAX_SPAWN_CAPACITY`].
    #[serde(deserialize_with = "spawn_capacity")]
    pub spawn_capacity: usize,
}

/// The largest `simulation_interfaces.spawn_capacity`.
pub const MAX_SPAWN_CAPACITY: usize = 256;

/// `spawn_capacity`: 0 to [`MAX_SPAWN_CAPACITY`].
fn spawn_capacity<'de, D: serde::Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    let n = usize::deserialize(d)?;
    if n > MAX_SPAWN_CAPACITY {
        return Err(serde::de::Error::invalid_value(
            serde::de::Unexpected::Unsigned(n as u64),
            &"a number of spawn slots from 0 (spawning off) to 256",
        ));
    }
    Ok(n)
}

/// `simulation_interfaces.initial_state`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InitialState {
    /// STATE_PLAYING.
    #[default]
    Playing,
    /// STATE_PAUSED.
    Paused,
    /// STATE_STOPPED.
    Stopped,
}

/// A namespace for services: `~` (the node's private namespace) or a topic name
/// (`/sim`, `~/sim`, relative `sim`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ServiceNamespace(String);

impl ServiceNamespace {
    /// `Some` for `~` or a valid topic name (no trailing `/`).
    pub fn new(s: &str) -> Option<Self> {
        (s == "~" || TopicName::new(s).is_some()).then(|| Self(s.to_owned()))
    }

    /// The name of service `service` in this namespace (`~/get_simulator_features`).
    pub fn service(&self, service: &str) -> String {
        format!("{}/{service}", self.0)
    }
}

impl<'de> Deserialize<'de> for ServiceNamespace {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::new(&s).ok_or_else(|| {
            serde::de::Error::invalid_value(
                serde::de::Unexpected::Str(&s),
                &"a ROS namespace: `~` (the node's name), or a name such as /sim or ~/sim",
            )
        })
    }
}

impl Default for SimulationInterfacesConfig {
    fn default() -> Self {
        Self { namespace: ServiceNamespace("~".to_owned()), initial_state: InitialState::Playing, spawn_capacity: 16 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_are_the_private_one_or_topic_names() {
        let ns = |s: &str| ServiceNamespace::new(s).map(|n| n.service("step_simulation"));
        assert_eq!(ns("~").as_deref(), Some("~/step_simulation"));
        assert_eq!(ns("/sim").as_deref(), Some("/sim/step_simulation"));
        assert_eq!(ns("~/sim").as_deref(), Some("~/sim/step_simulation"));
        assert_eq!(ns("sim").as_deref(), Some("sim/step_simulation"));
        for bad in ["", "/", "/sim/", "1sim", "si m", "~~"] {
            assert_eq!(ns(bad), None, "{bad:?}");
        }
    }
}
