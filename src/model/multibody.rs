//! The immutable multibody model: a kinematic tree of joints carrying rigid bodies.

use nalgebra::DVector;

use super::frame::{Frame, FrameKind};
use super::geometry::CollisionGeometry;
use super::joint::JointType;
use crate::spatial::{Inertia, Motion, SE3, Vec3};

/// Marks "no parent" in [`Model::dof_parent`].
pub const NO_PARENT: usize = usize::MAX;

/// A robot's kinematic tree. Built once (from URDF: [`Model::from_urdf_file`]), never
/// mutated by the algorithms, which write into a [`super::Data`].
///
/// Joint 0 is the universe; joint `i > 0` has `parents[i] < i` (depth-first order), its
/// configuration is `q[idx_q[i] .. idx_q[i] + nq_i]` and its velocity
/// `v[idx_v[i] .. idx_v[i] + nv_i]`. The dofs of the subtree rooted at `i` are the
/// contiguous range `idx_v[i] .. idx_v[i] + nv_subtree[i]`.
#[derive(Clone, Debug)]
pub struct Model {
    /// Robot name.
    pub name: String,
    /// Configuration dimension.
    pub nq: usize,
    /// Velocity dimension.
    pub nv: usize,
    /// Joint types (index 0: universe).
    pub joint_types: Vec<JointType>,
    /// Joint names (index 0: "universe").
    pub joint_names: Vec<String>,
    /// Parent joint of each joint (the universe is its own parent).
    pub parents: Vec<usize>,
    /// `parent_joint_m_joint` at the neutral configuration.
    pub joint_placements: Vec<SE3>,
    /// Inertia of the body carried by each joint, in the joint frame (fixed-joint
    /// children merged in).
    pub inertias: Vec<Inertia>,
    /// First configuration index of each joint.
    pub idx_q: Vec<usize>,
    /// First velocity index of each joint.
    pub idx_v: Vec<usize>,
    /// Number of dofs in the subtree of each joint, itself included.
    pub nv_subtree: Vec<usize>,
    /// For each dof, the previous dof on the path to the root ([`NO_PARENT`] at a root):
    /// the expanded parent array of the tree-sparse factorization.
    pub dof_parent: Vec<usize>,
    /// For each dof k, one past the last dof of its subtree: the dofs k supports are
    /// `k+1 .. dof_subtree_end[k]` (depth-first numbering makes them contiguous).
    pub dof_subtree_end: Vec<usize>,
    /// Frames (index 0: "universe").
    pub frames: Vec<Frame>,
    /// Gravity as a spatial acceleration of the world (default −9.81 m/s² along z).
    pub gravity: Motion,
    /// Lower position limit per configuration coordinate.
    pub lower_position_limit: DVector<f64>,
    /// Upper position limit per configuration coordinate.
    pub upper_position_limit: DVector<f64>,
    /// |velocity| limit per dof.
    pub velocity_limit: DVector<f64>,
    /// |effort| limit per dof.
    pub effort_limit: DVector<f64>,
    /// Viscous damping per dof (URDF `<dynamics damping>`).
    pub damping: DVector<f64>,
    /// Coulomb friction per dof (URDF `<dynamics friction>`).
    pub friction: DVector<f64>,
    /// Collision shapes.
    pub collision_geometries: Vec<CollisionGeometry>,
}

impl Model {
    /// Number of joints, the universe included.
    #[inline]
    pub fn njoints(&self) -> usize {
        self.joint_types.len()
    }

    /// Number of frames.
    #[inline]
    pub fn nframes(&self) -> usize {
        self.frames.len()
    }

    /// Index of the joint named `name`.
    pub fn joint_id(&self, name: &str) -> Option<usize> {
        self.joint_names.iter().position(|n| n == name)
    }

    /// Index of the frame named `name` (the first one if a link and a joint share it;
    /// `kind` narrows the search).
    pub fn frame_id(&self, name: &str, kind: Option<FrameKind>) -> Option<usize> {
        self.frames.iter().position(|f| f.name == name && kind.is_none_or(|k| f.kind == k))
    }

    /// The neutral configuration (zero angles; identity base placement).
    pub fn neutral_configuration(&self) -> DVector<f64> {
        let mut q = DVector::zeros(self.nq);
        for (i, j) in self.joint_types.iter().enumerate() {
            j.neutral(&mut q.as_mut_slice()[self.idx_q[i]..self.idx_q[i] + j.nq()]);
        }
        q
    }

    /// Whether the root joint is a free flyer (a floating base: q starts x y z qx qy qz qw).
    pub fn has_free_flyer(&self) -> bool {
        self.joint_types.get(1) == Some(&JointType::FreeFlyer)
    }

    /// Total mass of the bodies.
    pub fn total_mass(&self) -> f64 {
        self.inertias.iter().skip(1).fold(0.0, |m, i| m + i.mass)
    }

    /// Adds an operational frame on `joint` at `placement` (in the joint frame); returns
    /// its index.
    pub fn add_frame(&mut self, name: &str, joint: usize, placement: SE3) -> usize {
        let parent_frame =
            self.frames.iter().position(|f| f.parent_joint == joint && f.kind == FrameKind::Joint).unwrap_or(0);
        self.frames.push(Frame {
            name: name.to_owned(),
            kind: FrameKind::Operational,
            parent_joint: joint,
            parent_frame,
            placement,
        });
        self.frames.len() - 1
    }

    /// Is `ancestor` on the path from `joint` to the root (or `joint` itself)?
    pub fn supports(&self, ancestor: usize, joint: usize) -> bool {
        let mut j = joint;
        loop {
            if j == ancestor {
                return true;
            }
            if j == 0 {
                return false;
            }
            j = self.parents[j];
        }
    }

    /// Standard gravity along −z.
    pub fn default_gravity() -> Motion {
        Motion::new(Vec3::new(0.0, 0.0, -9.81), Vec3::zeros())
    }
}
