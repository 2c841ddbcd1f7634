//! URDF → validated kinematic tree (links with inertia and collision geometry, joints
//! with origin, axis, limits and dynamics) in Pinocchio's joint order.
//!
//! The tree is walked depth first from the root link; the children of a link are visited
//! in the byte order of their joints' names. That is the order urdfdom gives (it keeps
//! joints in a `std::map`) and therefore the order in which Pinocchio numbers joints when
//! it reads the same file, so q and v vectors line up with Pinocchio's.
//!
//! Anything the engine cannot represent faithfully is an error that names the file and
//! the element, never a silently different model: planar and spherical joints, kinematic
//! loops (a link with two parents), several roots, zero-norm axes, non-finite or negative
//! masses and inertias. Mimic joints are an error unless [`MimicPolicy::Independent`] is
//! asked for (then they are ordinary joints, as Pinocchio loads them by default).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use super::geometry::Shape;
use crate::spatial::{Inertia, Mat3, SE3, Vec3, rotation_from_rpy};

/// Kind of a URDF joint this crate supports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// 1 dof rotation about the axis, with position limits.
    Revolute,
    /// 1 dof rotation about the axis, unbounded (q = (cos θ, sin θ), as in Pinocchio).
    Continuous,
    /// 1 dof translation along the axis.
    Prismatic,
    /// No dof: the child is rigidly attached.
    Fixed,
    /// 6 dof (only as the root joint of a floating-base robot).
    Floating,
}

impl JointKind {
    /// True for revolute, continuous and prismatic joints: the joints of a JointState.
    pub fn is_one_dof(self) -> bool {
        matches!(self, Self::Revolute | Self::Continuous | Self::Prismatic)
    }
}

/// What to do with `<mimic>` joints.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MimicPolicy {
    /// Refuse the URDF (the default: a mimic constraint is not modelled).
    #[default]
    Error,
    /// Load mimic joints as ordinary independent joints (Pinocchio's default).
    Independent,
}

/// Limits of a joint as written in `<limit>` (position bounds, |effort|, |velocity|).
/// Missing values: bounds ±∞ for continuous joints, efforts and velocities +∞.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JointLimits {
    /// Lower position bound (rad or m).
    pub lower: f64,
    /// Upper position bound (rad or m).
    pub upper: f64,
    /// Maximum |effort| (N·m or N).
    pub effort: f64,
    /// Maximum |velocity| (rad/s or m/s).
    pub velocity: f64,
}

/// `<dynamics damping friction>` (0 when absent).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct JointDynamics {
    /// Viscous damping (N·m·s/rad or N·s/m).
    pub damping: f64,
    /// Coulomb friction (N·m or N).
    pub friction: f64,
}

/// One joint of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDescription {
    /// Joint name.
    pub name: String,
    /// Joint kind.
    pub kind: JointKind,
    /// Parent link name.
    pub parent: String,
    /// Child link name.
    pub child: String,
    /// Placement of the joint frame (= child link frame at q = 0) in the parent link frame.
    pub origin: SE3,
    /// Unit axis in the joint frame (x for fixed and floating joints).
    pub axis: Vec3,
    /// Limits.
    pub limits: JointLimits,
    /// Damping and friction.
    pub dynamics: JointDynamics,
    /// The joint it mimics, if any (only with [`MimicPolicy::Independent`]).
    pub mimics: Option<String>,
}

/// One `<collision>` element.
#[derive(Clone, Debug, PartialEq)]
pub struct CollisionDescription {
    /// Its name attribute (may be empty).
    pub name: String,
    /// Placement in the link frame.
    pub origin: SE3,
    /// The shape; a mesh's `file` is the URI as written (`package://`, `file://`,
    /// absolute or relative), resolved when the model is built.
    pub geometry: Shape,
}

/// One link.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkDescription {
    /// Link name.
    pub name: String,
    /// Its inertia in the link frame (zero without `<inertial>`).
    pub inertia: Inertia,
    /// Its collision elements.
    pub collisions: Vec<CollisionDescription>,
}

/// A robot's kinematic tree, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotDescription {
    /// The `<robot name>`.
    pub name: String,
    /// Where it came from (a path, or "parameter robot_description").
    pub origin: String,
    /// Directory of the URDF file (for relative mesh paths), if it came from a file.
    pub directory: Option<std::path::PathBuf>,
    /// Every link, depth first from the root (the first is the root link).
    pub links: Vec<LinkDescription>,
    /// Every joint (fixed ones too), depth first from the root: Pinocchio's order.
    pub joints: Vec<JointDescription>,
}

/// A URDF that cannot be used, with the file (or other origin) it came from. Displayed on
/// one line: control characters of names and of the parsers' quotes are escaped.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {}", one_line(&kind.to_string()))]
pub struct UrdfError {
    /// File path or other origin.
    pub origin: String,
    /// What is wrong.
    pub kind: UrdfErrorKind,
}

/// `text` with its control characters (line breaks, NUL, …) escaped: an error message on
/// one line whatever the file or the parser put in it (quotes and backslashes kept).
pub(crate) fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// What is wrong with a URDF.
#[derive(Debug, thiserror::Error)]
pub enum UrdfErrorKind {
    /// The file cannot be read.
    #[error("cannot read the file: {0}")]
    Read(#[from] std::io::Error),
    /// Not well-formed URDF XML.
    #[error("not a valid URDF: {0}")]
    Parse(String),
    /// Empty (or blank) text: no URDF at all, e.g. an empty message on a description topic.
    #[error("the URDF text is empty")]
    Empty,
    /// The robot has no links.
    #[error("the robot has no links")]
    NoLinks,
    /// Two links share a name.
    #[error("link `{0}` is defined twice")]
    DuplicateLink(String),
    /// Two joints share a name.
    #[error("joint `{0}` is defined twice")]
    DuplicateJoint(String),
    /// A joint refers to a link that does not exist.
    #[error("joint `{joint}`: {role} link `{link}` does not exist")]
    UnknownLink {
        /// The joint.
        joint: String,
        /// "parent" or "child".
        role: &'static str,
        /// The missing link.
        link: String,
    },
    /// A link is the child of two joints: a kinematic loop.
    #[error("link `{link}` is the child of joints `{first}` and `{second}` (kinematic loops are not supported)")]
    TwoParents {
        /// The link.
        link: String,
        /// One parent joint.
        first: String,
        /// The other.
        second: String,
    },
    /// Several links have no parent.
    #[error("the robot has several root links ({0}); a URDF is a single tree")]
    SeveralRoots(String),
    /// Every link has a parent or some links are not reachable from the root.
    #[error("the joints form a cycle through links {0}")]
    Cycle(String),
    /// A mimic joint (with the default policy).
    #[error(
        "joint `{joint}` mimics `{leader}`; mimic constraints are not modelled (load it as an independent joint, as Pinocchio does by default, with the mimic option `independent`)"
    )]
    Mimic {
        /// The mimic joint.
        joint: String,
        /// The joint it follows.
        leader: String,
    },
    /// A joint type the engine does not model.
    #[error(
        "joint `{joint}` has type {kind}, which is not supported (revolute, continuous, prismatic, fixed, floating are)"
    )]
    UnsupportedJoint {
        /// The joint.
        joint: String,
        /// Its type.
        kind: &'static str,
    },
    /// A zero (or non-finite) joint axis.
    #[error("joint `{joint}`: axis {axis:?} has no direction")]
    BadAxis {
        /// The joint.
        joint: String,
        /// The axis as written.
        axis: [f64; 3],
    },
    /// A limit that makes no sense.
    #[error("joint `{joint}`: {what}")]
    BadLimit {
        /// The joint.
        joint: String,
        /// What is wrong.
        what: String,
    },
    /// A physically impossible inertial.
    #[error("link `{link}`: {what}")]
    BadInertial {
        /// The link.
        link: String,
        /// What is wrong.
        what: String,
    },
    /// A collision shape with a size that is not positive (or beyond 10 km).
    #[error("link `{link}`: collision geometry sizes {sizes:?} must be positive and at most 10 km")]
    BadGeometry {
        /// The link.
        link: String,
        /// Its sizes (a mesh: the scale factors' magnitudes).
        sizes: Vec<f64>,
    },
    /// A non-finite number in an origin, or a translation beyond [`MAX_TRANSLATION`].
    #[error("{element}: origin has a non-finite value or a translation beyond ±10 km")]
    BadOrigin {
        /// "joint `x`" or "link `y` collision".
        element: String,
    },
    /// A floating joint below the root.
    #[error("joint `{0}` is floating but not attached to the root link; only a floating root joint is supported")]
    FloatingNotAtRoot(String),
}

impl RobotDescription {
    /// Reads and validates a URDF file (mimic joints refused).
    pub fn from_file(path: &Path) -> Result<Self, UrdfError> {
        Self::from_file_with(path, MimicPolicy::Error)
    }

    /// Reads and validates a URDF file.
    pub fn from_file_with(path: &Path, mimic: MimicPolicy) -> Result<Self, UrdfError> {
        let origin = path.display().to_string();
        let xml = std::fs::read_to_string(path).map_err(|e| UrdfError { origin: origin.clone(), kind: e.into() })?;
        let mut d = Self::from_xml_with(&xml, &origin, mimic)?;
        d.directory = path.parent().map(Path::to_path_buf);
        Ok(d)
    }

    /// Parses and validates URDF text (mimic joints refused); `origin` names it in errors.
    pub fn from_xml(xml: &str, origin: &str) -> Result<Self, UrdfError> {
        Self::from_xml_with(xml, origin, MimicPolicy::Error)
    }

    /// Parses and validates URDF text; `origin` names it in errors.
    pub fn from_xml_with(xml: &str, origin: &str, mimic: MimicPolicy) -> Result<Self, UrdfError> {
        let err = |kind| UrdfError { origin: origin.to_owned(), kind };
        let parse = |e: String| err(UrdfErrorKind::Parse(e));
        if xml.trim().is_empty() {
            return Err(err(UrdfErrorKind::Empty));
        }
        let xml = without_visuals(xml).map_err(parse)?;
        let robot = urdf_rs::read_from_string(&xml).map_err(|e| parse(e.to_string()))?;
        build(&robot, origin, mimic).map_err(err)
    }

    /// The revolute, continuous and prismatic joints, in tree order.
    pub fn movable_joints(&self) -> impl Iterator<Item = &JointDescription> {
        self.joints.iter().filter(|j| j.kind.is_one_dof())
    }

    /// The joint with this name.
    pub fn joint(&self, name: &str) -> Option<&JointDescription> {
        self.joints.iter().find(|j| j.name == name)
    }

    /// The link with this name.
    pub fn link(&self, name: &str) -> Option<&LinkDescription> {
        self.links.iter().find(|l| l.name == name)
    }

    /// The root link's name.
    pub fn root_link(&self) -> &str {
        &self.links[0].name
    }
}

/// The URDF without its `<visual>` elements and top-level `<material>` definitions: they
/// play no part in dynamics or collision, and urdf-rs is stricter about them than urdfdom
/// (a `<texture/>` without filename, as in example-robot-data's iCub, fails it). Cut by
/// the exact byte ranges of a real XML parse, which also reports malformed XML with its
/// position.
fn without_visuals(xml: &str) -> Result<String, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| e.to_string())?;
    let root = doc.root_element();
    if root.tag_name().name() != "robot" {
        return Err(format!("the root element is <{}>, expected <robot>", root.tag_name().name()));
    }
    let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
    for child in root.children().filter(|n| n.is_element()) {
        match child.tag_name().name() {
            "material" => cuts.push(child.range()),
            "link" => cuts.extend(child.children().filter(|n| n.has_tag_name("visual")).map(|n| n.range())),
            _ => {}
        }
    }
    let mut out = String::with_capacity(xml.len());
    let mut at = 0;
    for r in cuts {
        out.push_str(&xml[at..r.start]);
        at = r.end;
    }
    out.push_str(&xml[at..]);
    Ok(out)
}

fn build(robot: &urdf_rs::Robot, origin: &str, mimic: MimicPolicy) -> Result<RobotDescription, UrdfErrorKind> {
    if robot.links.is_empty() {
        return Err(UrdfErrorKind::NoLinks);
    }
    let mut link_index: HashMap<&str, usize> = HashMap::new();
    for (i, l) in robot.links.iter().enumerate() {
        if link_index.insert(l.name.as_str(), i).is_some() {
            return Err(UrdfErrorKind::DuplicateLink(l.name.clone()));
        }
    }
    // Joints by name (byte order, as urdfdom's std::map): this fixes the child order.
    let mut joints_by_name: BTreeMap<&str, &urdf_rs::Joint> = BTreeMap::new();
    for j in &robot.joints {
        if joints_by_name.insert(j.name.as_str(), j).is_some() {
            return Err(UrdfErrorKind::DuplicateJoint(j.name.clone()));
        }
    }
    let mut parent_joint: Vec<Option<&urdf_rs::Joint>> = vec![None; robot.links.len()];
    let mut children: Vec<Vec<&urdf_rs::Joint>> = vec![Vec::new(); robot.links.len()];
    for j in joints_by_name.values() {
        let find = |link: &str, role| {
            link_index.get(link).copied().ok_or_else(|| UrdfErrorKind::UnknownLink {
                joint: j.name.clone(),
                role,
                link: link.to_owned(),
            })
        };
        let p = find(&j.parent.link, "parent")?;
        let c = find(&j.child.link, "child")?;
        if let Some(first) = parent_joint[c] {
            return Err(UrdfErrorKind::TwoParents {
                link: j.child.link.clone(),
                first: first.name.clone(),
                second: j.name.clone(),
            });
        }
        parent_joint[c] = Some(j);
        children[p].push(j);
    }
    let roots: Vec<usize> = (0..robot.links.len()).filter(|&i| parent_joint[i].is_none()).collect();
    let root = match roots.as_slice() {
        [r] => *r,
        [] => return Err(UrdfErrorKind::Cycle(names(robot, 0..robot.links.len()))),
        many => return Err(UrdfErrorKind::SeveralRoots(names(robot, many.iter().copied()))),
    };

    let mut links = Vec::with_capacity(robot.links.len());
    let mut joints = Vec::with_capacity(robot.joints.len());
    let mut stack = vec![root];
    while let Some(l) = stack.pop() {
        links.push(describe_link(&robot.links[l])?);
        if let Some(j) = parent_joint[l] {
            joints.push(describe_joint(j, j.parent.link == robot.links[root].name, mimic)?);
        }
        // Reverse so that the first child (by joint name) is visited first.
        for j in children[l].iter().rev() {
            stack.push(link_index[j.child.link.as_str()]);
        }
    }
    if links.len() != robot.links.len() {
        let visited: std::collections::HashSet<&str> = links.iter().map(|l| l.name.as_str()).collect();
        let lost = (0..robot.links.len()).filter(|&i| !visited.contains(robot.links[i].name.as_str()));
        return Err(UrdfErrorKind::Cycle(names(robot, lost)));
    }
    Ok(RobotDescription { name: robot.name.clone(), origin: origin.to_owned(), directory: None, links, joints })
}

fn names(robot: &urdf_rs::Robot, ids: impl Iterator<Item = usize>) -> String {
    ids.map(|i| format!("`{}`", robot.links[i].name)).collect::<Vec<_>>().join(", ")
}

/// The largest translation of an origin (m): beyond, products of lengths and masses overflow
/// long before anything physical happens.
pub const MAX_TRANSLATION: f64 = 1e4;

/// The largest mass (kg) and inertia entry (kg·m²) of a link.
pub const MAX_MASS: f64 = 1e9;
const MAX_INERTIA: f64 = 1e12;

fn pose(p: &urdf_rs::Pose, element: impl FnOnce() -> String) -> Result<SE3, UrdfErrorKind> {
    let (xyz, rpy) = (p.xyz.0, p.rpy.0);
    if xyz.iter().any(|x| !(-MAX_TRANSLATION..=MAX_TRANSLATION).contains(x)) || rpy.iter().any(|x| !x.is_finite()) {
        return Err(UrdfErrorKind::BadOrigin { element: element() });
    }
    Ok(SE3::new(rotation_from_rpy(rpy[0], rpy[1], rpy[2]), Vec3::new(xyz[0], xyz[1], xyz[2])))
}

fn describe_link(l: &urdf_rs::Link) -> Result<LinkDescription, UrdfErrorKind> {
    let bad = |what: String| UrdfErrorKind::BadInertial { link: l.name.clone(), what };
    let i = &l.inertial;
    let m = i.mass.value;
    let t = &i.inertia;
    let values = [t.ixx, t.ixy, t.ixz, t.iyy, t.iyz, t.izz];
    if !(-MAX_MASS..=MAX_MASS).contains(&m) || values.iter().any(|x| !(-MAX_INERTIA..=MAX_INERTIA).contains(x)) {
        return Err(bad(format!(
            "the inertial has a non-finite value, a mass beyond {MAX_MASS:e} kg or an inertia beyond {MAX_INERTIA:e} kg·m²"
        )));
    }
    if m < 0.0 {
        return Err(bad(format!("negative mass {m}")));
    }
    let inertia_in_com_frame = Mat3::new(t.ixx, t.ixy, t.ixz, t.ixy, t.iyy, t.iyz, t.ixz, t.iyz, t.izz);
    // Positive semi-definiteness is checked on the moving bodies the model is built of
    // (after fixed links are merged): CAD exports often carry slightly invalid inertias on
    // small fixed links, which Pinocchio accepts and which change nothing once merged.
    let c = pose(&i.origin, || format!("link `{}` inertial", l.name))?;
    let inertia = Inertia::new(m, c.translation, c.rotation * inertia_in_com_frame * c.rotation.transpose());
    let mut collisions = Vec::with_capacity(l.collision.len());
    for col in &l.collision {
        let origin = pose(&col.origin, || format!("link `{}` collision", l.name))?;
        let geometry = match &col.geometry {
            urdf_rs::Geometry::Box { size } => Shape::Box { size: Vec3::from(size.0) },
            urdf_rs::Geometry::Cylinder { radius, length } => Shape::Cylinder { radius: *radius, length: *length },
            urdf_rs::Geometry::Capsule { radius, length } => Shape::Capsule { radius: *radius, length: *length },
            urdf_rs::Geometry::Sphere { radius } => Shape::Sphere { radius: *radius },
            urdf_rs::Geometry::Mesh { filename, scale } => Shape::Mesh {
                file: filename.into(),
                scale: scale.map_or(Vec3::new(1.0, 1.0, 1.0), |s| Vec3::from(s.0)),
            },
        };
        // Sizes in (0, 10 km] (a mesh's scale factors non-zero): the collision library
        // asserts positive dimensions.
        let sizes: Vec<f64> = match &geometry {
            Shape::Box { size } => size.iter().copied().collect(),
            Shape::Cylinder { radius, length } | Shape::Capsule { radius, length } => vec![*radius, *length],
            Shape::Sphere { radius } => vec![*radius],
            Shape::Mesh { scale, .. } => scale.iter().map(|s| s.abs()).collect(),
        };
        if sizes.iter().any(|x| !(*x > 0.0 && *x <= MAX_TRANSLATION)) {
            return Err(UrdfErrorKind::BadGeometry { link: l.name.clone(), sizes });
        }
        collisions.push(CollisionDescription { name: col.name.clone().unwrap_or_default(), origin, geometry });
    }
    Ok(LinkDescription { name: l.name.clone(), inertia, collisions })
}

fn describe_joint(
    j: &urdf_rs::Joint,
    attached_to_root: bool,
    mimic: MimicPolicy,
) -> Result<JointDescription, UrdfErrorKind> {
    use urdf_rs::JointType as T;
    let mimics = match (&j.mimic, mimic) {
        (Some(m), MimicPolicy::Error) => {
            return Err(UrdfErrorKind::Mimic { joint: j.name.clone(), leader: m.joint.clone() });
        }
        (Some(m), MimicPolicy::Independent) => Some(m.joint.clone()),
        (None, _) => None,
    };
    let kind = match j.joint_type {
        T::Revolute => JointKind::Revolute,
        T::Continuous => JointKind::Continuous,
        T::Prismatic => JointKind::Prismatic,
        T::Fixed => JointKind::Fixed,
        T::Floating if attached_to_root => JointKind::Floating,
        T::Floating => return Err(UrdfErrorKind::FloatingNotAtRoot(j.name.clone())),
        T::Planar => return Err(UrdfErrorKind::UnsupportedJoint { joint: j.name.clone(), kind: "planar" }),
        T::Spherical => return Err(UrdfErrorKind::UnsupportedJoint { joint: j.name.clone(), kind: "spherical" }),
    };
    let axis = if kind.is_one_dof() {
        let a = j.axis.xyz.0;
        let n = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        if !(n.is_finite() && n > 1e-12) {
            return Err(UrdfErrorKind::BadAxis { joint: j.name.clone(), axis: a });
        }
        Vec3::new(a[0] / n, a[1] / n, a[2] / n)
    } else {
        Vec3::x()
    };
    let l = &j.limit;
    let bad = |what: String| UrdfErrorKind::BadLimit { joint: j.name.clone(), what };
    let limits = match kind {
        JointKind::Revolute | JointKind::Prismatic => {
            if l.lower.is_nan() || l.upper.is_nan() || l.lower > l.upper {
                return Err(bad(format!("lower limit {} is above upper limit {}", l.lower, l.upper)));
            }
            JointLimits {
                lower: l.lower,
                upper: l.upper,
                effort: unlimited_if_zero(l.effort),
                velocity: unlimited_if_zero(l.velocity),
            }
        }
        JointKind::Continuous => JointLimits {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            effort: unlimited_if_zero(l.effort),
            velocity: unlimited_if_zero(l.velocity),
        },
        JointKind::Fixed | JointKind::Floating => JointLimits {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            effort: f64::INFINITY,
            velocity: f64::INFINITY,
        },
    };
    if limits.effort < 0.0 || limits.velocity < 0.0 {
        return Err(bad(format!("negative effort ({}) or velocity ({}) limit", l.effort, l.velocity)));
    }
    let dynamics = j
        .dynamics
        .as_ref()
        .map_or(JointDynamics::default(), |d| JointDynamics { damping: d.damping, friction: d.friction });
    if !((0.0..=1e9).contains(&dynamics.damping) && (0.0..=1e9).contains(&dynamics.friction)) {
        return Err(bad(format!(
            "dynamics damping {} and friction {} must be within [0, 1e9]",
            dynamics.damping, dynamics.friction
        )));
    }
    let origin = pose(&j.origin, || format!("joint `{}`", j.name))?;
    Ok(JointDescription {
        name: j.name.clone(),
        kind,
        parent: j.parent.link.clone(),
        child: j.child.link.clone(),
        origin,
        axis,
        limits,
        dynamics,
        mimics,
    })
}

/// URDF 1.0 without `<limit>` gives 0 (urdf-rs default); a zero effort or velocity limit
/// would forbid any motion, so 0 means unlimited.
fn unlimited_if_zero(x: f64) -> f64 {
    if x == 0.0 { f64::INFINITY } else { x }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn urdf(body: &str) -> String {
        format!("<robot name=\"r\">{body}</robot>")
    }

    const LINKS: &str = "<link name=\"base\"/><link name=\"a\"/><link name=\"b\"/><link name=\"c\"/>";

    fn joint(name: &str, ty: &str, parent: &str, child: &str) -> String {
        format!(
            "<joint name=\"{name}\" type=\"{ty}\"><parent link=\"{parent}\"/><child link=\"{child}\"/>\
             <axis xyz=\"0 0 2\"/><limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"3\"/></joint>"
        )
    }

    #[test]
    fn depth_first_with_children_in_joint_name_order() {
        // base has children through joints "z_j" (to a) and "m_j" (to b); b has "a_j" to c.
        let xml = urdf(&format!(
            "{LINKS}{}{}{}",
            joint("z_j", "revolute", "base", "a"),
            joint("m_j", "prismatic", "base", "b"),
            joint("a_j", "continuous", "b", "c")
        ));
        let d = RobotDescription::from_xml(&xml, "t.urdf").unwrap();
        assert_eq!(d.root_link(), "base");
        let links: Vec<_> = d.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(links, ["base", "b", "c", "a"]);
        let names: Vec<_> = d.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["m_j", "a_j", "z_j"]);
        assert_eq!(d.joints[0].axis, Vec3::z());
        assert_eq!(d.joints[1].limits.lower, f64::NEG_INFINITY);
        assert_eq!(d.joints[2].limits, JointLimits { lower: -1.0, upper: 1.0, effort: 10.0, velocity: 3.0 });
        assert_eq!(d.movable_joints().count(), 3);
    }

    #[test]
    fn visuals_do_not_matter() {
        let xml = urdf(
            "<material name='m'><texture/></material><link name='l'><visual><geometry><box size='1 1 1'/></geometry>\
             <material name='x'><texture/></material></visual><collision><geometry><sphere radius='0.5'/></geometry></collision></link>",
        );
        let d = RobotDescription::from_xml(&xml, "t.urdf").unwrap();
        assert_eq!(d.links[0].collisions[0].geometry, Shape::Sphere { radius: 0.5 });
    }

    #[test]
    fn inertials_are_rotated_into_the_link_frame() {
        let xml = urdf(
            "<link name=\"l\"><inertial><origin xyz=\"0.1 0.2 0.3\" rpy=\"0 0 1.5707963267948966\"/>\
             <mass value=\"2\"/><inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"3\"/></inertial></link>",
        );
        let d = RobotDescription::from_xml(&xml, "t.urdf").unwrap();
        let i = d.links[0].inertia;
        assert_eq!(i.mass, 2.0);
        assert!((i.com - Vec3::new(0.1, 0.2, 0.3)).norm() < 1e-15);
        // A quarter turn about z swaps the x and y moments.
        assert!((i.rotational - Mat3::from_diagonal(&Vec3::new(2.0, 1.0, 3.0))).norm() < 1e-14);
    }

    fn error_of(xml: &str) -> String {
        RobotDescription::from_xml(xml, "bad.urdf").unwrap_err().to_string()
    }

    #[test]
    fn structural_errors_name_the_file_and_the_element() {
        let e = error_of(&urdf(&format!("{LINKS}{}", joint("j", "revolute", "base", "nowhere"))));
        assert_eq!(e, "bad.urdf: joint `j`: child link `nowhere` does not exist");
        let e = error_of(&urdf(&format!(
            "{LINKS}{}{}{}",
            joint("j1", "revolute", "base", "a"),
            joint("j2", "revolute", "b", "a"),
            joint("j3", "revolute", "base", "c")
        )));
        assert!(e.contains("link `a` is the child of joints `j1` and `j2`"), "{e}");
        let e = error_of(&urdf(&format!("{LINKS}{}", joint("j", "revolute", "base", "a"))));
        assert!(e.contains("several root links (`base`, `b`, `c`)"), "{e}");
        let e = error_of(&urdf(&format!(
            "<link name=\"base\"/><link name=\"a\"/><link name=\"b\"/>{}{}{}",
            joint("j0", "fixed", "base", "a"),
            joint("j1", "revolute", "a", "b"),
            joint("j2", "revolute", "b", "a")
        )));
        assert!(e.contains("cycle") || e.contains("child of joints"), "{e}");
        assert!(error_of(&urdf("")).contains("no links"));
        assert!(error_of("<robot").starts_with("bad.urdf: not a valid URDF"));
        let e = error_of("<robot name='r'>\n<link name='a'>\n</robot>");
        assert!(e.contains(" at 3:"), "malformed XML reports its position: {e}");
        assert!(error_of("<model/>").contains("the root element is <model>, expected <robot>"));
        let e = error_of(&urdf("<link name=\"a\"/><link name=\"a\"/>"));
        assert_eq!(e, "bad.urdf: link `a` is defined twice");
    }

    #[test]
    fn impossible_inertials_are_errors() {
        let link = |mass: &str, ixx: &str| {
            urdf(&format!(
                "<link name=\"l\"><inertial><mass value=\"{mass}\"/>\
                 <inertia ixx=\"{ixx}\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial></link>"
            ))
        };
        assert_eq!(error_of(&link("-1", "1")), "bad.urdf: link `l`: negative mass -1");
        let e = error_of(&link("1", "inf"));
        assert!(e.contains("non-finite"), "{e}");
    }

    #[test]
    fn unsupported_features_are_errors_not_silent_changes() {
        let mimic = "<joint name=\"m\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
                     <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/><mimic joint=\"x\"/></joint>";
        let xml = urdf(&format!("<link name=\"base\"/><link name=\"a\"/>{mimic}"));
        let e = error_of(&xml);
        assert!(e.starts_with("bad.urdf: joint `m` mimics `x`; mimic constraints are not modelled"), "{e}");
        let d = RobotDescription::from_xml_with(&xml, "ok.urdf", MimicPolicy::Independent).unwrap();
        assert_eq!(d.joints[0].mimics.as_deref(), Some("x"));
        let e =
            error_of(&urdf(&format!("<link name=\"base\"/><link name=\"a\"/>{}", joint("p", "planar", "base", "a"))));
        assert!(e.contains("type planar"), "{e}");
        let zero_axis = "<joint name=\"z\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
                         <axis xyz=\"0 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>";
        let e = error_of(&urdf(&format!("<link name=\"base\"/><link name=\"a\"/>{zero_axis}")));
        assert!(e.contains("joint `z`: axis [0.0, 0.0, 0.0] has no direction"), "{e}");
        let inverted = "<joint name=\"i\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
                        <limit lower=\"1\" upper=\"-1\" effort=\"1\" velocity=\"1\"/></joint>";
        let e = error_of(&urdf(&format!("<link name=\"base\"/><link name=\"a\"/>{inverted}")));
        assert!(e.contains("joint `i`: lower limit 1 is above upper limit -1"), "{e}");
    }

    #[test]
    fn empty_text_is_named_as_empty_not_as_bad_xml() {
        for text in ["", " \n\t "] {
            let e = RobotDescription::from_xml(text, "topic /robot_description").unwrap_err().to_string();
            assert_eq!(e, "topic /robot_description: the URDF text is empty");
        }
    }

    #[test]
    fn a_missing_file_names_the_path() {
        let e = RobotDescription::from_file(Path::new("/nonexistent/robot.urdf")).unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/robot.urdf: cannot read the file"), "{e}");
    }
}
