//! The only module that knows parry3d-f64: builds its shapes, converts poses between
//! nalgebra (the rest of the crate) and glam (parry), and runs its contact-manifold
//! queries into reusable buffers.

use parry3d_f64::math::{Mat3 as GlamMat3, Pose, Rot3, Vector};
use parry3d_f64::query::epa::EPA;
use parry3d_f64::query::gjk::{self, CsoPoint, GJKResult, VoronoiSimplex};
use parry3d_f64::query::{ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher, TrackedContact};
use parry3d_f64::shape::{
    Ball, Capsule, ConvexPolyhedron, Cuboid, Cylinder, FeatureId, PackedFeatureId, PolygonalFeature,
    PolygonalFeatureMap, Shape, ShapeType, TriMesh,
};

use crate::spatial::{Mat3, SE3, Vec3};

/// A parry shape, built once.
pub struct ParryShape {
    shape: Box<dyn Shape>,
    /// Placement of parry's shape frame in ours (parry cylinders run along y, ours along z).
    offset: Option<SE3>,
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
    /// A sphere.
    pub fn ball(radius: f64) -> Self {
        Self { shape: Box::new(Ball::new(radius)), offset: None }
    }

    /// A box of these half extents.
    pub fn cuboid(half_extents: &Vec3) -> Self {
        Self { shape: Box::new(Cuboid::new(to_glam(half_extents))), offset: None }
    }

    /// A cylinder along our z axis.
    pub fn cylinder_z(radius: f64, half_length: f64) -> Self {
        // Parry's runs along y: a quarter turn about x maps its y onto our z.
        let (s, c) = std::f64::consts::FRAC_PI_2.sin_cos();
        let rx = Mat3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c);
        Self { shape: Box::new(Cylinder::new(half_length, radius)), offset: Some(SE3::new(rx, Vec3::zeros())) }
    }

    /// A capsule along our z axis.
    pub fn capsule_z(radius: f64, half_length: f64) -> Self {
        Self { shape: Box::new(Capsule::new_z(half_length, radius)), offset: None }
    }

    /// The convex hull of `points`, or None if they span no volume.
    pub fn convex_hull(points: &[Vec3]) -> Option<Self> {
        let pts: Vec<Vector> = points.iter().map(to_glam).collect();
        ConvexPolyhedron::from_convex_hull(&pts).map(|p| Self { shape: Box::new(p), offset: None })
    }

    /// A triangle mesh (static objects only).
    pub fn trimesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<Self, String> {
        let v: Vec<Vector> = vertices.iter().map(to_glam).collect();
        TriMesh::new(v, triangles.to_vec())
            .map(|m| Self { shape: Box::new(m), offset: None })
            .map_err(|e| format!("{e:?}"))
    }

    fn pose(&self, m: &SE3) -> Pose {
        match &self.offset {
            Some(o) => to_pose(&m.compose(o)),
            None => to_pose(m),
        }
    }

    fn is_composite(&self) -> bool {
        self.shape.as_composite_shape().is_some()
    }
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
    manifolds: Vec<ContactManifold<(), ()>>,
    composite: Option<parry3d_f64::query::ContactManifoldsWorkspace>,
    /// Kept across queries: parry's own convex–convex path creates one per penetrating
    /// query (and clones the manifold's points), which allocates every step.
    epa: EPA,
}

impl Default for PairWorkspace {
    fn default() -> Self {
        let mut manifold = ContactManifold::new();
        manifold.points.reserve(16);
        let mut epa = EPA::new();
        warm_up(&mut epa);
        Self { manifold, manifolds: Vec::with_capacity(16), composite: None, epa }
    }
}

/// Grows the EPA's buffers once, at start-up: a deep overlap of two finely tessellated
/// spheres runs it to its iteration cap, the largest polytope it ever builds.
fn warm_up(epa: &mut EPA) {
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
        let mut simplex = VoronoiSimplex::new();
        simplex.reset(CsoPoint::from_shapes(&pos12, &ball, &ball, Vector::X));
        if gjk::closest_points(&pos12, &ball, &ball, 0.0, true, &mut simplex) == GJKResult::Intersection {
            let _ = epa.closest_points(&pos12, &ball, &ball, &simplex);
        }
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
    /// Contact points of `shape1` at `pose1` and `shape2` at `pose2` closer than
    /// `prediction`, handed to `emit`. Errors for shape pairs parry cannot handle.
    pub fn contacts(
        &mut self,
        shape1: &ParryShape,
        pose1: &SE3,
        shape2: &ParryShape,
        pose2: &SE3,
        prediction: f64,
        mut emit: impl FnMut(PairPoint),
    ) -> Result<(), String> {
        let p1 = shape1.pose(pose1);
        let p2 = shape2.pose(pose2);
        let pos12 = p1.inverse() * p2;
        let dispatcher = DefaultQueryDispatcher;
        let mut report = |m: &ContactManifold<(), ()>| {
            // Sub-shape poses (composite shapes) relative to each shape.
            let (sub1, sub2) = m.subshape_poses.as_ref().map_or((None, None), |s| (s.pos1, s.pos2));
            let frame1 = sub1.map_or(p1, |s| p1 * s);
            let frame2 = sub2.map_or(p2, |s| p2 * s);
            let normal = frame1.rotation * m.local_n1;
            for c in &m.points {
                emit(PairPoint {
                    point1: from_glam(frame1 * c.local_p1),
                    point2: from_glam(frame2 * c.local_p2),
                    normal1: from_glam(normal),
                    distance: c.dist,
                    feature1: packed(c.fid1) ^ (m.subshape1.wrapping_mul(0x9E37_79B9)),
                    feature2: packed(c.fid2) ^ (m.subshape2.wrapping_mul(0x85EB_CA6B)),
                });
            }
        };
        if shape1.is_composite() || shape2.is_composite() {
            dispatcher
                .contact_manifolds(
                    &pos12,
                    &*shape1.shape,
                    &*shape2.shape,
                    prediction,
                    &mut self.manifolds,
                    &mut self.composite,
                )
                .map_err(|_| "unsupported shape pair".to_owned())?;
            for m in &self.manifolds {
                report(m);
            }
        } else {
            let both_boxes =
                shape1.shape.shape_type() == ShapeType::Cuboid && shape2.shape.shape_type() == ShapeType::Cuboid;
            match (shape1.shape.as_polygonal_feature_map(), shape2.shape.as_polygonal_feature_map()) {
                (Some((pfm1, r1)), Some((pfm2, r2))) if !both_boxes => {
                    pfm_manifold(&pos12, pfm1, r1, pfm2, r2, prediction, &mut self.manifold, &mut self.epa);
                }
                _ => {
                    self.manifold.clear();
                    dispatcher
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
            report(&self.manifold);
        }
        Ok(())
    }
}
