//! The Python extension module `signorini._signorini` (pyo3), wrapped by the package in
//! python/signorini/. Arguments are numpy arrays checked by `arrays`; the engine's refusals
//! become `signorini.Error`; a Rust panic never unwinds into Python (`errors::guard`).

mod arrays;
mod batch;
mod dynamics;
mod errors;
#[allow(dead_code)] // Used by `World` and `Batch`.
mod instance;
mod model;

use pyo3::prelude::*;

/// The module.
#[pymodule]
fn _signorini(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<model::PyModel>()?;
    m.add_class::<model::PyData>()?;
    dynamics::register(m)?;
    batch::register(m)?;
    Ok(())
}
