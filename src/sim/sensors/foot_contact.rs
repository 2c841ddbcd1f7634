//! The foot contact sensor: whether a link touches something, with a normal-force
//! threshold and a debounce, and the normal force.
//!
//! The normal force is Σ λ_N/Δt over the step's contacts involving one of the link's
//! collision objects (N, each contact along its own normal). The raw state is "in contact"
//! when the normal force exceeds the threshold; the reported flag takes a new raw state
//! only once it has held for `debounce` seconds (consecutive steps spanning at least that
//! long), so a foot chattering on touchdown switches once.

use crate::collision::Contact;

/// A foot contact sensor's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct FootContactSettings {
    /// Name (the link's, as published).
    pub name: String,
    /// The collision objects of the link (indices in the collision world).
    pub objects: Vec<usize>,
    /// Normal force (N) above which the link is in contact.
    pub threshold: f64,
    /// Steps a new raw state must hold before the flag takes it (⌈debounce/Δt⌉).
    pub debounce_steps: u64,
    /// Published every this many steps (≥ 1); the flag is updated every step.
    pub every: u64,
}

/// One foot contact reading.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct FootContactReading {
    /// The debounced contact flag.
    pub contact: bool,
    /// The normal force (N) of the last step.
    pub normal_force: f64,
}

/// The debounced flag of one sensor.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Debounce {
    flag: bool,
    /// Consecutive steps the raw state has differed from the flag.
    differing: u64,
}

impl Debounce {
    /// The flag after a step whose raw state is `raw`: it changes once `raw` has differed
    /// from it for `steps` + 1 consecutive steps (held for `steps`·Δt after the first).
    pub fn update(&mut self, raw: bool, steps: u64) -> bool {
        if raw == self.flag {
            self.differing = 0;
        } else {
            self.differing += 1;
            if self.differing > steps {
                self.flag = raw;
                self.differing = 0;
            }
        }
        self.flag
    }
}

/// The normal force (N) on `objects` from `contacts` and their impulses `lambda` (3 each,
/// N last) over a step `dt`; 0 when an impulse is not finite (the step did not apply them).
pub fn normal_force(contacts: &[Contact], lambda: &[f64], dt: f64, objects: &[usize]) -> f64 {
    if !lambda.iter().all(|x| x.is_finite()) {
        return 0.0;
    }
    contacts
        .iter()
        .zip(lambda.chunks_exact(3))
        .filter(|(c, _)| objects.contains(&c.object1) || objects.contains(&c.object2))
        .map(|(_, l)| l[2] / dt)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With a debounce of 2 steps, a raw state must hold 3 consecutive steps; a one-step
    /// chatter never reaches the flag.
    #[test]
    fn the_flag_changes_only_after_the_new_state_held() {
        let mut d = Debounce::default();
        let raw = [true, false, true, true, true, true, false, true, false, false, false];
        let flags: Vec<bool> = raw.iter().map(|r| d.update(*r, 2)).collect();
        assert_eq!(flags, [false, false, false, false, true, true, true, true, true, true, false]);
        let mut immediate = Debounce::default();
        assert!(immediate.update(true, 0));
    }
}
