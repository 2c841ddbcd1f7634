//! Configuration-space operations on the manifold: q ⊕ v and q₁ ⊖ q₀, joint by joint
//! (free flyer on SE(3), unbounded revolute on SO(2), the rest in Rⁿ), as Pinocchio.

use crate::model::Model;

/// `out = q ⊕ v`: the configuration reached from `q` with constant velocity `v` in unit
/// time (pass `v·Δt`).
pub fn integrate(model: &Model, q: &[f64], v: &[f64], out: &mut [f64]) {
    debug_assert!(q.len() == model.nq && out.len() == model.nq && v.len() == model.nv);
    for (i, t) in model.joint_types.iter().enumerate().skip(1) {
        let (iq, iv) = (model.idx_q[i], model.idx_v[i]);
        let (nq, nv) = (t.nq(), t.nv());
        t.integrate(&q[iq..iq + nq], &v[iv..iv + nv], &mut out[iq..iq + nq]);
    }
}

/// `out = q1 ⊖ q0`: the constant velocity leading from `q0` to `q1` in unit time.
pub fn difference(model: &Model, q0: &[f64], q1: &[f64], out: &mut [f64]) {
    debug_assert!(q0.len() == model.nq && q1.len() == model.nq && out.len() == model.nv);
    for (i, t) in model.joint_types.iter().enumerate().skip(1) {
        let (iq, iv) = (model.idx_q[i], model.idx_v[i]);
        let (nq, nv) = (t.nq(), t.nv());
        t.difference(&q0[iq..iq + nq], &q1[iq..iq + nq], &mut out[iv..iv + nv]);
    }
}

/// Normalizes the unit quaternions and unit complex numbers of `q` in place.
pub fn normalize(model: &Model, q: &mut [f64]) {
    use crate::model::JointType;
    for (i, t) in model.joint_types.iter().enumerate().skip(1) {
        let iq = model.idx_q[i];
        let part = match t {
            JointType::FreeFlyer => &mut q[iq + 3..iq + 7],
            JointType::RevoluteUnbounded { .. } => &mut q[iq..iq + 2],
            _ => continue,
        };
        let norm = part.iter().map(|x| x * x).sum::<f64>().sqrt();
        if norm > 0.0 {
            part.iter_mut().for_each(|x| *x /= norm);
        }
    }
}
