//! Configuration QoS → r2r QoS profiles.

use crate::config::{Durability, Qos, Reliability};

/// The r2r profile for `q` (history keep-last `q.depth`).
pub fn profile(q: Qos) -> r2r::QosProfile {
    let p = r2r::QosProfile::default().keep_last(q.depth);
    let p = match q.reliability {
        Reliability::Reliable => p.reliable(),
        Reliability::BestEffort => p.best_effort(),
    };
    match q.durability {
        Durability::Volatile => p.volatile(),
        Durability::TransientLocal => p.transient_local(),
    }
}
