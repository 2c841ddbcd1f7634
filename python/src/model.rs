//! `Model` and `Data` (Pinocchio's split): the model is immutable and shared (an `Arc`), a
//! `Data` holds every buffer an algorithm writes, made for one model.

use crate::errors::{engine, guard};
use numpy::PyArray1;
use pyo3::exceptions::{PyIndexError, PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions};
use std::path::PathBuf;
use std::sync::Arc;

/// A robot model (immutable): joints, inertias, frames, limits, collision shapes.
#[pyclass(name = "Model", module = "signorini", frozen)]
pub struct PyModel {
    /// The model, shared with every `Data`, world and batch made from it.
    pub inner: Arc<Model>,
}

impl PyModel {
    /// Wraps a model.
    pub fn new(model: Model) -> Self {
        Self { inner: Arc::new(model) }
    }

    /// A frame given by name (`str`) or index (`int`), as an index; `name` is the argument.
    pub fn frame(&self, name: &str, frame: &Bound<'_, PyAny>) -> PyResult<usize> {
        if let Ok(s) = frame.extract::<String>() {
            return self
                .inner
                .frame_id(&s, None)
                .ok_or_else(|| PyKeyError::new_err(format!("{name}: no frame `{s}` in model `{}`", self.inner.name)));
        }
        if let Ok(i) = frame.extract::<i64>() {
            let n = self.inner.nframes();
            return usize::try_from(i).ok().filter(|&i| i < n).ok_or_else(|| {
                PyIndexError::new_err(format!("{name}: frame index {i} out of range (model has {n} frames)"))
            });
        }
        Err(PyTypeError::new_err(format!("{name}: a frame name (str) or index (int)")))
    }

    /// Checks that `data` was made for this model.
    pub fn check_data(&self, data: &PyData) -> PyResult<()> {
        let (m, d) = (&self.inner, &data.inner);
        if d.tau.len() != m.nv || d.o_m_i.len() != m.njoints() || d.o_m_f.len() != m.nframes() {
            return Err(PyValueError::new_err(format!(
                "data: made for another model (nv {}, {} joints, {} frames; model `{}` has nv {}, {} joints, {} frames); use model.data()",
                d.tau.len(),
                d.o_m_i.len(),
                d.o_m_f.len(),
                m.name,
                m.nv,
                m.njoints(),
                m.nframes()
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl PyModel {
    /// Builds the model of a URDF file. `floating_base` adds a free-flyer root joint;
    /// `package_dirs` are searched for `package://` meshes; `mimic="independent"` loads mimic
    /// joints as independent joints (Pinocchio's default), `"error"` refuses them;
    /// `skip_meshes` loads no collision mesh (dynamics only).
    #[staticmethod]
    #[pyo3(signature = (path, floating_base=false, package_dirs=Vec::new(), mimic="error", skip_meshes=false, allow_invalid_inertia=false))]
    fn from_urdf(
        path: PathBuf,
        floating_base: bool,
        package_dirs: Vec<PathBuf>,
        mimic: &str,
        skip_meshes: bool,
        allow_invalid_inertia: bool,
    ) -> PyResult<Self> {
        let mimic = match mimic {
            "error" => MimicPolicy::Error,
            "independent" => MimicPolicy::Independent,
            other => {
                return Err(PyValueError::new_err(format!("mimic: `{other}`, expected \"error\" or \"independent\"")));
            }
        };
        let options = ModelOptions {
            floating_base,
            mimic,
            package_dirs,
            skip_meshes,
            allow_invalid_inertia,
            ..Default::default()
        };
        guard("Model.from_urdf", || Model::from_urdf_file(&path, &options).map(Self::new).map_err(engine))
    }

    /// New buffers for this model.
    fn data(&self) -> PyData {
        PyData { inner: Data::new(&self.inner) }
    }

    /// The robot's name.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Configuration size.
    #[getter]
    fn nq(&self) -> usize {
        self.inner.nq
    }

    /// Velocity size.
    #[getter]
    fn nv(&self) -> usize {
        self.inner.nv
    }

    /// Number of joints, the universe included (as Pinocchio's `njoints`).
    #[getter]
    fn njoints(&self) -> usize {
        self.inner.njoints()
    }

    /// Joint names, the universe first.
    #[getter]
    fn joint_names(&self) -> Vec<String> {
        self.inner.joint_names.clone()
    }

    /// Frame names, in index order.
    #[getter]
    fn frame_names(&self) -> Vec<String> {
        self.inner.frames.iter().map(|f| f.name.clone()).collect()
    }

    /// Index of a frame by name.
    fn frame_id(&self, name: &str) -> PyResult<usize> {
        self.inner
            .frame_id(name, None)
            .ok_or_else(|| PyKeyError::new_err(format!("name: no frame `{name}` in model `{}`", self.inner.name)))
    }

    /// Whether the root joint is a free flyer.
    #[getter]
    fn has_floating_base(&self) -> bool {
        self.inner.has_free_flyer()
    }

    /// Total mass (kg).
    #[getter]
    fn total_mass(&self) -> f64 {
        self.inner.total_mass()
    }

    /// Gravity (linear, m/s²).
    #[getter]
    fn gravity<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.gravity.linear.as_slice())
    }

    /// The neutral configuration (zero angles, identity base).
    fn neutral<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.neutral_configuration().as_slice())
    }

    /// Lower position limits (nq).
    #[getter]
    fn lower_position_limit<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.lower_position_limit.as_slice())
    }

    /// Upper position limits (nq).
    #[getter]
    fn upper_position_limit<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.upper_position_limit.as_slice())
    }

    /// Effort limits (nv).
    #[getter]
    fn effort_limit<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.effort_limit.as_slice())
    }

    fn __repr__(&self) -> String {
        let m = &self.inner;
        format!(
            "<signorini.Model `{}`: nq {}, nv {}, {} joints, {} frames>",
            m.name,
            m.nq,
            m.nv,
            m.njoints(),
            m.nframes()
        )
    }
}

/// The buffers of the algorithms for one model (`model.data()`).
#[pyclass(name = "Data", module = "signorini")]
pub struct PyData {
    /// The buffers.
    pub inner: Data,
}

#[pymethods]
impl PyData {
    fn __repr__(&self) -> String {
        format!("<signorini.Data: nv {}, {} joints>", self.inner.tau.len(), self.inner.o_m_i.len())
    }
}
