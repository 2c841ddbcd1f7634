//! The Cholesky factor of a symmetric positive definite matrix stored by its envelope
//! (its profile, or skyline): row i holds the columns from `first[i]`, its first
//! non-zero, to the diagonal. The factor L = chol(A) has the same envelope (George & Liu,
//! *Computer Solution of Large Sparse Positive Definite Systems*, 1981, §4.2), so it is
//! computed in place, with no fill outside it.
//!
//! It is the capacitance K = I + Wᵀ S⁻¹ W of [`super::delassus`] for a large island of
//! free bodies: a contact couples only the dofs of the bodies it touches, and the island's
//! columns come in the order its bodies were met, so a tower or a row of boxes is a band
//! of two bodies' width. Factoring it costs Σ_i (i − first_i)² / 2 instead of n³/6 (the
//! tower of 140 boxes of tests/sim_islands.rs: 840 columns, band 12).
//!
//! Rows are packed one after the other in a buffer sized once; nothing allocates after
//! construction.

use super::dense::{NotPositiveDefinite, dot};

/// A symmetric positive definite matrix by its envelope, then its Cholesky factor there.
#[derive(Clone, Debug)]
pub struct Envelope {
    n: usize,
    /// The first column of each row's envelope (≤ the row).
    first: Vec<usize>,
    /// Where each row's entries start in `values`; `start[n]` is their count.
    start: Vec<usize>,
    /// Rows of the lower triangle over their envelopes, A's then L's.
    values: Vec<f64>,
}

impl Envelope {
    /// Room for matrices of up to `rows` rows whose envelope holds up to `entries` values
    /// (at most rows·(rows + 1)/2: the whole lower triangle).
    pub fn with_capacity(rows: usize, entries: usize) -> Self {
        Self {
            n: 0,
            first: Vec::with_capacity(rows),
            start: Vec::with_capacity(rows + 1),
            values: Vec::with_capacity(entries),
        }
    }

    /// Starts an n × n matrix: every row's envelope is its diagonal until
    /// [`Envelope::widen`] reaches further.
    pub fn begin(&mut self, n: usize) {
        self.n = n;
        self.first.clear();
        self.first.extend(0..n);
    }

    /// Row `row` has a non-zero in column `col` (≤ `row`).
    #[inline]
    pub fn widen(&mut self, row: usize, col: usize) {
        let f = &mut self.first[row];
        *f = (*f).min(col);
    }

    /// The number of values the envelope of the rows so far holds.
    pub fn entries(&self) -> usize {
        self.first.iter().enumerate().map(|(i, &f)| i - f + 1).sum()
    }

    /// Lays the envelope out, zeroed, with `diagonal` on the diagonal: false (nothing
    /// laid out) when it holds more values than the buffer's capacity.
    pub fn lay_out(&mut self, diagonal: &[f64]) -> bool {
        if self.entries() > self.values.capacity() {
            return false;
        }
        self.start.clear();
        self.values.clear();
        for i in 0..self.n {
            self.start.push(self.values.len());
            self.values.resize(self.values.len() + i - self.first[i], 0.0);
            self.values.push(diagonal[i]);
        }
        self.start.push(self.values.len());
        true
    }

    /// The index in `values` of entry (row, col) minus col, for the rows laid out: entry
    /// (row, c) is at `base(row) + c` for c in the row's envelope (wrapping arithmetic:
    /// the base itself may be "negative").
    #[inline]
    fn base(&self, row: usize) -> usize {
        self.start[row].wrapping_sub(self.first[row])
    }

    /// The values laid out, and where entry (row, col) is among them: `base(row) + col`
    /// (wrapping), for the columns of the row's envelope.
    pub fn values_and_bases(&mut self) -> (&mut [f64], impl Fn(usize) -> usize + '_) {
        let (first, start) = (&self.first, &self.start);
        (&mut self.values[..], move |row: usize| start[row].wrapping_sub(first[row]))
    }

    /// Factors the matrix laid out and filled in place, A = L·Lᵀ, row by row
    /// (Cholesky–Banachiewicz): L_ij = (A_ij − Σ_k L_ik L_jk) / L_jj over the columns k
    /// both rows' envelopes hold.
    pub fn factor(&mut self) -> Result<(), NotPositiveDefinite> {
        for i in 0..self.n {
            let (fi, bi) = (self.first[i], self.base(i));
            for j in fi..=i {
                let (fj, bj) = (self.first[j], self.base(j));
                let lo = fi.max(fj);
                let s = dot(
                    &self.values[bi.wrapping_add(lo)..bi.wrapping_add(j)],
                    &self.values[bj.wrapping_add(lo)..bj.wrapping_add(j)],
                );
                let a = self.values[bi.wrapping_add(j)] - s;
                if j < i {
                    self.values[bi.wrapping_add(j)] = a / self.values[bj.wrapping_add(j)];
                } else if a > 0.0 && a.is_finite() {
                    self.values[bi.wrapping_add(i)] = a.sqrt();
                } else {
                    return Err(NotPositiveDefinite { index: i });
                }
            }
        }
        Ok(())
    }

    /// Solves A·x = b in place (`x` holds b) with the factor: L·y = b by rows, then
    /// Lᵀ·x = y by columns of L (its rows again).
    pub fn solve(&self, x: &mut [f64]) {
        for i in 0..self.n {
            let (fi, bi) = (self.first[i], self.base(i));
            let s = dot(&self.values[bi.wrapping_add(fi)..bi.wrapping_add(i)], &x[fi..i]);
            x[i] = (x[i] - s) / self.values[bi.wrapping_add(i)];
        }
        for i in (0..self.n).rev() {
            let (fi, bi) = (self.first[i], self.base(i));
            let xi = x[i] / self.values[bi.wrapping_add(i)];
            x[i] = xi;
            for (xk, l) in x[fi..i].iter_mut().zip(&self.values[bi.wrapping_add(fi)..bi.wrapping_add(i)]) {
                *xk -= l * xi;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::dense::Cholesky;
    use super::*;

    /// A banded matrix with a few longer rows, by its envelope: the same solution as the
    /// dense Cholesky of the same matrix, and it refuses a matrix that is not positive
    /// definite.
    #[test]
    fn the_envelope_factor_solves_as_the_dense_one() {
        let n = 30;
        // Row i reaches back 3 columns, every seventh row to column 0.
        let first = |i: usize| if i % 7 == 6 { 0 } else { i.saturating_sub(3) };
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in first(i)..i {
                let v = ((i * 31 + j * 17) as f64 * 0.37).sin();
                a[i * n + j] = v;
                a[j * n + i] = v;
            }
            a[i * n + i] = 8.0 + (i as f64).cos();
        }
        let mut envelope = Envelope::with_capacity(n, n * (n + 1) / 2);
        envelope.begin(n);
        for i in 0..n {
            envelope.widen(i, first(i));
        }
        let diagonal: Vec<f64> = (0..n).map(|i| a[i * n + i]).collect();
        assert!(envelope.lay_out(&diagonal));
        {
            let (values, base) = envelope.values_and_bases();
            for i in 0..n {
                for j in first(i)..i {
                    values[base(i).wrapping_add(j)] = a[i * n + j];
                }
            }
        }
        envelope.factor().unwrap();
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).sin()).collect();
        let mut x = b.clone();
        envelope.solve(&mut x);

        let mut dense = Cholesky::with_capacity(n);
        dense.factor(&a, &vec![0.0; n], n).unwrap();
        let mut y = b.clone();
        dense.solve(&mut y);
        let gap = x.iter().zip(&y).fold(0.0f64, |g, (p, q)| g.max((p - q).abs()));
        assert!(gap < 1e-14, "envelope against dense: {gap:.2e}");

        // Not positive definite: a negative diagonal entry fails at its row.
        let mut bad = Envelope::with_capacity(3, 6);
        bad.begin(3);
        assert!(bad.lay_out(&[1.0, -1.0, 1.0]));
        assert_eq!(bad.factor(), Err(NotPositiveDefinite { index: 1 }));
        // More entries than the capacity: refused, not grown.
        let mut small = Envelope::with_capacity(3, 4);
        small.begin(3);
        small.widen(2, 0);
        small.widen(1, 0);
        assert!(!small.lay_out(&[1.0; 3]));
    }
}
