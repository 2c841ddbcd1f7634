//! The joint-space inertia matrix M(q) by the Composite Rigid Body Algorithm
//! (Featherstone, RBDA §6.2), in world coordinates as Pinocchio's `Convention::WORLD`:
//! with every motion subspace and composite inertia expressed in the world frame,
//! `M[k, i] = S_kᵀ·Ic_k·Sᵢ` for k in the subtree of i needs no change of frame, and
//! composite inertias about the world origin add componentwise.

use nalgebra::DMatrix;

use super::jacobian::fill_world_subspace;
use super::kinematics::place_joint;
use crate::model::{Data, JointType, Model};
use crate::spatial::{Force, Motion, OriginInertia, Vec3};

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
    for i in (1..n).rev() {
        let ycrb = data.o_ycrb[i];
        let parent = model.parents[i];
        match model.joint_types[i] {
            JointType::Universe => {}
            JointType::FreeFlyer => {
                // The force columns of a root free flyer are read by no ancestor.
                if parent > 0 {
                    fill_force_columns(model, data, i, &ycrb);
                }
                free_flyer_rows(model, data, i, &ycrb);
            }
            _ => {
                fill_force_columns(model, data, i, &ycrb);
                one_dof_row(model, data, i);
            }
        }
        if parent > 0 {
            data.o_ycrb[parent] += ycrb;
        }
    }
    &data.mass_matrix
}

/// Force columns `F_k = Ic_i·S_k` of joint i's dofs (those of the subtree below are already
/// there, from their own composite inertias).
#[inline(always)]
fn fill_force_columns(model: &Model, data: &mut Data, i: usize, ycrb: &OriginInertia) {
    let iv = model.idx_v[i];
    let end = iv + model.joint_types[i].nv();
    let (subspaces, _) = data.j.as_slice()[6 * iv..6 * end].as_chunks::<6>();
    let (forces, _) = data.f_crb.as_mut_slice()[6 * iv..6 * end].as_chunks_mut::<6>();
    for (f, s) in forces.iter_mut().zip(subspaces) {
        let s = Motion::new(Vec3::new(s[0], s[1], s[2]), Vec3::new(s[3], s[4], s[5]));
        let y = ycrb.apply(&s);
        *f = [y.linear.x, y.linear.y, y.linear.z, y.angular.x, y.angular.y, y.angular.z];
    }
}

/// Row `idx_v[i]` of a one-dof joint i, stored as column iv of the lower triangle over the
/// subtree's rows (contiguous in column-major storage): `M[k][iv] = Sᵢᵀ·F_k`.
#[inline(always)]
fn one_dof_row(model: &Model, data: &mut Data, i: usize) {
    let nv = model.nv;
    let iv = model.idx_v[i];
    let end = iv + model.nv_subtree[i];
    let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
    let (s, _) = data.j.as_slice()[6 * iv..6 * iv + 6].as_chunks::<6>();
    let s = &s[0];
    let m = data.mass_matrix.as_mut_slice();
    for (out, f) in m[iv * nv + iv..iv * nv + end].iter_mut().zip(forces) {
        *out = s[0] * f[0] + s[1] * f[1] + s[2] * f[2] + s[3] * f[3] + s[4] * f[4] + s[5] * f[5];
    }
}

/// The six rows of a free flyer i, with S the action matrix of `o_m_i` (so `Sᵀ·F` is the
/// inverse force transform). Its own 6×6 block `Sᵀ·Ic·S` is the composite inertia in the
/// joint frame ([`OriginInertia::act_inv`]): `[[m·1, −[h]ₓ], [[h]ₓ, I]]` (linear first),
/// with no force column of its own; the subtree's columns are `o_m_i⁻¹·F_k`. Kept out of
/// line: it runs once per call, and inlined it made the compiler outline the forward pass.
#[inline(never)]
fn free_flyer_rows(model: &Model, data: &mut Data, i: usize, ycrb: &OriginInertia) {
    let nv = model.nv;
    let iv = model.idx_v[i];
    let end = iv + model.nv_subtree[i];
    let o_m_i = data.o_m_i[i];
    let local = ycrb.act_inv(&o_m_i);
    let m = data.mass_matrix.as_mut_slice();
    // Lower triangle of the block: element (row a, column b), a ≥ b, at (iv+b)·nv + iv+a.
    let h = local.first_moment;
    let cross = [[0.0, -h.z, h.y], [h.z, 0.0, -h.x], [-h.y, h.x, 0.0]];
    for b in 0..3 {
        let col = (iv + b) * nv + iv;
        m[col + b] = local.mass;
        for a in b + 1..3 {
            m[col + a] = 0.0;
        }
        for a in 3..6 {
            m[col + a] = cross[a - 3][b];
        }
        let col = (iv + 3 + b) * nv + iv;
        for a in 3 + b..6 {
            m[col + a] = local.rotational[(a - 3, b)];
        }
    }
    let (forces, _) = data.f_crb.as_slice()[6 * (iv + 6)..6 * end].as_chunks::<6>();
    // Row iv + r (r < 6) of M, stored as column iv + r of the lower triangle: its entries
    // iv+6 .. end, one per subtree dof.
    let mut columns = m[iv * nv..(iv + 6) * nv].chunks_exact_mut(nv).map(|col| &mut col[iv + 6..end]);
    let mut rows: [&mut [f64]; 6] = std::array::from_fn(|_| columns.next().unwrap_or_default());
    for (k, f) in forces.iter().enumerate() {
        let x = o_m_i.act_inv_force(&Force::new(Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5])));
        let x = [x.linear.x, x.linear.y, x.linear.z, x.angular.x, x.angular.y, x.angular.z];
        for (row, x) in rows.iter_mut().zip(x) {
            row[k] = x;
        }
    }
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
