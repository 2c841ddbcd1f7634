//! Deep overlaps of convex primitives allocate nothing after a collision world's start-up:
//! parry grows its EPA's buffers on demand, and the adapter warms them up when it makes a
//! world's workspace (`parry_adapter::warm_up`). A process of its own, with every world
//! alive at once, so that each has a freshly warmed EPA, not one recycled from a dropped
//! world that has grown further.

mod counting;

use std::sync::Arc;

use signorini::collision::{CollisionShape, CollisionWorld, ContactBuffer, FreeBodyShape};
use signorini::config::EnvironmentConfig;
use signorini::model::{Model, ModelOptions};
use signorini::spatial::{SE3, Vec3, rotation_from_rpy};

use counting::allocations_during;

/// Every pair of six primitives (the quadruped's shapes: foot ball, thigh box, shank and
/// hip cylinders, base box, and a capsule) at 2000 random deep overlaps each (the legs of
/// two robots pushed into each other; EPA on cylinders' round supports runs up to its 100
/// iterations). With the spheres-only warm-up 1 of these 42 000 allocated; the running
/// node's loop had allocated the same way.
#[test]
fn deep_overlaps_of_primitives_at_random_poses_allocate_nothing() {
    let shapes = || {
        [
            CollisionShape::sphere(0.025),
            CollisionShape::cuboid(Vec3::new(0.02, 0.02, 0.11)),
            CollisionShape::cylinder(0.015, 0.11),
            CollisionShape::cylinder(0.04, 0.04),
            CollisionShape::capsule(0.03, 0.1),
            CollisionShape::cuboid(Vec3::new(0.25, 0.125, 0.05)),
        ]
    };
    let model =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let env: EnvironmentConfig = serde_yaml_ng::from_str("ground: null").unwrap();
    let body = |name: &str, shape| FreeBodyShape {
        name: name.into(),
        shape: Arc::new(shape),
        placement: SE3::IDENTITY,
        friction: 1.0,
        restitution: 0.0,
    };
    let mut worlds = Vec::new();
    for i in 0..shapes().len() {
        for j in i..shapes().len() {
            let (a, b) = (shapes().into_iter().nth(i).unwrap(), shapes().into_iter().nth(j).unwrap());
            let mut world = CollisionWorld::new(&model, &env.description(), &Default::default()).unwrap();
            world.add_free_body(&[body("a", a)]);
            world.add_free_body(&[body("b", b)]);
            worlds.push(world);
        }
    }
    let (mut uniform, mut allocating, mut touching) = (signorini::sampling::uniform(0x9e37_79b9_7f4a_7c15), 0, 0);
    let mut out = ContactBuffer::with_capacity(64);
    for world in &mut worlds {
        world.detect(&mut out);
        for _ in 0..2000 {
            let mut pose = || {
                let r = rotation_from_rpy(3.2 * uniform(), 3.2 * uniform(), 3.2 * uniform());
                SE3::new(r, Vec3::new(0.03 * uniform(), 0.03 * uniform(), 0.03 * uniform()))
            };
            let (pa, pb) = (pose(), pose());
            world.set_free_body_pose(0, &pa);
            world.set_free_body_pose(1, &pb);
            allocating += usize::from(allocations_during(|| world.detect(&mut out)) > 0);
            touching += usize::from(!out.is_empty());
        }
    }
    assert!(touching > 30_000, "{touching} of 42000 poses overlapped");
    assert_eq!(allocating, 0, "detections that allocated");
}
