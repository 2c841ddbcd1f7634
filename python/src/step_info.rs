//! What a world's step reports to Python: `StepInfo` (the solve, with the NCP criteria of
//! seed 002 in force units, `contact::PyCriteria`) and `Contacts` (the contacts of the last step,
//! copied into numpy arrays).

use crate::contact::PyCriteria;
use crate::instance::Instance;
use numpy::{PyArray1, PyArray2, PyArray3, PyArrayMethods};
use pyo3::prelude::*;
use signorini::collision::Owner;
use signorini::contact::Fallback;
use signorini::sim::StepReport;
use signorini::spatial::Vec3;

/// What the last step did.
#[pyclass(name = "StepInfo", module = "signorini", frozen, get_all)]
pub struct PyStepInfo {
    /// Contacts in the problem.
    pub contacts: usize,
    /// Contacts found beyond `collision.max_contacts` and dropped (the deepest kept).
    pub contacts_dropped: usize,
    /// Solver iterations.
    pub iterations: usize,
    /// Whether the solve reached its tolerance.
    pub converged: bool,
    /// Whether the warm start's active set solved it exactly (no iteration).
    pub polished: bool,
    /// The NCP criteria of the step's impulses.
    pub criteria: Py<PyCriteria>,
    /// Deepest penetration at the start of the step (m).
    pub max_penetration: f64,
    /// `"none"`, or the fallback whose impulses the step used (`"warm_start"`, `"ccp"`).
    pub fallback: &'static str,
    /// Whether the stepper's guard refused the impulses the unconverged solve left (not
    /// finite, or creating kinetic energy) and applied them scaled down.
    pub refused: bool,
    /// Times the step was solved again with the points it had put below a half-space
    /// (`contact.regenerate`).
    pub regenerated: usize,
}

impl PyStepInfo {
    /// The report of a step.
    pub fn new(py: Python<'_>, r: &StepReport) -> PyResult<Self> {
        Ok(Self {
            contacts: r.contacts,
            contacts_dropped: r.contacts_dropped,
            iterations: r.iterations,
            converged: r.converged,
            polished: r.polished,
            criteria: Py::new(py, PyCriteria::from(r.metrics))?,
            max_penetration: r.max_penetration,
            fallback: match r.fallback {
                Fallback::None => "none",
                Fallback::WarmStart => "warm_start",
                Fallback::Ccp => "ccp",
            },
            refused: r.refused,
            regenerated: r.regenerated,
        })
    }
}

#[pymethods]
impl PyStepInfo {
    fn __repr__(&self) -> String {
        format!(
            "StepInfo(contacts={}, iterations={}, converged={}, polished={}, max_penetration={:e}, fallback={:?})",
            self.contacts, self.iterations, self.converged, self.polished, self.max_penetration, self.fallback
        )
    }
}

/// The contacts of the last step (copies), n of them.
#[pyclass(name = "Contacts", module = "signorini", frozen, get_all)]
pub struct PyContacts {
    /// (n, 3) world points (midway between the surfaces).
    pub points: Py<PyArray2<f64>>,
    /// (n, 3) world normals, from the environment (body 2) into the body (body 1).
    pub normals: Py<PyArray2<f64>>,
    /// (n, 3, 3) frames, columns (Tx, Ty, N).
    pub frames: Py<PyArray3<f64>>,
    /// (n, 3) impulses in the contact frame (Tx, Ty, N), N·s.
    pub impulses: Py<PyArray2<f64>>,
    /// (n, 3) world forces (N): frame · impulse / Δt.
    pub forces: Py<PyArray2<f64>>,
    /// (n,) penetration depths (m, positive when interpenetrating: −distance).
    pub depths: Py<PyArray1<f64>>,
    /// Persistent contact ids (the warm start's keys).
    pub ids: Vec<u64>,
    /// The body of each contact: the robot link or the free body (body 1's).
    pub bodies: Vec<String>,
}

impl PyContacts {
    /// The contacts of `instance`'s last step.
    pub fn new(py: Python<'_>, instance: &Instance) -> PyResult<Self> {
        let stepper = &instance.stepper;
        let contacts = stepper.contacts().contacts();
        let impulses = stepper.impulses();
        let n = contacts.len();
        let (mut points, mut normals, mut frames) = (vec![0.0; 3 * n], vec![0.0; 3 * n], vec![0.0; 9 * n]);
        let (mut lambda, mut forces, mut depths) = (vec![0.0; 3 * n], vec![0.0; 3 * n], vec![0.0; n]);
        let objects = instance.world.collision.objects();
        let mut bodies = Vec::with_capacity(n);
        for (i, c) in contacts.iter().enumerate() {
            points[3 * i..3 * i + 3].copy_from_slice(c.point.as_slice());
            normals[3 * i..3 * i + 3].copy_from_slice(c.normal().as_slice());
            for r in 0..3 {
                for k in 0..3 {
                    frames[9 * i + 3 * r + k] = c.frame[(r, k)];
                }
            }
            // No impulses when the step assembled no problem.
            let l = impulses.get(3 * i..3 * i + 3).map_or(Vec3::zeros(), Vec3::from_column_slice);
            lambda[3 * i..3 * i + 3].copy_from_slice(l.as_slice());
            depths[i] = -c.distance;
            bodies.push(body_name(instance, c.body1, objects.get(c.object1).map(|o| o.link.as_str())));
        }
        instance.contact_forces(&mut forces);
        let rows = |v: Vec<f64>| PyArray1::from_vec(py, v).reshape([n, 3]).map(Bound::unbind);
        Ok(Self {
            points: rows(points)?,
            normals: rows(normals)?,
            frames: PyArray1::from_vec(py, frames).reshape([n, 3, 3])?.unbind(),
            impulses: rows(lambda)?,
            forces: rows(forces)?,
            depths: PyArray1::from_vec(py, depths).unbind(),
            ids: contacts.iter().map(|c| c.id.0).collect(),
            bodies,
        })
    }
}

/// The name of a contact's body: the robot link of its shape, the free body's name, or
/// the environment object's.
fn body_name(instance: &Instance, owner: Owner, link: Option<&str>) -> String {
    match owner {
        Owner::Free { body } => instance.world.bodies.get(body).map_or_else(String::new, |b| b.name.clone()),
        Owner::Robot { .. } | Owner::Static => link.unwrap_or_default().to_owned(),
    }
}

#[pymethods]
impl PyContacts {
    fn __len__(&self) -> usize {
        self.bodies.len()
    }

    fn __repr__(&self) -> String {
        format!("<signorini.Contacts: {} contacts on {:?}>", self.bodies.len(), self.bodies)
    }
}
