//! Forward kinematics: joint and frame placements, velocities, accelerations.

use crate::model::{Data, JointType, Model};
use crate::spatial::{Motion, SE3, Vec3};

/// Velocity of a joint's child frame relative to its parent, in the child frame: S·q̇.
#[inline]
pub(crate) fn joint_velocity(t: &JointType, v: &[f64]) -> Motion {
    match t {
        JointType::FreeFlyer => Motion::new(Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5])),
        JointType::Universe => Motion::ZERO,
        one_dof => one_dof.axis_motion() * v[0],
    }
}

/// `li_m_i` and `o_m_i` of joint `i` at configuration `q`.
#[inline]
pub(crate) fn place_joint(model: &Model, data: &mut Data, i: usize, q: &[f64]) {
    let t = &model.joint_types[i];
    let iq = model.idx_q[i];
    let li_m_i = t.placed_transform(&model.joint_placements[i], &q[iq..iq + t.nq()]);
    let parent = model.parents[i];
    data.o_m_i[i] = if parent > 0 { data.o_m_i[parent].compose(&li_m_i) } else { li_m_i };
    data.li_m_i[i] = li_m_i;
}

/// Joint placements `o_m_i` and `li_m_i` at `q`.
pub fn forward_kinematics(model: &Model, data: &mut Data, q: &[f64]) {
    debug_assert_eq!(q.len(), model.nq);
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
    }
}

/// Placements and joint velocities `data.v` (in the joint frames) at `(q, v)`.
pub fn forward_kinematics_velocity(model: &Model, data: &mut Data, q: &[f64], v: &[f64]) {
    debug_assert_eq!(v.len(), model.nv);
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
        let t = &model.joint_types[i];
        let iv = model.idx_v[i];
        let vj = joint_velocity(t, &v[iv..iv + t.nv()]);
        let parent = model.parents[i];
        data.v[i] = if parent > 0 { data.li_m_i[i].act_inv_motion(&data.v[parent]) + vj } else { vj };
    }
}

/// Placements, velocities and spatial accelerations `data.a` (joint frames, without
/// gravity) at `(q, v, a)`.
pub fn forward_kinematics_acceleration(model: &Model, data: &mut Data, q: &[f64], v: &[f64], a: &[f64]) {
    debug_assert_eq!(a.len(), model.nv);
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
        let t = &model.joint_types[i];
        let iv = model.idx_v[i];
        let vj = joint_velocity(t, &v[iv..iv + t.nv()]);
        let aj = joint_velocity(t, &a[iv..iv + t.nv()]);
        let parent = model.parents[i];
        if parent > 0 {
            data.v[i] = data.li_m_i[i].act_inv_motion(&data.v[parent]) + vj;
            data.a[i] = data.li_m_i[i].act_inv_motion(&data.a[parent]) + aj + data.v[i].cross(&vj);
        } else {
            data.v[i] = vj;
            data.a[i] = aj;
        }
    }
}

/// `o_m_f` of every frame from the joint placements of the last kinematics call.
pub fn update_frame_placements(model: &Model, data: &mut Data) {
    for (k, f) in model.frames.iter().enumerate() {
        data.o_m_f[k] = if f.parent_joint > 0 { data.o_m_i[f.parent_joint].compose(&f.placement) } else { f.placement };
    }
}

/// The placement `world_m_frame` of one frame from the joint placements of the last
/// kinematics call (also stored in `data.o_m_f`).
pub fn update_frame_placement(model: &Model, data: &mut Data, frame: usize) -> SE3 {
    let f = &model.frames[frame];
    let m = if f.parent_joint > 0 { data.o_m_i[f.parent_joint].compose(&f.placement) } else { f.placement };
    data.o_m_f[frame] = m;
    m
}

/// Spatial velocity of a frame, from `data.v` of the last velocity kinematics, in the
/// frame's own coordinates.
pub fn frame_velocity_local(model: &Model, data: &Data, frame: usize) -> Motion {
    let f = &model.frames[frame];
    f.placement.act_inv_motion(&data.v[f.parent_joint])
}
