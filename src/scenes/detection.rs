//! Collision worlds to time contact detection on (the criterion bench `collision` and
//! examples/collision_timing.rs): the robots standing or lying on the ground, 1 mm deep,
//! and 100 boxes on a plane.

use std::sync::Arc;

use crate::collision::{
    CollisionSettings, CollisionShape, CollisionWorld, ContactBuffer, Environment, FreeBodyShape, Obstacle,
    ObstacleGeometry,
};
use crate::dynamics;
use crate::model::joint::rotation_to_quaternion;
use crate::model::{Data, Model, ModelOptions};
use crate::spatial::{SE3, Vec3, rotation_from_rpy};

use super::{SceneError, Sources, robots};

/// A scene: the world, the robot state already placed, and an output buffer.
pub struct Detection {
    /// What it is.
    pub name: &'static str,
    /// The shapes.
    pub world: CollisionWorld,
    /// The robot's placements (None: no robot).
    pub data: Option<Data>,
    /// The contacts found.
    pub out: ContactBuffer,
}

impl Detection {
    /// One detection step: robot shapes to the current placements, then contacts.
    pub fn step(&mut self) -> usize {
        if let Some(d) = &self.data {
            self.world.update_robot(d);
        }
        self.world.detect(&mut self.out);
        self.out.len()
    }
}

/// The collision world of `model` in `environment` (None: the default ground plane at
/// z = 0) with the default collision settings but `margin`.
fn collision_world(
    name: &str,
    model: &Model,
    environment: Option<&Environment>,
    margin: f64,
) -> Result<CollisionWorld, SceneError> {
    let settings = CollisionSettings { margin, ..Default::default() };
    CollisionWorld::new(model, environment.unwrap_or(&Environment::default()), &settings)
        .map_err(|e| SceneError::new(name, e))
}

/// The default collision margin (m).
const DEFAULT: f64 = 0.005;

/// A floating-base robot at `q` in `environment` (see [`collision_world`]; its floor at
/// z = 0), lowered so that its deepest contact is 1 mm deep. (Its deepest contact, not its
/// lowest point: `CollisionWorld::robot_lowest_point` takes a ball by its box.)
fn robot_on(
    name: &'static str,
    model: Model,
    mut q: Vec<f64>,
    environment: Option<&Environment>,
) -> Result<Detection, SceneError> {
    let mut data = Data::new(&model);
    dynamics::forward_kinematics(&model, &mut data, &q);
    // The contacts within 2 m, to find the deepest.
    let mut probe = collision_world(name, &model, environment, 2.0)?;
    let mut out = ContactBuffer::with_capacity(512);
    probe.update_robot(&data);
    probe.detect(&mut out);
    let deepest = out.contacts().iter().map(|c| c.distance).fold(f64::INFINITY, f64::min);
    if !deepest.is_finite() {
        return Err(SceneError::new(name, "no contact within 2 m of the floor"));
    }
    q[2] -= deepest + 0.001;
    dynamics::forward_kinematics(&model, &mut data, &q);
    let world = collision_world(name, &model, environment, DEFAULT)?;
    Ok(Detection { name, world, data: Some(data), out: ContactBuffer::with_capacity(256) })
}

/// The bundled quadruped standing ([`robots::quadruped`]).
pub fn quadruped(sources: &Sources) -> Result<Detection, SceneError> {
    let (model, mut q) = robots::quadruped(sources)?;
    q[2] = 0.5; // above the floor: lowered from there
    robot_on("quadruped standing", model, q, None)
}

/// solo12 standing ([`robots::solo12`]).
pub fn solo12(sources: &Sources) -> Result<Detection, SceneError> {
    let (model, q) = robots::solo12(sources)?;
    robot_on("solo12 standing (convex hulls)", model, q, None)
}

/// A 4 m x 4 m floor of 2 x 40 x 40 triangles at z = 0 (a binary STL in the temporary
/// directory) as an environment.
fn mesh_floor() -> Result<Environment, SceneError> {
    let (n, size) = (40u32, 4.0);
    let h = size / f64::from(n);
    let mut stl = vec![0u8; 80];
    stl.extend((2 * n * n).to_le_bytes());
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (f64::from(i) * h - size / 2.0, f64::from(j) * h - size / 2.0);
            for t in [[[x, y], [x + h, y], [x + h, y + h]], [[x, y], [x + h, y + h], [x, y + h]]] {
                stl.extend([0f32; 3].iter().flat_map(|c| c.to_le_bytes()));
                for [px, py] in t {
                    stl.extend([px as f32, py as f32, 0.0].iter().flat_map(|c| c.to_le_bytes()));
                }
                stl.extend([0u8; 2]);
            }
        }
    }
    let dir = crate::scratch::private_dir("signorini-bench-floor")
        .map_err(|e| SceneError::new("mesh floor", format!("a private temporary directory: {e}")))?;
    let path = dir.join("floor.stl");
    std::fs::write(&path, stl).map_err(|e| SceneError::new("mesh floor", format!("{}: {e}", path.display())))?;
    let floor = Obstacle {
        name: "floor".into(),
        origin: path.display().to_string(),
        geometry: ObstacleGeometry::Mesh { file: path, scale: Vec3::repeat(1.0), convex: false },
        pose: SE3::IDENTITY,
        friction: 1.0,
        restitution: 0.0,
    };
    Ok(Environment { ground: None, obstacles: vec![floor] })
}

/// solo12 standing on a 3200-triangle mesh floor.
pub fn solo12_on_mesh(sources: &Sources) -> Result<Detection, SceneError> {
    let (model, q) = robots::solo12(sources)?;
    robot_on("solo12 standing on a 3200-triangle mesh floor", model, q, Some(&mesh_floor()?))
}

/// talos ([`robots::talos`]) lying on its back: pitched by 90° about y.
pub fn talos_lying(sources: &Sources) -> Result<Detection, SceneError> {
    let (model, mut q) = robots::talos(sources)?;
    let quat = rotation_to_quaternion(&rotation_from_rpy(0.0, -std::f64::consts::FRAC_PI_2, 0.0));
    q[3..7].copy_from_slice(&quat);
    q[2] = 1.0; // above the floor: lowered from there
    robot_on("talos lying on the ground", model, q, None)
}

/// 100 boxes (side 0.1 m) in the grid of [`super::grid`], 0.1 mm deep in the ground.
pub fn boxes_on_a_plane() -> Result<Detection, SceneError> {
    let name = "100 boxes on a plane";
    let model = Model::from_urdf_xml("<robot name='none'><link name='l'/></robot>", "none", &ModelOptions::default())
        .map_err(|e| SceneError::new(name, e))?;
    let mut world = collision_world(name, &model, None, DEFAULT)?;
    let cube = Arc::new(CollisionShape::cuboid(Vec3::repeat(0.05)));
    for k in 0..100 {
        let body = world.add_free_body(&[FreeBodyShape {
            name: format!("box{k}"),
            shape: cube.clone(),
            placement: SE3::IDENTITY,
            friction: 0.8,
            restitution: 0.0,
        }]);
        world.set_free_body_pose(body, &SE3::from_translation(super::grid(k, 0.0499)));
    }
    Ok(Detection { name, world, data: None, out: ContactBuffer::with_capacity(512) })
}

/// Every scene, in the table's order.
pub fn all(sources: &Sources) -> Result<Vec<Detection>, SceneError> {
    Ok(vec![
        quadruped(sources)?,
        solo12(sources)?,
        solo12_on_mesh(sources)?,
        talos_lying(sources)?,
        boxes_on_a_plane()?,
    ])
}
