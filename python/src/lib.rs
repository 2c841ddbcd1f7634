//! The Python extension module `signorini._signorini` (pyo3), wrapped by the package in
//! python/signorini/. Arguments are numpy arrays checked by `arrays`; the engine's refusals
//! become `signorini.Error`; a Rust panic never unwinds into Python (`errors::guard`).

mod arrays;
mod batch;
pub mod contact;
mod controller;
mod dynamics;
mod errors;
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
    contact::register(m)?;
    m.add_class::<controller::PyController>()?;
    m.add_function(wrap_pyfunction!(errors::panic_for_tests, m)?)?;
    m.add_class::<world::PyWorld>()?;
    m.add_class::<step_info::PyStepInfo>()?;
    m.add_class::<step_info::PyContacts>()?;
    batch::register(m)?;
    Ok(())
}
