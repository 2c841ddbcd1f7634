//! The robots and configurations shipped in urdf/ and config/ load, and say what they should.

use std::path::Path;

use signorini::app::Setup;
use signorini::model::{JointKind, RobotDescription};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

#[test]
fn every_shipped_config_loads_with_its_robot() {
    let mut seen = 0;
    for entry in std::fs::read_dir(repo("config")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            Setup::load(&path, None).unwrap_or_else(|e| panic!("{e}"));
            seen += 1;
        }
    }
    assert!(seen >= 3);
}

#[test]
fn the_quadruped_has_three_joints_per_leg_in_pinocchio_order() {
    let s = Setup::load(&repo("config/quadruped.yaml"), None).unwrap();
    assert!(s.config.robot.floating_base);
    // Children in joint-name order, depth first: lf, lh, rf, rh (not the file's lf, rf, lh, rh).
    let expected: Vec<String> =
        ["lf", "lh", "rf", "rh"].iter().flat_map(|leg| ["haa", "hfe", "kfe"].map(|j| format!("{leg}_{j}"))).collect();
    assert_eq!(s.joint_names, expected);
    for leg in ["lf", "lh", "rf", "rh"] {
        let i = s.joint_names.iter().position(|j| *j == format!("{leg}_kfe")).unwrap();
        assert_eq!(s.initial_positions[i], -1.2);
        assert!(s.robot.link(&format!("{leg}_foot")).is_some(), "spherical foot link for {leg}");
    }
    assert_eq!(s.robot.joints.iter().filter(|j| j.kind == JointKind::Fixed).count(), 4);
}

#[test]
fn the_arm_is_a_seven_dof_chain_and_the_cube_has_no_joints() {
    let arm = RobotDescription::from_file(&repo("urdf/arm7.urdf")).unwrap();
    let names: Vec<_> = arm.movable_joints().map(|j| j.name.clone()).collect();
    assert_eq!(names, (1..=7).map(|k| format!("joint{k}")).collect::<Vec<_>>());
    assert_eq!(arm.joint("joint1").unwrap().limits.effort, 176.0);
    assert_eq!(arm.root_link(), "base_link");
    let cube = RobotDescription::from_file(&repo("urdf/cube.urdf")).unwrap();
    assert_eq!((cube.links.len(), cube.joints.len()), (1, 0));
}

/// The differential-drive base: two continuous wheel joints taking velocity commands, a
/// frictionless caster, a floating base.
#[test]
fn the_wheeled_robot_has_two_velocity_driven_wheels_and_a_sliding_caster() {
    let s = Setup::load(&repo("config/diff_drive.yaml"), None).unwrap();
    assert!(s.config.robot.floating_base);
    assert_eq!(s.joint_names, ["left_wheel_joint", "right_wheel_joint"]);
    assert!(s.robot.joints.iter().filter(|j| j.kind == JointKind::Continuous).count() == 2);
    let servos = s.joint_servos().unwrap();
    assert!(servos.iter().all(|w| w.interface == signorini::sim::Interface::Velocity && w.unbounded));
    assert_eq!(s.config.collision.link_friction.get("caster").map(|f| f.get()), Some(0.0));
    assert!(s.robot.link("caster").is_some());
}
