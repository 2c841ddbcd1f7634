//! What the simulator reports after a step, in the form its publishers need: the
//! controlled joints (position, velocity, applied effort), the floating base's and every
//! free body's odometry (pose in `world`, twist in the body frame, as nav_msgs/Odometry
//! defines it), and the total contact wrench on each robot link with collision shapes
//! (world axes, torque about the origin of the joint frame carrying the link), and the
//! sensors' latest readings ([`crate::sim::sensors`]).
//!
//! Shared by the rosbag recorder and the node's loop: filled in place, without allocating.

use crate::app::{JointSlot, Setup};
use crate::collision::{CollisionObject, Contact, Owner};
use crate::model::Data;
use crate::runtime::Odometry;
use crate::sim::{SensorReadings, SensorSettings, Stepper, World};
use crate::spatial::{SE3, Vec3};

/// A wrench in world axes.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Wrench {
    /// Force (N).
    pub force: [f64; 3],
    /// Torque (N·m) about the link's joint origin.
    pub torque: [f64; 3],
}

/// One contact's force, for the contact markers.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ContactForce {
    /// Contact point (world, m).
    pub point: [f64; 3],
    /// Force on body 1 (world axes, N).
    pub force: [f64; 3],
}

/// Contacts an output sample keeps for the markers (the loaded ones first met; the
/// wrenches count them all).
pub const MARKED_CONTACTS: usize = 64;

/// The step's outputs, sized at start-up.
#[derive(Clone, Debug, PartialEq)]
pub struct Outputs {
    /// Simulated time (ns).
    pub time_ns: u64,
    /// Controlled joints' positions (rad or m), in `Setup::joint_names` order.
    pub position: Vec<f64>,
    /// Their velocities.
    pub velocity: Vec<f64>,
    /// The efforts the step applied (clamped to the effort limits).
    pub effort: Vec<f64>,
    /// The floating base, if the robot has one (a single robot; see `robot_bases`).
    pub base: Option<Odometry>,
    /// With `robots:`, the floating base of each robot of [`OutputLayout::robots`] that has
    /// one, in that order (empty for the single robot of `robot:`).
    pub robot_bases: Vec<Odometry>,
    /// Each configured free body, in `World::bodies` order.
    pub bodies: Vec<Odometry>,
    /// Each spawn slot: the id of the body it holds and its odometry (None: empty). The
    /// names are the spawn table's ([`crate::app::Spawns::name_of`]).
    pub spawned: Vec<Option<(u64, Odometry)>>,
    /// Each link of [`OutputLayout::links`], zero when not in contact.
    pub wrenches: Vec<Wrench>,
    /// The loaded contacts (at most [`MARKED_CONTACTS`]; `contact_count` of them valid).
    pub contacts: Vec<ContactForce>,
    /// How many of `contacts` this step filled.
    pub contact_count: usize,
    /// The sensors' latest readings, in [`OutputLayout::sensors`]' order (each fresh in one
    /// sample only).
    pub sensors: SensorReadings,
}

/// A free body's odometry: pose in `world`, twist in the body frame.
fn body_odometry(s: &crate::model::FreeBodyState) -> Odometry {
    let p = s.pose.translation;
    Odometry {
        position: [p.x, p.y, p.z],
        orientation: crate::model::joint::rotation_to_quaternion(&s.pose.rotation),
        linear: s.velocity.linear.into(),
        angular: s.velocity.angular.into(),
    }
}

/// Which joints, links and bodies the outputs cover, fixed at start-up.
#[derive(Clone, Debug)]
pub struct OutputLayout {
    /// The controlled joints.
    pub joints: Vec<JointSlot>,
    /// Their names.
    pub joint_names: Vec<String>,
    /// The floating base's link (the URDF root), if any (a single robot).
    pub base_link: Option<String>,
    /// With `robots:`, each robot's view ([`crate::app::RobotView`]).
    pub robots: Vec<crate::app::RobotView>,
    /// The configured free bodies' names.
    pub body_names: Vec<String>,
    /// Spawn slots (`simulation_interfaces.spawn_capacity` in the simulator, 0 else).
    pub spawn_slots: usize,
    /// (link, the joint carrying it) of each robot link with collision shapes, in the
    /// order of its first shape.
    pub links: Vec<(String, usize)>,
    /// Collision object index → its position in `links` (robot objects only).
    link_of_object: Vec<Option<usize>>,
    /// The simulator's sensors.
    pub sensors: SensorSettings,
}

impl OutputLayout {
    /// The layout of `setup`'s robot in `world`.
    pub fn new(setup: &Setup, world: &World) -> Self {
        let configured = &world.bodies[..world.configured_bodies()];
        let bodies: Vec<String> = configured.iter().map(|b| b.name.clone()).collect();
        let spawn_slots = setup.config.simulation_interfaces.spawn_capacity;
        Self { spawn_slots, ..Self::of_objects(setup, world.collision.objects(), bodies) }
    }

    /// The layout of `setup`'s robot seen through `objects` (a collision world's: the
    /// controller's has no free bodies), with free bodies `body_names`.
    pub fn of_objects(setup: &Setup, objects: &[CollisionObject], body_names: Vec<String>) -> Self {
        let mut links: Vec<(String, usize)> = Vec::new();
        let mut link_of_object = Vec::new();
        for o in objects {
            let Owner::Robot { joint } = o.owner else {
                link_of_object.push(None);
                continue;
            };
            let at = match links.iter().position(|(l, _)| *l == o.link) {
                Some(i) => i,
                None => {
                    links.push((o.link.clone(), joint));
                    links.len() - 1
                }
            };
            link_of_object.push(Some(at));
        }
        Self {
            joints: setup.joint_slots(),
            joint_names: setup.joint_names.clone(),
            base_link: (setup.model.has_free_flyer() && setup.robots.is_empty())
                .then(|| setup.robot.root_link().to_owned()),
            robots: setup.robots.clone(),
            body_names,
            spawn_slots: 0,
            links,
            link_of_object,
            sensors: setup.sensors.clone(),
        }
    }

    /// Zeroed outputs of this layout.
    pub fn outputs(&self) -> Outputs {
        let n = self.joints.len();
        Outputs {
            time_ns: 0,
            position: vec![0.0; n],
            velocity: vec![0.0; n],
            effort: vec![0.0; n],
            base: self.base_link.as_ref().map(|_| Odometry::default()),
            robot_bases: vec![Odometry::default(); self.robots.iter().filter(|r| r.base.is_some()).count()],
            bodies: vec![Odometry::default(); self.body_names.len()],
            spawned: vec![None; self.spawn_slots],
            wrenches: vec![Wrench::default(); self.links.len()],
            contacts: vec![ContactForce::default(); MARKED_CONTACTS],
            contact_count: 0,
            sensors: SensorReadings::of(&self.sensors),
        }
    }

    /// Fills `out` with the state of `world` after `stepper`'s last step. Contact wrenches
    /// are zero when the step's impulses were not finite (the stepper did not apply them).
    pub fn fill(&self, world: &World, stepper: &Stepper, out: &mut Outputs) {
        out.time_ns = world.time_ns();
        let tau = stepper.applied_torques();
        if let Some(r) = world.robot.as_ref() {
            for (k, slot) in self.joints.iter().enumerate() {
                out.position[k] = slot.position(&r.q);
                out.velocity[k] = r.v[slot.idx_v];
                out.effort[k] = tau.get(slot.idx_v).copied().unwrap_or(0.0);
            }
            if let Some(base) = out.base.as_mut() {
                *base = Odometry::of_free_flyer(&r.q, &r.v);
            }
            let bases = self.robots.iter().filter_map(|view| view.base);
            for (odometry, joint) in out.robot_bases.iter_mut().zip(bases) {
                let (q, v) = (r.model.idx_q[joint], r.model.idx_v[joint]);
                *odometry = Odometry::of_free_flyer(&r.q[q..q + 7], &r.v[v..v + 6]);
            }
        }
        for (o, s) in out.bodies.iter_mut().zip(&world.states) {
            *o = body_odometry(s);
        }
        let slots = &world.spawn_slots;
        for (k, (o, occupant)) in out.spawned.iter_mut().zip(&slots.occupant).enumerate() {
            *o = occupant.and_then(|id| Some((id, body_odometry(world.states.get(slots.first + k)?))));
        }
        let placements = world.robot.as_ref().map(|r| &r.data);
        let (contacts, lambda) = (stepper.contacts().contacts(), stepper.impulses());
        self.fill_wrenches(contacts, lambda, stepper.dt, placements, &mut out.wrenches);
        out.contact_count = 0;
        if lambda.iter().all(|x| x.is_finite()) {
            for (c, l) in contacts.iter().zip(lambda.chunks_exact(3)) {
                if out.contact_count == out.contacts.len() {
                    break;
                }
                if l[2] > 0.0 {
                    let f = c.frame * Vec3::new(l[0], l[1], l[2]) / stepper.dt;
                    out.contacts[out.contact_count] = ContactForce { point: c.point.into(), force: f.into() };
                    out.contact_count += 1;
                }
            }
        }
    }

    /// Each link's total contact wrench (into `out`, one per link) from `contacts` and
    /// their impulses `lambda` (3 each, in the contacts' frames) over a step `dt`: the
    /// force on body 1 is C·λ/Δt, on body 2 its opposite; torques about the origin of the
    /// joint carrying the link (`placements`: the robot's data at the contacts'
    /// configuration). All zero when an impulse is not finite.
    pub fn fill_wrenches(
        &self,
        contacts: &[Contact],
        lambda: &[f64],
        dt: f64,
        placements: Option<&Data>,
        out: &mut [Wrench],
    ) {
        out.fill(Wrench::default());
        if !lambda.iter().all(|x| x.is_finite()) {
            return;
        }
        let origin = |joint: usize| -> SE3 {
            placements.map_or(SE3::IDENTITY, |d| if joint > 0 { d.o_m_i[joint] } else { SE3::IDENTITY })
        };
        for (i, c) in contacts.iter().enumerate() {
            if lambda.len() < 3 * i + 3 {
                break;
            }
            let f = c.frame * Vec3::new(lambda[3 * i], lambda[3 * i + 1], lambda[3 * i + 2]) / dt;
            for (object, sign) in [(c.object1, 1.0), (c.object2, -1.0)] {
                if let Some(Some(l)) = self.link_of_object.get(object) {
                    let o = origin(self.links[*l].1).translation;
                    let (force, torque) = (f * sign, (c.point - o).cross(&(f * sign)));
                    let w = &mut out[*l];
                    for a in 0..3 {
                        w.force[a] += force[a];
                        w.torque[a] += torque[a];
                    }
                }
            }
        }
    }
}
