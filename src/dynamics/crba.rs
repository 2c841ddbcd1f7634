//! The joint-space inertia matrix M(q) by the Composite Rigid Body Algorithm
//! (Featherstone, RBDA §6.2), in world coordinates as Pinocchio's `Convention::WORLD`:
//! with every motion subspace and composite inertia expressed in the world frame,
//! `M[k, i] = S_kᵀ·Ic_k·Sᵢ` for k in the subtree of i needs no change of frame, and
//! composite inertias about the world origin add componentwise. [`crba_local`] is the
//! same recursion in the joint frames, for M alone.

use nalgebra::DMatrix;

use super::jacobian::fill_world_subspace;
use super::kinematics::place_joint;
use crate::model::{Data, JointType, Model};
use crate::spatial::OriginInertia;

/// M(q) into `data.mass_matrix`: the lower triangle (diagonal included) within the tree
/// pattern, which is what the factorization ([`super::ltdl_decompose`]) reads. The strict
/// upper triangle is left as it was; [`mass_matrix_symmetric`] (or [`crba_symmetric`])
/// fills it. Also leaves `data.o_m_i` and the world Jacobian data `data.j` at `q`.
pub fn crba<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DMatrix<f64> {
    crba_pass(model, data, Some(q))
}

/// [`crba`] with the placements `data.o_m_i` and `data.li_m_i` already at q (left by
/// [`super::forward_kinematics`] at the same q): M(q) and the world Jacobian data, the
/// joints not placed again.
pub fn crba_placed<'d>(model: &Model, data: &'d mut Data) -> &'d DMatrix<f64> {
    crba_pass(model, data, None)
}

/// The recursion of [`crba`], placing each joint on the way down when given `q` (inlined
/// into both: each its own loop, no test per joint).
#[inline(always)]
fn crba_pass<'d>(model: &Model, data: &'d mut Data, q: Option<&[f64]>) -> &'d DMatrix<f64> {
    let n = model.njoints();
    for i in 1..n {
        if let Some(q) = q {
            place_joint(model, data, i, q);
        }
        fill_world_subspace(model, data, i);
        data.o_ycrb[i] = OriginInertia::from_body(&model.inertias[i], &data.o_m_i[i]);
    }
    for i in (1..n).rev() {
        match model.joint_types[i] {
            JointType::FreeFlyer => free_flyer_rows(model, data, i),
            JointType::Universe => {}
            _ => one_dof_column(model, data, i),
        }
        // Ic_parent += Ic_i, in place (parent < i): no copy of Ic_i through the stack.
        let parent = model.parents[i];
        if parent > 0 {
            let (below, from_i) = data.o_ycrb.split_at_mut(i);
            below[parent] += from_i[0];
        }
    }
    &data.mass_matrix
}

/// The 6 world-frame entries of column `k` of a 6 × n matrix's column-major storage.
#[inline]
fn column6(storage: &[f64], k: usize) -> [f64; 6] {
    let mut out = [0.0; 6];
    out.copy_from_slice(&storage[6 * k..6 * k + 6]);
    out
}

#[inline]
fn dot6(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]
}

/// A 1-dof joint `i` (dof iv): F_iv = Ic_i·S_iv, then column iv of M over the subtree's
/// rows, `M[k][iv] = S_ivᵀ·F_k` (contiguous in column-major storage). The diagonal entry
/// from the F just computed, still in registers; the F of the dofs below from
/// `data.f_crb`, where their own joints left them.
#[inline]
fn one_dof_column(model: &Model, data: &mut Data, i: usize) {
    let (iv, nv) = (model.idx_v[i], model.nv);
    let end = iv + model.nv_subtree[i];
    let s = column6(data.j.as_slice(), iv);
    let f = data.o_ycrb[i].apply_array(&s);
    let forces = data.f_crb.as_mut_slice();
    forces[6 * iv..6 * iv + 6].copy_from_slice(&f);
    let (below, _) = forces[6 * (iv + 1)..6 * end].as_chunks::<6>();
    let column = &mut data.mass_matrix.as_mut_slice()[iv * nv + iv..iv * nv + end];
    column[0] = dot6(&s, &f);
    for (out, fk) in column[1..].iter_mut().zip(below) {
        *out = dot6(&s, fk);
    }
}

/// A free flyer `i` (dofs iv..iv+6): F = Ic_i·S for its six dofs, then its six rows of M
/// over the subtree's columns, lower triangle: `M[c][iv + r] = S_rᵀ·F_c` for c ≥ iv + r.
/// S is the action matrix of world_m_base = (R, t), so Sᵀ·F is the inverse force
/// transform: rows r < 3 are `R_rᵀ·f`, rows 3 + r are `R_rᵀ·(τ − t × f) = R_rᵀ·τ −
/// (R_r × t)ᵀ·f` (R_r: column r of R). Each row is a fixed 6-vector dotted with every
/// F_c, and row r of the lower triangle is contiguous in column-major storage (column
/// iv + r): straight runs of writes, no branch per entry. Not inlined: it runs once per
/// call, and out of line it leaves [`crba`]'s loop small.
#[inline(never)]
fn free_flyer_rows(model: &Model, data: &mut Data, i: usize) {
    let (iv, nv) = (model.idx_v[i], model.nv);
    let end = iv + model.nv_subtree[i];
    let ycrb = data.o_ycrb[i];
    for k in iv..iv + 6 {
        let f = ycrb.apply_array(&column6(data.j.as_slice(), k));
        data.f_crb.as_mut_slice()[6 * k..6 * k + 6].copy_from_slice(&f);
    }
    let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
    let m = data.mass_matrix.as_mut_slice();
    let (rotation, t) = (&data.o_m_i[i].rotation, &data.o_m_i[i].translation);
    for r in 0..3 {
        let rc = rotation.column(r);
        let row = [rc[0], rc[1], rc[2]];
        let start = (iv + r) * nv;
        for (out, f) in m[start + iv + r..start + end].iter_mut().zip(&forces[r..]) {
            *out = row[0] * f[0] + row[1] * f[1] + row[2] * f[2];
        }
        let u = rc.cross(t);
        let row = [-u[0], -u[1], -u[2], rc[0], rc[1], rc[2]];
        let start = (iv + 3 + r) * nv;
        for (out, f) in m[start + iv + 3 + r..start + end].iter_mut().zip(&forces[3 + r..]) {
            *out = dot6(&row, f);
        }
    }
}

/// M(q) into `data.mass_matrix` (lower triangle, as [`crba`]) by the CRBA in the joint
/// frames (Featherstone's original form; Pinocchio's `Convention::LOCAL`): only the
/// placements relative to the parents, `data.li_m_i`, are computed, not the world ones nor
/// the Jacobian data, which [`crba`] also leaves. For a caller that needs M alone.
///
/// From the leaves: joint i's force columns F_k = Ic_i·S_k and those of its subtree are in
/// frame i, so `M[k][i] = S_iᵀ·F_k` with the joint's constant local S; then the subtree's
/// forces and the composite inertia move to the parent's frame (`li_m_i` acting on them).
pub fn crba_local<'d>(model: &Model, data: &'d mut Data, q: &[f64]) -> &'d DMatrix<f64> {
    let n = model.njoints();
    for i in 1..n {
        let t = &model.joint_types[i];
        let iq = model.idx_q[i];
        data.li_m_i[i] = t.placed_transform(&model.joint_placements[i], &q[iq..iq + t.nq()]);
        data.o_ycrb[i] = OriginInertia::of_body(&model.inertias[i]);
    }
    let nv = model.nv;
    for i in (1..n).rev() {
        let iv = model.idx_v[i];
        let end = iv + model.nv_subtree[i];
        let ycrb = data.o_ycrb[i];
        match model.joint_types[i] {
            JointType::Universe => {}
            // S = 1 (the velocity in the child frame): F_k = Ic·e_k, and the rows of M are
            // the subtree's forces themselves.
            JointType::FreeFlyer => {
                for r in 0..6 {
                    let mut e = [0.0; 6];
                    e[r] = 1.0;
                    let f = ycrb.apply_array(&e);
                    data.f_crb.as_mut_slice()[6 * (iv + r)..6 * (iv + r) + 6].copy_from_slice(&f);
                }
                let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
                let m = data.mass_matrix.as_mut_slice();
                for r in 0..6 {
                    let start = (iv + r) * nv;
                    for (out, f) in m[start + iv + r..start + end].iter_mut().zip(&forces[r..]) {
                        *out = f[r];
                    }
                }
            }
            one_dof => {
                let column = &mut data.mass_matrix.as_mut_slice()[iv * nv + iv..iv * nv + end];
                match unit_subspace(&one_dof) {
                    // S = ±e_k: F = ±(column k of Ic), and Sᵀ·F_k = ±F_k[k].
                    Some((k, sign)) => {
                        let f = ycrb.unit_column(k).map(|x| x * sign);
                        data.f_crb.as_mut_slice()[6 * iv..6 * iv + 6].copy_from_slice(&f);
                        let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
                        for (out, fk) in column.iter_mut().zip(forces) {
                            *out = sign * fk[k];
                        }
                    }
                    None => {
                        let a = one_dof.axis_motion();
                        let s = [a.linear.x, a.linear.y, a.linear.z, a.angular.x, a.angular.y, a.angular.z];
                        let f = ycrb.apply_array(&s);
                        data.f_crb.as_mut_slice()[6 * iv..6 * iv + 6].copy_from_slice(&f);
                        let (forces, _) = data.f_crb.as_slice()[6 * iv..6 * end].as_chunks::<6>();
                        for (out, fk) in column.iter_mut().zip(forces) {
                            *out = dot6(&s, fk);
                        }
                    }
                }
            }
        }
        let parent = model.parents[i];
        if parent > 0 {
            let li_m_i = data.li_m_i[i];
            let (forces, _) = data.f_crb.as_mut_slice()[6 * iv..6 * end].as_chunks_mut::<6>();
            for f in forces {
                *f = act_force(&li_m_i, f);
            }
            data.o_ycrb[parent] += ycrb.transformed(&li_m_i);
        }
    }
    &data.mass_matrix
}

/// For a 1-dof joint along a coordinate axis, its local motion subspace as `(k, ±1)`:
/// S = ±e_k in `[linear; angular]` (a revolute joint's k = 3 + axis).
#[inline]
fn unit_subspace(joint: &JointType) -> Option<(usize, f64)> {
    match joint {
        JointType::Revolute { axis } | JointType::RevoluteUnbounded { axis } => {
            axis.aligned().map(|(k, sign)| (3 + k, sign))
        }
        JointType::Prismatic { axis } => axis.aligned(),
        JointType::Universe | JointType::FreeFlyer => None,
    }
}

/// `a_m_b` acting on the force `[linear; angular]` (frame b) as an array:
/// `[R·f; R·τ + p × R·f]`, as [`crate::spatial::SE3::act_force`].
#[inline]
fn act_force(a_m_b: &crate::spatial::SE3, f: &[f64; 6]) -> [f64; 6] {
    let rs = a_m_b.rotation.as_slice();
    // R·x with R column-major: column k at 3k..3k+3.
    let r = |x: &[f64]| {
        [
            rs[0] * x[0] + rs[3] * x[1] + rs[6] * x[2],
            rs[1] * x[0] + rs[4] * x[1] + rs[7] * x[2],
            rs[2] * x[0] + rs[5] * x[1] + rs[8] * x[2],
        ]
    };
    let (lin, ang) = (r(&f[..3]), r(&f[3..]));
    let p = &a_m_b.translation;
    [
        lin[0],
        lin[1],
        lin[2],
        ang[0] + (p.y * lin[2] - p.z * lin[1]),
        ang[1] + (p.z * lin[0] - p.x * lin[2]),
        ang[2] + (p.x * lin[1] - p.y * lin[0]),
    ]
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
