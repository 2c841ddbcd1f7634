//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Runs the signorini binary in the repository with `args`: (exit code, stdout, stderr).
/// For the integration tests of the binary (feature `tools`; cargo names the binary for
/// them).
pub fn signorini(args: &[&str]) -> (i32, String, String) {
    let binary = option_env!("CARGO_BIN_EXE_signorini").map_or_else(|| repo("target/release/signorini"), PathBuf::from);
    let out = std::process::Command::new(binary)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// The repository root.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// The `share` directory of the pip package example-robot-data (it holds
/// `example-robot-data/robots/...`): $EXAMPLE_ROBOT_DATA_SHARE, else the one in the
/// project's venv `.ros/` (installed by `make`). Panics with instructions if absent: the
/// golden tests must not pass by skipping.
pub fn erd_share() -> PathBuf {
    signorini::scenes::find_example_robot_data(None, &repo(".")).unwrap_or_else(|| {
        panic!(
            "example-robot-data not found: run `make env` (installs it into .ros/) or set EXAMPLE_ROBOT_DATA_SHARE \
             to the `share` directory of the pip package"
        )
    })
}

/// max |got − want| / max(1, max |want|): a relative error with an absolute floor at 1.
pub fn rel_error(got: &[f64], want: &[f64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    got.iter().zip(want).fold(0.0f64, |m, (g, w)| m.max((g - w).abs())) / scale
}

/// Writes `content` to `name` in a per-process temporary directory; returns its path.
pub fn temp_file(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("signorini-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, content).unwrap();
    path
}

/// A binary STL file `name` (temporary) holding `triangles`; returns its path.
pub fn stl_file(name: &str, triangles: &[[[f64; 3]; 3]]) -> PathBuf {
    let mut b = vec![0u8; 80];
    b.extend((triangles.len() as u32).to_le_bytes());
    for t in triangles {
        b.extend([0f32; 3].iter().flat_map(|x| x.to_le_bytes()));
        for p in t {
            b.extend(p.iter().flat_map(|x| (*x as f32).to_le_bytes()));
        }
        b.extend([0u8; 2]);
    }
    let path = temp_file(name, "");
    std::fs::write(&path, b).unwrap();
    path
}

/// The robot of a fixture (`{"urdf": "erd:<path in example-robot-data>" or a repository
/// path, "floating_base": bool}`).
pub fn fixture_model(robot: &serde_json::Value) -> signorini::model::Model {
    let urdf = robot["urdf"].as_str().unwrap();
    let (path, dirs) = match urdf.strip_prefix("erd:") {
        Some(rel) => (erd_share().join(rel), vec![erd_share()]),
        None => (repo(urdf), vec![]),
    };
    let options = signorini::model::ModelOptions {
        floating_base: robot["floating_base"].as_bool().unwrap(),
        package_dirs: dirs,
        ..Default::default()
    };
    signorini::model::Model::from_urdf_file(&path, &options).unwrap()
}

/// A fixture's contacts (scripts/gen_contact_fixtures.py's convention: body1/body2 are
/// "static", {"joint": name} of `model` or {"free": index}; point, frame rows, mu), at zero
/// distance, with ids by position.
pub fn fixture_contacts(
    contacts: &serde_json::Value,
    model: Option<&signorini::model::Model>,
) -> Vec<signorini::collision::Contact> {
    use signorini::collision::{Contact, ContactId, Owner};
    let owner = |x: &serde_json::Value| -> Owner {
        if x.as_str() == Some("static") {
            Owner::Static
        } else if let Some(name) = x["joint"].as_str() {
            Owner::Robot { joint: model.unwrap().joint_id(name).unwrap() }
        } else {
            Owner::Free { body: x["free"].as_u64().unwrap() as usize }
        }
    };
    let floats = |v: &serde_json::Value| -> Vec<f64> { serde_json::from_value(v.clone()).unwrap() };
    contacts
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let rows: Vec<Vec<f64>> = serde_json::from_value(c["frame"].clone()).unwrap();
            let p = floats(&c["point"]);
            Contact {
                object1: 0,
                object2: 0,
                body1: owner(&c["body1"]),
                body2: owner(&c["body2"]),
                point: signorini::spatial::Vec3::new(p[0], p[1], p[2]),
                frame: signorini::spatial::Mat3::from_fn(|i, j| rows[i][j]),
                distance: 0.0,
                friction: c["mu"].as_f64().unwrap(),
                restitution: 0.0,
                id: ContactId::new(k, 0, 0, 0),
            }
        })
        .collect()
}

/// A solver that goes wrong in a set way around seed 000's ADMM (tests/solver_faults.rs,
/// tests/loop_allocations.rs: the stepper's fallback and guard).
pub struct Faulty {
    inner: Box<dyn signorini::contact::Solver + Send + Sync>,
    fault: Fault,
}

/// How [`Faulty`] goes wrong.
#[derive(Copy, Clone, Debug)]
pub enum Fault {
    /// The ADMM's impulses times this factor, reported unconverged (finite but absurd).
    Amplified(f64),
    /// NaN impulses reported converged.
    NotANumber,
}

impl Faulty {
    /// Around the ADMM of `contact`'s stopping rule and Anderson depth, for `blocks` blocks.
    pub fn around_admm(contact: &signorini::contact::ContactSettings, blocks: usize, fault: Fault) -> Self {
        use signorini::contact::{ContactModel, SolverKind};
        let inner = SolverKind::Admm.build(ContactModel::Ncp, contact.stop, contact.admm_options(), blocks, false);
        Self { inner, fault }
    }
}

impl signorini::contact::Solver for Faulty {
    fn name(&self) -> &'static str {
        "faulty"
    }

    fn model(&self) -> signorini::contact::ContactModel {
        signorini::contact::ContactModel::Ncp
    }

    fn solve(
        &mut self,
        problem: &signorini::contact::ContactProblem,
        warm: Option<&signorini::contact::WarmStart>,
        result: &mut signorini::contact::SolveResult,
    ) -> Result<(), signorini::contact::SolveError> {
        self.inner.solve(problem, warm, result)?;
        match self.fault {
            Fault::Amplified(factor) => {
                result.lambda.iter_mut().for_each(|x| *x *= factor);
                result.converged = false;
            }
            Fault::NotANumber => {
                result.lambda.fill(f64::NAN);
                result.converged = true;
            }
        }
        Ok(())
    }
}
