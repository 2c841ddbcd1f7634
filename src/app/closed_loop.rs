//! `mode: sim+control`: the simulator and the controller in one loop, exchanging the
//! state and the torques in memory instead of over ROS.
//!
//! Each tick: one simulator step under the controller's last torques (its command
//! mailbox, written by the controller), then the step's state to the controller's state
//! mailbox and one controller tick on it, whose torques the next step applies: the delay
//! of one period a controller next to a robot has. While the simulation is paused the
//! controller waits too. Nothing allocates after start-up.

use super::control_job::ControlJob;
use super::sim_job::SimJob;
use crate::app::JointSlot;
use crate::runtime::{Job, MailboxWriter, Tick};
use crate::runtime::{MeasuredState, Odometry};

/// The two jobs and the state exchange.
pub struct SimAndControlJob {
    sim: SimJob,
    control: ControlJob,
    /// The controller's state mailbox (its command mailbox is the simulator's).
    states: MailboxWriter<MeasuredState>,
    joints: Vec<JointSlot>,
}

impl SimAndControlJob {
    /// `control` reading the states written to `states`, and writing its torques to the
    /// mailbox `sim` reads its commands from ([`ControlJob::with_command_output`]).
    pub fn new(sim: SimJob, control: ControlJob, states: MailboxWriter<MeasuredState>, joints: Vec<JointSlot>) -> Self {
        Self { sim, control, states, joints }
    }

    /// Unparks `sim` after each simulator sample and `control` after each controller
    /// sample.
    pub fn hand_off_to(&mut self, sim: std::thread::Thread, control: std::thread::Thread) {
        self.sim.hand_off_to(sim);
        self.control.hand_off_to(control);
    }

    /// The simulator.
    pub fn sim(&self) -> &SimJob {
        &self.sim
    }
}

impl Job for SimAndControlJob {
    fn start(&mut self) {
        self.sim.start();
    }

    fn tick(&mut self, tick: &Tick) {
        let before = self.sim.steps_taken();
        self.sim.tick(tick);
        let world = self.sim.world();
        let Some(robot) = world.robot.as_ref().filter(|_| self.sim.steps_taken() != before) else { return };
        let joints = &self.joints;
        self.states.write_with(|s| {
            s.time_ns = world.time_ns();
            for (k, slot) in joints.iter().enumerate() {
                s.position[k] = slot.position(&robot.q);
                s.velocity[k] = robot.v[slot.idx_v];
            }
            s.base = robot.model.has_free_flyer().then(|| Odometry::of_free_flyer(&robot.q, &robot.v));
        });
        self.control.tick(tick);
    }

    fn hand_off(&mut self) {
        self.sim.hand_off();
        self.control.hand_off();
    }
}
