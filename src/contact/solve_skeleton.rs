//! The stages every contact solver goes through around its own iteration, written once
//! (as MuJoCo's `mj_step` is a list of named stages):
//!
//! 1. [`start`]: the problem checked against the workspace's capacity and against what
//!    the solver needs ([`Needs`]): a refusal is a [`SolveError`], never a panic; the
//!    result sized and its counters cleared.
//! 2. [`zeroed`]: the workspace's vectors sized for the problem (no allocation once its
//!    capacity has been seen), and [`warm_impulses`], the feasible start a warm start
//!    gives.
//! 3. The solver's iteration, with the shared statistics ([`SolveStats::record`]) and
//!    stopping tests ([`StoppingRule::reached`], [`StoppingRule::still`]).
//! 4. A finish: σ and the dual from the final impulses ([`finish_from_impulses`],
//!    [`finish_with_velocity`]).

use super::cone::{self, BlockSet, Vec3c};
use super::problem::ContactProblem;
use super::solver::{SolveError, SolveResult, WarmStart};
#[cfg(doc)]
use super::solver::{SolveStats, StoppingRule};

/// What a solver needs of the problem besides g, the sets and R.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Needs {
    /// G ([`ContactProblem::build_delassus`]).
    Delassus,
    /// G or its factor W (the solvers that work in velocities).
    DelassusOrFactor,
}

/// Checks `problem` against a workspace of `capacity` blocks and what `solver` needs,
/// then sizes `result` for it (counters cleared). Returns n_c; on a refusal `result` is
/// emptied. An empty problem is the caller's to handle (see [`start`]).
pub(crate) fn check_and_size(
    solver: &'static str,
    capacity: usize,
    needs: Needs,
    problem: &ContactProblem,
    result: &mut SolveResult,
) -> Result<usize, SolveError> {
    let n = problem.contacts();
    let has = match needs {
        Needs::Delassus => problem.has_delassus(),
        Needs::DelassusOrFactor => problem.has_delassus() || problem.delassus_factor().is_some(),
    };
    let refusal = if n > capacity {
        Some(SolveError::Capacity { contacts: n, capacity })
    } else if !has {
        Some(SolveError::NoDelassus { solver })
    } else {
        None
    };
    if let Some(e) = refusal {
        result.reset(0);
        return Err(e);
    }
    result.reset(3 * n);
    Ok(n)
}

/// The start of a solve: [`check_and_size`], and an empty problem solved by the empty
/// result (converged, no iteration: `None`). Returns n_c ≥ 1 otherwise.
pub(crate) fn start(
    solver: &'static str,
    capacity: usize,
    needs: Needs,
    problem: &ContactProblem,
    result: &mut SolveResult,
) -> Result<Option<usize>, SolveError> {
    let n = check_and_size(solver, capacity, needs, problem, result)?;
    if n == 0 {
        result.converged = true;
        return Ok(None);
    }
    Ok(Some(n))
}

/// Each of `vectors` cleared and filled with `len` zeros (within the capacity reserved:
/// no allocation).
pub(crate) fn zeroed<const N: usize>(len: usize, vectors: [&mut Vec<f64>; N]) {
    for v in vectors {
        v.clear();
        v.resize(len, 0.0);
    }
}

/// The impulses a warm start gives, each known block's onto its set by `project` (the
/// cone's projection; the pyramid's for the LCP), into `out`; the other blocks are left
/// as they are (zero after [`zeroed`]).
pub(crate) fn warm_impulses(
    warm: Option<&WarmStart>,
    sets: &[BlockSet],
    out: &mut [f64],
    project: impl Fn(&BlockSet, &Vec3c) -> Vec3c,
) {
    let Some(w) = warm else { return };
    for (i, set) in sets.iter().enumerate() {
        if w.known.get(i).copied().unwrap_or(false) && w.lambda.len() >= 3 * i + 3 {
            cone::set_block(out, i, &project(set, &cone::block(&w.lambda, i)));
        }
    }
}

/// z = σ + Γ(σ) per block, the dual of the contact velocity `sigma` (seed 000 eq. 27; the
/// CCP has Γ ≡ 0).
pub(crate) fn dual_of_velocity(problem: &ContactProblem, ncp: bool, sigma: &[f64], dual: &mut [f64]) {
    for (i, set) in problem.sets.iter().enumerate() {
        let si = cone::block(sigma, i);
        cone::set_block(dual, i, &cone::add(&si, &set.correction(ncp, &si)));
    }
}

/// The finish of the solvers that iterate on impulses alone (PGS): σ = (G + R)λ + g for
/// the result's λ, and z = σ + Γ(σ).
pub(crate) fn finish_with_velocity(problem: &ContactProblem, ncp: bool, result: &mut SolveResult) {
    problem.contact_velocity(&result.lambda, &mut result.sigma);
    dual_of_velocity(problem, ncp, &result.sigma, &mut result.dual);
}

/// The finish of the CCP solvers (Chrono's ADMM, SAP, V-FPI): λ ← `lambda`,
/// σ = (G + R)λ + g and z = σ (no De Saxcé term).
pub(crate) fn finish_from_impulses(problem: &ContactProblem, lambda: &[f64], result: &mut SolveResult) {
    result.lambda.copy_from_slice(lambda);
    problem.contact_velocity(&result.lambda, &mut result.sigma);
    result.dual.copy_from_slice(&result.sigma);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contact::SolverKind;
    use crate::contact::{AdmmOptions, ContactModel, StoppingRule};

    /// Two unit contacts resting on the ground (G = I, g = (0, 0, −1) each).
    fn two_contacts() -> ContactProblem {
        let rows: Vec<Vec<f64>> = (0..6).map(|i| (0..6).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        ContactProblem::from_dense(&rows, &[0.0, 0.0, -1.0, 0.0, 0.0, -1.0], &[0.5, 0.5], &[]).unwrap()
    }

    /// Every solver refuses a problem beyond its capacity, or without G, with the error
    /// that says so (no panic), and leaves an empty, unconverged result; within its
    /// capacity it solves the same problem (λ_N = 1 per contact, less its model's
    /// compliance).
    #[test]
    fn a_problem_beyond_capacity_or_without_g_is_refused_not_a_panic() {
        let mut no_g = ContactProblem::with_capacity(2);
        no_g.reset(2).unwrap();
        for kind in SolverKind::ALL {
            let stop = StoppingRule { absolute: 1e-10, ..Default::default() };
            let mut result = SolveResult::with_capacity(2, 0);
            let e = kind.build(ContactModel::Ncp, stop, AdmmOptions::default(), 1, false).solve(
                &two_contacts(),
                None,
                &mut result,
            );
            assert_eq!(e, Err(SolveError::Capacity { contacts: 2, capacity: 1 }), "{kind:?}");
            assert!(result.lambda.is_empty() && !result.converged, "{kind:?}");
            let mut solver = kind.build(ContactModel::Ncp, stop, AdmmOptions::default(), 2, false);
            let e = solver.solve(&no_g, None, &mut result);
            assert_eq!(e, Err(SolveError::NoDelassus { solver: solver.name() }), "{kind:?}");
            assert!(result.lambda.is_empty() && !result.converged, "{kind:?}");
            solver.solve(&two_contacts(), None, &mut result).unwrap();
            assert!(result.converged, "{kind:?}: {:?}", result.stats);
            // λ_N = 1/(1 + the compliance the solver's model adds): SAP's near-rigid
            // R_n = w/(4π²) with w = ‖G_ii‖_F/3 = √3/3 (β = 1), V-FPI's virtual node
            // 1/k_v = 1e-4.
            let added = match kind {
                SolverKind::Sap => 3f64.sqrt() / 3.0 / (4.0 * std::f64::consts::PI.powi(2)),
                SolverKind::Vfpi | SolverKind::VfpiBlock => 1e-4,
                _ => 0.0,
            };
            let want = 1.0 / (1.0 + added);
            let ok = (result.lambda[2] - want).abs() < 1e-9 && (result.lambda[5] - want).abs() < 1e-9;
            assert!(ok, "{kind:?}: {:?}, want λ_N = {want}", result.lambda);
        }
    }
}
