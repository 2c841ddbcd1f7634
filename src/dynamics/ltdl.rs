//! Tree-sparse factorization of the joint-space inertia matrix, M = U·D·Uᵀ (= Lᵀ·D·L with
//! L = Uᵀ: Featherstone's "LTDL", RBDA §6.5), and solves with it.
//!
//! U is unit upper triangular with U[i][j] ≠ 0 only when dof i supports dof j (i is an
//! ancestor of j in the expanded parent array λ): the tree's sparsity, with no fill-in.
//! In depth-first numbering the strict subtree of dof j is the contiguous range
//! `j+1 .. end(j)` ([`Model::dof_subtree_end`]), so, column by column from the leaves,
//!
//! ```text
//! D[j]    = M[j][j] − Σ_{k ∈ sub(j)} U[j][k]²·D[k]
//! U[i][j] = (M[i][j] − Σ_{k ∈ sub(j)} U[i][k]·U[j][k]·D[k]) / D[j]   for i ∈ ancestors(j)
//! ```
//!
//! where every sum is a dot product over a contiguous row segment. Cost O(Σ_j depth·|sub|).
//! Storage: U row-major in `data.ltdl_u`'s buffer (`U[i][j]` at `i·nv + j`), i.e. the
//! column-major matrix `data.ltdl_u` holds L = Uᵀ.

use nalgebra::DMatrix;

use crate::model::{Data, Model, NO_PARENT};

/// Dot product with four independent accumulators (a serial sum cannot pipeline or
/// vectorize: floating-point addition is not reassociated by the compiler). Segments of a
/// tree's chains are mostly 0 to 3 long (a leg's dofs below a joint), so those lengths take
/// a straight-line path without the chunking's set-up.
#[inline]
pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    match n {
        0 => 0.0,
        1 => a[0] * b[0],
        2 => a[0] * b[0] + a[1] * b[1],
        3 => a[0] * b[0] + a[1] * b[1] + a[2] * b[2],
        _ => {
            let (a4, a_rest) = a.as_chunks::<4>();
            let (b4, b_rest) = b.as_chunks::<4>();
            let mut acc = [0.0f64; 4];
            for (x, y) in a4.iter().zip(b4) {
                for k in 0..4 {
                    acc[k] += x[k] * y[k];
                }
            }
            let tail: f64 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
            (acc[0] + acc[2]) + (acc[1] + acc[3]) + tail
        }
    }
}

/// Factorizes `data.mass_matrix` (its lower triangle, from [`super::crba`]) into
/// `data.ltdl_u`, `data.ltdl_d` and `data.ltdl_d_inv`. Each column of U is scaled by the
/// reciprocal 1/D[j], computed once per dof: a division per entry would cost a divider's
/// throughput (several cycles) for every ancestor of every dof.
pub fn ltdl_decompose(model: &Model, data: &mut Data) {
    let n = model.nv;
    let m = data.mass_matrix.as_slice();
    let u = data.ltdl_u.as_mut_slice();
    let d = data.ltdl_d.as_mut_slice();
    let d_inv = data.ltdl_d_inv.as_mut_slice();
    let scratch = data.ltdl_scratch.as_mut_slice();
    for j in (0..n).rev() {
        let (start, end) = (j + 1, model.dof_subtree_end[j]);
        // D·Uᵀ of row j over the strict subtree.
        let dut = &mut scratch[start..end];
        let uj = &u[j * n + start..j * n + end];
        for ((x, uk), dk) in dut.iter_mut().zip(uj).zip(&d[start..end]) {
            *x = uk * dk;
        }
        // M[j][j] and M[i][j] from the lower triangle: column i, row j at i·n + j.
        let dj = m[j * n + j] - dot(uj, dut);
        let inv = 1.0 / dj;
        d[j] = dj;
        d_inv[j] = inv;
        let mut i = model.dof_parent[j];
        while i != NO_PARENT {
            let s = dot(&u[i * n + start..i * n + end], dut);
            u[i * n + j] = (m[i * n + j] - s) * inv;
            i = model.dof_parent[i];
        }
    }
}

/// Solves M·x = b in place (`x` holds b on entry), with the factors of [`ltdl_decompose`].
pub fn ltdl_solve(model: &Model, data: &Data, x: &mut [f64]) {
    let n = model.nv;
    debug_assert_eq!(x.len(), n);
    let u = data.ltdl_u.as_slice();
    // U·y = b, from the leaves up: y[j] = b[j] − U[j][sub(j)]·y[sub(j)].
    for j in (0..n).rev() {
        let (start, end) = (j + 1, model.dof_subtree_end[j]);
        let s = dot(&u[j * n + start..j * n + end], &x[start..end]);
        x[j] -= s;
    }
    // D·z = y, with the reciprocals of the factorization.
    for (xk, dk_inv) in x.iter_mut().zip(data.ltdl_d_inv.iter()) {
        *xk *= dk_inv;
    }
    // Uᵀ·x = z, from the root down: each final x[i] updates its subtree.
    for i in 0..n {
        let (start, end) = (i + 1, model.dof_subtree_end[i]);
        let xi = x[i];
        for (xk, uk) in x[start..end].iter_mut().zip(&u[i * n + start..i * n + end]) {
            *xk -= uk * xi;
        }
    }
}

/// Solves M·X = B in place for every column of `x` (nv rows): e.g. M⁻¹·Jᵀ.
pub fn ltdl_solve_columns(model: &Model, data: &Data, x: &mut DMatrix<f64>) {
    debug_assert_eq!(x.nrows(), model.nv);
    if model.nv == 0 {
        return;
    }
    // Column-major storage: each chunk of nv values is a column.
    for col in x.as_mut_slice().chunks_mut(model.nv) {
        ltdl_solve(model, data, col);
    }
}

/// M⁻¹ from the factors (for checks and small problems; allocates the result).
pub fn mass_matrix_inverse(model: &Model, data: &Data) -> DMatrix<f64> {
    let mut x = DMatrix::<f64>::identity(model.nv, model.nv);
    ltdl_solve_columns(model, data, &mut x);
    x
}
