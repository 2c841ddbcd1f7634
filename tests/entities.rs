//! Entities of the standard simulator API (issue 25) without ROS: names and filters, link
//! states against Pinocchio, a free body teleported 1 m up landing at √(2h/g), the floating
//! base teleported with a twist, and the refusals with their result codes. The loop job
//! runs tick by tick, as the node runs it; requests go through the same exchange as the
//! node's services.
//!
//! `cargo test --release --test entities -- --nocapture` prints the landing figure README
//! reports.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use signorini::app::entities::{Category, EntityKind, EntityQuery, RequestedState, check_set};
use signorini::app::{EntityEnds, EntitySnapshot, Setup, SimJob, SimLoop};
use signorini::model::joint::quaternion_to_rotation;
use signorini::runtime::{Counters, Job, MonotonicTime, SampleConsumer, Tick};

fn repo(path: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The quadruped's simulator loop (its crate a free body), stepped by hand.
struct Sim {
    job: SimJob,
    ends: EntityEnds,
    samples: SampleConsumer<signorini::app::Outputs>,
    ticks: u64,
}

impl Sim {
    fn quadruped() -> Self {
        let setup = Setup::load(&repo("config/quadruped.yaml"), None).unwrap();
        let SimLoop { job, ends, .. } = SimLoop::new(&setup, Arc::new(Counters::default())).unwrap();
        Self { job, ends: ends.entities, samples: ends.samples, ticks: 0 }
    }

    fn tick(&mut self) {
        let t = MonotonicTime::from_nanos(self.ticks * 1_000_000);
        self.job.tick(&Tick { index: self.ticks, deadline: t, wake: t, period: Duration::from_millis(1) });
        self.ticks += 1;
        while self.samples.pop_with(|_| {}) {}
    }

    fn snapshot(&mut self) -> EntitySnapshot {
        self.ends.io.snapshots.latest().value.clone()
    }

    /// SetEntityState of `name`, applied at the next tick (paused: read back before a step).
    fn set(&mut self, name: &str, request: &RequestedState) {
        let e = self.ends.entities.get(name).unwrap();
        let command = check_set(&e, request).unwrap();
        let sequence = self.ends.io.setter.send(command);
        self.tick();
        assert!(self.ends.io.setter.applied(sequence));
    }

    fn state(&mut self, name: &str) -> signorini::app::entities::EntityState {
        let snapshot = self.snapshot();
        let e = self.ends.entities.get(name).unwrap().clone();
        self.ends.view.state(&e, &snapshot)
    }
}

fn at(position: [f64; 3]) -> RequestedState<'static> {
    RequestedState { frame: "", position, orientation: [0.0, 0.0, 0.0, 1.0], linear: [0.0; 3], angular: [0.0; 3] }
}

#[test]
fn the_entities_are_the_robot_its_links_the_bodies_and_the_environment() {
    let sim = Sim::quadruped();
    let e = &sim.ends.entities;
    let names: Vec<&str> = e.all().iter().map(|e| e.name.as_str()).collect();
    let robot = names[0];
    assert_eq!(e.all()[0].category, Category::Robot);
    assert!(names.contains(&format!("{robot}/lf_foot").as_str()), "{names:?}");
    assert!(names.contains(&"crate") && names.contains(&"ground"), "{names:?}");
    assert_eq!(e.get("crate").unwrap().category, Category::Object);
    assert_eq!(e.get("ground").unwrap().category, Category::Static);
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "unique names");

    let select = |filter: &str, categories: Vec<u8>| -> Vec<String> {
        let q = EntityQuery { filter, categories, ..Default::default() };
        e.select(&q).unwrap().iter().map(|e| e.name.clone()).collect()
    };
    assert_eq!(select("", vec![]).len(), names.len());
    assert_eq!(select("_foot$", vec![]).len(), 4);
    assert_eq!(select("", vec![0]), ["crate"]);
    assert_eq!(select("", vec![5]), ["ground"]);
    assert_eq!(select("^(crate|ground)$", vec![0, 5]), ["crate", "ground"]);
    assert_eq!(select("foot", vec![0]), Vec::<String>::new());

    let bad = e.select(&EntityQuery { filter: "(", ..Default::default() }).unwrap_err();
    assert_eq!(bad.code(), 4, "{bad}");
    let tags = vec!["red".to_string()];
    let bad = e.select(&EntityQuery { tags: &tags, ..Default::default() }).unwrap_err();
    assert_eq!(bad.code(), 0, "{bad}");
    let bad = e.select(&EntityQuery { bounds_type: 1, ..Default::default() }).unwrap_err();
    assert_eq!(bad.code(), 0, "boxes are unsupported: {bad}");
    let bad = e.select(&EntityQuery { bounds_type: 3, bounds_points: vec![[0.0; 3]], ..Default::default() });
    assert_eq!(bad.unwrap_err().code(), 4, "a sphere needs its radius");
    let missing = e.get("nothing").unwrap_err();
    assert_eq!(missing.code(), 2);
    assert!(missing.to_string().contains("\"nothing\""), "{missing}");
}

/// The bounds filter's sphere selects the entities whose shapes it overlaps, at the
/// current state: the crate from inside, the ground from below, a foot from its centre.
#[test]
fn a_sphere_selects_the_entities_it_overlaps() {
    let mut sim = Sim::quadruped();
    for _ in 0..50 {
        sim.tick();
    }
    let snapshot = sim.snapshot();
    let robot = sim.ends.entities.all()[0].name.clone();
    let foot = sim.state(&format!("{robot}/lf_foot")).position;
    let mut within = |filter: &str, centre: [f64; 3], radius: f64| -> Vec<String> {
        let q = EntityQuery {
            filter,
            bounds_type: 3,
            bounds_points: vec![centre, [radius, 0.0, 0.0]],
            ..Default::default()
        };
        let selected = sim.ends.entities.select_at(&q, &mut sim.ends.view, &snapshot).unwrap();
        selected.iter().map(|e| e.name.clone()).collect()
    };
    assert_eq!(within("", [0.8, 0.0, 0.1], 0.01), ["crate"]);
    assert_eq!(within("", [0.8, 0.0, 0.25], 0.04), Vec::<String>::new(), "5 cm above the crate's top");
    assert_eq!(within("", [0.8, 0.0, 0.25], 0.06), ["crate"]);
    assert_eq!(within("", [3.0, 3.0, -0.01], 0.001), ["ground"]);
    assert_eq!(within("_foot$", foot, 1e-3), [format!("{robot}/lf_foot")]);
    let whole = within("", foot, 1e-3);
    assert!(whole.contains(&robot) && whole.contains(&format!("{robot}/lf_foot")), "{whole:?}");
}

/// Every link's pose, velocity and classical acceleration (world axes) at a random
/// (q, v, a) equal Pinocchio's (scripts/gen_entity_fixtures.py) to 1e-9.
#[test]
fn link_states_match_pinocchio() {
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo("tests/fixtures/entities/quadruped_links.json")).unwrap())
            .unwrap();
    let numbers =
        |v: &serde_json::Value| -> Vec<f64> { v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect() };
    let mut sim = Sim::quadruped();
    let snapshot = EntitySnapshot {
        time_ns: 7,
        q: numbers(&fixture["q"]),
        v: numbers(&fixture["v"]),
        a: numbers(&fixture["a"]),
        bodies: sim.snapshot().bodies,
    };
    let robot = sim.ends.entities.all()[0].name.clone();
    let links = fixture["links"].as_array().unwrap();
    let mut worst = 0.0f64;
    for link in links {
        let name = format!("{robot}/{}", link["link"].as_str().unwrap());
        let entity = sim.ends.entities.get(&name).unwrap().clone();
        assert!(matches!(entity.kind, EntityKind::Link { .. }));
        let s = sim.ends.view.state(&entity, &snapshot);
        assert_eq!(s.time_ns, 7);
        let [x, y, z, w] = s.orientation;
        let r = quaternion_to_rotation(x, y, z, w);
        let rotation: Vec<f64> = link["rotation"].as_array().unwrap().iter().flat_map(numbers).collect();
        for i in 0..3 {
            for j in 0..3 {
                worst = worst.max((r[(i, j)] - rotation[3 * i + j]).abs());
            }
        }
        for (key, got) in [
            ("translation", s.position),
            ("linear", s.linear),
            ("angular", s.angular),
            ("linear_acceleration", s.linear_acceleration),
            ("angular_acceleration", s.angular_acceleration),
        ] {
            for (a, b) in got.iter().zip(numbers(&link[key])) {
                worst = worst.max((a - b).abs());
            }
        }
    }
    println!("{} links: largest difference from Pinocchio {worst:.1e}", links.len());
    assert!(links.len() >= 13, "every link of the quadruped");
    assert!(worst < 1e-9, "{worst:e}");
}

/// The crate put 1 m above the ground at rest falls with exactly g and lands (its first
/// upward impulse) √(2·1/g) later within one step.
#[test]
fn a_body_set_one_metre_up_falls_and_lands_after_sqrt_2h_over_g() {
    let mut sim = Sim::quadruped();
    for _ in 0..10 {
        sim.tick();
    }
    // The crate's half height is 0.1 m: its bottom 1 m up; set while paused.
    sim.job.requests().set_paused(true);
    sim.set("crate", &at([0.8, 0.0, 1.1]));
    let start = sim.state("crate");
    sim.job.requests().set_paused(false);
    assert_eq!(start.position, [0.8, 0.0, 1.1]);
    assert_eq!((start.linear, start.linear_acceleration), ([0.0; 3], [0.0; 3]));
    let (g, dt) = (9.81, 1e-3);
    let mut landed = None;
    for _ in 0..1000 {
        sim.tick();
        let s = sim.state("crate");
        if s.linear_acceleration[2] > -g / 2.0 {
            landed = Some(s.time_ns - start.time_ns);
            break;
        }
        assert!((s.linear_acceleration[2] + g).abs() < 1e-9, "free fall reads g: {:?}", s.linear_acceleration);
    }
    let landed = landed.expect("the crate lands") as f64 * 1e-9;
    let expected = (2.0 * 1.0 / g).sqrt();
    println!("crate dropped from 1 m: lands after {landed:.4} s, sqrt(2h/g) = {expected:.4} s");
    assert!((landed - expected).abs() <= dt, "{landed} vs {expected}");
    for _ in 0..500 {
        sim.tick();
    }
    let rest = sim.state("crate");
    assert!((rest.position[2] - 0.1).abs() < 2e-3 && rest.linear[2].abs() < 1e-3, "{rest:?}");
}

/// The floating base teleported with a twist (world axes): the robot entity reads back the
/// pose exactly and the twist to round-off; the joints keep their positions.
#[test]
fn the_floating_base_is_teleported_with_its_twist() {
    let mut sim = Sim::quadruped();
    for _ in 0..5 {
        sim.tick();
    }
    let robot = sim.ends.entities.all()[0].name.clone();
    let joints_before = sim.job.world().robot.as_ref().unwrap().q[7..].to_vec();
    let half = (0.3f64 / 2.0).sin_cos();
    let request = RequestedState {
        frame: "world",
        position: [1.0, -2.0, 0.5],
        orientation: [0.0, 0.0, half.0, half.1],
        linear: [0.1, 0.2, 0.0],
        angular: [0.0, 0.0, 0.5],
    };
    sim.job.requests().set_paused(true);
    sim.set(&robot, &request);
    let s = sim.state(&robot);
    assert_eq!(s.position, request.position);
    for (a, b) in s.orientation.iter().zip(request.orientation) {
        assert!((a - b).abs() < 1e-15, "{:?}", s.orientation);
    }
    for (a, b) in s.linear.iter().chain(&s.angular).zip(request.linear.iter().chain(&request.angular)) {
        assert!((a - b).abs() < 1e-12, "{s:?}");
    }
    assert_eq!(sim.job.world().robot.as_ref().unwrap().q[7..], joints_before[..]);
    // The root link entity is the same frame.
    let base = sim.state(&format!("{robot}/base"));
    assert_eq!((base.position, base.linear), (s.position, s.linear));
}

#[test]
fn bad_sets_are_refused_with_the_standard_codes() {
    let sim = Sim::quadruped();
    let e = &sim.ends.entities;
    let robot = e.all()[0].name.clone();
    let check = |name: &str, r: &RequestedState| check_set(&e.get(name).unwrap(), r).unwrap_err();
    let nan = check("crate", &at([f64::NAN, 0.0, 1.0]));
    assert_eq!(nan.code(), 101, "INVALID_POSE: {nan}");
    let mut skew = at([0.0, 0.0, 1.0]);
    skew.orientation = [0.0, 0.0, 0.0, 2.0];
    let e2 = check("crate", &skew);
    assert!(e2.code() == 101 && e2.to_string().contains("unit quaternion"), "{e2}");
    let mut spin = at([0.0, 0.0, 1.0]);
    spin.angular = [f64::INFINITY, 0.0, 0.0];
    assert_eq!(check("crate", &spin).code(), 4);
    let mut map = at([0.0, 0.0, 1.0]);
    map.frame = "map";
    assert_eq!(check("crate", &map).code(), 0);
    let link = check(&format!("{robot}/lf_foot"), &at([0.0; 3]));
    assert!(link.code() == 4 && link.to_string().contains("follows its joints"), "{link}");
    assert_eq!(check("ground", &at([0.0; 3])).code(), 4);
    // A quaternion off by less than the tolerance is normalized.
    let mut near = at([0.0, 0.0, 1.0]);
    near.orientation = [0.0, 0.0, 0.0, 1.0005];
    assert!(check_set(&e.get("crate").unwrap(), &near).is_ok());
}

/// With `robots:` each robot is an entity under its namespace, its links `<ns>/<link>`;
/// SetEntityState of one moves its floating base only.
#[test]
fn several_robots_are_entities_under_their_namespaces() {
    let setup = Setup::load(&repo("config/two_quadrupeds.yaml"), None).unwrap();
    let SimLoop { job, ends, .. } = SimLoop::new(&setup, Arc::new(Counters::default())).unwrap();
    let mut sim = Sim { job, ends: ends.entities, samples: ends.samples, ticks: 0 };
    let names: Vec<String> = sim.ends.entities.all().iter().map(|e| e.name.clone()).collect();
    for name in ["a", "a/base", "a/lf_foot", "b", "b/base", "b/rh_foot"] {
        assert!(names.contains(&name.to_string()), "{name} in {names:?}");
    }
    let q = EntityQuery { filter: "^[ab]$", categories: vec![1], ..Default::default() };
    let robots: Vec<String> = sim.ends.entities.select(&q).unwrap().iter().map(|e| e.name.clone()).collect();
    assert_eq!(robots, ["a", "b"]);
    sim.tick();
    sim.job.requests().set_paused(true);
    let a_before = sim.state("a");
    sim.set("b", &at([2.0, 1.0, 0.6]));
    assert_eq!(sim.state("b").position, [2.0, 1.0, 0.6]);
    assert_eq!(sim.state("b/base").position, [2.0, 1.0, 0.6]);
    assert_eq!(sim.state("a").position, a_before.position, "a does not move");
    let foot = sim.state("b/lf_foot").position;
    assert!((foot[0] - 2.0).abs() < 0.5 && (foot[1] - 1.0).abs() < 0.5, "b's links follow its base: {foot:?}");
}

/// A body spawned while running is an entity (CATEGORY_OBJECT) from the tick that placed
/// it: listed, its state read, set, found by a sphere; deleted, it is gone.
#[test]
fn a_spawned_body_is_an_entity_until_deleted() {
    use signorini::app::spawning::{SpawnRequest, prepare};
    let mut sim = Sim::quadruped();
    sim.tick();
    let spawns = sim.job.spawns();
    let ball = r#"<robot name="ball"><link name="ball"><inertial><mass value="0.5"/>
        <inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>
        <collision><geometry><sphere radius="0.05"/></geometry></collision></link></robot>"#;
    let request = SpawnRequest {
        name: "ball".into(),
        resource_string: ball.into(),
        position: [-1.0, 0.5, 0.3],
        orientation: [0.0, 0.0, 0.0, 1.0],
        ..SpawnRequest::default()
    };
    let (name, ticket) = spawns.spawn(prepare(&request).unwrap()).unwrap();
    sim.job.requests().set_paused(true);
    sim.tick();
    assert!(spawns.applied(ticket));
    let q = EntityQuery { categories: vec![0], ..Default::default() };
    let objects: Vec<String> = sim.ends.entities.select(&q).unwrap().iter().map(|e| e.name.clone()).collect();
    assert_eq!(objects, ["crate", name.as_str()]);
    assert_eq!(sim.state(&name).position, [-1.0, 0.5, 0.3]);
    sim.set(&name, &at([-1.0, 0.5, 0.8]));
    assert_eq!(sim.state(&name).position, [-1.0, 0.5, 0.8]);
    let snapshot = sim.snapshot();
    let sphere =
        EntityQuery { bounds_type: 3, bounds_points: vec![[-1.0, 0.5, 0.86], [0.02, 0.0, 0.0]], ..Default::default() };
    let found: Vec<String> = sim
        .ends
        .entities
        .select_at(&sphere, &mut sim.ends.view, &snapshot)
        .unwrap()
        .iter()
        .map(|e| e.name.clone())
        .collect();
    assert_eq!(found, std::slice::from_ref(&name), "the sphere touches the ball's top");
    spawns.delete(&name).unwrap();
    sim.tick();
    assert_eq!(sim.ends.entities.get(&name).unwrap_err().code(), 2);
}
