//! Type-II Anderson acceleration of a fixed-point iteration w ← T(w) (Walker and Ni,
//! "Anderson acceleration for fixed-point iterations", SIAM J. Numer. Anal. 2011), as
//! Pinocchio 4's ADMM offers it (`anderson_capacity`), for [`super::admm`].
//!
//! With the outputs w_j = T(ŵ_{j−1}) and residuals r_j = w_j − ŵ_{j−1} of the last m
//! iterations (ŵ: the point each iteration started from), the weights γ minimize
//! ‖r_k − ΔR γ‖₂ over the differences ΔR_i = r_{k−i} − r_{k−i−1}, and the next start is
//! the extrapolation ŵ_k = w_k − ΔW γ over the outputs' differences. The normal equations
//! of the small least-squares problem are solved with a Tikhonov shift relative to their
//! trace (they are nearly singular when the iteration stalls). The history is a ring of
//! buffers sized once: nothing allocates after [`Anderson::with_capacity`].

/// Relative Tikhonov shift of the normal equations.
const REGULARIZATION: f64 = 1e-10;

/// The last `depth` outputs and residuals of an iteration, and the extrapolation's weights.
#[derive(Debug, Clone)]
pub struct Anderson {
    /// m: entries kept (0 or 1: no acceleration).
    depth: usize,
    /// Length of an output (`width`) and of a residual (`residual_width`) in use.
    width: usize,
    residual_width: usize,
    /// Entries held and the ring slot of the oldest.
    len: usize,
    start: usize,
    outputs: Vec<f64>,
    residuals: Vec<f64>,
    /// Per ring slot, the difference of its residual and its predecessor's (m of a
    /// residual's length).
    columns: Vec<f64>,
    /// How many of the newest entries' differences are not formed yet (entries pushed
    /// since the last fit; all after a clear): always the newest, as a push writes the
    /// newest slot.
    stale: usize,
    /// Per pair of ring slots, the products of their differences (m square): a difference
    /// joins the products once, the others' are kept as the ring turns.
    products: Vec<f64>,
    /// The normal equations (m−1 square), their right-hand side and the weights γ.
    gram: Vec<f64>,
    rhs: Vec<f64>,
    weights: Vec<f64>,
}

impl Anderson {
    /// A history of `depth` entries of outputs up to `width` and residuals up to
    /// `residual_width` values.
    pub fn with_capacity(depth: usize, width: usize, residual_width: usize) -> Self {
        let d = if depth < 2 { 0 } else { depth };
        let c = d.saturating_sub(1);
        Self {
            depth: d,
            width,
            residual_width,
            len: 0,
            start: 0,
            outputs: vec![0.0; d * width],
            residuals: vec![0.0; d * residual_width],
            columns: vec![0.0; d * residual_width],
            stale: d,
            products: vec![0.0; d * d],
            gram: vec![0.0; c * c],
            rhs: vec![0.0; c],
            weights: vec![0.0; c],
        }
    }

    /// m (0: off).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Entries held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether it extrapolates at all (a depth of at least 2).
    pub fn enabled(&self) -> bool {
        self.depth >= 2
    }

    /// Forgets the history and sets the lengths in use (at most the capacity's).
    pub fn reset(&mut self, width: usize, residual_width: usize) {
        let cap_w = self.outputs.len() / self.depth.max(1);
        let cap_r = self.residuals.len() / self.depth.max(1);
        self.width = width.min(cap_w);
        self.residual_width = residual_width.min(cap_r);
        self.clear();
    }

    /// Forgets the history (the map changed, or an extrapolation did not pay).
    pub fn clear(&mut self) {
        self.len = 0;
        self.start = 0;
        self.stale = self.depth;
    }

    fn slot(&self, j: usize) -> usize {
        (self.start + j) % self.depth
    }

    /// Appends an output and its residual, dropping the oldest entry when full; returns
    /// the slots' buffers to fill (output, residual).
    pub fn push(&mut self) -> (&mut [f64], &mut [f64]) {
        if self.len == self.depth {
            self.start = (self.start + 1) % self.depth;
        } else {
            self.len += 1;
        }
        let s = self.slot(self.len - 1);
        self.stale = (self.stale + 1).min(self.depth);
        let (w, r) = (self.width, self.residual_width);
        (&mut self.outputs[s * w..(s + 1) * w], &mut self.residuals[s * r..(s + 1) * r])
    }

    fn output(&self, j: usize) -> &[f64] {
        let (s, w) = (self.slot(j), self.width);
        &self.outputs[s * w..(s + 1) * w]
    }

    /// ⟨ΔR_a, ΔR_b⟩ and ⟨ΔR_a, r_k⟩ for column a = r_{k−a} − r_{k−a−1}: each difference
    /// written out once into its slot's column, and its products with the others formed
    /// when it is (those of two older columns are kept from an earlier fit; a column
    /// leaves only with its slot's residual); the same sums, term by term, as over the
    /// ring. Only ⟨ΔR_a, r_k⟩ is formed anew each time.
    fn fit(&mut self) -> usize {
        let c = self.len - 1;
        let newest = self.len - 1;
        let (rw, d) = (self.residual_width, self.depth);
        // Columns 0..new (the newest) are formed now, with their products.
        let new = self.stale.min(c);
        self.stale = 0;
        for a in 0..new {
            let (s1, s2) = (self.slot(newest - a), self.slot(newest - a - 1));
            let (r1, r2) = (&self.residuals[s1 * rw..(s1 + 1) * rw], &self.residuals[s2 * rw..(s2 + 1) * rw]);
            for ((x, x1), x2) in self.columns[s1 * rw..(s1 + 1) * rw].iter_mut().zip(r1).zip(r2) {
                *x = x1 - x2;
            }
        }
        let s = self.slot(newest);
        let last = &self.residuals[s * rw..(s + 1) * rw];
        let column = |slot: usize| &self.columns[slot * rw..(slot + 1) * rw];
        for a in 0..c {
            let sa = self.slot(newest - a);
            self.rhs[a] = sequential_dot(column(sa), last);
            for bb in 0..=a {
                let sb = self.slot(newest - bb);
                // bb ≤ a: the pair has a new column exactly when bb does.
                if bb < new {
                    let g = sequential_dot(column(sa), column(sb));
                    self.products[sa * d + sb] = g;
                    self.products[sb * d + sa] = g;
                }
                let g = self.products[sa * d + sb];
                self.gram[a * c + bb] = g;
                self.gram[bb * c + a] = g;
            }
        }
        let trace: f64 = (0..c).map(|a| self.gram[a * c + a]).sum();
        let shift = REGULARIZATION * trace.max(f64::MIN_POSITIVE);
        for a in 0..c {
            self.gram[a * c + a] += shift;
        }
        c
    }

    /// Writes the extrapolated start ŵ_k into `out` (the newest output until the history
    /// is full, or when the weights are not finite); returns whether it extrapolated.
    ///
    /// Only a full history extrapolates: after [`Anderson::clear`] (the ADMM clears it
    /// when ρ changes and when its safeguard trips) the iteration runs plain until `depth`
    /// entries are back. Extrapolating from the first 1 or 2 differences is depth 2 or 3,
    /// which stalls the 15-cube wall (100 of its 100 steps short of 1e-6), and the
    /// restarts made every depth pass through them: the wall then missed on 17 steps at
    /// depth 5, against 2 with a full history, and talos falling from six postures on 22
    /// steps of 12 000 against 5 (examples/admm_study.rs, scripts/talos_postures.py).
    pub fn extrapolate(&mut self, out: &mut [f64]) -> bool {
        let w = self.width;
        if self.len == 0 {
            return false;
        }
        out[..w].copy_from_slice(self.output(self.len - 1));
        if self.len < self.depth.max(2) {
            return false;
        }
        let c = self.fit();
        if !solve_spd(&mut self.gram[..c * c], &mut self.rhs[..c], c) {
            return false;
        }
        self.weights[..c].copy_from_slice(&self.rhs[..c]);
        if !self.weights[..c].iter().all(|g| g.is_finite()) {
            return false;
        }
        let newest = self.len - 1;
        for a in 0..c {
            let g = self.weights[a];
            let (s1, s2) = (self.slot(newest - a), self.slot(newest - a - 1));
            let (o1, o2) = (&self.outputs[s1 * w..(s1 + 1) * w], &self.outputs[s2 * w..(s2 + 1) * w]);
            for ((o, x1), x2) in out[..w].iter_mut().zip(o1).zip(o2) {
                *o -= g * (x1 - x2);
            }
        }
        true
    }
}

/// Σ a_i b_i, summed in order (the rounding of a plain loop, whatever the slices).
#[inline]
fn sequential_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).fold(0.0, |sum, (x, y)| sum + x * y)
}

/// Solves A x = b in place (b ← x) for a symmetric positive definite `n`×`n` A (row-major,
/// overwritten by its Cholesky factor); false if A is not positive definite.
fn solve_spd(a: &mut [f64], b: &mut [f64], n: usize) -> bool {
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        if d.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return false;
        }
        let l = d.sqrt();
        a[j * n + j] = l;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / l;
        }
    }
    for i in 0..n {
        let mut s = b[i];
        for k in 0..i {
            s -= a[i * n + k] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= a[k * n + i] * b[k];
        }
        b[i] = s / a[i * n + i];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a linear contraction w ← Aw + b (A symmetric, spectral radius 0.99), plain
    /// iteration needs hundreds of steps for 1e-10; Anderson with depth n + 1 is exact
    /// (up to rounding) after about n + 1 steps (GMRES equivalence, Walker and Ni §4).
    #[test]
    fn anderson_solves_a_linear_fixed_point_in_few_steps() {
        let n = 3;
        let a = [[0.99, 0.0, 0.0], [0.0, 0.5, 0.1], [0.0, 0.1, -0.3]];
        let b = [1.0, -2.0, 0.5];
        let map =
            |w: &[f64]| -> Vec<f64> { (0..n).map(|i| (0..n).map(|j| a[i][j] * w[j]).sum::<f64>() + b[i]).collect() };
        // The fixed point, by plain iteration to convergence.
        let mut exact = vec![0.0; n];
        for _ in 0..20000 {
            exact = map(&exact);
        }
        let mut acc = Anderson::with_capacity(n + 1, n, n);
        let mut start = vec![0.0; n];
        let mut steps = 0;
        for k in 0..50 {
            let out = map(&start);
            let (w, r) = acc.push();
            w.copy_from_slice(&out);
            for i in 0..n {
                r[i] = out[i] - start[i];
            }
            acc.extrapolate(&mut start);
            steps = k + 1;
            let err = start.iter().zip(&exact).map(|(x, e)| (x - e).abs()).fold(0.0, f64::max);
            if err < 1e-10 {
                break;
            }
        }
        assert!(steps <= n + 3, "{steps} steps");
        // Plain iteration: 0.99^k < 1e-10 needs k > 2290.
    }
}
