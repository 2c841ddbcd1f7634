//! `signorini dynamics`: RNEA, M, ABA, gravity and link placements of one state, as JSON.
//! The contract other tools use to cross-check the engine (documented in README.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{InputError, parse_json};

use crate::dynamics;
use crate::model::{Data, FrameKind, JointType, Model};

/// The input file: `{"q": [...], "v": [...], "a": [...], "tau": [...]}`. `q` is
/// required; `v`, `a`, `tau` default to zeros.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DynamicsInput {
    /// Configuration (nq).
    pub q: Vec<f64>,
    /// Velocity (nv).
    #[serde(default)]
    pub v: Option<Vec<f64>>,
    /// Acceleration for RNEA (nv).
    #[serde(default)]
    pub a: Option<Vec<f64>>,
    /// Torque for ABA (nv).
    #[serde(default)]
    pub tau: Option<Vec<f64>>,
}

/// A placement in the output.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Placement {
    /// Position, m.
    pub translation: [f64; 3],
    /// Rotation matrix, rows.
    pub rotation: [[f64; 3]; 3],
}

/// The output document.
#[derive(Clone, Debug, Serialize)]
pub struct DynamicsOutput {
    /// Configuration dimension.
    pub nq: usize,
    /// Velocity dimension.
    pub nv: usize,
    /// One name per joint, in q order (the free flyer is `root_joint`).
    pub joint_names: Vec<String>,
    /// τ = RNEA(q, v, a).
    pub rnea: Vec<f64>,
    /// M(q), nv rows of nv.
    pub mass_matrix: Vec<Vec<f64>>,
    /// v̇ = ABA(q, v, τ).
    pub aba: Vec<f64>,
    /// τ = RNEA(q, 0, 0).
    pub gravity: Vec<f64>,
    /// world_m_link for every URDF link.
    pub frames: BTreeMap<String, Placement>,
}

/// Parses and checks an input document against `model`.
pub fn parse_input(text: &str, file: &str, model: &Model) -> Result<DynamicsInput, InputError> {
    let err = |key: &str, message: String| InputError::new(file, key, message);
    let input: DynamicsInput = parse_json(text, file)?;
    let check = |key: &str, v: &[f64], n: usize| -> Result<(), InputError> {
        if v.len() != n {
            return Err(err(key, format!("expected {n} values, got {}", v.len())));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(err(&format!("{key}[{i}]"), format!("expected a finite number, got {}", v[i])));
        }
        Ok(())
    };
    check("q", &input.q, model.nq)?;
    for (key, v) in [("v", &input.v), ("a", &input.a), ("tau", &input.tau)] {
        if let Some(v) = v {
            check(key, v, model.nv)?;
        }
    }
    for (i, t) in model.joint_types.iter().enumerate() {
        let iq = model.idx_q[i];
        let (range, what) = match t {
            JointType::FreeFlyer => (iq + 3..iq + 7, "quaternion (x, y, z, w)"),
            JointType::RevoluteUnbounded { .. } => (iq..iq + 2, "(cos, sin) pair"),
            _ => continue,
        };
        let norm = input.q[range.clone()].iter().map(|x| x * x).sum::<f64>().sqrt();
        if (norm - 1.0).abs() > 1e-6 {
            return Err(err(
                &format!("q[{}..{}]", range.start, range.end),
                format!("expected the unit {what} of joint `{}`, got norm {norm}", model.joint_names[i]),
            ));
        }
    }
    Ok(input)
}

/// Runs the algorithms on one state.
pub fn evaluate(model: &Model, input: &DynamicsInput) -> DynamicsOutput {
    let mut data = Data::new(model);
    let zeros = vec![0.0; model.nv];
    let v = input.v.as_deref().unwrap_or(&zeros);
    let a = input.a.as_deref().unwrap_or(&zeros);
    let tau = input.tau.as_deref().unwrap_or(&zeros);
    let rnea = dynamics::rnea(model, &mut data, &input.q, v, a).as_slice().to_vec();
    let gravity = dynamics::gravity_torque(model, &mut data, &input.q).as_slice().to_vec();
    let aba = dynamics::aba(model, &mut data, &input.q, v, tau).as_slice().to_vec();
    let m = dynamics::crba_symmetric(model, &mut data, &input.q);
    let mass_matrix = (0..model.nv).map(|r| (0..model.nv).map(|c| m[(r, c)]).collect()).collect();
    dynamics::forward_kinematics(model, &mut data, &input.q);
    dynamics::update_frame_placements(model, &mut data);
    let frames = model
        .frames
        .iter()
        .zip(&data.o_m_f)
        .filter(|(f, _)| f.kind == FrameKind::Body)
        .map(|(f, m)| {
            let r = &m.rotation;
            let placement = Placement {
                translation: [m.translation.x, m.translation.y, m.translation.z],
                rotation: [0, 1, 2].map(|i| [r[(i, 0)], r[(i, 1)], r[(i, 2)]]),
            };
            (f.name.clone(), placement)
        })
        .collect();
    DynamicsOutput {
        nq: model.nq,
        nv: model.nv,
        joint_names: model.joint_names[1..].to_vec(),
        rnea,
        mass_matrix,
        aba,
        gravity,
        frames,
    }
}
