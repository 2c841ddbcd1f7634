//! The Python extension module `signorini._signorini` (pyo3), wrapped by the package in
//! python/signorini/. Arguments are numpy arrays checked by `arrays`; the engine's refusals
//! become `signorini.Error`; a Rust panic never unwinds into Python (`errors::guard`).

mod arrays;
mod dynamics;
mod errors;
#[allow(dead_code)] // Used by `World` and `Batch`.
mod instance;
mod model;
mod sections;
mod step_info;
mod world;

use pyo3::prelude::*;

/// The module.
#[pymodule]
fn _signorini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<model::PyModel>()?;
    m.add_class::<model::PyData>()?;
    dynamics::register(m)?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<step_info::PyStepInfo>()?;
    m.add_class::<step_info::PyContacts>()?;
    m.add_class::<step_info::PyCriteria>()?;
    Ok(())
}
