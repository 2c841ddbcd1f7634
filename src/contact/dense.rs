//! Dense symmetric kernels for the contact solvers: the Cholesky factorization of
//! G + diag(d) (the augmented Delassus of seed 000 §III-E), solves with it, products with
//! G, and the power iteration for its largest eigenvalue.
//!
//! Matrices are n × n, symmetric, stored contiguously (row-major and column-major are the
//! same storage), in buffers sized once for the largest problem: nothing allocates after
//! construction. Up to [`SMALL`] rows a row-oriented Cholesky (contiguous dot products)
//! is fastest; above, faer's blocked factorization and triangular solves.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{LltParams, LltRegularization, cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::triangular_solve::{solve_lower_triangular_in_place, solve_upper_triangular_in_place};
use faer::{Par, Spec};

pub(crate) use crate::dynamics::dot;

/// Largest dimension (15 contacts) factored and solved by the row-oriented kernel; faer's
/// blocked LLT above. At 48 rows (the 4-cube stack) faer factors ~30 % faster; at 42
/// (solo12's 14 contacts, when its round feet touched at their hulls' facets) its single-vector solves, one per ADMM iteration, cost more than
/// it saves (callgrind, `examples/sim_timing`: 5 % fewer instructions with this kernel);
/// at 12 (a quadruped's feet) it is slower throughout.
pub const SMALL: usize = 45;

/// The factorization failed: pivot `index` was not positive (the matrix is not positive
/// definite, or holds a NaN).
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("matrix not positive definite (pivot {index})")]
pub struct NotPositiveDefinite {
    /// The failing pivot.
    pub index: usize,
}

/// Allocates, on the calling thread, the workspace of faer's large matrix products: the
/// blocked Cholesky beyond [`SMALL`] rows multiplies through private-gemm, whose
/// L3-sized buffer is a thread-local made on a thread's first product above nano-gemm's
/// 16³ multiply-adds. A real-time thread calls this before its allocations are counted
/// (two quadrupeds' legs pushed into each other made the node's loop allocate it mid-run).
pub fn warm_up_thread() {
    let a = faer::Mat::<f64>::identity(32, 32);
    let mut c = faer::Mat::<f64>::zeros(32, 32);
    faer::linalg::matmul::matmul(c.as_mut(), faer::Accum::Replace, a.as_ref(), a.as_ref(), 1.0, Par::Seq);
}

/// y = A·x for the n × n matrix `a` (rows contiguous).
#[inline]
pub fn mat_vec(a: &[f64], n: usize, x: &[f64], y: &mut [f64]) {
    for (i, yi) in y[..n].iter_mut().enumerate() {
        *yi = dot(&a[i * n..i * n + n], &x[..n]);
    }
}

/// Largest eigenvalue of A + diag(d), A the symmetric positive semi-definite n × n
/// matrix that `product` applies (y = A·x into its second argument: [`mat_vec`] on a
/// dense one, or a product by factors), or with `scale` = w of W A W + diag(d), W =
/// diag(w) (w > 0: the Lipschitz constant of a diagonally preconditioned problem without
/// forming it), by power iteration from `x` (overwritten with the eigenvector estimate):
/// at most `iterations` products, stopping when the estimate changes by less than 1e-6
/// relatively. `y` is scratch of length n.
pub fn largest_eigenvalue(
    mut product: impl FnMut(&[f64], &mut [f64]),
    scale: Option<&[f64]>,
    d: &[f64],
    n: usize,
    iterations: usize,
    x: &mut [f64],
    y: &mut [f64],
) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let norm = |v: &[f64]| dot(v, v).sqrt();
    let start = norm(&x[..n]);
    if !(start > 0.0 && start.is_finite()) {
        x[..n].fill(1.0);
    }
    let s = 1.0 / norm(&x[..n]);
    x[..n].iter_mut().for_each(|v| *v *= s);
    let mut estimate = 0.0;
    for _ in 0..iterations.max(1) {
        match scale {
            None => {
                product(&x[..n], &mut y[..n]);
                for i in 0..n {
                    y[i] += d[i] * x[i];
                }
            }
            Some(w) => {
                // y = W a (W x) + d x, with W x formed in x and undone.
                for i in 0..n {
                    x[i] *= w[i];
                }
                product(&x[..n], &mut y[..n]);
                for i in 0..n {
                    x[i] /= w[i];
                    y[i] = w[i] * y[i] + d[i] * x[i];
                }
            }
        }
        let l = norm(&y[..n]);
        if !(l > 0.0 && l.is_finite()) {
            return 0.0;
        }
        x[..n].iter_mut().zip(&y[..n]).for_each(|(xi, yi)| *xi = yi / l);
        let done = (l - estimate).abs() <= 1e-6 * l;
        estimate = l;
        if done {
            break;
        }
    }
    estimate
}

/// The four dot products a·c, a·d, b·c, b·d (slices of one length), sharing their loads.
#[inline]
fn dot4(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> [f64; 4] {
    let n = a.len();
    let (a, b, c, d) = (&a[..n], &b[..n], &c[..n], &d[..n]);
    let mut acc = [[0.0f64; 4]; 4];
    let mut k = 0;
    while k + 4 <= n {
        for t in 0..4 {
            acc[0][t] += a[k + t] * c[k + t];
            acc[1][t] += a[k + t] * d[k + t];
            acc[2][t] += b[k + t] * c[k + t];
            acc[3][t] += b[k + t] * d[k + t];
        }
        k += 4;
    }
    let mut s = acc.map(|x| (x[0] + x[2]) + (x[1] + x[3]));
    while k < n {
        s[0] += a[k] * c[k];
        s[1] += a[k] * d[k];
        s[2] += b[k] * c[k];
        s[3] += b[k] * d[k];
        k += 1;
    }
    s
}

/// Cholesky factor L (A = L·Lᵀ) of an n × n symmetric positive definite matrix, in a
/// buffer sized for `capacity` rows.
pub struct Cholesky {
    n: usize,
    /// Small path: L row-major, lower triangle (row i at i·n). Large path: faer's factor,
    /// column-major lower triangle.
    l: Vec<f64>,
    /// Small path: 1 / L[i][i].
    inv_diag: Vec<f64>,
    stack: MemBuffer,
}

impl std::fmt::Debug for Cholesky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cholesky").field("n", &self.n).finish_non_exhaustive()
    }
}

impl Cholesky {
    /// Buffers for matrices of up to `capacity` rows.
    pub fn with_capacity(capacity: usize) -> Self {
        let req = cholesky_in_place_scratch::<f64>(capacity.max(1), Par::Seq, Spec::<LltParams, f64>::default());
        let c = Self {
            n: 0,
            l: Vec::with_capacity(capacity * capacity),
            inv_diag: Vec::with_capacity(capacity),
            stack: MemBuffer::new(req),
        };
        if capacity > SMALL {
            // For a solver used on the thread that sized it; a loop thread runs this itself.
            warm_up_thread();
        }
        c
    }

    /// Largest dimension the buffers hold.
    pub fn capacity(&self) -> usize {
        self.inv_diag.capacity()
    }

    /// Rows of the factored matrix.
    pub fn dim(&self) -> usize {
        self.n
    }

    /// The smallest diagonal entry of the factor L over its largest (1 for an empty
    /// matrix): κ(A) ≥ 1/ratio², a cheap test of near-singularity.
    pub fn pivot_ratio(&self) -> f64 {
        let n = self.n;
        let (lo, hi) =
            (0..n).map(|i| self.l[i * n + i]).fold((f64::INFINITY, 0.0f64), |(lo, hi), d| (lo.min(d), hi.max(d)));
        if n == 0 { 1.0 } else { lo / hi }
    }

    /// Factors A = G + diag(d) for the n × n symmetric `g` (rows contiguous). Errors if A
    /// is not positive definite; the factor is then unusable.
    pub fn factor(&mut self, g: &[f64], d: &[f64], n: usize) -> Result<(), NotPositiveDefinite> {
        assert!(n * n <= self.l.capacity(), "Cholesky capacity exceeded ({n} rows)");
        self.n = n;
        self.l.clear();
        self.l.extend_from_slice(&g[..n * n]);
        for i in 0..n {
            self.l[i * n + i] += d[i];
        }
        if n <= SMALL {
            self.factor_small()
        } else {
            let a = faer::MatMut::from_column_major_slice_mut(&mut self.l[..], n, n);
            let stack = MemStack::new(&mut self.stack);
            cholesky_in_place(a, LltRegularization::default(), Par::Seq, stack, Spec::default()).map(|_| ()).map_err(
                |e| match e {
                    faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index } => {
                        NotPositiveDefinite { index }
                    }
                },
            )
        }
    }

    /// Cholesky–Banachiewicz by 2 × 2 blocks: L[i][j] = (A[i][j] − L[i][..j]·L[j][..j]) /
    /// L[j][j] for rows (i, i+1) and columns (j, j+1) at once. The four dot products share
    /// their loads and are independent of each other: one dot product at a time is bound
    /// by its latency and the loads, and took 1.3× as long at 42 rows.
    fn factor_small(&mut self) -> Result<(), NotPositiveDefinite> {
        let n = self.n;
        self.inv_diag.clear();
        self.inv_diag.resize(n, 0.0);
        factor_small(n, &mut self.l, &mut self.inv_diag)
    }
}

/// The small-path factorization of `l` (A on entry, L row-major on return,
/// 1/L[i][i] into `inv`): see [`Cholesky::factor_small`].
fn factor_small(n: usize, l: &mut [f64], inv: &mut [f64]) -> Result<(), NotPositiveDefinite> {
    {
        for i0 in (0..n).step_by(2) {
            let pair = i0 + 1 < n;
            let i1 = if pair { i0 + 1 } else { i0 };
            for j0 in (0..i0).step_by(2) {
                let j1 = j0 + 1;
                let [s00, s01, s10, s11] = dot4(
                    &l[i0 * n..i0 * n + j0],
                    &l[i1 * n..i1 * n + j0],
                    &l[j0 * n..j0 * n + j0],
                    &l[j1 * n..j1 * n + j0],
                );
                let l_j1j0 = l[j1 * n + j0];
                let a = (l[i0 * n + j0] - s00) * inv[j0];
                l[i0 * n + j0] = a;
                l[i0 * n + j1] = (l[i0 * n + j1] - s01 - a * l_j1j0) * inv[j1];
                if pair {
                    let b = (l[i1 * n + j0] - s10) * inv[j0];
                    l[i1 * n + j0] = b;
                    l[i1 * n + j1] = (l[i1 * n + j1] - s11 - b * l_j1j0) * inv[j1];
                }
            }
            let [s00, _, s10, s11] = dot4(
                &l[i0 * n..i0 * n + i0],
                &l[i1 * n..i1 * n + i0],
                &l[i0 * n..i0 * n + i0],
                &l[i1 * n..i1 * n + i0],
            );
            let d0 = l[i0 * n + i0] - s00;
            if d0.is_nan() || d0 <= 0.0 {
                return Err(NotPositiveDefinite { index: i0 });
            }
            let d0 = d0.sqrt();
            l[i0 * n + i0] = d0;
            inv[i0] = 1.0 / d0;
            if pair {
                let b = (l[i1 * n + i0] - s10) * inv[i0];
                l[i1 * n + i0] = b;
                let d1 = l[i1 * n + i1] - s11 - b * b;
                if d1.is_nan() || d1 <= 0.0 {
                    return Err(NotPositiveDefinite { index: i1 });
                }
                let d1 = d1.sqrt();
                l[i1 * n + i1] = d1;
                inv[i1] = 1.0 / d1;
            }
        }
        Ok(())
    }
}

/// Forward substitution by dot products with L's rows, backward by contiguous updates
/// with them: no transposed copy of L to build per factorization (it cost as much as the
/// factorization's dot products at 12 rows).
#[inline]
fn solve_small(n: usize, l: &[f64], inv: &[f64], x: &mut [f64]) {
    // L·y = b, row by row: y[i] = (b[i] − L[i][..i]·y[..i]) / L[i][i].
    for i in 0..n {
        x[i] = (x[i] - dot(&l[i * n..i * n + i], &x[..i])) * inv[i];
    }
    // Lᵀ·x = y, from the last row: each solved x[i] leaves row i of L.
    for i in (0..n).rev() {
        x[i] *= inv[i];
        let xi = x[i];
        for (xk, lk) in x[..i].iter_mut().zip(&l[i * n..i * n + i]) {
            *xk -= lk * xi;
        }
    }
}

impl Cholesky {
    /// Solves A·x = b in place (`x` holds b).
    pub fn solve(&self, x: &mut [f64]) {
        let n = self.n;
        if n <= SMALL {
            solve_small(n, &self.l, &self.inv_diag, x)
        } else {
            let l = faer::MatRef::from_column_major_slice(&self.l[..], n, n);
            let rhs = faer::MatMut::from_column_major_slice_mut(&mut x[..n], n, 1);
            solve_lower_triangular_in_place(l, rhs, Par::Seq);
            let rhs = faer::MatMut::from_column_major_slice_mut(&mut x[..n], n, 1);
            solve_upper_triangular_in_place(l.transpose(), rhs, Par::Seq);
        }
    }
}

/// LU factorization with partial pivoting (P·A = L·U) of a general n × n matrix, in a
/// buffer sized for `capacity` rows: for the nonsymmetric Newton systems of the active-set
/// polish ([`super::polish`]), whose sliding rows break G's symmetry.
#[derive(Debug)]
pub struct Lu {
    n: usize,
    /// L (unit lower, below the diagonal) and U (on and above), row-major.
    lu: Vec<f64>,
    /// Row i of the factor is row `perm[i]` of A.
    perm: Vec<usize>,
}

/// The LU factorization met a pivot that is zero or not finite (A singular, or holding a
/// NaN): the factor is unusable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("matrix singular (pivot {index})")]
pub struct Singular {
    /// The failing pivot.
    pub index: usize,
}

impl Lu {
    /// Buffers for matrices of up to `capacity` rows.
    pub fn with_capacity(capacity: usize) -> Self {
        Self { n: 0, lu: Vec::with_capacity(capacity * capacity), perm: Vec::with_capacity(capacity) }
    }

    /// Factors the n × n `a` (rows contiguous), Doolittle with row pivoting: the largest
    /// entry of the column below the diagonal is the pivot.
    pub fn factor(&mut self, a: &[f64], n: usize) -> Result<(), Singular> {
        assert!(n * n <= self.lu.capacity(), "LU capacity exceeded ({n} rows)");
        self.n = n;
        self.lu.clear();
        self.lu.extend_from_slice(&a[..n * n]);
        self.perm.clear();
        self.perm.extend(0..n);
        let lu = &mut self.lu;
        for k in 0..n {
            let p = (k..n).fold(k, |p, i| if lu[i * n + k].abs() > lu[p * n + k].abs() { i } else { p });
            let pivot = lu[p * n + k];
            if pivot == 0.0 || !pivot.is_finite() {
                return Err(Singular { index: k });
            }
            if p != k {
                for c in 0..n {
                    lu.swap(k * n + c, p * n + c);
                }
                self.perm.swap(k, p);
            }
            let inv = 1.0 / pivot;
            for i in k + 1..n {
                let factor = lu[i * n + k] * inv;
                lu[i * n + k] = factor;
                if factor != 0.0 {
                    let (upper, lower) = lu.split_at_mut(i * n);
                    let row_k = &upper[k * n + k + 1..k * n + n];
                    for (x, u) in lower[k + 1..n].iter_mut().zip(row_k) {
                        *x -= factor * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// The smallest |pivot| of U over its largest (1 for an empty matrix): a cheap test of
    /// near-singularity.
    pub fn pivot_ratio(&self) -> f64 {
        let n = self.n;
        let (lo, hi) = (0..n)
            .map(|i| self.lu[i * n + i].abs())
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), d| (lo.min(d), hi.max(d)));
        if n == 0 { 1.0 } else { lo / hi }
    }

    /// Solves A·x = b: `b` in, x out through `x` (both n long).
    pub fn solve(&self, b: &[f64], x: &mut [f64]) {
        let (n, lu) = (self.n, &self.lu);
        for i in 0..n {
            x[i] = b[self.perm[i]] - dot(&lu[i * n..i * n + i], &x[..i]);
        }
        for i in (0..n).rev() {
            let s = dot(&lu[i * n + i + 1..i * n + n], &x[i + 1..n]);
            x[i] = (x[i] - s) / lu[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LU with pivoting solves a nonsymmetric system whose first pivot is zero.
    #[test]
    fn lu_solves_a_nonsymmetric_system_that_needs_pivoting() {
        let a = [0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, -1.0, 4.0];
        let x_true = [1.0, -2.0, 0.5];
        let mut b = [0.0; 3];
        for i in 0..3 {
            b[i] = (0..3).map(|j| a[i * 3 + j] * x_true[j]).sum();
        }
        let mut lu = Lu::with_capacity(3);
        lu.factor(&a, 3).unwrap();
        let mut x = [0.0; 3];
        lu.solve(&b, &mut x);
        for (x, t) in x.iter().zip(x_true) {
            assert!((x - t).abs() < 1e-14, "{x} against {t}");
        }
        assert_eq!(lu.factor(&[1.0, 2.0, 2.0, 4.0], 2), Err(Singular { index: 1 }));
    }

    /// A random SPD matrix B·Bᵀ + n·I/10 (deterministic).
    fn spd(n: usize, seed: u64) -> Vec<f64> {
        let mut uniform = crate::sampling::uniform(seed);
        let mut next = move || 0.5 * uniform(); // [−0.5, 0.5)
        let b: Vec<f64> = (0..n * n).map(|_| next()).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| b[i * n + k] * b[j * n + k]).sum::<f64>();
            }
            a[i * n + i] += 0.1 * n as f64;
        }
        a
    }

    #[test]
    fn solves_match_the_matrix_on_both_paths() {
        for n in [1, 3, 12, 48, SMALL, SMALL + 1, 180] {
            let a = spd(n, n as u64 * 7919);
            let d: Vec<f64> = (0..n).map(|i| 1e-3 * i as f64).collect();
            let mut c = Cholesky::with_capacity(200);
            c.factor(&a, &d, n).unwrap();
            let x_true: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
            let mut b = vec![0.0; n];
            mat_vec(&a, n, &x_true, &mut b);
            for i in 0..n {
                b[i] += d[i] * x_true[i];
            }
            c.solve(&mut b);
            let err = b.iter().zip(&x_true).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
            assert!(err < 1e-10, "n = {n}: {err}");
        }
    }

    #[test]
    fn an_indefinite_matrix_is_refused() {
        let a = [1.0, 2.0, 2.0, 1.0];
        let mut c = Cholesky::with_capacity(2);
        assert_eq!(c.factor(&a, &[0.0, 0.0], 2), Err(NotPositiveDefinite { index: 1 }));
        let big = vec![0.0; 100 * 100];
        let mut c = Cholesky::with_capacity(100);
        assert!(c.factor(&big, &[0.0; 100], 100).is_err());
    }

    #[test]
    fn power_iteration_finds_the_largest_eigenvalue() {
        // diag(1, 2, 3) rotated: eigenvalues 1, 2, 3 (+ d = 0.5).
        let (c, s) = (0.6f64, 0.8f64);
        let q = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let e = [1.0, 2.0, 3.0];
        let mut a = vec![0.0; 9];
        for i in 0..3 {
            for j in 0..3 {
                a[i * 3 + j] = (0..3).map(|k| q[i][k] * e[k] * q[j][k]).sum();
            }
        }
        let (mut x, mut y) = (vec![0.0; 3], vec![0.0; 3]);
        let l = largest_eigenvalue(|x, y| mat_vec(&a, 3, x, y), None, &[0.5; 3], 3, 200, &mut x, &mut y);
        assert!((l - 3.5).abs() < 1e-5, "{l}");
    }

    #[test]
    fn the_scaled_power_iteration_finds_the_scaled_matrix_s_largest_eigenvalue() {
        // W a W + diag(d) with a = [[2, 1], [1, 2]], W = diag(1, 1/2), d = (0, 0):
        // [[2, 1/2], [1/2, 1/2]], eigenvalues (5 ± √13)/4.
        let a = [2.0, 1.0, 1.0, 2.0];
        let (mut x, mut y) = (vec![0.0; 2], vec![0.0; 2]);
        let l = largest_eigenvalue(|x, y| mat_vec(&a, 2, x, y), Some(&[1.0, 0.5]), &[0.0, 0.0], 2, 200, &mut x, &mut y);
        let exact = (5.0 + 13f64.sqrt()) / 4.0;
        assert!((l - exact).abs() < 1e-6, "{l} against {exact}");
    }
}
