//! Forward dynamics by the Articulated Body Algorithm (Featherstone, RBDA §7.3), in world
//! coordinates (as Pinocchio's `Convention::WORLD`): articulated inertias of children add
//! to their parent's without a change of frame. For joint i with world subspace Sᵢ:
//!
//! ```text
//! Uᵢ = IAᵢ·Sᵢ,  Dᵢ = Sᵢᵀ·Uᵢ,  uᵢ = τᵢ − Sᵢᵀ·pᵢ
//! IA_λ += IAᵢ − Uᵢ·Dᵢ⁻¹·Uᵢᵀ,  p_λ += pᵢ + (IAᵢ − Uᵢ·Dᵢ⁻¹·Uᵢᵀ)·cᵢ + Uᵢ·Dᵢ⁻¹·uᵢ
//! q̈ᵢ = Dᵢ⁻¹·(uᵢ − Uᵢᵀ·a_λ'),  with a_λ' = a_λ + cᵢ and cᵢ = vᵢ × Sᵢ·q̇ᵢ
//! ```

use nalgebra::DVector;

use super::jacobian::fill_world_subspace;
use super::kinematics::{joint_velocity, place_joint};
use crate::model::{Data, JointType, Model};
use crate::spatial::{Force, Mat6, Motion, Vec6};

/// q̈ = M(q)⁻¹·(τ − b(q, v)) into `data.ddq`.
pub fn aba<'d>(model: &Model, data: &'d mut Data, q: &[f64], v: &[f64], tau: &[f64]) -> &'d DVector<f64> {
    aba_impl(model, data, q, v, tau, None)
}

/// ABA with external forces `fext[i]` on the body of joint `i`, in that joint's frame.
pub fn aba_with_external_forces<'d>(
    model: &Model,
    data: &'d mut Data,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    fext: &[Force],
) -> &'d DVector<f64> {
    debug_assert_eq!(fext.len(), model.njoints());
    aba_impl(model, data, q, v, tau, Some(fext))
}

fn aba_impl<'d>(
    model: &Model,
    data: &'d mut Data,
    q: &[f64],
    v: &[f64],
    tau: &[f64],
    fext: Option<&[Force]>,
) -> &'d DVector<f64> {
    debug_assert!(q.len() == model.nq && v.len() == model.nv && tau.len() == model.nv);
    forward_pass(model, data, q, v, fext);
    backward_pass(model, data, tau);
    acceleration_pass(model, data);
    &data.ddq
}

/// Pass 1 (Pinocchio's AbaForwardStep1): placements, world velocities, bias accelerations
/// and forces (less the external forces), root to leaves.
fn forward_pass(model: &Model, data: &mut Data, q: &[f64], v: &[f64], fext: Option<&[Force]>) {
    let n = model.njoints();
    for i in 1..n {
        place_joint(model, data, i, q);
        fill_world_subspace(model, data, i);
        let t = &model.joint_types[i];
        let iv = model.idx_v[i];
        let vj_world = data.o_m_i[i].act_motion(&joint_velocity(t, &v[iv..iv + t.nv()]));
        let parent = model.parents[i];
        let ov = if parent > 0 { data.ov[parent] + vj_world } else { vj_world };
        data.ov[i] = ov;
        data.oc[i] = ov.cross(&vj_world);
        let oy = model.inertias[i].transformed(&data.o_m_i[i]);
        data.o_yaba[i] = oy.matrix();
        let mut of = oy.vxiv(&ov);
        if let Some(fext) = fext {
            of -= data.o_m_i[i].act_force(&fext[i]);
        }
        data.of[i] = of;
    }
}

/// Pass 2 (AbaBackwardStep): articulated inertias and bias forces, leaves to root.
fn backward_pass(model: &Model, data: &mut Data, tau: &[f64]) {
    let n = model.njoints();
    for i in (1..n).rev() {
        let iv = model.idx_v[i];
        let parent = model.parents[i];
        let ia = data.o_yaba[i];
        let pf = data.of[i].to_vector();
        match model.joint_types[i] {
            JointType::FreeFlyer => {
                let s = data.j.fixed_view::<6, 6>(0, iv).into_owned();
                let u = ia * s;
                let d = s.transpose() * u;
                let d_inv = d.cholesky().map(|c| c.inverse()).unwrap_or_else(Mat6::zeros);
                let ut = tau[iv..iv + 6].iter().zip(0..6).map(|(t, r)| t - s.column(r).dot(&pf));
                for (k, x) in ut.enumerate() {
                    data.u_tau[iv + k] = x;
                }
                data.u.fixed_view_mut::<6, 6>(0, iv).copy_from(&u);
                data.d_inv[i] = d_inv;
                if parent > 0 {
                    let ud = u * d_inv;
                    let ia_a = ia - ud * u.transpose();
                    let pa = pf + ia_a * data.oc[i].to_vector() + ud * data.u_tau.fixed_rows::<6>(iv);
                    data.o_yaba[parent] += ia_a;
                    data.of[parent] += Force::from_vector(&pa);
                }
            }
            JointType::Universe => {}
            _ => {
                let s: Vec6 = data.j.fixed_view::<6, 1>(0, iv).into_owned();
                let u: Vec6 = ia * s;
                let d_inv = 1.0 / s.dot(&u);
                let ut = tau[iv] - s.dot(&pf);
                data.u_tau[iv] = ut;
                data.u.fixed_view_mut::<6, 1>(0, iv).copy_from(&u);
                data.d_inv[i][(0, 0)] = d_inv;
                if parent > 0 {
                    let ia_a: Mat6 = ia - (u * d_inv) * u.transpose();
                    let pa: Vec6 = pf + ia_a * data.oc[i].to_vector() + u * (d_inv * ut);
                    data.o_yaba[parent] += ia_a;
                    data.of[parent] += Force::from_vector(&pa);
                }
            }
        }
    }
}

/// Pass 3 (AbaForwardStep2): joint and body accelerations, root to leaves.
fn acceleration_pass(model: &Model, data: &mut Data) {
    let n = model.njoints();
    let minus_gravity = -model.gravity;
    for i in 1..n {
        let iv = model.idx_v[i];
        let parent = model.parents[i];
        let a_parent = if parent > 0 { data.oa_gf[parent] } else { minus_gravity };
        let a = (a_parent + data.oc[i]).to_vector();
        let a = match model.joint_types[i] {
            JointType::FreeFlyer => {
                let u = data.u.fixed_view::<6, 6>(0, iv);
                let rhs = data.u_tau.fixed_rows::<6>(iv) - u.transpose() * a;
                let ddq: Vec6 = data.d_inv[i] * rhs;
                data.ddq.fixed_rows_mut::<6>(iv).copy_from(&ddq);
                a + data.j.fixed_view::<6, 6>(0, iv) * ddq
            }
            JointType::Universe => a,
            _ => {
                let u = data.u.fixed_view::<6, 1>(0, iv);
                let ddq = data.d_inv[i][(0, 0)] * (data.u_tau[iv] - u.dot(&a));
                data.ddq[iv] = ddq;
                a + data.j.fixed_view::<6, 1>(0, iv) * ddq
            }
        };
        data.oa_gf[i] = Motion::from_vector(&a);
    }
}
