//! The linear complementarity problem of ODE and Bullet (seed 002 §III-A, §2.5.1 of the
//! digest): Coulomb's cone replaced by the 4-facet pyramid
//!
//! ```text
//! K̃_μ = {λ : λ_N ≥ 0, |λ_Tx| ≤ μλ_N, |λ_Ty| ≤ μλ_N}          (in the contact frame)
//! ```
//!
//! solved by projected Gauss–Seidel (seed 002 Alg. 1), per contact with the latest values
//! of the others, σ = (G + R)λ + g:
//!
//! ```text
//! λ_N ← max(0, λ_N − σ_N / G_NN)
//! λ_T ← clamp(λ_T − σ_T / min(G_TxTx, G_TyTy), −μλ_N, μλ_N)      componentwise: the box
//! ```
//!
//! (σ_T updated for the new λ_N; a joint-friction interval as in [`super::pgs`]). A fixed
//! point is the box-friction complementarity problem: 0 ≤ λ_N ⊥ σ_N ≥ 0 and, per tangent
//! axis t, σ_t = 0 inside the box, σ_t ≤ 0 at λ_t = μλ_N and σ_t ≥ 0 at λ_t = −μλ_N. Each
//! axis dissipates on its own, so sliding friction is biased towards the pyramid's
//! corners: a mass sliding at 30° to the frame's x axis is braked along 45° (AT-11), where
//! Coulomb's cone keeps its heading. The solver shows that anisotropy; it is not meant to
//! be used otherwise.
//!
//! The sweeps are [`super::PgsSolver`]'s with [`ContactModel::Lcp`](super::ContactModel)
//! (configuration and CLI: `lcp`); this module holds the pyramid's step, projection and
//! residual. Residuals (velocity units, what stops the sweeps): the dual one is the box
//! problem's velocity violation (|σ_N| for a loaded contact, −σ_N for a separating one
//! that approaches, |σ_t| inside the box, the wrong-way part of σ_t on a face); the
//! complementarity one λ_N·σ_N; the primal one is zero (λ is projected every sweep).

use super::cone::{BlockSet, Vec3c};

/// The box problem's velocity violation of one block: λ (in the set) and σ.
pub(crate) fn violation(set: &BlockSet, lambda: &Vec3c, sigma: &Vec3c) -> f64 {
    // An axis bounded by [lo, hi] with lo ≤ hi: inside, σ = 0; at hi > lo, σ ≤ 0; at
    // lo < hi, σ ≥ 0; a degenerate [0, 0] leaves σ free.
    let axis = |x: f64, s: f64, lo: f64, hi: f64| -> f64 {
        if hi <= lo {
            0.0
        } else if x >= hi {
            s.max(0.0)
        } else if x <= lo {
            (-s).max(0.0)
        } else {
            s.abs()
        }
    };
    match *set {
        BlockSet::Cone(mu) => {
            let normal = if lambda[2] > 0.0 { sigma[2].abs() } else { (-sigma[2]).max(0.0) };
            let b = mu * lambda[2];
            normal.max(axis(lambda[0], sigma[0], -b, b)).max(axis(lambda[1], sigma[1], -b, b))
        }
        BlockSet::Interval(b) => axis(lambda[2], sigma[2], -b, b),
    }
}

/// `x` projected on the block's set: the pyramid for a contact (λ_N ≥ 0, then each
/// tangent component into [−μλ_N, μλ_N]).
pub(crate) fn project(set: &BlockSet, x: &Vec3c) -> Vec3c {
    match *set {
        BlockSet::Cone(mu) => {
            let n = x[2].max(0.0);
            let b = mu * n;
            [x[0].clamp(-b, b), x[1].clamp(-b, b), n]
        }
        BlockSet::Interval(_) => set.project(x),
    }
}

/// One contact's PGS step on the pyramid (seed 002 Alg. 1) from `old` with contact
/// velocity `sigma`: the normal step times `inv_n` = 1/G_NN, the tangential one (σ_T moved
/// by the normal change through `normal_column`, G's column N of the contact's block) times
/// `inv_t` = 1/min(G_TxTx, G_TyTy), then the projection on the pyramid (a zero inverse: no
/// step along rows G cannot move).
pub(crate) fn pyramid_step(
    mu: f64,
    old: &Vec3c,
    sigma: &Vec3c,
    inv_t: f64,
    inv_n: f64,
    normal_column: [f64; 2],
) -> Vec3c {
    let normal = (old[2] - sigma[2] * inv_n).max(0.0);
    let dn = normal - old[2];
    let t = [old[0] - (sigma[0] + normal_column[0] * dn) * inv_t, old[1] - (sigma[1] + normal_column[1] * dn) * inv_t];
    project(&BlockSet::Cone(mu), &[t[0], t[1], normal])
}

#[cfg(test)]
mod tests {
    use crate::contact::{
        AdmmSettings, AdmmSolver, ContactModel, ContactProblem, Metrics, PgsSettings, PgsSolver, SolveResult, Solver,
        StoppingRule,
    };

    fn lcp() -> PgsSolver {
        PgsSolver::with_capacity(1, PgsSettings { model: ContactModel::Lcp, ..Default::default() })
    }

    const DT: f64 = 1e-3;
    const G0: f64 = 9.81;

    /// A unit point mass on a plane (G = I) moving at `u` (tangential, m/s) and falling by
    /// gravity within the step: g = (u_x, u_y, −g₀Δt).
    fn point_mass(u: [f64; 2], mu: f64) -> ContactProblem {
        let identity: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        ContactProblem::from_dense(&identity, &[u[0], u[1], -G0 * DT], &[mu], &[]).unwrap()
    }

    fn solve(problem: &ContactProblem, solver: &mut dyn Solver) -> SolveResult {
        let mut result = SolveResult::with_capacity(1, 0);
        solver.solve(problem, None, &mut result).unwrap();
        assert!(result.converged, "{}: {:?}", solver.name(), result.stats.residuals);
        result
    }

    /// AT-11: sliding at 30°, 1 m/s, μ = 0.5. The pyramid brakes each axis by μλ_N: the
    /// velocity change points along 45° and is √2 times Coulomb's; the NCP (ADMM) keeps
    /// the heading at 30° to 1e-9 rad. The NCP criterion flags the LCP's answer.
    #[test]
    fn at11_the_pyramid_bends_a_slide_towards_its_corner_and_coulomb_does_not() {
        let (mu, heading) = (0.5, 30f64.to_radians());
        let u = [heading.cos(), heading.sin()];
        let problem = point_mass(u, mu);
        let lcp = solve(&problem, &mut lcp());
        let normal = G0 * DT;
        let want = [-mu * normal, -mu * normal, normal];
        for a in 0..3 {
            assert!((lcp.lambda[a] - want[a]).abs() < 1e-12, "{:?}", lcp.lambda);
        }
        let dv = [lcp.sigma[0] - u[0], lcp.sigma[1] - u[1]];
        assert!((dv[1].atan2(dv[0]) + 135f64.to_radians()).abs() < 1e-12, "braked along 45°: {dv:?}");
        // Outside Coulomb's cone: its friction force is √2·μN long; the NCP criterion
        // measures (√2 − 1)·μN/√(1 + μ²) from the cone (force units).
        let mut sigma = [0.0; 3];
        let metrics = Metrics::evaluate(&problem, &lcp.lambda, DT, ContactModel::Ncp, &mut sigma);
        let outside = (2f64.sqrt() - 1.0) * mu * G0 / (1.0 + mu * mu).sqrt();
        assert!((metrics.eps_p - outside).abs() < 1e-9 * outside, "{metrics:?} vs {outside}");

        let stop = StoppingRule { absolute: 1e-12, ..Default::default() };
        let mut admm = AdmmSolver::with_capacity(1, AdmmSettings { stop, ..Default::default() });
        let ncp = solve(&problem, &mut admm);
        let (vx, vy) = (ncp.sigma[0], ncp.sigma[1]);
        assert!((vy.atan2(vx) - heading).abs() < 1e-9, "NCP heading {}", vy.atan2(vx).to_degrees());
        let speed = (vx * vx + vy * vy).sqrt();
        assert!(
            (speed - (1.0 - mu * normal)).abs() < 1e-9,
            "speed {speed} vs {} ({:?})",
            1.0 - mu * normal,
            ncp.lambda
        );
    }

    /// On one axis the pyramid is the cone: a block on a 30° incline (gravity along the
    /// frame's x) sticks iff μ > tan 30°, with the friction impulse that holds it; sliding,
    /// the friction is μλ_N and σ_x = g₀Δt(sin θ − μ cos θ) (AT-07); at rest on flat
    /// ground λ = (0, 0, g₀Δt) (AT-03).
    #[test]
    fn on_one_axis_and_at_rest_the_pyramid_is_exact() {
        let theta = 30f64.to_radians();
        let identity: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        let g = [G0 * DT * theta.sin(), 0.0, -G0 * DT * theta.cos()];
        for (mu, sticks) in [(0.7, true), (0.3, false)] {
            let problem = ContactProblem::from_dense(&identity, &g, &[mu], &[]).unwrap();
            let result = solve(&problem, &mut lcp());
            assert!((result.lambda[2] + g[2]).abs() < 1e-15);
            if sticks {
                assert!((result.lambda[0] + g[0]).abs() < 1e-15 && result.sigma[0].abs() < 1e-15);
            } else {
                assert!((result.lambda[0] + mu * result.lambda[2]).abs() < 1e-15);
                let slide = G0 * DT * (theta.sin() - mu * theta.cos());
                assert!((result.sigma[0] - slide).abs() < 1e-15, "{:?}", result.sigma);
            }
            assert_eq!(result.lambda[1], 0.0);
        }
        let rest = solve(&point_mass([0.0, 0.0], 0.5), &mut lcp());
        assert_eq!(rest.lambda, [0.0, 0.0, G0 * DT]);
    }
}
