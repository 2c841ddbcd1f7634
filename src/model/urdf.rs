//! URDF → validated kinematic tree (links, joints, limits) in Pinocchio's joint order.
//!
//! The tree is walked depth first from the root link; the children of a link are visited
//! in the byte order of their joints' names. That is the order urdfdom gives (it keeps
//! joints in a `std::map`) and therefore the order in which Pinocchio numbers joints when
//! it reads the same file, so q and v vectors line up with Pinocchio's.
//!
//! Anything the engine cannot represent faithfully is an error that names the file and
//! the element, never a silently different model: mimic joints, planar and spherical
//! joints, kinematic loops (a link with two parents), several roots, zero-norm axes,
//! non-finite numbers.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// Kind of a URDF joint this crate supports.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// 1 dof rotation about the axis, with position limits.
    Revolute,
    /// 1 dof rotation about the axis, unbounded.
    Continuous,
    /// 1 dof translation along the axis.
    Prismatic,
    /// No dof: the child is rigidly attached.
    Fixed,
    /// 6 dof (only meaningful as the root joint of a floating-base robot).
    Floating,
}

impl JointKind {
    /// True for revolute, continuous and prismatic joints: the joints of a JointState.
    pub fn is_one_dof(self) -> bool {
        matches!(self, Self::Revolute | Self::Continuous | Self::Prismatic)
    }
}

/// Limits of a joint as written in `<limit>` (position bounds, |effort|, |velocity|).
/// Missing `<limit>`: bounds ±∞ for continuous joints, and efforts/velocities +∞.
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
    /// Unit axis in the joint frame (x for fixed joints).
    pub axis: [f64; 3],
    /// Limits.
    pub limits: JointLimits,
}

/// A robot's kinematic tree, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotDescription {
    /// The `<robot name>`.
    pub name: String,
    /// Where it came from (a path, or "parameter robot_description").
    pub origin: String,
    /// The root link (no parent joint).
    pub root_link: String,
    /// Every link, depth first from the root.
    pub links: Vec<String>,
    /// Every joint (fixed ones too), depth first from the root: Pinocchio's order.
    pub joints: Vec<JointDescription>,
}

/// A URDF that cannot be used, with the file (or other origin) it came from.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {kind}")]
pub struct UrdfError {
    /// File path or other origin.
    pub origin: String,
    /// What is wrong.
    pub kind: UrdfErrorKind,
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
    /// A mimic joint.
    #[error("joint `{0}` is a mimic joint, which is not supported")]
    Mimic(String),
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
    /// A floating joint below the root.
    #[error("joint `{0}` is floating but not attached to the root link; only a floating root joint is supported")]
    FloatingNotAtRoot(String),
}

impl RobotDescription {
    /// Reads and validates a URDF file.
    pub fn from_file(path: &Path) -> Result<Self, UrdfError> {
        let origin = path.display().to_string();
        let xml = std::fs::read_to_string(path).map_err(|e| UrdfError { origin: origin.clone(), kind: e.into() })?;
        Self::from_xml(&xml, &origin)
    }

    /// Parses and validates URDF text; `origin` names it in errors.
    pub fn from_xml(xml: &str, origin: &str) -> Result<Self, UrdfError> {
        let err = |kind| UrdfError { origin: origin.to_owned(), kind };
        let robot = urdf_rs::read_from_string(xml).map_err(|e| err(UrdfErrorKind::Parse(e.to_string())))?;
        build(&robot, origin).map_err(err)
    }

    /// The revolute, continuous and prismatic joints, in tree order.
    pub fn movable_joints(&self) -> impl Iterator<Item = &JointDescription> {
        self.joints.iter().filter(|j| j.kind.is_one_dof())
    }

    /// The joint with this name.
    pub fn joint(&self, name: &str) -> Option<&JointDescription> {
        self.joints.iter().find(|j| j.name == name)
    }
}

fn build(robot: &urdf_rs::Robot, origin: &str) -> Result<RobotDescription, UrdfErrorKind> {
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
        links.push(robot.links[l].name.clone());
        if let Some(j) = parent_joint[l] {
            joints.push(describe(j, j.parent.link == robot.links[root].name)?);
        }
        // Reverse so that the first child (by joint name) is visited first.
        for j in children[l].iter().rev() {
            stack.push(link_index[j.child.link.as_str()]);
        }
    }
    if links.len() != robot.links.len() {
        let visited: std::collections::HashSet<&str> = links.iter().map(String::as_str).collect();
        let lost = (0..robot.links.len()).filter(|&i| !visited.contains(robot.links[i].name.as_str()));
        return Err(UrdfErrorKind::Cycle(names(robot, lost)));
    }
    Ok(RobotDescription {
        name: robot.name.clone(),
        origin: origin.to_owned(),
        root_link: robot.links[root].name.clone(),
        links,
        joints,
    })
}

fn names(robot: &urdf_rs::Robot, ids: impl Iterator<Item = usize>) -> String {
    ids.map(|i| format!("`{}`", robot.links[i].name)).collect::<Vec<_>>().join(", ")
}

fn describe(j: &urdf_rs::Joint, attached_to_root: bool) -> Result<JointDescription, UrdfErrorKind> {
    use urdf_rs::JointType as T;
    if j.mimic.is_some() {
        return Err(UrdfErrorKind::Mimic(j.name.clone()));
    }
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
        [a[0] / n, a[1] / n, a[2] / n]
    } else {
        [1.0, 0.0, 0.0]
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
                effort: positive_or_inf(l.effort),
                velocity: positive_or_inf(l.velocity),
            }
        }
        JointKind::Continuous => JointLimits {
            lower: f64::NEG_INFINITY,
            upper: f64::INFINITY,
            effort: positive_or_inf(l.effort),
            velocity: positive_or_inf(l.velocity),
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
    Ok(JointDescription {
        name: j.name.clone(),
        kind,
        parent: j.parent.link.clone(),
        child: j.child.link.clone(),
        axis,
        limits,
    })
}

/// URDF 1.0 writes 0 for "no limit" when `<limit>` is absent (urdf-rs defaults); a
/// non-positive effort or velocity limit would forbid any motion, so 0 means unlimited.
fn positive_or_inf(x: f64) -> f64 {
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
        assert_eq!(d.root_link, "base");
        assert_eq!(d.links, ["base", "b", "c", "a"]);
        let names: Vec<_> = d.joints.iter().map(|j| j.name.as_str()).collect();
        assert_eq!(names, ["m_j", "a_j", "z_j"]);
        assert_eq!(d.joints[0].axis, [0.0, 0.0, 1.0]);
        assert_eq!(d.joints[1].limits.lower, f64::NEG_INFINITY);
        assert_eq!(d.joints[2].limits, JointLimits { lower: -1.0, upper: 1.0, effort: 10.0, velocity: 3.0 });
        assert_eq!(d.movable_joints().count(), 3);
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
        let e = error_of(&urdf("<link name=\"a\"/><link name=\"a\"/>"));
        assert_eq!(e, "bad.urdf: link `a` is defined twice");
    }

    #[test]
    fn unsupported_features_are_errors_not_silent_changes() {
        let mimic = "<joint name=\"m\" type=\"revolute\"><parent link=\"base\"/><child link=\"a\"/>\
                     <limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/><mimic joint=\"x\"/></joint>";
        let e = error_of(&urdf(&format!("<link name=\"base\"/><link name=\"a\"/>{mimic}")));
        assert_eq!(e, "bad.urdf: joint `m` is a mimic joint, which is not supported");
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
    fn a_missing_file_names_the_path() {
        let e = RobotDescription::from_file(Path::new("/nonexistent/robot.urdf")).unwrap_err().to_string();
        assert!(e.starts_with("/nonexistent/robot.urdf: cannot read the file"), "{e}");
    }
}
