//! Collision geometry attached to the model's joints, and mesh path resolution.
//!
//! Mesh URIs are resolved when the model is built: `package://pkg/path` (also written
//! `package:///pkg/path`) against the package directories given (each holding package
//! folders, like a ROS `share` directory) and then every `<prefix>/share` of
//! `AMENT_PREFIX_PATH`; `file://` and absolute paths as they are; relative paths against
//! the URDF file's directory. A mesh that cannot be found is an error naming the link, the
//! URI and every place looked at. Meshes are loaded by the collision module.

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

    /// Resolves a mesh URI written in a URDF located in `urdf_dir` (None for URDF text).
    /// Returns the path, or every candidate that was tried.
    pub fn resolve(&self, uri: &str, urdf_dir: Option<&Path>) -> Result<PathBuf, Vec<PathBuf>> {
        let candidates: Vec<PathBuf> = if let Some(rest) = uri.strip_prefix("package://") {
            let rest = rest.trim_start_matches('/');
            self.dirs.iter().map(|d| d.join(rest)).collect()
        } else if let Some(rest) = uri.strip_prefix("file://") {
            vec![PathBuf::from(rest)]
        } else if Path::new(uri).is_absolute() {
            vec![PathBuf::from(uri)]
        } else {
            match urdf_dir {
                Some(dir) => vec![dir.join(uri)],
                None => vec![PathBuf::from(uri)],
            }
        };
        candidates.iter().find(|p| p.is_file()).cloned().ok_or(candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_uris_are_found_in_the_given_directories() {
        let root = std::env::temp_dir().join(format!("signorini-pkg-{}", std::process::id()));
        let mesh = root.join("share/my_robot/meshes/a.stl");
        std::fs::create_dir_all(mesh.parent().unwrap()).unwrap();
        std::fs::write(&mesh, b"solid a\nendsolid a\n").unwrap();
        let dirs = PackageDirs::new(&[root.join("share")]);
        assert_eq!(dirs.resolve("package://my_robot/meshes/a.stl", None).unwrap(), mesh);
        assert_eq!(dirs.resolve("package:///my_robot/meshes/a.stl", None).unwrap(), mesh);
        assert_eq!(dirs.resolve(&format!("file://{}", mesh.display()), None).unwrap(), mesh);
        assert_eq!(dirs.resolve("meshes/a.stl", Some(&root.join("share/my_robot"))).unwrap(), mesh);
        let tried = dirs.resolve("package://other/b.stl", None).unwrap_err();
        assert_eq!(tried[0], root.join("share/other/b.stl"));
    }
}
