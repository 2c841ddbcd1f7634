//! The frictional contact problem of one time step (seed 000 eq. 27):
//!
//! ```text
//! K_μ ∋ λ ⊥ σ + Γ(σ) ∈ K*_μ,    σ = (G + R)·λ + g
//! ```
//!
//! with n_c contacts, λ the contact impulses (N·s) and σ the contact velocities at the end
//! of the step (m/s), each a 3-vector (Tx, Ty, N) in its contact frame; G = J·M⁻¹·Jᵀ the
//! Delassus matrix; g = J·v_f + γ the contact velocities without contact impulses plus the
//! position bias; μ the friction coefficients; R ≥ 0 the diagonal compliance (0: rigid).
//! A block is a contact's cone K_μ or, for a joint's Coulomb friction, an interval
//! ([`BlockSet`]): the same solvers handle both.
//!
//! The storage is sized once for the largest problem ([`ContactProblem::with_capacity`])
//! and refilled every step without allocating (see [`super::assembly`]). A problem
//! assembled from bodies may keep G only up to a number of contacts
//! ([`ContactProblem::dense_up_to`]): a larger one is W alone, O(n_c) in memory, and the
//! solvers that work by W ([`ContactProblem::delassus_product`]) solve it without G's
//! (3 n_c)² entries.

use nalgebra::{DMatrix, SymmetricEigen};
use thiserror::Error;

use super::cone::BlockSet;
use crate::collision::ContactId;

/// Why a problem, or an input it is built from, is refused.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ProblemError {
    /// Sizes that do not agree.
    #[error("`{key}`: expected {expected} values, found {found}")]
    Size {
        /// The offending field.
        key: &'static str,
        /// What its size should be.
        expected: usize,
        /// What it is.
        found: usize,
    },
    /// A value that is NaN, infinite or out of its range.
    #[error("`{key}`[{index}]: {reason}")]
    Value {
        /// The offending field.
        key: &'static str,
        /// Index of the value in the field (row-major for G).
        index: usize,
        /// What is wrong.
        reason: &'static str,
    },
    /// More contacts than the problem was sized for.
    #[error("{contacts} contacts exceed the capacity of {capacity}")]
    Capacity {
        /// Contacts asked for.
        contacts: usize,
        /// Contacts the buffers hold.
        capacity: usize,
    },
}

/// The most contacts the simulator builds G for when its solver works by W (seed 000's
/// ADMM; [`ContactProblem::dense_up_to`]), on an island with the robot: G is then at
/// most 768², 4.7 MB. An island beyond is solved by W alone, so that neither the memory
/// reserved nor an iteration grows with n_c².
pub const DENSE_CONTACTS: usize = 256;

/// The same for an island of free bodies alone, whose rows of W have 6 or 12 non-zeros:
/// products by W cost a few percent of products by G there. A tower of 35 boxes (140
/// contacts, one island): 1285 µs a step with G, 177 without (`bench_scale.py --part
/// towers`, 2026-11-26); the piles' islands took the same iterations and polished steps
/// either way.
pub const DENSE_FREE_CONTACTS: usize = 32;

/// G, g, the blocks' sets (μ) and R of one step, plus the persistent id of each contact (for warm starts).
#[derive(Clone, Debug)]
pub struct ContactProblem {
    capacity: usize,
    contacts: usize,
    /// The most contacts [`ContactProblem::build_delassus`] builds G for, and the most its
    /// storage is sized for.
    dense_limit: usize,
    dense_reserved: usize,
    /// G, (3 n_c)², rows contiguous (symmetric), once `dense`.
    pub(crate) delassus: Vec<f64>,
    /// Whether `delassus` holds G (plain data always; an assembled problem after
    /// [`ContactProblem::build_delassus`]).
    dense: bool,
    /// g, 3 n_c.
    pub(crate) g: Vec<f64>,
    /// The set of each block: K_μ, or an interval for joint friction (n_c).
    pub(crate) sets: Vec<BlockSet>,
    /// Diagonal of R, 3 n_c.
    pub(crate) compliance: Vec<f64>,
    /// Id of each contact.
    pub(crate) ids: Vec<ContactId>,
    /// Per block, whether its tangent rows of J and W are zero (a joint block: one
    /// normal row ±e_dof), so that products by W skip them. False unless the assembly
    /// says so.
    pub(crate) normal_only: Vec<bool>,
    /// W with G = W·Wᵀ (3 n_c rows of `factor_cols`, rows contiguous) when the problem was
    /// assembled from bodies (`factor_cols` = their dofs); empty for plain data. Zero
    /// outside the contacts' supports, beyond its 3 n_c rows too: [`ContactProblem::reset`]
    /// zeroes the last rows on their supports only, so that a step costs O(n_c × support),
    /// not O(n_c × dofs).
    pub(crate) factor: Vec<f64>,
    pub(crate) factor_cols: usize,
    /// Per contact i, the runs of columns [lo, hi) outside which its rows of W are zero:
    /// `runs[run_start[i]..run_start[i + 1]]`, ascending and disjoint (a foot: the
    /// floating base's dofs and its leg's).
    pub(crate) runs: Vec<(usize, usize)>,
    pub(crate) run_start: Vec<usize>,
}

impl ContactProblem {
    /// Empty problem with room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::sized(capacity, capacity)
    }

    /// Room for `capacity` contacts, G for up to `dense` of them.
    fn sized(capacity: usize, dense: usize) -> Self {
        let m = 3 * capacity;
        let dense = dense.min(capacity);
        Self {
            capacity,
            contacts: 0,
            dense_limit: dense,
            dense_reserved: dense,
            delassus: Vec::with_capacity(9 * dense * dense),
            dense: false,
            g: Vec::with_capacity(m),
            sets: Vec::with_capacity(capacity),
            compliance: Vec::with_capacity(m),
            ids: Vec::with_capacity(capacity),
            normal_only: Vec::with_capacity(capacity),
            factor: Vec::new(),
            factor_cols: 0,
            runs: Vec::new(),
            run_start: Vec::with_capacity(capacity + 1),
        }
    }

    /// Room for W of `cols` columns as well (see [`ContactProblem::delassus_factor`]).
    pub fn with_factor_capacity(capacity: usize, cols: usize) -> Self {
        Self::with_factor_capacity_dense_up_to(capacity, cols, capacity)
    }

    /// The same, G built only for problems of at most `dense` contacts
    /// ([`ContactProblem::dense_up_to`]).
    pub fn with_factor_capacity_dense_up_to(capacity: usize, cols: usize, dense: usize) -> Self {
        let mut p = Self::sized(capacity, dense);
        p.factor.reserve(3 * capacity * cols);
        // A contact's support has at most `cols` runs (of one column each).
        p.runs.reserve(capacity * cols);
        p
    }

    /// The most contacts [`ContactProblem::build_delassus`] builds G for: beyond them an
    /// assembled problem keeps W alone (G's (3 n_c)² entries are neither stored nor
    /// computed), which only the solvers that work by W accept ([`DENSE_CONTACTS`]).
    pub fn dense_up_to(&self) -> usize {
        self.dense_limit
    }

    /// Builds G only up to `contacts` contacts from now on (at most the number its storage
    /// was sized for).
    pub fn limit_dense(&mut self, contacts: usize) {
        self.dense_limit = contacts.min(self.dense_reserved);
    }

    /// A problem from plain data (`signorini solve`, tests): G as rows (3 n_c × 3 n_c), g
    /// (3 n_c), μ (n_c ≥ 0), R (3 n_c ≥ 0; empty for rigid contacts). G must be symmetric
    /// (to 1e-9 relative to its largest entry); contact ids are 0, 1, ...
    pub fn from_dense(g_rows: &[Vec<f64>], g: &[f64], mu: &[f64], r: &[f64]) -> Result<Self, ProblemError> {
        let n = mu.len();
        let m = 3 * n;
        let size = |key, expected, found| {
            if expected == found { Ok(()) } else { Err(ProblemError::Size { key, expected, found }) }
        };
        size("g", m, g.len())?;
        size("G", m, g_rows.len())?;
        for row in g_rows {
            size("G", m, row.len())?;
        }
        if !r.is_empty() {
            size("R", m, r.len())?;
        }
        let mut p = Self::with_capacity(n);
        p.contacts = n;
        p.delassus.extend(g_rows.iter().flatten());
        p.dense = true;
        p.g.extend_from_slice(g);
        p.sets.extend(mu.iter().map(|&m| BlockSet::Cone(m)));
        if r.is_empty() {
            p.compliance.resize(m, 0.0);
        } else {
            p.compliance.extend_from_slice(r);
        }
        p.ids.extend((0..n).map(|i| ContactId::new(i, 0, 0, 0)));
        p.validate()?;
        Ok(p)
    }

    /// A problem given by its factor W (3 n_c rows of `cols`, rows contiguous; every
    /// contact's support all columns), g and μ, rigid, G not built: as the assembly leaves
    /// a robot's or a free body's (tests of the solvers' factor paths).
    #[cfg(test)]
    pub(crate) fn from_factor(w: &[f64], cols: usize, g: &[f64], mu: &[f64]) -> Self {
        let n = mu.len();
        let mut p = Self::with_factor_capacity(n, cols);
        p.reset(n).expect("sized for n");
        p.factor_rows_mut(cols).copy_from_slice(&w[..3 * n * cols]);
        for (i, &m) in mu.iter().enumerate() {
            p.sets[i] = BlockSet::Cone(m);
            p.ids[i] = ContactId::new(i, 0, 0, 0);
            p.push_support([(0, cols)]);
        }
        p.g.copy_from_slice(g);
        p
    }

    /// Checks finiteness, signs and the symmetry of G.
    pub fn validate(&self) -> Result<(), ProblemError> {
        let finite = |key, v: &[f64]| match v.iter().position(|x| !x.is_finite()) {
            Some(index) => Err(ProblemError::Value { key, index, reason: "not a finite number" }),
            None => Ok(()),
        };
        finite("G", &self.delassus)?;
        finite("g", &self.g)?;
        finite("R", &self.compliance)?;
        for (index, set) in self.sets.iter().enumerate() {
            let (key, x) = match *set {
                BlockSet::Cone(mu) => ("mu", mu),
                BlockSet::Interval(b) => ("bound", b),
            };
            if !x.is_finite() {
                return Err(ProblemError::Value { key, index, reason: "not a finite number" });
            }
            if x < 0.0 {
                let reason = if key == "mu" { "negative friction coefficient" } else { "negative bound" };
                return Err(ProblemError::Value { key, index, reason });
            }
        }
        if let Some(index) = self.compliance.iter().position(|&x| x < 0.0) {
            return Err(ProblemError::Value { key: "R", index, reason: "negative compliance" });
        }
        let m = 3 * self.contacts;
        let scale = self.delassus.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        for i in 0..m {
            if self.delassus[i * m + i] < 0.0 {
                return Err(ProblemError::Value { key: "G", index: i * m + i, reason: "negative diagonal entry" });
            }
            for j in 0..i {
                if (self.delassus[i * m + j] - self.delassus[j * m + i]).abs() > 1e-9 * scale {
                    return Err(ProblemError::Value { key: "G", index: i * m + j, reason: "not symmetric" });
                }
            }
        }
        Ok(())
    }

    /// Number of contacts n_c.
    pub fn contacts(&self) -> usize {
        self.contacts
    }

    /// Contacts the buffers hold.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// G (3 n_c × 3 n_c, rows contiguous); an assembled problem has it after
    /// [`ContactProblem::build_delassus`] (empty before).
    pub fn delassus(&self) -> &[f64] {
        &self.delassus
    }

    /// The sum of the positive diagonal entries of G + R on block `i`'s rows, and how many
    /// there are (one for a joint block, three for a contact): the Jacobi scale of the
    /// block (seed 003 eq. 47). Needs G or W.
    pub(crate) fn block_diagonal(&self, i: usize) -> (f64, usize) {
        let (mut sum, mut rows) = (0.0, 0);
        for r in 3 * i..3 * i + 3 {
            let d = self.delassus_diagonal(r) + self.compliance[r];
            if d > 0.0 {
                sum += d;
                rows += 1;
            }
        }
        (sum, rows)
    }

    /// G's diagonal entry of row `r`: from G when it is there, else ‖w_r‖² over the row's
    /// support.
    pub(crate) fn delassus_diagonal(&self, r: usize) -> f64 {
        if self.dense {
            let m = 3 * self.contacts;
            return self.delassus[r * m + r];
        }
        let nw = self.factor_cols;
        let row = &self.factor[r * nw..(r + 1) * nw];
        self.factor_support(r / 3).iter().map(|&(lo, hi)| super::dense::dot(&row[lo..hi], &row[lo..hi])).sum()
    }

    /// Whether [`ContactProblem::delassus`] holds G: the solvers need it.
    pub fn has_delassus(&self) -> bool {
        self.dense
    }

    /// Builds G = W·Wᵀ from the factor of an assembled problem (nothing if G is there,
    /// there is no factor or the problem has more contacts than
    /// [`ContactProblem::dense_up_to`]): the symmetric G by 3 × 3 blocks of two contacts
    /// ([`ContactProblem::delassus_block`]), the lower triangle computed and mirrored.
    pub fn build_delassus(&mut self) {
        if self.dense || self.factor_cols == 0 || self.contacts > self.dense_limit {
            return;
        }
        let m = 3 * self.contacts;
        self.delassus.clear();
        self.delassus.resize(m * m, 0.0);
        for a in 0..self.contacts {
            for b in 0..=a {
                let block = self.delassus_block(a, b);
                for (i, bi) in block.iter().enumerate() {
                    for (j, x) in bi.iter().enumerate() {
                        let (r, c) = (3 * a + i, 3 * b + j);
                        self.delassus[r * m + c] = *x;
                        self.delassus[c * m + r] = *x;
                    }
                }
            }
        }
        self.dense = true;
    }

    /// Whether G pays for a solver that can work by W: when its 3 n_c rows are at most W's
    /// columns (the dense factorization is then the smaller one), or when a product by G,
    /// (3 n_c)² multiply-adds, costs at most one by W, twice W's entries over the
    /// contacts' supports. Talos falling over has 6 to 13 contacts and up to 39 joint
    /// blocks on 38 dofs: up to 156 rows, a product by G 24 300 multiply-adds, by W at most
    /// 2 · 156 · 38 = 11 900 (fewer: a joint block's tangent rows are zero, a contact's
    /// support is its chain). Without G there, its steps took 16 % fewer instructions
    /// (callgrind, the first 1000 steps; G's build was 10 % of them) for 3.5 % more ADMM
    /// iterations (the trajectory differs by rounding).
    pub fn delassus_pays(&self) -> bool {
        let m = 3 * self.contacts;
        let entries: usize =
            (0..self.contacts).map(|i| 3 * self.factor_support(i).iter().map(|&(lo, hi)| hi - lo).sum::<usize>()).sum();
        m <= self.factor_cols || m * m <= 2 * entries
    }

    /// [`ContactProblem::build_delassus`] whatever the number of contacts: beyond
    /// [`ContactProblem::dense_up_to`] its storage grows (an allocation: for inspection
    /// and export, not in a loop).
    pub fn build_delassus_any_size(&mut self) {
        (self.dense_limit, self.dense_reserved) = (self.contacts, self.dense_reserved.max(self.contacts));
        self.build_delassus();
    }

    /// The 3 × 3 block G_ab (rows of contact `a`, columns of contact `b`): from G when it
    /// is there, else the products of their rows of W over the columns both are supported
    /// by.
    pub fn delassus_block(&self, a: usize, b: usize) -> [[f64; 3]; 3] {
        let mut block = [[0.0; 3]; 3];
        if self.dense {
            let m = 3 * self.contacts;
            for (i, bi) in block.iter_mut().enumerate() {
                bi.copy_from_slice(&self.delassus[(3 * a + i) * m + 3 * b..(3 * a + i) * m + 3 * b + 3]);
            }
            return block;
        }
        let nw = self.factor_cols;
        if nw == 0 {
            return block; // rows only (inverse dynamics): no G
        }
        let single = (self.normal_only(a), self.normal_only(b));
        for_overlaps(self.factor_support(a), self.factor_support(b), |lo, hi| {
            let row = |r: usize| &self.factor[r * nw + lo..r * nw + hi];
            if single == (true, true) {
                // Only the normal rows are non-zero: the other entries stay exactly 0, and
                // this one is summed in add_dot3x3's order.
                for (x, y) in row(3 * a + 2).iter().zip(row(3 * b + 2)) {
                    block[2][2] += x * y;
                }
                return;
            }
            let (ra, rb) = ([row(3 * a), row(3 * a + 1), row(3 * a + 2)], [row(3 * b), row(3 * b + 1), row(3 * b + 2)]);
            add_dot3x3(&mut block, ra, rb, |_| 1.0);
        });
        block
    }

    /// g = J·v_f + γ (3 n_c).
    pub fn g(&self) -> &[f64] {
        &self.g
    }

    /// The set of each block (the contacts' cones K_μ, joint-friction intervals).
    pub fn sets(&self) -> &[BlockSet] {
        &self.sets
    }

    /// Diagonal of R (3 n_c).
    pub fn compliance(&self) -> &[f64] {
        &self.compliance
    }

    /// W with G = W·Wᵀ (3 n_c × the returned number of columns, rows contiguous), if the
    /// problem was assembled from bodies: W = J·U⁻ᵀ·D^{-1/2} for M = U·D·Uᵀ.
    pub fn delassus_factor(&self) -> Option<(&[f64], usize)> {
        (self.factor_cols > 0).then(|| (&self.factor[..3 * self.contacts * self.factor_cols], self.factor_cols))
    }

    /// W with G = W·Wᵀ: the problem's ([`ContactProblem::delassus_factor`]), or for plain
    /// data G's square root V·Λ^{1/2} by its eigenvectors, written into `own` (3 n_c
    /// columns; negative eigenvalues of rounding are clipped). For the solvers that work
    /// in velocities (SAP, V-FPI).
    pub(crate) fn factor_or_square_root<'a>(&'a self, own: &'a mut Vec<f64>) -> (&'a [f64], usize) {
        if let Some(f) = self.delassus_factor() {
            return f;
        }
        let m = 3 * self.contacts;
        let eigen = SymmetricEigen::new(DMatrix::from_row_slice(m, m, &self.delassus[..m * m]));
        own.clear();
        for row in 0..m {
            for col in 0..m {
                own.push(eigen.eigenvectors[(row, col)] * eigen.eigenvalues[col].max(0.0).sqrt());
            }
        }
        (own, m)
    }

    /// The runs of columns [lo, hi) of W the rows of contact `i` can be non-zero on
    /// (ascending, disjoint; empty without W).
    pub fn factor_support(&self, i: usize) -> &[(usize, usize)] {
        match (self.run_start.get(i), self.run_start.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.runs[a..b],
            _ => &[],
        }
    }

    /// Whether block `i`'s tangent rows of W are zero (a joint block).
    #[inline]
    pub(crate) fn normal_only(&self, i: usize) -> bool {
        self.normal_only.get(i).copied().unwrap_or(false)
    }

    /// W's rows for `cols` columns, zero (within the capacity reserved: the buffer grows
    /// to the largest 3 n_c × `cols` met, zeroed once; after [`ContactProblem::reset`]).
    pub(crate) fn factor_rows_mut(&mut self, cols: usize) -> &mut [f64] {
        let len = 3 * self.contacts * cols;
        if self.factor.len() < len {
            self.factor.resize(len, 0.0);
        }
        self.factor_cols = cols;
        &mut self.factor[..len]
    }

    /// Closes contact `i`'s support (the runs pushed since the previous one's): contacts'
    /// supports are pushed in order.
    pub(crate) fn push_support(&mut self, runs: impl IntoIterator<Item = (usize, usize)>) {
        if self.run_start.is_empty() {
            self.run_start.push(0);
        }
        self.runs.extend(runs);
        self.run_start.push(self.runs.len());
    }

    /// Closes the next contact's support from its dofs, strictly descending, as runs of
    /// consecutive dofs (plain index loops: this runs for every contact of every step).
    pub(crate) fn push_support_descending(&mut self, dofs: &[usize]) {
        if self.run_start.is_empty() {
            self.run_start.push(0);
        }
        let mut end = dofs.len();
        while end > 0 {
            let lo = dofs[end - 1];
            let mut hi = lo + 1;
            end -= 1;
            while end > 0 && dofs[end - 1] == hi {
                hi += 1;
                end -= 1;
            }
            self.runs.push((lo, hi));
        }
        self.run_start.push(self.runs.len());
    }

    /// Persistent id of each contact.
    pub fn ids(&self) -> &[ContactId] {
        &self.ids
    }

    /// σ = (G + R)·λ + g into `sigma`: by G when it is there, else by blocks of W for
    /// the contacts with a non-zero impulse.
    pub fn contact_velocity(&self, lambda: &[f64], sigma: &mut [f64]) {
        let m = 3 * self.contacts;
        if self.dense {
            super::dense::mat_vec(&self.delassus, m, lambda, sigma);
        } else {
            sigma[..m].fill(0.0);
            for b in (0..self.contacts).filter(|&b| lambda[3 * b..3 * b + 3].iter().any(|&x| x != 0.0)) {
                for a in 0..self.contacts {
                    let block = self.delassus_block(a, b);
                    for (i, bi) in block.iter().enumerate() {
                        sigma[3 * a + i] +=
                            bi[0] * lambda[3 * b] + bi[1] * lambda[3 * b + 1] + bi[2] * lambda[3 * b + 2];
                    }
                }
            }
        }
        for k in 0..m {
            sigma[k] += self.compliance[k] * lambda[k] + self.g[k];
        }
    }

    /// σ = (G + R)·λ + g into `sigma`, G·λ by [`ContactProblem::delassus_product`] with
    /// `t` scratch of the factor's columns: by G when it is there, else by W.
    pub fn contact_velocity_by_factor(&self, lambda: &[f64], sigma: &mut [f64], t: &mut [f64]) {
        if !self.delassus_product(lambda, sigma, t) {
            return self.contact_velocity(lambda, sigma);
        }
        for k in 0..3 * self.contacts {
            sigma[k] += self.compliance[k] * lambda[k] + self.g[k];
        }
    }

    /// G·x into `out` (3 n_c): by G when it is there (O(n_c²)), else by W (G = W·Wᵀ:
    /// t = Wᵀx over the contacts with a non-zero x, then W·t over each contact's
    /// support; O(n_c × support)), with `t` scratch of at least the factor's columns.
    /// False (nothing written) when there is neither, or `t` is too short.
    pub fn delassus_product(&self, x: &[f64], out: &mut [f64], t: &mut [f64]) -> bool {
        let m = 3 * self.contacts;
        if self.dense {
            super::dense::mat_vec(&self.delassus, m, x, out);
            return true;
        }
        let Some((w, nw)) = self.delassus_factor().filter(|&(_, nw)| nw <= t.len()) else {
            return false;
        };
        if x[..m].iter().all(|&v| v == 0.0) {
            // W·(Wᵀ·0): exactly zero, without the products (the polish's linear start).
            out[..m].fill(0.0);
            return true;
        }
        let t = &mut t[..nw];
        t.fill(0.0);
        super::delassus::add_transpose_product(self, w, nw, x, t);
        super::delassus::for_each_row_product(self, w, nw, t, |i, d| out[3 * i..3 * i + 3].copy_from_slice(&d));
        true
    }

    /// Empties the problem and sizes it for `contacts` (within capacity): G, g, R zeroed;
    /// W zeroed on the last rows' supports (its buffer keeps its length, zero outside the
    /// supports: [`ContactProblem::factor_rows_mut`] sizes it).
    pub(crate) fn reset(&mut self, contacts: usize) -> Result<(), ProblemError> {
        if contacts > self.capacity {
            return Err(ProblemError::Capacity { contacts, capacity: self.capacity });
        }
        let nw = self.factor_cols;
        for i in (0..self.contacts.min(self.run_start.len().saturating_sub(1))).filter(|_| nw > 0) {
            for &(lo, hi) in &self.runs[self.run_start[i]..self.run_start[i + 1]] {
                for r in 3 * i..3 * i + 3 {
                    self.factor[r * nw + lo..r * nw + hi].fill(0.0);
                }
            }
        }
        let m = 3 * contacts;
        self.contacts = contacts;
        self.delassus.clear();
        self.dense = false;
        self.g.clear();
        self.g.resize(m, 0.0);
        self.compliance.clear();
        self.compliance.resize(m, 0.0);
        self.sets.clear();
        self.sets.resize(contacts, BlockSet::Cone(0.0));
        self.ids.clear();
        self.ids.resize(contacts, ContactId::new(0, 0, 0, 0));
        self.normal_only.clear();
        self.normal_only.resize(contacts, false);
        self.factor_cols = 0;
        self.runs.clear();
        self.run_start.clear();
        Ok(())
    }
}

/// Calls `f(lo, hi)` for every non-empty intersection of a run of `a` with a run of `b`
/// (both ascending and disjoint).
#[inline]
pub(crate) fn for_overlaps(a: &[(usize, usize)], b: &[(usize, usize)], mut f: impl FnMut(usize, usize)) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (lo, hi) = (a[i].0.max(b[j].0), a[i].1.min(b[j].1));
        if lo < hi {
            f(lo, hi);
        }
        if a[i].1 <= b[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
}

/// Adds to `s` the nine dot products a_i·b_j of three rows by three (all of one length),
/// sharing their loads, with `weight(k)` on column k (Σ_k w_k a_i[k] b_j[k]; `|_| 1.0` for
/// plain dot products).
#[inline]
pub(crate) fn add_dot3x3(s: &mut [[f64; 3]; 3], a: [&[f64]; 3], b: [&[f64]; 3], weight: impl Fn(usize) -> f64) {
    let n = a[0].len();
    let (a0, a1, a2) = (&a[0][..n], &a[1][..n], &a[2][..n]);
    let (b0, b1, b2) = (&b[0][..n], &b[1][..n], &b[2][..n]);
    for k in 0..n {
        let w = weight(k);
        let (x, y) = ([a0[k] * w, a1[k] * w, a2[k] * w], [b0[k], b1[k], b2[k]]);
        for i in 0..3 {
            for j in 0..3 {
                s[i][j] += x[i] * y[j];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_data_is_checked() {
        let g = vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]];
        assert!(ContactProblem::from_dense(&g, &[0.0, 0.0, -1.0], &[0.5], &[]).is_ok());
        let e = ContactProblem::from_dense(&g, &[0.0, -1.0], &[0.5], &[]).unwrap_err();
        assert_eq!(e.to_string(), "`g`: expected 3 values, found 2");
        let e = ContactProblem::from_dense(&g, &[0.0, f64::NAN, -1.0], &[0.5], &[]).unwrap_err();
        assert_eq!(e.to_string(), "`g`[1]: not a finite number");
        let mut asym = g.clone();
        asym[0][2] = 0.5;
        let e = ContactProblem::from_dense(&asym, &[0.0, 0.0, -1.0], &[0.5], &[]).unwrap_err();
        assert_eq!(e.to_string(), "`G`[6]: not symmetric");
        let e = ContactProblem::from_dense(&g, &[0.0, 0.0, -1.0], &[-0.5], &[]).unwrap_err();
        assert_eq!(e.to_string(), "`mu`[0]: negative friction coefficient");
        let e = ContactProblem::from_dense(&g, &[0.0, 0.0, -1.0], &[0.5], &[0.0, 0.0]).unwrap_err();
        assert_eq!(e.to_string(), "`R`: expected 3 values, found 2");
    }
}
