//! The frictional contact problem of one step and every solver of the engine, from numpy:
//! `ContactProblem(G, g, mu, compliance)`, `solve(problem, solver, model, ...)` over every
//! [`SolverKind`], and the NCP criteria of seed 002 ([`Metrics`]) of any impulses.
//!
//! A problem is held as the engine's [`ContactProblem`] with G present (dense): one made
//! from arrays, or a world's (`problem_from`, G built from its factor W when it was
//! assembled with it, the factor kept for the solvers that work in velocities).

use std::sync::Arc;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use signorini::contact::{
    AdmmOptions, ContactModel, ContactProblem, DEFAULT_ANDERSON, DEFAULT_CONTACT_SCALING, MAX_ANDERSON, Metrics,
    SolveResult, SolverKind, StoppingRule, WarmStart, cone,
};

use crate::arrays::{Input, Shape, input};
use crate::errors::{engine, guard};

/// The contact models `solve` and `criteria` take, by name.
const MODELS: [(&str, ContactModel); 2] = [("ncp", ContactModel::Ncp), ("ccp", ContactModel::Ccp)];

/// min over impulses λ (3 per contact, (Tx, Ty, N)) of the frictional contact problem
/// σ = (G + diag(compliance))·λ + g, λ_i in the Coulomb cone of μ_i (seed 000 eq. 27).
#[pyclass(name = "ContactProblem", module = "signorini", frozen)]
pub struct PyContactProblem {
    /// The problem, G present.
    pub inner: Arc<ContactProblem>,
}

/// The length of a one-dimensional array argument (`name`), which sizes the others; a
/// non-array is left to [`input`]'s message.
fn leading_length(name: &str, obj: &Bound<'_, PyAny>, meaning: &str) -> PyResult<usize> {
    match obj.cast::<PyUntypedArray>() {
        Ok(a) if a.ndim() == 1 => Ok(a.len()),
        Ok(a) => Err(PyValueError::new_err(format!("{name}: {} dimensions, expected 1 ({meaning})", a.ndim()))),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{name}: expected a numpy.ndarray of float64, got {}",
            obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
        ))),
    }
}

/// A C-ordered (rows, cols) float64 array of `values`.
fn matrix<'py>(py: Python<'py>, rows: usize, cols: usize, values: &[f64]) -> PyResult<Bound<'py, PyArray2<f64>>> {
    PyArray1::from_slice(py, values).reshape([rows, cols])
}

impl PyContactProblem {
    /// Number of contacts.
    fn n(&self) -> usize {
        self.inner.contacts()
    }
}

/// The problem of an engine's [`ContactProblem`] (a world's last step): G built from its
/// factor W when it holds only that. Refuses a problem with neither (inverse dynamics'
/// rows).
pub fn problem_from(p: &ContactProblem) -> PyResult<PyContactProblem> {
    let mut own = p.clone();
    own.build_delassus_any_size();
    if !own.has_delassus() {
        return Err(engine("problem: holds neither G nor its factor W (rows only)"));
    }
    Ok(PyContactProblem { inner: Arc::new(own) })
}

#[pymethods]
impl PyContactProblem {
    /// A problem from arrays: G (3n, 3n) symmetric with a non-negative diagonal, g (3n,),
    /// mu (n,) ≥ 0, compliance (3n,) ≥ 0 (None: rigid contacts).
    #[new]
    #[pyo3(signature = (G, g, mu, compliance=None))]
    #[allow(non_snake_case)]
    fn new(
        G: &Bound<'_, PyAny>,
        g: &Bound<'_, PyAny>,
        mu: &Bound<'_, PyAny>,
        compliance: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let n = leading_length("mu", mu, "one friction coefficient per contact")?;
        let m = 3 * n;
        let mu = input("mu", mu, Shape::new(&[n], "(n,) contacts"))?;
        let g = input("g", g, Shape::new(&[m], "(3n,) for n = len(mu)"))?;
        let delassus = input("G", G, Shape::new(&[m, m], "(3n, 3n) for n = len(mu)"))?;
        let compliance =
            compliance.map(|c| input("compliance", c, Shape::new(&[m], "(3n,) for n = len(mu)"))).transpose()?;
        guard("ContactProblem", || {
            let rows: Vec<Vec<f64>> = delassus.as_slice().chunks(m.max(1)).take(m).map(|r| r.to_vec()).collect();
            let r = compliance.as_ref().map(Input::as_slice).unwrap_or(&[]);
            // The engine's messages name the field (`G`[6]: not symmetric; `mu`[0]: negative...).
            let p = ContactProblem::from_dense(&rows, g.as_slice(), mu.as_slice(), r)
                .map_err(|e| PyValueError::new_err(e.to_string().replace("`R`", "`compliance`")))?;
            Ok(Self { inner: Arc::new(p) })
        })
    }

    /// The problem of a world's last step (its contacts, then its joint limits and
    /// friction as blocks), G dense: to solve it again with any solver, or to measure it.
    #[staticmethod]
    fn from_world(world: PyRef<'_, crate::world::PyWorld>) -> PyResult<Self> {
        let instance = world.instance()?;
        guard("ContactProblem.from_world", || problem_from(instance.stepper.problem()))
    }

    /// Number of contacts n.
    #[getter]
    fn num_contacts(&self) -> usize {
        self.n()
    }

    /// G (3n, 3n), the Delassus matrix (a copy).
    #[getter(G)]
    fn delassus<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let m = 3 * self.n();
        matrix(py, m, m, &self.inner.delassus()[..m * m])
    }

    /// g (3n,), the contact velocities without contact impulses (a copy).
    #[getter]
    fn g<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.g())
    }

    /// μ (n,), each contact's friction coefficient (0 for a joint-friction block).
    #[getter]
    fn mu<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let mu: Vec<f64> = self.inner.sets().iter().map(|s| s.friction()).collect();
        PyArray1::from_vec(py, mu)
    }

    /// The diagonal compliance R (3n,) (zeros: rigid).
    #[getter]
    fn compliance<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_slice(py, self.inner.compliance())
    }

    fn __repr__(&self) -> String {
        format!("<signorini.ContactProblem: {} contacts>", self.n())
    }
}

/// The criteria of seed 002 of a solution (force units for `dt`; 1: the problem's own).
#[pyclass(name = "Criteria", module = "signorini", frozen, get_all)]
#[derive(Clone)]
pub struct PyCriteria {
    /// Coulomb cone violation.
    eps_p: f64,
    /// Dual feasibility (Signorini, with the De Saxcé term for the NCP).
    eps_d: f64,
    /// Complementarity.
    eps_c: f64,
    /// max(ε_p, ε_d, ε_c): the NCP criterion.
    eps_abs: f64,
    /// Largest Signorini part |λ_N c_N|.
    signorini: f64,
    /// Largest maximum-dissipation part.
    mdp: f64,
}

impl From<Metrics> for PyCriteria {
    fn from(m: Metrics) -> Self {
        Self { eps_p: m.eps_p, eps_d: m.eps_d, eps_c: m.eps_c, eps_abs: m.eps_abs, signorini: m.signorini, mdp: m.mdp }
    }
}

#[pymethods]
impl PyCriteria {
    fn __repr__(&self) -> String {
        format!(
            "Criteria(eps_p={:.3e}, eps_d={:.3e}, eps_c={:.3e}, eps_abs={:.3e}, signorini={:.3e}, mdp={:.3e})",
            self.eps_p, self.eps_d, self.eps_c, self.eps_abs, self.signorini, self.mdp
        )
    }
}

/// The outcome of `solve`: impulses, velocities, how the solve went and the NCP criteria.
#[pyclass(name = "Solution", module = "signorini", frozen)]
pub struct PySolution {
    /// λ (3n,).
    #[pyo3(get)]
    impulses: Py<PyArray1<f64>>,
    /// σ = (G + R)λ + g (3n,).
    #[pyo3(get)]
    velocities: Py<PyArray1<f64>>,
    /// Iterations done (0: the start already met the tolerance).
    #[pyo3(get)]
    iterations: usize,
    /// Whether the tolerance was reached.
    #[pyo3(get)]
    converged: bool,
    /// Primal, dual, complementarity (seed 000 eqs. 40–42 for the ADMM).
    #[pyo3(get)]
    residuals: (f64, f64, f64),
    /// Against the NCP, whatever model was solved.
    #[pyo3(get)]
    criteria: PyCriteria,
    /// What a later solve starts from (λ, the dual, the penalty), kept apart from the
    /// arrays handed out (which the caller may write to).
    warm: WarmStart,
}

#[pymethods]
impl PySolution {
    fn __repr__(&self) -> String {
        format!(
            "<signorini.Solution: {} contacts, {} iterations, converged {}, eps_abs {:.3e}>",
            self.warm.lambda.len() / 3,
            self.iterations,
            self.converged,
            self.criteria.eps_abs
        )
    }
}

/// A contact model by name.
fn contact_model(model: &str) -> PyResult<ContactModel> {
    MODELS
        .iter()
        .find(|(name, _)| *name == model)
        .map(|&(_, m)| m)
        .ok_or_else(|| PyValueError::new_err(format!("model: `{model}`, expected \"ncp\" or \"ccp\"")))
}

/// A solver by name.
fn solver_kind(solver: &str) -> PyResult<SolverKind> {
    SolverKind::from_name(solver).ok_or_else(|| {
        let names: Vec<&str> = SolverKind::ALL.iter().map(|s| s.name()).collect();
        PyKeyError::new_err(format!("solver: unknown `{solver}`, expected one of {}", names.join(", ")))
    })
}

/// `x` (the argument `name`) when finite and positive (or zero, if `zero`).
fn positive(name: &str, x: f64, zero: bool) -> PyResult<f64> {
    if x.is_finite() && (x > 0.0 || (zero && x == 0.0)) {
        return Ok(x);
    }
    let want = if zero { "a finite number ≥ 0" } else { "a finite number > 0" };
    Err(PyValueError::new_err(format!("{name}: {x}, expected {want}")))
}

/// The warm start of an impulse array (3n,): every contact known, its dual
/// z = σ + Γ(σ) from σ = (G + R)λ + g (the De Saxcé term for the NCP).
fn warm_from_impulses(p: &ContactProblem, lambda: &[f64], model: ContactModel) -> WarmStart {
    let n = p.contacts();
    let mut sigma = vec![0.0; 3 * n];
    p.contact_velocity(lambda, &mut sigma);
    let mut dual = vec![0.0; 3 * n];
    for (i, set) in p.sets().iter().enumerate() {
        let s = cone::block(&sigma, i);
        cone::set_block(&mut dual, i, &cone::add(&s, &set.correction(model == ContactModel::Ncp, &s)));
    }
    WarmStart { lambda: lambda.to_vec(), dual, known: vec![true; n], rho_power: None, eigen: Vec::new() }
}

/// `warm_start` (a Solution of a problem of as many contacts, or impulses (3n,)) as the
/// engine's warm start.
fn warm_start(p: &ContactProblem, warm: Option<&Bound<'_, PyAny>>, model: ContactModel) -> PyResult<Option<WarmStart>> {
    let Some(obj) = warm else { return Ok(None) };
    let m = 3 * p.contacts();
    if let Ok(solution) = obj.cast::<PySolution>() {
        let w = &solution.get().warm;
        if w.lambda.len() != m {
            return Err(PyValueError::new_err(format!(
                "warm_start: a Solution of {} contacts, the problem has {}",
                w.lambda.len() / 3,
                p.contacts()
            )));
        }
        return Ok(Some(w.clone()));
    }
    let lambda = input("warm_start", obj, Shape::new(&[m], "(3n,) impulses, or a Solution"))?;
    Ok(Some(warm_from_impulses(p, lambda.as_slice(), model)))
}

/// Refuses a result that is not finite: no NaN reaches Python. (The PGS solvers divide
/// by G's diagonal: a contact whose normal row of G is zero, pushed into, has no
/// solution and gives one.)
fn finite_result(solver: &str, result: &SolveResult) -> PyResult<()> {
    let values = result.lambda.iter().chain(&result.sigma);
    match values.enumerate().find(|(_, x)| !x.is_finite()) {
        None => Ok(()),
        Some((k, x)) => Err(engine(format!(
            "solve: the `{solver}` solver gave a non-finite value ({x} at index {}); \
             the problem may have no solution (a contact with a zero row of G pushed into)",
            k % result.lambda.len().max(1)
        ))),
    }
}

/// Solves `problem` with `solver` (one of SOLVERS) on `model` ("ncp" or "ccp", where the
/// solver has a choice) to the absolute tolerance `tol` in at most `max_iterations`,
/// from `warm_start` (a previous Solution or impulses); the criteria in force units for
/// a step `dt`; `anderson`: the ADMM's Anderson depth (`contact.anderson`; 0: the paper's
/// plain iteration); `polish`: the ADMM polishes its iterate mid-solve (`contact.polish`);
/// `scaling`: the exponent of the ADMM's per-contact penalty scale (`contact.scaling`, 0 to
/// 1; 0: the paper's scalar ρ). The interpreter is released while it runs.
#[pyfunction]
#[pyo3(signature = (problem, solver="admm", model="ncp", tol=1e-6, max_iterations=1000, warm_start=None, dt=1.0, anderson=DEFAULT_ANDERSON as i64, polish=true, scaling=DEFAULT_CONTACT_SCALING))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    problem: &PyContactProblem,
    solver: &str,
    model: &str,
    tol: f64,
    max_iterations: i64,
    warm_start: Option<&Bound<'_, PyAny>>,
    dt: f64,
    anderson: i64,
    polish: bool,
    scaling: f64,
) -> PyResult<PySolution> {
    let kind = solver_kind(solver)?;
    let max_iterations = usize::try_from(max_iterations)
        .map_err(|_| PyValueError::new_err(format!("max_iterations: {max_iterations}, expected an integer ≥ 0")))?;
    let anderson = usize::try_from(anderson).ok().filter(|&a| a <= MAX_ANDERSON).ok_or_else(|| {
        PyValueError::new_err(format!("anderson: {anderson}, expected an integer from 0 to {MAX_ANDERSON}"))
    })?;
    let range = signorini::config::ranges::SCALING_EXPONENT;
    if !range.contains(scaling) {
        return Err(PyValueError::new_err(format!(
            "scaling: {scaling}, expected a number from {} to {}",
            range.min, range.max
        )));
    }
    let contact_model = contact_model(model)?;
    let tol = positive("tol", tol, true)?;
    let dt = positive("dt", dt, false)?;
    let p = &*problem.inner;
    let warm = self::warm_start(p, warm_start, contact_model)?;
    let stop = StoppingRule { absolute: tol, max_iterations, ..Default::default() };
    let (result, metrics) = py.detach(|| {
        guard("solve", || {
            let n = p.contacts();
            let mut engine_solver =
                kind.build(contact_model, stop, AdmmOptions { anderson, polish, scaling }, n, false);
            let mut result = SolveResult::with_capacity(n, 0);
            engine_solver.solve(p, warm.as_ref(), &mut result).map_err(engine)?;
            finite_result(solver, &result)?;
            let mut sigma = vec![0.0; 3 * n];
            let metrics = Metrics::evaluate(p, &result.lambda, dt, ContactModel::Ncp, &mut sigma);
            Ok((result, metrics))
        })
    })?;
    let r = &result.stats.residuals;
    Ok(PySolution {
        impulses: PyArray1::from_slice(py, &result.lambda).unbind(),
        velocities: PyArray1::from_slice(py, &result.sigma).unbind(),
        iterations: result.stats.iterations,
        converged: result.converged,
        residuals: (r.primal, r.dual, r.complementarity),
        criteria: metrics.into(),
        warm: WarmStart::from_result(&result),
    })
}

/// The criteria of seed 002 of `impulses` (3n,) for `problem` against `model`, in force
/// units for a step `dt` (1: the problem's own units).
#[pyfunction]
#[pyo3(signature = (problem, impulses, model="ncp", dt=1.0))]
pub fn criteria(problem: &PyContactProblem, impulses: &Bound<'_, PyAny>, model: &str, dt: f64) -> PyResult<PyCriteria> {
    let p = &*problem.inner;
    let m = 3 * p.contacts();
    let lambda = input("impulses", impulses, Shape::new(&[m], "(3n,) = 3 * problem.num_contacts"))?;
    let model = contact_model(model)?;
    let dt = positive("dt", dt, false)?;
    guard("criteria", || {
        let mut sigma = vec![0.0; m];
        Ok(Metrics::evaluate(p, lambda.as_slice(), dt, model, &mut sigma).into())
    })
}

/// Registers the classes, the functions and the SOLVERS and MODELS tuples.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyContactProblem>()?;
    m.add_class::<PyCriteria>()?;
    m.add_class::<PySolution>()?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(criteria, m)?)?;
    let solvers: Vec<&str> = SolverKind::ALL.iter().map(|s| s.name()).collect();
    m.add("SOLVERS", PyTuple::new(m.py(), solvers)?)?;
    m.add("MODELS", PyTuple::new(m.py(), MODELS.map(|(name, _)| name))?)?;
    Ok(())
}
