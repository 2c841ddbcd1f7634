//! The controller (proximal inverse dynamics, `signorini::control::Controller`) of a
//! configuration file, as `signorini control` builds it: one `tick(q, v, q_des, v_des,
//! a_des)` gives the joint torques and the contact forces inverse dynamics predicts.

use std::path::PathBuf;

use numpy::{PyArray1, PyArrayMethods};
use pyo3::prelude::*;
use signorini::app::Setup;
use signorini::control::Controller;

use crate::arrays::{Shape, input};
use crate::errors::{engine, guard};
use crate::model::PyModel;

/// The controller of a configuration, its model, its setup (the posture reference) and
/// its step (the loop period).
#[pyclass(name = "Controller", module = "signorini")]
pub struct PyController {
    setup: Setup,
    model: Py<PyModel>,
    controller: Controller,
    dt: f64,
}

impl PyController {
    /// The contacts of the last tick as an (n, 3) array, one row per contact from `row`.
    fn rows<'py>(&self, py: Python<'py>, row: impl Fn(usize) -> [f64; 3]) -> PyResult<Bound<'py, PyAny>> {
        let n = self.controller.contacts().len();
        let values: Vec<f64> = (0..n).flat_map(row).collect();
        Ok(PyArray1::from_vec(py, values).reshape([n, 3])?.into_any())
    }

    /// The optional reference `obj` (`name`, `dims`), else `default`.
    fn reference(name: &str, obj: Option<&Bound<'_, PyAny>>, dims: usize, default: Vec<f64>) -> PyResult<Vec<f64>> {
        let meaning = if name == "q_des" { "model.nq" } else { "model.nv" };
        match obj {
            Some(o) => Ok(input(name, o, Shape::new(&[dims], meaning))?.as_slice().to_vec()),
            None => Ok(default),
        }
    }
}

#[pymethods]
impl PyController {
    /// The controller of a signorini YAML configuration (its robot, environment,
    /// `collision:`, `contact:` and `control:` sections), stepping at 1/`rate_hz`.
    #[staticmethod]
    fn from_config(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let (setup, controller) = guard("Controller.from_config", || {
            let setup = Setup::load(&path, None).map_err(engine)?;
            let controller = setup.controller().map_err(engine)?;
            Ok((setup, controller))
        })?;
        let dt = setup.config.period().as_secs_f64();
        let model = Py::new(py, PyModel::new(setup.model.clone()))?;
        Ok(Self { setup, model, controller, dt })
    }

    /// The robot's model.
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<PyModel> {
        self.model.clone_ref(py)
    }

    /// The step of a tick (s): the loop period 1/`rate_hz`.
    #[getter]
    fn dt(&self) -> f64 {
        self.dt
    }

    /// One tick at the measured (q, v) towards (q_des, v_des, a_des): q_des defaults to
    /// the configuration's posture reference at q (`control.posture`, else the initial
    /// posture; the floating base where q has it), v_des and a_des to zero. Returns
    /// (tau (nv,): a floating base's rows are the wrench it still lacks, forces (n, 3):
    /// the force the environment applies to the robot at each contact of
    /// `contact_points()`, world frame, N). A refused tick raises signorini.Error.
    #[pyo3(signature = (q, v, q_des=None, v_des=None, a_des=None))]
    fn tick<'py>(
        &mut self,
        py: Python<'py>,
        q: &Bound<'py, PyAny>,
        v: &Bound<'py, PyAny>,
        q_des: Option<&Bound<'py, PyAny>>,
        v_des: Option<&Bound<'py, PyAny>>,
        a_des: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        let model = self.model.get().inner.clone();
        let (nq, nv) = (model.nq, model.nv);
        let q = input("q", q, Shape::new(&[nq], "model.nq"))?;
        let v = input("v", v, Shape::new(&[nv], "model.nv"))?;
        let posture = self.setup.posture_reference(q.as_slice());
        let q_des = Self::reference("q_des", q_des, nq, posture)?;
        let v_des = Self::reference("v_des", v_des, nv, vec![0.0; nv])?;
        let a_des = Self::reference("a_des", a_des, nv, vec![0.0; nv])?;
        let tau = guard("Controller.tick", || {
            let tau = self.controller.tick(&model, q.as_slice(), v.as_slice(), &q_des, &v_des, &a_des, self.dt);
            tau.map(<[f64]>::to_vec).map_err(engine)
        })?;
        let forces = self.rows(py, |i| self.controller.predicted_force(i).into())?;
        Ok((PyArray1::from_vec(py, tau).into_any(), forces))
    }

    /// The points (n, 3, world) of the contacts of the last tick that could carry load,
    /// in the order of tick's forces ((0, 3) before the first tick).
    fn contact_points<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let contacts = self.controller.contacts();
        self.rows(py, |i| contacts[i].point.into())
    }

    fn __repr__(&self) -> String {
        format!("<signorini.Controller `{}`: dt {} s>", self.setup.model.name, self.dt)
    }
}
