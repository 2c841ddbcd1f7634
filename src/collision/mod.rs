//! Collision geometry and contact detection.
//!
//! The robot's `<collision>` shapes (primitives; meshes as convex hulls), free bodies and
//! the static environment of the configuration (ground half-space, boxes, slopes) live in
//! a [`CollisionWorld`]. Each step, [`CollisionWorld::detect`] writes the contacts
//! closer than the margin into a [`ContactBuffer`]: world point, frame (Tx, Ty, N) with N
//! into body 1 (the robot side), signed distance, combined friction and restitution, and
//! a persistent [`ContactId`] for warm starting. parry3d-f64 does the general convex
//! queries behind one adapter module; nothing else imports it.

mod bvh;
mod contact;
mod environment;
mod half_space;
mod mesh_file;
mod parry_adapter;
mod shape;
mod world;

pub use contact::{Contact, ContactBuffer, ContactId, Owner, combine_friction, contact_frame};
pub use environment::{CollisionSettings, Environment, Ground, Obstacle, ObstacleGeometry};
pub use mesh_file::{MAX_MESH_BYTES, MeshFormat};
pub use shape::{CollisionShape, MeshError, ShapeKind, load_mesh};
pub use world::{CollisionError, CollisionObject, CollisionWorld, FreeBodyShape};
