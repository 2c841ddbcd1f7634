//! Collision benchmark scenes, shared by benches/collision.rs (criterion) and
//! examples/collision_timing.rs (the figures of docs/BENCHMARKS.md).
#![allow(dead_code)]

use std::sync::Arc;

use signorini::collision::{CollisionShape, CollisionWorld, ContactBuffer, FreeBodyShape};
use signorini::config::{CollisionConfig, EnvironmentConfig, NonNegativeF64};
use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions, Srdf};
use signorini::spatial::{SE3, Vec3, rotation_from_rpy};

/// A scene: the world, the robot state already placed, and an output buffer.
pub struct Scene {
    pub name: &'static str,
    pub world: CollisionWorld,
    pub data: Option<Data>,
    pub out: ContactBuffer,
}

impl Scene {
    /// One detection step: robot shapes to the current placements, then contacts.
    pub fn step(&mut self) -> usize {
        if let Some(d) = &self.data {
            self.world.update_robot(d);
        }
        self.world.detect(&mut self.out);
        self.out.len()
    }
}

#[path = "../../tests/common/mod.rs"]
mod common;
pub use common::erd_share;

/// A floating-base robot at `q` on flat ground, lowered so its lowest contact is 1 mm
/// deep.
fn robot_scene(name: &'static str, model: Model, q: nalgebra::DVector<f64>) -> Scene {
    robot_scene_on(name, model, q, &EnvironmentConfig::default())
}

/// A floating-base robot at `q` on the ground of `env` (at z = 0), lowered so its lowest
/// contact is 1 mm deep.
fn robot_scene_on(name: &'static str, model: Model, mut q: nalgebra::DVector<f64>, env: &EnvironmentConfig) -> Scene {
    let mut data = Data::new(&model);
    // Find the lowest point with a generous margin, then lower the robot onto the ground.
    let probe = CollisionConfig { margin: NonNegativeF64::new(2.0).unwrap(), ..Default::default() };
    let mut world = CollisionWorld::new(&model, &env.description(), &probe.settings()).unwrap();
    let mut out = ContactBuffer::with_capacity(512);
    dynamics::forward_kinematics(&model, &mut data, q.as_slice());
    world.update_robot(&data);
    world.detect(&mut out);
    let lowest = out.contacts().iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
    q[2] -= lowest + 0.001;
    dynamics::forward_kinematics(&model, &mut data, q.as_slice());
    let world = CollisionWorld::new(&model, &env.description(), &CollisionConfig::default().settings()).unwrap();
    Scene { name, world, data: Some(data), out: ContactBuffer::with_capacity(256) }
}

pub fn quadruped() -> Scene {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let model = Model::from_urdf_file(
        &root.join("urdf/quadruped.urdf"),
        &ModelOptions { floating_base: true, ..Default::default() },
    )
    .unwrap();
    let mut q = model.neutral_configuration();
    for leg in ["lf", "lh", "rf", "rh"] {
        q[model.idx_q[model.joint_id(&format!("{leg}_hfe")).unwrap()]] = 0.6;
        q[model.idx_q[model.joint_id(&format!("{leg}_kfe")).unwrap()]] = -1.2;
    }
    q[2] = 0.5;
    robot_scene("quadruped standing", model, q)
}

fn solo12_standing() -> (Model, nalgebra::DVector<f64>) {
    let share = erd_share();
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.clone()], ..Default::default() };
    let model = Model::from_urdf_file(&robots.join("robots/solo12.urdf"), &options).unwrap();
    let q = Srdf::from_file(&robots.join("srdf/solo.srdf")).unwrap().configuration(&model, "standing").unwrap();
    (model, q)
}

pub fn solo12() -> Scene {
    let (model, q) = solo12_standing();
    robot_scene("solo12 standing (convex hulls)", model, q)
}

/// A 4 m x 4 m floor of 2 x 40 x 40 triangles at z = 0 (a binary STL in the temporary
/// directory).
fn mesh_floor() -> EnvironmentConfig {
    let (n, size) = (40u32, 4.0);
    let h = size / n as f64;
    let mut stl = vec![0u8; 80];
    stl.extend((2 * n * n).to_le_bytes());
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (i as f64 * h - size / 2.0, j as f64 * h - size / 2.0);
            for t in [[[x, y], [x + h, y], [x + h, y + h]], [[x, y], [x + h, y + h], [x, y + h]]] {
                stl.extend([0f32; 3].iter().flat_map(|c| c.to_le_bytes()));
                for [px, py] in t {
                    stl.extend([px as f32, py as f32, 0.0].iter().flat_map(|c| c.to_le_bytes()));
                }
                stl.extend([0u8; 2]);
            }
        }
    }
    let path = std::env::temp_dir().join(format!("signorini-bench-floor-{}.stl", std::process::id()));
    std::fs::write(&path, stl).unwrap();
    serde_yaml_ng::from_str(&format!("ground: null\nmeshes: [{{name: floor, file: {}}}]", path.display())).unwrap()
}

pub fn solo12_on_mesh() -> Scene {
    let (model, q) = solo12_standing();
    robot_scene_on("solo12 standing on a 3200-triangle mesh floor", model, q, &mesh_floor())
}

pub fn talos_lying() -> Scene {
    let share = erd_share();
    let options = ModelOptions {
        floating_base: true,
        mimic: MimicPolicy::Independent,
        package_dirs: vec![share.clone()],
        ..Default::default()
    };
    let urdf = share.join("example-robot-data/robots/talos_data/robots/talos_reduced.urdf");
    let model = Model::from_urdf_file(&urdf, &options).unwrap();
    let mut q = model.neutral_configuration();
    // On its back: pitched by 90° about y.
    let quat =
        signorini::model::joint::rotation_to_quaternion(&rotation_from_rpy(0.0, -std::f64::consts::FRAC_PI_2, 0.0));
    q.rows_mut(3, 4).copy_from_slice(&quat);
    q[2] = 1.0;
    robot_scene("talos lying on the ground", model, q)
}

pub fn boxes_on_a_plane() -> Scene {
    let model =
        Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default()).unwrap();
    let mut world = CollisionWorld::new(
        &model,
        &EnvironmentConfig::default().description(),
        &CollisionConfig::default().settings(),
    )
    .unwrap();
    let cube = Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05)));
    for k in 0..100 {
        let body = world.add_free_body(&[FreeBodyShape {
            name: format!("box{k}"),
            shape: cube.clone(),
            placement: SE3::IDENTITY,
            friction: 0.8,
            restitution: 0.0,
        }]);
        let (i, j) = (k % 10, k / 10);
        world.set_free_body_pose(body, &SE3::from_translation(Vec3::new(0.15 * i as f64, 0.15 * j as f64, 0.0499)));
    }
    Scene { name: "100 boxes on a plane", world, data: None, out: ContactBuffer::with_capacity(512) }
}

pub fn all() -> Vec<Scene> {
    vec![quadruped(), solo12(), solo12_on_mesh(), talos_lying(), boxes_on_a_plane()]
}
