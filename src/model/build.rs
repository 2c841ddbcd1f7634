//! URDF → [`Model`], the way Pinocchio builds its model from the same file.
//!
//! Movable joints become model joints in depth-first order. A fixed joint merges its child
//! link into the parent body: the link's inertia is added to the carrying joint's body at
//! the accumulated placement, and its frames (a fixed-joint frame and a body frame) are
//! kept. With `floating_base`, a free-flyer joint named `root_joint` carries the root link.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use nalgebra::DVector;

use super::frame::{Frame, FrameKind};
use super::geometry::{CollisionGeometry, Containment, PackageDirs, Shape, Unresolved};
use super::joint::{Axis, JointType};
use super::multibody::{Model, NO_PARENT};
use super::urdf::{JointKind, MimicPolicy, RobotDescription, UrdfError, one_line};
use crate::spatial::{Inertia, SE3};

/// How to build a model from a URDF.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelOptions {
    /// Add a free-flyer root joint (`root_joint`) to a fixed-root URDF.
    pub floating_base: bool,
    /// What to do with mimic joints.
    pub mimic: MimicPolicy,
    /// Directories holding packages, for `package://` mesh URIs.
    pub package_dirs: Vec<PathBuf>,
    /// Do not resolve collision meshes (dynamics only).
    pub skip_meshes: bool,
    /// Accept moving bodies without a positive mass or a positive definite rotational
    /// inertia, as written (as Pinocchio does). Off by default, as MuJoCo refuses them:
    /// such a body can make M(q) singular or indefinite.
    pub allow_invalid_inertia: bool,
    /// Whether `package://` and relative mesh paths must stay in their package or the
    /// URDF's folder (default) or may climb out of them.
    pub mesh_paths: Containment,
}

/// A model that cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The URDF itself.
    #[error(transparent)]
    Urdf(#[from] UrdfError),
    /// A collision mesh that cannot be found.
    #[error("{origin}: link `{}`: collision mesh `{}` not found (looked at {})", one_line(link), one_line(uri), tried.iter().map(|p| one_line(&p.display().to_string())).collect::<Vec<_>>().join(", "))]
    MeshNotFound {
        /// The URDF.
        origin: String,
        /// The link.
        link: String,
        /// The URI as written.
        uri: String,
        /// Every path tried.
        tried: Vec<PathBuf>,
    },
    /// A `package://` or relative collision mesh path that climbs out of its package or
    /// the URDF's folder.
    #[error(
        "{origin}: link `{link}`: collision mesh `{}` leaves {where_} (`..`); robot.meshes_outside_packages allows it",
        one_line(uri)
    )]
    MeshOutside {
        /// The URDF.
        origin: String,
        /// The link.
        link: String,
        /// The URI as written.
        uri: String,
        /// What it leaves: the package, or the URDF's folder.
        where_: String,
    },
    /// A moving body without a positive mass or a positive definite rotational inertia.
    #[error(
        "{origin}: the body moved by joint `{joint}` (links {links}) has mass {mass} kg and principal moments of inertia {eigenvalues:?} kg·m²: a moving body needs a mass and moments of at least {MIN_BODY_INERTIA:e} (allow_invalid_inertia loads it as written)"
    )]
    BadBodyInertia {
        /// The URDF.
        origin: String,
        /// The joint carrying the body.
        joint: String,
        /// The links merged into it.
        links: String,
        /// Its mass (kg).
        mass: f64,
        /// Eigenvalues of its rotational inertia about the centre of mass.
        eigenvalues: [f64; 3],
    },
    /// `floating_base` requested for a URDF whose root joint is already floating.
    #[error("{origin}: the URDF already has a floating root joint `{joint}`; do not also ask for a floating base")]
    FloatingTwice {
        /// The URDF.
        origin: String,
        /// Its floating joint.
        joint: String,
    },
}

impl Model {
    /// Reads a URDF file and builds its model.
    pub fn from_urdf_file(path: &Path, options: &ModelOptions) -> Result<Model, ModelError> {
        let description = RobotDescription::from_file_with(path, options.mimic)?;
        Model::from_description(&description, options)
    }

    /// Builds the model of a URDF given as text (`origin` names it in errors).
    pub fn from_urdf_xml(xml: &str, origin: &str, options: &ModelOptions) -> Result<Model, ModelError> {
        let description = RobotDescription::from_xml_with(xml, origin, options.mimic)?;
        Model::from_description(&description, options)
    }

    /// Builds the model of a validated description.
    pub fn from_description(d: &RobotDescription, options: &ModelOptions) -> Result<Model, ModelError> {
        if options.floating_base
            && let Some(j) = d.joints.iter().find(|j| j.kind == JointKind::Floating)
        {
            return Err(ModelError::FloatingTwice { origin: d.origin.clone(), joint: j.name.clone() });
        }
        let packages = PackageDirs::new(&options.package_dirs);
        let mut b = Builder::new(&d.name);

        // The root link, carried by the universe or by the free flyer.
        let (root_joint, root_frame) = if options.floating_base {
            let j = b.add_joint(JointType::FreeFlyer, "root_joint", 0, SE3::IDENTITY, 0);
            (j, b.frames.len() - 1)
        } else {
            (0, 0)
        };
        let root = &d.links[0];
        b.append_body(root_joint, &root.inertia, &SE3::IDENTITY);
        let root_body = b.add_frame(&root.name, FrameKind::Body, root_joint, root_frame, SE3::IDENTITY);
        // link name → (carrying joint, body frame, placement of the link frame in the joint frame)
        let mut links: HashMap<&str, (usize, usize, SE3)> = HashMap::new();
        links.insert(root.name.as_str(), (root_joint, root_body, SE3::IDENTITY));

        for j in &d.joints {
            let (parent_joint, parent_frame, parent_m_link) = links[j.parent.as_str()];
            let Some(child) = d.link(&j.child) else { continue };
            let placement = parent_m_link.compose(&j.origin);
            let joint_type = match j.kind {
                JointKind::Revolute => Some(JointType::Revolute { axis: Axis::new(j.axis) }),
                JointKind::Continuous => Some(JointType::RevoluteUnbounded { axis: Axis::new(j.axis) }),
                JointKind::Prismatic => Some(JointType::Prismatic { axis: Axis::new(j.axis) }),
                JointKind::Floating => Some(JointType::FreeFlyer),
                JointKind::Fixed => None,
            };
            let entry = match joint_type {
                Some(t) => {
                    let id = b.add_joint(t, &j.name, parent_joint, placement, parent_frame);
                    let joint_frame = b.frames.len() - 1;
                    b.set_limits(id, j.limits, j.dynamics);
                    b.append_body(id, &child.inertia, &SE3::IDENTITY);
                    let body = b.add_frame(&child.name, FrameKind::Body, id, joint_frame, SE3::IDENTITY);
                    (id, body, SE3::IDENTITY)
                }
                None => {
                    let fixed = b.add_frame(&j.name, FrameKind::FixedJoint, parent_joint, parent_frame, placement);
                    b.append_body(parent_joint, &child.inertia, &placement);
                    let body = b.add_frame(&child.name, FrameKind::Body, parent_joint, fixed, placement);
                    (parent_joint, body, placement)
                }
            };
            links.insert(child.name.as_str(), entry);
        }

        // Collision geometry, in the carrying joint's frame.
        let mut geometries = Vec::new();
        for link in &d.links {
            let (joint, frame, joint_m_link) = links[link.name.as_str()];
            for (k, c) in link.collisions.iter().enumerate() {
                let shape = match &c.geometry {
                    Shape::Mesh { file, scale } if !options.skip_meshes => {
                        let uri = file.to_string_lossy();
                        let resolved =
                            packages.resolve(&uri, d.directory.as_deref(), options.mesh_paths).map_err(|why| {
                                let (origin, link, uri) = (d.origin.clone(), link.name.clone(), uri.to_string());
                                match why {
                                    Unresolved::NotFound(tried) => {
                                        ModelError::MeshNotFound { origin, link, uri, tried }
                                    }
                                    Unresolved::Outside(where_) => {
                                        ModelError::MeshOutside { origin, link, uri, where_ }
                                    }
                                }
                            })?;
                        Shape::Mesh { file: resolved, scale: *scale }
                    }
                    other => other.clone(),
                };
                geometries.push(CollisionGeometry {
                    name: format!("{}_{k}", link.name),
                    link: link.name.clone(),
                    parent_joint: joint,
                    parent_frame: frame,
                    placement: joint_m_link.compose(&c.origin),
                    shape,
                    robot: 0,
                });
            }
        }
        let model = b.finish(geometries);
        if !options.allow_invalid_inertia {
            check_body_inertias(&model, d, &links)?;
        }
        Ok(model)
    }
}

/// The smallest mass (kg) and principal moment of inertia (kg·m²) of a moving body:
/// MuJoCo's mjMINVAL, the bound of its compiler's "mass and inertia of moving bodies must
/// be larger than mjMINVAL".
pub const MIN_BODY_INERTIA: f64 = 1e-15;

/// Every moving body (a movable joint's, with its fixed-joint children merged in, as MuJoCo
/// accepts a moving body whose static children carry the mass) needs a mass and the
/// eigenvalues of its rotational inertia about its centre of mass of at least
/// [`MIN_BODY_INERTIA`]. Then every body's spatial inertia is positive definite and so is
/// M(q) = Σ Jᵢᵀ Iᵢ Jᵢ, at every configuration, for the LTDL and ABA pivots to divide by.
fn check_body_inertias(
    model: &Model,
    d: &RobotDescription,
    links: &HashMap<&str, (usize, usize, SE3)>,
) -> Result<(), ModelError> {
    for i in 1..model.njoints() {
        let inertia = &model.inertias[i];
        let e = inertia.rotational.symmetric_eigenvalues();
        let valid = |x: f64| x >= MIN_BODY_INERTIA;
        if !(valid(inertia.mass) && e.iter().all(|&x| valid(x))) {
            let mut merged: Vec<&str> = links.iter().filter(|(_, v)| v.0 == i).map(|(k, _)| *k).collect();
            merged.sort_unstable();
            return Err(ModelError::BadBodyInertia {
                origin: d.origin.clone(),
                joint: model.joint_names[i].clone(),
                links: merged.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", "),
                mass: inertia.mass,
                eigenvalues: [e[0], e[1], e[2]],
            });
        }
    }
    Ok(())
}

/// The model of an empty world: the universe joint and frame only.
pub(super) fn universe(name: &str) -> Model {
    Builder::new(name).finish(Vec::new())
}

/// Accumulates joints, bodies and frames in Pinocchio's order.
struct Builder {
    model: Model,
    frames: Vec<Frame>,
    limits: Vec<(super::urdf::JointLimits, super::urdf::JointDynamics)>,
}

impl Builder {
    fn new(name: &str) -> Self {
        let empty = DVector::zeros(0);
        Builder {
            model: Model {
                name: name.to_owned(),
                nq: 0,
                nv: 0,
                joint_types: vec![JointType::Universe],
                joint_names: vec!["universe".to_owned()],
                parents: vec![0],
                joint_placements: vec![SE3::IDENTITY],
                inertias: vec![Inertia::ZERO],
                idx_q: vec![0],
                idx_v: vec![0],
                nv_subtree: vec![0],
                dof_parent: Vec::new(),
                dof_subtree_end: Vec::new(),
                frames: Vec::new(),
                gravity: Model::default_gravity(),
                lower_position_limit: empty.clone(),
                upper_position_limit: empty.clone(),
                velocity_limit: empty.clone(),
                effort_limit: empty.clone(),
                damping: empty.clone(),
                friction: empty,
                collision_geometries: Vec::new(),
            },
            frames: vec![Frame {
                name: "universe".to_owned(),
                kind: FrameKind::FixedJoint,
                parent_joint: 0,
                parent_frame: 0,
                placement: SE3::IDENTITY,
            }],
            limits: vec![(unlimited(), Default::default())],
        }
    }

    fn add_joint(&mut self, t: JointType, name: &str, parent: usize, placement: SE3, parent_frame: usize) -> usize {
        let m = &mut self.model;
        let id = m.joint_types.len();
        m.joint_types.push(t);
        m.joint_names.push(name.to_owned());
        m.parents.push(parent);
        m.joint_placements.push(placement);
        m.inertias.push(Inertia::ZERO);
        m.idx_q.push(m.nq);
        m.idx_v.push(m.nv);
        m.nv_subtree.push(0);
        m.nq += t.nq();
        m.nv += t.nv();
        self.limits.push((unlimited(), Default::default()));
        self.add_frame(name, FrameKind::Joint, id, parent_frame, SE3::IDENTITY);
        id
    }

    fn set_limits(&mut self, joint: usize, limits: super::urdf::JointLimits, dynamics: super::urdf::JointDynamics) {
        self.limits[joint] = (limits, dynamics);
    }

    fn append_body(&mut self, joint: usize, inertia: &Inertia, joint_m_body: &SE3) {
        let i = &mut self.model.inertias[joint];
        *i = *i + inertia.transformed(joint_m_body);
    }

    fn add_frame(&mut self, name: &str, kind: FrameKind, joint: usize, parent_frame: usize, placement: SE3) -> usize {
        self.frames.push(Frame { name: name.to_owned(), kind, parent_joint: joint, parent_frame, placement });
        self.frames.len() - 1
    }

    fn finish(mut self, geometries: Vec<CollisionGeometry>) -> Model {
        let m = &mut self.model;
        let n = m.joint_types.len();
        for i in (1..n).rev() {
            m.nv_subtree[i] += m.joint_types[i].nv();
            let p = m.parents[i];
            if p > 0 {
                m.nv_subtree[p] += m.nv_subtree[i];
            }
        }
        m.nv_subtree[0] = m.nv;
        m.dof_parent = vec![NO_PARENT; m.nv];
        m.dof_subtree_end = vec![0; m.nv];
        for i in 1..n {
            let end = m.idx_v[i] + m.nv_subtree[i];
            for k in m.idx_v[i]..m.idx_v[i] + m.joint_types[i].nv() {
                m.dof_subtree_end[k] = end;
            }
        }
        for i in 1..n {
            let first = m.idx_v[i];
            let p = m.parents[i];
            m.dof_parent[first] = if p > 0 { m.idx_v[p] + m.joint_types[p].nv() - 1 } else { NO_PARENT };
            for k in first + 1..first + m.joint_types[i].nv() {
                m.dof_parent[k] = k - 1;
            }
        }
        m.lower_position_limit = DVector::from_element(m.nq, f64::NEG_INFINITY);
        m.upper_position_limit = DVector::from_element(m.nq, f64::INFINITY);
        m.velocity_limit = DVector::from_element(m.nv, f64::INFINITY);
        m.effort_limit = DVector::from_element(m.nv, f64::INFINITY);
        m.damping = DVector::zeros(m.nv);
        m.friction = DVector::zeros(m.nv);
        for i in 1..n {
            let (l, d) = self.limits[i];
            let (iq, iv) = (m.idx_q[i], m.idx_v[i]);
            match m.joint_types[i] {
                JointType::Revolute { .. } | JointType::Prismatic { .. } => {
                    m.lower_position_limit[iq] = l.lower;
                    m.upper_position_limit[iq] = l.upper;
                }
                JointType::RevoluteUnbounded { .. } => {
                    for k in iq..iq + 2 {
                        m.lower_position_limit[k] = -1.0;
                        m.upper_position_limit[k] = 1.0;
                    }
                }
                JointType::FreeFlyer => {
                    for k in iq + 3..iq + 7 {
                        m.lower_position_limit[k] = -1.0;
                        m.upper_position_limit[k] = 1.0;
                    }
                }
                JointType::Universe => {}
            }
            for k in iv..iv + m.joint_types[i].nv() {
                m.velocity_limit[k] = l.velocity;
                m.effort_limit[k] = l.effort;
                m.damping[k] = d.damping;
                m.friction[k] = d.friction;
            }
        }
        m.frames = self.frames;
        m.collision_geometries = geometries;
        self.model
    }
}

fn unlimited() -> super::urdf::JointLimits {
    super::urdf::JointLimits {
        lower: f64::NEG_INFINITY,
        upper: f64::INFINITY,
        effort: f64::INFINITY,
        velocity: f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::Vec3;

    fn repo(p: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
    }

    #[test]
    fn the_quadruped_has_pinocchio_dimensions_and_frames() {
        let m = Model::from_urdf_file(&repo("urdf/quadruped.urdf"), &ModelOptions::default()).unwrap();
        assert_eq!((m.nq, m.nv, m.njoints()), (12, 12, 13));
        // universe + root body + (joint + body) per movable joint + (fixed + body) per foot
        assert_eq!(m.nframes(), 2 + 2 * 12 + 2 * 4);
        let f = ModelOptions { floating_base: true, ..Default::default() };
        let m = Model::from_urdf_file(&repo("urdf/quadruped.urdf"), &f).unwrap();
        assert_eq!((m.nq, m.nv, m.njoints()), (19, 18, 14));
        assert_eq!(m.joint_names[1], "root_joint");
        assert!((m.total_mass() - 17.8).abs() < 1e-12);
        // The feet (fixed joints) are merged into the shanks, at the end of the shank.
        let shank = m.joint_id("lf_kfe").unwrap();
        let foot = m.frame_id("lf_foot", Some(FrameKind::Body)).unwrap();
        assert_eq!(m.frames[foot].parent_joint, shank);
        assert!((m.frames[foot].placement.translation - Vec3::new(0.0, 0.0, -0.22)).norm() < 1e-15);
        assert!((m.inertias[shank].mass - 0.35).abs() < 1e-15);
        // Subtree dofs and the expanded parent array.
        assert_eq!(m.nv_subtree[1], 18);
        let lf_haa = m.joint_id("lf_haa").unwrap();
        assert_eq!(m.nv_subtree[lf_haa], 3);
        assert_eq!(m.dof_parent[m.idx_v[lf_haa]], 5, "the first leg dof hangs from the last base dof");
        assert_eq!(m.dof_parent[0], NO_PARENT);
        assert_eq!(m.dof_subtree_end[0], 18);
        assert_eq!(m.dof_subtree_end[m.idx_v[lf_haa]], m.idx_v[lf_haa] + 3);
        assert_eq!(m.collision_geometries.len(), 1 + 4 * 4);
    }

    #[test]
    fn a_body_with_an_impossible_inertia_is_refused() {
        let xml = "<robot name='r'><link name='base'/><link name='arm'><inertial><mass value='1'/>\
                   <inertia ixx='-1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>\
                   <joint name='j' type='revolute'><parent link='base'/><child link='arm'/>\
                   <limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";
        let e = Model::from_urdf_xml(xml, "r.urdf", &ModelOptions::default()).unwrap_err().to_string();
        assert!(e.starts_with("r.urdf: the body moved by joint `j` (links `arm`) has mass 1 kg and principal moments of inertia [-1.0, 1.0, 1.0]"), "{e}");
    }

    /// MuJoCo's rule: a massless moving link, or a point mass (no rotational inertia), is
    /// refused unless asked for; a massless link fixed to a massive one is part of its body.
    #[test]
    fn a_moving_body_needs_mass_and_inertia() {
        let robot = |arm: &str, extra: &str| {
            format!(
                "<robot name='r'><link name='base'/><link name='arm'>{arm}</link>{extra}\
                 <joint name='j' type='revolute'><parent link='base'/><child link='arm'/>\
                 <limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>"
            )
        };
        let load = |xml: &str, allow| {
            let options = ModelOptions { allow_invalid_inertia: allow, ..Default::default() };
            Model::from_urdf_xml(xml, "r.urdf", &options).map(|_| ()).map_err(|e| e.to_string())
        };
        let massless = robot("", "");
        let e = load(&massless, false).unwrap_err();
        assert!(e.contains("joint `j` (links `arm`) has mass 0 kg") && e.contains("at least 1e-15"), "{e}");
        assert_eq!(load(&massless, true), Ok(()));
        let point = robot(
            "<inertial><mass value='2'/><inertia ixx='0' ixy='0' ixz='0' iyy='0' iyz='0' izz='0'/></inertial>",
            "",
        );
        assert!(
            load(&point, false).unwrap_err().contains("has mass 2 kg and principal moments of inertia [0.0, 0.0, 0.0]")
        );
        let carried = robot(
            "",
            "<link name='tool'><inertial><mass value='1'/><inertia ixx='0.1' ixy='0' ixz='0' iyy='0.1' iyz='0' izz='0.1'/></inertial></link>\
             <joint name='f' type='fixed'><parent link='arm'/><child link='tool'/></joint>",
        );
        assert_eq!(load(&carried, false), Ok(()));
    }

    #[test]
    fn a_mesh_path_leaving_its_package_is_refused_in_one_line() {
        let xml = "<robot name='r'><link name='a'><collision><geometry><mesh filename='package://pkg/../../etc/passwd'/></geometry></collision></link></robot>";
        let e = Model::from_urdf_xml(xml, "r.urdf", &ModelOptions::default()).unwrap_err().to_string();
        assert_eq!(
            e,
            "r.urdf: link `a`: collision mesh `package://pkg/../../etc/passwd` leaves package `pkg` (`..`); \
             robot.meshes_outside_packages allows it"
        );
        let anywhere = ModelOptions { mesh_paths: Containment::Anywhere, ..Default::default() };
        let e = Model::from_urdf_xml(xml, "r.urdf", &anywhere).unwrap_err().to_string();
        assert!(e.contains("not found"), "allowed, then looked for: {e}");
    }

    #[test]
    fn a_missing_mesh_is_named() {
        let xml = "<robot name='r'><link name='a'><collision><geometry><mesh filename='package://nopkg/m.stl'/></geometry></collision></link></robot>";
        let e = Model::from_urdf_xml(xml, "r.urdf", &ModelOptions::default()).unwrap_err().to_string();
        assert!(e.starts_with("r.urdf: link `a`: collision mesh `package://nopkg/m.stl` not found (looked at"), "{e}");
        let skip = ModelOptions { skip_meshes: true, ..Default::default() };
        assert!(Model::from_urdf_xml(xml, "r.urdf", &skip).is_ok());
    }
}
