//! The stance of the controller's reference velocity: its targets and its projection.
//!
//! A stance contact i must move as its target t_i says (the controller's
//! [`StanceTarget`]), J_i v_ref = t_i, so the reference is the velocity nearest the PD's v₀
//! in the metric W (diagonal) that meets them:
//!
//! ```text
//! v_ref = v₀ + W⁻¹ J_Sᵀ μ,     (J_S W⁻¹ J_Sᵀ + εI) μ = t_S − J_S v₀
//! ```
//!
//! An open stance contact's normal row has no target: it closes its gap within the step,
//! t_N = −γ_N (the contact problem's gap term): the simulator closes a loaded contact's
//! gap within the step, and a reference that held the point a hair above the ground would
//! make it a separating contact (c_N = φ/Δt > 0) that carries nothing.
//!
//! A guard contact (a link the robot does not stand on, which the reference would push
//! into the ground) keeps its normal row alone: the reference may not penetrate it but
//! slides along it and leaves it freely. Its tangential rows are masked out of A (their
//! rows and columns zero, the regularization alone on their diagonal) and their shortfall
//! is zero, so their μ_T is zero and they add nothing to v_ref.
//!
//! The system has one 3 × 3 block per pair of stance contacts and is factored by those
//! blocks (a block Cholesky, L_ii = chol(A_ii − Σ L_ik L_ikᵀ), L_ij = (A_ij − Σ L_ik L_jkᵀ)
//! L_jj⁻ᵀ): a contact's rows are non-zero only on the dofs supporting it (a foot: the
//! floating base and its leg), so a block of A = J_S W⁻¹ J_Sᵀ is a product over the dofs
//! two contacts share, and fixed 3 × 3 products have no loop overhead. Nothing allocates
//! after construction.

use crate::contact::ContactProblem;
use crate::contact::problem::{add_dot3x3, for_overlaps};
use crate::spatial::{Mat3, Vec3};

/// The velocity t a stance contact is to have at the end of the step, in its (Tx, Ty, N)
/// frame: inverse dynamics then sees its contact velocity c = J·v_ref − t, zero where the
/// projection meets t.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct StanceTarget {
    /// The contact (its index in the contact problem).
    pub contact: usize,
    /// t_T (m/s).
    pub tangential: [f64; 2],
    /// t_N (m/s); None: the contact closes its gap within the step (c_N = J_N·v_ref + γ_N,
    /// the contact problem's own).
    pub normal: Option<f64>,
}

/// The stance projection's workspace, sized once.
#[derive(Debug)]
pub(crate) struct StanceProjection {
    /// The lower block triangle of A (block (i, j), j ≤ i, at i(i+1)/2 + j), then of L.
    blocks: Vec<Mat3>,
    /// L_ii⁻¹ per stance contact.
    inv_diag: Vec<Mat3>,
    /// The right-hand side, then μ (one block per stance contact).
    mu: Vec<Vec3>,
}

/// Relative regularization ε of A's diagonal (to its mean), for redundant stance rows.
const REGULARIZATION: f64 = 1e-10;

impl StanceProjection {
    /// Room for `capacity` stance contacts.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        Self {
            blocks: Vec::with_capacity(capacity * (capacity + 1) / 2),
            inv_diag: Vec::with_capacity(capacity),
            mu: Vec::with_capacity(capacity),
        }
    }

    /// Moves `v_ref` (holding v₀) onto the stance: `stance` are contacts of `problem`
    /// (rows J of `nv` columns, their supports), `guard` says per stance contact whether
    /// its normal row alone holds (see the module; its tangential shortfall must be zero),
    /// `shortfall` what each must add to its velocity J v₀ to meet its target (t − J v₀),
    /// `w_inv` W⁻¹'s diagonal. Returns false (and leaves `v_ref`) when the system is
    /// singular beyond the regularization.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn project(
        &mut self,
        problem: &ContactProblem,
        j: &[f64],
        nv: usize,
        stance: &[usize],
        guard: &[bool],
        shortfall: &[Vec3],
        w_inv: &[f64],
        v_ref: &mut [f64],
    ) -> bool {
        let ns = stance.len();
        // Contact i's three rows of J, one after the other.
        let rows = |i: usize| &j[3 * i * nv..3 * (i + 1) * nv];
        // The rows each stance contact keeps (a guard contact its normal row alone).
        let kept = |a: usize| if guard[a] { Vec3::new(0.0, 0.0, 1.0) } else { Vec3::new(1.0, 1.0, 1.0) };
        // A's blocks over the dofs both contacts are supported by (the rows of J are zero
        // elsewhere); a diagonal block's lower triangle only (all the factorization reads).
        self.blocks.clear();
        let mut trace = 0.0;
        for (a, &i) in stance.iter().enumerate() {
            let (own, rows_a, kept_a) = (problem.factor_support(i), rows(i), kept(a));
            for (b, &k) in stance[..a].iter().enumerate() {
                let mut block = [[0.0; 3]; 3];
                let (rows_b, kept_b) = (rows(k), kept(b));
                for_overlaps(own, problem.factor_support(k), |lo, hi| {
                    let w = &w_inv[lo..hi];
                    add_dot3x3(&mut block, columns(rows_a, nv, lo, hi), columns(rows_b, nv, lo, hi), |c| w[c]);
                });
                self.blocks.push(Mat3::from_fn(|r, c| block[r][c] * kept_a[r] * kept_b[c]));
            }
            let mut block = [[0.0; 3]; 3];
            for &(lo, hi) in own {
                add_weighted_lower_products(&mut block, columns(rows_a, nv, lo, hi), &w_inv[lo..hi]);
            }
            let block = Mat3::from_fn(|r, c| block[r][c] * kept_a[r] * kept_a[c]);
            trace += block.trace();
            self.blocks.push(block);
        }
        let eps = REGULARIZATION * trace / (3 * ns).max(1) as f64;
        if !self.factor(ns, eps) {
            return false;
        }
        // μ: L y = t_S − J_S v₀, then Lᵀ μ = y.
        self.mu.clear();
        self.mu.extend_from_slice(shortfall);
        for i in 0..ns {
            let mut y = self.mu[i];
            for k in 0..i {
                y -= self.blocks[block_index(i, k)] * self.mu[k];
            }
            self.mu[i] = self.inv_diag[i] * y;
        }
        for i in (0..ns).rev() {
            let mut x = self.mu[i];
            for k in i + 1..ns {
                x -= self.blocks[block_index(k, i)].transpose() * self.mu[k];
            }
            self.mu[i] = self.inv_diag[i].transpose() * x;
        }
        // v_ref += W⁻¹ J_Sᵀ μ.
        for (&i, mu) in stance.iter().zip(&self.mu) {
            for &(lo, hi) in problem.factor_support(i) {
                let ([j0, j1, j2], w) = (columns(rows(i), nv, lo, hi), &w_inv[lo..hi]);
                for (c, v) in v_ref[lo..hi].iter_mut().enumerate() {
                    *v += w[c] * (j0[c] * mu.x + j1[c] * mu.y + j2[c] * mu.z);
                }
            }
        }
        true
    }

    /// The block Cholesky factor L of A + εI (A's lower block triangle in `blocks`, for
    /// `ns` stance contacts) in place, and L_ii⁻¹; false when a pivot block is not
    /// positive definite.
    fn factor(&mut self, ns: usize, eps: f64) -> bool {
        self.inv_diag.clear();
        for i in 0..ns {
            for jb in 0..=i {
                let mut x = self.blocks[block_index(i, jb)];
                for k in 0..jb {
                    x -= self.blocks[block_index(i, k)] * self.blocks[block_index(jb, k)].transpose();
                }
                if jb < i {
                    self.blocks[block_index(i, jb)] = x * self.inv_diag[jb].transpose();
                } else {
                    x += Mat3::identity() * eps;
                    let Some((l, l_inv)) = cholesky3(&x) else { return false };
                    self.blocks[block_index(i, i)] = l;
                    self.inv_diag.push(l_inv);
                }
            }
        }
        true
    }
}

/// Index of block (i, j), j ≤ i, in the packed lower block triangle.
#[inline]
fn block_index(i: usize, j: usize) -> usize {
    i * (i + 1) / 2 + j
}

/// Columns [lo, hi) of three consecutive rows of `nv` entries.
#[inline]
fn columns(rows: &[f64], nv: usize, lo: usize, hi: usize) -> [&[f64]; 3] {
    let (r0, rest) = rows.split_at(nv);
    let (r1, r2) = rest.split_at(nv);
    [&r0[lo..hi], &r1[lo..hi], &r2[lo..hi]]
}

/// The lower triangle of Σ_c w_c a_c a_cᵀ over the columns of the three rows `a` (as long
/// as `w`), added to `block` (a Gram block is symmetric).
#[inline]
fn add_weighted_lower_products(block: &mut [[f64; 3]; 3], a: [&[f64]; 3], w: &[f64]) {
    let n = w.len();
    let (a0, a1, a2) = (&a[0][..n], &a[1][..n], &a[2][..n]);
    for c in 0..n {
        let (x0, x1, x2) = (a0[c], a1[c], a2[c]);
        let (y0, y1, y2) = (x0 * w[c], x1 * w[c], x2 * w[c]);
        block[0][0] += y0 * x0;
        block[1][0] += y1 * x0;
        block[1][1] += y1 * x1;
        block[2][0] += y2 * x0;
        block[2][1] += y2 * x1;
        block[2][2] += y2 * x2;
    }
}

/// The Cholesky factor L of a symmetric positive definite 3 × 3 matrix (its lower
/// triangle is read) and L⁻¹; None if a pivot is not positive.
fn cholesky3(a: &Mat3) -> Option<(Mat3, Mat3)> {
    let d0 = a[(0, 0)];
    if d0.is_nan() || d0 <= 0.0 {
        return None;
    }
    let l00 = d0.sqrt();
    let (l10, l20) = (a[(1, 0)] / l00, a[(2, 0)] / l00);
    let d1 = a[(1, 1)] - l10 * l10;
    if d1.is_nan() || d1 <= 0.0 {
        return None;
    }
    let l11 = d1.sqrt();
    let l21 = (a[(2, 1)] - l20 * l10) / l11;
    let d2 = a[(2, 2)] - l20 * l20 - l21 * l21;
    if d2.is_nan() || d2 <= 0.0 {
        return None;
    }
    let l22 = d2.sqrt();
    let l = Mat3::new(l00, 0.0, 0.0, l10, l11, 0.0, l20, l21, l22);
    // L⁻¹ of a lower triangular matrix, by forward substitution on the identity.
    let (i00, i11, i22) = (1.0 / l00, 1.0 / l11, 1.0 / l22);
    let i10 = -l10 * i00 * i11;
    let i21 = -l21 * i11 * i22;
    let i20 = -(l20 * i00 + l21 * i10) * i22;
    let inv = Mat3::new(i00, 0.0, 0.0, i10, i11, 0.0, i20, i21, i22);
    Some((l, inv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_3x3_factor_and_its_inverse() {
        let b = Mat3::new(2.0, 0.3, -0.1, 0.5, 1.5, 0.2, -0.4, 0.1, 1.1);
        let a = b * b.transpose();
        let (l, inv) = cholesky3(&a).unwrap();
        assert!((l * l.transpose() - a).norm() < 1e-14);
        assert!((l * inv - Mat3::identity()).norm() < 1e-14);
        assert!(l[(0, 1)] == 0.0 && l[(0, 2)] == 0.0 && l[(1, 2)] == 0.0);
        assert!(cholesky3(&Mat3::new(1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0)).is_none());
        assert!(cholesky3(&(Mat3::identity() * f64::NAN)).is_none());
    }
}
