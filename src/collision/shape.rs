//! Collision shapes: primitives, convex hulls of meshes, triangle meshes, half-spaces.
//!
//! Conventions (URDF's): a shape is centred on its frame; cylinders and capsules run
//! along local z; a half-space is `z ≤ 0` in its frame (its surface normal is +z).

use std::path::Path;

use super::mesh_file::{MeshFormat, check_collada, read_bounded};

use super::parry_adapter::{ParryShape, convex_hull};
use crate::spatial::{SE3, Vec3};

/// A shape's geometry.
#[derive(Clone, Debug, PartialEq)]
pub enum ShapeKind {
    /// Sphere.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// Box.
    Box {
        /// Half side lengths, m.
        half_extents: Vec3,
    },
    /// Cylinder along local z.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Half length, m.
        half_length: f64,
    },
    /// Capsule along local z.
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Half length of the segment, m.
        half_length: f64,
    },
    /// Convex polyhedron (the hull of a mesh).
    ConvexHull {
        /// Hull vertices, local.
        vertices: Vec<Vec3>,
        /// Vertex adjacency along hull edges (for walks on the surface).
        adjacency: Adjacency,
        /// Polygonal faces (coplanar hull triangles merged).
        faces: HullFaces,
    },
    /// Triangle mesh (static objects only).
    TriMesh {
        /// Vertices, local.
        vertices: Vec<Vec3>,
        /// Triangles.
        triangles: Vec<[u32; 3]>,
        /// AABB tree over the triangles, local frame.
        tree: super::bvh::Bvh,
        /// What lies across each triangle edge (edge k runs from corner k to k + 1).
        edges: Vec<[TriangleEdge; 3]>,
    },
    /// The half-space below the local xy plane.
    HalfSpace,
}

/// What lies across one edge of a mesh triangle: decides which contact normals the edge
/// may produce (its Voronoi cone), so that a surface tiled by triangles pushes along its
/// face normals and not along the seams between tiles.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TriangleEdge {
    /// A boundary edge (or one shared by more than two triangles): any normal.
    Open,
    /// Shared with one neighbour, which turns away from the front side (the side the
    /// triangle's normal points to) by an angle θ: `lean` = sin θ, negative when it turns
    /// towards the front (a valley). `folded`: θ beyond 90°.
    Shared {
        /// sin θ.
        lean: f64,
        /// θ > 90°.
        folded: bool,
    },
}

impl TriangleEdge {
    /// The largest component a contact normal on `side` (+1 front, −1 back) may have along
    /// the edge's outward in-plane direction.
    pub fn max_lean(&self, side: f64) -> f64 {
        match *self {
            Self::Open => f64::INFINITY,
            Self::Shared { lean, folded } => {
                let lean = side * lean;
                if lean <= 0.0 {
                    0.0
                } else if folded {
                    f64::INFINITY
                } else {
                    lean
                }
            }
        }
    }
}

/// Neighbouring mesh triangles whose normals differ by less than this (rad) are coplanar.
const FLAT: f64 = 1e-5;

/// Vertices closer than a millionth of the mesh size welded (STL repeats them per
/// triangle, in single precision), zero-area triangles dropped, and what lies across every
/// triangle edge.
fn weld(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> (Vec<Vec3>, Vec<[u32; 3]>, Vec<[TriangleEdge; 3]>) {
    use std::collections::HashMap;
    let (lo, hi) = aabb_of(&vertices);
    let tolerance = 1e-6 * (hi - lo).amax().max(f64::MIN_POSITIVE);
    let cell = |v: &Vec3| [v.x, v.y, v.z].map(|c| (c / tolerance).floor() as i64);
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    let mut welded: Vec<Vec3> = Vec::new();
    let remap: Vec<u32> = vertices
        .iter()
        .map(|v| {
            let c = cell(v);
            let near = (0..27).find_map(|n: i64| {
                let key = [c[0] + n % 3 - 1, c[1] + n / 3 % 3 - 1, c[2] + n / 9 - 1];
                grid.get(&key)?.iter().copied().find(|&k| (welded[k as usize] - v).amax() <= tolerance)
            });
            near.unwrap_or_else(|| {
                welded.push(*v);
                let k = welded.len() as u32 - 1;
                grid.entry(c).or_default().push(k);
                k
            })
        })
        .collect();
    let normal = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|k| welded[k as usize]);
        (b - a).cross(&(c - a))
    };
    let triangles: Vec<[u32; 3]> =
        triangles.iter().map(|t| t.map(|k| remap[k as usize])).filter(|t| normal(t).norm_squared() > 0.0).collect();
    let mut by_edge: HashMap<(u32, u32), Vec<(usize, usize)>> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            by_edge.entry((a.min(b), a.max(b))).or_default().push((t, k));
        }
    }
    let mut edges = vec![[TriangleEdge::Open; 3]; triangles.len()];
    for sharing in by_edge.values() {
        let &[(t, k), (u, l)] = sharing.as_slice() else { continue };
        for ((t, k), u) in [((t, k), u), ((u, l), t)] {
            let tri = triangles[t];
            let (a, b) = (welded[tri[k] as usize], welded[tri[(k + 1) % 3] as usize]);
            let n = normal(&tri).normalize();
            let axis = (b - a).normalize();
            let outward = axis.cross(&n);
            // The neighbour's third corner, seen from the edge, perpendicular to it.
            let Some(&q) = triangles[u].iter().find(|&&v| v != tri[k] && v != tri[(k + 1) % 3]) else { continue };
            let d = welded[q as usize] - a;
            let Some(into) = (d - axis * d.dot(&axis)).try_normalize(0.0) else { continue };
            // Single-precision vertices tilt coplanar neighbours by ~1e-7: flat below FLAT.
            let lean = -into.dot(&n);
            let lean = if lean.abs() < FLAT { 0.0 } else { lean };
            edges[t][k] = TriangleEdge::Shared { lean, folded: into.dot(&outward) < 0.0 };
        }
    }
    (welded, triangles, edges)
}

/// Neighbours of each vertex, compressed: those of vertex v are
/// `neighbours[offsets[v]..offsets[v + 1]]`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Adjacency {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    /// From triangles over `n` vertices.
    pub fn from_triangles(n: usize, triangles: &[[u32; 3]]) -> Self {
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for t in triangles {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                lists[a as usize].push(b);
                lists[b as usize].push(a);
            }
        }
        for l in &mut lists {
            l.sort_unstable();
            l.dedup();
        }
        Self::from_lists(lists)
    }

    /// From one list per item.
    pub fn from_lists(lists: Vec<Vec<u32>>) -> Self {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        let mut neighbours = Vec::new();
        offsets.push(0);
        for l in lists {
            neighbours.extend(l);
            offsets.push(neighbours.len() as u32);
        }
        Self { offsets, neighbours }
    }

    /// The neighbours of vertex `v`.
    #[inline]
    pub fn of(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.neighbours[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

/// The faces of a convex hull as polygons: coplanar triangles merged, so a box-shaped
/// hull has 6 faces of 4 vertices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HullFaces {
    /// Outward unit normal of each face.
    pub normals: Vec<Vec3>,
    /// Vertices of face f: `face_vertices.of(f)`.
    pub face_vertices: Adjacency,
    /// Faces around vertex v: `vertex_faces.of(v)`.
    pub vertex_faces: Adjacency,
}

impl HullFaces {
    /// From the hull's triangles (outward orientation) over `vertices`.
    pub fn from_triangles(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Self {
        let normal = |t: &[u32; 3]| {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            (b - a).cross(&(c - a)).try_normalize(1e-300).unwrap_or_else(Vec3::z)
        };
        let normals: Vec<Vec3> = triangles.iter().map(normal).collect();
        // Union of triangles sharing an edge and a plane.
        let mut parent: Vec<usize> = (0..triangles.len()).collect();
        fn root(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        let mut edges: std::collections::HashMap<(u32, u32), usize> = std::collections::HashMap::new();
        for (k, t) in triangles.iter().enumerate() {
            for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
                let key = (a.min(b), a.max(b));
                match edges.get(&key) {
                    Some(&other) if (normals[other] - normals[k]).norm() < 1e-6 => {
                        let (ra, rb) = (root(&mut parent, k), root(&mut parent, other));
                        parent[ra] = rb;
                    }
                    Some(_) => {}
                    None => {
                        edges.insert(key, k);
                    }
                }
            }
        }
        let mut face_of_root: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
        let mut face_lists: Vec<Vec<u32>> = Vec::new();
        let mut face_normals = Vec::new();
        for (k, t) in triangles.iter().enumerate() {
            let r = root(&mut parent, k);
            let f = *face_of_root.entry(r).or_insert_with(|| {
                face_lists.push(Vec::new());
                face_normals.push(normals[r]);
                face_lists.len() - 1
            });
            face_lists[f].extend_from_slice(t);
        }
        let mut vertex_lists: Vec<Vec<u32>> = vec![Vec::new(); vertices.len()];
        for (f, l) in face_lists.iter_mut().enumerate() {
            l.sort_unstable();
            l.dedup();
            for &v in l.iter() {
                vertex_lists[v as usize].push(f as u32);
            }
        }
        Self {
            normals: face_normals,
            face_vertices: Adjacency::from_lists(face_lists),
            vertex_faces: Adjacency::from_lists(vertex_lists),
        }
    }
}

/// A shape with what the queries need, built once.
#[derive(Debug)]
pub struct CollisionShape {
    /// Geometry.
    pub kind: ShapeKind,
    /// Local axis-aligned bounding box (min, max); infinite for a half-space.
    pub local_aabb: (Vec3, Vec3),
    pub(crate) parry: Option<ParryShape>,
}

/// A mesh that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum MeshError {
    /// Unreadable, unsupported or corrupt file.
    #[error("{file}: cannot load the mesh: {reason}")]
    Load {
        /// The file.
        file: String,
        /// Why.
        reason: String,
    },
    /// No volume.
    #[error("{file}: the mesh has no volume (its {count} vertices are coplanar, collinear or fewer than 4)")]
    Degenerate {
        /// The file.
        file: String,
        /// Vertex count.
        count: usize,
    },
}

/// Triangles of an STL file, binary or ASCII. A binary file is recognized by its size
/// (84 + 50·n bytes for the n triangles its header announces), not by the word "solid"
/// at the start: many binary STL files begin with it (example-robot-data's solo feet).
fn parse_stl(bytes: &[u8]) -> Result<Vec<[[f32; 3]; 3]>, String> {
    if bytes.len() >= 84 {
        let n = u32::from_le_bytes([bytes[80], bytes[81], bytes[82], bytes[83]]) as usize;
        if n.checked_mul(50).and_then(|b| b.checked_add(84)) == Some(bytes.len()) {
            let f = |o: usize| f32::from_le_bytes([bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]]);
            return Ok((0..n)
                .map(|t| {
                    let o = 84 + 50 * t + 12;
                    [0, 1, 2].map(|v| [0, 1, 2].map(|c| f(o + 12 * v + 4 * c)))
                })
                .collect());
        }
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| "neither a binary STL (size does not match its triangle count) nor ASCII".to_owned())?;
    if !text.trim_start().starts_with("solid") {
        return Err("not an STL file: no 'solid' header and the size does not match a binary STL".to_owned());
    }
    let mut vertices = Vec::new();
    for (line_no, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        if words.next() == Some("vertex") {
            let coords: Vec<f32> =
                words.map(str::parse).collect::<Result<_, _>>().map_err(|e| format!("line {}: {e}", line_no + 1))?;
            let [x, y, z] = coords[..] else {
                return Err(format!("line {}: a vertex needs 3 coordinates", line_no + 1));
            };
            vertices.push([x, y, z]);
        }
    }
    if vertices.len() % 3 != 0 {
        return Err(format!("{} vertices do not make whole triangles", vertices.len()));
    }
    Ok(vertices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect())
}

/// Vertices (scaled) and triangles of every mesh in a file: binary or ASCII STL (parsed
/// here), OBJ and COLLADA (.dae) through the mesh-loader crate, by extension. The file is
/// read once, at most [`super::MAX_MESH_BYTES`], and a COLLADA file is checked before the
/// loader sees it ([`super::mesh_file`]); an OBJ's material libraries are not read.
pub fn load_mesh(path: &Path, scale: &Vec3) -> Result<(Vec<Vec3>, Vec<[u32; 3]>), MeshError> {
    let file = path.display().to_string();
    // One line: the loaders quote the offending character, a line break included.
    let fail = |reason: String| MeshError::Load { file: file.clone(), reason: crate::model::urdf::one_line(&reason) };
    let scaled =
        |v: &[f32; 3]| Vec3::new(f64::from(v[0]) * scale.x, f64::from(v[1]) * scale.y, f64::from(v[2]) * scale.z);
    let mut vertices = Vec::new();
    let mut triangles = Vec::new();
    let format = MeshFormat::of(path)
        .ok_or_else(|| fail("unsupported mesh format (expected .stl, .obj or .dae, in any case)".to_owned()))?;
    let bytes = read_bounded(path).map_err(&fail)?;
    if format == MeshFormat::Stl {
        for (k, t) in parse_stl(&bytes).map_err(fail)?.iter().enumerate() {
            vertices.extend(t.iter().map(scaled));
            let b = 3 * k as u32;
            triangles.push([b, b + 1, b + 2]);
        }
    } else {
        if format == MeshFormat::Collada {
            check_collada(&bytes).map_err(&fail)?;
        }
        // mesh-loader panics on some malformed OBJ and COLLADA files (found by tests/fuzz.rs):
        // a bad mesh file must be an error naming it, never a crash.
        let loaded = catch_quietly(|| match format {
            MeshFormat::Collada => mesh_loader::collada::from_slice(&bytes),
            _ => mesh_loader::obj::from_slice(&bytes, None, |_: &Path| {
                Err::<Vec<u8>, _>(std::io::Error::other("material libraries are not read"))
            }),
        });
        let scene = match loaded {
            Ok(result) => result.map_err(|e| fail(e.to_string()))?,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                return Err(fail(format!("the mesh loader failed on it ({what})")));
            }
        };
        for mesh in &scene.meshes {
            let base = vertices.len() as u32;
            vertices.extend(mesh.vertices.iter().map(scaled));
            triangles.extend(mesh.faces.iter().map(|f| [f[0] + base, f[1] + base, f[2] + base]));
        }
    }
    if vertices.iter().any(|v| !(v.x.is_finite() && v.y.is_finite() && v.z.is_finite())) {
        return Err(MeshError::Load { file, reason: "non-finite vertex coordinates".into() });
    }
    if vertices.is_empty() {
        return Err(MeshError::Load { file, reason: "no vertices".into() });
    }
    Ok((vertices, triangles))
}

thread_local! {
    /// Set while this thread runs [`catch_quietly`]'s closure.
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// `catch_unwind(f)` without the panic hook's report of a panic caught here: the caller
/// turns it into an error naming the file, and a "thread panicked at" line on stderr
/// would only confuse. The hook, installed once, defers to the one it replaced for every
/// other panic (other threads, or this one outside `f`).
fn catch_quietly<R>(f: impl FnOnce() -> R + std::panic::UnwindSafe) -> std::thread::Result<R> {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CATCHING.get() {
                report(info);
            }
        }));
    });
    let outer = CATCHING.replace(true);
    let result = std::panic::catch_unwind(f);
    CATCHING.set(outer);
    result
}

/// True if the points are not all on one plane (relative to their size).
fn spans_volume(points: &[Vec3]) -> bool {
    let p0 = points[0];
    let farthest = |score: &dyn Fn(&Vec3) -> f64| points.iter().copied().max_by(|a, b| score(a).total_cmp(&score(b)));
    let Some(p1) = farthest(&|p| (p - p0).norm_squared()) else { return false };
    let size = (p1 - p0).norm();
    if size == 0.0 {
        return false;
    }
    let u = (p1 - p0) / size;
    let Some(p2) = farthest(&|p| {
        let d = p - p0;
        (d - u * d.dot(&u)).norm_squared()
    }) else {
        return false;
    };
    let normal = u.cross(&(p2 - p0));
    if normal.norm() < 1e-9 * size {
        return false;
    }
    let normal = normal.normalize();
    points.iter().any(|p| (p - p0).dot(&normal).abs() > 1e-9 * size)
}

fn aabb_of(points: &[Vec3]) -> (Vec3, Vec3) {
    let mut lo = Vec3::repeat(f64::INFINITY);
    let mut hi = Vec3::repeat(f64::NEG_INFINITY);
    for p in points {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    (lo, hi)
}

impl CollisionShape {
    /// A sphere.
    pub fn sphere(radius: f64) -> Self {
        let r = Vec3::repeat(radius);
        Self { kind: ShapeKind::Sphere { radius }, local_aabb: (-r, r), parry: Some(ParryShape::ball(radius)) }
    }

    /// A box of these half extents.
    pub fn cuboid(half_extents: Vec3) -> Self {
        Self {
            kind: ShapeKind::Box { half_extents },
            local_aabb: (-half_extents, half_extents),
            parry: Some(ParryShape::cuboid(&half_extents)),
        }
    }

    /// A cylinder along z.
    pub fn cylinder(radius: f64, half_length: f64) -> Self {
        let h = Vec3::new(radius, radius, half_length);
        Self {
            kind: ShapeKind::Cylinder { radius, half_length },
            local_aabb: (-h, h),
            parry: Some(ParryShape::cylinder_z(radius, half_length)),
        }
    }

    /// A capsule along z.
    pub fn capsule(radius: f64, half_length: f64) -> Self {
        let h = Vec3::new(radius, radius, half_length + radius);
        Self {
            kind: ShapeKind::Capsule { radius, half_length },
            local_aabb: (-h, h),
            parry: Some(ParryShape::capsule_z(radius, half_length)),
        }
    }

    /// The convex hull of `points`; `origin` names the source in errors.
    pub fn convex_hull(points: &[Vec3], origin: &str) -> Result<Self, MeshError> {
        let degenerate = || MeshError::Degenerate { file: origin.to_owned(), count: points.len() };
        if points.len() < 4 || !spans_volume(points) {
            return Err(degenerate());
        }
        let (vertices, triangles) = convex_hull(points);
        let parry = ParryShape::convex_hull(&vertices).ok_or_else(degenerate)?;
        let local_aabb = aabb_of(&vertices);
        let adjacency = Adjacency::from_triangles(vertices.len(), &triangles);
        let faces = HullFaces::from_triangles(&vertices, &triangles);
        Ok(Self { kind: ShapeKind::ConvexHull { vertices, adjacency, faces }, local_aabb, parry: Some(parry) })
    }

    /// A triangle mesh (static objects).
    pub fn trimesh(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>, origin: &str) -> Result<Self, MeshError> {
        if let Some(t) = triangles.iter().find(|t| t.iter().any(|&i| i as usize >= vertices.len())) {
            return Err(MeshError::Load {
                file: origin.to_owned(),
                reason: format!("triangle {t:?} refers to a missing vertex"),
            });
        }
        let (vertices, triangles, edges) = weld(vertices, triangles);
        if triangles.is_empty() {
            return Err(MeshError::Load { file: origin.to_owned(), reason: "no triangle with an area".into() });
        }
        let boxes: Vec<(Vec3, Vec3)> = triangles.iter().map(|t| aabb_of(&t.map(|i| vertices[i as usize]))).collect();
        let tree = super::bvh::Bvh::build(&boxes);
        let local_aabb = aabb_of(&vertices);
        Ok(Self { kind: ShapeKind::TriMesh { vertices, triangles, tree, edges }, local_aabb, parry: None })
    }

    /// The half-space z ≤ 0.
    pub fn half_space() -> Self {
        let inf = f64::INFINITY;
        Self {
            kind: ShapeKind::HalfSpace,
            local_aabb: (Vec3::new(-inf, -inf, -inf), Vec3::new(inf, inf, 0.0)),
            parry: None,
        }
    }

    /// True if the shape has candidate points against a plane (module `half_space`):
    /// every convex shape.
    pub fn has_plane_candidates(&self) -> bool {
        !matches!(self.kind, ShapeKind::TriMesh { .. } | ShapeKind::HalfSpace)
    }

    /// A sphere holding the shape, in its frame: (centre, radius), the centre its box's,
    /// the radius the farthest point from it (a mesh's farthest vertex, a box's or a
    /// cylinder's corner); infinite for a half-space.
    pub fn bounding_sphere(&self) -> (Vec3, f64) {
        let (lo, hi) = self.local_aabb;
        let centre = (lo + hi) * 0.5;
        let radius = match &self.kind {
            ShapeKind::HalfSpace => return (Vec3::zeros(), f64::INFINITY),
            ShapeKind::Sphere { radius } => *radius,
            ShapeKind::Capsule { radius, half_length } => radius + half_length,
            ShapeKind::Box { .. } | ShapeKind::Cylinder { .. } => (hi - lo).norm() * 0.5,
            ShapeKind::ConvexHull { vertices, .. } | ShapeKind::TriMesh { vertices, .. } => {
                vertices.iter().map(|v| (v - centre).norm()).fold(0.0, f64::max)
            }
        };
        (centre, radius)
    }

    /// Number of candidate points this shape proposes against a plane, at most (sizes the
    /// scratch buffers).
    pub fn vertex_count(&self) -> usize {
        match &self.kind {
            ShapeKind::ConvexHull { vertices, .. } => vertices.len(),
            _ => 16,
        }
    }

    /// The lowest value of n·x over the shape's local box at `pose` (a lower bound of the
    /// shape's own, −∞ for a half-space): the support of the oriented box along −n, which
    /// is tighter than the world box's and cheaper to get.
    pub fn lowest_along(&self, pose: &SE3, n: &Vec3) -> f64 {
        if matches!(self.kind, ShapeKind::HalfSpace) {
            return f64::NEG_INFINITY;
        }
        let (lo, hi) = self.local_aabb;
        let n_local = pose.rotation.tr_mul(n);
        n.dot(&pose.act_point(&((lo + hi) * 0.5))) - n_local.abs().dot(&((hi - lo) * 0.5))
    }

    /// The lowest world z of the shape at `pose`: exact for a sphere and for the shapes
    /// with a support map (boxes, cylinders, capsules, convex hulls), the world box's bound
    /// otherwise (a mesh without a hull). (The box of a rotated sphere's local box reaches
    /// r·(|R₂₀| + |R₂₁| + |R₂₂|) below its centre, up to √3·r.)
    pub fn lowest_z(&self, pose: &SE3) -> f64 {
        if let ShapeKind::Sphere { radius } = self.kind {
            let (lo, hi) = self.local_aabb;
            return pose.act_point(&((lo + hi) * 0.5)).z - radius;
        }
        let support = self.parry.as_ref().and_then(|p| p.support_point(pose, &-Vec3::z()));
        support.map_or_else(|| self.world_aabb(pose, 0.0).0.z, |p| p.z)
    }

    /// Whether the shape at `pose` and the ball of `radius` at `centre` (world) overlap,
    /// touching included: a half-space when the centre is within `radius` of its inside, a
    /// mesh when a triangle meets the ball (its surface: a ball wholly inside a closed
    /// mesh does not overlap it), a convex shape by parry's intersection test.
    pub fn overlaps_ball(&self, pose: &SE3, centre: &Vec3, radius: f64) -> bool {
        match (&self.kind, &self.parry) {
            (ShapeKind::HalfSpace, _) => pose.rotation.tr_mul(&(centre - pose.translation)).z <= radius,
            (ShapeKind::TriMesh { vertices, triangles, .. }, _) => triangles.iter().any(|t| {
                let corners = t.map(|i| pose.act_point(&vertices[i as usize]));
                super::parry_adapter::triangle_intersects_ball(&corners, centre, radius)
            }),
            (_, Some(parry)) => parry.intersects_ball(pose, centre, radius),
            (_, None) => false,
        }
    }

    /// World axis-aligned box of the shape at `pose`, grown by `margin` (conservative for
    /// rotations: the box of the rotated local box).
    pub fn world_aabb(&self, pose: &SE3, margin: f64) -> (Vec3, Vec3) {
        if matches!(self.kind, ShapeKind::HalfSpace) {
            return (Vec3::repeat(f64::NEG_INFINITY), Vec3::repeat(f64::INFINITY));
        }
        let (lo, hi) = self.local_aabb;
        let centre = pose.act_point(&((lo + hi) * 0.5));
        let half = (hi - lo) * 0.5;
        let r = pose.rotation.abs();
        let extent = r * half + Vec3::repeat(margin);
        (centre - extent, centre + extent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::rotation_from_rpy;

    #[test]
    fn the_lowest_point_along_a_direction_is_a_corner_of_the_oriented_box() {
        let s = CollisionShape::cuboid(Vec3::new(0.1, 0.2, 0.3));
        let pose = SE3::new(rotation_from_rpy(0.3, -0.5, 1.2), Vec3::new(1.0, 2.0, 3.0));
        let n = Vec3::new(0.2, -0.4, 0.9).normalize();
        let mut lowest = f64::INFINITY;
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] {
                    lowest = lowest.min(n.dot(&pose.act_point(&Vec3::new(0.1 * sx, 0.2 * sy, 0.3 * sz))));
                }
            }
        }
        assert!((s.lowest_along(&pose, &n) - lowest).abs() < 1e-14);
        // Tighter than the world box's lowest corner.
        let (lo, hi) = s.world_aabb(&pose, 0.0);
        let (centre, half) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
        assert!(n.dot(&centre) - n.abs().dot(&half) < lowest - 1e-3);
    }

    #[test]
    fn world_boxes_contain_the_rotated_shape() {
        let s = CollisionShape::cuboid(Vec3::new(0.1, 0.2, 0.3));
        let pose = SE3::new(rotation_from_rpy(0.3, -0.5, 1.2), Vec3::new(1.0, 2.0, 3.0));
        let (lo, hi) = s.world_aabb(&pose, 0.01);
        for sx in [-1.0, 1.0] {
            for sy in [-1.0, 1.0] {
                for sz in [-1.0, 1.0] {
                    let p = pose.act_point(&Vec3::new(0.1 * sx, 0.2 * sy, 0.3 * sz));
                    assert!((0..3).all(|k| lo[k] < p[k] && p[k] < hi[k]));
                }
            }
        }
    }

    #[test]
    fn hulls_of_flat_point_sets_are_refused() {
        let flat = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::new(1.0, 1.0, 0.0)];
        let e = CollisionShape::convex_hull(&flat, "flat.stl").unwrap_err().to_string();
        assert!(e.starts_with("flat.stl: the mesh has no volume"), "{e}");
    }
}
