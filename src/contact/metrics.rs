//! Physical-consistency criteria of a contact solution, the same yardstick for every
//! solver (seed 002 §II, digest §2.3), in force units: with λ_F = λ/Δt and c = σ/Δt,
//!
//! ```text
//! ε_p = max_i dist_K(λ_F,i)                      Coulomb cone violation
//! ε_d = max_i dist_K*(c_i + Γ(c_i))              dual feasibility: c_N ≥ 0 (Signorini)
//! ε_c = max_i |⟨λ_F,i, c_i + Γ(c_i)⟩|            complementarity
//! ε_abs = max(ε_p, ε_d, ε_c)
//! ```
//!
//! and ε_c split into its two non-negative parts (digest §2.3, derived): the Signorini
//! part λ_N·c_N (a normal force with a separating velocity) and the maximum-dissipation
//! part μλ_N‖c_T‖ + λ_T·c_T (friction not at the cone's edge opposite the slip).
//! On a joint-friction interval (|λ_F| ≤ F) ε_c is the Fenchel–Young gap
//! |λ_F·c + F|c|| and counts as maximum dissipation ([`cone::BlockSet`]).
//! σ is recomputed from λ here ((G + R)λ + g), whatever the solver reported.

use serde::Serialize;

use super::cone::{self, BlockSet};
use super::problem::ContactProblem;
use super::solver::ContactModel;

/// The criteria of one solution.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    /// Coulomb cone violation.
    pub eps_p: f64,
    /// Dual feasibility (with the De Saxcé term for the NCP).
    pub eps_d: f64,
    /// Complementarity.
    pub eps_c: f64,
    /// max(ε_p, ε_d, ε_c).
    pub eps_abs: f64,
    /// Largest Signorini part |λ_N c_N|.
    pub signorini: f64,
    /// Largest maximum-dissipation part μλ_N‖c_T‖ + λ_T·c_T (for λ in the cone ≥ 0).
    pub mdp: f64,
}

impl Metrics {
    /// The larger of each criterion of `self` and `other` (the worst over steps).
    pub fn worst(self, other: &Self) -> Self {
        Self {
            eps_p: max_or_nan(self.eps_p, other.eps_p),
            eps_d: max_or_nan(self.eps_d, other.eps_d),
            eps_c: max_or_nan(self.eps_c, other.eps_c),
            eps_abs: max_or_nan(self.eps_abs, other.eps_abs),
            signorini: max_or_nan(self.signorini, other.signorini),
            mdp: max_or_nan(self.mdp, other.mdp),
        }
    }

    /// The criteria of `lambda` (impulses) for `problem` against `model` (normally the
    /// NCP, also for solutions of the CCP: that is how its artefacts show), in force units
    /// for a step `dt` (1: the problem's own units). `sigma` is scratch of length 3 n_c.
    pub fn evaluate(problem: &ContactProblem, lambda: &[f64], dt: f64, model: ContactModel, sigma: &mut [f64]) -> Self {
        problem.contact_velocity(lambda, sigma);
        Self::of_velocities(problem, lambda, sigma, dt, model)
    }

    /// The criteria of `lambda` whose contact velocities `sigma` = (G + R)λ + g the caller
    /// has computed (as [`super::polish`] does).
    pub fn of_velocities(
        problem: &ContactProblem,
        lambda: &[f64],
        sigma: &[f64],
        dt: f64,
        model: ContactModel,
    ) -> Self {
        let n = problem.contacts();
        let inv = 1.0 / dt;
        let mut out = Self::default();
        for i in 0..n {
            // An interval's bound is an impulse too: in force units it is the friction force.
            let set = match problem.sets[i] {
                BlockSet::Interval(b) => BlockSet::Interval(b * inv),
                cone => cone,
            };
            let l = cone::block(lambda, i).map(|x| x * inv);
            let c = cone::block(sigma, i).map(|x| x * inv);
            let z = cone::add(&c, &set.correction(model == ContactModel::Ncp, &c));
            out.eps_p = max_or_nan(out.eps_p, set.distance(&l));
            out.eps_d = max_or_nan(out.eps_d, set.dual_distance(&z));
            let gap = set.gap(&l, &z);
            out.eps_c = max_or_nan(out.eps_c, gap);
            match set {
                BlockSet::Cone(mu) => {
                    out.signorini = max_or_nan(out.signorini, (l[2] * c[2]).abs());
                    out.mdp =
                        max_or_nan(out.mdp, (mu * l[2] * cone::tangent_norm(&c) + l[0] * c[0] + l[1] * c[1]).abs());
                }
                BlockSet::Interval(_) => out.mdp = max_or_nan(out.mdp, gap),
            }
        }
        out.eps_abs = max_or_nan(max_or_nan(out.eps_p, out.eps_d), out.eps_c);
        out
    }
}

/// The larger of `a` and `b`, NaN if either is: an ∞-norm or a worst case must see a row
/// that is not a number (`f64::max` returns the other operand, so NaN impulses would read
/// as ε = 0 and a diverged iterate as converged).
pub(crate) fn max_or_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A point mass at rest (G = I, g = (0, 0, −1), μ 0.5): its exact impulse scores 0;
    /// an impulse with a NaN row scores NaN, not the other rows' 0 (`f64::max` would drop
    /// it), and so does the worst over that step and a good one.
    #[test]
    fn a_nan_impulse_is_never_scored_as_exact() {
        let g = vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]];
        let p = ContactProblem::from_dense(&g, &[0.0, 0.0, -1.0], &[0.5], &[]).unwrap();
        let mut sigma = [0.0; 3];
        let exact = Metrics::evaluate(&p, &[0.0, 0.0, 1.0], 1.0, ContactModel::Ncp, &mut sigma);
        assert_eq!(exact.eps_abs, 0.0);
        let broken = Metrics::evaluate(&p, &[f64::NAN, 0.0, 1.0], 1.0, ContactModel::Ncp, &mut sigma);
        assert!(broken.eps_abs.is_nan() && broken.eps_p.is_nan(), "{broken:?}");
        assert!(exact.worst(&broken).eps_abs.is_nan());
    }
}
