//! Named frames attached to joints: joint frames, link (body) frames, fixed-joint frames.

use crate::spatial::SE3;

/// What a frame marks (Pinocchio's FrameType).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// The frame of a movable joint (and the universe).
    Joint,
    /// The frame of a URDF fixed joint (merged into its parent body).
    FixedJoint,
    /// A URDF link.
    Body,
    /// Any other frame added by the user (a contact point, a tool tip).
    Operational,
}

/// A frame rigidly attached to a joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    /// Name (the URDF link or joint name).
    pub name: String,
    /// Kind.
    pub kind: FrameKind,
    /// The joint that carries it.
    pub parent_joint: usize,
    /// The frame it was attached under when built (for the tree of frames).
    pub parent_frame: usize,
    /// Placement in the joint frame: `joint_m_frame`.
    pub placement: SE3,
}
