//! The friction cone of one contact and the operators the solvers need, on 3-vectors
//! ordered (Tx, Ty, N) (seed 000–002 digest §0).
//!
//! - K_μ = { λ : ‖λ_T‖ ≤ μ λ_N } (Coulomb), its dual K*_μ = K_{1/μ}, the polar K° = −K*.
//! - Γ(σ) = (0, 0, μ‖σ_T‖), the De Saxcé correction (seed 000 eq. 27): with it the NCP
//!   K ∋ λ ⊥ σ + Γ(σ) ∈ K* holds Signorini, Coulomb and maximum dissipation at once.
//!
//! Moreau: x = P_K(x) + P_{K°}(x) with the two parts orthogonal; the ADMM's iterates stay
//! in K and K* exactly because of it (seed 000 §III-C).

/// A contact's 3-vector, (Tx, Ty, N).
pub type Vec3c = [f64; 3];

/// ‖x_T‖. A plain square root, not `hypot` (five times slower in glibc, and its overflow
/// guard only matters for impulses above 1e154).
#[inline]
pub fn tangent_norm(x: &Vec3c) -> f64 {
    (x[0] * x[0] + x[1] * x[1]).sqrt()
}

/// Projection onto K_μ (Euclidean).
#[inline]
pub fn project_cone(mu: f64, x: &Vec3c) -> Vec3c {
    let r = tangent_norm(x);
    let n = x[2];
    // n ≥ 0 first: with μ = 0 (a joint limit, a frictionless contact) and x_T = 0,
    // r ≤ μn reads 0 ≤ −0 for any n < 0, and a pulling impulse would pass as inside.
    if n >= 0.0 && r <= mu * n {
        return *x;
    }
    if mu * r <= -n {
        return [0.0; 3];
    }
    // Onto the boundary ray through (μ x_T / r, 1): r > 0 here (r = 0 is inside or polar).
    let s = (mu * r + n) / (1.0 + mu * mu);
    [s * mu * x[0] / r, s * mu * x[1] / r, s]
}

/// The proximal step of a rigid block (R = 0) under the NCP, P_K(λ − (σ + Γ(σ))/ρ) with
/// Γ(σ) = (0, 0, μ‖σ_T‖) (seed 000 Alg. 2), without cancelling its two terms of size
/// μ‖σ_T‖/ρ. For a sliding contact and a small ρ (1e-8) they are about 10⁶ times λ, and
/// their difference, the next λ_N, would carry their rounding: ε·μ‖σ_T‖/ρ per step, a
/// random walk of the normal impulse from one call to the next. The boundary case uses
/// μ‖x_T‖ + x_N = μ(‖x_T‖ − ‖σ_T‖/ρ) + λ_N − σ_N/ρ, with
/// ‖x_T‖ − ‖σ_T‖/ρ = (‖λ_T‖² − 2 λ_T·σ_T/ρ) / (‖x_T‖ + ‖σ_T‖/ρ).
pub fn proximal_step_rigid_ncp(mu: f64, lambda: &Vec3c, sigma: &Vec3c, rho: f64) -> Vec3c {
    let slip = tangent_norm(sigma) / rho;
    let x = [lambda[0] - sigma[0] / rho, lambda[1] - sigma[1] / rho, lambda[2] - sigma[2] / rho - mu * slip];
    let r = tangent_norm(&x);
    if x[2] >= 0.0 && r <= mu * x[2] {
        return x;
    }
    let lambda_t2 = lambda[0] * lambda[0] + lambda[1] * lambda[1];
    let along = (lambda[0] * sigma[0] + lambda[1] * sigma[1]) / rho;
    let excess = if r + slip > 0.0 { (lambda_t2 - 2.0 * along) / (r + slip) } else { 0.0 };
    let t = mu * excess + lambda[2] - sigma[2] / rho;
    if t <= 0.0 || r == 0.0 {
        return [0.0; 3];
    }
    let s = t / (1.0 + mu * mu);
    [s * mu * x[0] / r, s * mu * x[1] / r, s]
}

/// Projection onto the dual cone K*_μ = K_{1/μ}.
#[inline]
pub fn project_dual_cone(mu: f64, x: &Vec3c) -> Vec3c {
    let r = tangent_norm(x);
    let n = x[2];
    if mu * r <= n {
        return *x;
    }
    if r <= -mu * n {
        return [0.0; 3];
    }
    let s = (r + mu * n) / (1.0 + mu * mu);
    [s * x[0] / r, s * x[1] / r, s * mu]
}

/// Γ(σ) = (0, 0, μ‖σ_T‖), the De Saxcé correction.
#[inline]
pub fn de_saxce(mu: f64, sigma: &Vec3c) -> Vec3c {
    [0.0, 0.0, mu * tangent_norm(sigma)]
}

/// Distance from x to K_μ.
#[inline]
pub fn distance_to_cone(mu: f64, x: &Vec3c) -> f64 {
    let p = project_cone(mu, x);
    norm(&sub(x, &p))
}

/// Distance from x to K*_μ.
#[inline]
pub fn distance_to_dual_cone(mu: f64, x: &Vec3c) -> f64 {
    let p = project_dual_cone(mu, x);
    norm(&sub(x, &p))
}

/// Projection onto K_μ in the metric ‖·‖_D, D = diag(d_t, d_t, d_n) > 0:
/// argmin_{y ∈ K} (y − x)ᵀ D (y − x) = D^{-1/2} P_{K_μ̃}(D^{1/2} x) with
/// μ̃ = μ √(d_t / d_n) (digest §0).
#[inline]
pub fn project_cone_weighted(mu: f64, d_t: f64, d_n: f64, x: &Vec3c) -> Vec3c {
    let (st, sn) = (d_t.sqrt(), d_n.sqrt());
    let scaled = [x[0] * st, x[1] * st, x[2] * sn];
    let p = project_cone(mu * st / sn, &scaled);
    [p[0] / st, p[1] / st, p[2] / sn]
}

/// The set a block's impulse lives in, and the operators the solvers need on it.
///
/// - `Cone(μ)`: a contact, λ ∈ K_μ (μ = 0 for a joint limit: λ = (0, 0, λ_N ≥ 0)).
/// - `Interval(b)`: a joint's Coulomb friction, λ = (0, 0, t) with |t| ≤ b (b = F·Δt, the
///   friction force bound times the step). The set is convex, and maximum dissipation on it
///   needs no correction: σ ∈ −N_C(λ) says t = −b sign(σ_N) when the joint slips and
///   σ_N = 0 when it sticks. In place of K* the ADMM's z lies in −N_C(y), which its dual
///   step gives for any closed convex set (Moreau's decomposition x = P_C(x) + (x − P_C(x))
///   with the second part in N_C(P_C(x))), and the complementarity measure is the
///   Fenchel–Young gap ⟨λ, z⟩ + h_C(−z) ≥ 0 (h_C the support function), zero exactly at a
///   solution; for z ∈ K* the support term vanishes and the gap is the cones' ⟨λ, z⟩.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BlockSet {
    /// The Coulomb cone K_μ.
    Cone(f64),
    /// The impulse interval |λ_N| ≤ b on the block's last row, other rows zero.
    Interval(f64),
}

impl BlockSet {
    /// The friction coefficient of a cone (0 for an interval).
    #[inline]
    pub fn friction(&self) -> f64 {
        match *self {
            BlockSet::Cone(mu) => mu,
            BlockSet::Interval(_) => 0.0,
        }
    }

    /// Euclidean projection onto the set.
    #[inline]
    pub fn project(&self, x: &Vec3c) -> Vec3c {
        match *self {
            BlockSet::Cone(mu) => project_cone(mu, x),
            BlockSet::Interval(b) => [0.0, 0.0, x[2].clamp(-b, b)],
        }
    }

    /// Projection in the metric diag(d_t, d_t, d_n) > 0 (for a cone, the analytic
    /// [`project_cone_weighted`]; an interval's rows are separate, so the clamp is it).
    #[inline]
    pub fn project_weighted(&self, d_t: f64, d_n: f64, x: &Vec3c) -> Vec3c {
        match *self {
            BlockSet::Cone(mu) => project_cone_weighted(mu, d_t, d_n, x),
            BlockSet::Interval(_) => self.project(x),
        }
    }

    /// Where a starting dual lies: K* for a cone, anywhere for an interval.
    #[inline]
    pub fn project_dual(&self, x: &Vec3c) -> Vec3c {
        match *self {
            BlockSet::Cone(mu) => project_dual_cone(mu, x),
            BlockSet::Interval(_) => *x,
        }
    }

    /// The NCP's De Saxcé correction Γ(σ) (zero for the CCP and for intervals).
    #[inline]
    pub fn correction(&self, ncp: bool, sigma: &Vec3c) -> Vec3c {
        match *self {
            BlockSet::Cone(mu) if ncp => de_saxce(mu, sigma),
            _ => [0.0; 3],
        }
    }

    /// Distance from λ to the set (primal feasibility).
    #[inline]
    pub fn distance(&self, x: &Vec3c) -> f64 {
        norm(&sub(x, &self.project(x)))
    }

    /// Distance from z to the dual cone (dual feasibility; an interval's dual is
    /// unconstrained).
    #[inline]
    pub fn dual_distance(&self, z: &Vec3c) -> f64 {
        match *self {
            BlockSet::Cone(mu) => distance_to_dual_cone(mu, z),
            BlockSet::Interval(_) => 0.0,
        }
    }

    /// The complementarity gap |⟨λ, z⟩ + h_C(−z)|, h_C(−z) = b|z_N| for an interval and 0
    /// for a cone (z ∈ K*).
    #[inline]
    pub fn gap(&self, lambda: &Vec3c, z: &Vec3c) -> f64 {
        match *self {
            BlockSet::Cone(_) => dot(lambda, z).abs(),
            BlockSet::Interval(b) => (dot(lambda, z) + b * z[2].abs()).abs(),
        }
    }

    /// How far z is from solving the block with λ = y ∈ C, in velocity units: for a cone
    /// dist_K*(z) and z's component along y (zero for a sticking contact only if z = 0, for
    /// a sliding one only if z lies on the dual ray opposite y); for an interval the
    /// distance from z to −N_C(y): |z_N| inside, the part of z_N along y at a bound.
    #[inline]
    pub fn velocity_error(&self, y: &Vec3c, z: &Vec3c) -> f64 {
        match *self {
            BlockSet::Cone(mu) => {
                let along = match norm(y) {
                    ny if ny > 0.0 => dot(y, z).abs() / ny,
                    _ => 0.0,
                };
                distance_to_dual_cone(mu, z).max(along)
            }
            BlockSet::Interval(b) => {
                if b <= 0.0 {
                    0.0
                } else if y[2] >= b {
                    z[2].max(0.0)
                } else if y[2] <= -b {
                    (-z[2]).max(0.0)
                } else {
                    z[2].abs()
                }
            }
        }
    }

    /// The NCP criterion of the block's impulse λ ∈ C with contact velocity σ, in velocity
    /// units, and z = σ + Γ(σ) (Γ the De Saxcé correction when `ncp`): z in K* and z's
    /// component along λ, [`Self::velocity_error`] (the product ⟨λ, z⟩ itself would scale
    /// with the impulses and accept velocity errors of a light robot's feet). The ADMM's
    /// start and iterate tests and the polish's check.
    #[inline]
    pub fn ncp_error(&self, ncp: bool, lambda: &Vec3c, sigma: &Vec3c) -> (f64, Vec3c) {
        let z = add(sigma, &self.correction(ncp, sigma));
        (self.velocity_error(lambda, &z), z)
    }
}

/// a − b.
#[inline]
pub fn sub(a: &Vec3c, b: &Vec3c) -> Vec3c {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// a + b.
#[inline]
pub fn add(a: &Vec3c, b: &Vec3c) -> Vec3c {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// a·b.
#[inline]
pub fn dot(a: &Vec3c, b: &Vec3c) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// ‖a‖.
#[inline]
pub fn norm(a: &Vec3c) -> f64 {
    dot(a, a).sqrt()
}

/// The 3-vector of contact `i` in a stacked vector.
#[inline]
pub fn block(x: &[f64], i: usize) -> Vec3c {
    [x[3 * i], x[3 * i + 1], x[3 * i + 2]]
}

/// Writes the 3-vector of contact `i`.
#[inline]
pub fn set_block(x: &mut [f64], i: usize, v: &Vec3c) {
    x[3 * i..3 * i + 3].copy_from_slice(v);
}

#[cfg(test)]
mod tests {
    //! AT-01 (seed 000–002 digest §4): idempotence, membership, Moreau, the worked
    //! example, and the weighted projection against brute force.
    use super::*;

    fn samples() -> Vec<(f64, Vec3c)> {
        let mut uniform = crate::sampling::uniform(0x9e37_79b9_7f4a_7c15);
        let mut next = move || 2.0 * uniform(); // [−2, 2)
        let mut out = Vec::new();
        for _ in 0..2000 {
            let mu = (next() + 2.0) * 0.5; // [0, 2)
            out.push((mu, [next(), next(), next()]));
        }
        // Edge cases: on the axis, on the boundary, zero friction.
        out.extend([
            (0.5, [0.0, 0.0, 1.0]),
            (0.5, [0.0, 0.0, -1.0]),
            (0.5, [0.5, 0.0, 1.0]),
            (0.0, [1.0, 2.0, 3.0]),
            (0.0, [1.0, 2.0, -3.0]),
            (0.7, [0.0; 3]),
        ]);
        out
    }

    fn in_cone(mu: f64, x: &Vec3c) -> bool {
        tangent_norm(x) <= mu * x[2] + 1e-12 * (1.0 + norm(x))
    }

    #[test]
    fn the_worked_example_of_the_digest() {
        let p = project_cone(0.5, &[2.0, 0.0, 1.0]);
        let want = [0.8, 0.0, 1.6];
        assert!(norm(&sub(&p, &want)) < 1e-15, "{p:?}");
    }

    #[test]
    fn projections_land_in_their_cones_and_are_idempotent() {
        for (mu, x) in samples() {
            let p = project_cone(mu, &x);
            assert!(in_cone(mu, &p), "{mu} {x:?} -> {p:?}");
            assert!(norm(&sub(&project_cone(mu, &p), &p)) <= 1e-15 * (1.0 + norm(&p)));
            let d = project_dual_cone(mu, &x);
            assert!(mu * tangent_norm(&d) <= d[2] + 1e-12 * (1.0 + norm(&d)), "{mu} {x:?} -> {d:?}");
            assert!(norm(&sub(&project_dual_cone(mu, &d), &d)) <= 1e-15 * (1.0 + norm(&d)));
        }
    }

    #[test]
    fn moreau_splits_every_vector_into_orthogonal_cone_and_polar_parts() {
        for (mu, x) in samples() {
            let p = project_cone(mu, &x);
            // K° = −K*: P_{K°}(x) = −P_{K*}(−x).
            let minus_x = [-x[0], -x[1], -x[2]];
            let q = project_dual_cone(mu, &minus_x);
            let polar = [-q[0], -q[1], -q[2]];
            let scale = 1.0 + norm(&x);
            assert!(norm(&sub(&add(&p, &polar), &x)) < 1e-14 * scale, "{mu} {x:?}");
            assert!(dot(&p, &polar).abs() < 1e-14 * scale * scale, "{mu} {x:?}");
        }
    }

    #[test]
    fn the_weighted_projection_minimizes_the_weighted_distance() {
        // Brute force over the cone boundary and the inside: no point of K is closer in
        // the D-metric than the closed form.
        let cases =
            [(0.5, 4.0, 1.0, [2.0, -1.0, 0.5]), (0.8, 0.1, 3.0, [-1.0, 0.3, 0.2]), (1.2, 2.0, 2.0, [0.3, 0.1, -1.0])];
        for (mu, dt, dn, x) in cases {
            let p = project_cone_weighted(mu, dt, dn, &x);
            assert!(in_cone(mu, &p));
            let dist = |y: &Vec3c| {
                let e = sub(y, &x);
                dt * (e[0] * e[0] + e[1] * e[1]) + dn * e[2] * e[2]
            };
            let best = dist(&p);
            for i in 0..400 {
                for j in 0..100 {
                    let n = j as f64 * 0.03;
                    let a = std::f64::consts::TAU * i as f64 / 400.0;
                    for s in [1.0, 0.5, 0.0] {
                        let y = [s * mu * n * a.cos(), s * mu * n * a.sin(), n];
                        assert!(dist(&y) >= best - 1e-12, "{y:?} beats {p:?}");
                    }
                }
            }
            // Equal weights: the Euclidean projection.
            let e = project_cone_weighted(mu, 3.0, 3.0, &x);
            assert!(norm(&sub(&e, &project_cone(mu, &x))) < 1e-15);
        }
    }

    #[test]
    fn the_interval_gap_vanishes_exactly_at_maximum_dissipation() {
        let set = BlockSet::Interval(2.0);
        assert_eq!(set.project(&[1.0, -3.0, 5.0]), [0.0, 0.0, 2.0]);
        assert_eq!(set.project(&[1.0, -3.0, -0.5]), [0.0, 0.0, -0.5]);
        // Slipping forward (σ_N > 0) with the friction at its bound against it: solved.
        assert_eq!(set.gap(&[0.0, 0.0, -2.0], &[0.0, 0.0, 0.3]), 0.0);
        // The same friction while slipping backward, or friction inside the bound while
        // slipping: not solved.
        assert!(set.gap(&[0.0, 0.0, -2.0], &[0.0, 0.0, -0.3]) > 1.0);
        assert_eq!(set.velocity_error(&[0.0, 0.0, -2.0], &[0.0, 0.0, -0.3]), 0.3);
        assert!(set.gap(&[0.0, 0.0, 1.0], &[0.0, 0.0, 0.3]) > 0.5);
        assert_eq!(set.velocity_error(&[0.0, 0.0, 1.0], &[0.0, 0.0, 0.3]), 0.3);
        assert_eq!(set.velocity_error(&[0.0, 0.0, 1.99], &[0.0, 0.0, -0.3]), 0.3);
        // Sticking inside: only σ_N = 0 solves it.
        assert_eq!(set.gap(&[0.0, 0.0, 1.0], &[0.0, 0.0, 0.0]), 0.0);
        // The dual step's z = −ρ(x − P_C(x)) always closes the gap (Moreau).
        for x in [-3.0, -2.0, -0.1, 0.0, 1.5, 2.0, 7.0] {
            let p = set.project(&[0.0, 0.0, x]);
            let z = [0.0, 0.0, -(x - p[2])];
            assert!(set.gap(&p, &z) < 1e-15, "{x}");
        }
    }

    /// A pulling normal impulse with no tangent part leaves every cone, K_0 (a joint limit)
    /// included: its projection is 0, and the rigid NCP step from it too.
    #[test]
    fn a_pulling_impulse_is_projected_to_zero_on_every_cone() {
        for mu in [0.0, 0.5] {
            for x in [[0.0, 0.0, -2.0], [-0.0, -0.0, -1e-12]] {
                assert_eq!(project_cone(mu, &x), [0.0; 3], "μ {mu}, {x:?}");
                assert_eq!(distance_to_cone(mu, &x), x[2].abs(), "μ {mu}, {x:?}");
                assert_eq!(proximal_step_rigid_ncp(mu, &[0.0; 3], &[0.0, 0.0, -x[2]], 1.0), [0.0; 3], "μ {mu}");
            }
            assert_eq!(project_cone(mu, &[0.0, 0.0, 3.0]), [0.0, 0.0, 3.0], "μ {mu}");
        }
    }

    #[test]
    fn de_saxce_shifts_a_sliding_velocity_onto_the_dual_cone_boundary() {
        // A pure slip (c_N = 0) is outside K* but c + Γ(c) lies on its boundary.
        let c = [0.3, -0.4, 0.0];
        let z = add(&c, &de_saxce(0.5, &c));
        assert!(distance_to_dual_cone(0.5, &c) > 0.1);
        assert!(distance_to_dual_cone(0.5, &z) < 1e-15);
        assert!((z[2] - 0.25).abs() < 1e-15);
    }
}
