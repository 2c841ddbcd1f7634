//! Every buffer the dynamics algorithms write, allocated once from a [`Model`].

use nalgebra::{DMatrix, DVector, Matrix6xX};

use super::multibody::Model;
use crate::spatial::{Force, Mat6, Motion, OriginInertia, SE3};

/// Work and result buffers for one [`Model`]. After [`Data::new`], no algorithm
/// allocates. Per-joint vectors are indexed by joint (0: universe), per-frame by frame.
#[derive(Clone, Debug)]
pub struct Data {
    /// `parent_joint_m_joint` at the last configuration.
    pub li_m_i: Vec<SE3>,
    /// `world_m_joint`.
    pub o_m_i: Vec<SE3>,
    /// `world_m_frame` (after [`crate::dynamics::update_frame_placements`]).
    pub o_m_f: Vec<SE3>,
    /// Joint spatial velocities, in the joint frame.
    pub v: Vec<Motion>,
    /// Joint spatial accelerations, in the joint frame (without gravity).
    pub a: Vec<Motion>,
    /// Joint spatial accelerations with the gravity field: `a − g` (RNEA).
    pub a_gf: Vec<Motion>,
    /// Joint spatial forces, in the joint frame (RNEA: force transmitted by each joint).
    pub f: Vec<Force>,
    /// Joint spatial velocities in the world frame.
    pub ov: Vec<Motion>,
    /// Joint spatial accelerations (with gravity) in the world frame (ABA).
    pub oa_gf: Vec<Motion>,
    /// Bias forces in the world frame (ABA).
    pub of: Vec<Force>,
    /// Velocity-product accelerations `Ṡ·q̇` in the world frame (ABA).
    pub oc: Vec<Motion>,
    /// Composite rigid-body inertias in the world frame, about the world origin (CRBA).
    pub o_ycrb: Vec<OriginInertia>,
    /// Articulated-body inertias in the world frame (ABA).
    pub o_yaba: Vec<Mat6>,
    /// Inverse of the joint-space articulated inertia `D = Sᵀ·IA·S` per joint (ABA); only
    /// the top-left nv×nv block is used.
    pub d_inv: Vec<Mat6>,
    /// Joint motion subspaces in the world frame, one column per dof: the world Jacobian
    /// data (column k is the motion of the dof's body for a unit velocity of dof k).
    pub j: Matrix6xX<f64>,
    /// `IA·S` per dof (ABA).
    pub u: Matrix6xX<f64>,
    /// Force columns `Ycrb·S` per dof (CRBA).
    pub f_crb: Matrix6xX<f64>,
    /// ABA: `τ − Sᵀ·p` per dof.
    pub u_tau: DVector<f64>,
    /// Joint torques (RNEA output).
    pub tau: DVector<f64>,
    /// Joint accelerations (ABA output).
    pub ddq: DVector<f64>,
    /// Generalized gravity torque g(q).
    pub g: DVector<f64>,
    /// Joint-space inertia matrix M(q) (CRBA output, both triangles filled).
    pub mass_matrix: DMatrix<f64>,
    /// Factor of M = U·D·Uᵀ (tree-sparse, unit diagonal): its buffer holds U row-major,
    /// so as a (column-major) matrix this is L = Uᵀ. See [`crate::dynamics::ltdl_decompose`].
    pub ltdl_u: DMatrix<f64>,
    /// Scratch for the factorization (D·Uᵀ of one row).
    pub ltdl_scratch: DVector<f64>,
    /// Diagonal D of M = Lᵀ·D·L.
    pub ltdl_d: DVector<f64>,
    /// 1/D, elementwise (the solves multiply by it).
    pub ltdl_d_inv: DVector<f64>,
}

impl Data {
    /// Buffers for `model`.
    pub fn new(model: &Model) -> Self {
        let n = model.njoints();
        let nv = model.nv;
        Data {
            li_m_i: vec![SE3::IDENTITY; n],
            o_m_i: vec![SE3::IDENTITY; n],
            o_m_f: vec![SE3::IDENTITY; model.nframes()],
            v: vec![Motion::ZERO; n],
            a: vec![Motion::ZERO; n],
            a_gf: vec![Motion::ZERO; n],
            f: vec![Force::ZERO; n],
            ov: vec![Motion::ZERO; n],
            oa_gf: vec![Motion::ZERO; n],
            of: vec![Force::ZERO; n],
            oc: vec![Motion::ZERO; n],
            o_ycrb: vec![OriginInertia::default(); n],
            o_yaba: vec![Mat6::zeros(); n],
            d_inv: vec![Mat6::zeros(); n],
            j: Matrix6xX::zeros(nv),
            u: Matrix6xX::zeros(nv),
            f_crb: Matrix6xX::zeros(nv),
            u_tau: DVector::zeros(nv),
            tau: DVector::zeros(nv),
            ddq: DVector::zeros(nv),
            g: DVector::zeros(nv),
            mass_matrix: DMatrix::zeros(nv, nv),
            ltdl_u: DMatrix::identity(nv, nv),
            ltdl_scratch: DVector::zeros(nv),
            ltdl_d: DVector::zeros(nv),
            ltdl_d_inv: DVector::zeros(nv),
        }
    }
}
