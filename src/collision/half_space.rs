//! Contacts of a convex shape against a half-space (ground, inclines): the most common
//! pair for legged robots, so computed directly rather than by a general algorithm.
//!
//! The plane is `{x : n·x = h}` with unit normal n pointing out of the half-space. Each
//! shape proposes candidate surface points with a stable feature number (a sphere its
//! lowest point; a capsule the lowest points of its two end spheres; a box its 8
//! corners; a cylinder, per cap, its lowest rim point and 4 rim points along its local x
//! and y; a convex hull its vertices). Those closer than the margin are reduced to at
//! most 4 points spanning the largest area (deepest, farthest from it, farthest from
//! their line, largest added area): a box resting on a face gives its 4 corners, a
//! sphere 1 point, a lying cylinder the 2 ends of its lowest line.
//!
//! A convex hull is not scanned: its deepest vertex is found by walking down its edges
//! (a linear function over a convex polytope has no other local minimum on the vertex
//! graph), from the previous step's deepest vertex; the candidates are then the vertices
//! of its support face, the face around that vertex most opposed to the plane's normal
//! (coplanar triangles are merged into polygons at load). A hull resting on a flat face
//! gives that face's corners, a tilted one its lowest vertex or edge, a rounded foot its
//! lowest vertex (the small face at its bottom is the tessellation's: [`point_patch`]),
//! at a cost independent of the tessellation (solo12's feet have 672 vertices, 150 of
//! them within the default 5 mm margin of the ground).

use super::shape::{Adjacency, HullFaces, ShapeKind};
use crate::spatial::{SE3, Vec3};

/// Scratch memory for [`contacts`], sized once for the largest hull of the world.
#[derive(Clone, Debug, Default)]
pub struct PlaneScratch {
    candidates: Vec<Candidate>,
}

impl PlaneScratch {
    /// For shapes of up to `vertices` candidate points.
    pub fn with_capacity(vertices: usize) -> Self {
        Self { candidates: Vec::with_capacity(vertices) }
    }
}

/// A contact against the plane.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PlanePoint {
    /// The point on the shape's surface (world).
    pub point: Vec3,
    /// Its signed distance to the plane (negative below).
    pub distance: f64,
    /// Stable feature number of the point on the shape.
    pub feature: u32,
}

/// Candidates closer than this (m) to the point, segment or triangle already chosen add
/// no point. (1 mm would also drop the slivers of hulls larger than a foot, but the
/// differential-drive robot of tests/joint_commands.rs, on lying cylinders whose rim
/// points then come and go for two steps every time one passes under the wheel, veered
/// 1.6e-5 m in 2 s with it against 1e-16 m with 1 µm; why the symmetry breaks is not
/// pinned down.)
const MERGE: f64 = 1e-6;

/// A convex hull's whole patch is its deepest point when every candidate lies within this
/// fraction of the hull's bounding radius of that point (MuJoCo's `tolplanemesh` for its
/// mesh–plane contacts): a hull made from a rounded mesh rests on a facet of the
/// tessellation, not on a face of the body. Solo12's foot (672 vertices, 16 mm in radius)
/// rests on a face 4 mm across; kept as 2 or 3 points, each foot added directions of
/// Delassus eigenvalue 10⁻⁸ to 10⁻⁵ times the largest (the foot's roll about the patch)
/// and the ADMM took 7.8 iterations a step on average and up to 341 under random torques,
/// against 1.1 and 38 with the foot as a point (examples/sim_dynamic.rs on
/// scripts/bench_sim.py's drive). Exact primitives (boxes, cylinders, capsules) keep
/// their patches: their faces are the body's.
pub const HULL_PATCH_FRACTION: f64 = 0.3;

/// The radius around its deepest point within which a patch of the shape `kind`, of
/// bounding radius `radius`, is that one point ([`HULL_PATCH_FRACTION`]; 0 for exact
/// primitives).
pub fn point_patch(kind: &ShapeKind, radius: f64) -> f64 {
    match kind {
        ShapeKind::ConvexHull { .. } => HULL_PATCH_FRACTION * radius,
        _ => 0.0,
    }
}

/// A candidate point of the shape, with its coordinates in the plane for the reduction.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Candidate {
    /// Coordinates along the plane's two tangents.
    pub u: f64,
    /// Second coordinate.
    pub v: f64,
    /// Signed distance to the plane.
    pub distance: f64,
    /// Vertex or feature number.
    pub feature: u32,
    /// The point (world).
    pub point: Vec3,
}

/// Candidate `k` of the shape at `pose`, if it exists.
#[inline]
fn candidate(kind: &ShapeKind, pose: &SE3, n: &Vec3, k: usize) -> Option<(Vec3, u32)> {
    let r = &pose.rotation;
    let t = &pose.translation;
    match kind {
        ShapeKind::Sphere { radius } => (k == 0).then(|| (t - n * *radius, 0)),
        ShapeKind::Capsule { radius, half_length } => (k < 2).then(|| {
            let s = if k == 0 { -1.0 } else { 1.0 };
            (t + r.column(2) * (s * half_length) - n * *radius, k as u32)
        }),
        ShapeKind::Box { half_extents: h } => (k < 8).then(|| {
            let s = |bit: usize| if k >> bit & 1 == 0 { -1.0 } else { 1.0 };
            (pose.act_point(&Vec3::new(s(0) * h.x, s(1) * h.y, s(2) * h.z)), k as u32)
        }),
        ShapeKind::Cylinder { radius, half_length } => {
            if k >= 10 {
                return None;
            }
            let (cap, j) = (k / 5, k % 5);
            let axis = r.column(2).into_owned();
            let centre = t + axis * (if cap == 0 { -half_length } else { *half_length });
            let dir = match j {
                0 => r.column(0).into_owned(),
                1 => r.column(1).into_owned(),
                2 => -r.column(0),
                3 => -r.column(1),
                _ => {
                    // The lowest point of the rim: −n projected on the cap's plane.
                    let u = -n + axis * n.dot(&axis);
                    let len = u.norm();
                    if len < 1e-9 {
                        return None;
                    }
                    u / len
                }
            };
            Some((centre + dir * *radius, k as u32))
        }
        ShapeKind::ConvexHull { .. } | ShapeKind::TriMesh { .. } | ShapeKind::HalfSpace => None,
    }
}

fn candidate_count(kind: &ShapeKind) -> usize {
    match kind {
        ShapeKind::Sphere { .. } => 1,
        ShapeKind::Capsule { .. } => 2,
        ShapeKind::Box { .. } => 8,
        ShapeKind::Cylinder { .. } => 10,
        ShapeKind::ConvexHull { .. } | ShapeKind::TriMesh { .. } | ShapeKind::HalfSpace => 0,
    }
}

/// The hull's deepest vertex under `height` and its height, walking down its edges from
/// `hint` (a linear function over a convex polytope has no other local minimum on the
/// vertex graph); `hint` becomes it.
fn deepest_vertex(adjacency: &Adjacency, height: &impl Fn(u32) -> f64, hint: &mut u32, count: usize) -> (u32, f64) {
    let mut v = (*hint).min(count as u32 - 1);
    let mut hv = height(v);
    loop {
        let mut moved = false;
        for &w in adjacency.of(v) {
            let hw = height(w);
            if hw < hv {
                (v, hv, moved) = (w, hw, true);
            }
        }
        if !moved {
            break;
        }
    }
    *hint = v;
    (v, hv)
}

/// The support face of a hull (see the module documentation) into
/// `scratch.candidates`, in plane coordinates; `hint` is the previous deepest vertex and
/// becomes the new one.
#[allow(clippy::too_many_arguments)]
fn hull_candidates(
    vertices: &[Vec3],
    adjacency: &Adjacency,
    faces: &HullFaces,
    pose: &SE3,
    n: &Vec3,
    h: f64,
    margin: f64,
    scratch: &mut PlaneScratch,
    hint: &mut u32,
) {
    if vertices.is_empty() {
        return;
    }
    // The plane in the hull's frame: height(v) = n_l·v − h_l; tangents t1, t2.
    let nl = pose.rotation.tr_mul(n);
    let hl = h - n.dot(&pose.translation);
    let height = |v: u32| nl.dot(&vertices[v as usize]) - hl;
    let (v, hv) = deepest_vertex(adjacency, &height, hint, vertices.len());
    if hv >= margin {
        return;
    }
    let mut support = None;
    let mut alignment = f64::INFINITY;
    for &f in faces.vertex_faces.of(v) {
        let a = faces.normals[f as usize].dot(&nl);
        if a < alignment {
            (alignment, support) = (a, Some(f));
        }
    }
    let frame = super::contact::contact_frame(&nl);
    let (t1, t2) = (frame.column(0).into_owned(), frame.column(1).into_owned());
    let mut push = |u: u32, d: f64| {
        let p = &vertices[u as usize];
        let point = pose.act_point(p);
        scratch.candidates.push(Candidate { u: t1.dot(p), v: t2.dot(p), distance: d, feature: u, point });
    };
    match support {
        Some(f) => {
            for &u in faces.face_vertices.of(f) {
                let d = height(u);
                if d < margin {
                    push(u, d);
                }
            }
        }
        None => push(v, hv),
    }
}

/// The candidate points of the shape at `pose` closer than `margin` to the plane (n, h),
/// before reduction. `hint` carries a hull's deepest vertex from one call to the next. No
/// allocation (`scratch` is sized for the shape).
#[allow(clippy::too_many_arguments)]
pub fn candidates<'a>(
    kind: &ShapeKind,
    pose: &SE3,
    n: &Vec3,
    h: f64,
    margin: f64,
    scratch: &'a mut PlaneScratch,
    hint: &mut u32,
) -> &'a [Candidate] {
    scratch.candidates.clear();
    if let ShapeKind::ConvexHull { vertices, adjacency, faces } = kind {
        hull_candidates(vertices, adjacency, faces, pose, n, h, margin, scratch, hint);
        return &scratch.candidates;
    }
    let frame = super::contact::contact_frame(n);
    let (t1, t2) = (frame.column(0).into_owned(), frame.column(1).into_owned());
    for k in 0..candidate_count(kind) {
        if let Some((point, feature)) = candidate(kind, pose, n, k) {
            let distance = n.dot(&point) - h;
            if distance < margin {
                scratch.candidates.push(Candidate { u: t1.dot(&point), v: t2.dot(&point), distance, feature, point });
            }
        }
    }
    &scratch.candidates
}

/// Every feature of the shape at `pose` deeper than `depth` below the plane (n, h): a
/// hull's vertices (the set below a plane is connected on a convex polytope's vertex
/// graph: walked from its deepest vertex), a primitive's candidate points. What the step
/// checks its end against ([`crate::collision::CollisionWorld::force_below`]): unlike
/// [`candidates`], not only a hull's support face. No allocation (`scratch` is sized for
/// the shape).
#[allow(clippy::too_many_arguments)]
pub fn below<'a>(
    kind: &ShapeKind,
    pose: &SE3,
    n: &Vec3,
    h: f64,
    depth: f64,
    scratch: &'a mut PlaneScratch,
    hint: &mut u32,
) -> &'a [Candidate] {
    let ShapeKind::ConvexHull { vertices, adjacency, .. } = kind else {
        return candidates(kind, pose, n, h, -depth, scratch, hint);
    };
    scratch.candidates.clear();
    if vertices.is_empty() {
        return &scratch.candidates;
    }
    let nl = pose.rotation.tr_mul(n);
    let hl = h - n.dot(&pose.translation);
    let height = |v: u32| nl.dot(&vertices[v as usize]) - hl;
    let (v, hv) = deepest_vertex(adjacency, &height, hint, vertices.len());
    if hv >= -depth {
        return &scratch.candidates;
    }
    let push = |list: &mut Vec<Candidate>, u: u32, d: f64| {
        list.push(Candidate { u: 0.0, v: 0.0, distance: d, feature: u, point: pose.act_point(&vertices[u as usize]) });
    };
    push(&mut scratch.candidates, v, hv);
    // Breadth first over the vertices below: the list is the queue and the visited set.
    let mut next = 0;
    while next < scratch.candidates.len() {
        let x = scratch.candidates[next].feature;
        next += 1;
        for &w in adjacency.of(x) {
            let hw = height(w);
            if hw < -depth && !scratch.candidates.iter().any(|c| c.feature == w) {
                push(&mut scratch.candidates, w, hw);
            }
        }
    }
    &scratch.candidates
}

/// Feature `feature` of the shape at `pose` against the plane (n, h) (a hull's vertex, a
/// primitive's candidate point, as [`candidates`] numbers them), with its signed
/// distance; None if the shape has no such feature.
pub fn feature_point(kind: &ShapeKind, pose: &SE3, n: &Vec3, h: f64, feature: u32) -> Option<PlanePoint> {
    let point = match kind {
        ShapeKind::ConvexHull { vertices, .. } => pose.act_point(vertices.get(feature as usize)?),
        _ => candidate(kind, pose, n, feature as usize)?.0,
    };
    Some(PlanePoint { point, distance: n.dot(&point) - h, feature })
}

/// Up to 4 contact points of the shape at `pose` against the plane (n, h), closer than
/// `margin`, into `out`; returns how many: the [`candidates`] reduced to the 4 spanning
/// the largest area ([`reduce`], with the shape's `point_patch`: [`point_patch`]).
#[allow(clippy::too_many_arguments)]
pub fn contacts(
    kind: &ShapeKind,
    point_patch: f64,
    pose: &SE3,
    n: &Vec3,
    h: f64,
    margin: f64,
    scratch: &mut PlaneScratch,
    hint: &mut u32,
    out: &mut [PlanePoint; 4],
) -> usize {
    let mut chosen = [Candidate::default(); 4];
    let found = candidates(kind, pose, n, h, margin, scratch, hint);
    let count = reduce(found, point_patch, &mut chosen);
    for (o, c) in out.iter_mut().zip(&chosen[..count]) {
        *o = PlanePoint { point: c.point, distance: c.distance, feature: c.feature };
    }
    count
}

/// Index of the candidate maximizing `score` (the first of equals), with its score.
#[inline]
fn best(candidates: &[Candidate], score: impl Fn(&Candidate) -> f64) -> (usize, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for (k, c) in candidates.iter().enumerate() {
        let s = score(c);
        if s > best.1 {
            best = (k, s);
        }
    }
    best
}

/// At most 4 of the candidates, spanning the largest area in the plane: one point when all
/// lie within `point_patch` ([`point_patch`]) of the deepest; a candidate within
/// [`MERGE`] of the point, segment or triangle already chosen adds none.
pub fn reduce(candidates: &[Candidate], point_patch: f64, out: &mut [Candidate; 4]) -> usize {
    if candidates.is_empty() {
        return 0;
    }
    let merge = MERGE;
    let single = merge.max(point_patch);
    // 1: the deepest.
    let a = candidates[best(candidates, |c| -c.distance).0];
    out[0] = a;
    // 2: the farthest from it.
    let length = |p: &Candidate, q: &Candidate| (q.u - p.u).hypot(q.v - p.v);
    let (k, d2) = best(candidates, |c| (c.u - a.u) * (c.u - a.u) + (c.v - a.v) * (c.v - a.v));
    if d2 < single * single {
        return 1;
    }
    let b = candidates[k];
    out[1] = b;
    // 3: the farthest from the line through them (twice the triangle's area over |ab|).
    let cross = |p: &Candidate, q: &Candidate, r: &Candidate| (q.u - p.u) * (r.v - p.v) - (q.v - p.v) * (r.u - p.u);
    let (k, area3) = best(candidates, |c| cross(&a, &b, c).abs());
    if area3 < merge * length(&a, &b) {
        return 2;
    }
    let c = candidates[k];
    out[2] = c;
    // 4: the one adding the largest area to the triangle (outside one of its edges), if it
    // lies farther than MERGE outside that edge.
    let o = cross(&a, &b, &c).signum();
    let beyond = |p: &Candidate, q: &Candidate, r: &Candidate| -o * cross(p, q, r) / length(p, q);
    let (k, _) = best(candidates, |q| (-o * cross(&a, &b, q)).max(-o * cross(&b, &c, q)).max(-o * cross(&c, &a, q)));
    let d = candidates[k];
    if beyond(&a, &b, &d).max(beyond(&b, &c, &d)).max(beyond(&c, &a, &d)) > merge {
        out[3] = d;
        4
    } else {
        3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::{Mat3, rotation_from_rpy};

    fn run(kind: &ShapeKind, pose: &SE3) -> Vec<PlanePoint> {
        let mut out = [PlanePoint::default(); 4];
        let mut scratch = PlaneScratch::with_capacity(16);
        let n = contacts(kind, 0.0, pose, &Vec3::z(), 0.0, 0.005, &mut scratch, &mut 0, &mut out);
        out[..n].to_vec()
    }

    #[test]
    fn a_hull_gives_its_support_face() {
        use crate::collision::shape::CollisionShape;
        // A box-shaped hull with extra points on its faces: the bottom face is one polygon.
        let mut points = Vec::new();
        for x in [-0.2, -0.1, 0.0, 0.1, 0.2] {
            for y in [-0.1, 0.0, 0.1] {
                for z in [-0.05, 0.05] {
                    points.push(Vec3::new(x, y, z));
                }
            }
        }
        let hull = CollisionShape::convex_hull(&points, "box").unwrap();
        let ShapeKind::ConvexHull { faces, .. } = &hull.kind else { panic!() };
        assert_eq!(faces.normals.len(), 6, "coplanar triangles merged into 6 faces");
        let box_ = ShapeKind::Box { half_extents: Vec3::new(0.2, 0.1, 0.05) };
        let mut scratch = PlaneScratch::with_capacity(64);
        for (k, pose) in [
            SE3::from_translation(Vec3::new(0.3, 0.1, 0.049)),
            SE3::new(rotation_from_rpy(0.0, 0.0, 0.7), Vec3::new(0.0, 0.0, 0.05)),
            SE3::new(rotation_from_rpy(std::f64::consts::FRAC_PI_6, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.0936)),
            SE3::new(rotation_from_rpy(0.3, 0.2, 0.1), Vec3::new(0.0, 0.0, 0.1)),
        ]
        .iter()
        .enumerate()
        {
            let (mut a, mut b) = ([PlanePoint::default(); 4], [PlanePoint::default(); 4]);
            let patch = point_patch(&hull.kind, hull.bounding_sphere().1);
            let na = contacts(&hull.kind, patch, pose, &Vec3::z(), 0.0, 0.005, &mut scratch, &mut 0, &mut a);
            let nb = contacts(&box_, 0.0, pose, &Vec3::z(), 0.0, 0.005, &mut scratch, &mut 0, &mut b);
            let key = |p: &PlanePoint| [0, 1, 2].map(|i| (p.point[i] * 1e6).round() as i64);
            let mut ka: Vec<_> = a[..na].iter().map(key).collect();
            let mut kb: Vec<_> = b[..nb].iter().map(key).collect();
            ka.sort();
            kb.sort();
            assert_eq!(ka, kb, "pose {k}");
        }
    }

    /// `below` finds every vertex of a hull deeper than the depth under the plane, and no
    /// other, whatever face it rests on and wherever the walk starts: against a scan of
    /// all its vertices, for a sole bulging 1 mm down (a 6 × 4 grid; talos's 20 lowest
    /// vertices span 1 mm of height) in 200 random poses; `feature_point` gives each
    /// vertex's point.
    #[test]
    fn below_finds_every_vertex_under_the_plane() {
        use crate::collision::shape::CollisionShape;
        let points: Vec<Vec3> = (0..24)
            .flat_map(|k| {
                let (x, y) = (-0.1 + 0.04 * f64::from(k % 6), -0.05 + 0.1 / 3.0 * f64::from(k / 6));
                let bulge = 0.001 * (1.0 - (x / 0.1).powi(2)) * (1.0 - (y / 0.05).powi(2));
                [Vec3::new(x, y, -0.04 - bulge), Vec3::new(x, y, 0.04)]
            })
            .collect();
        let hull = CollisionShape::convex_hull(&points, "sole").unwrap();
        let ShapeKind::ConvexHull { vertices, .. } = &hull.kind else { panic!() };
        let mut scratch = PlaneScratch::with_capacity(vertices.len());
        let mut seed = 7u64;
        let mut uniform = move || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let (mut found, mut hint) = (0, 0);
        for _ in 0..200 {
            let rotation = rotation_from_rpy(0.3 * (uniform() - 0.5), 0.3 * (uniform() - 0.5), 6.0 * uniform());
            let pose = SE3::new(rotation, Vec3::new(uniform() - 0.5, uniform() - 0.5, 0.05 + 0.01 * (uniform() - 0.5)));
            let depth = 1e-6;
            let mut expected: Vec<u32> =
                (0..vertices.len() as u32).filter(|&v| pose.act_point(&vertices[v as usize]).z < -depth).collect();
            let below = below(&hull.kind, &pose, &Vec3::z(), 0.0, depth, &mut scratch, &mut hint);
            let mut got: Vec<u32> = below.iter().map(|c| c.feature).collect();
            for c in below {
                let p = feature_point(&hull.kind, &pose, &Vec3::z(), 0.0, c.feature).unwrap();
                assert_eq!((p.point, p.distance), (c.point, c.distance));
            }
            expected.sort_unstable();
            got.sort_unstable();
            assert_eq!(got, expected);
            found += got.len();
        }
        assert!(found > 100, "the poses put {found} vertices below in all");
    }

    /// A hull of `points` resting on the ground, moved `lift` above its lowest vertex (the
    /// contacts against z = 0 with a 5 mm margin).
    fn hull_on_ground(points: &[Vec3], lift: f64) -> Vec<PlanePoint> {
        use crate::collision::shape::CollisionShape;
        let hull = CollisionShape::convex_hull(points, "hull").unwrap();
        let lowest = points.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
        let pose = SE3::from_translation(Vec3::new(0.0, 0.0, lift - lowest));
        let (mut out, mut scratch) = ([PlanePoint::default(); 4], PlaneScratch::with_capacity(points.len()));
        let patch = point_patch(&hull.kind, hull.bounding_sphere().1);
        let n = contacts(&hull.kind, patch, &pose, &Vec3::z(), 0.0, 0.005, &mut scratch, &mut 0, &mut out);
        out[..n].to_vec()
    }

    /// A rounded hull (a latitude–longitude sphere of 16 mm, solo12's foot's size, its
    /// bottom a 12-sided facet about 8 mm across) touches at one point, its lowest: the
    /// facet is the tessellation's, within HULL_PATCH_FRACTION of the radius. A thin bar's
    /// hull (1 m by 1 cm by 1 cm) lying on a long face keeps the 4 corners of that face:
    /// its patch reaches far beyond that fraction of its radius, whatever its width.
    #[test]
    fn a_rounded_hull_touches_at_a_point_and_a_thin_bar_on_its_face() {
        let (r, rings, sectors) = (0.016, 12, 12);
        let mut sphere = vec![Vec3::new(0.0, 0.0, r), Vec3::new(0.0, 0.0, -r)];
        for i in 1..rings {
            let theta = std::f64::consts::PI * i as f64 / rings as f64;
            for j in 0..sectors {
                let phi = 2.0 * std::f64::consts::PI * j as f64 / sectors as f64;
                sphere.push(r * Vec3::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos()));
            }
        }
        // Lowered 1 mm: the bottom ring (4.1 mm from the pole, 1.1 mm higher) is in the
        // margin, so the support facet has 12 candidates.
        let c = hull_on_ground(&sphere, -0.001);
        assert_eq!(c.len(), 1, "{c:?}");
        assert!((c[0].point - Vec3::new(0.0, 0.0, -0.001)).norm() < 1e-12 && (c[0].distance + 0.001).abs() < 1e-12);

        let bar: Vec<Vec3> = (0..8)
            .map(|k| {
                Vec3::new(
                    if k & 1 == 0 { -0.5 } else { 0.5 },
                    if k & 2 == 0 { -0.005 } else { 0.005 },
                    if k & 4 == 0 { -0.005 } else { 0.005 },
                )
            })
            .collect();
        let c = hull_on_ground(&bar, -0.0005);
        assert_eq!(c.len(), 4, "{c:?}");
    }

    /// The point patch: a patch 4 mm across is one point (its deepest) within a 5 mm
    /// patch, and its 3 points without one; a fourth point 0.5 mm outside the triangle is
    /// its own.
    #[test]
    fn a_patch_within_the_point_patch_is_its_deepest_point() {
        let at =
            |u: f64, v: f64, distance: f64| Candidate { u, v, distance, feature: 0, point: Vec3::new(u, v, distance) };
        let mut out = [Candidate::default(); 4];
        let patch = [at(0.0, 0.0, -0.002), at(0.004, 0.0, -0.0016), at(0.002, 0.002, -0.0019)];
        assert_eq!(reduce(&patch, 0.0, &mut out), 3);
        assert_eq!(reduce(&patch, 0.005, &mut out), 1);
        assert_eq!((out[0].u, out[0].v), (0.0, 0.0));
        let four = [patch[0], patch[1], patch[2], at(0.002, -0.0005, -0.001)];
        assert_eq!(reduce(&four, 0.0, &mut out), 4);
    }

    #[test]
    fn a_sphere_touches_at_its_lowest_point() {
        let s = ShapeKind::Sphere { radius: 0.1 };
        let c = run(&s, &SE3::from_translation(Vec3::new(0.3, 0.2, 0.098)));
        assert_eq!(c.len(), 1);
        assert!((c[0].distance + 0.002).abs() < 1e-15);
        assert!((c[0].point - Vec3::new(0.3, 0.2, -0.002)).norm() < 1e-15);
        assert!(run(&s, &SE3::from_translation(Vec3::new(0.0, 0.0, 0.2))).is_empty());
    }

    #[test]
    fn a_box_resting_on_its_face_gives_its_four_bottom_corners() {
        let b = ShapeKind::Box { half_extents: Vec3::new(0.2, 0.1, 0.05) };
        let c = run(&b, &SE3::from_translation(Vec3::new(1.0, 0.0, 0.05)));
        assert_eq!(c.len(), 4);
        let mut corners: Vec<(i64, i64)> =
            c.iter().map(|p| ((p.point.x * 100.0).round() as i64, (p.point.y * 100.0).round() as i64)).collect();
        corners.sort();
        assert_eq!(corners, vec![(80, -10), (80, 10), (120, -10), (120, 10)]);
        assert!(c.iter().all(|p| p.distance.abs() < 1e-15));
        // Rotated 45° about z: still 4 corners, now on a diamond.
        let pose = SE3::new(rotation_from_rpy(0.0, 0.0, std::f64::consts::FRAC_PI_4), Vec3::new(0.0, 0.0, 0.05));
        assert_eq!(run(&b, &pose).len(), 4);
        // Tilted about x by 30°: one edge down, 2 corners touch.
        let pose = SE3::new(rotation_from_rpy(std::f64::consts::FRAC_PI_6, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.0936));
        let c = run(&b, &pose);
        assert_eq!(c.len(), 2, "{c:?}");
    }

    #[test]
    fn a_cylinder_standing_gives_four_rim_points_and_lying_two() {
        let cyl = ShapeKind::Cylinder { radius: 0.05, half_length: 0.1 };
        let standing = run(&cyl, &SE3::from_translation(Vec3::new(0.0, 0.0, 0.1)));
        assert_eq!(standing.len(), 4);
        assert!(standing.iter().all(|p| (p.point.z).abs() < 1e-15 && (p.point.xy().norm() - 0.05).abs() < 1e-15));
        let lying = SE3::new(rotation_from_rpy(std::f64::consts::FRAC_PI_2, 0.0, 0.0), Vec3::new(0.0, 0.0, 0.05));
        let c = run(&cyl, &lying);
        assert_eq!(c.len(), 2, "{c:?}");
        let mut ys: Vec<f64> = c.iter().map(|p| p.point.y).collect();
        ys.sort_by(f64::total_cmp);
        assert!((ys[0] + 0.1).abs() < 1e-12 && (ys[1] - 0.1).abs() < 1e-12);
        assert!(c.iter().all(|p| p.point.z.abs() < 1e-12));
    }

    #[test]
    fn a_capsule_lying_touches_at_both_ends() {
        let cap = ShapeKind::Capsule { radius: 0.02, half_length: 0.1 };
        let pose = SE3::new(rotation_from_rpy(0.0, std::f64::consts::FRAC_PI_2, 0.0), Vec3::new(0.0, 0.0, 0.02));
        let c = run(&cap, &pose);
        assert_eq!(c.len(), 2);
        let _ = Mat3::identity();
    }
}
