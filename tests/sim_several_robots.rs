//! Several robots in one simulation (`robots:`, [`signorini::app::robots`]): the model of
//! several trees has each tree's dynamics; two quadrupeds of config/two_quadrupeds.yaml
//! stand side by side under their joint PDs, are pushed into each other and do not
//! interpenetrate by more than 1 mm; a robot far from the other moves as it does alone.

mod common;

use signorini::app::Setup;
use signorini::collision::Owner;
use signorini::config::Config;
use signorini::dynamics;
use signorini::model::{Data, Model, ModelOptions};
use signorini::sim::{Stepper, World};
use signorini::spatial::{Force, SE3, Vec3, rotation_from_rpy};

fn load(file: &str, floating_base: bool) -> Model {
    Model::from_urdf_file(&common::repo(file), &ModelOptions { floating_base, ..Default::default() }).unwrap()
}

fn configuration(m: &Model, seed: f64) -> Vec<f64> {
    let mut q = m.neutral_configuration().as_slice().to_vec();
    for (k, x) in q.iter_mut().enumerate() {
        *x += 0.1 * (seed + k as f64).sin();
    }
    dynamics::normalize(m, &mut q);
    q
}

/// Two robots in one model: the mass matrix is block diagonal with each robot's own
/// (CRBA of the forest against CRBA of each tree), the bias forces likewise, and a fixed
/// root's placement moves its frames as the placement says.
#[test]
fn a_forest_has_each_trees_dynamics() {
    let (a, b) = (load("urdf/quadruped.urdf", true), load("urdf/arm7.urdf", false));
    let empty = Model::universe("w");
    let placement = SE3::new(rotation_from_rpy(0.0, 0.0, 0.7), Vec3::new(1.0, -2.0, 0.5));
    let both = empty.append(&a, 0, "a/", &SE3::IDENTITY).append(&b, 1, "b/", &placement);
    assert_eq!((both.nq, both.nv), (a.nq + b.nq, a.nv + b.nv));
    assert_eq!(both.floating_roots().collect::<Vec<_>>(), [1]);
    assert_eq!(both.joint_names[a.njoints()], format!("b/{}", b.joint_names[1]));
    let (qa, qb) = (configuration(&a, 0.3), configuration(&b, 1.7));
    let q: Vec<f64> = qa.iter().chain(&qb).copied().collect();
    let mut data = Data::new(&both);
    let m = dynamics::crba(&both, &mut data, &q).clone();
    let ma = dynamics::crba(&a, &mut Data::new(&a), &qa).clone();
    let mb = dynamics::crba(&b, &mut Data::new(&b), &qb).clone();
    for r in 0..both.nv {
        for c in 0..both.nv {
            let expected = match (r < a.nv, c < a.nv) {
                (true, true) => ma[(r, c)],
                (false, false) => mb[(r - a.nv, c - a.nv)],
                _ => 0.0,
            };
            assert!((m[(r, c)] - expected).abs() < 1e-12, "M[{r},{c}] = {} vs {expected}", m[(r, c)]);
        }
    }
    let (va, vb) = (vec![0.2; a.nv], vec![-0.3; b.nv]);
    let v: Vec<f64> = va.iter().chain(&vb).copied().collect();
    let zero = vec![0.0; both.nv];
    let tau = dynamics::rnea(&both, &mut data, &q, &v, &zero).as_slice().to_vec();
    let ta = dynamics::rnea(&a, &mut Data::new(&a), &qa, &va, &zero[..a.nv]).as_slice().to_vec();
    let tb = dynamics::rnea(&b, &mut Data::new(&b), &qb, &vb, &zero[..b.nv]).as_slice().to_vec();
    for (k, (x, y)) in tau.iter().zip(ta.iter().chain(&tb)).enumerate() {
        assert!((x - y).abs() < 1e-12, "bias force {k}: {x} vs {y}");
    }
    // The arm's frames are its own, moved by the placement.
    dynamics::forward_kinematics(&b, &mut Data::new(&b), &qb);
    let (mut db, mut dboth) = (Data::new(&b), Data::new(&both));
    dynamics::forward_kinematics(&b, &mut db, &qb);
    dynamics::update_frame_placements(&b, &mut db);
    dynamics::forward_kinematics(&both, &mut dboth, &q);
    dynamics::update_frame_placements(&both, &mut dboth);
    let last = b.nframes() - 1;
    let name = format!("b/{}", b.frames[last].name);
    let f = both.frame_id(&name, Some(b.frames[last].kind)).unwrap();
    let expected = placement.compose(&db.o_m_f[last]);
    assert!((dboth.o_m_f[f].translation - expected.translation).norm() < 1e-12);
    assert!(both.collision_geometries.iter().filter(|g| g.robot == 1).all(|g| g.link.starts_with("b/")));
}

/// A world of `setup` with its stepper, its hold PD (each robot's joints towards its
/// posture) and the depth of the deepest contact between two robots over the steps taken.
struct Run {
    setup: Setup,
    world: World,
    stepper: Stepper,
    tau: Vec<f64>,
    /// Deepest robot–robot penetration seen (m, ≥ 0), and how many steps had such contacts.
    between: (f64, usize),
    /// The fewest islands (`contact.islands`) a step was solved as when both robots had
    /// contacts and none between them, and how many such steps there were.
    islands: (usize, usize),
}

impl Run {
    fn new(setup: Setup) -> Self {
        let world = setup.sim_world().unwrap();
        let c = &setup.config;
        let stepper = Stepper::new(&world, c.sim_dt(), &c.contact.settings(), c.collision.max_contacts.get());
        let tau = vec![0.0; setup.model.nv];
        Self { setup, world, stepper, tau, between: (0.0, 0), islands: (usize::MAX, 0) }
    }

    fn step(&mut self, pd: &mut signorini::sim::JointPd) {
        let r = self.world.robot.as_ref().unwrap();
        pd.torques(&r.model, &r.q, &r.v, &mut self.tau);
        let report = *self.stepper.step(&mut self.world, &self.tau);
        assert!(self.world.is_finite() && report.converged, "{report:?}");
        let objects = self.world.collision.objects();
        let mut deepest: Option<f64> = None;
        let mut touching = [false; 2];
        for c in self.stepper.contacts().contacts() {
            let (a, b) = (&objects[c.object1], &objects[c.object2]);
            if matches!(c.body1, Owner::Robot { .. }) {
                touching[a.robot.min(1)] = true;
            }
            if matches!((c.body1, c.body2), (Owner::Robot { .. }, Owner::Robot { .. })) && a.robot != b.robot {
                deepest = Some(deepest.unwrap_or(0.0).max(-c.distance));
            }
        }
        if let Some(d) = deepest {
            self.between = (self.between.0.max(d), self.between.1 + 1);
        } else if touching == [true; 2] {
            self.islands = (self.islands.0.min(report.islands), self.islands.1 + 1);
        }
    }

    /// Robot `k`'s base position.
    fn base(&self, k: usize) -> Vector3 {
        let r = self.world.robot.as_ref().unwrap();
        let at = r.model.idx_q[self.setup.robots[k].base.unwrap()];
        Vec3::new(r.q[at], r.q[at + 1], r.q[at + 2])
    }
}

type Vector3 = Vec3;

/// config/two_quadrupeds.yaml: both stand for 2 s under their posture PD (bases within
/// 1 cm of their start sideways and in height, no contact between them), then a 150 N push on each base towards
/// the other for 1.5 s drives them together: their shapes touch (contacts between the two
/// robots in the problem), the deepest penetration between them stays within 1 mm, and
/// the bases stop apart.
#[test]
fn two_quadrupeds_stand_side_by_side_and_collide_without_interpenetrating() {
    let setup = Setup::load(&common::repo("config/two_quadrupeds.yaml"), None).unwrap();
    assert_eq!(setup.robots.len(), 2);
    assert_eq!(setup.joint_names.len(), 24);
    assert_eq!(setup.joint_names[12], "b/lf_haa");
    let mut pd = setup.hold_pd();
    let mut run = Run::new(setup);
    let start = [run.base(0), run.base(1)];
    for _ in 0..2000 {
        run.step(&mut pd);
    }
    for (k, s) in start.iter().enumerate() {
        let moved = run.base(k) - s;
        println!("robot {k}: base moved {:?} m in 2 s of standing", moved.as_slice());
        assert!(moved.y.abs() < 0.01 && moved.z.abs() < 0.01, "robot {k} base moved {moved:?} m while standing");
    }
    assert_eq!(run.between.1, 0, "standing apart, the robots do not touch");
    // Each robot (a tree of the model) is its own island while they stand apart.
    let (fewest, steps) = run.islands;
    println!("standing: at least {fewest} islands on each of the {steps} steps both robots had contacts");
    assert!(steps > 1000 && fewest >= 2, "standing apart, the robots were solved as {fewest} islands");
    // Each base pushed towards the other along y (world axes, at the base joint's origin).
    let bases: Vec<usize> = run.setup.robots.iter().map(|r| r.base.unwrap()).collect();
    let push = 150.0;
    {
        let r = run.world.robot.as_mut().unwrap();
        r.wrenches[bases[0]] = Force { linear: Vec3::new(0.0, push, 0.0), angular: Vec3::zeros() };
        r.wrenches[bases[1]] = Force { linear: Vec3::new(0.0, -push, 0.0), angular: Vec3::zeros() };
    }
    let mut closest = f64::INFINITY;
    for _ in 0..1500 {
        run.step(&mut pd);
        closest = closest.min(run.base(1).y - run.base(0).y);
    }
    let (deepest, steps) = run.between;
    println!(
        "pushed together: {steps} steps with contacts between the robots, deepest {:.3} mm, bases at least {closest:.3} m apart",
        deepest * 1e3
    );
    assert!(steps > 100, "the robots met in {steps} steps only");
    assert!(deepest <= 1e-3, "the robots interpenetrate by {deepest} m");
    assert!(closest > 0.2, "the bases came within {closest} m of each other");
}

/// One quadruped in a world with a second one 20 m away follows the same motion as
/// alone (the same configuration, posture PD, environment and solver) to 1e-11 over 2 s:
/// the model of two trees, each robot's contacts an island of their own (two islands at
/// least on every step both touch the ground) and the sweep between robots change
/// nothing for it.
#[test]
fn a_robot_far_from_the_other_moves_as_it_does_alone() {
    let urdf = common::repo("urdf/quadruped.urdf").display().to_string();
    let posture =
        "{lf_hfe: 0.6, lf_kfe: -1.2, lh_hfe: 0.6, lh_kfe: -1.2, rf_hfe: 0.5, rf_kfe: -1.1, rh_hfe: 0.6, rh_kfe: -1.2}";
    let alone = format!(
        "robot: {{urdf: {urdf}, floating_base: true, initial_posture: {posture}}}\nsim: {{hold_kp: 200, hold_kd: 5, base_position: [0, 0, 0.5]}}\n"
    );
    let both = format!(
        "robot: {{}}\nrobots:\n  - {{namespace: a, urdf: {urdf}, floating_base: true, base_position: [0, 0, 0.5], initial_posture: {posture}}}\n  \
         - {{namespace: b, urdf: {urdf}, floating_base: true, base_position: [20, 0, 0.5], initial_posture: {posture}}}\n\
         sim: {{hold_kp: 200, hold_kd: 5}}\n"
    );
    let setup = |text: &str| {
        let file = std::path::Path::new("inline.yaml");
        Setup::with_urdf(file, Config::from_yaml(text, "inline.yaml").unwrap(), None).unwrap()
    };
    let (alone, both) = (setup(&alone), setup(&both));
    let (mut pd_alone, mut pd_both) = (alone.hold_pd(), both.hold_pd());
    let (mut alone, mut both) = (Run::new(alone), Run::new(both));
    let mut worst: f64 = 0.0;
    for _ in 0..2000 {
        alone.step(&mut pd_alone);
        both.step(&mut pd_both);
        let (a, b) = (alone.world.robot.as_ref().unwrap(), both.world.robot.as_ref().unwrap());
        let n = (a.model.nq, a.model.nv);
        for (x, y) in a.q.iter().zip(&b.q[..n.0]).chain(a.v.iter().zip(&b.v[..n.1])) {
            worst = worst.max((x - y).abs());
        }
    }
    let (fewest, steps) = both.islands;
    println!(
        "largest difference of q and v over 2 s: {worst:e}; at least {fewest} islands on each of the {steps} steps \
         both robots had contacts"
    );
    assert!(steps > 1000 && fewest >= 2, "the far robots were solved as {fewest} islands");
    assert!(worst <= 1e-11, "the robot moves differently beside a far one: {worst:e}");
}
