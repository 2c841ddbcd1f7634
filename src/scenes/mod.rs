//! The scenes of the tests, the criterion benches, the timing examples and `signorini
//! bench`: one library, so that a figure of docs/BENCHMARKS.md and the test that checks
//! the same scene build it the same way.
//!
//! - [`robots`]: the robots the scenes use (the bundled quadruped, solo12 and talos from
//!   example-robot-data) at their reference postures.
//! - [`problems`]: contact problems: free cubes resting exactly on each other (with their
//!   exact corner contacts), seed 000's wall, and the Pinocchio fixtures of
//!   tests/fixtures/contact.
//! - [`detection`]: collision worlds to time contact detection on.
//! - [`worlds`]: simulated worlds: the analytic free-body scenes (a cube on an incline, a
//!   ton on a gram) and robots standing under a joint PD.
//! - [`suite`]: the scenario suite of `signorini bench`: each world with the script that
//!   drives it and measures it against its analytic answer.
//!
//! Scenes build on the cores only (spatial, model, dynamics, collision, contact, sim):
//! an environment is the YAML of a configuration's `environment:` section, collision
//! settings are the defaults, and whatever a run varies (the solver, its tolerance) is
//! the caller's. Robot files are found through [`Sources`]. A scene that cannot be built
//! (a robot file missing) is a [`SceneError`]; the analytic scenes, which read no file,
//! panic only on arguments out of range (a negative mass or friction).

pub mod detection;
pub mod problems;
pub mod robots;
pub mod suite;
pub mod worlds;

use std::path::{Path, PathBuf};

use crate::spatial::Vec3;

/// Gravity (m/s²): the magnitude of [`crate::model::Model::default_gravity`], the
/// simulator's.
pub const G0: f64 = 9.81;

/// A scene that cannot be built.
#[derive(Debug, thiserror::Error)]
#[error("scene `{scene}`: {message}")]
pub struct SceneError {
    /// The scene.
    pub scene: String,
    /// What is wrong.
    pub message: String,
}

impl SceneError {
    /// `message` about `scene`.
    pub fn new(scene: &str, message: impl std::fmt::Display) -> Self {
        Self { scene: scene.to_owned(), message: message.to_string() }
    }
}

/// Where the scenes find their files.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// The directory holding `urdf/quadruped.urdf`: the repository, or the installed
    /// package's share. In the repository it also holds the fixtures
    /// (`tests/fixtures/contact`) that [`problems::fixture`] reads.
    pub root: PathBuf,
    /// The `share` directory of the pip package example-robot-data, if found.
    pub example_robot_data: Option<PathBuf>,
}

impl Sources {
    /// `root`, and example-robot-data where [`find_example_robot_data`] finds it.
    pub fn new(root: PathBuf, example_robot_data: Option<&Path>) -> Self {
        let example_robot_data = find_example_robot_data(example_robot_data, &root);
        Self { root, example_robot_data }
    }

    /// The repository this crate was compiled from (its bundled robots and fixtures), and
    /// example-robot-data where [`find_example_robot_data`] finds it: the sources of the
    /// tests, benches and examples.
    pub fn repository() -> Self {
        Self::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")), None)
    }

    /// example-robot-data's `share` directory, or the error of `scene` that needs it.
    pub fn example_robot_data(&self, scene: &str) -> Result<&Path, SceneError> {
        self.example_robot_data.as_deref().ok_or_else(|| {
            SceneError::new(
                scene,
                "example-robot-data not found: run `make env` (installs it into .ros/), set \
                 EXAMPLE_ROBOT_DATA_SHARE or pass --example-robot-data (the `share` directory of the pip package)",
            )
        })
    }
}

/// example-robot-data's `share` directory (it holds `example-robot-data/robots/...`):
/// `given`, $EXAMPLE_ROBOT_DATA_SHARE, or the pip package in the project's venv under
/// `root` (`.ros/lib/python3.*/site-packages/cmeel.prefix/share`, installed by `make`).
pub fn find_example_robot_data(given: Option<&Path>, root: &Path) -> Option<PathBuf> {
    if let Some(p) = given {
        return Some(p.to_owned());
    }
    if let Some(p) = std::env::var_os("EXAMPLE_ROBOT_DATA_SHARE") {
        return Some(PathBuf::from(p));
    }
    std::fs::read_dir(root.join(".ros/lib"))
        .ok()?
        .flatten()
        .map(|e| e.path().join("site-packages/cmeel.prefix/share"))
        .find(|share| share.join("example-robot-data").is_dir())
}

/// A uniform cube of the stacks: centre, half side, mass.
#[derive(Copy, Clone, Debug)]
pub struct Cube {
    /// Centre (m).
    pub centre: Vec3,
    /// Half side (m).
    pub half: f64,
    /// Mass (kg).
    pub mass: f64,
}

/// A ball dropped on a stack.
#[derive(Copy, Clone, Debug)]
pub struct Ball {
    /// Centre (m).
    pub centre: Vec3,
    /// Radius (m).
    pub radius: f64,
    /// Mass (kg).
    pub mass: f64,
    /// Velocity along z (m/s).
    pub speed: f64,
}

/// A cube of `top` kg on a cube of `bottom` kg, both of side 0.1 m, the bottom one on the
/// ground (z = 0).
pub fn cube_on_cube(bottom: f64, top: f64) -> [Cube; 2] {
    [
        Cube { centre: Vec3::new(0.0, 0.0, 0.05), half: 0.05, mass: bottom },
        Cube { centre: Vec3::new(0.0, 0.0, 0.15), half: 0.05, mass: top },
    ]
}

/// The wall of seed 000 Fig. 1: 15 cubes (side 0.1 m) in rows of 5, 4, 3, 2, 1 on the
/// ground, each brick straddling two below, 10^row kg (1 kg on the bottom row up to 10⁴ kg
/// on the top one, the last cube); a 10³ kg ball (radius 0.1 m) touching the top cube,
/// moving down at 1 m/s.
pub fn wall() -> (Vec<Cube>, Ball) {
    let mut cubes = Vec::new();
    for row in 0..5i32 {
        for j in 0..5 - row {
            let x = 0.1 * (f64::from(j) + 0.5 * f64::from(row));
            cubes.push(Cube {
                centre: Vec3::new(x, 0.0, 0.05 + 0.1 * f64::from(row)),
                half: 0.05,
                mass: 10f64.powi(row),
            });
        }
    }
    (cubes, Ball { centre: Vec3::new(0.2, 0.0, 0.6), radius: 0.1, mass: 1e3, speed: -1.0 })
}

/// Where the `k`-th of 100 boxes (side 0.1 m) lies in a 10 × 10 grid of 0.15 m pitch, its
/// centre at height `z`.
pub fn grid(k: usize, z: f64) -> Vec3 {
    Vec3::new(0.15 * (k % 10) as f64, 0.15 * (k / 10) as f64, z)
}

pub use crate::sampling::uniform;

#[cfg(test)]
mod tests {
    #[test]
    fn g0_is_the_simulators_gravity() {
        assert_eq!(crate::model::Model::default_gravity().linear, crate::spatial::Vec3::new(0.0, 0.0, -super::G0));
    }
}
