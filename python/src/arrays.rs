//! Checked numpy arguments: every array that enters the engine is float64, of the expected
//! shape, C-contiguous and finite, or the call raises a Python exception naming the argument
//! (`q: shape (3,), expected (19,) = model.nq`). Checked arrays are borrowed, never copied.

use numpy::{
    PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyReadwriteArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The shape an argument must have: its dimensions and what they are, for the message.
#[derive(Clone, Copy, Debug)]
pub struct Shape<'a> {
    /// Dimensions.
    pub dims: &'a [usize],
    /// What they are (`model.nv`, `(N, nq)`), named in the error.
    pub meaning: &'a str,
}

impl<'a> Shape<'a> {
    /// A shape and what it means.
    pub const fn new(dims: &'a [usize], meaning: &'a str) -> Self {
        Self { dims, meaning }
    }
}

fn shape_text(dims: &[usize]) -> String {
    match dims {
        [n] => format!("({n},)"),
        _ => format!("({})", dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")),
    }
}

/// `obj` as a float64 ndarray of `shape`, C-contiguous; `name` is the argument's name.
fn typed<'py>(name: &str, obj: &Bound<'py, PyAny>, shape: Shape) -> PyResult<Bound<'py, PyArrayDyn<f64>>> {
    let untyped = obj.cast::<PyUntypedArray>().map_err(|_| {
        let got = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("{name}: expected a numpy.ndarray of float64, got {got}"))
    })?;
    let dtype = untyped.dtype();
    if !dtype.is_equiv_to(&numpy::dtype::<f64>(obj.py())) {
        return Err(PyTypeError::new_err(format!(
            "{name}: dtype {dtype}, expected float64 (numpy.asarray({name}, dtype=numpy.float64))"
        )));
    }
    if untyped.shape() != shape.dims {
        return Err(PyValueError::new_err(format!(
            "{name}: shape {}, expected {} = {}",
            shape_text(untyped.shape()),
            shape_text(shape.dims),
            shape.meaning
        )));
    }
    if !untyped.is_c_contiguous() {
        return Err(PyValueError::new_err(format!(
            "{name}: not C-contiguous (a strided view); pass numpy.ascontiguousarray({name})"
        )));
    }
    Ok(untyped.cast::<PyArrayDyn<f64>>()?.clone())
}

/// The dimensions of the array argument `name` (TypeError if it is not an ndarray), to
/// size the others from it (`control`'s T in `rollout`).
pub fn dims(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let untyped = obj.cast::<PyUntypedArray>().map_err(|_| {
        let got = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        PyTypeError::new_err(format!("{name}: expected a numpy.ndarray of float64, got {got}"))
    })?;
    Ok(untyped.shape().to_vec())
}

/// The first non-finite element of `values`, as an error naming `name`.
pub fn finite(name: &str, values: &[f64]) -> PyResult<()> {
    match values.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(i) => Err(PyValueError::new_err(format!("{name}: element {i} is {} (must be finite)", values[i]))),
    }
}

/// A read-only input: float64, `shape`, C-contiguous, finite.
pub struct Input<'py>(PyReadonlyArrayDyn<'py, f64>);

impl<'py> Input<'py> {
    /// The interpreter token.
    pub fn py(&self) -> Python<'py> {
        self.0.py()
    }

    /// Its elements in C order.
    pub fn as_slice(&self) -> &[f64] {
        // Contiguity was checked in `input`.
        self.0.as_slice().unwrap_or(&[])
    }
}

/// Checks an input argument (see [`Input`]).
pub fn input<'py>(name: &str, obj: &Bound<'py, PyAny>, shape: Shape) -> PyResult<Input<'py>> {
    let array = typed(name, obj, shape)?;
    let borrowed = array.try_readonly().map_err(|e| PyValueError::new_err(format!("{name}: cannot be read ({e})")))?;
    let input = Input(borrowed);
    finite(name, input.as_slice())?;
    Ok(input)
}

/// A writable output: float64, `shape`, C-contiguous (its values are overwritten).
pub struct Output<'py>(PyReadwriteArrayDyn<'py, f64>);

impl Output<'_> {
    /// Its elements in C order.
    pub fn as_slice_mut(&mut self) -> &mut [f64] {
        // Contiguity was checked in `output`.
        self.0.as_slice_mut().unwrap_or(&mut [])
    }
}

/// Checks an `out=` argument (see [`Output`]); it must not alias an input.
pub fn output<'py>(name: &str, obj: &Bound<'py, PyAny>, shape: Shape) -> PyResult<Output<'py>> {
    let array = typed(name, obj, shape)?;
    let borrowed = array
        .try_readwrite()
        .map_err(|e| PyValueError::new_err(format!("{name}: cannot be written ({e}): read-only, or also an input")))?;
    Ok(Output(borrowed))
}

/// Writes `values` into `out` (checked to `shape`) when given, or into a new array of
/// `shape`; returns the array.
pub fn emit<'py>(
    py: Python<'py>,
    out: Option<&Bound<'py, PyAny>>,
    shape: Shape,
    values: impl FnOnce(&mut [f64]),
) -> PyResult<Bound<'py, PyAny>> {
    match out {
        Some(obj) => {
            let mut o = output("out", obj, shape)?;
            values(o.as_slice_mut());
            Ok(obj.clone())
        }
        None => {
            let array = PyArrayDyn::<f64>::zeros(py, shape.dims, false);
            {
                let mut w = array.readwrite();
                values(w.as_slice_mut().unwrap_or(&mut []));
            }
            Ok(array.into_any())
        }
    }
}
