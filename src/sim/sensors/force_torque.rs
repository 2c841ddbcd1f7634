//! The joint force/torque sensor: the reaction wrench a joint transmits between its parent
//! and its child body, as `geometry_msgs/WrenchStamped` carries it.
//!
//! The wrench is RNEA's fᵢ of the joint (Featherstone, RBDA §5.3; Pinocchio's `data.f[i]`):
//! the wrench the parent applies to the child's subtree through the joint, at the step's
//! state (q, v) and acceleration v̇ = (v⁺ − v)/Δt, with the step's contact forces and
//! external wrenches on the subtree: fᵢ = Σ_{k ⪰ i} (I_k a_k + v_k × I_k v_k − f_ext,k),
//! gravity included as a fictitious base acceleration. At rest it is the weight of the
//! subtree held up by the parent (force +m·g upwards). Expressed in the sensor frame
//! (force, and torque about the sensor's origin). `child_to_parent` reports its opposite:
//! the wrench the child applies to the parent (Gazebo's `measure_direction`).

use super::Mount;
use crate::collision::{Contact, Owner};
use crate::model::Data;
use crate::spatial::{Force, Vec3};

/// Which side's wrench the sensor reports.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Direction {
    /// The wrench of the parent on the child (Pinocchio's `data.f`).
    #[default]
    ParentToChild,
    /// The wrench of the child on the parent (its opposite).
    ChildToParent,
}

/// One wrench reading, in the sensor frame.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct ForceTorqueReading {
    /// Force (N).
    pub force: [f64; 3],
    /// Torque (N·m) about the sensor's origin.
    pub torque: [f64; 3],
}

impl ForceTorqueReading {
    /// Whether every value is finite.
    pub fn is_finite(&self) -> bool {
        self.force.iter().chain(&self.torque).all(|x| x.is_finite())
    }
}

/// A force/torque sensor's configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct ForceTorqueSettings {
    /// Name (the message's frame id).
    pub name: String,
    /// The measured joint (`mount.joint`) and the sensor frame in its frame.
    pub mount: Mount,
    /// Measured every this many steps (≥ 1).
    pub every: u64,
    /// Which side's wrench.
    pub direction: Direction,
}

/// The reading of the sensor at `settings.mount`, from `data` after RNEA with the step's
/// external forces ([`crate::dynamics::rnea_with_external_forces`]).
pub fn measure(data: &Data, settings: &ForceTorqueSettings) -> ForceTorqueReading {
    let mount = &settings.mount;
    let in_sensor = mount.placement.act_inv_force(&data.f[mount.joint]);
    let sign = match settings.direction {
        Direction::ParentToChild => 1.0,
        Direction::ChildToParent => -1.0,
    };
    ForceTorqueReading { force: (in_sensor.linear * sign).into(), torque: (in_sensor.angular * sign).into() }
}

/// The external force on each joint's body, in its joint frame (RNEA's f_ext): the contact
/// forces C·λ/Δt of `contacts` (force on body 1, its opposite on body 2, at the contact
/// point) and `external` (per joint: world axes, torque about the joint's origin), with the
/// placements of `data` (at the contacts' configuration). Contacts are skipped when an
/// impulse is not finite (the step did not apply them).
pub fn external_forces(
    data: &Data,
    contacts: &[Contact],
    lambda: &[f64],
    dt: f64,
    external: &[Force],
    fext: &mut [Force],
) {
    for (i, f) in fext.iter_mut().enumerate() {
        let w = external.get(i).copied().unwrap_or(Force::ZERO);
        let rt = data.o_m_i[i].rotation.transpose();
        *f = if i == 0 { Force::ZERO } else { Force { linear: rt * w.linear, angular: rt * w.angular } };
    }
    if !lambda.iter().all(|x| x.is_finite()) {
        return;
    }
    for (c, l) in contacts.iter().zip(lambda.chunks_exact(3)) {
        let force = c.frame * Vec3::new(l[0], l[1], l[2]) / dt;
        for (owner, sign) in [(c.body1, 1.0), (c.body2, -1.0)] {
            let Owner::Robot { joint } = owner else { continue };
            if joint == 0 || joint >= fext.len() {
                continue;
            }
            let f = force * sign;
            let at_world_origin = Force { linear: f, angular: c.point.cross(&f) };
            fext[joint] += data.o_m_i[joint].act_inv_force(&at_world_origin);
        }
    }
}
