//! Inverse dynamics by the Recursive Newton-Euler Algorithm (Featherstone, RBDA §5.3),
//! in the joint frames, with Pinocchio's conventions (gravity as a fictitious base
//! acceleration; external forces per joint, in the joint frame).

use nalgebra::DVector;

use super::kinematics::{joint_velocity, place_joint};
use crate::model::{Data, JointType, Model};
use crate::spatial::{Force, Motion, Vec3};

/// `τ = M(q)·a + C(q, v)·v + g(q)` into `data.tau` (and returned).
pub fn rnea<'d>(model: &Model, data: &'d mut Data, q: &[f64], v: &[f64], a: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, q, v, a, None);
    backward_pass(model, data);
    &data.tau
}

/// RNEA with external forces `fext[i]` acting on the body of joint `i`, expressed in that
/// joint's frame: `τ = M·a + C·v + g − Σ Jᵢᵀ·fextᵢ`.
pub fn rnea_with_external_forces<'d>(
    model: &Model,
    data: &'d mut Data,
    q: &[f64],
    v: &[f64],
    a: &[f64],
    fext: &[Force],
) -> &'d DVector<f64> {
    debug_assert_eq!(fext.len(), model.njoints());
    forward_pass(model, data, q, v, a, Some(fext));
    backward_pass(model, data);
    &data.tau
}

/// Generalized gravity `g(q)` into `data.g` (RNEA with v = a = 0).
pub fn gravity_torque<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DVector<f64> {
    let gravity = model.gravity;
    for i in 1..model.njoints() {
        place_joint(model, data, i, q);
        let parent = model.parents[i];
        let a_parent = if parent > 0 { data.a_gf[parent] } else { -gravity };
        data.v[i] = Motion::ZERO;
        data.a_gf[i] = data.li_m_i[i].act_inv_motion(&a_parent);
        data.f[i] = model.inertias[i].apply(&data.a_gf[i]);
    }
    backward_pass(model, data);
    data.g.copy_from(&data.tau);
    &data.g
}

/// Coriolis, centrifugal and gravity terms `b(q, v) = C(q, v)·v + g(q)` into `data.tau`.
pub fn nonlinear_effects<'d>(model: &Model, data: &'d mut Data, q: &[f64], v: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, q, v, &[], None);
    backward_pass(model, data);
    &data.tau
}

/// [`rnea`] at the placements already in `data` (after a kinematics pass at the same q:
/// [`super::crba`], [`super::compute_joint_jacobians`]); `a` empty means zero, which is
/// [`nonlinear_effects`].
pub(crate) fn rnea_placed<'d>(model: &Model, data: &'d mut Data, v: &[f64], a: &[f64]) -> &'d DVector<f64> {
    forward_pass(model, data, &[], v, a, None);
    backward_pass(model, data);
    &data.tau
}

/// Velocities, accelerations (with gravity) and body forces. `a` empty means zero; `q`
/// empty means the placements in `data` are current.
#[inline]
fn forward_pass(model: &Model, data: &mut Data, q: &[f64], v: &[f64], a: &[f64], fext: Option<&[Force]>) {
    let minus_gravity = -model.gravity;
    for i in 1..model.njoints() {
        if !q.is_empty() {
            place_joint(model, data, i, q);
        }
        let t = &model.joint_types[i];
        let (iv, nv) = (model.idx_v[i], t.nv());
        let parent = model.parents[i];
        let li_m_i = &data.li_m_i[i];
        let (vi, a_gf) = match t {
            // S = (0, axis): the joint velocity is an angular w, and vᵢ × (0, w) = (vᵢ_lin × w,
            // vᵢ_ang × w): the general formulas without their zero terms (the same numbers).
            JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis } => {
                let w = axis.vector * v[iv];
                if parent > 0 {
                    let mut vi = li_m_i.act_inv_motion(&data.v[parent]);
                    vi.angular += w;
                    let mut a_gf = li_m_i.act_inv_motion(&data.a_gf[parent]);
                    if !a.is_empty() {
                        a_gf.angular += axis.vector * a[iv];
                    }
                    a_gf.linear += vi.linear.cross(&w);
                    a_gf.angular += vi.angular.cross(&w);
                    (vi, a_gf)
                } else {
                    let mut a_gf = li_m_i.act_inv_motion(&minus_gravity);
                    if !a.is_empty() {
                        a_gf.angular += axis.vector * a[iv];
                    }
                    (Motion::new(Vec3::zeros(), w), a_gf)
                }
            }
            _ => {
                let vj = joint_velocity(t, &v[iv..iv + nv]);
                let aj = if a.is_empty() { Motion::ZERO } else { joint_velocity(t, &a[iv..iv + nv]) };
                if parent > 0 {
                    let vi = li_m_i.act_inv_motion(&data.v[parent]) + vj;
                    (vi, li_m_i.act_inv_motion(&data.a_gf[parent]) + aj + vi.cross(&vj))
                } else {
                    (vj, li_m_i.act_inv_motion(&minus_gravity) + aj)
                }
            }
        };
        let inertia = &model.inertias[i];
        let mut f = inertia.apply(&a_gf) + inertia.vxiv(&vi);
        if let Some(fext) = fext {
            f -= fext[i];
        }
        data.v[i] = vi;
        data.a_gf[i] = a_gf;
        data.f[i] = f;
    }
}

/// τᵢ = Sᵢᵀ·fᵢ, then each joint's force is transmitted to its parent.
#[inline]
fn backward_pass(model: &Model, data: &mut Data) {
    for i in (1..model.njoints()).rev() {
        let t = &model.joint_types[i];
        let iv = model.idx_v[i];
        let f = data.f[i];
        match t {
            JointType::FreeFlyer => data.tau.fixed_rows_mut::<6>(iv).copy_from(&f.to_vector()),
            JointType::Universe => {}
            JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis } => {
                data.tau[iv] = axis.vector.dot(&f.angular)
            }
            one_dof => data.tau[iv] = one_dof.axis_motion().dot(&f),
        }
        let parent = model.parents[i];
        if parent > 0 {
            let fp = data.li_m_i[i].act_force(&f);
            data.f[parent] += fp;
        }
    }
}
