//! The only module that knows parry3d-f64: builds its shapes, converts poses between
//! nalgebra (the rest of the crate) and glam (parry), and runs its contact-manifold
//! queries into reusable buffers.

use parry3d_f64::math::{Mat3 as GlamMat3, Pose, Rot3, Vector};
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::{self, CsoPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, TrackedContact};
use parry3d_f64::shape::{
    Ball, Capsule, ConvexPolyhedron, Cuboid, Cylinder, FeatureId, PackedFeatureId, PolygonalFeature,
    PolygonalFeatureMap, Shape, ShapeType, SupportMap, Triangle,
};

use crate::spatial::{Mat3, SE3, Vec3};

/// A parry shape, built once.
pub struct ParryShape {
    shape: Box<dyn Shape>,
    /// Placement of parry's shape frame in ours (parry cylinders run along y, ours along z).
    offset: Option<SE3>,
    /// Convex hulls: the same polyhedron with a support function that climbs its vertex
    /// graph (used for every polygonal-feature query).
    hull: Option<Box<ClimbingHull>>,
}

/// A convex polyhedron whose support point is found by climbing its vertex graph, as
/// MuJoCo does for large meshes, from the best vertex of the nearest direction in a
/// precomputed cube map: a handful of dot products per query where parry scans every
/// vertex. On a convex polytope a linear function has no local maximum on the vertex graph
/// other than the global one, so the climb is exact; it depends on nothing but the
/// direction, so results do not depend on the query history.
struct ClimbingHull {
    poly: ConvexPolyhedron,
    /// Neighbours of vertex v along the polytope's edges: `neighbours[offsets[v]..offsets[v + 1]]`.
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
    /// Support vertex of the centre direction of every cell of a cube map
    /// (6 faces × CUBE_CELLS²).
    starts: Vec<u32>,
}

/// Cells per cube-map face side.
const CUBE_CELLS: usize = 6;

/// The cube-map cell of a direction: the face of its largest component, then the other two
/// components (over the largest) on a CUBE_CELLS × CUBE_CELLS grid.
fn cube_cell(d: Vector) -> usize {
    let a = d.abs();
    let (face, u, v, m) = if a.x >= a.y && a.x >= a.z {
        (usize::from(d.x < 0.0), d.y, d.z, a.x)
    } else if a.y >= a.z {
        (2 + usize::from(d.y < 0.0), d.z, d.x, a.y)
    } else {
        (4 + usize::from(d.z < 0.0), d.x, d.y, a.z)
    };
    if m == 0.0 || m.is_nan() {
        return 0;
    }
    let cell = |t: f64| (((t / m + 1.0) * 0.5 * CUBE_CELLS as f64) as usize).min(CUBE_CELLS - 1);
    (face * CUBE_CELLS + cell(u)) * CUBE_CELLS + cell(v)
}

impl ClimbingHull {
    fn new(poly: ConvexPolyhedron) -> Self {
        // The polytope's edges are the sides of its (merged, polygonal) faces.
        let mut lists = vec![Vec::new(); poly.points().len()];
        let loops = poly.vertices_adj_to_face();
        for face in poly.faces() {
            let (first, n) = (face.first_vertex_or_edge as usize, face.num_vertices_or_edges as usize);
            for k in 0..n {
                let (a, b) = (loops[first + k], loops[first + (k + 1) % n]);
                lists[a as usize].push(b);
                lists[b as usize].push(a);
            }
        }
        let mut offsets = vec![0u32];
        let mut neighbours = Vec::new();
        for mut l in lists {
            l.sort_unstable();
            l.dedup();
            neighbours.extend(l);
            offsets.push(neighbours.len() as u32);
        }
        // Every cell's centre direction, scanned against all vertices once.
        let centre = |k: usize| (k as f64 + 0.5) / CUBE_CELLS as f64 * 2.0 - 1.0;
        let mut starts = vec![0u32; 6 * CUBE_CELLS * CUBE_CELLS];
        for face in 0..6 {
            for i in 0..CUBE_CELLS {
                for j in 0..CUBE_CELLS {
                    let s = if face % 2 == 0 { 1.0 } else { -1.0 };
                    let (u, v) = (centre(i), centre(j));
                    let d = match face / 2 {
                        0 => Vector::new(s, u, v),
                        1 => Vector::new(v, s, u),
                        _ => Vector::new(u, v, s),
                    };
                    let best = (0..poly.points().len())
                        .max_by(|&a, &b| poly.points()[a].dot(d).total_cmp(&poly.points()[b].dot(d)))
                        .unwrap_or(0);
                    starts[cube_cell(d)] = best as u32;
                }
            }
        }
        Self { poly, offsets, neighbours, starts }
    }

    fn support_vertex(&self, dir: Vector) -> usize {
        let points = self.poly.points();
        let mut best = self.starts[cube_cell(dir)] as usize;
        let mut best_dot = points[best].dot(dir);
        loop {
            let mut next = best;
            for &n in &self.neighbours[self.offsets[best] as usize..self.offsets[best + 1] as usize] {
                let d = points[n as usize].dot(dir);
                if d > best_dot {
                    (next, best_dot) = (n as usize, d);
                }
            }
            if next == best {
                return best;
            }
            best = next;
        }
    }
}

impl SupportMap for ClimbingHull {
    fn local_support_point(&self, dir: Vector) -> Vector {
        self.poly.points()[self.support_vertex(dir)]
    }
}

impl PolygonalFeatureMap for ClimbingHull {
    /// The face, among those around the support vertex, whose normal is closest to `dir`;
    /// a face of more than 4 vertices (the most a feature holds) is represented by 4 of
    /// them spanning a large area, in loop order.
    fn local_support_feature(&self, dir: Vector, out: &mut PolygonalFeature) {
        let v = self.support_vertex(dir);
        let poly = &self.poly;
        let vertex = poly.vertices()[v];
        let around = &poly.faces_adj_to_vertex()[vertex.first_adj_face_or_edge as usize
            ..(vertex.first_adj_face_or_edge + vertex.num_adj_faces_or_edge) as usize];
        let Some(&fid) = around.iter().max_by(|&&a, &&b| {
            poly.faces()[a as usize].normal.dot(dir).total_cmp(&poly.faces()[b as usize].normal.dot(dir))
        }) else {
            return poly.local_support_feature(dir, out);
        };
        let face = poly.faces()[fid as usize];
        let first = face.first_vertex_or_edge as usize;
        let n = face.num_vertices_or_edges as usize;
        let vids = &poly.vertices_adj_to_face()[first..first + n];
        let eids = &poly.edges_adj_to_face()[first..first + n];
        let chosen = four_spanning(n, face.normal, |k| poly.points()[vids[k] as usize]);
        for (i, &k) in chosen[..n.min(4)].iter().enumerate() {
            out.vertices[i] = poly.points()[vids[k] as usize];
            out.vids[i] = PackedFeatureId::vertex(vids[k]);
            out.eids[i] = PackedFeatureId::edge(eids[k]);
        }
        out.fid = PackedFeatureId::face(fid);
        out.num_vertices = n.min(4);
    }

    fn is_convex_polyhedron(&self) -> bool {
        true
    }
}

/// Positions in a convex polygon loop of `n` points (`point(k)`, plane normal `normal`) of
/// at most 4 points spanning a large area, ascending (so they stay in loop order): the
/// farthest pair, then the farthest point from their line on either side.
fn four_spanning(n: usize, normal: Vector, point: impl Fn(usize) -> Vector) -> [usize; 4] {
    if n <= 4 {
        return [0, 1, 2, 3];
    }
    let farthest = |score: &dyn Fn(usize) -> f64| (0..n).max_by(|&a, &b| score(a).total_cmp(&score(b))).unwrap_or(0);
    let a = farthest(&|k| (point(k) - point(0)).length_squared());
    let b = farthest(&|k| (point(k) - point(a)).length_squared());
    let across = normal.cross(point(b) - point(a));
    let c = farthest(&|k| (point(k) - point(a)).dot(across));
    let d = farthest(&|k| -(point(k) - point(a)).dot(across));
    let mut chosen = [a, b, c, d];
    chosen.sort_unstable();
    // A degenerate polygon may repeat a point: keep the loop order, fill from the rest.
    let mut k = 0;
    for i in 1..4 {
        while chosen[..i].contains(&chosen[i]) {
            chosen[i] = k;
            k += 1;
        }
    }
    chosen.sort_unstable();
    chosen
}

impl std::fmt::Debug for ParryShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ParryShape({:?})", self.shape.shape_type())
    }
}

#[inline]
fn to_glam(v: &Vec3) -> Vector {
    Vector::new(v.x, v.y, v.z)
}

#[inline]
fn from_glam(v: Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

#[inline]
fn to_pose(m: &SE3) -> Pose {
    let r = &m.rotation;
    let cols = [0, 1, 2].map(|c| Vector::new(r[(0, c)], r[(1, c)], r[(2, c)]));
    let rotation = Rot3::from_mat3(&GlamMat3::from_cols(cols[0], cols[1], cols[2])).normalize();
    Pose::from_parts(to_glam(&m.translation), rotation)
}

impl ParryShape {
    /// The point of the shape at `pose` farthest along `dir` (world frame); `None` for
    /// shapes without a support map.
    pub fn support_point(&self, pose: &SE3, dir: &Vec3) -> Option<Vec3> {
        let (map, radius) = self.feature_map()?;
        let p = from_glam(map.support_point(&self.pose(pose), to_glam(dir)));
        Some(if radius == 0.0 { p } else { p + dir.try_normalize(0.0).unwrap_or_default() * radius })
    }

    /// The shape as a polygonal feature map with its rounding radius, if it is one.
    fn feature_map(&self) -> Option<(&dyn PolygonalFeatureMap, f64)> {
        match &self.hull {
            Some(h) => Some((&**h, 0.0)),
            None => self.shape.as_polygonal_feature_map(),
        }
    }

    /// A sphere.
    pub fn ball(radius: f64) -> Self {
        Self { shape: Box::new(Ball::new(radius)), offset: None, hull: None }
    }

    /// A box of these half extents.
    pub fn cuboid(half_extents: &Vec3) -> Self {
        Self { shape: Box::new(Cuboid::new(to_glam(half_extents))), offset: None, hull: None }
    }

    /// A cylinder along our z axis.
    pub fn cylinder_z(radius: f64, half_length: f64) -> Self {
        // Parry's runs along y: a quarter turn about x maps its y onto our z.
        let (s, c) = std::f64::consts::FRAC_PI_2.sin_cos();
        let rx = Mat3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c);
        Self {
            shape: Box::new(Cylinder::new(half_length, radius)),
            offset: Some(SE3::new(rx, Vec3::zeros())),
            hull: None,
        }
    }

    /// A capsule along our z axis.
    pub fn capsule_z(radius: f64, half_length: f64) -> Self {
        Self { shape: Box::new(Capsule::new_z(half_length, radius)), offset: None, hull: None }
    }

    /// The convex hull of `points`, or None if they span no volume.
    pub fn convex_hull(points: &[Vec3]) -> Option<Self> {
        let pts: Vec<Vector> = points.iter().map(to_glam).collect();
        let poly = ConvexPolyhedron::from_convex_hull(&pts)?;
        let hull = Some(Box::new(ClimbingHull::new(poly.clone())));
        Some(Self { shape: Box::new(poly), offset: None, hull })
    }

    /// Whether the shape at `pose` and the ball of `radius` at `centre` (world) intersect
    /// (touching counts).
    pub fn intersects_ball(&self, pose: &SE3, centre: &Vec3, radius: f64) -> bool {
        let ball = Ball::new(radius);
        let at = Pose::from_translation(to_glam(centre));
        parry3d_f64::query::intersection_test(&self.pose(pose), &*self.shape, &at, &ball).is_ok_and(|i| i.intersecting)
    }

    fn pose(&self, m: &SE3) -> Pose {
        match &self.offset {
            Some(o) => to_pose(&m.compose(o)),
            None => to_pose(m),
        }
    }
}

/// Whether the triangle `t` (world) and the ball of `radius` at `centre` intersect.
pub fn triangle_intersects_ball(t: &[Vec3; 3], centre: &Vec3, radius: f64) -> bool {
    let triangle = Triangle::new(to_glam(&t[0]), to_glam(&t[1]), to_glam(&t[2]));
    let ball = Ball::new(radius);
    let at = Pose::from_translation(to_glam(centre));
    parry3d_f64::query::intersection_test(&Pose::IDENTITY, &triangle, &at, &ball).is_ok_and(|i| i.intersecting)
}

/// The vertices and triangles of the convex hull of `points` (parry's quickhull).
pub fn convex_hull(points: &[Vec3]) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let pts: Vec<Vector> = points.iter().map(to_glam).collect();
    let (vertices, triangles) = parry3d_f64::transformation::convex_hull(&pts);
    (vertices.into_iter().map(from_glam).collect(), triangles)
}

/// One contact point between two shapes, in the world frame.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PairPoint {
    /// Witness point on shape 1.
    pub point1: Vec3,
    /// Witness point on shape 2.
    pub point2: Vec3,
    /// Unit normal, outward from shape 1 (towards shape 2).
    pub normal1: Vec3,
    /// Signed distance (negative: penetration).
    pub distance: f64,
    /// Feature of shape 1 carrying the point (packed; stable while the contact persists).
    pub feature1: u32,
    /// Feature of shape 2.
    pub feature2: u32,
}

/// Reusable buffers for parry's manifold queries: after the first steps have grown them,
/// queries allocate nothing.
pub struct PairWorkspace {
    manifold: ContactManifold<(), ()>,
    /// Kept across queries: parry's own convex–convex path creates one per penetrating
    /// query (and clones the manifold's points), which allocates every step.
    epa: EPA,
}

/// Warmed EPAs of dropped workspaces, for the next ones: the warm-up costs 19 ms, and a
/// process that builds collision worlds one after another (the fuzzing, the Python
/// batches) pays it once per world alive at a time. Locked only when a workspace is made
/// or dropped, never in a query.
static WARM_EPAS: std::sync::Mutex<Vec<EPA>> = std::sync::Mutex::new(Vec::new());

impl Default for PairWorkspace {
    fn default() -> Self {
        let mut manifold = ContactManifold::new();
        manifold.points.reserve(16);
        let recycled = WARM_EPAS.lock().ok().and_then(|mut pool| pool.pop());
        let epa = recycled.unwrap_or_else(|| {
            let mut epa = EPA::new();
            warm_up(&mut epa);
            epa
        });
        Self { manifold, epa }
    }
}

impl Drop for PairWorkspace {
    fn drop(&mut self) {
        // `EPA::new` holds empty buffers: nothing is allocated here.
        let epa = std::mem::replace(&mut self.epa, EPA::new());
        if let Ok(mut pool) = WARM_EPAS.lock() {
            pool.push(epa);
        }
    }
}

/// Grows the EPA's buffers once, at start-up (parry grows them on demand, and `EPA`
/// offers no way to reserve them), with the queries that build the largest polytopes:
/// - a deep overlap of two finely tessellated spheres runs it to its iteration cap;
/// - prisms of many sides against each other: many nearly coplanar faces on the caps;
/// - cylinders (round sides, flat caps) against boxes and cylinders of several aspect
///   ratios at 1080 fixed pseudo-random poses: the longest silhouettes (the edges a new
///   support point sees). A thin box against a cylinder outgrew the spheres' alone in the
///   running node.
///
/// It is a bound measured, not proven: tests/collision_epa_warm_up.rs checks 42 000 other
/// random poses of the primitives (1 of them allocated with the spheres alone); 7 of
/// 504 000 more (four other seeds) still outgrew the buffers, each once. The node's loop
/// counts any allocation on /diagnostics. An EPA with reserved buffers (parry has none) or
/// our own would remove it. This costs 19 ms, once per collision world alive at a time
/// ([`WARM_EPAS`]).
fn warm_up(epa: &mut EPA) {
    const ROUNDS: usize = 60;
    let n = 24;
    let points: Vec<Vector> = (0..n)
        .flat_map(|i| {
            (0..n).map(move |j| {
                let (theta, phi) =
                    (std::f64::consts::PI * (i as f64 + 0.5) / n as f64, std::f64::consts::TAU * j as f64 / n as f64);
                Vector::new(theta.sin() * phi.cos(), theta.sin() * phi.sin(), theta.cos())
            })
        })
        .collect();
    let Some(ball) = ConvexPolyhedron::from_convex_hull(&points) else { return };
    for offset in [0.1, 0.5, 1.0] {
        let pos12 = Pose::from_translation(Vector::new(offset, 0.03, 0.02));
        overlap(epa, &pos12, &ball, &ball);
    }
    // Prisms of many sides, flat caps meeting a nearly round side, against each other
    // turned: the most faces (nearly coplanar ones on the caps) a query builds.
    for (sides, half) in [(96, 0.05), (128, 0.3), (64, 0.02)] {
        let points: Vec<Vector> = (0..2 * sides)
            .map(|k| {
                let phi = std::f64::consts::TAU * (k / 2) as f64 / sides as f64;
                Vector::new(phi.cos(), phi.sin(), if k % 2 == 0 { half } else { -half })
            })
            .collect();
        let Some(prism) = ConvexPolyhedron::from_convex_hull(&points) else { continue };
        for k in 0..24 {
            let r = crate::spatial::rotation_from_rpy(0.13 * k as f64, 0.07 * k as f64, 0.29 * k as f64);
            overlap(epa, &to_pose(&SE3::new(r, Vec3::new(0.01 * k as f64, 0.0, 0.0))), &prism, &prism);
        }
    }
    let cylinders = [Cylinder::new(1.0, 0.15), Cylinder::new(0.5, 0.5), Cylinder::new(0.1, 1.0)];
    let boxes = [
        Cuboid::new(Vector::new(0.2, 0.2, 1.0)),
        Cuboid::new(Vector::new(1.0, 0.5, 0.2)),
        Cuboid::new(Vector::new(0.3, 0.3, 0.3)),
    ];
    let mut uniform = crate::sampling::uniform(0x2545_f491_4f6c_dd1d);
    for _ in 0..ROUNDS {
        for c in &cylinders {
            for other in
                [&boxes[0] as &dyn SupportMap, &boxes[1], &boxes[2], &cylinders[0], &cylinders[1], &cylinders[2]]
            {
                let rotation = crate::spatial::rotation_from_rpy(3.2 * uniform(), 3.2 * uniform(), 3.2 * uniform());
                let shift = Vec3::new(0.2 * uniform(), 0.2 * uniform(), 0.2 * uniform());
                overlap(epa, &to_pose(&SE3::new(rotation, shift)), c, other);
            }
        }
    }
}

/// Runs `epa` on `g1` and `g2` at `pos12` if GJK finds them overlapping.
fn overlap(epa: &mut EPA, pos12: &Pose, g1: &dyn SupportMap, g2: &dyn SupportMap) {
    let mut simplex = VoronoiSimplex::new();
    simplex.reset(CsoPoint::from_shapes(pos12, g1, g2, Vector::X));
    if gjk::closest_points(pos12, g1, g2, 0.0, true, &mut simplex) == GJKResult::Intersection {
        let _ = epa.closest_points(pos12, g1, g2, &simplex);
    }
}

/// Contact manifold of two polygonal-feature-map shapes (convex polyhedra, cylinders,
/// capsules, boxes against those): GJK for the closest points or, when the shapes
/// overlap, EPA for the deepest; then the two support features facing each other are
/// clipped into contact points, as parry's `contact_manifold_pfm_pfm` does, but with the
/// EPA kept in `epa` so nothing is allocated once its buffers have grown.
#[allow(clippy::too_many_arguments)]
fn pfm_manifold(
    pos12: &Pose,
    pfm1: &dyn PolygonalFeatureMap,
    radius1: f64,
    pfm2: &dyn PolygonalFeatureMap,
    radius2: f64,
    prediction: f64,
    manifold: &mut ContactManifold<(), ()>,
    epa: &mut EPA,
) {
    manifold.clear();
    let total = prediction + radius1 + radius2;
    let dir = pos12.translation.try_normalize().unwrap_or(Vector::X);
    let mut simplex = VoronoiSimplex::new();
    simplex.reset(CsoPoint::from_shapes(pos12, pfm1, pfm2, dir));
    let mut result = gjk::closest_points(pos12, pfm1, pfm2, total, true, &mut simplex);
    if result == GJKResult::Intersection {
        result = match epa.closest_points(pos12, pfm1, pfm2, &simplex) {
            Some((p1, p2, n)) => GJKResult::ClosestPoints(p1, p2, n),
            None => return,
        };
    }
    let GJKResult::ClosestPoints(p1, p2_1, dir) = result else { return };
    let local_n1 = dir;
    let local_n2 = pos12.rotation.inverse() * -dir;
    let mut feature1 = PolygonalFeature::default();
    let mut feature2 = PolygonalFeature::default();
    pfm1.local_support_feature_toward(local_n1, p1, &mut feature1);
    pfm2.local_support_feature_toward(local_n2, pos12.inverse_transform_point(p2_1), &mut feature2);
    PolygonalFeature::contacts(pos12, &pos12.inverse(), local_n1, local_n2, &feature1, &feature2, manifold, false);
    // The GJK/EPA point itself: the deepest point is always part of the manifold.
    manifold.points.push(TrackedContact::new(
        p1,
        pos12.inverse_transform_point(p2_1),
        PackedFeatureId::UNKNOWN,
        PackedFeatureId::UNKNOWN,
        (p2_1 - p1).dot(local_n1),
    ));
    if radius1 != 0.0 || radius2 != 0.0 {
        for c in &mut manifold.points {
            c.local_p1 += local_n1 * radius1;
            c.local_p2 += local_n2 * radius2;
            c.dist -= radius1 + radius2;
        }
    }
    manifold.points.retain(|c| c.dist < prediction);
    manifold.local_n1 = local_n1;
    manifold.local_n2 = local_n2;
}

fn packed(fid: parry3d_f64::shape::PackedFeatureId) -> u32 {
    // The packed form is a stable code: kind in the top bits, index below.
    match fid.unpack() {
        FeatureId::Unknown => u32::MAX,
        _ => fid.0,
    }
}

impl PairWorkspace {
    /// The manifold's points in the world frame (its points are in the frames `p1` and `p2`).
    fn emit_manifold(&self, p1: &Pose, p2: &Pose, mut emit: impl FnMut(PairPoint)) {
        let normal = from_glam(p1.rotation * self.manifold.local_n1);
        for c in &self.manifold.points {
            emit(PairPoint {
                point1: from_glam(p1 * c.local_p1),
                point2: from_glam(p2 * c.local_p2),
                normal1: normal,
                distance: c.dist,
                feature1: packed(c.fid1),
                feature2: packed(c.fid2),
            });
        }
    }

    /// Contact points of convex `shape` at `pose` with the triangle `corners` (world
    /// frame), closer than `prediction`, handed to `emit` (point 1 on the shape, point 2 on
    /// the triangle). Nothing for shapes that are not polygonal feature maps (spheres are
    /// turned into their capsule-free equivalent by parry: a ball is handled through the
    /// dispatcher).
    pub fn triangle_contacts(
        &mut self,
        shape: &ParryShape,
        pose: &SE3,
        corners: &[Vec3; 3],
        prediction: f64,
        emit: impl FnMut(PairPoint),
    ) {
        let p1 = shape.pose(pose);
        let inv = p1.inverse();
        // The triangle in the shape's frame (its points come back in that frame).
        let tri = Triangle::new(inv * to_glam(&corners[0]), inv * to_glam(&corners[1]), inv * to_glam(&corners[2]));
        let pos12 = Pose::IDENTITY;
        self.manifold.clear();
        match shape.feature_map() {
            Some((pfm, radius)) => {
                pfm_manifold(&pos12, pfm, radius, &tri, 0.0, prediction, &mut self.manifold, &mut self.epa)
            }
            None => {
                let _ = DefaultQueryDispatcher.contact_manifold_convex_convex(
                    &pos12,
                    &*shape.shape,
                    &tri,
                    None,
                    None,
                    prediction,
                    &mut self.manifold,
                );
            }
        }
        self.emit_manifold(&p1, &p1, emit);
    }

    /// Contact points of `shape1` at `pose1` and `shape2` at `pose2` closer than
    /// `prediction`, handed to `emit`. Errors for shape pairs parry cannot handle.
    pub fn contacts(
        &mut self,
        shape1: &ParryShape,
        pose1: &SE3,
        shape2: &ParryShape,
        pose2: &SE3,
        prediction: f64,
        emit: impl FnMut(PairPoint),
    ) -> Result<(), String> {
        let p1 = shape1.pose(pose1);
        let p2 = shape2.pose(pose2);
        let pos12 = p1.inverse() * p2;
        let both_boxes =
            shape1.shape.shape_type() == ShapeType::Cuboid && shape2.shape.shape_type() == ShapeType::Cuboid;
        match (shape1.feature_map(), shape2.feature_map()) {
            (Some((pfm1, r1)), Some((pfm2, r2))) if !both_boxes => {
                pfm_manifold(&pos12, pfm1, r1, pfm2, r2, prediction, &mut self.manifold, &mut self.epa);
            }
            _ => {
                self.manifold.clear();
                DefaultQueryDispatcher
                    .contact_manifold_convex_convex(
                        &pos12,
                        &*shape1.shape,
                        &*shape2.shape,
                        None,
                        None,
                        prediction,
                        &mut self.manifold,
                    )
                    .map_err(|_| "unsupported shape pair".to_owned())?;
            }
        }
        self.emit_manifold(&p1, &p2, emit);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Points on a lumpy ellipsoid (a hull with hundreds of vertices and faces of many
    /// sizes), deterministic.
    fn lumpy(n: usize) -> Vec<Vector> {
        let mut next = crate::sampling::uniform(0x2545_f491_4f6c_dd1d);
        (0..n)
            .map(|_| {
                let v = Vector::new(next(), next(), next()).normalize();
                Vector::new(0.3 * v.x, 0.1 * v.y, 0.05 * v.z) * (1.0 + 0.2 * next().abs())
            })
            .collect()
    }

    #[test]
    fn climbing_finds_the_same_support_as_a_scan() {
        let poly = ConvexPolyhedron::from_convex_hull(&lumpy(2000)).unwrap();
        let hull = ClimbingHull::new(poly.clone());
        assert!(poly.points().len() > 100, "{} vertices", poly.points().len());
        for d in lumpy(5000).iter().chain(&[Vector::X, -Vector::Y, Vector::Z, Vector::new(1.0, 1.0, 0.0)]) {
            let dir = d.normalize();
            let climbed = hull.local_support_point(dir).dot(dir);
            let scanned = poly.local_support_point(dir).dot(dir);
            assert_eq!(climbed, scanned, "direction {dir:?}");
        }
    }

    #[test]
    fn a_face_of_many_vertices_is_represented_by_four_spanning_ones() {
        // A 32-gon prism: its caps are 32-vertex faces.
        let mut points = Vec::new();
        for k in 0..32 {
            let a = std::f64::consts::TAU * k as f64 / 32.0;
            points.extend([Vector::new(a.cos(), a.sin(), -0.1), Vector::new(a.cos(), a.sin(), 0.1)]);
        }
        let hull = ClimbingHull::new(ConvexPolyhedron::from_convex_hull(&points).unwrap());
        let mut feature = PolygonalFeature::default();
        hull.local_support_feature(-Vector::Z, &mut feature);
        assert_eq!(feature.num_vertices, 4);
        let v = &feature.vertices;
        assert!(v.iter().all(|p| p.z == -0.1), "the bottom cap");
        // A quadrilateral inscribed in the unit circle spanning it: area close to the square's 2.
        let area = 0.5 * ((v[2] - v[0]).cross(v[3] - v[1])).length();
        assert!(area > 1.9, "area {area}");
        // In loop order: a convex, non-self-intersecting quadrilateral.
        for k in 0..4 {
            let (a, b, c) = (v[k], v[(k + 1) % 4], v[(k + 2) % 4]);
            assert!((b - a).cross(c - b).z.abs() > 1e-3, "turns consistently");
        }
        let turn = |k: usize| (v[(k + 1) % 4] - v[k]).cross(v[(k + 2) % 4] - v[(k + 1) % 4]).z.signum();
        assert!((0..4).all(|k| turn(k) == turn(0)));
    }
}
