//! The dynamics as free functions in Pinocchio's shape, `rnea(model, data, q, v, a)`, over
//! checked numpy arrays (arrays.rs), with an optional preallocated `out=`. Each checks every
//! argument before it runs, so none can panic on a user's input.

use crate::arrays::{Input, Shape, emit, input};
use crate::errors::guard;
use crate::model::{PyData, PyModel};
use nalgebra::Matrix6xX;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use signorini::dynamics::{self, ReferenceFrame};

/// Copies a column-major nalgebra matrix into a C-ordered buffer.
fn row_major(rows: usize, cols: usize, at: impl Fn(usize, usize) -> f64, out: &mut [f64]) {
    for r in 0..rows {
        for c in 0..cols {
            out[r * cols + c] = at(r, c);
        }
    }
}

/// The checked state (q, v) of `model` and one more velocity-sized argument `name` (a or τ).
fn state_and<'py>(
    model: &PyModel,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    (name, x): (&str, &Bound<'py, PyAny>),
) -> PyResult<(Input<'py>, Input<'py>, Input<'py>)> {
    let m = &model.inner;
    let (nq, nv) = ([m.nq], [m.nv]);
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    let v = input("v", v, Shape::new(&nv, "model.nv"))?;
    let x = input(name, x, Shape::new(&nv, "model.nv"))?;
    Ok((q, v, x))
}

/// The joint torques τ = M(q)a + C(q,v)v + g(q) (recursive Newton–Euler).
#[pyfunction]
#[pyo3(signature = (model, data, q, v, a, out=None))]
pub fn rnea<'py>(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    a: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let (q, v, a) = state_and(model, q, v, ("a", a))?;
    let nv = [m.nv];
    guard("rnea", || {
        let tau = dynamics::rnea(m, &mut data.inner, q.as_slice(), v.as_slice(), a.as_slice());
        emit(q_py(&q), out, Shape::new(&nv, "model.nv"), |o| o.copy_from_slice(tau.as_slice()))
    })
}

/// The joint-space inertia matrix M(q) (composite rigid bodies), both triangles filled.
#[pyfunction]
#[pyo3(signature = (model, data, q, out=None))]
pub fn crba<'py>(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let nq = [m.nq];
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    let square = [m.nv, m.nv];
    guard("crba", || {
        // M alone: the joint-frame CRBA (no world placements or Jacobians to leave).
        dynamics::crba_local(m, &mut data.inner, q.as_slice());
        let mass = dynamics::mass_matrix_symmetric(m, &mut data.inner);
        emit(q_py(&q), out, Shape::new(&square, "(model.nv, model.nv)"), |o| {
            row_major(m.nv, m.nv, |r, c| mass[(r, c)], o)
        })
    })
}

/// The joint accelerations of forward dynamics, M(q)⁻¹(τ − C(q,v)v − g(q)) (articulated
/// bodies).
#[pyfunction]
#[pyo3(signature = (model, data, q, v, tau, out=None))]
pub fn aba<'py>(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    tau: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let (q, v, tau) = state_and(model, q, v, ("tau", tau))?;
    let nv = [m.nv];
    guard("aba", || {
        let ddq = dynamics::aba(m, &mut data.inner, q.as_slice(), v.as_slice(), tau.as_slice());
        emit(q_py(&q), out, Shape::new(&nv, "model.nv"), |o| o.copy_from_slice(ddq.as_slice()))
    })
}

/// The generalized gravity g(q).
#[pyfunction]
#[pyo3(signature = (model, data, q, out=None))]
pub fn gravity<'py>(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let (nq, nv) = ([m.nq], [m.nv]);
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    guard("gravity", || {
        let g = dynamics::gravity_torque(m, &mut data.inner, q.as_slice());
        emit(q_py(&q), out, Shape::new(&nv, "model.nv"), |o| o.copy_from_slice(g.as_slice()))
    })
}

/// Placements of every joint and frame at `q` (and, with `v`, `a`, their velocities and
/// accelerations), kept in `data` for `frame_placement`.
#[pyfunction]
#[pyo3(signature = (model, data, q, v=None, a=None))]
pub fn forward_kinematics(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'_, PyAny>,
    v: Option<&Bound<'_, PyAny>>,
    a: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let m = &model.inner;
    model.check_data(data)?;
    let (nq, nv) = ([m.nq], [m.nv]);
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    let v = v.map(|v| input("v", v, Shape::new(&nv, "model.nv"))).transpose()?;
    let a = a.map(|a| input("a", a, Shape::new(&nv, "model.nv"))).transpose()?;
    guard("forward_kinematics", || {
        let d = &mut data.inner;
        match (&v, &a) {
            (Some(v), Some(a)) => {
                dynamics::forward_kinematics_acceleration(m, d, q.as_slice(), v.as_slice(), a.as_slice())
            }
            (Some(v), None) => dynamics::forward_kinematics_velocity(m, d, q.as_slice(), v.as_slice()),
            (None, None) => dynamics::forward_kinematics(m, d, q.as_slice()),
            (None, Some(_)) => return Err(PyValueError::new_err("a: given without v")),
        }
        dynamics::update_frame_placements(m, d);
        Ok(())
    })
}

/// The placement of `frame` (name or index) in the world, a 4×4 homogeneous matrix, from
/// the last `forward_kinematics`.
#[pyfunction]
#[pyo3(signature = (model, data, frame, out=None))]
pub fn frame_placement<'py>(
    py: Python<'py>,
    model: &PyModel,
    data: &mut PyData,
    frame: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let f = model.frame("frame", frame)?;
    guard("frame_placement", || {
        let x = dynamics::update_frame_placement(m, &mut data.inner, f);
        emit(py, out, Shape::new(&[4, 4], "(4, 4)"), |o| {
            o.fill(0.0);
            for r in 0..3 {
                for c in 0..3 {
                    o[r * 4 + c] = x.rotation[(r, c)];
                }
                o[r * 4 + 3] = x.translation[r];
            }
            o[15] = 1.0;
        })
    })
}

/// The reference frame of a Jacobian, by Pinocchio's names.
fn reference_frame(reference: &str) -> PyResult<ReferenceFrame> {
    match reference {
        "world" => Ok(ReferenceFrame::World),
        "local" => Ok(ReferenceFrame::Local),
        "local_world_aligned" => Ok(ReferenceFrame::LocalWorldAligned),
        other => Err(PyValueError::new_err(format!(
            "reference: `{other}`, expected \"world\", \"local\" or \"local_world_aligned\""
        ))),
    }
}

/// The Jacobian (6 × nv, linear rows first) of `frame` at `q`, expressed in `reference`
/// ("local_world_aligned", "local" or "world"), as Pinocchio's `computeFrameJacobian`.
#[pyfunction]
#[pyo3(signature = (model, data, q, frame, reference="local_world_aligned", out=None))]
pub fn jacobian<'py>(
    model: &PyModel,
    data: &mut PyData,
    q: &Bound<'py, PyAny>,
    frame: &Bound<'py, PyAny>,
    reference: &str,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    model.check_data(data)?;
    let nq = [m.nq];
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    let f = model.frame("frame", frame)?;
    let reference = reference_frame(reference)?;
    let dims = [6, m.nv];
    guard("jacobian", || {
        dynamics::compute_joint_jacobians(m, &mut data.inner, q.as_slice());
        let mut j = Matrix6xX::zeros(m.nv);
        dynamics::frame_jacobian(m, &data.inner, f, reference, &mut j);
        emit(q_py(&q), out, Shape::new(&dims, "(6, model.nv)"), |o| row_major(6, m.nv, |r, c| j[(r, c)], o))
    })
}

/// q ⊕ v: the configuration reached from `q` moving at `v` for one unit of time.
#[pyfunction]
#[pyo3(signature = (model, q, v, out=None))]
pub fn integrate<'py>(
    model: &PyModel,
    q: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    let (nq, nv) = ([m.nq], [m.nv]);
    let q = input("q", q, Shape::new(&nq, "model.nq"))?;
    let v = input("v", v, Shape::new(&nv, "model.nv"))?;
    guard("integrate", || {
        emit(q_py(&q), out, Shape::new(&nq, "model.nq"), |o| dynamics::integrate(m, q.as_slice(), v.as_slice(), o))
    })
}

/// q1 ⊖ q0: the velocity that takes `q0` to `q1` in one unit of time.
#[pyfunction]
#[pyo3(signature = (model, q0, q1, out=None))]
pub fn difference<'py>(
    model: &PyModel,
    q0: &Bound<'py, PyAny>,
    q1: &Bound<'py, PyAny>,
    out: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let m = &model.inner;
    let (nq, nv) = ([m.nq], [m.nv]);
    let q0 = input("q0", q0, Shape::new(&nq, "model.nq"))?;
    let q1 = input("q1", q1, Shape::new(&nq, "model.nq"))?;
    guard("difference", || {
        emit(q_py(&q0), out, Shape::new(&nv, "model.nv"), |o| dynamics::difference(m, q0.as_slice(), q1.as_slice(), o))
    })
}

/// The interpreter token of a checked input.
fn q_py<'py>(input: &crate::arrays::Input<'py>) -> Python<'py> {
    input.py()
}

/// Registers the functions.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rnea, m)?)?;
    m.add_function(wrap_pyfunction!(crba, m)?)?;
    m.add_function(wrap_pyfunction!(aba, m)?)?;
    m.add_function(wrap_pyfunction!(gravity, m)?)?;
    m.add_function(wrap_pyfunction!(forward_kinematics, m)?)?;
    m.add_function(wrap_pyfunction!(frame_placement, m)?)?;
    m.add_function(wrap_pyfunction!(jacobian, m)?)?;
    m.add_function(wrap_pyfunction!(integrate, m)?)?;
    m.add_function(wrap_pyfunction!(difference, m)?)?;
    Ok(())
}
