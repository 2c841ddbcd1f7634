//! The previous step's solution, by persistent contact id: contacts that persist start
//! from their last impulse and dual, new ones from zero, and the ADMM from its last
//! penalty exponent (seed 002 §III-E: "not only the primal and dual variables, but also
//! the proximal parameter"), and the ADMM's power iteration from its last eigenvector
//! estimate (so that each island of a step starts from its own, not from the island
//! solved before it).

use super::cone;
use super::solver::{SolveResult, WarmStart};
use crate::collision::ContactId;

/// Last step's (λ, z) per contact id, and the penalty exponent. Sized once; storing and
/// looking up allocate nothing.
#[derive(Clone, Debug, Default)]
pub struct WarmStartCache {
    /// (id, slot) sorted by id.
    index: Vec<(ContactId, u32)>,
    lambda: Vec<f64>,
    dual: Vec<f64>,
    /// The penalty exponent of the solve each slot's contact was in (NaN: none), so that
    /// an island starts from its own ([`WarmStartCache::append`]).
    powers: Vec<f64>,
    rho_power: Option<f64>,
    /// The ADMM's eigenvector estimate per slot (3 each; NaN: none), and the solve each
    /// slot's contact was in (its first slot and its block count).
    eigen: Vec<f64>,
    solves: Vec<(u32, u32)>,
    capacity: usize,
}

impl WarmStartCache {
    /// Room for `capacity` contacts.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            index: Vec::with_capacity(capacity),
            lambda: Vec::with_capacity(3 * capacity),
            dual: Vec::with_capacity(3 * capacity),
            powers: Vec::with_capacity(capacity),
            rho_power: None,
            eigen: Vec::with_capacity(3 * capacity),
            solves: Vec::with_capacity(capacity),
            capacity,
        }
    }

    /// Contacts remembered.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// True when nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.index.clear();
        self.lambda.clear();
        self.dual.clear();
        self.powers.clear();
        self.rho_power = None;
        self.eigen.clear();
        self.solves.clear();
    }

    /// Remembers `result` for the contacts `ids` (in the problem's order). A result that
    /// did not converge, or holds non-finite values, is forgotten instead: starting from it
    /// would only spread the failure.
    pub fn store(&mut self, ids: &[ContactId], result: &SolveResult) {
        // A solve that set no penalty (a polished step, a warm start accepted as it was)
        // keeps the last one.
        let penalty = self.rho_power;
        self.clear();
        let n = ids.len().min(self.capacity);
        let finite = result.lambda.iter().chain(&result.dual).all(|x| x.is_finite());
        if !result.converged || !finite || result.lambda.len() < 3 * n {
            return;
        }
        self.lambda.extend_from_slice(&result.lambda[..3 * n]);
        self.dual.extend_from_slice(&result.dual[..3 * n]);
        self.push_eigen(result, n);
        self.index.extend(ids[..n].iter().enumerate().map(|(k, id)| (*id, k as u32)));
        self.index.sort_unstable();
        self.rho_power =
            if result.rho_power.is_finite() && result.rho > 0.0 { Some(result.rho_power) } else { penalty };
        self.powers.resize(n, self.rho_power.unwrap_or(f64::NAN));
    }

    /// Starts a cache filled island by island ([`WarmStartCache::append`], then
    /// [`WarmStartCache::seal`]): empty, with `previous`'s penalty exponent.
    pub fn begin(&mut self, previous: &Self) {
        self.clear();
        self.rho_power = previous.rho_power;
    }

    /// Adds `result` for the contacts `ids` of one island (in its problem's order) to
    /// those already stored, unless it did not converge or holds non-finite values (that
    /// island alone then starts cold next step); the penalty exponent is the last set.
    pub fn append(&mut self, ids: &[ContactId], result: &SolveResult) {
        let n = ids.len().min(self.capacity - self.index.len());
        let finite = result.lambda.iter().chain(&result.dual).all(|x| x.is_finite());
        if !result.converged || !finite || result.lambda.len() < 3 * n {
            return;
        }
        let first = self.index.len();
        self.lambda.extend_from_slice(&result.lambda[..3 * n]);
        self.dual.extend_from_slice(&result.dual[..3 * n]);
        self.push_eigen(result, n);
        self.index.extend(ids[..n].iter().enumerate().map(|(k, id)| (*id, (first + k) as u32)));
        // The island's own exponent, else the one its contacts started from.
        let own = if result.rho_power.is_finite() && result.rho > 0.0 { Some(result.rho_power) } else { None };
        let power = own.or(self.rho_power).unwrap_or(f64::NAN);
        self.powers.resize(first + n, power);
        if own.is_some() {
            self.rho_power = own;
        }
    }

    /// Stores the eigenvector estimate of `result`'s first `n` contacts (NaN without one),
    /// and which solve they were in (called before the index is extended).
    fn push_eigen(&mut self, result: &SolveResult, n: usize) {
        match result.eigen.get(..3 * n) {
            Some(e) => self.eigen.extend_from_slice(e),
            None => self.eigen.resize(self.eigen.len() + 3 * n, f64::NAN),
        }
        let first = self.index.len() as u32;
        self.solves.resize(first as usize + n, (first, n as u32));
    }

    /// Ends a cache filled by [`WarmStartCache::append`]: sorts its index for lookups.
    pub fn seal(&mut self) {
        self.index.sort_unstable();
    }

    /// The guess for a problem with contacts `ids`: known ids take their stored values,
    /// and the penalty exponent is the one the first known contact was solved with (the
    /// last solve's when none is known). The eigenvector estimate is that solve's whole
    /// one when it had as many contacts (most likely the same problem, some contacts'
    /// features changed: the ADMM's start before the islands), else the known contacts'
    /// by id, 1 for the others.
    pub fn guess(&self, ids: &[ContactId], out: &mut WarmStart) {
        out.clear();
        out.lambda.resize(3 * ids.len(), 0.0);
        out.dual.resize(3 * ids.len(), 0.0);
        out.known.resize(ids.len(), false);
        out.eigen.resize(3 * ids.len(), 1.0);
        out.rho_power = self.rho_power;
        let mut own = false;
        let mut first_known = None;
        for (i, id) in ids.iter().enumerate() {
            if let Ok(k) = self.index.binary_search_by(|(key, _)| key.cmp(id)) {
                let slot = self.index[k].1 as usize;
                first_known = first_known.or(Some(slot));
                if !own && self.powers.get(slot).is_some_and(|p| p.is_finite()) {
                    out.rho_power = Some(self.powers[slot]);
                    own = true;
                }
                cone::set_block(&mut out.lambda, i, &cone::block(&self.lambda, slot));
                cone::set_block(&mut out.dual, i, &cone::block(&self.dual, slot));
                let eigen = cone::block(&self.eigen, slot);
                if eigen.iter().all(|x| x.is_finite()) {
                    cone::set_block(&mut out.eigen, i, &eigen);
                }
                out.known[i] = true;
            }
        }
        if let Some(&(first, n)) = first_known.and_then(|slot| self.solves.get(slot))
            && n as usize == ids.len()
            && let Some(e) = self.eigen.get(3 * first as usize..3 * (first + n) as usize)
            && e.iter().all(|x| x.is_finite())
        {
            out.eigen.copy_from_slice(e);
        }
    }
}
