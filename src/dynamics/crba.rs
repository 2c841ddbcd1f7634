//! The joint-space inertia matrix M(q) by the Composite Rigid Body Algorithm
//! (Featherstone, RBDA §6.2), in world coordinates as Pinocchio's `Convention::WORLD`:
//! with every motion subspace and composite inertia expressed in the world frame,
//! `M[k, i] = S_kᵀ·Ic_k·Sᵢ` for k in the subtree of i needs no change of frame, and
//! composite inertias about the world origin add componentwise.

use nalgebra::DMatrix;

use super::jacobian::fill_world_subspace;
use super::kinematics::place_joint;
use crate::model::{Data, JointType, Model};
use crate::spatial::{Force, Motion, OriginInertia};

/// M(q) into `data.mass_matrix`: the lower triangle (diagonal included) within the tree
/// pattern, which is what the factorization ([`super::ltdl_decompose`]) reads. The strict
/// upper triangle is left as it was; [`mass_matrix_symmetric`] (or [`crba_symmetric`])
/// fills it. Also leaves `data.o_m_i` and the world Jacobian data `data.j` at `q`.
pub fn crba<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DMatrix<f64> {
    let n = model.njoints();
    for i in 1..n {
        place_joint(model, data, i, q);
        fill_world_subspace(model, data, i);
        data.o_ycrb[i] = OriginInertia::from_body(&model.inertias[i], &data.o_m_i[i]);
    }
    let nv = model.nv;
    for i in (1..n).rev() {
        let iv = model.idx_v[i];
        let nvi = model.joint_types[i].nv();
        let end = iv + model.nv_subtree[i];
        let ycrb = data.o_ycrb[i];
        // Force columns F_k = Ic_i·S_k of this joint's dofs (those of the subtree below are
        // already there, from their own composite inertias).
        for k in iv..iv + nvi {
            let s = Motion::from_vector(&data.j.fixed_view::<6, 1>(0, k).into_owned());
            data.f_crb.fixed_view_mut::<6, 1>(0, k).copy_from(&ycrb.apply(&s).to_vector());
        }
        let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
        let m = data.mass_matrix.as_mut_slice();
        match model.joint_types[i] {
            // Sᵀ·F with S the action matrix of world_m_base is the inverse force transform.
            JointType::FreeFlyer => {
                let o_m_i = data.o_m_i[i];
                for (c, f) in (iv..end).zip(forces) {
                    let local = o_m_i.act_inv_force(&Force::from_vector(&(*f).into()));
                    for (r, x) in (iv..iv + 6).zip(local.to_vector().iter()) {
                        if c >= r {
                            m[r * nv + c] = *x;
                        }
                    }
                }
            }
            JointType::Universe => {}
            _ => {
                // Column iv of M, rows of the subtree: contiguous in column-major storage.
                let (s, _) = data.j.as_slice()[6 * iv..6 * iv + 6].as_chunks::<6>();
                let s = &s[0];
                for (out, f) in m[iv * nv + iv..iv * nv + end].iter_mut().zip(forces) {
                    *out = s[0] * f[0] + s[1] * f[1] + s[2] * f[2] + s[3] * f[3] + s[4] * f[4] + s[5] * f[5];
                }
            }
        }
        let parent = model.parents[i];
        if parent > 0 {
            data.o_ycrb[parent] += ycrb;
        }
    }
    &data.mass_matrix
}

/// Copies the lower triangle of `data.mass_matrix` (from [`crba`]) into the upper one,
/// within the tree pattern.
pub fn mass_matrix_symmetric<'d>(model: &Model, data: &'d mut Data) -> &'d DMatrix<f64> {
    let nv = model.nv;
    let m = data.mass_matrix.as_mut_slice();
    for i in 1..model.njoints() {
        let (iv, end) = (model.idx_v[i], model.idx_v[i] + model.nv_subtree[i]);
        for r in iv..iv + model.joint_types[i].nv() {
            for c in r + 1..end {
                m[c * nv + r] = m[r * nv + c];
            }
        }
    }
    &data.mass_matrix
}

/// [`crba`] then [`mass_matrix_symmetric`]: the whole M(q).
pub fn crba_symmetric<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DMatrix<f64> {
    crba(model, data, q);
    mass_matrix_symmetric(model, data)
}
