//! What a collision world is built from: the static environment (a ground half-space and
//! obstacles placed in `world`) and how contacts are found. Plain values; the YAML
//! `environment:` and `collision:` sections are read into them by [`crate::config`].

use std::path::PathBuf;

use crate::spatial::{SE3, Vec3};

/// The static environment. Default: a flat ground at z = 0, friction 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    /// The ground half-space, if any.
    pub ground: Option<Ground>,
    /// Static obstacles, in the order their collision objects are created.
    pub obstacles: Vec<Obstacle>,
}

impl Default for Environment {
    fn default() -> Self {
        Self { ground: Some(Ground::default()), obstacles: Vec::new() }
    }
}

/// A ground half-space: the points x with n·x ≤ height, n the (normalized) `normal`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ground {
    /// Offset along the normal (m).
    pub height: f64,
    /// Outward normal (any nonzero length).
    pub normal: Vec3,
    /// Friction coefficient.
    pub friction: f64,
    /// Coefficient of restitution.
    pub restitution: f64,
}

impl Default for Ground {
    fn default() -> Self {
        Self { height: 0.0, normal: Vec3::z(), friction: 1.0, restitution: 0.0 }
    }
}

/// A static obstacle.
#[derive(Clone, Debug, PartialEq)]
pub struct Obstacle {
    /// Name (the collision object's and its link's).
    pub name: String,
    /// Who it is in an error message, e.g. the configuration key it came from.
    pub origin: String,
    /// Its shape.
    pub geometry: ObstacleGeometry,
    /// Placement in `world`.
    pub pose: SE3,
    /// Friction coefficient.
    pub friction: f64,
    /// Coefficient of restitution.
    pub restitution: f64,
}

/// An obstacle's shape.
#[derive(Clone, Debug, PartialEq)]
pub enum ObstacleGeometry {
    /// A box of these half extents (m).
    Cuboid {
        /// Half extents.
        half: Vec3,
    },
    /// A mesh file (STL, OBJ or DAE), scaled per axis, kept as triangles or as its convex
    /// hull.
    Mesh {
        /// The file.
        file: PathBuf,
        /// Scale per axis.
        scale: Vec3,
        /// Its convex hull instead of its triangles.
        convex: bool,
    },
}

/// How contacts are found.
#[derive(Clone, Debug, PartialEq)]
pub struct CollisionSettings {
    /// Pairs closer than this (m) are reported too (distance > 0).
    pub margin: f64,
    /// Robot self-collision (links moved by the same joint or by a joint and its parent
    /// never collide).
    pub self_collision: bool,
    /// Link pairs never tested against each other.
    pub disable_pairs: Vec<[String; 2]>,
    /// An SRDF whose `<disable_collisions>` are added to `disable_pairs`.
    pub srdf: Option<PathBuf>,
    /// Friction of the robot's links, combined with the other body's by the minimum
    /// (infinite: the other body's applies).
    pub robot_friction: f64,
    /// Per-link friction overriding `robot_friction` for that link's shapes (a caster
    /// that must slide, a rubber wheel; Gazebo's `<mu1>`/`<mu2>` per link).
    pub link_friction: Vec<(String, f64)>,
    /// Friction between two robot links.
    pub self_friction: f64,
}

impl Default for CollisionSettings {
    /// A 5 mm margin, no self-collision, self friction 0.5.
    fn default() -> Self {
        Self {
            margin: 0.005,
            self_collision: false,
            disable_pairs: Vec::new(),
            srdf: None,
            robot_friction: f64::INFINITY,
            link_friction: Vec::new(),
            self_friction: 0.5,
        }
    }
}
