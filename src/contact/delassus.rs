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
//! there for the same reason. A solve costs about the same either way. A problem
//! without G (beyond [`super::problem::ContactProblem::dense_up_to`]) takes this path
//! whatever n_w.
//!
//! K is dense up to [`ENVELOPE_COLUMNS`] columns (a robot's dofs) and stored and factored
//! by its envelope beyond ([`Envelope`]: a large island of free bodies, whose K is a band
//! when its bodies come in the order they touch).
//!
//! Buffers are sized once ([`AugmentedDelassus::with_sizing`]); nothing allocates after
//! construction.

use super::dense::{Cholesky, NotPositiveDefinite};
use super::envelope::Envelope;
use super::problem::ContactProblem;
use super::solver::SolveError;

/// The way the augmented Delassus matrix is factored.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Path {
    /// The Cholesky factor of G + diag(s).
    Dense,
    /// The capacitance K of the Woodbury identity.
    LowRank,
}

/// The most columns of W for which K is always dense (the largest robot of the test
/// data, talos, has 38 dofs); beyond, K is stored and factored by its envelope when that
/// holds at most a quarter of its lower triangle (free bodies in the order they touch),
/// and always beyond [`DENSE_K_COLUMNS`]. A robot's K is full (every contact's rows
/// reach the floating base's or the root's columns): dense, by faer's blocked Cholesky.
pub const ENVELOPE_COLUMNS: usize = 96;

/// The most columns of W for which K may be dense (8 MB; the cable of 300 beads of
/// scripts/cable.py has 601).
pub const DENSE_K_COLUMNS: usize = 1024;

/// A = G + diag(s), factored one of the two ways.
#[derive(Debug)]
pub struct AugmentedDelassus {
    dense: Cholesky,
    capacitance: Cholesky,
    /// K by its envelope, beyond [`ENVELOPE_COLUMNS`] columns.
    envelope: Envelope,
    /// Whether the last low-rank factorization was by the envelope.
    by_envelope: bool,
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
        Self::with_sizing(rows, rows, rows)
    }

    /// Room for `rows` = 3 n_c rows, W of up to `cols` columns (K dense up to
    /// [`ENVELOPE_COLUMNS`]², by its envelope beyond: at most its lower triangle), and G
    /// of up to `dense` rows (the dense factor is `dense`²): a problem assembled from
    /// bodies whose G is built only up to `dense` rows.
    pub fn with_sizing(rows: usize, cols: usize, dense: usize) -> Self {
        let dense = dense.min(rows);
        let small = cols.min(DENSE_K_COLUMNS);
        let wide = if cols > ENVELOPE_COLUMNS { cols } else { 0 };
        Self {
            dense: Cholesky::with_capacity(dense),
            capacitance: Cholesky::with_capacity(small),
            envelope: Envelope::with_capacity(wide, wide * (wide + 1) / 2),
            by_envelope: false,
            k: Vec::with_capacity(small * small),
            inv_s: Vec::with_capacity(rows),
            u: Vec::with_capacity(cols),
            ones: vec![1.0; cols],
            low_rank: false,
        }
    }

    /// Whether the last factorization took the low-rank path.
    pub fn is_low_rank(&self) -> bool {
        self.low_rank
    }

    /// Which way [`AugmentedDelassus::factor`] takes for `problem`: by K (W of n_w
    /// columns) when W has fewer columns than G rows, or whenever G is not built; by G
    /// otherwise. A refusal when the problem does not fit the workspace.
    pub fn path(&self, problem: &ContactProblem) -> Result<Path, SolveError> {
        let m = 3 * problem.contacts();
        let dense = problem.has_delassus();
        if let Some((_, nw)) = problem.delassus_factor()
            && (nw < m || !dense)
        {
            if nw <= self.ones.len() {
                return Ok(Path::LowRank);
            }
            if !dense {
                return Err(SolveError::Size { what: "W's columns", found: nw, capacity: self.ones.len() });
            }
        }
        if !dense {
            return Err(SolveError::NoDelassus { solver: "admm" });
        }
        if m > self.dense.capacity() {
            return Err(SolveError::Size { what: "G's rows", found: m, capacity: self.dense.capacity() });
        }
        Ok(Path::Dense)
    }

    /// Factors G + diag(s) of `problem` (which must fit: [`AugmentedDelassus::path`]).
    pub fn factor(&mut self, problem: &ContactProblem, s: &[f64]) -> Result<(), NotPositiveDefinite> {
        let m = 3 * problem.contacts();
        self.low_rank = false;
        let (Ok(Path::LowRank), Some((w, nw))) = (self.path(problem), problem.delassus_factor()) else {
            return self.dense.factor(problem.delassus(), s, m);
        };
        self.inv_s.clear();
        for &x in &s[..m] {
            if x.is_nan() || x <= 0.0 {
                return Err(NotPositiveDefinite { index: self.inv_s.len() });
            }
            self.inv_s.push(1.0 / x);
        }
        self.by_envelope = nw > ENVELOPE_COLUMNS && self.envelope_pays(problem, nw);
        if self.by_envelope {
            self.factor_envelope(problem, w, nw)?;
        } else {
            // K − I = Σ_r w_r w_rᵀ / s_r, a contact's three rows at a time over its support
            // (lower triangle: for each column c of a run, the columns d ≤ c of the runs up
            // to it).
            self.k.clear();
            self.k.resize(nw * nw, 0.0);
            for i in 0..problem.contacts() {
                add_gram(
                    &mut self.k,
                    |c| c * nw,
                    rows(w, nw, i),
                    weights(&self.inv_s, problem, i),
                    problem.factor_support(i),
                );
            }
            mirror_lower(&mut self.k, nw);
            self.capacitance.factor(&self.k, &self.ones[..nw], nw)?;
        }
        self.u.clear();
        self.u.resize(nw, 0.0);
        self.low_rank = true;
        Ok(())
    }

    /// K's envelope: each column's first non-zero is the lowest column of the contacts
    /// that touch it (a contact couples every pair of its support's columns). Whether it
    /// pays: at most a quarter of the lower triangle, or K too wide to be dense.
    fn envelope_pays(&mut self, problem: &ContactProblem, nw: usize) -> bool {
        let e = &mut self.envelope;
        e.begin(nw);
        for i in 0..problem.contacts() {
            let support = problem.factor_support(i);
            let Some(&(lo, _)) = support.first() else { continue };
            for &(a, b) in support {
                for c in a..b {
                    e.widen(c, lo);
                }
            }
        }
        4 * e.entries() <= nw * (nw + 1) / 2 || nw > self.capacitance.capacity()
    }

    /// K by its envelope ([`Self::envelope_pays`] found it), the Gram sums as on the
    /// dense path, into the envelope's rows.
    fn factor_envelope(&mut self, problem: &ContactProblem, w: &[f64], nw: usize) -> Result<(), NotPositiveDefinite> {
        let e = &mut self.envelope;
        if !e.lay_out(&self.ones[..nw]) {
            // Cannot happen: the buffer holds the whole lower triangle of `cols` columns.
            return Err(NotPositiveDefinite { index: 0 });
        }
        {
            let (values, base) = e.values_and_bases();
            for i in 0..problem.contacts() {
                add_gram(values, &base, rows(w, nw, i), weights(&self.inv_s, problem, i), problem.factor_support(i));
            }
        }
        e.factor()
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
        for (xk, s) in x[..3 * problem.contacts()].iter_mut().zip(&self.inv_s) {
            *xk *= s;
        }
        self.u.fill(0.0);
        add_transpose_product(problem, w, nw, x, &mut self.u);
        if self.by_envelope {
            self.envelope.solve(&mut self.u);
        } else {
            self.capacitance.solve(&mut self.u);
        }
        let inv_s = &self.inv_s;
        for_each_row_product(problem, w, nw, &self.u, |i, d| {
            for a in 0..3 {
                x[3 * i + a] -= inv_s[3 * i + a] * d[a];
            }
        });
    }
}

/// Block `i`'s weights `inv_s` in K's Gram sum: zero on a joint block's tangent rows (W's
/// rows there are zero, so the sum is the same).
fn weights(inv_s: &[f64], problem: &ContactProblem, i: usize) -> [f64; 3] {
    let s = &inv_s[3 * i..3 * i + 3];
    if problem.normal_only(i) { [0.0, 0.0, s[2]] } else { [s[0], s[1], s[2]] }
}

/// t += Wᵀx (W of `problem`, `nw` columns), a contact's three rows at a time over its
/// support; a contact whose three entries of x are zero adds nothing and is skipped.
pub(super) fn add_transpose_product(problem: &ContactProblem, w: &[f64], nw: usize, x: &[f64], t: &mut [f64]) {
    for i in 0..problem.contacts() {
        let (x0, x1, x2) = (x[3 * i], x[3 * i + 1], x[3 * i + 2]);
        if x0 == 0.0 && x1 == 0.0 && x2 == 0.0 {
            continue;
        }
        let [w0, w1, w2] = rows(w, nw, i);
        let single = problem.normal_only(i);
        for &(lo, hi) in problem.factor_support(i) {
            let t = &mut t[lo..hi];
            let n = t.len();
            let (a0, a1, a2) = (&w0[lo..lo + n], &w1[lo..lo + n], &w2[lo..lo + n]);
            if single {
                // Zero tangent rows: x0·0 + x1·0 adds exactly nothing.
                for c in 0..n {
                    t[c] += x2 * a2[c];
                }
                continue;
            }
            for c in 0..n {
                t[c] += x0 * a0[c] + x1 * a1[c] + x2 * a2[c];
            }
        }
    }
}

/// The three rows of W (of `problem`, `nw` columns) of each contact i times t, over its
/// support, handed to `f(i, W_i·t)`.
pub(super) fn for_each_row_product(
    problem: &ContactProblem,
    w: &[f64],
    nw: usize,
    t: &[f64],
    mut f: impl FnMut(usize, [f64; 3]),
) {
    for i in 0..problem.contacts() {
        let [w0, w1, w2] = rows(w, nw, i);
        let mut d = [0.0; 3];
        let single = problem.normal_only(i);
        for &(lo, hi) in problem.factor_support(i) {
            let t = &t[lo..hi];
            let n = t.len();
            let (a0, a1, a2) = (&w0[lo..lo + n], &w1[lo..lo + n], &w2[lo..lo + n]);
            if single {
                // Zero tangent rows: their products stay exactly 0.
                for c in 0..n {
                    d[2] += a2[c] * t[c];
                }
                continue;
            }
            for c in 0..n {
                d[0] += a0[c] * t[c];
                d[1] += a1[c] * t[c];
                d[2] += a2[c] * t[c];
            }
        }
        f(i, d);
    }
}

/// Adds Σ_r s_r w_r w_rᵀ over the three rows `w` of a contact (of W) to the lower
/// triangle of `k`, on the contact's `support` only: for each column c of a run, the
/// columns d ≤ c of the runs up to it. Entry (c, d) of `k` is at `base(c) + d` (wrapping:
/// `|c| c * nw` for a dense nw × nw matrix, rows contiguous; an [`Envelope`]'s rows, which
/// hold the support's columns). A row of weight 0 adds nothing.
#[inline]
pub(super) fn add_gram(
    k: &mut [f64],
    base: impl Fn(usize) -> usize,
    w: [&[f64]; 3],
    s: [f64; 3],
    support: &[(usize, usize)],
) {
    let [w0, w1, w2] = w;
    let first = support.first().map_or(0, |r| r.0);
    // Zero weights on the tangent rows (a joint block): their terms are exactly 0.
    let single = s[0] == 0.0 && s[1] == 0.0;
    for (a, &(lo, hi)) in support.iter().enumerate() {
        for c in lo..hi {
            let (x0, x1, x2) = (w0[c] * s[0], w1[c] * s[1], w2[c] * s[2]);
            if x0 == 0.0 && x1 == 0.0 && x2 == 0.0 {
                continue;
            }
            let at = base(c);
            let k_row = &mut k[at.wrapping_add(first)..=at.wrapping_add(c)];
            for &(blo, bhi) in &support[..=a] {
                let bhi = bhi.min(c + 1);
                if single {
                    for (kd, y2) in k_row[blo - first..bhi - first].iter_mut().zip(&w2[blo..bhi]) {
                        *kd += x2 * y2;
                    }
                    continue;
                }
                for (((kd, y0), y1), y2) in
                    k_row[blo - first..bhi - first].iter_mut().zip(&w0[blo..bhi]).zip(&w1[blo..bhi]).zip(&w2[blo..bhi])
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
    /// outside the supports as an assembled problem has them (runs with gaps included):
    /// K dense (7 columns), and K by its envelope (130 columns, beyond
    /// [`ENVELOPE_COLUMNS`]: contacts on bands of columns, one reaching back to the
    /// first ones), and dense again when every contact reaches back (a robot's floating
    /// base: the envelope is the whole triangle).
    #[test]
    fn the_low_rank_path_agrees_with_the_dense_one() {
        let small = [vec![(0, 5)], vec![(0, 2), (3, 7)], vec![(2, 6)], vec![(0, 1), (5, 7)]];
        agrees(7, &small, false);
        let wide: Vec<Vec<(usize, usize)>> = (0..48)
            .map(|i| {
                let lo = (i * 118 / 47).min(118);
                if i == 4 { vec![(0, 6), (lo.max(6), lo.max(6) + 12)] } else { vec![(lo, lo + 12)] }
            })
            .collect();
        agrees(130, &wide, true);
        // Every contact on the first 6 columns too (a floating base): K is full, dense.
        let based: Vec<Vec<(usize, usize)>> =
            wide.iter().map(|s| if s[0].0 < 6 { s.clone() } else { [vec![(0, 6)], s.clone()].concat() }).collect();
        agrees(130, &based, false);
    }

    /// [`the_low_rank_path_agrees_with_the_dense_one`] for W of `nw` columns and these
    /// contacts' supports, K factored by its envelope or not.
    fn agrees(nw: usize, supports: &[Vec<(usize, usize)>], by_envelope: bool) {
        let n = supports.len();
        let m = 3 * n;
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
        let mut problem = ContactProblem::from_dense(&g, &vec![0.0; m], &vec![0.5; n], &[]).unwrap();
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
            problem.push_support(support.iter().copied());
        }
        let mut low = AugmentedDelassus::with_sizing(m, nw, 0);
        low.factor(&problem, &s).unwrap();
        assert!(low.is_low_rank());
        assert_eq!(low.by_envelope, by_envelope);
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
