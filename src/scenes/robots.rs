//! The robots of the scenes, loaded from [`Sources`], at their reference postures
//! (floating base at the origin, unrotated, unless said otherwise).

use std::path::Path;

use crate::model::{MimicPolicy, Model, ModelOptions, Srdf};

use super::{SceneError, Sources};

fn load(scene: &str, urdf: &Path, options: &ModelOptions) -> Result<Model, SceneError> {
    Model::from_urdf_file(urdf, options).map_err(|e| SceneError::new(scene, format!("{}: {e}", urdf.display())))
}

/// The standing posture of the bundled quadruped: hip flexion 0.6 rad, knee −1.2 rad on
/// every leg (config/quadruped.yaml's `initial_posture`; tests/sim_robots.rs checks that
/// they agree).
pub const QUADRUPED_POSTURE: [(&str, f64); 8] = [
    ("lf_hfe", 0.6),
    ("lf_kfe", -1.2),
    ("lh_hfe", 0.6),
    ("lh_kfe", -1.2),
    ("rf_hfe", 0.6),
    ("rf_kfe", -1.2),
    ("rh_hfe", 0.6),
    ("rh_kfe", -1.2),
];

/// The bundled quadruped (`urdf/quadruped.urdf`, floating base) at
/// [`QUADRUPED_POSTURE`], its trunk at the origin.
pub fn quadruped(sources: &Sources) -> Result<(Model, Vec<f64>), SceneError> {
    let urdf = sources.root.join("urdf/quadruped.urdf");
    let model = load("quadruped", &urdf, &ModelOptions { floating_base: true, ..Default::default() })?;
    let mut q = model.neutral_configuration().as_slice().to_vec();
    for (joint, value) in QUADRUPED_POSTURE {
        let id = model
            .joint_id(joint)
            .ok_or_else(|| SceneError::new("quadruped", format!("{}: no joint {joint}", urdf.display())))?;
        q[model.idx_q[id]] = value;
    }
    Ok((model, q))
}

/// The bundled 7-dof arm (`urdf/arm7.urdf`, fixed base at the origin) at its neutral
/// configuration (every joint at 0: upright).
pub fn arm7(sources: &Sources) -> Result<(Model, Vec<f64>), SceneError> {
    let model = load("arm7", &sources.root.join("urdf/arm7.urdf"), &ModelOptions::default())?;
    let q = model.neutral_configuration().as_slice().to_vec();
    Ok((model, q))
}

/// solo12 (example-robot-data, convex-hull collisions) at its SRDF `standing`
/// configuration.
pub fn solo12(sources: &Sources) -> Result<(Model, Vec<f64>), SceneError> {
    let share = sources.example_robot_data("solo12")?;
    let robots = share.join("example-robot-data/robots/solo_description");
    let options = ModelOptions { floating_base: true, package_dirs: vec![share.to_owned()], ..Default::default() };
    let model = load("solo12", &robots.join("robots/solo12.urdf"), &options)?;
    let srdf = robots.join("srdf/solo.srdf");
    let q = Srdf::from_file(&srdf)
        .and_then(|s| s.configuration(&model, "standing"))
        .map_err(|e| SceneError::new("solo12", format!("{}: {e}", srdf.display())))?;
    Ok((model, q.as_slice().to_vec()))
}

/// talos_reduced (example-robot-data, floating base, mimic joints independent) at its
/// neutral configuration: upright.
pub fn talos(sources: &Sources) -> Result<(Model, Vec<f64>), SceneError> {
    let share = sources.example_robot_data("talos")?;
    let options = ModelOptions {
        floating_base: true,
        mimic: MimicPolicy::Independent,
        package_dirs: vec![share.to_owned()],
        ..Default::default()
    };
    let urdf = share.join("example-robot-data/robots/talos_data/robots/talos_reduced.urdf");
    let model = load("talos", &urdf, &options)?;
    let q = model.neutral_configuration().as_slice().to_vec();
    Ok((model, q))
}
