//! External wrenches by name (`~/external_wrench`, geometry_msgs/WrenchStamped semantics):
//! which link or free body a name means, the wrench in force on each, and the table the
//! simulator applies.

use std::collections::{BTreeMap, HashMap};

use super::sim_job::ExternalWrenches;
use crate::model::{FrameKind, Model};
use crate::sim::World;
use crate::spatial::Force;

/// Where a wrench named by a link or body goes.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Target {
    /// The robot joint carrying the link (links of one joint add up).
    Joint(usize),
    /// A free body.
    Body(usize),
}

/// Why a wrench was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum WrenchRejection {
    /// A NaN or an infinity.
    #[error("`{0}`: not a finite wrench")]
    NotFinite(String),
    /// The name is neither a moving link of the robot nor a free body.
    #[error("`header.frame_id` `{0}` is neither a moving link of the robot nor a free body")]
    UnknownName(String),
}

/// The wrenches in force per name, and the table the loop applies.
#[derive(Clone, Debug)]
pub struct WrenchTargets {
    targets: HashMap<String, Target>,
    applied: BTreeMap<String, (Target, Force)>,
    table: ExternalWrenches,
}

impl WrenchTargets {
    /// The moving links of `model` (by link name) and the free bodies of `world` (by body
    /// name), none pushed; `table` is sized as the simulator's
    /// ([`super::SimJob::wrench_table`]).
    pub fn new(model: &Model, world: &World, table: ExternalWrenches) -> Self {
        let mut targets = HashMap::new();
        for f in model.frames.iter().filter(|f| f.kind == FrameKind::Body && f.parent_joint > 0) {
            targets.insert(f.name.clone(), Target::Joint(f.parent_joint));
        }
        for (b, body) in world.bodies.iter().enumerate() {
            targets.insert(body.name.clone(), Target::Body(b));
        }
        Self { targets, applied: BTreeMap::new(), table }
    }

    /// Sets the wrench on `name` (world axes; replacing its previous one, zero removes it)
    /// and rebuilds the table: links of one joint add up. A refused wrench changes nothing;
    /// one whose sum with the others in force on its target overflows is refused too.
    pub fn set(&mut self, name: &str, wrench: Force) -> Result<&ExternalWrenches, WrenchRejection> {
        if !is_finite(&wrench) {
            return Err(WrenchRejection::NotFinite(name.to_owned()));
        }
        let target = *self.targets.get(name).ok_or_else(|| WrenchRejection::UnknownName(name.to_owned()))?;
        let before = match wrench == Force::ZERO {
            true => self.applied.remove(name),
            false => self.applied.insert(name.to_owned(), (target, wrench)),
        };
        if !self.rebuild() {
            match before {
                Some(previous) => self.applied.insert(name.to_owned(), previous),
                None => self.applied.remove(name),
            };
            self.rebuild();
            return Err(WrenchRejection::NotFinite(name.to_owned()));
        }
        Ok(&self.table)
    }

    /// The table from the wrenches in force; false if a sum overflowed.
    fn rebuild(&mut self) -> bool {
        self.table.joints.fill(Force::ZERO);
        self.table.bodies.fill(Force::ZERO);
        for (target, w) in self.applied.values() {
            let slot = match *target {
                Target::Joint(j) => self.table.joints.get_mut(j),
                Target::Body(b) => self.table.bodies.get_mut(b),
            };
            if let Some(slot) = slot {
                *slot += *w;
            }
        }
        self.table.joints.iter().chain(&self.table.bodies).all(is_finite)
    }
}

fn is_finite(w: &Force) -> bool {
    w.linear.iter().chain(w.angular.iter()).all(|x| x.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collision::{CollisionSettings, Environment};
    use crate::model::ModelOptions;
    use crate::sim::Robot;
    use crate::spatial::Vec3;

    const TWO_LINKS: &str = r#"<robot name="r">
      <link name="base"/>
      <link name="upper"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="tip"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="j" type="revolute"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/>
        <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
      <joint name="fixed" type="fixed"><parent link="upper"/><child link="tip"/></joint>
    </robot>"#;

    fn targets() -> WrenchTargets {
        let model = Model::from_urdf_xml(TWO_LINKS, "two links", &ModelOptions::default()).expect("a valid model");
        let q = vec![0.0; model.nq];
        let world =
            World::new(Some(Robot::new(model.clone(), q)), &Environment::default(), &CollisionSettings::default())
                .expect("a world");
        let table = ExternalWrenches { joints: vec![Force::ZERO; model.njoints()], bodies: Vec::new() };
        WrenchTargets::new(&model, &world, table)
    }

    fn push(x: f64) -> Force {
        Force { linear: Vec3::new(x, 0.0, 0.0), angular: Vec3::zeros() }
    }

    #[test]
    fn links_of_one_joint_add_up_and_zero_removes() {
        let mut t = targets();
        assert_eq!(t.set("upper", push(1.0)).expect("a link").joints[1], push(1.0));
        assert_eq!(t.set("tip", push(2.0)).expect("a link").joints[1], push(3.0));
        assert_eq!(t.set("upper", push(0.5)).expect("replaces").joints[1], push(2.5));
        assert_eq!(t.set("tip", Force::ZERO).expect("removes").joints[1], push(0.5));
    }

    #[test]
    fn unknown_names_and_nan_change_nothing() {
        let mut t = targets();
        t.set("upper", push(1.0)).expect("a link");
        assert_eq!(t.set("base", push(1.0)), Err(WrenchRejection::UnknownName("base".into())));
        assert_eq!(t.set("nowhere", push(1.0)), Err(WrenchRejection::UnknownName("nowhere".into())));
        assert_eq!(t.set("upper", push(f64::NAN)), Err(WrenchRejection::NotFinite("upper".into())));
        assert_eq!(t.set("tip", Force::ZERO).expect("a link").joints[1], push(1.0));
    }

    #[test]
    fn a_wrench_whose_sum_overflows_is_refused() {
        let mut t = targets();
        t.set("upper", push(f64::MAX)).expect("finite");
        assert_eq!(t.set("tip", push(f64::MAX)), Err(WrenchRejection::NotFinite("tip".into())));
        assert_eq!(t.set("tip", push(-1.0)).expect("finite").joints[1], push(f64::MAX - 1.0));
    }
}
