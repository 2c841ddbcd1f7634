//! The joint-space inertia matrix M(q) by the Composite Rigid Body Algorithm
//! (Featherstone, RBDA §6.2), in world coordinates as Pinocchio's `Convention::WORLD`:
//! with every motion subspace and composite inertia expressed in the world frame,
//! `M[i, k] = Sᵢᵀ·Ic_k·S_k` for k in the subtree of i needs no change of frame.

use nalgebra::DMatrix;

use super::jacobian::fill_world_subspace;
use super::kinematics::place_joint;
use crate::model::{Data, Model};
use crate::spatial::Motion;

/// M(q) into `data.mass_matrix` (both triangles; entries outside the tree pattern stay
/// zero). Also leaves `data.o_m_i` and the world Jacobian data `data.j` at `q`.
pub fn crba<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DMatrix<f64> {
    let n = model.njoints();
    for i in 1..n {
        place_joint(model, data, i, q);
        fill_world_subspace(model, data, i);
        data.o_ycrb[i] = model.inertias[i].transformed(&data.o_m_i[i]);
    }
    for i in (1..n).rev() {
        let iv = model.idx_v[i];
        let nvi = model.joint_types[i].nv();
        let end = iv + model.nv_subtree[i];
        let ycrb = data.o_ycrb[i];
        for k in iv..iv + nvi {
            let s = Motion::from_vector(&data.j.fixed_view::<6, 1>(0, k).into_owned());
            data.f_crb.fixed_view_mut::<6, 1>(0, k).copy_from(&ycrb.apply(&s).to_vector());
        }
        for r in iv..iv + nvi {
            let s = data.j.fixed_view::<6, 1>(0, r).into_owned();
            for c in iv..end {
                let m = s.dot(&data.f_crb.fixed_view::<6, 1>(0, c));
                data.mass_matrix[(r, c)] = m;
                data.mass_matrix[(c, r)] = m;
            }
        }
        let parent = model.parents[i];
        if parent > 0 {
            data.o_ycrb[parent] = data.o_ycrb[parent] + ycrb;
        }
    }
    &data.mass_matrix
}
