//! Simulation scenes shared by tests/sim_robots.rs and examples/sim_timing.rs.
#![allow(dead_code)]

use std::path::Path;

use signorini::config::{CollisionConfig, EnvironmentConfig};
use signorini::model::{Model, ModelOptions, Srdf};
use signorini::sim::{Robot, World};

/// solo12 (example-robot-data under `share`, convex-hull collisions) at its SRDF
/// `standing` posture, lowered until its lowest collision shape touches the ground;
/// returns the world and that configuration (the PD reference).
pub fn solo12_standing(share: &Path) -> (World, Vec<f64>) {
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.to_owned()], ..Default::default() };
    let model = Model::from_urdf_file(&robots.join("robots/solo12.urdf"), &options).unwrap();
    let q = Srdf::from_file(&robots.join("srdf/solo.srdf")).unwrap().configuration(&model, "standing").unwrap();
    let robot = Robot::new(model, q.as_slice().to_vec());
    let mut world = World::new(Some(robot), &EnvironmentConfig::default(), &CollisionConfig::default()).unwrap();
    world.place_robot_on(0.0);
    let reference = world.robot.as_ref().unwrap().q.clone();
    (world, reference)
}

/// Joint PD of the 12 actuated joints of a floating-base robot towards `reference`.
pub fn pd(world: &World, reference: &[f64], kp: f64, kd: f64, tau: &mut [f64]) {
    let r = world.robot.as_ref().unwrap();
    tau[..6].fill(0.0);
    for j in 0..r.model.nv - 6 {
        tau[6 + j] = kp * (reference[7 + j] - r.q[7 + j]) - kd * r.v[6 + j];
    }
}
