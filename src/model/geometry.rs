//! Collision geometry attached to the model's joints, and mesh path resolution.
//!
//! Mesh URIs are resolved when the model is built: `package://pkg/path` (also written
//! `package:///pkg/path`) against the package directories given (each holding package
//! folders, like a ROS `share` directory) and then every `<prefix>/share` of
//! `AMENT_PREFIX_PATH`; `file://` and absolute paths as they are (what xacro's `$(find)`
//! writes: the author named the file); relative paths against the URDF file's directory.
//! A `package://` path may not leave its package, nor a relative one the URDF's folder
//! (`..` past their root: a URDF from a topic must not make the node read files elsewhere),
//! unless allowed ([`Containment::Anywhere`]); the check is on the path's components, so
//! a package installed with symbolic links (colcon's `--symlink-install`) still resolves.
//! A mesh that cannot be found is an error naming the link, the URI and every place looked
//! at. Meshes are loaded by the collision module.

use std::path::{Path, PathBuf};

use crate::spatial::{SE3, Vec3};

/// A collision shape, centred on its own frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Box of these full side lengths, centred.
    Box {
        /// Side lengths, m.
        size: Vec3,
    },
    /// Cylinder along the local z axis.
    Cylinder {
        /// Radius, m.
        radius: f64,
        /// Length, m.
        length: f64,
    },
    /// Capsule along the local z axis.
    Capsule {
        /// Radius, m.
        radius: f64,
        /// Length of the cylindrical part, m.
        length: f64,
    },
    /// Sphere.
    Sphere {
        /// Radius, m.
        radius: f64,
    },
    /// A mesh file.
    Mesh {
        /// In a model, the resolved path of the file; in a URDF description, the URI as
        /// written.
        file: PathBuf,
        /// Scale per axis.
        scale: Vec3,
    },
}

/// One collision shape of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct CollisionGeometry {
    /// `<link name>_<index>` (Pinocchio's naming) or the collision's own name.
    pub name: String,
    /// The URDF link it belongs to.
    pub link: String,
    /// The joint that carries it.
    pub parent_joint: usize,
    /// The link's body frame.
    pub parent_frame: usize,
    /// Placement in the joint frame.
    pub placement: SE3,
    /// The shape.
    pub shape: Shape,
    /// Which robot of a model of several ([`super::Model::append`]) it belongs to: 0 in a
    /// model of one robot. Shapes of different robots always collide with each other.
    pub robot: usize,
}

/// Whether `package://` and relative mesh paths must stay inside their package or the
/// URDF's folder.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Containment {
    /// They must (default).
    #[default]
    Inside,
    /// `..` may climb out of them.
    Anywhere,
}

/// Why a mesh URI does not resolve.
#[derive(Clone, Debug, PartialEq)]
pub enum Unresolved {
    /// No file at any of these paths.
    NotFound(Vec<PathBuf>),
    /// The path climbs out of the package or the URDF's folder (named).
    Outside(String),
}

/// Where `package://` URIs are looked for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PackageDirs {
    dirs: Vec<PathBuf>,
}

impl PackageDirs {
    /// The given directories, then `<prefix>/share` for each prefix of AMENT_PREFIX_PATH.
    pub fn new(dirs: &[PathBuf]) -> Self {
        let mut all: Vec<PathBuf> = dirs.to_vec();
        if let Some(prefixes) = std::env::var_os("AMENT_PREFIX_PATH") {
            all.extend(std::env::split_paths(&prefixes).map(|p| p.join("share")));
        }
        Self { dirs: all }
    }

    /// Resolves a mesh URI written in a URDF located in `urdf_dir` (None for URDF text),
    /// under `containment`. Returns the path, or why not (every candidate tried).
    pub fn resolve(&self, uri: &str, urdf_dir: Option<&Path>, containment: Containment) -> Result<PathBuf, Unresolved> {
        let inside = containment == Containment::Inside;
        let candidates: Vec<PathBuf> = if let Some(rest) = uri.strip_prefix("package://") {
            let rest = rest.trim_start_matches('/');
            // The package is the first component; the rest may not climb above it.
            let mut parts = rest.splitn(2, '/');
            let package = parts.next().unwrap_or_default();
            let within = parts.next().unwrap_or_default();
            if inside && (package.is_empty() || package == ".." || package == "." || climbs_out(within)) {
                return Err(Unresolved::Outside(format!("package `{package}`")));
            }
            self.dirs.iter().map(|d| d.join(rest)).collect()
        } else if let Some(rest) = uri.strip_prefix("file://") {
            vec![PathBuf::from(rest)]
        } else if Path::new(uri).is_absolute() {
            vec![PathBuf::from(uri)]
        } else {
            if inside && climbs_out(uri) {
                return Err(Unresolved::Outside("the URDF's folder".into()));
            }
            match urdf_dir {
                Some(dir) => vec![dir.join(uri)],
                None => vec![PathBuf::from(uri)],
            }
        };
        candidates.iter().find(|p| p.is_file()).cloned().ok_or(Unresolved::NotFound(candidates))
    }
}

/// Whether the relative path `path` climbs above its starting folder (`..` beyond what it
/// descended; an absolute or prefixed component counts as leaving it).
fn climbs_out(path: &str) -> bool {
    let mut depth = 0usize;
    for c in Path::new(path).components() {
        match c {
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir if depth > 0 => depth -= 1,
            _ => return true,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_uris_are_found_in_the_given_directories() {
        let root = crate::scratch::private_dir("signorini-pkg").unwrap();
        let mesh = root.join("share/my_robot/meshes/a.stl");
        std::fs::create_dir_all(mesh.parent().unwrap()).unwrap();
        std::fs::write(&mesh, b"solid a\nendsolid a\n").unwrap();
        let dirs = PackageDirs::new(&[root.join("share")]);
        let inside = Containment::Inside;
        assert_eq!(dirs.resolve("package://my_robot/meshes/a.stl", None, inside).unwrap(), mesh);
        assert_eq!(dirs.resolve("package:///my_robot/meshes/a.stl", None, inside).unwrap(), mesh);
        assert_eq!(dirs.resolve(&format!("file://{}", mesh.display()), None, inside).unwrap(), mesh);
        assert_eq!(dirs.resolve("meshes/a.stl", Some(&root.join("share/my_robot")), inside).unwrap(), mesh);
        let pkg = root.join("share/my_robot");
        assert_eq!(
            dirs.resolve("meshes/../meshes/a.stl", Some(&pkg), inside).unwrap(),
            pkg.join("meshes/../meshes/a.stl")
        );
        let Unresolved::NotFound(tried) = dirs.resolve("package://other/b.stl", None, inside).unwrap_err() else {
            panic!("not found")
        };
        assert_eq!(tried[0], root.join("share/other/b.stl"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    /// `..` past the package or the URDF's folder is refused, unless allowed; within
    /// them it is fine.
    #[test]
    fn mesh_paths_stay_inside_their_package_or_folder() {
        let dirs = PackageDirs::new(&[PathBuf::from("/nonexistent/share")]);
        let dir = Path::new("/nonexistent/share/my_robot/urdf");
        for uri in ["package://my_robot/../other/m.stl", "package://../etc/passwd", "package://my_robot/a/../../b.stl"]
        {
            let e = dirs.resolve(uri, None, Containment::Inside).unwrap_err();
            assert!(matches!(e, Unresolved::Outside(_)), "{uri}: {e:?}");
            assert!(matches!(dirs.resolve(uri, None, Containment::Anywhere), Err(Unresolved::NotFound(_))), "{uri}");
        }
        for uri in ["../meshes/m.stl", "a/../../m.stl"] {
            let e = dirs.resolve(uri, Some(dir), Containment::Inside).unwrap_err();
            assert_eq!(e, Unresolved::Outside("the URDF's folder".into()), "{uri}");
        }
        for uri in ["package://my_robot/meshes/../m.stl", "meshes/./m.stl", "file:///etc/x.stl", "/abs/x.stl"] {
            let e = dirs.resolve(uri, Some(dir), Containment::Inside).unwrap_err();
            assert!(matches!(e, Unresolved::NotFound(_)), "{uri}: allowed, only missing");
        }
    }
}
