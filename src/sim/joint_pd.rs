//! A joint-space PD towards a reference configuration, the simulator's stand-in
//! controller (`sim.hold_kp`, `sim.hold_kd`; the benchmark and test scenes):
//!
//! ```text
//! τ_k = kp·(q_ref ⊖ q)_k − kd·v_k      for each actuated dof k, 0 elsewhere
//! ```
//!
//! with ⊖ the configuration difference (a continuous joint's angle error wrapped to
//! (−π, π] through its (cos, sin) pair), so that no joint type is mis-indexed. A floating
//! base is never actuated.

use crate::dynamics;
use crate::model::Model;

/// The PD's gains, reference and scratch, sized once.
#[derive(Clone, Debug)]
pub struct JointPd {
    /// Proportional gain (N·m/rad or N/m).
    pub kp: f64,
    /// Derivative gain (N·m·s/rad or N·s/m).
    pub kd: f64,
    reference: Vec<f64>,
    actuated: Vec<bool>,
    error: Vec<f64>,
}

impl JointPd {
    /// A PD of every joint of `model` but a floating base towards `reference` (nq).
    pub fn new(model: &Model, reference: Vec<f64>, kp: f64, kd: f64) -> Self {
        Self::with_dofs(model, reference, kp, kd, vec![true; model.nv])
    }

    /// A PD of the dofs flagged in `actuated` (nv) only, a floating base's (each robot's) never.
    pub fn with_dofs(model: &Model, reference: Vec<f64>, kp: f64, kd: f64, mut actuated: Vec<bool>) -> Self {
        assert_eq!(reference.len(), model.nq, "the reference is a configuration");
        actuated.resize(model.nv, false);
        for root in model.floating_roots() {
            actuated[model.idx_v[root]..model.idx_v[root] + 6].fill(false);
        }
        Self { kp, kd, reference, actuated, error: vec![0.0; model.nv] }
    }

    /// The reference configuration (nq).
    pub fn reference(&self) -> &[f64] {
        &self.reference
    }

    /// τ (nv) at (q, v).
    pub fn torques(&mut self, model: &Model, q: &[f64], v: &[f64], tau: &mut [f64]) {
        dynamics::difference(model, q, &self.reference, &mut self.error);
        for (k, t) in tau[..model.nv].iter_mut().enumerate() {
            *t = if self.actuated[k] { self.kp * self.error[k] - self.kd * v[k] } else { 0.0 };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ModelOptions;

    /// A continuous joint's error goes the short way round through ±π, where q's index
    /// and v's differ.
    #[test]
    fn a_continuous_joint_is_driven_the_short_way_round() {
        let urdf = r#"<robot name="r">
            <link name="base"/>
            <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
            <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
            <joint name="wheel" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
            <joint name="arm" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 1 0"/>
              <limit lower="-2" upper="2" effort="10" velocity="1"/></joint>
        </robot>"#;
        let model = Model::from_urdf_xml(urdf, "wheel.urdf", &ModelOptions::default()).unwrap();
        assert_eq!((model.nq, model.nv), (3, 2));
        let at = |wheel: f64, arm: f64| vec![wheel.cos(), wheel.sin(), arm];
        let mut pd = JointPd::new(&model, at(3.0, 0.5), 2.0, 0.1);
        let mut tau = [0.0; 2];
        pd.torques(&model, &at(-3.0, 0.25), &[1.0, -1.0], &mut tau);
        let wrap = 6.0 - 2.0 * std::f64::consts::PI; // 3 − (−3) the short way
        assert!((tau[0] - (2.0 * wrap - 0.1)).abs() < 1e-12, "{tau:?}");
        assert!((tau[1] - (2.0 * 0.25 + 0.1)).abs() < 1e-12, "{tau:?}");
    }
}
