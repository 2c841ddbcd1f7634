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

use super::dense::{Cholesky, NotPositiveDefinite, dot};
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
        // K − I = Σ_r w_r w_rᵀ / s_r over each row's span (lower triangle).
        self.k.clear();
        self.k.resize(nw * nw, 0.0);
        for (r, inv) in self.inv_s.iter().enumerate() {
            let (lo, hi) = problem.factor_spans()[r / 3];
            let wr = &w[r * nw..r * nw + nw];
            for i in lo..hi {
                let wi = wr[i] * inv;
                if wi != 0.0 {
                    for (kij, wj) in self.k[i * nw + lo..i * nw + i + 1].iter_mut().zip(&wr[lo..=i]) {
                        *kij += wi * wj;
                    }
                }
            }
        }
        for i in 0..nw {
            for j in 0..i {
                self.k[j * nw + i] = self.k[i * nw + j];
            }
        }
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
        let m = 3 * problem.contacts();
        // t = S⁻¹ b; u = Wᵀ t; u ← K⁻¹ u; x = t − S⁻¹ W u.
        self.u.fill(0.0);
        for r in 0..m {
            x[r] *= self.inv_s[r];
            let (lo, hi) = problem.factor_spans()[r / 3];
            let t = x[r];
            for (uk, wk) in self.u[lo..hi].iter_mut().zip(&w[r * nw + lo..r * nw + hi]) {
                *uk += t * wk;
            }
        }
        self.capacitance.solve(&mut self.u);
        for r in 0..m {
            let (lo, hi) = problem.factor_spans()[r / 3];
            x[r] -= self.inv_s[r] * dot(&w[r * nw + lo..r * nw + hi], &self.u[lo..hi]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Woodbury path solves the same system as the dense Cholesky, with zero blocks
    /// outside the spans as an assembled problem has them.
    #[test]
    fn the_low_rank_path_agrees_with_the_dense_one() {
        let (n, nw) = (4, 7);
        let m = 3 * n;
        let spans = [(0, 5), (0, 7), (2, 6), (5, 7)];
        let mut w = vec![0.0; m * nw];
        for r in 0..m {
            let (lo, hi) = spans[r / 3];
            for c in lo..hi {
                w[r * nw + c] = ((r * 7 + c * 3) as f64 * 0.91).sin();
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
        problem.spans = spans.to_vec();
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
