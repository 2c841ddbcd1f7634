//! Islands (`contact.islands`, src/contact/islands.rs): the step's contacts split into
//! independent problems, each assembled over its own bodies' columns, move the world as the
//! one problem of all contacts does (to the solver's tolerance), the robot's island
//! included.

use signorini::collision::CollisionShape;
use signorini::config::ContactConfig;
use signorini::model::{FreeBody, FreeBodyState};
use signorini::scenes::{Sources, worlds};
use signorini::sim::{Stepper, World};
use signorini::spatial::{SE3, Vec3, rotation_from_rpy};

const DT: f64 = 1e-3;

/// The bundled quadruped held by its PD 1 cm above the ground, a box falling onto its
/// trunk (the robot's island has a free body: its columns come after the robot's), a crate
/// beside it and a stack of two boxes farther off (islands of free bodies alone). Boxes
/// 0.1 m, 1 kg.
fn scene() -> (World, Vec<f64>, (f64, f64)) {
    let (mut world, reference, gains) = worlds::quadruped(&Sources::repository(), 0.01).unwrap();
    let boxes = [(0.0, 0.0, 0.55, 0.1), (0.8, 0.0, 0.06, 0.0), (-0.8, 0.5, 0.051, 0.3), (-0.8, 0.5, 0.153, 0.5)];
    for (k, (x, y, z, yaw)) in boxes.into_iter().enumerate() {
        let name = format!("box{k}");
        let mut shape = worlds::shape(&name, CollisionShape::cuboid(Vec3::repeat(0.05)));
        shape.friction = 0.6;
        let body = FreeBody::cuboid(&name, 1.0, &Vec3::repeat(0.05)).unwrap();
        let pose = SE3::new(rotation_from_rpy(0.0, 0.0, yaw), Vec3::new(x, y, z));
        world.add_body(body, &[shape], FreeBodyState::at_rest(pose));
    }
    (world, reference, gains)
}

/// Every step: the robot's configuration and each box's position, and the step's islands.
fn run(islands: bool, steps: usize) -> Vec<(Vec<f64>, usize, usize)> {
    let (mut world, reference, (kp, kd)) = scene();
    let settings = ContactConfig { islands, ..ContactConfig::default() }.settings();
    let mut stepper = Stepper::new(&world, DT, &settings, 64);
    let mut hold = worlds::hold(&world, &reference, kp, kd);
    let mut tau = vec![0.0; world.nv()];
    let robot_nv = world.nv() - 6 * world.bodies.len();
    (0..steps)
        .map(|_| {
            worlds::pd(&world, &mut hold, &mut tau);
            let report = stepper.step(&mut world, &tau[..robot_nv]);
            let mut x = world.robot.as_ref().unwrap().q.clone();
            x.extend(world.states.iter().flat_map(|s| s.pose.translation.iter().copied()));
            (x, report.islands, report.contacts)
        })
        .collect()
}

/// Over 0.6 s (the box lands on the trunk and rests there, the others settle), islands and
/// one problem agree on the contacts of every step and on every coordinate to 1e-6 (m,
/// rad; 1.2e-7 measured, both solved to 1e-6 N·s along different Anderson paths); split, the step has 3 islands: the
/// robot with the box on its trunk, the crate, the stack.
#[test]
fn islands_move_the_world_as_one_problem_does() {
    let steps = 600;
    let (split, whole) = (run(true, steps), run(false, steps));
    let mut worst = 0.0f64;
    for (k, ((a, islands, na), (b, _, nb))) in split.iter().zip(&whole).enumerate() {
        assert_eq!(na, nb, "contacts at step {k}");
        let d = a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(d < 1e-6, "step {k}: {d} apart, {islands} islands");
        worst = worst.max(d);
    }
    let most = split.iter().map(|s| s.1).max().unwrap();
    let on_trunk = split.last().unwrap().0[split[0].0.len() - 12 + 2];
    eprintln!("largest difference {worst:.1e}; up to {most} islands; the box on the trunk at z = {on_trunk:.3} m");
    assert_eq!(most, 3, "the robot with its box, the crate, the stack");
    assert!(on_trunk > 0.4, "the box rests on the trunk: z = {on_trunk}");
}
