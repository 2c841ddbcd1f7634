//! Contact detection against exact expected values: spheres, boxes, cylinders and STL
//! meshes on planes, the quadruped standing, persistent ids, mesh errors, and the
//! collision models of example-robot-data robots counted against Pinocchio/coal.

mod common;

use std::sync::Arc;

use signorini::collision::{CollisionShape, CollisionWorld, ContactBuffer, FreeBodyShape, Owner};
use signorini::config::EnvironmentConfig;
use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};
use signorini::spatial::{SE3, Vec3, rotation_from_rpy};

use common::{erd_share, repo, stl_file, temp_file};

fn env(yaml: &str) -> EnvironmentConfig {
    serde_yaml_ng::from_str(yaml).unwrap()
}

/// A world with no robot (an empty URDF) and one free body of `shape`.
fn free_body_world(shape: CollisionShape, environment: &str) -> CollisionWorld {
    let model =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let mut w = CollisionWorld::new(&model, &env(environment).description(), &Default::default()).unwrap();
    let body = w.add_free_body(&[FreeBodyShape {
        name: "body".into(),
        shape: Arc::new(shape),
        placement: SE3::IDENTITY,
        friction: f64::INFINITY,
        restitution: 0.0,
    }]);
    assert_eq!(body, 0);
    w
}

fn detect_at(w: &mut CollisionWorld, pose: SE3) -> ContactBuffer {
    let mut out = ContactBuffer::with_capacity(64);
    w.set_free_body_pose(0, &pose);
    w.detect(&mut out);
    out
}

const GROUND: &str = "ground: {height: 0.0, normal: [0, 0, 1], friction: 0.7, restitution: 0.2}";

#[test]
fn a_sphere_above_and_into_a_plane() {
    let mut w = free_body_world(CollisionShape::sphere(0.1), GROUND);
    // 3 mm above: inside the 5 mm margin, positive distance.
    let c = detect_at(&mut w, SE3::from_translation(Vec3::new(0.2, -0.1, 0.103)));
    assert_eq!(c.len(), 1);
    let k = c.contacts()[0];
    assert!((k.distance - 0.003).abs() < 1e-15);
    assert!((k.normal() - Vec3::z()).norm() < 1e-15);
    assert!((k.point - Vec3::new(0.2, -0.1, 0.0015)).norm() < 1e-15, "midway between the surfaces");
    assert_eq!((k.friction, k.restitution), (0.7, 0.2));
    assert_eq!((k.body1, k.body2), (Owner::Free { body: 0 }, Owner::Static));
    // 2 cm into the plane.
    let k = detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, 0.08))).contacts()[0];
    assert!((k.distance + 0.02).abs() < 1e-15);
    assert!((k.point - Vec3::new(0.0, 0.0, -0.01)).norm() < 1e-15);
    // 6 mm above: beyond the margin, no contact.
    assert!(detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, 0.106))).is_empty());
    // An inclined ground: the normal follows it.
    let mut w = free_body_world(CollisionShape::sphere(0.1), "ground: {normal: [0, -1, 1]}");
    let n = Vec3::new(0.0, -1.0, 1.0).normalize();
    let k = detect_at(&mut w, SE3::from_translation(n * 0.1)).contacts()[0];
    assert!(k.distance.abs() < 1e-15 && (k.normal() - n).norm() < 1e-15);
}

fn corners(c: &ContactBuffer) -> Vec<[i64; 3]> {
    let mut v: Vec<[i64; 3]> =
        c.contacts().iter().map(|k| [0, 1, 2].map(|i| (k.point[i] * 1e4).round() as i64)).collect();
    v.sort();
    v
}

#[test]
fn a_box_resting_on_a_plane_touches_at_its_four_corners() {
    let mut w = free_body_world(CollisionShape::cuboid(Vec3::new(0.2, 0.1, 0.05)), GROUND);
    let c = detect_at(&mut w, SE3::from_translation(Vec3::new(1.0, 2.0, 0.05)));
    assert_eq!(corners(&c), vec![[8000, 19000, 0], [8000, 21000, 0], [12000, 19000, 0], [12000, 21000, 0]]);
    assert!(c.contacts().iter().all(|k| k.distance.abs() < 1e-15 && (k.normal() - Vec3::z()).norm() < 1e-15));
    // Rotated 90° about z: the corners swap axes.
    let pose = SE3::new(rotation_from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_2), Vec3::new(0.0, 0.0, 0.05));
    assert_eq!(
        corners(&detect_at(&mut w, pose)),
        vec![[-1000, -2000, 0], [-1000, 2000, 0], [1000, -2000, 0], [1000, 2000, 0]]
    );
    // Standing on its 0.2 x 0.1 side (rotated 90° about x): the 4 corners of that face.
    let pose = SE3::new(rotation_from_rpy(std::f64::consts::FRAC_PI_2, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.1));
    assert_eq!(
        corners(&detect_at(&mut w, pose)),
        vec![[-2000, -500, 0], [-2000, 500, 0], [2000, -500, 0], [2000, 500, 0]]
    );
    // Tilted by 30° about x, 1 mm into the ground on its lowest edge (y = −0.1, z = −0.05
    // in the box): the edge's two ends, nothing else within the margin.
    let (s, c) = 30f64.to_radians().sin_cos();
    let (edge_y, edge_z) = (-0.1 * c + 0.05 * s, -0.1 * s - 0.05 * c);
    let pose = SE3::new(rotation_from_rpy(30f64.to_radians(), 0.0, 0.0), Vec3::new(0.0, 0.0, -edge_z - 0.001));
    let tilted = detect_at(&mut w, pose);
    assert_eq!(tilted.len(), 2, "{:?}", tilted.contacts());
    for k in tilted.contacts() {
        assert!((k.distance + 0.001).abs() < 1e-15 && (k.normal() - Vec3::z()).norm() < 1e-15);
        assert!((k.point.x.abs() - 0.2).abs() < 1e-15 && (k.point.y - edge_y).abs() < 1e-15);
        assert!((k.point.z + 0.0005).abs() < 1e-15, "halfway between the surfaces");
    }
}

#[test]
fn a_cylinder_standing_and_lying() {
    let mut w = free_body_world(CollisionShape::cylinder(0.05, 0.1), GROUND);
    let standing = detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, 0.099)));
    assert_eq!(standing.len(), 4);
    assert!(
        standing
            .contacts()
            .iter()
            .all(|k| (k.distance + 0.001).abs() < 1e-15 && (k.point.xy().norm() - 0.05).abs() < 1e-12)
    );
    let lying = SE3::new(rotation_from_rpy(0.0, std::f64::consts::FRAC_PI_2, 0.0), Vec3::new(0.0, 0.0, 0.05));
    let c = detect_at(&mut w, lying);
    assert_eq!(corners(&c), vec![[-1000, 0, 0], [1000, 0, 0]], "the two ends of the lowest line");
}

/// A cube of side 2·h as STL: binary and ASCII.
fn cube_triangles(h: f64) -> Vec<[[f64; 3]; 3]> {
    let quads = [
        ([-1.0, -1.0, -1.0], [1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, -1.0]),
        ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, -1.0, 1.0]),
        ([-1.0, -1.0, -1.0], [-1.0, -1.0, 1.0], [1.0, -1.0, 1.0], [1.0, -1.0, -1.0]),
        ([-1.0, 1.0, -1.0], [1.0, 1.0, -1.0], [1.0, 1.0, 1.0], [-1.0, 1.0, 1.0]),
        ([-1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [-1.0, -1.0, 1.0]),
        ([1.0, -1.0, -1.0], [1.0, -1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, -1.0]),
    ];
    let p = |q: [f64; 3]| q.map(|x| x * h);
    quads.iter().flat_map(|&(a, b, c, d)| [[p(a), p(b), p(c)], [p(a), p(c), p(d)]]).collect()
}

fn ascii_stl_file(name: &str, triangles: &[[[f64; 3]; 3]]) -> std::path::PathBuf {
    let mut s = String::from("solid cube\n");
    for t in triangles {
        s += "facet normal 0 0 0\nouter loop\n";
        for p in t {
            s += &format!("vertex {} {} {}\n", p[0], p[1], p[2]);
        }
        s += "endloop\nendfacet\n";
    }
    s += "endsolid cube\n";
    temp_file(name, &s)
}

#[test]
fn an_stl_cube_equals_the_box_primitive() {
    let primitive = CollisionShape::cuboid(Vec3::repeat(0.05));
    for (name, ascii) in [("cube_binary.stl", false), ("cube_ascii.stl", true)] {
        let cube = cube_triangles(0.05);
        let path = if ascii { ascii_stl_file(name, &cube) } else { stl_file(name, &cube) };
        let (vertices, triangles) = signorini::collision::load_mesh(&path, &Vec3::new(1.0, 1.0, 1.0)).unwrap();
        assert_eq!(triangles.len(), 12, "{name}");
        let hull = CollisionShape::convex_hull(&vertices, name).unwrap();
        for pose in [
            SE3::from_translation(Vec3::new(0.3, 0.1, 0.049)),
            SE3::new(rotation_from_rpy(0.0, 0.0, 0.4), Vec3::new(0.0, 0.0, 0.05)),
            SE3::new(rotation_from_rpy(0.3, 0.2, 0.0), Vec3::new(0.0, 0.0, 0.06)),
        ] {
            let a = detect_at(&mut free_body_world(CollisionShape::cuboid(Vec3::repeat(0.05)), GROUND), pose);
            let b =
                detect_at(&mut free_body_world(CollisionShape::convex_hull(&vertices, name).unwrap(), GROUND), pose);
            assert_eq!(corners(&a), corners(&b), "{name} at {pose:?}");
            let depth = |c: &ContactBuffer| c.contacts().iter().map(|k| k.distance).fold(f64::INFINITY, f64::min);
            assert!((depth(&a) - depth(&b)).abs() < 1e-7, "f32 vertices: 1e-7 m");
        }
        let (a, b) = (hull.local_aabb, primitive.local_aabb);
        assert!((a.0 - b.0).norm() < 1e-7 && (a.1 - b.1).norm() < 1e-7, "{a:?} vs {b:?}");
    }
}

#[test]
fn box_on_box_through_the_general_path() {
    let mut w = free_body_world(
        CollisionShape::cuboid(Vec3::repeat(0.05)),
        "ground: null\nboxes: [{name: table, size: [1.0, 1.0, 0.1], position: [0, 0, 0.5], friction: 0.4}]",
    );
    let c = detect_at(&mut w, SE3::from_translation(Vec3::new(0.1, 0.2, 0.6)));
    assert_eq!(c.len(), 4, "{:?}", c.contacts());
    for k in c.contacts() {
        assert!(k.distance.abs() < 1e-9 && (k.normal() - Vec3::z()).norm() < 1e-9);
        assert!((k.point.z - 0.55).abs() < 1e-9 && k.friction == 0.4);
        assert_eq!(w.objects()[k.object2].name, "table");
    }
    assert_eq!(corners(&c), vec![[500, 1500, 5500], [500, 2500, 5500], [1500, 1500, 5500], [1500, 2500, 5500]]);
}

#[test]
fn ids_persist_while_sliding_and_change_when_contact_breaks() {
    let mut w = free_body_world(CollisionShape::cuboid(Vec3::new(0.2, 0.1, 0.05)), GROUND);
    let ids = |c: &ContactBuffer| {
        let mut v: Vec<u64> = c.contacts().iter().map(|k| k.id.0).collect();
        v.sort();
        v
    };
    let first = ids(&detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, 0.05))));
    assert_eq!(first.len(), 4);
    for step in 1..=100 {
        let x = 1e-3 * step as f64;
        let yaw = 1e-3 * step as f64;
        let pose = SE3::new(rotation_from_rpy(0.0, 0.0, yaw), Vec3::new(x, 0.5 * x, 0.0499));
        assert_eq!(ids(&detect_at(&mut w, pose)), first, "step {step}");
    }
    // Lifted: no contact.
    assert!(detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, 0.2))).is_empty());
    // Put back upside down: the other four corners touch, with other ids.
    let flipped = SE3::new(rotation_from_rpy(std::f64::consts::PI, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.05));
    let second = ids(&detect_at(&mut w, flipped));
    assert_eq!(second.len(), 4);
    assert!(second.iter().all(|id| !first.contains(id)));
    // Tipped on an edge: two of the four remain, with their ids.
    let tipped =
        SE3::new(rotation_from_rpy(0.3, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.1 * 0.3f64.sin() + 0.05 * 0.3f64.cos()));
    let edge = ids(&detect_at(&mut w, tipped));
    assert_eq!(edge.len(), 2);
    assert!(edge.iter().all(|id| first.contains(id)));
}

fn standing_quadruped() -> (Model, Data, CollisionWorld) {
    let options = ModelOptions { floating_base: true, ..Default::default() };
    let model = Model::from_urdf_file(&repo("urdf/quadruped.urdf"), &options).unwrap();
    let mut data = Data::new(&model);
    let mut q = model.neutral_configuration();
    for leg in ["lf", "lh", "rf", "rh"] {
        q[model.idx_q[model.joint_id(&format!("{leg}_hfe")).unwrap()]] = 0.6;
        q[model.idx_q[model.joint_id(&format!("{leg}_kfe")).unwrap()]] = -1.2;
    }
    // Feet at 0.22·cos(0.6)·2 below the hips, plus the foot radius: 2 mm into the ground.
    q[2] = 0.44 * 0.6f64.cos() + 0.025 - 0.002;
    dynamics::forward_kinematics(&model, &mut data, q.as_slice());
    let mut world = CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
    world.update_robot(&data);
    (model, data, world)
}

#[test]
fn the_quadruped_standing_touches_with_its_four_feet() {
    let (model, _data, mut world) = standing_quadruped();
    let mut out = ContactBuffer::with_capacity(64);
    world.detect(&mut out);
    assert_eq!(out.len(), 4, "{:?}", out.contacts());
    let mut feet: Vec<&str> = out.contacts().iter().map(|k| world.objects()[k.object1].link.as_str()).collect();
    feet.sort();
    assert_eq!(feet, ["lf_foot", "lh_foot", "rf_foot", "rh_foot"]);
    for k in out.contacts() {
        assert!((k.distance + 0.002).abs() < 1e-12, "{}", k.distance);
        let Owner::Robot { joint } = k.body1 else { panic!("the robot is body 1") };
        assert!(model.joint_names[joint].ends_with("_kfe"), "feet are merged into the shanks");
        assert!((k.point.z + 0.001).abs() < 1e-12);
    }
}

/// The lowest point of the standing quadruped is its feet's (spheres on shanks at −0.6 rad):
/// exactly 2 mm below the ground, not the box bound of a rotated sphere (9.7 mm lower, which
/// left the robot placed on the ground by `World::place_robot_on` falling 9.7 mm at start).
#[test]
fn the_standing_quadrupeds_lowest_point_is_its_feet() {
    let (_model, data, world) = standing_quadruped();
    let lowest = world.robot_lowest_point(&data).unwrap();
    assert!((lowest + 0.002).abs() < 1e-12, "{lowest}");
}

/// Shapes whose bounding sphere is farther than the margin from the ground are left out
/// (the body, the thighs); sunk below the ground, the same world places and tests them
/// all, and every one meets it.
#[test]
fn shapes_far_from_every_half_space_are_left_out() {
    let (model, mut data, mut world) = standing_quadruped();
    let far: Vec<&str> = world.objects().iter().filter(|o| o.far()).map(|o| o.link.as_str()).collect();
    assert!(far.contains(&"base"), "{far:?}");
    assert!(far.iter().all(|l| !l.ends_with("_shank") && !l.ends_with("_foot")), "{far:?}");
    let mut q = model.neutral_configuration();
    q[2] = -10.0; // the whole robot below the ground
    dynamics::forward_kinematics(&model, &mut data, q.as_slice());
    world.update_robot(&data);
    assert!(world.objects().iter().all(|o| !o.far()));
    let mut out = ContactBuffer::with_capacity(64);
    world.detect(&mut out);
    let robot_shapes = world.objects().iter().filter(|o| matches!(o.owner, Owner::Robot { .. })).count();
    let touching: std::collections::HashSet<usize> = out.contacts().iter().map(|k| k.object1).collect();
    assert_eq!(touching.len(), robot_shapes, "every shape meets the ground");
}

#[test]
fn missing_and_corrupt_meshes_name_the_file() {
    let garbage = temp_file("corrupt.stl", "solid nothing here\nthis is not an stl\n");
    let xml = format!(
        "<robot name='r'><link name='a'><collision><geometry><mesh filename='{}'/></geometry></collision></link></robot>",
        garbage.display()
    );
    let model = Model::from_urdf_xml(&xml, "r.urdf", &ModelOptions::default()).unwrap();
    let e = CollisionWorld::new(&model, &Default::default(), &Default::default()).err().unwrap().to_string();
    assert!(e.starts_with(&format!("link `a`: {}", garbage.display())), "{e}");
    let xml = xml.replace(&garbage.display().to_string(), "/nonexistent/foot.stl");
    let e = Model::from_urdf_xml(&xml, "r.urdf", &ModelOptions::default()).unwrap_err().to_string();
    assert!(e.contains("collision mesh `/nonexistent/foot.stl` not found"), "{e}");
    // An environment mesh names its key.
    let environment = format!("meshes: [{{name: rock, file: {}}}]", garbage.display());
    let empty =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let e =
        CollisionWorld::new(&empty, &env(&environment).description(), &Default::default()).err().unwrap().to_string();
    assert!(e.starts_with(&format!("key `environment.meshes[0]` (rock): {}", garbage.display())), "{e}");
}

#[test]
fn example_robot_data_collision_models_count_like_pinocchio() {
    let inventory: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo("tests/fixtures/erd_inventory.json")).unwrap()).unwrap();
    let share = erd_share();
    let options =
        ModelOptions { mimic: MimicPolicy::Independent, package_dirs: vec![share.clone()], ..Default::default() };
    let wanted = [
        "solo_description/robots/solo12.urdf",
        "talos_data/robots/talos_reduced.urdf",
        "ur_description/urdf/ur5_robot.urdf",
        "anymal_b_simple_description/robots/anymal.urdf",
        "anymal_c_simple_description/urdf/anymal.urdf",
    ];
    for entry in inventory["urdfs"].as_array().unwrap() {
        let rel = entry["urdf"].as_str().unwrap();
        if !wanted.iter().any(|w| rel.ends_with(w)) {
            continue;
        }
        let model = Model::from_urdf_file(&share.join(rel), &options).unwrap();
        let world = CollisionWorld::new(
            &model,
            &EnvironmentConfig { ground: None, ..Default::default() }.description(),
            &Default::default(),
        )
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
        let robot_shapes = world.objects().iter().filter(|o| matches!(o.owner, Owner::Robot { .. })).count();
        assert_eq!(Some(robot_shapes as u64), entry["ngeoms"].as_u64(), "{rel}");
        println!("{rel}: {robot_shapes} shapes, like Pinocchio/coal");
    }
}

#[test]
fn a_box_on_a_triangle_mesh_floor_touches_once_per_corner() {
    // A 2 m x 2 m floor of 8 triangles (a flat slab: its top face is 2 x 4 triangles).
    let floor = stl_file("floor.stl", &cube_triangles(1.0));
    let environment = format!(
        "ground: null\nmeshes: [{{name: floor, file: {}, scale: [1.0, 1.0, 0.05], position: [0, 0, -0.05]}}]",
        floor.display()
    );
    let mut w = free_body_world(CollisionShape::cuboid(Vec3::new(0.2, 0.1, 0.05)), &environment);
    let floor_object = w.objects().iter().position(|o| o.name == "floor").unwrap();
    assert!(matches!(w.objects()[floor_object].shape.kind, signorini::collision::ShapeKind::TriMesh { .. }));
    // Resting across the diagonal seam of the top face's triangles.
    let c = detect_at(&mut w, SE3::new(rotation_from_rpy(0.0, 0.0, 0.3), Vec3::new(0.0, 0.0, 0.0499)));
    assert!(c.len() >= 4, "{:?}", c.contacts());
    let mut seen: Vec<[i64; 3]> = corners(&c);
    seen.dedup();
    assert_eq!(seen.len(), c.len(), "no point reported twice");
    for k in c.contacts() {
        assert!((k.normal() - Vec3::z()).norm() < 1e-6 && (k.distance + 1e-4).abs() < 1e-6, "{k:?}");
    }
}

/// Two 1 m x 2 m planks meeting along the y axis, each tilted by 30°: rising away from
/// the seam (`valley`) or falling (`ridge`). Each plank is two triangles.
fn folded_planks(name: &str, valley: bool) -> std::path::PathBuf {
    let s = if valley { 1.0 } else { -1.0 } * 30f64.to_radians().tan();
    let mut triangles = Vec::new();
    for side in [-1.0, 1.0] {
        let p = |x: f64, y: f64| [side * x, y, s * x];
        let quad = [p(0.0, -1.0), p(1.0, -1.0), p(1.0, 1.0), p(0.0, 1.0)];
        // Counter-clockwise seen from above on both planks.
        let [a, b, c, d] = if side > 0.0 { quad } else { [quad[0], quad[3], quad[2], quad[1]] };
        triangles.extend([[a, b, c], [a, c, d]]);
    }
    stl_file(name, &triangles)
}

#[test]
fn a_ball_in_a_mesh_valley_touches_both_faces_and_on_a_ridge_the_ridge() {
    let (r, theta) = (0.1, 30f64.to_radians());
    let environment =
        |file: &std::path::Path| format!("ground: null\nmeshes: [{{name: planks, file: {}}}]", file.display());
    // In the valley, 1 mm into both faces: one contact per face, along its normal; the
    // concave seam contributes nothing.
    let mut w = free_body_world(CollisionShape::sphere(r), &environment(&folded_planks("valley.stl", true)));
    let c = detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.0, (r - 1e-3) / theta.cos())));
    assert_eq!(c.len(), 2, "{:?}", c.contacts());
    for k in c.contacts() {
        let n = k.normal();
        // The STL holds single-precision vertices: 1e-7.
        assert!((n.z - theta.cos()).abs() < 1e-7 && (n.x.abs() - theta.sin()).abs() < 1e-7, "{n}");
        assert!((k.distance + 1e-3).abs() < 1e-6, "{}", k.distance);
    }
    assert!(c.contacts()[0].normal().x * c.contacts()[1].normal().x < 0.0, "one per face");
    // On the ridge, 1 mm in: the ridge line pushes straight up (inside the cone between the
    // two face normals), once although four triangles meet there.
    let mut w = free_body_world(CollisionShape::sphere(r), &environment(&folded_planks("ridge.stl", false)));
    let c = detect_at(&mut w, SE3::from_translation(Vec3::new(0.0, 0.3, r - 1e-3)));
    assert_eq!(c.len(), 1, "{:?}", c.contacts());
    assert!((c.contacts()[0].normal() - Vec3::z()).norm() < 1e-7, "{:?}", c.contacts());
    assert!((c.contacts()[0].distance + 1e-3).abs() < 1e-6);
}

#[test]
fn solo12_on_a_triangle_mesh_floor_touches_as_on_the_ground_plane() {
    let share = erd_share();
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.clone()], ..Default::default() };
    let model = Model::from_urdf_file(&robots.join("robots/solo12.urdf"), &options).unwrap();
    let standing = signorini::model::Srdf::from_file(&robots.join("srdf/solo.srdf"))
        .unwrap()
        .configuration(&model, "standing")
        .unwrap();
    // A 4 m x 4 m floor of 3200 triangles at z = 0.
    let (n, h) = (40, 0.1);
    let mut triangles = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (i as f64 * h - 2.0, j as f64 * h - 2.0);
            triangles.push([[x, y, 0.0], [x + h, y, 0.0], [x + h, y + h, 0.0]]);
            triangles.push([[x, y, 0.0], [x + h, y + h, 0.0], [x, y + h, 0.0]]);
        }
    }
    let floor = stl_file("solo_floor.stl", &triangles);
    let mesh_env = env(&format!("ground: null\nmeshes: [{{name: floor, file: {}}}]", floor.display()));
    let mut plane = CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
    let mut mesh = CollisionWorld::new(&model, &mesh_env.description(), &Default::default()).unwrap();
    let mut data = Data::new(&model);
    let key = |w: &CollisionWorld, c: &ContactBuffer| {
        let mut k: Vec<_> = c
            .contacts()
            .iter()
            .map(|c| {
                let p = c.point.map(|x| (x * 1e6).round() as i64);
                (w.objects()[c.object1].name.clone(), [p.x, p.y, p.z], (c.distance * 1e8).round() as i64)
            })
            .collect();
        k.sort();
        k
    };
    // Standing 1 mm deep, then slid and turned so that feet cross the triangles' seams.
    for (k, (dx, dy, yaw)) in
        [(0.0, 0.0, 0.0), (0.013, -0.021, 0.2), (0.05, 0.05, 0.785), (-0.31, 0.17, -1.0)].iter().enumerate()
    {
        let mut q = standing.clone();
        let quat = signorini::model::joint::rotation_to_quaternion(&rotation_from_rpy(0.0, 0.0, *yaw));
        q.rows_mut(3, 4).copy_from_slice(&quat);
        (q[0], q[1], q[2]) = (*dx, *dy, 0.0);
        dynamics::forward_kinematics(&model, &mut data, q.as_slice());
        let mut out = ContactBuffer::with_capacity(64);
        plane.update_robot(&data);
        plane.detect(&mut out);
        let lowest = out.contacts().iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
        q[2] -= lowest + 0.001;
        dynamics::forward_kinematics(&model, &mut data, q.as_slice());
        let (mut a, mut b) = (ContactBuffer::with_capacity(64), ContactBuffer::with_capacity(64));
        plane.update_robot(&data);
        plane.detect(&mut a);
        mesh.update_robot(&data);
        mesh.detect(&mut b);
        assert!(a.len() >= 4, "pose {k}: {} contacts", a.len());
        assert_eq!(key(&plane, &a), key(&mesh, &b), "pose {k}");
        assert!(b.contacts().iter().all(|c| (c.normal() - Vec3::z()).norm() < 1e-12));
    }
}

/// The fixed-base arm (urdf/arm7.urdf) on the ground: its base link, fixed to the world,
/// makes no contact with the ground (a contact nothing can move: a zero row of G, which
/// left PGS dividing by zero); a free box set on that base link still touches it.
#[test]
fn a_fixed_base_touches_free_bodies_but_not_the_ground() {
    let model = Model::from_urdf_file(&repo("urdf/arm7.urdf"), &ModelOptions::default()).unwrap();
    let mut data = Data::new(&model);
    dynamics::forward_kinematics(&model, &mut data, model.neutral_configuration().as_slice());
    let mut world = CollisionWorld::new(&model, &env(GROUND).description(), &Default::default()).unwrap();
    let shape = Arc::new(CollisionShape::cuboid(Vec3::new(0.05, 0.05, 0.05)));
    let box_shape =
        FreeBodyShape { name: "box".into(), shape, placement: SE3::IDENTITY, friction: 0.5, restitution: 0.0 };
    world.add_free_body(&[box_shape]);
    world.update_robot(&data);
    let base = world.objects().iter().position(|o| o.link == "base_link").expect("the arm's base has a shape");
    assert!(matches!(world.objects()[base].owner, Owner::Robot { joint: 0 }));
    // The box far away, resting on the ground: its own four contacts only.
    let mut out = ContactBuffer::with_capacity(64);
    world.set_free_body_pose(0, &SE3::new(rotation_from_rpy(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.049)));
    world.detect(&mut out);
    let robot_contacts = out.contacts().iter().filter(|c| matches!(c.body1, Owner::Robot { .. })).count();
    assert_eq!(robot_contacts, 0, "{:?}", out.contacts());
    assert_eq!(out.len(), 4);
    // The box pressed into the base link's side: it touches the base.
    let (lo, hi) = world.objects()[base].shape.world_aabb(&world.objects()[base].pose, 0.0);
    let side = Vec3::new(hi.x + 0.049, 0.5 * (lo.y + hi.y), 0.5 * (lo.z + hi.z).max(0.06));
    world.set_free_body_pose(0, &SE3::new(rotation_from_rpy(0.0, 0.0, 0.0), side));
    world.detect(&mut out);
    assert!(out.contacts().iter().any(|c| c.object1 == base || c.object2 == base), "{:?}", out.contacts());
}
