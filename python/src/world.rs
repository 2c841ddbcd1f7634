//! `World`: one simulated world (a robot, its environment, free bodies) stepped from
//! Python, over an [`Instance`]. Built from a configuration file (`World.from_config`) or
//! from a model and the YAML sections as Python values (`World(model, environment=...)`,
//! see `sections`). `step` releases the GIL; a step whose state stops being finite raises
//! `signorini.Error` naming the time, with the state before that step restored, so Python
//! never sees NaN. After `close()` every call raises `ValueError("world: closed")`.

use crate::arrays::{Shape, emit, input};
use crate::errors::{engine, guard};
use crate::instance::{BODY_STATE, Instance, Recipe};
use crate::model::PyModel;
use crate::sections;
use crate::step_info::{PyContacts, PyStepInfo};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use signorini::model::Model;
use signorini::sim::StepReport;
use signorini::spatial::{Motion, Vec3};
use std::path::PathBuf;
use std::sync::Arc;

/// An open world: its instance and the buffers of `step`.
struct Open {
    instance: Instance,
    /// The controls of the steps (nu).
    controls: Vec<f64>,
    /// The state before the current step, restored when it ends non-finite (nstate).
    before: Vec<f64>,
}

/// A step that ended with a non-finite state (restored to `before`, at `time`).
struct Diverged {
    /// Simulated time the failed step reached.
    time: f64,
    /// Which of the call's steps (0-based).
    step: usize,
    /// Time of the restored state.
    restored: f64,
}

/// One simulated world.
#[pyclass(name = "World", module = "signorini")]
pub struct PyWorld {
    open: Option<Open>,
    /// How it was built (for a `Batch` of it).
    recipe: Recipe,
    model: Arc<Model>,
    body_names: Vec<String>,
}

impl PyWorld {
    /// The world of `recipe`.
    fn build(recipe: Recipe) -> PyResult<Self> {
        let model = recipe.model();
        let instance = recipe.build(Arc::clone(&model)).map_err(engine)?;
        let body_names = instance.world.bodies.iter().map(|b| b.name.clone()).collect();
        let (nu, nstate) = (instance.nu(), instance.nstate());
        let open = Open { instance, controls: vec![0.0; nu], before: vec![0.0; nstate] };
        Ok(Self { open: Some(open), recipe, model, body_names })
    }

    /// How this world was built (a closed world's too).
    pub fn recipe(&self) -> &Recipe {
        &self.recipe
    }

    /// The world's instance (for `ContactProblem.from_world`), or ValueError once closed.
    pub fn instance(&self) -> PyResult<&Instance> {
        self.open.as_ref().map(|o| &o.instance).ok_or_else(closed)
    }

    fn instance_mut(&mut self) -> PyResult<&mut Instance> {
        self.open.as_mut().map(|o| &mut o.instance).ok_or_else(closed)
    }

    /// The state vector (nstate).
    fn state(&self) -> PyResult<Vec<f64>> {
        let i = self.instance()?;
        let mut s = vec![0.0; i.nstate()];
        i.get_state(&mut s);
        Ok(s)
    }

    /// Sets the state vector; a zero quaternion raises ValueError naming `what`.
    fn put_state(&mut self, what: &str, state: &[f64]) -> PyResult<()> {
        self.instance_mut()?.set_state(state).map_err(|e| PyValueError::new_err(format!("{what}: {e}")))
    }

    /// Offset of the free bodies in the state vector.
    fn bodies_at(&self) -> PyResult<usize> {
        let i = self.instance()?;
        Ok(1 + i.nq() + i.nv())
    }
}

fn closed() -> PyErr {
    PyValueError::new_err("world: closed")
}

/// `nstep` steps under `controls` (or, with `hold`, the configuration's hold PD), each
/// from a saved state: the first that ends non-finite is undone and reported. The last
/// step's report otherwise.
fn run_steps(open: &mut Open, nstep: usize, hold: bool) -> Result<StepReport, Diverged> {
    let Open { instance, controls, before } = open;
    let mut report = StepReport::default();
    for step in 0..nstep {
        instance.get_state(before);
        report = if hold { *instance.hold_step() } else { *instance.step(controls) };
        if !instance.world.is_finite() {
            let time = instance.world.time;
            // `before` was finite with unit quaternions: set_state accepts it.
            let _ = instance.set_state(before);
            return Err(Diverged { time, step, restored: before[0] });
        }
    }
    Ok(report)
}

#[pymethods]
impl PyWorld {
    /// The world of a signorini configuration file (its robot, `environment:`,
    /// `sim.bodies`, `sim.dt`, `contact:`, `collision:`), at its initial state; the controls
    /// are its controlled joints (`robot.joints`).
    #[staticmethod]
    fn from_config(path: PathBuf) -> PyResult<Self> {
        guard("World.from_config", || Self::build(Recipe::load(&path).map_err(engine)?))
    }

    /// A world of `model` in `environment` (the YAML `environment:` section as a dict;
    /// None: flat ground at z = 0) with the free bodies `bodies` (the YAML `sim.bodies`
    /// entries), stepped every `dt` with the `contact:` settings `contact`. The robot starts
    /// at rest at `q`, else at the neutral configuration with a floating base lowered onto
    /// the ground. The controls are every dof but a floating base's.
    #[new]
    #[pyo3(signature = (model, environment=None, bodies=None, dt=1e-3, contact=None, q=None))]
    fn new(
        model: &PyModel,
        environment: Option<&Bound<'_, PyAny>>,
        bodies: Option<&Bound<'_, PyAny>>,
        dt: f64,
        contact: Option<&Bound<'_, PyAny>>,
        q: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let config = Box::new(sections::config(environment, bodies, dt, contact)?);
        let q = q.map(|q| input("q", q, Shape::new(&[model.inner.nq], "model.nq")).map(|q| q.as_slice().to_vec()));
        let recipe = Recipe::Parts { model: Arc::clone(&model.inner), config, q: q.transpose()? };
        guard("World", || Self::build(recipe))
    }

    /// The robot's model.
    #[getter]
    fn model(&self) -> PyResult<PyModel> {
        self.instance()?;
        Ok(PyModel { inner: Arc::clone(&self.model) })
    }

    /// Time step (s).
    #[getter]
    fn dt(&self) -> PyResult<f64> {
        Ok(self.instance()?.stepper.dt)
    }

    /// Number of controls (the torques `step` takes).
    #[getter]
    fn nu(&self) -> PyResult<usize> {
        Ok(self.instance()?.nu())
    }

    /// The controlled joints, in control order.
    #[getter]
    fn control_names(&self) -> PyResult<Vec<String>> {
        Ok(self.instance()?.control_names.clone())
    }

    /// Simulated time (s).
    #[getter]
    fn time(&self) -> PyResult<f64> {
        Ok(self.instance()?.world.time)
    }

    /// Length of the state vector.
    #[getter]
    fn nstate(&self) -> PyResult<usize> {
        Ok(self.instance()?.nstate())
    }

    /// The free bodies' names.
    #[getter]
    fn body_names(&self) -> PyResult<Vec<String>> {
        self.instance()?;
        Ok(self.body_names.clone())
    }

    /// `nstep` steps under the controls `tau` (nu), held over the steps, or (None) what the
    /// simulator applies without a command: the hold PD of `sim.hold_kp`/`hold_kd` towards
    /// the initial posture (zero torques for a world built from parts, as `Batch.step`); the
    /// GIL released; the last step's report. A step whose state ends non-finite raises
    /// `signorini.Error` naming its time, the state before that step restored.
    #[pyo3(signature = (tau=None, nstep=1))]
    fn step(&mut self, py: Python<'_>, tau: Option<&Bound<'_, PyAny>>, nstep: usize) -> PyResult<PyStepInfo> {
        if nstep == 0 {
            return Err(PyValueError::new_err("nstep: 0, expected at least 1"));
        }
        let open = self.open.as_mut().ok_or_else(closed)?;
        match tau {
            Some(t) => {
                let nu = [open.controls.len()];
                let t = input("tau", t, Shape::new(&nu, "world.nu"))?;
                open.controls.copy_from_slice(t.as_slice());
            }
            None => open.controls.fill(0.0),
        }
        let hold = tau.is_none();
        let result = guard("World.step", || Ok(py.detach(|| run_steps(open, nstep, hold))))?;
        match result {
            Ok(report) => PyStepInfo::new(py, &report),
            Err(d) => Err(engine(format!(
                "world.step: the state became non-finite at t = {:.6} s (step {} of {nstep}); the state before that step (t = {:.6} s) was restored",
                d.time,
                d.step + 1,
                d.restored
            ))),
        }
    }

    /// Back to the initial state at time 0, the warm start forgotten: the steps that follow
    /// repeat those after construction bit for bit.
    fn reset(&mut self) -> PyResult<()> {
        self.instance_mut()?.reset();
        Ok(())
    }

    /// Frees the world; every later call raises `ValueError("world: closed")`.
    fn close(&mut self) {
        self.open = None;
    }

    /// The robot's configuration (nq, a copy).
    #[getter]
    fn get_q<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let i = self.instance()?;
        let q = i.world.robot.as_ref().map_or(&[][..], |r| &r.q[..]);
        emit(py, None, Shape::new(&[q.len()], "model.nq"), |o| o.copy_from_slice(q))
    }

    /// Sets the configuration (quaternions normalized; the warm start forgotten).
    #[setter]
    fn set_q(&mut self, q: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut s = self.state()?;
        let nq = self.instance()?.nq();
        s[1..1 + nq].copy_from_slice(input("q", q, Shape::new(&[nq], "model.nq"))?.as_slice());
        self.put_state("q", &s)
    }

    /// The robot's velocity (nv, a copy).
    #[getter]
    fn get_v<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let i = self.instance()?;
        let v = i.world.robot.as_ref().map_or(&[][..], |r| &r.v[..]);
        emit(py, None, Shape::new(&[v.len()], "model.nv"), |o| o.copy_from_slice(v))
    }

    /// Sets the velocity (the warm start forgotten).
    #[setter]
    fn set_v(&mut self, v: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut s = self.state()?;
        let (nq, nv) = (self.instance()?.nq(), self.instance()?.nv());
        s[1 + nq..1 + nq + nv].copy_from_slice(input("v", v, Shape::new(&[nv], "model.nv"))?.as_slice());
        self.put_state("v", &s)
    }

    /// The state vector (nstate): time, q, v, each free body's pose (position, quaternion
    /// x y z w) and twist in its frame (linear of its origin, angular).
    fn get_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.state()?;
        emit(py, None, Shape::new(&[s.len()], "world.nstate"), |o| o.copy_from_slice(&s))
    }

    /// Sets the state vector (as `get_state` returns it; quaternions normalized, the warm
    /// start forgotten).
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let n = [self.instance()?.nstate()];
        let s = input("state", state, Shape::new(&n, "world.nstate"))?.as_slice().to_vec();
        self.put_state("state", &s)
    }

    /// Each free body's pose (nbodies, 7): position, quaternion x y z w.
    #[getter]
    fn get_body_poses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (s, at) = (self.state()?, self.bodies_at()?);
        let nb = self.body_names.len();
        emit(py, None, Shape::new(&[nb, 7], "(nbodies, 7)"), |o| {
            for (b, row) in o.chunks_exact_mut(7).enumerate() {
                row.copy_from_slice(&s[at + BODY_STATE * b..at + BODY_STATE * b + 7]);
            }
        })
    }

    /// Sets each free body's pose (nbodies, 7; quaternions normalized, a zero one refused).
    #[setter]
    fn set_body_poses(&mut self, poses: &Bound<'_, PyAny>) -> PyResult<()> {
        let (mut s, at) = (self.state()?, self.bodies_at()?);
        let nb = self.body_names.len();
        let p = input("body_poses", poses, Shape::new(&[nb, 7], "(nbodies, 7)"))?;
        for (b, row) in p.as_slice().chunks_exact(7).enumerate() {
            s[at + BODY_STATE * b..at + BODY_STATE * b + 7].copy_from_slice(row);
        }
        self.put_state("body_poses", &s)
    }

    /// Each free body's velocity in the world (nbodies, 6): linear (of its origin), angular.
    #[getter]
    fn get_body_velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let states = &self.instance()?.world.states;
        emit(py, None, Shape::new(&[states.len(), 6], "(nbodies, 6)"), |o| {
            for (s, row) in states.iter().zip(o.chunks_exact_mut(6)) {
                let r = &s.pose.rotation;
                row[..3].copy_from_slice((r * s.velocity.linear).as_slice());
                row[3..].copy_from_slice((r * s.velocity.angular).as_slice());
            }
        })
    }

    /// Sets each free body's world velocity (nbodies, 6; the warm start forgotten).
    #[setter]
    fn set_body_velocities(&mut self, velocities: &Bound<'_, PyAny>) -> PyResult<()> {
        let nb = self.body_names.len();
        let v = input("body_velocities", velocities, Shape::new(&[nb, 6], "(nbodies, 6)"))?;
        let i = self.instance_mut()?;
        for (s, row) in i.world.states.iter_mut().zip(v.as_slice().chunks_exact(6)) {
            let rt = s.pose.rotation.transpose();
            s.velocity = Motion::new(rt * Vec3::from_column_slice(&row[..3]), rt * Vec3::from_column_slice(&row[3..]));
        }
        i.stepper.forget_warm_start();
        Ok(())
    }

    /// The contacts of the last step.
    fn contacts(&self, py: Python<'_>) -> PyResult<PyContacts> {
        let i = self.instance()?;
        guard("World.contacts", || PyContacts::new(py, i))
    }

    fn __repr__(&self) -> String {
        match self.instance() {
            Ok(i) => format!(
                "<signorini.World `{}`: nq {}, nv {}, nu {}, {} free bodies, dt {}, t = {:.6} s>",
                self.model.name,
                i.nq(),
                i.nv(),
                i.nu(),
                self.body_names.len(),
                i.stepper.dt,
                i.world.time
            ),
            Err(_) => "<signorini.World (closed)>".to_owned(),
        }
    }
}
