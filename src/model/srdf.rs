//! The parts of an SRDF (MoveIt's semantic robot description) the engine uses: named
//! postures (`<group_state>`) and link pairs never checked for collision
//! (`<disable_collisions>`).

use std::path::Path;

use nalgebra::DVector;

use super::Model;

/// An SRDF that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {reason}")]
pub struct SrdfError {
    /// The file.
    pub file: String,
    /// What is wrong.
    pub reason: String,
}

/// A named posture: `(joint, values)` pairs.
pub type GroupState = Vec<(String, Vec<f64>)>;

/// A parsed SRDF.
#[derive(Clone, Debug, Default)]
pub struct Srdf {
    file: String,
    /// `(link1, link2)` of every `<disable_collisions>`.
    pub disabled_collisions: Vec<[String; 2]>,
    /// Every `<group_state>`: name, then `(joint, values)`.
    pub group_states: Vec<(String, GroupState)>,
}

impl Srdf {
    /// Reads an SRDF file.
    pub fn from_file(path: &Path) -> Result<Self, SrdfError> {
        let file = path.display().to_string();
        let err = |reason: String| SrdfError { file: file.clone(), reason };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let doc = roxmltree::Document::parse(&text).map_err(|e| err(format!("not valid XML: {e}")))?;
        let disabled_collisions = doc
            .descendants()
            .filter(|n| n.has_tag_name("disable_collisions"))
            .filter_map(|n| Some([n.attribute("link1")?.to_owned(), n.attribute("link2")?.to_owned()]))
            .collect();
        let mut group_states = Vec::new();
        for state in doc.descendants().filter(|n| n.has_tag_name("group_state")) {
            let name = state.attribute("name").unwrap_or_default().to_owned();
            let mut joints = Vec::new();
            for j in state.children().filter(|n| n.has_tag_name("joint")) {
                let joint = j.attribute("name").unwrap_or_default().to_owned();
                let values = j
                    .attribute("value")
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::parse::<f64>)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| err(format!("group_state `{name}`, joint `{joint}`: {e}")))?;
                joints.push((joint, values));
            }
            group_states.push((name, joints));
        }
        Ok(Self { file, disabled_collisions, group_states })
    }

    /// The configuration of `model` for group state `name`: the neutral configuration
    /// with the state's joints set (a joint of another nq, or unknown, is an error).
    pub fn configuration(&self, model: &Model, name: &str) -> Result<DVector<f64>, SrdfError> {
        let err = |reason: String| SrdfError { file: self.file.clone(), reason };
        let (_, joints) = self
            .group_states
            .iter()
            .find(|(n, _)| n == name)
            .ok_or_else(|| err(format!("no group_state named `{name}`")))?;
        let mut q = model.neutral_configuration();
        for (joint, values) in joints {
            let id = model
                .joint_id(joint)
                .ok_or_else(|| err(format!("group_state `{name}`: no joint `{joint}` in the model")))?;
            let (iq, nq) = (model.idx_q[id], model.joint_types[id].nq());
            if values.len() != nq {
                return Err(err(format!(
                    "group_state `{name}`, joint `{joint}`: expected {nq} values, got {}",
                    values.len()
                )));
            }
            q.rows_mut(iq, nq).copy_from_slice(values);
        }
        Ok(q)
    }
}
