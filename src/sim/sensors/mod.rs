//! Simulated sensors, measured after each step from the world and the step's results:
//! IMUs ([`imu`]), joint force/torque sensors ([`force_torque`]) and foot contacts
//! ([`foot_contact`]). [`Sensors`] holds their settings and every buffer they write, sized
//! at start-up: measuring allocates nothing.

pub mod foot_contact;
pub mod force_torque;
pub mod imu;

pub use foot_contact::{Debounce, FootContactReading, FootContactSettings};
pub use force_torque::{Direction, ForceTorqueReading, ForceTorqueSettings};
pub use imu::{ChannelNoise, ImuReading, ImuSettings};

use crate::collision::{CollisionObject, Owner};
use crate::dynamics;
use crate::model::{Data, Model};
use crate::sampling::Gaussian;
use crate::spatial::{Force, SE3};

use super::{Stepper, World};

/// Where a sensor is: the joint whose body carries it and the sensor frame in that
/// joint's frame (`joint_m_sensor`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Mount {
    /// Joint index in the model.
    pub joint: usize,
    /// `joint_m_sensor`.
    pub placement: SE3,
}

/// Every sensor of a robot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SensorSettings {
    /// IMUs.
    pub imu: Vec<ImuSettings>,
    /// Joint force/torque sensors.
    pub force_torque: Vec<ForceTorqueSettings>,
    /// Foot contacts.
    pub foot_contact: Vec<FootContactSettings>,
}

impl SensorSettings {
    /// Whether there is no sensor.
    pub fn is_empty(&self) -> bool {
        self.imu.is_empty() && self.force_torque.is_empty() && self.foot_contact.is_empty()
    }
}

/// A reading and when it was taken.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Stamped<T> {
    /// The reading.
    pub value: T,
    /// Simulated time of the step it was taken after (ns).
    pub stamp_ns: u64,
    /// Taken since the readings were last copied out ([`Sensors::take_readings`]).
    pub fresh: bool,
}

/// The latest reading of every sensor, in the settings' order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SensorReadings {
    /// One per IMU.
    pub imu: Vec<Stamped<ImuReading>>,
    /// One per force/torque sensor.
    pub force_torque: Vec<Stamped<ForceTorqueReading>>,
    /// One per foot contact.
    pub foot_contact: Vec<Stamped<FootContactReading>>,
}

impl SensorReadings {
    /// Zeroed readings for `settings`.
    pub fn of(settings: &SensorSettings) -> Self {
        Self {
            imu: vec![Stamped::default(); settings.imu.len()],
            force_torque: vec![Stamped::default(); settings.force_torque.len()],
            foot_contact: vec![Stamped::default(); settings.foot_contact.len()],
        }
    }
}

/// The sensors of the robot in a world, their noise generators, debounce states and
/// buffers.
pub struct Sensors {
    settings: SensorSettings,
    /// Kinematics and RNEA of the sensors (the robot's own Data is the stepper's).
    data: Data,
    /// The state at the start of the step.
    q: Vec<f64>,
    v: Vec<f64>,
    /// The step's acceleration v̇ = (v⁺ − v)/Δt.
    acceleration: Vec<f64>,
    /// External forces per joint, joint frames (RNEA).
    fext: Vec<Force>,
    noise: Vec<Gaussian>,
    debounce: Vec<Debounce>,
    readings: SensorReadings,
}

impl Sensors {
    /// The sensors of `settings` on `model`, whose collision objects are `objects` (a
    /// collision world's): each foot's are the robot's objects of its link.
    pub fn new(model: &Model, objects: &[CollisionObject], mut settings: SensorSettings) -> Self {
        for foot in &mut settings.foot_contact {
            let robot = objects.iter().enumerate().filter(|(_, o)| matches!(o.owner, Owner::Robot { .. }));
            foot.objects = robot.filter(|(_, o)| o.link == foot.name).map(|(k, _)| k).collect();
        }
        Self {
            data: Data::new(model),
            q: vec![0.0; model.nq],
            v: vec![0.0; model.nv],
            acceleration: vec![0.0; model.nv],
            fext: vec![Force::ZERO; model.njoints()],
            noise: settings.imu.iter().map(|s| Gaussian::new(s.seed)).collect(),
            debounce: vec![Debounce::default(); settings.foot_contact.len()],
            readings: SensorReadings::of(&settings),
            settings,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &SensorSettings {
        &self.settings
    }

    /// Forgets the foot contacts' debounced flags (the robot was put back at a state: its
    /// feet are measured afresh).
    pub fn reset(&mut self) {
        self.debounce.fill(Debounce::default());
    }

    /// Keeps the robot's state at the start of a step (call before [`Stepper::step`]).
    pub fn before_step(&mut self, world: &World) {
        if let Some(r) = world.robot.as_ref() {
            self.q.copy_from_slice(&r.q);
            self.v.copy_from_slice(&r.v);
        }
    }

    /// Measures, after `stepper`'s step of `world`, the sensors due at this step (every
    /// foot contact's flag is updated at each step). A reading that is not finite is not
    /// taken (the previous one stays, not fresh).
    pub fn after_step(&mut self, world: &World, stepper: &Stepper) {
        let Some(r) = world.robot.as_ref() else { return };
        let (model, dt, step, stamp) = (&r.model, stepper.dt, world.steps, world.time_ns());
        let due = |every: u64| step.is_multiple_of(every.max(1));
        for (a, (after, before)) in self.acceleration.iter_mut().zip(r.v.iter().zip(&self.v)) {
            *a = (after - before) / dt;
        }
        let (contacts, lambda) = (stepper.contacts().contacts(), stepper.impulses());
        for ((s, debounce), out) in
            self.settings.foot_contact.iter().zip(&mut self.debounce).zip(&mut self.readings.foot_contact)
        {
            let normal_force = foot_contact::normal_force(contacts, lambda, dt, &s.objects);
            let contact = debounce.update(normal_force > s.threshold, s.debounce_steps);
            if due(s.every) {
                *out = Stamped { value: FootContactReading { contact, normal_force }, stamp_ns: stamp, fresh: true };
            }
        }
        if self.settings.force_torque.iter().any(|s| due(s.every)) {
            // The robot's own data holds the step's placements at its start q (the
            // contacts' configuration), as the stepper left them: no kinematics again.
            force_torque::external_forces(&r.data, contacts, lambda, dt, &r.wrenches, &mut self.fext);
            dynamics::rnea_with_external_forces(
                model,
                &mut self.data,
                &self.q,
                &self.v,
                &self.acceleration,
                &self.fext,
            );
            for (s, out) in self.settings.force_torque.iter().zip(&mut self.readings.force_torque) {
                let value = force_torque::measure(&self.data, s);
                if due(s.every) && value.is_finite() {
                    *out = Stamped { value, stamp_ns: stamp, fresh: true };
                }
            }
        }
        if self.settings.imu.iter().any(|s| due(s.every)) {
            dynamics::forward_kinematics_acceleration(model, &mut self.data, &r.q, &r.v, &self.acceleration);
            for ((s, rng), out) in self.settings.imu.iter().zip(&mut self.noise).zip(&mut self.readings.imu) {
                if !due(s.every) {
                    continue;
                }
                let mut value = imu::measure(model, &self.data, &s.mount);
                s.gyro.apply(&mut value.angular_velocity, rng);
                s.accel.apply(&mut value.linear_acceleration, rng);
                if value.is_finite() {
                    *out = Stamped { value, stamp_ns: stamp, fresh: true };
                }
            }
        }
    }

    /// Copies the latest readings into `out` (sized by [`SensorReadings::of`]) and marks
    /// them no longer fresh here: each reading is fresh in one copy only.
    pub fn take_readings(&mut self, out: &mut SensorReadings) {
        copy(&mut self.readings.imu, &mut out.imu);
        copy(&mut self.readings.force_torque, &mut out.force_torque);
        copy(&mut self.readings.foot_contact, &mut out.foot_contact);
    }
}

/// `from` into `to`, element by element; `from` no longer fresh.
fn copy<T: Copy>(from: &mut [Stamped<T>], to: &mut [Stamped<T>]) {
    for (f, t) in from.iter_mut().zip(to) {
        *t = *f;
        f.fresh = false;
    }
}
