//! Jacobians of joints, frames and points.
//!
//! [`compute_joint_jacobians`] fills `data.j` with every dof's motion subspace in the world
//! frame; the Jacobian of a joint is then the columns of the dofs that support it, zero
//! elsewhere, re-expressed as asked ([`ReferenceFrame`], Pinocchio's meaning).

use nalgebra::{Matrix3xX, Matrix6xX};

use super::kinematics::place_joint;
use crate::model::{Data, JointType, Model, NO_PARENT};
use crate::spatial::{Motion, SE3, Vec3};

/// In which coordinates a Jacobian maps q̇ to a spatial velocity.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReferenceFrame {
    /// Spatial velocity of the body in world coordinates, at the world origin.
    World,
    /// Spatial velocity in the joint's (or frame's) own coordinates, at its origin.
    Local,
    /// Velocity of the joint's (or frame's) origin, in world-aligned axes.
    LocalWorldAligned,
}

/// Writes the world-frame motion subspace columns of joint `i` into `data.j`.
#[inline]
pub(crate) fn fill_world_subspace(model: &Model, data: &mut Data, i: usize) {
    let iv = model.idx_v[i];
    let o_m_i = data.o_m_i[i];
    match &model.joint_types[i] {
        JointType::Universe => {}
        JointType::FreeFlyer => {
            // The action matrix of o_m_i: [[R, [t]ₓR], [0, R]].
            let r = &o_m_i.rotation;
            for k in 0..3 {
                let rk = r.column(k).into_owned();
                let mut lin = data.j.fixed_view_mut::<6, 1>(0, iv + k);
                lin.fixed_rows_mut::<3>(0).copy_from(&rk);
                lin.fixed_rows_mut::<3>(3).fill(0.0);
                let mut ang = data.j.fixed_view_mut::<6, 1>(0, iv + 3 + k);
                ang.fixed_rows_mut::<3>(0).copy_from(&o_m_i.translation.cross(&rk));
                ang.fixed_rows_mut::<3>(3).copy_from(&rk);
            }
        }
        one_dof => {
            let s = one_dof.axis_motion_world(&o_m_i);
            data.j.fixed_view_mut::<6, 1>(0, iv).copy_from(&s.to_vector());
        }
    }
}

/// Placements at `q` and the world Jacobian data `data.j` (6 × nv).
pub fn compute_joint_jacobians<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d Matrix6xX<f64> {
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
        fill_world_subspace(model, data, i);
    }
    &data.j
}

/// Re-expresses world columns for a body at `o_m_b` in `reference`.
#[inline]
fn express(column: &Motion, o_m_b: &SE3, reference: ReferenceFrame) -> Motion {
    match reference {
        ReferenceFrame::World => *column,
        ReferenceFrame::Local => o_m_b.act_inv_motion(column),
        ReferenceFrame::LocalWorldAligned => {
            Motion::new(column.linear - o_m_b.translation.cross(&column.angular), column.angular)
        }
    }
}

/// The Jacobian (6 × nv) of a body carried by `joint` placed at `o_m_b` (the joint itself
/// or one of its frames), from the `data.j` of [`compute_joint_jacobians`].
pub fn body_jacobian(
    model: &Model,
    data: &Data,
    joint: usize,
    o_m_b: &SE3,
    reference: ReferenceFrame,
    out: &mut Matrix6xX<f64>,
) {
    out.fill(0.0);
    if joint == 0 {
        return;
    }
    // The supporting dofs: walk the expanded parent array from the joint's last dof.
    let mut k = model.idx_v[joint] + model.joint_types[joint].nv() - 1;
    loop {
        let col = Motion::from_vector(&data.j.fixed_view::<6, 1>(0, k).into_owned());
        out.fixed_view_mut::<6, 1>(0, k).copy_from(&express(&col, o_m_b, reference).to_vector());
        k = model.dof_parent[k];
        if k == NO_PARENT {
            break;
        }
    }
}

/// Jacobian of joint `joint` (6 × nv), after [`compute_joint_jacobians`].
pub fn joint_jacobian(model: &Model, data: &Data, joint: usize, reference: ReferenceFrame, out: &mut Matrix6xX<f64>) {
    let o_m_i = data.o_m_i[joint];
    body_jacobian(model, data, joint, &o_m_i, reference, out);
}

/// Jacobian of frame `frame` (6 × nv), after [`compute_joint_jacobians`].
pub fn frame_jacobian(model: &Model, data: &Data, frame: usize, reference: ReferenceFrame, out: &mut Matrix6xX<f64>) {
    let f = &model.frames[frame];
    let o_m_f = data.o_m_i[f.parent_joint].compose(&f.placement);
    body_jacobian(model, data, f.parent_joint, &o_m_f, reference, out);
}

/// The spatial velocity of every joint's body under the generalized velocity `v`, in world
/// coordinates at the world origin (`out[0]`, the universe, is zero), after
/// [`compute_joint_jacobians`]: ν_i = ν_parent + Σ_k S_k v_k over the joint's dofs, with
/// the world-frame subspaces S_k of `data.j`. The world velocity of a point p of body i
/// is then `out[i].velocity_at(p)` (= J(p)·v without forming J).
pub fn world_velocities(model: &Model, data: &Data, v: &[f64], out: &mut [Motion]) {
    out[0] = Motion::default();
    for i in 1..model.njoints() {
        let mut m = out[model.parents[i]];
        let iv = model.idx_v[i];
        for (k, &vk) in v.iter().enumerate().skip(iv).take(model.joint_types[i].nv()) {
            let c = data.j.fixed_view::<6, 1>(0, k);
            m.linear += Vec3::new(c[0], c[1], c[2]) * vk;
            m.angular += Vec3::new(c[3], c[4], c[5]) * vk;
        }
        out[i] = m;
    }
}

/// Jacobian (3 × nv) of the world velocity of the point `p_world` rigidly attached to
/// joint `joint`'s body, after [`compute_joint_jacobians`]: `ṗ = J·q̇`.
pub fn point_jacobian(model: &Model, data: &Data, joint: usize, p_world: &Vec3, out: &mut Matrix3xX<f64>) {
    out.fill(0.0);
    if joint == 0 {
        return;
    }
    let mut k = model.idx_v[joint] + model.joint_types[joint].nv() - 1;
    loop {
        let c = data.j.fixed_view::<6, 1>(0, k);
        let (lin, ang) = (Vec3::new(c[0], c[1], c[2]), Vec3::new(c[3], c[4], c[5]));
        // v(p) = v(0) + ω × p
        out.fixed_view_mut::<3, 1>(0, k).copy_from(&(lin + ang.cross(p_world)));
        k = model.dof_parent[k];
        if k == NO_PARENT {
            break;
        }
    }
}
