//! Detection allocates nothing after start-up: the quadruped on the ground next to a
//! static box, solo12 (convex hulls of its meshes) on the ground, and a stack of free
//! boxes on a plane (sweep and prune, parry's box–box manifolds).

mod common;
mod counting;

use std::sync::Arc;

use signorini::collision::{CollisionShape, CollisionWorld, ContactBuffer, FreeBodyShape};
use signorini::config::EnvironmentConfig;
use signorini::dynamics;
use signorini::model::{Data, Model, ModelOptions};
use signorini::spatial::{SE3, Vec3};

use common::{erd_share, repo};
use counting::allocations_during;

fn robot_on_ground(urdf: &std::path::Path, package_dirs: Vec<std::path::PathBuf>, environment: &str) -> usize {
    let options = ModelOptions { floating_base: true, package_dirs, ..Default::default() };
    let model = Model::from_urdf_file(urdf, &options).unwrap();
    let mut data = Data::new(&model);
    let env: EnvironmentConfig = serde_yaml_ng::from_str(environment).unwrap();
    let mut world = CollisionWorld::new(&model, &env.description(), &Default::default()).unwrap();
    let mut out = ContactBuffer::with_capacity(128);
    let mut q = model.neutral_configuration();
    let mut contacts = 0;
    let mut step = |q: &[f64], world: &mut CollisionWorld, out: &mut ContactBuffer| {
        dynamics::forward_kinematics(&model, &mut data, q);
        world.update_robot(&data);
        world.detect(out);
    };
    for k in 0..3 {
        q[2] = 0.3 - 0.01 * k as f64;
        step(q.as_slice(), &mut world, &mut out);
    }
    for k in 0..50 {
        q[0] = 1e-3 * k as f64;
        q[2] = 0.27 - 1e-4 * k as f64;
        let n = allocations_during(|| step(q.as_slice(), &mut world, &mut out));
        assert_eq!(n, 0, "{}: detection allocated at step {k}", urdf.display());
        contacts += out.len();
    }
    contacts
}

#[test]
fn robots_on_the_ground_allocate_nothing() {
    let env = "boxes: [{name: crate, size: [0.4, 0.4, 0.4], position: [0.5, 0.0, 0.2]}]";
    assert!(robot_on_ground(&repo("urdf/quadruped.urdf"), vec![], env) > 0);
    let solo = erd_share().join("example-robot-data/robots/solo_description/robots/solo12.urdf");
    robot_on_ground(&solo, vec![erd_share()], env);
}

#[test]
fn a_stack_of_free_boxes_allocates_nothing() {
    let model =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let mut world = CollisionWorld::new(&model, &Default::default(), &Default::default()).unwrap();
    let cube = Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05)));
    for k in 0..10 {
        world.add_free_body(&[FreeBodyShape {
            name: format!("cube{k}"),
            shape: cube.clone(),
            placement: SE3::IDENTITY,
            friction: 0.8,
            restitution: 0.0,
        }]);
    }
    let mut out = ContactBuffer::with_capacity(256);
    let step = |world: &mut CollisionWorld, out: &mut ContactBuffer, z0: f64| {
        for k in 0..10 {
            world.set_free_body_pose(
                k,
                &SE3::from_translation(Vec3::new(0.001 * k as f64, 0.0, z0 + 0.0999 * k as f64)),
            );
        }
        world.detect(out);
    };
    step(&mut world, &mut out, 0.05);
    step(&mut world, &mut out, 0.0499);
    assert_eq!(out.len(), 40, "4 corners on the ground and on each cube below");
    for k in 0..20 {
        let z0 = 0.0499 - 1e-5 * k as f64;
        assert_eq!(allocations_during(|| step(&mut world, &mut out, z0)), 0, "step {k}");
    }
}

#[test]
fn every_primitive_against_a_static_box_allocates_nothing() {
    use signorini::spatial::rotation_from_rpy;
    let shapes = [
        ("sphere", CollisionShape::sphere(0.05)),
        ("box", CollisionShape::cuboid(Vec3::repeat(0.05))),
        ("cylinder", CollisionShape::cylinder(0.03, 0.1)),
        ("capsule", CollisionShape::capsule(0.03, 0.1)),
    ];
    for (name, shape) in shapes {
        let model =
            Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default())
                .unwrap();
        let env: EnvironmentConfig = serde_yaml_ng::from_str(
            "ground: null\nboxes: [{name: crate, size: [0.4, 0.4, 0.4], position: [0.0, 0.0, 0.0]}]",
        )
        .unwrap();
        let mut world = CollisionWorld::new(&model, &env.description(), &Default::default()).unwrap();
        world.add_free_body(&[free_body(name, shape)]);
        let mut out = ContactBuffer::with_capacity(64);
        let mut touched = 0;
        // Sliding in from outside to 2 cm deep while turning: separated, touching, penetrating.
        for k in 0..40 {
            let pose = SE3::new(
                rotation_from_rpy(0.1 * k as f64, 0.3, 0.05 * k as f64),
                Vec3::new(0.22 - 0.001 * k as f64, 0.0, 0.0),
            );
            world.set_free_body_pose(0, &pose);
            assert_eq!(allocations_during(|| world.detect(&mut out)), 0, "{name} at step {k}");
            touched += usize::from(!out.is_empty());
        }
        assert!(touched > 20, "{name} reached the box");
    }
}

#[test]
fn a_box_sliding_over_a_triangle_mesh_allocates_nothing() {
    // A 2 m x 2 m floor of 800 triangles at z = 0.
    let mut triangles = Vec::new();
    for i in 0..20 {
        for j in 0..20 {
            let (x, y) = (i as f64 * 0.1 - 1.0, j as f64 * 0.1 - 1.0);
            triangles.push([[x, y, 0.0], [x + 0.1, y, 0.0], [x + 0.1, y + 0.1, 0.0]]);
            triangles.push([[x, y, 0.0], [x + 0.1, y + 0.1, 0.0], [x, y + 0.1, 0.0]]);
        }
    }
    let floor = common::stl_file("floor_grid.stl", &triangles);
    let env: EnvironmentConfig =
        serde_yaml_ng::from_str(&format!("ground: null\nmeshes: [{{name: floor, file: {}}}]", floor.display()))
            .unwrap();
    let model =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let mut world = CollisionWorld::new(&model, &env.description(), &Default::default()).unwrap();
    world.add_free_body(&[FreeBodyShape {
        name: "box".into(),
        shape: Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05))),
        placement: SE3::IDENTITY,
        friction: 1.0,
        restitution: 0.0,
    }]);
    let mut out = ContactBuffer::with_capacity(64);
    for k in 0..200 {
        world.set_free_body_pose(0, &SE3::from_translation(Vec3::new(-0.5 + 0.005 * k as f64, 0.01, 0.0499)));
        let n = allocations_during(|| world.detect(&mut out));
        assert_eq!(n, 0, "step {k}");
        assert!(out.len() >= 4 && out.len() <= 16, "{} contacts at step {k}", out.len());
        for c in out.contacts() {
            assert!((c.distance + 1e-4).abs() < 1e-9 && (c.normal() - Vec3::z()).norm() < 1e-9, "step {k}: {c:?}");
        }
    }
}

/// A free body of one shape at the origin.
fn free_body(name: &str, shape: CollisionShape) -> FreeBodyShape {
    FreeBodyShape {
        name: name.into(),
        shape: Arc::new(shape),
        placement: SE3::IDENTITY,
        friction: 1.0,
        restitution: 0.0,
    }
}
