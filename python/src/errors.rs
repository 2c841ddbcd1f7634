//! The package's exceptions, and the guard that keeps a Rust panic from reaching Python.
//!
//! `signorini.Error` (a `RuntimeError`) is the base of what the engine refuses: a model that
//! cannot be built, a configuration with a wrong key, a solver error. Wrong arguments raise
//! the standard `TypeError` / `ValueError` / `KeyError`, naming the argument.

use pyo3::create_exception;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

create_exception!(
    _signorini,
    Error,
    PyRuntimeError,
    "What signorini refuses or fails at (model, configuration, solver)."
);
create_exception!(
    _signorini,
    InternalError,
    Error,
    "A bug in signorini (a Rust panic caught at the boundary); please report it."
);

/// `Error` with the one-line message of `e`.
pub fn engine(e: impl std::fmt::Display) -> PyErr {
    Error::new_err(e.to_string())
}

/// Runs `f`, turning a panic into `InternalError` (named `what`) instead of unwinding into
/// Python: the binding's functions check their arguments first, so a panic is a bug.
pub fn guard<T>(what: &str, f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(InternalError::new_err(format!("{what}: internal error: {}", panic_text(&*payload)))),
    }
}

/// The text of a panic payload.
pub fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into())
}

/// Panics inside [`guard`]: the test that a Rust panic reaches Python as `InternalError`
/// (no public entry point panics on any input).
#[pyfunction]
#[pyo3(name = "_panic_for_tests")]
pub fn panic_for_tests() -> PyResult<()> {
    guard("_panic_for_tests", || -> PyResult<()> { panic!("a panic on purpose") })
}

/// Registers the exceptions in the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add("InternalError", m.py().get_type::<InternalError>())?;
    Ok(())
}
