//! Tree-sparse factorization M = Lᵀ·D·L of the joint-space inertia matrix and solves with
//! it (Featherstone, RBDA §6.5, "LTDL"). L is unit lower triangular with nonzeros only
//! where a dof supports another, so factorization costs O(Σ depth²) and a solve O(Σ depth)
//! instead of O(nv³) and O(nv²); no fill-in. Pinocchio's `cholesky::decompose` computes the
//! same factorization written U·D·Uᵀ with U = Lᵀ.

use nalgebra::DMatrix;

use crate::model::{Data, Model, NO_PARENT};

/// Factorizes `data.mass_matrix` (from [`super::crba`]) into `data.ltdl_l` (strictly
/// lower part of L) and `data.ltdl_d`.
pub fn ltdl_decompose(model: &Model, data: &mut Data) {
    let n = model.nv;
    let lambda = &model.dof_parent;
    let h = &mut data.ltdl_l;
    // Only the lower-triangle tree entries are read and written.
    for k in 0..n {
        let mut i = k;
        loop {
            h[(k, i)] = data.mass_matrix[(k, i)];
            i = lambda[i];
            if i == NO_PARENT {
                break;
            }
        }
    }
    for k in (0..n).rev() {
        let mut i = lambda[k];
        while i != NO_PARENT {
            let a = h[(k, i)] / h[(k, k)];
            let mut j = i;
            while j != NO_PARENT {
                h[(i, j)] -= a * h[(k, j)];
                j = lambda[j];
            }
            h[(k, i)] = a;
            i = lambda[i];
        }
    }
    for k in 0..n {
        data.ltdl_d[k] = h[(k, k)];
    }
}

/// Solves M·x = b in place (`x` holds b on entry), with the factors of [`ltdl_decompose`].
pub fn ltdl_solve(model: &Model, data: &Data, x: &mut [f64]) {
    let n = model.nv;
    debug_assert_eq!(x.len(), n);
    let lambda = &model.dof_parent;
    let l = &data.ltdl_l;
    // Lᵀ·z = b, from the leaves up.
    for k in (0..n).rev() {
        let xk = x[k];
        let mut i = lambda[k];
        while i != NO_PARENT {
            x[i] -= l[(k, i)] * xk;
            i = lambda[i];
        }
    }
    // D·y = z
    for (xk, dk) in x.iter_mut().zip(data.ltdl_d.iter()) {
        *xk /= dk;
    }
    // L·x = y, from the root down.
    for k in 0..n {
        let mut i = lambda[k];
        let mut s = x[k];
        while i != NO_PARENT {
            s -= l[(k, i)] * x[i];
            i = lambda[i];
        }
        x[k] = s;
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
