//! `environment:` and `collision:`: the static world around the robot and how contacts
//! are detected.

use serde::{Deserialize, Serialize};

use super::values::{FiniteF64, PositiveF64};
use crate::collision::{CollisionSettings, Environment, Ground, Obstacle, ObstacleGeometry};
use crate::spatial::{SE3, Vec3, rotation_from_rpy};

/// A non-negative finite number (friction, restitution, margins).
#[derive(Copy, Clone, Debug, PartialEq, PartialOrd, Serialize)]
#[serde(transparent)]
pub struct NonNegativeF64(f64);

impl NonNegativeF64 {
    /// `Some` if `x` is finite and ≥ 0.
    pub fn new(x: f64) -> Option<Self> {
        (x.is_finite() && x >= 0.0).then_some(Self(x))
    }
    /// The value.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl<'de> Deserialize<'de> for NonNegativeF64 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = FiniteF64::deserialize(d)?.get();
        Self::new(x)
            .ok_or_else(|| serde::de::Error::invalid_value(serde::de::Unexpected::Float(x), &"a finite number ≥ 0"))
    }
}

fn nn(x: f64) -> NonNegativeF64 {
    NonNegativeF64::new(x).expect("a non-negative default")
}

fn finite3(x: [f64; 3]) -> [FiniteF64; 3] {
    x.map(|v| FiniteF64::new(v).expect("finite default"))
}

/// `environment:` — static objects. Default: a flat ground at z = 0, friction 1.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of environment objects (ground, boxes, slopes, meshes)")]
pub struct EnvironmentConfig {
    /// The ground half-space; `null` for none.
    pub ground: Option<GroundConfig>,
    /// Static boxes.
    pub boxes: Vec<BoxConfig>,
    /// Static inclined plates (ramps).
    pub slopes: Vec<SlopeConfig>,
    /// Static meshes (terrain, furniture), kept as triangles or as their convex hull.
    pub meshes: Vec<MeshConfig>,
}

impl Default for EnvironmentConfig {
    fn default() -> Self {
        Self { ground: Some(GroundConfig::default()), boxes: Vec::new(), slopes: Vec::new(), meshes: Vec::new() }
    }
}

/// A static mesh.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of mesh settings (name, file, scale, position, rpy, convex, friction)"
)]
pub struct MeshConfig {
    /// Name (reported in contacts).
    pub name: String,
    /// STL, OBJ or COLLADA file (relative to the configuration file).
    pub file: std::path::PathBuf,
    /// Scale per axis. Default 1.
    #[serde(default = "ones")]
    pub scale: [PositiveF64; 3],
    /// Position (m). Default 0.
    #[serde(default = "zero3")]
    pub position: [FiniteF64; 3],
    /// Orientation, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub rpy: [FiniteF64; 3],
    /// Use the convex hull instead of the triangles. Default false (terrain is rarely
    /// convex).
    #[serde(default)]
    pub convex: bool,
    /// Coulomb friction coefficient. Default 1.
    #[serde(default = "one")]
    pub friction: NonNegativeF64,
}

fn ones() -> [PositiveF64; 3] {
    [1.0; 3].map(|x| PositiveF64::new(x).expect("positive"))
}

/// The ground: the half-space below the plane through `height·normal` with that normal.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    default,
    expecting = "a mapping of ground settings (height, normal, friction, restitution)"
)]
pub struct GroundConfig {
    /// Offset of the plane along its normal (m).
    pub height: FiniteF64,
    /// Upward normal (normalized on load; need not be vertical: an infinite incline).
    pub normal: [FiniteF64; 3],
    /// Coulomb friction coefficient.
    pub friction: NonNegativeF64,
    /// Restitution coefficient (0 inelastic … 1 elastic).
    pub restitution: NonNegativeF64,
}

impl Default for GroundConfig {
    fn default() -> Self {
        Self {
            height: FiniteF64::new(0.0).expect("finite"),
            normal: finite3([0.0, 0.0, 1.0]),
            friction: nn(1.0),
            restitution: nn(0.0),
        }
    }
}

/// A static box.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping of box settings (name, size, position, rpy, friction, restitution)"
)]
pub struct BoxConfig {
    /// Name (reported in contacts).
    pub name: String,
    /// Full side lengths (m).
    pub size: [PositiveF64; 3],
    /// Centre (m).
    pub position: [FiniteF64; 3],
    /// Orientation, roll-pitch-yaw (rad). Default 0.
    #[serde(default = "zero3")]
    pub rpy: [FiniteF64; 3],
    /// Coulomb friction coefficient. Default 1.
    #[serde(default = "one")]
    pub friction: NonNegativeF64,
    /// Restitution. Default 0.
    #[serde(default = "zero")]
    pub restitution: NonNegativeF64,
}

/// A ramp: a plate whose top face rises `angle` towards `yaw`.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, expecting = "a mapping of slope settings (name, position, angle, yaw, size, friction)")]
pub struct SlopeConfig {
    /// Name (reported in contacts).
    pub name: String,
    /// Centre of the top face (m).
    pub position: [FiniteF64; 3],
    /// Inclination (rad): rotation about the horizontal axis across the ramp.
    pub angle: FiniteF64,
    /// Heading of the uphill direction about z (rad). Default 0: rising along +x.
    #[serde(default = "zero_finite")]
    pub yaw: FiniteF64,
    /// Length (along the incline), width, thickness (m).
    pub size: [PositiveF64; 3],
    /// Coulomb friction coefficient. Default 1.
    #[serde(default = "one")]
    pub friction: NonNegativeF64,
    /// Restitution. Default 0.
    #[serde(default = "zero")]
    pub restitution: NonNegativeF64,
}

pub(super) fn zero() -> NonNegativeF64 {
    nn(0.0)
}
pub(super) fn one() -> NonNegativeF64 {
    nn(1.0)
}
fn zero_finite() -> FiniteF64 {
    FiniteF64::new(0.0).expect("finite")
}
pub(super) fn zero3() -> [FiniteF64; 3] {
    finite3([0.0; 3])
}

/// `collision:` — how contacts are found.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default, expecting = "a mapping of collision settings")]
pub struct CollisionConfig {
    /// Pairs closer than this (m) are reported too (distance > 0), so the solver sees
    /// contacts about to happen. Default 0.005.
    pub margin: NonNegativeF64,
    /// Robot self-collision. Default false. Links moved by the same joint or by a joint
    /// and its parent never collide.
    pub self_collision: bool,
    /// Link pairs never tested against each other (self-collision).
    pub disable_pairs: Vec<[String; 2]>,
    /// An SRDF whose `<disable_collisions>` are added to `disable_pairs` (relative to
    /// the configuration file).
    pub srdf: Option<std::path::PathBuf>,
    /// Friction of the robot's links, combined with the other body's by the minimum.
    /// Default: none, so the other body's friction applies.
    pub robot_friction: Option<NonNegativeF64>,
    /// Friction of particular links (by URDF link name), over `robot_friction`: a caster
    /// that must slide, as Gazebo's per-link `<mu1>`/`<mu2>`. Default: none.
    pub link_friction: std::collections::BTreeMap<String, NonNegativeF64>,
    /// Friction between two robot links (self-collision). Default 0.5.
    pub self_friction: NonNegativeF64,
    /// Most contacts reported per step; more are dropped and counted. Default 256.
    pub max_contacts: std::num::NonZeroUsize,
}

impl Default for CollisionConfig {
    fn default() -> Self {
        Self {
            margin: nn(0.005),
            self_collision: false,
            disable_pairs: Vec::new(),
            srdf: None,
            robot_friction: None,
            link_friction: Default::default(),
            self_friction: nn(0.5),
            max_contacts: std::num::NonZeroUsize::new(256).expect("nonzero"),
        }
    }
}

impl EnvironmentConfig {
    /// The environment the collision world is built from: the ground, then the boxes,
    /// slopes and meshes in that order (a slope is the plate whose top face is centred at
    /// `position`).
    pub fn description(&self) -> Environment {
        let pose = |rpy: &[FiniteF64; 3], position: &[FiniteF64; 3]| {
            let [r, p, y] = rpy.map(|x| x.get());
            SE3::new(rotation_from_rpy(r, p, y), Vec3::from(position.map(|x| x.get())))
        };
        let boxes = self.boxes.iter().map(|b| Obstacle {
            name: b.name.clone(),
            origin: format!("box `{}`", b.name),
            geometry: ObstacleGeometry::Cuboid { half: Vec3::from(b.size.map(|x| x.get() * 0.5)) },
            pose: pose(&b.rpy, &b.position),
            friction: b.friction.get(),
            restitution: b.restitution.get(),
        });
        let slopes = self.slopes.iter().map(|s| {
            let [length, width, thickness] = s.size.map(|x| x.get());
            // Rising along +x after the yaw: the top face's normal tilts towards −x.
            let rotation = rotation_from_rpy(0.0, -s.angle.get(), s.yaw.get());
            let top = Vec3::from(s.position.map(|x| x.get()));
            Obstacle {
                name: s.name.clone(),
                origin: format!("slope `{}`", s.name),
                geometry: ObstacleGeometry::Cuboid { half: Vec3::new(length * 0.5, width * 0.5, thickness * 0.5) },
                pose: SE3::new(rotation, top - rotation.column(2) * (thickness * 0.5)),
                friction: s.friction.get(),
                restitution: s.restitution.get(),
            }
        });
        let meshes = self.meshes.iter().enumerate().map(|(k, m)| Obstacle {
            name: m.name.clone(),
            origin: format!("key `environment.meshes[{k}]` ({})", m.name),
            geometry: ObstacleGeometry::Mesh {
                file: m.file.clone(),
                scale: Vec3::from(m.scale.map(|x| x.get())),
                convex: m.convex,
            },
            pose: pose(&m.rpy, &m.position),
            friction: m.friction.get(),
            restitution: 0.0,
        });
        Environment {
            ground: self.ground.as_ref().map(|g| Ground {
                height: g.height.get(),
                normal: Vec3::from(g.normal.map(|x| x.get())),
                friction: g.friction.get(),
                restitution: g.restitution.get(),
            }),
            obstacles: boxes.chain(slopes).chain(meshes).collect(),
        }
    }
}

impl CollisionConfig {
    /// How the collision world finds contacts (`max_contacts` sizes the buffers, see
    /// [`crate::app::Setup`]).
    pub fn settings(&self) -> CollisionSettings {
        CollisionSettings {
            margin: self.margin.get(),
            self_collision: self.self_collision,
            disable_pairs: self.disable_pairs.clone(),
            srdf: self.srdf.clone(),
            robot_friction: self.robot_friction.map_or(f64::INFINITY, |f| f.get()),
            link_friction: self.link_friction.iter().map(|(l, f)| (l.clone(), f.get())).collect(),
            self_friction: self.self_friction.get(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_collision_worlds() {
        assert_eq!(EnvironmentConfig::default().description(), Environment::default());
        assert_eq!(CollisionConfig::default().settings(), CollisionSettings::default());
    }
}
