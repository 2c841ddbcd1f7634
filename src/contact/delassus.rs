//! Solves with the augmented Delassus matrix of the ADMM's f-step (seed 000 eq. 37),
//! A = G + diag(s), s = R + η + ρ, either way round:
//!
//! - dense: the Cholesky factor of the 3n_c × 3n_c matrix A ([`Cholesky`]);
//! - low rank: when the problem carries G = W·Wᵀ with W of n_w < 3n_c columns (a robot
//!   standing on many contact points: solo12 has 42 contact rows and 18 dofs), by the
//!   Woodbury identity
//!
//! ```text
//! A⁻¹ = S⁻¹ − S⁻¹ W K⁻¹ Wᵀ S⁻¹,     K = I + Wᵀ S⁻¹ W   (n_w × n_w, SPD, ⪰ I)
//! ```
//!
//! so a change of ρ refactors K (n_w³/6 plus the sparse Wᵀ S⁻¹ W) instead of A
//! ((3n_c)³/6). This is the joint-space side of the same problem — MuJoCo's solvers work
//! there for the same reason. A solve costs about the same either way.
//!
//! Buffers are sized once; nothing allocates after construction.

use super::dense::{Cholesky, NotPositiveDefinite};
use super::problem::ContactProblem;

/// A = G + diag(s), factored one of the two ways.
#[derive(Debug)]
pub struct AugmentedDelassus {
    dense: Cholesky,
    capacitance: Cholesky,
    /// K (n_w × n_w, lower triangle filled then mirrored).
    k: Vec<f64>,
    /// 1/s.
    inv_s: Vec<f64>,
    /// Wᵀ S⁻¹ b (n_w).
    u: Vec<f64>,
    /// The identity's diagonal, added to Wᵀ S⁻¹ W.
    ones: Vec<f64>,
    low_rank: bool,
}

impl AugmentedDelassus {
    /// Room for `rows` = 3 n_c rows (the low-rank path is used only with fewer columns).
    pub fn with_capacity(rows: usize) -> Self {
        Self {
            dense: Cholesky::with_capacity(rows),
            capacitance: Cholesky::with_capacity(rows),
            k: Vec::with_capacity(rows * rows),
            inv_s: Vec::with_capacity(rows),
            u: Vec::with_capacity(rows),
            ones: vec![1.0; rows],
            low_rank: false,
        }
    }

    /// Whether the last factorization took the low-rank path.
    pub fn is_low_rank(&self) -> bool {
        self.low_rank
    }

    /// Factors G + diag(s) of `problem`.
    pub fn factor(&mut self, problem: &ContactProblem, s: &[f64]) -> Result<(), NotPositiveDefinite> {
        let m = 3 * problem.contacts();
        self.low_rank = false;
        let Some((w, nw)) = problem.delassus_factor().filter(|&(_, nw)| nw < m) else {
            return self.dense.factor(problem.delassus(), s, m);
        };
        self.inv_s.clear();
        for &x in &s[..m] {
            if x.is_nan() || x <= 0.0 {
                return Err(NotPositiveDefinite { index: self.inv_s.len() });
            }
            self.inv_s.push(1.0 / x);
        }
        // K − I = Σ_r w_r w_rᵀ / s_r, a contact's three rows at a time over its support
        // (lower triangle: for each column c of a run, the columns d ≤ c of the runs up to
        // it).
        self.k.clear();
        self.k.resize(nw * nw, 0.0);
        for i in 0..problem.contacts() {
            let s = &self.inv_s[3 * i..3 * i + 3];
            add_gram(&mut self.k, nw, rows(w, nw, i), [s[0], s[1], s[2]], problem.factor_support(i));
        }
        mirror_lower(&mut self.k, nw);
        self.capacitance.factor(&self.k, &self.ones[..nw], nw)?;
        self.u.clear();
        self.u.resize(nw, 0.0);
        self.low_rank = true;
        Ok(())
    }

    /// Solves A·x = b in place (`x` holds b), with the factors of the last
    /// [`AugmentedDelassus::factor`] of the same `problem`.
    pub fn solve(&mut self, problem: &ContactProblem, x: &mut [f64]) {
        if !self.low_rank {
            self.dense.solve(x);
            return;
        }
        let Some((w, nw)) = problem.delassus_factor() else { return };
        // t = S⁻¹ b; u = Wᵀ t; u ← K⁻¹ u; x = t − S⁻¹ W u, a contact's three rows at a
        // time over its support.
        self.u.fill(0.0);
        for i in 0..problem.contacts() {
            let [w0, w1, w2] = rows(w, nw, i);
            let s = &self.inv_s[3 * i..3 * i + 3];
            let t = &mut x[3 * i..3 * i + 3];
            let (t0, t1, t2) = (t[0] * s[0], t[1] * s[1], t[2] * s[2]);
            t.copy_from_slice(&[t0, t1, t2]);
            for &(lo, hi) in problem.factor_support(i) {
                let u = &mut self.u[lo..hi];
                let n = u.len();
                let (a0, a1, a2) = (&w0[lo..lo + n], &w1[lo..lo + n], &w2[lo..lo + n]);
                for c in 0..n {
                    u[c] += t0 * a0[c] + t1 * a1[c] + t2 * a2[c];
                }
            }
        }
        self.capacitance.solve(&mut self.u);
        for i in 0..problem.contacts() {
            let [w0, w1, w2] = rows(w, nw, i);
            let mut d = [0.0; 3];
            for &(lo, hi) in problem.factor_support(i) {
                let u = &self.u[lo..hi];
                let n = u.len();
                let (a0, a1, a2) = (&w0[lo..lo + n], &w1[lo..lo + n], &w2[lo..lo + n]);
                for c in 0..n {
                    d[0] += a0[c] * u[c];
                    d[1] += a1[c] * u[c];
                    d[2] += a2[c] * u[c];
                }
            }
            for a in 0..3 {
                x[3 * i + a] -= self.inv_s[3 * i + a] * d[a];
            }
        }
    }
}

/// Adds Σ_r s_r w_r w_rᵀ over the three rows `w` of a contact (of W, `nw` columns) to the
/// lower triangle of `k` (nw × nw, rows contiguous), on the contact's `support` only: for
/// each column c of a run, the columns d ≤ c of the runs up to it. A row of weight 0
/// adds nothing.
#[inline]
pub(super) fn add_gram(k: &mut [f64], nw: usize, w: [&[f64]; 3], s: [f64; 3], support: &[(usize, usize)]) {
    let [w0, w1, w2] = w;
    for (a, &(lo, hi)) in support.iter().enumerate() {
        for c in lo..hi {
            let (x0, x1, x2) = (w0[c] * s[0], w1[c] * s[1], w2[c] * s[2]);
            if x0 == 0.0 && x1 == 0.0 && x2 == 0.0 {
                continue;
            }
            let k_row = &mut k[c * nw..c * nw + c + 1];
            for &(blo, bhi) in &support[..=a] {
                let bhi = bhi.min(c + 1);
                for (((kd, y0), y1), y2) in
                    k_row[blo..bhi].iter_mut().zip(&w0[blo..bhi]).zip(&w1[blo..bhi]).zip(&w2[blo..bhi])
                {
                    *kd += x0 * y0 + x1 * y1 + x2 * y2;
                }
            }
        }
    }
}

/// The upper triangle of the n × n `k` (rows contiguous) copied from its lower one.
pub(super) fn mirror_lower(k: &mut [f64], n: usize) {
    for i in 0..n {
        for j in 0..i {
            k[j * n + i] = k[i * n + j];
        }
    }
}

/// The three rows of W (of `nw` columns) of contact `i`.
#[inline]
pub(super) fn rows(w: &[f64], nw: usize, i: usize) -> [&[f64]; 3] {
    let at = 3 * i * nw;
    [&w[at..at + nw], &w[at + nw..at + 2 * nw], &w[at + 2 * nw..at + 3 * nw]]
}

#[cfg(test)]
mod tests {
    use super::super::dense::dot;
    use super::*;

    /// The Woodbury path solves the same system as the dense Cholesky, with zero blocks
    /// outside the supports as an assembled problem has them (runs with gaps included).
    #[test]
    fn the_low_rank_path_agrees_with_the_dense_one() {
        let (n, nw) = (4, 7);
        let m = 3 * n;
        let supports = [vec![(0, 5)], vec![(0, 2), (3, 7)], vec![(2, 6)], vec![(0, 1), (5, 7)]];
        let mut w = vec![0.0; m * nw];
        for r in 0..m {
            for &(lo, hi) in &supports[r / 3] {
                for c in lo..hi {
                    w[r * nw + c] = ((r * 7 + c * 3) as f64 * 0.91).sin();
                }
            }
        }
        let g: Vec<Vec<f64>> =
            (0..m).map(|a| (0..m).map(|b| dot(&w[a * nw..a * nw + nw], &w[b * nw..b * nw + nw])).collect()).collect();
        let mut problem = ContactProblem::from_dense(&g, &vec![0.0; m], &[0.5; 4], &[]).unwrap();
        let s: Vec<f64> = (0..m).map(|i| 1e-3 + 0.1 * i as f64).collect();
        let b: Vec<f64> = (0..m).map(|i| (i as f64).cos()).collect();

        let mut dense = AugmentedDelassus::with_capacity(m);
        dense.factor(&problem, &s).unwrap();
        assert!(!dense.is_low_rank());
        let mut x_dense = b.clone();
        dense.solve(&problem, &mut x_dense);

        problem.factor = w;
        problem.factor_cols = nw;
        for support in supports {
            problem.push_support(support);
        }
        let mut low = AugmentedDelassus::with_capacity(m);
        low.factor(&problem, &s).unwrap();
        assert!(low.is_low_rank());
        let mut x_low = b.clone();
        low.solve(&problem, &mut x_low);

        let mut back = vec![0.0; m];
        problem.contact_velocity(&x_low, &mut back);
        for i in 0..m {
            assert!((x_low[i] - x_dense[i]).abs() < 1e-9, "{i}: {} vs {}", x_low[i], x_dense[i]);
            assert!((back[i] + s[i] * x_low[i] - b[i]).abs() < 1e-9, "residual {i}");
        }
    }
}
