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

/// A tower of `n` boxes (0.1 m, 1 kg, μ 0.6) standing on the ground, faces touching.
fn tower(n: usize) -> World {
    let boxes: Vec<[f64; 4]> = (0..n).map(|k| [0.0, 0.0, 0.05 + 0.1 * k as f64, 0.0]).collect();
    worlds::box_layout(&boxes, 1.0, 0.05, 0.6)
}

/// The tower of 70 boxes over `steps` steps, its problem solved by W (the simulator's
/// default beyond `DENSE_CONTACTS`) or, `with_g`, with G built for it and factored (the
/// solver kind set to one that needs G, seed 000's ADMM sized for G passed in): every
/// box's position after each step, and the most contacts of a step.
fn tower_run(with_g: bool, steps: usize) -> (Vec<Vec<Vec3>>, usize) {
    use signorini::config::SolverKind;
    use signorini::contact::ContactModel;
    let mut world = tower(70);
    let capacity = 400;
    let mut settings = ContactConfig::default().settings();
    let mut stepper = if with_g {
        settings.solver = SolverKind::ChronoAdmm;
        let admm = SolverKind::Admm.build(ContactModel::Ncp, settings.stop, settings.admm_options(), capacity, false);
        Stepper::with_solver(&world, DT, &settings, capacity, admm)
    } else {
        Stepper::new(&world, DT, &settings, capacity)
    };
    let mut most = 0;
    let positions = (0..steps)
        .map(|_| {
            let report = stepper.step(&mut world, &[]);
            assert!(report.converged, "a step missed the tolerance: {report:?}");
            assert_eq!(report.islands, 1);
            most = most.max(report.contacts);
            world.states.iter().map(|s| s.pose.translation).collect()
        })
        .collect();
    (positions, most)
}

/// A tower of 70 boxes: one island of 280 contacts, beyond `DENSE_FREE_CONTACTS` (32)
/// and `DENSE_CONTACTS` (256), so its problem keeps W alone and seed 000's ADMM solves it by W (the Woodbury f-step, G·x
/// by W). Over 0.2 s every step converges, and every box follows the path it follows
/// with G built and factored to 2e-7 m, the tolerance (1e-6 m/s) over the run (both are
/// solutions to it; 5.8e-8 m measured); the tower stands, every box within 2e-7 m of
/// where it started (4.7e-8 m measured).
#[test]
fn a_tower_beyond_the_dense_limit_is_solved_by_w_as_with_g() {
    let steps = 200;
    let ((by_w, most), (with_g, _)) = (tower_run(false, steps), tower_run(true, steps));
    assert!(most > signorini::contact::DENSE_CONTACTS, "{most} contacts: G was built");
    let (mut gap, mut drift) = (0.0f64, 0.0f64);
    for (a, b) in by_w.iter().zip(&with_g) {
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            gap = gap.max((x - y).norm());
            drift = drift.max((x - Vec3::new(0.0, 0.0, 0.05 + 0.1 * k as f64)).norm());
        }
    }
    println!("{most} contacts; by W against with G: {gap:.2e} m; drift {drift:.2e} m");
    assert!(gap < 2e-7, "the tower by W left the path with G by {gap:.2e} m");
    assert!(drift < 2e-7, "a box moved {drift:.2e} m");
}
