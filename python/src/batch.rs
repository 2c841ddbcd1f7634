//! Batched rollouts: `Batch(config, num_worlds)` holds N independent [`Instance`]s built
//! from one configuration (one `Setup`, one `Arc<Model>` shared by every world until a
//! world's gravity or masses are changed, when that world gets its own copy), stepped on
//! `num_threads` threads with the GIL released (mjbatch's `Batch`, `mujoco.rollout`).
//!
//! Determinism: each world is stepped by its own stepper from its own state only (worlds
//! share no mutable state, the model is read-only), so the result of a world does not
//! depend on which thread steps it nor on how many there are: bit-identical whatever
//! `num_threads` (tests/python/test_batch.py).
//!
//! Live views (mjbatch's `bind`): the batch owns one contiguous buffer per quantity, sized
//! once and never reallocated — q (N, nq), v (N, nv), time (N,), contact forces (N,
//! max_contacts, 3), contact counts (N,) and the divergence flags (N,) — and the getters
//! return numpy arrays over that memory (`PyArray::borrow_from_array`, the Batch as their
//! base object, so a view keeps the buffers alive even after `close()`). After every step
//! (and reset, set_state) each world copies its state out into its rows; before a step, a
//! world whose rows of q or v differ from its own state takes them (as `set_state` would:
//! quaternions normalized, warm start forgotten). q and v are writable, the others
//! read-only. The views must not be written while a `step` runs in another Python thread.
//!
//! A world whose state turns non-finite is reset to its initial state and flagged
//! (`diverged`, counted in `stats()`): no NaN reaches the views. A panic in a worker
//! becomes `signorini.InternalError` and closes the batch (its worlds may be mid-step).

use crate::arrays::{Shape, dims, input, output};
use crate::errors::{InternalError, guard, panic_text};
use crate::instance::{Instance, Recipe};
use crate::world::PyWorld;
use numpy::ndarray::{ArrayViewD, IxDyn};
use numpy::{Element, PyArrayDyn};
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use signorini::model::{FreeBody, Model};
use signorini::sim::StepReport;
use signorini::spatial::{Inertia, Motion, Vec3};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// A buffer the batch owns and numpy views: allocated once, freed when the batch is
/// dropped (after the last view, which holds the batch).
struct Buffer<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the buffer is plain memory owned by the batch; Rust reaches it only through the
// batch (`&mut` for writes), Python only through the views while holding the GIL.
unsafe impl<T: Send> Send for Buffer<T> {}
unsafe impl<T: Send> Sync for Buffer<T> {}

impl<T: Copy + Default + Element> Buffer<T> {
    fn new(len: usize) -> Self {
        let boxed: Box<[T]> = vec![T::default(); len].into_boxed_slice();
        Self { ptr: Box::into_raw(boxed).cast::<T>(), len }
    }

    /// The elements, for the batch's own reads and writes.
    fn slice(&mut self) -> &mut [T] {
        // SAFETY: `ptr` holds `len` initialized elements for the batch's lifetime; `&mut self`
        // excludes other Rust references; numpy writes need the GIL, which the worker
        // threads do not release to Python code of this batch (documented above).
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// A numpy array of `shape` over the buffer, based on `container` (the batch).
    fn view<'py>(&self, shape: &[usize], container: Bound<'py, PyAny>, writeable: bool) -> PyResult<Bound<'py, PyAny>> {
        debug_assert_eq!(shape.iter().product::<usize>(), self.len);
        // SAFETY: `ptr` is valid for `len` elements in C order of `shape`.
        let view = unsafe { ArrayViewD::from_shape_ptr(IxDyn(shape), self.ptr.cast_const()) };
        // SAFETY: the buffer is never reallocated and lives as long as `container` (the batch
        // frees it on drop, and the view keeps the batch alive).
        let array = unsafe { PyArrayDyn::<T>::borrow_from_array(&view, container) };
        if !writeable {
            array.getattr("flags")?.setattr("writeable", false)?;
        }
        Ok(array.into_any())
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` came from `Box::into_raw` of a boxed slice in `new`.
        unsafe { drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.len))) }
    }
}

/// The NCP criterion (N) the throughput goal is stated at: `stats()` counts the steps
/// above it.
const CRITERION_GOAL: f64 = 1e-6;

/// Per world, what its steps did since the last `reset_stats()`.
#[derive(Clone, Copy, Debug, Default)]
struct Stats {
    steps: u64,
    unconverged: u64,
    iterations: u64,
    max_criterion: f64,
    above_goal: u64,
    contacts: u64,
    divergences: u64,
}

impl Stats {
    fn record(&mut self, r: &StepReport) {
        self.steps += 1;
        self.unconverged += u64::from(!r.converged);
        self.iterations += r.iterations as u64;
        self.max_criterion = self.max_criterion.max(r.metrics.eps_abs);
        // A NaN criterion counts as above.
        self.above_goal += u64::from(r.metrics.eps_abs.is_nan() || r.metrics.eps_abs > CRITERION_GOAL);
        self.contacts += r.contacts as u64;
    }
}

/// The views' buffers and their row sizes.
struct Buffers {
    q: Buffer<f64>,
    v: Buffer<f64>,
    time: Buffer<f64>,
    forces: Buffer<f64>,
    counts: Buffer<i64>,
    diverged: Buffer<bool>,
    nq: usize,
    nv: usize,
    max_contacts: usize,
}

/// One world's rows of the buffers.
struct Rows<'a> {
    q: &'a mut [f64],
    v: &'a mut [f64],
    time: &'a mut f64,
    forces: &'a mut [f64],
    count: &'a mut i64,
    diverged: &'a mut bool,
}

impl Buffers {
    fn new(n: usize, nq: usize, nv: usize, max_contacts: usize) -> Self {
        Self {
            q: Buffer::new(n * nq),
            v: Buffer::new(n * nv),
            time: Buffer::new(n),
            forces: Buffer::new(n * max_contacts * 3),
            counts: Buffer::new(n),
            diverged: Buffer::new(n),
            nq,
            nv,
            max_contacts,
        }
    }

    /// Each world's rows, in world order.
    fn rows(&mut self) -> impl Iterator<Item = Rows<'_>> {
        let (nq, nv, forces) = (self.nq.max(1), self.nv.max(1), (3 * self.max_contacts).max(1));
        let q = chunks(self.q.slice(), nq, self.nq);
        let v = chunks(self.v.slice(), nv, self.nv);
        let f = chunks(self.forces.slice(), forces, 3 * self.max_contacts);
        let (time, counts, diverged) = (self.time.slice(), self.counts.slice(), self.diverged.slice());
        q.zip(v)
            .zip(f)
            .zip(time.iter_mut().zip(counts.iter_mut()).zip(diverged.iter_mut()))
            .map(|(((q, v), forces), ((time, count), diverged))| Rows { q, v, time, forces, count, diverged })
    }
}

/// `slice` in rows of `width` (> 0); rows of `len` 0 when `len` is 0 (an endless iterator
/// of empty rows, cut by the zip with the others).
fn chunks(slice: &mut [f64], width: usize, len: usize) -> Box<dyn Iterator<Item = &mut [f64]> + '_> {
    if len == 0 { Box::new(std::iter::repeat_with(|| &mut [][..])) } else { Box::new(slice.chunks_mut(width)) }
}

impl Rows<'_> {
    /// Copies world `w`'s state and last step's contacts out.
    fn publish(&mut self, w: &mut Instance, fresh: bool) {
        let (q, v) = w.robot_state_mut();
        self.q.copy_from_slice(q);
        self.v.copy_from_slice(v);
        *self.time = w.world.time;
        self.forces.fill(0.0);
        *self.count = if fresh { 0 } else { w.contact_forces(self.forces) as i64 };
    }
}

/// The controls of a run: the hold PD, the same torques at every step (N × nu), or a
/// sequence (N × T × nu).
#[derive(Clone, Copy)]
enum Controls<'a> {
    Hold,
    Same(&'a [f64]),
    Sequence(&'a [f64], usize),
}

impl Controls<'_> {
    fn at(&self, world: usize, t: usize, nu: usize) -> Option<&[f64]> {
        match *self {
            Controls::Hold => None,
            Controls::Same(u) => Some(&u[world * nu..(world + 1) * nu]),
            Controls::Sequence(u, steps) => Some(&u[(world * steps + t) * nu..(world * steps + t + 1) * nu]),
        }
    }
}

/// One world's share of a run.
struct Job<'a> {
    index: usize,
    world: &'a mut Instance,
    rows: Rows<'a>,
    stats: &'a mut Stats,
    /// The states after each step (T × nstate), for `rollout`.
    record: Option<&'a mut [f64]>,
    /// Test hook: panic in this world's run.
    fault: bool,
}

impl Job<'_> {
    /// `steps` steps of the world under `controls`; a non-finite state is reset and
    /// flagged; the rows published at the end.
    fn run(&mut self, controls: Controls, steps: usize, nu: usize) {
        assert!(!self.fault, "fault injected in world {} (Batch._fault)", self.index);
        let nstate = self.world.nstate();
        for t in 0..steps {
            let report = match controls.at(self.index, t, nu) {
                Some(u) => *self.world.step(u),
                None => *self.world.hold_step(),
            };
            self.stats.record(&report);
            if !self.world.world.is_finite() {
                self.world.reset();
                *self.rows.diverged = true;
                self.stats.divergences += 1;
            }
            if let Some(out) = self.record.as_deref_mut() {
                self.world.get_state(&mut out[t * nstate..(t + 1) * nstate]);
            }
        }
        self.rows.publish(self.world, false);
    }
}

/// Runs `f` on every job, on `threads` threads (contiguous shares, in the calling thread
/// when one); a panic in any becomes its text.
fn run_all(jobs: &mut [Job], threads: usize, f: impl Fn(&mut Job) + Sync) -> Result<(), String> {
    let caught = |share: &mut [Job]| catch_unwind(AssertUnwindSafe(|| share.iter_mut().for_each(&f)));
    let threads = threads.clamp(1, jobs.len().max(1));
    if threads == 1 {
        return caught(jobs).map_err(|p| panic_text(&*p));
    }
    let per = jobs.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = jobs.chunks_mut(per).map(|share| s.spawn(|| caught(share))).collect();
        let mut result = Ok(());
        for h in handles {
            if let Ok(Err(p)) | Err(p) = h.join() {
                result = Err(panic_text(&*p));
            }
        }
        result
    })
}

/// The instances: in a mutex only so that the class is `Sync` (the stepper's solver is
/// `Send` only); reached through `&mut` (`Mutex::get_mut`), never locked.
struct Worlds(Mutex<Vec<Instance>>);

impl Worlds {
    fn get(&mut self) -> &mut Vec<Instance> {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner)
    }
}

/// N worlds of one configuration, stepped together (see the module doc).
#[pyclass(name = "Batch", module = "signorini")]
pub struct Batch {
    worlds: Worlds,
    closed: bool,
    n: usize,
    nu: usize,
    nstate: usize,
    threads: usize,
    dt: f64,
    control_names: Vec<String>,
    /// The configuration's model and free bodies, and each world's gravity and mass scale.
    base: Arc<Model>,
    base_bodies: Vec<FreeBody>,
    base_gravity: Vec3,
    gravity: Vec<Vec3>,
    scale: Vec<f64>,
    tau: Vec<f64>,
    buffers: Buffers,
    stats: Vec<Stats>,
    fault: Option<usize>,
}

/// How to build the worlds of `world`: a `World` (built again as it was, from its
/// configuration or its parts, at its initial state) or a configuration path; `expected`
/// names what is accepted in the TypeError.
fn recipe_of(world: &Bound<'_, PyAny>, expected: &str) -> PyResult<Recipe> {
    if let Ok(w) = world.cast::<PyWorld>() {
        return Ok(w.borrow().recipe().clone());
    }
    let Ok(path) = world.extract::<PathBuf>() else {
        let got = world.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        return Err(PyTypeError::new_err(format!("world: expected {expected}, got {got}")));
    };
    guard("Batch", || Recipe::load(&path).map_err(crate::errors::engine))
}

/// The thread count of `num_threads` (None: every core).
fn thread_count(num_threads: Option<i64>) -> PyResult<usize> {
    match num_threads {
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        Some(k) if k >= 1 => Ok(k as usize),
        Some(k) => Err(PyValueError::new_err(format!("num_threads: {k}, must be ≥ 1"))),
    }
}

/// A positive count argument.
fn count(name: &str, k: i64) -> PyResult<usize> {
    if k >= 1 { Ok(k as usize) } else { Err(PyValueError::new_err(format!("{name}: {k}, must be ≥ 1"))) }
}

impl Batch {
    /// `n` worlds of `recipe` (one shared model).
    fn build(recipe: &Recipe, n: usize, threads: usize) -> PyResult<Self> {
        let base = recipe.model();
        let worlds =
            (0..n).map(|_| recipe.build(base.clone()).map_err(crate::errors::engine)).collect::<PyResult<Vec<_>>>()?;
        let first = &worlds[0];
        let max_contacts = recipe.max_contacts();
        let (nq, nv, nu) = (first.nq(), first.nv(), first.nu());
        let base_gravity = first.world.gravity;
        let mut batch = Self {
            n,
            nu,
            nstate: first.nstate(),
            threads,
            dt: first.stepper.dt,
            control_names: first.control_names.clone(),
            base_bodies: first.world.bodies.clone(),
            base_gravity,
            gravity: vec![base_gravity; n],
            scale: vec![1.0; n],
            tau: vec![0.0; n * nu],
            buffers: Buffers::new(n, nq, nv, max_contacts),
            stats: vec![Stats::default(); n],
            fault: None,
            base,
            worlds: Worlds(Mutex::new(worlds)),
            closed: false,
        };
        batch.publish_all(true);
        Ok(batch)
    }

    fn check_open(&self) -> PyResult<()> {
        if self.closed { Err(PyValueError::new_err("batch: closed")) } else { Ok(()) }
    }

    /// Every world's rows from its state (`fresh`: no last step, no contact).
    fn publish_all(&mut self, fresh: bool) {
        for (w, mut rows) in self.worlds.get().iter_mut().zip(self.buffers.rows()) {
            rows.publish(w, fresh);
        }
    }

    /// Before a step: a world whose rows of q or v were written takes them (checked finite;
    /// quaternions normalized, warm start forgotten, as `set_state`).
    fn take_written(&mut self) -> PyResult<()> {
        for (i, (w, rows)) in self.worlds.get().iter_mut().zip(self.buffers.rows()).enumerate() {
            let (q, v) = w.robot_state_mut();
            if rows.q == q && rows.v == v {
                continue;
            }
            crate::arrays::finite(&format!("q[{i}]"), rows.q)?;
            crate::arrays::finite(&format!("v[{i}]"), rows.v)?;
            w.check_configuration(rows.q).map_err(|e| PyValueError::new_err(format!("q[{i}]: {e}")))?;
            let (q, v) = w.robot_state_mut();
            q.copy_from_slice(rows.q);
            v.copy_from_slice(rows.v);
            if let Some(r) = w.world.robot.as_mut() {
                signorini::dynamics::normalize(&r.model, &mut r.q);
            }
            w.stepper.forget_warm_start();
        }
        Ok(())
    }

    /// Runs every world `steps` steps under `controls` on `threads` threads with the GIL
    /// released, recording the states into `record` (N × steps × nstate) when given.
    fn run(
        &mut self,
        py: Python<'_>,
        controls: Controls,
        steps: usize,
        threads: usize,
        record: Option<&mut [f64]>,
    ) -> PyResult<()> {
        let (nu, fault) = (self.nu, self.fault.take());
        let per_world = steps * self.nstate;
        let mut records: Box<dyn Iterator<Item = Option<&mut [f64]>>> = match record {
            Some(r) if per_world > 0 => Box::new(r.chunks_mut(per_world).map(Some)),
            _ => Box::new(std::iter::repeat_with(|| None)),
        };
        let mut jobs: Vec<Job> = (self.worlds.get().iter_mut().zip(self.buffers.rows()).zip(self.stats.iter_mut()))
            .enumerate()
            .map(|(index, ((world, rows), stats))| Job {
                index,
                world,
                rows,
                stats,
                record: records.next().flatten(),
                fault: fault == Some(index),
            })
            .collect();
        let result = py.detach(|| run_all(&mut jobs, threads, |job| job.run(controls, steps, nu)));
        drop(jobs);
        result.map_err(|text| {
            self.close();
            InternalError::new_err(format!("Batch: internal error in a worker thread: {text} (the batch is closed)"))
        })
    }

    /// The world indices of `worlds` (None: all), checked.
    fn indices(&self, worlds: Option<Vec<i64>>) -> PyResult<Vec<usize>> {
        let Some(worlds) = worlds else { return Ok((0..self.n).collect()) };
        worlds
            .into_iter()
            .map(|i| {
                usize::try_from(i).ok().filter(|&i| i < self.n).ok_or_else(|| {
                    PyIndexError::new_err(format!("worlds: world {i} out of range (num_worlds {})", self.n))
                })
            })
            .collect()
    }

    /// Rebuilds world `i`'s model and free bodies from the base ones, its gravity and mass
    /// scale: the shared model again when both are the configuration's.
    fn apply_physics(&mut self, i: usize) -> PyResult<()> {
        let (g, s) = (self.gravity[i], self.scale[i]);
        let w = &mut self.worlds.get()[i];
        if let Some(r) = w.world.robot.as_mut() {
            r.model = if g == self.base_gravity && s == 1.0 {
                self.base.clone()
            } else {
                let mut m = (*self.base).clone();
                m.gravity = Motion::new(g, Vec3::zeros());
                for inertia in &mut m.inertias {
                    *inertia = Inertia::new(inertia.mass * s, inertia.com, inertia.rotational * s);
                }
                Arc::new(m)
            };
        }
        w.world.gravity = g;
        for (body, base) in w.world.bodies.iter_mut().zip(&self.base_bodies) {
            let i = &base.inertia;
            *body = FreeBody::new(&base.name, Inertia::new(i.mass * s, i.com, i.rotational * s))
                .map_err(|e| PyValueError::new_err(format!("scale: {}: {}", base.name, e.reason)))?;
        }
        Ok(())
    }

    /// A checked (N,) or (N, k) argument, each world's row passed to `check`.
    fn per_world<'py>(
        &self,
        name: &str,
        obj: &Bound<'py, PyAny>,
        width: usize,
        meaning: &str,
        check: impl Fn(&[f64]) -> bool,
        must: &str,
    ) -> PyResult<Vec<f64>> {
        let shape = if width == 1 { vec![self.n] } else { vec![self.n, width] };
        let values = input(name, obj, Shape::new(&shape, meaning))?;
        let values = values.as_slice().to_vec();
        for (i, row) in values.chunks_exact(width).enumerate() {
            if !check(row) {
                return Err(PyValueError::new_err(format!("{name}: world {i}: {row:?}, must be {must}")));
            }
        }
        Ok(values)
    }

    /// A checked (N, nstate) state argument: finite, no zero quaternion.
    fn states<'py>(&mut self, name: &str, obj: &Bound<'py, PyAny>) -> PyResult<Vec<f64>> {
        let shape = [self.n, self.nstate];
        let states = input(name, obj, Shape::new(&shape, "(num_worlds, nstate)"))?.as_slice().to_vec();
        for (i, (w, s)) in self.worlds.get().iter().zip(states.chunks_exact(self.nstate.max(1))).enumerate() {
            w.check_state(s).map_err(|e| PyValueError::new_err(format!("{name}: world {i}: {e}")))?;
        }
        Ok(states)
    }
}

#[pymethods]
impl Batch {
    /// `num_worlds` worlds of the configuration file `world`, stepped on `num_threads`
    /// threads (None: every core).
    #[new]
    #[pyo3(signature = (world, num_worlds, num_threads=None))]
    fn new(world: &Bound<'_, PyAny>, num_worlds: i64, num_threads: Option<i64>) -> PyResult<Self> {
        let n = count("num_worlds", num_worlds)?;
        let threads = thread_count(num_threads)?;
        let recipe = recipe_of(world, "a World or a configuration path (str or os.PathLike)")?;
        guard("Batch", || Batch::build(&recipe, n, threads))
    }

    #[getter]
    fn num_worlds(&self) -> usize {
        self.n
    }

    #[getter]
    fn nq(&self) -> usize {
        self.buffers.nq
    }

    #[getter]
    fn nv(&self) -> usize {
        self.buffers.nv
    }

    #[getter]
    fn nu(&self) -> usize {
        self.nu
    }

    #[getter]
    fn nstate(&self) -> usize {
        self.nstate
    }

    #[getter]
    fn dt(&self) -> f64 {
        self.dt
    }

    #[getter]
    fn max_contacts(&self) -> usize {
        self.buffers.max_contacts
    }

    #[getter]
    fn control_names(&self) -> Vec<String> {
        self.control_names.clone()
    }

    #[getter]
    fn get_num_threads(&self) -> usize {
        self.threads
    }

    #[setter]
    fn set_num_threads(&mut self, num_threads: i64) -> PyResult<()> {
        self.threads = thread_count(Some(num_threads))?;
        Ok(())
    }

    /// Live view (N, nq), writable.
    #[getter]
    fn q(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        let shape = [b.n, b.buffers.nq];
        b.buffers.q.view(&shape, slf.clone().into_any(), true)
    }

    /// Live view (N, nv), writable.
    #[getter]
    fn v(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        let shape = [b.n, b.buffers.nv];
        b.buffers.v.view(&shape, slf.clone().into_any(), true)
    }

    /// Live view (N,), read-only.
    #[getter]
    fn time(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        b.buffers.time.view(&[b.n], slf.clone().into_any(), false)
    }

    /// Live view (N, max_contacts, 3), read-only: world forces (N) of the last step.
    #[getter]
    fn contact_forces(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        let shape = [b.n, b.buffers.max_contacts, 3];
        b.buffers.forces.view(&shape, slf.clone().into_any(), false)
    }

    /// Live view (N,) int64, read-only.
    #[getter]
    fn contact_counts(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        b.buffers.counts.view(&[b.n], slf.clone().into_any(), false)
    }

    /// Live view (N,) bool, read-only: the world diverged and was reset since its last
    /// reset / set_state.
    #[getter]
    fn diverged(slf: Bound<'_, Self>) -> PyResult<Bound<'_, PyAny>> {
        let b = slf.borrow();
        b.buffers.diverged.view(&[b.n], slf.clone().into_any(), false)
    }

    /// `nstep` steps of every world under `tau` (N, nu), or the configuration's hold PD.
    #[pyo3(signature = (tau=None, nstep=1))]
    fn step(&mut self, py: Python<'_>, tau: Option<&Bound<'_, PyAny>>, nstep: i64) -> PyResult<()> {
        self.check_open()?;
        let steps = count("nstep", nstep)?;
        if let Some(tau) = tau {
            let shape = [self.n, self.nu];
            self.tau.copy_from_slice(input("tau", tau, Shape::new(&shape, "(num_worlds, nu)"))?.as_slice());
        }
        let (threads, given) = (self.threads, tau.is_some());
        guard("Batch.step", || {
            self.take_written()?;
            let tau = std::mem::take(&mut self.tau);
            let controls = if given { Controls::Same(&tau) } else { Controls::Hold };
            let result = self.run(py, controls, steps, threads, None);
            self.tau = tau;
            result
        })
    }

    /// Back to the initial state (time 0, warm start forgotten, flag cleared) for the
    /// worlds listed (None: all).
    #[pyo3(signature = (worlds=None))]
    fn reset(&mut self, worlds: Option<Vec<i64>>) -> PyResult<()> {
        self.check_open()?;
        let indices = self.indices(worlds)?;
        guard("Batch.reset", || {
            let mut rows: Vec<Rows> = self.buffers.rows().collect();
            for i in indices {
                self.worlds.get()[i].reset();
                *rows[i].diverged = false;
                rows[i].publish(&mut self.worlds.get()[i], true);
            }
            Ok(())
        })
    }

    /// Each world's Coulomb coefficient (N,), ≥ 0: every contact pair's
    /// (`CollisionWorld::set_friction`).
    fn set_friction(&mut self, mu: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let mu = self.per_world("mu", mu, 1, "(num_worlds,)", |m| m[0] >= 0.0, "≥ 0")?;
        guard("Batch.set_friction", || {
            for (w, &m) in self.worlds.get().iter_mut().zip(&mu) {
                w.world.collision.set_friction(m);
            }
            Ok(())
        })
    }

    /// Each world's gravity (N, 3), m/s², on the robot and the free bodies.
    fn set_gravity(&mut self, gravity: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let g = self.per_world("gravity", gravity, 3, "(num_worlds, 3)", |_| true, "finite")?;
        guard("Batch.set_gravity", || {
            for i in 0..self.n {
                self.gravity[i] = Vec3::new(g[3 * i], g[3 * i + 1], g[3 * i + 2]);
                self.apply_physics(i)?;
            }
            Ok(())
        })
    }

    /// Each world's mass scale (N,), > 0: every body's mass and rotational inertia (the
    /// robot's links and the free bodies) times it, relative to the configuration's.
    fn set_mass_scale(&mut self, scale: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let s = self.per_world("scale", scale, 1, "(num_worlds,)", |s| s[0] > 0.0, "> 0")?;
        guard("Batch.set_mass_scale", || {
            for (i, &x) in s.iter().enumerate() {
                self.scale[i] = x;
                self.apply_physics(i)?;
            }
            Ok(())
        })
    }

    /// The state each world's `reset` returns to (N, nstate; its time ignored).
    fn set_initial_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let states = self.states("state", state)?;
        guard("Batch.set_initial_state", || {
            for (w, s) in self.worlds.get().iter_mut().zip(states.chunks_exact(self.nstate)) {
                w.set_initial(s).map_err(PyValueError::new_err)?;
            }
            Ok(())
        })
    }

    /// The worlds' states (N, nstate).
    #[pyo3(signature = (out=None))]
    fn get_state<'py>(&mut self, py: Python<'py>, out: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        self.check_open()?;
        guard("Batch.get_state", || {
            self.take_written()?;
            let (shape, nstate) = ([self.n, self.nstate], self.nstate);
            crate::arrays::emit(py, out, Shape::new(&shape, "(num_worlds, nstate)"), |o| {
                for (w, row) in self.worlds.get().iter().zip(o.chunks_exact_mut(nstate)) {
                    w.get_state(row);
                }
            })
        })
    }

    /// Sets the worlds' states (N, nstate): warm starts forgotten, flags cleared.
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.check_open()?;
        let states = self.states("state", state)?;
        guard("Batch.set_state", || {
            for (w, s) in self.worlds.get().iter_mut().zip(states.chunks_exact(self.nstate)) {
                w.set_state(s).map_err(PyValueError::new_err)?;
            }
            self.buffers.diverged.slice().fill(false);
            self.publish_all(true);
            Ok(())
        })
    }

    /// What the steps did since construction or `reset_stats()`, over every world: steps,
    /// unconverged (steps whose solve missed its tolerance), iterations, max_criterion (the
    /// largest NCP criterion ε_abs of a step, N), above_1e-6 (steps whose criterion exceeds
    /// 1e-6 N), contacts (summed over steps), divergences.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let sum = |f: fn(&Stats) -> u64| self.stats.iter().map(f).sum::<u64>();
        d.set_item("steps", sum(|s| s.steps))?;
        d.set_item("unconverged", sum(|s| s.unconverged))?;
        d.set_item("iterations", sum(|s| s.iterations))?;
        d.set_item("contacts", sum(|s| s.contacts))?;
        d.set_item("divergences", sum(|s| s.divergences))?;
        d.set_item("above_1e-6", sum(|s| s.above_goal))?;
        d.set_item("max_criterion", self.stats.iter().fold(0.0f64, |m, s| m.max(s.max_criterion)))?;
        Ok(d)
    }

    /// Zeroes the counters of `stats()`.
    fn reset_stats(&mut self) {
        self.stats.fill(Stats::default());
    }

    /// Frees the worlds; any later call raises ValueError("batch: closed"). The views stay
    /// valid (their last values).
    fn close(&mut self) {
        *self.worlds.get() = Vec::new();
        self.closed = true;
    }

    /// Test hook: the next step of world `world` panics in its worker thread (the test that
    /// a worker's panic becomes InternalError, not a crash).
    fn _fault(&mut self, world: i64) -> PyResult<()> {
        self.fault = Some(self.indices(Some(vec![world]))?[0]);
        Ok(())
    }
}

/// `mujoco.rollout`'s shape: from `initial_state` (N, nstate), T steps of each world under
/// `control` (N, T, nu); the state after each step (N, T, nstate), into `state` when given.
/// `world` is a Batch of N worlds (left at the final states, its views updated) or a
/// configuration path (a batch of N built for the call).
#[pyfunction]
#[pyo3(signature = (world, initial_state, control, state=None, num_threads=None))]
pub fn rollout<'py>(
    py: Python<'py>,
    world: &Bound<'py, PyAny>,
    initial_state: &Bound<'py, PyAny>,
    control: &Bound<'py, PyAny>,
    state: Option<&Bound<'py, PyAny>>,
    num_threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(batch) = world.cast::<Batch>() {
        let mut batch = batch.try_borrow_mut()?;
        let threads = num_threads.map_or(Ok(batch.threads), |k| thread_count(Some(k)))?;
        return batch.rollout(py, initial_state, control, state, threads);
    }
    let recipe = recipe_of(world, "a Batch, a World or a configuration path")?;
    let n = dims("initial_state", initial_state)?.first().copied().unwrap_or(0);
    let threads = thread_count(num_threads)?;
    let mut batch = guard("rollout", || Batch::build(&recipe, count("initial_state rows", n as i64)?, threads))?;
    batch.rollout(py, initial_state, control, state, threads)
}

impl Batch {
    fn rollout<'py>(
        &mut self,
        py: Python<'py>,
        initial_state: &Bound<'py, PyAny>,
        control: &Bound<'py, PyAny>,
        state: Option<&Bound<'py, PyAny>>,
        threads: usize,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.check_open()?;
        let states = self.states("initial_state", initial_state)?;
        let steps = match dims("control", control)?.as_slice() {
            [_, t, _] => *t,
            _ => 0,
        };
        let (cshape, sshape) = ([self.n, steps, self.nu], [self.n, steps, self.nstate]);
        let control = input("control", control, Shape::new(&cshape, "(num_worlds, T, nu)"))?;
        let sshape = Shape::new(&sshape, "(num_worlds, T, nstate)");
        let out = match state {
            Some(obj) => {
                output("state", obj, sshape)?;
                obj.clone()
            }
            None => PyArrayDyn::<f64>::zeros(py, sshape.dims, false).into_any(),
        };
        let mut record = output("state", &out, sshape)?;
        guard("rollout", || {
            for (w, s) in self.worlds.get().iter_mut().zip(states.chunks_exact(self.nstate)) {
                w.set_state(s).map_err(PyValueError::new_err)?;
            }
            self.buffers.diverged.slice().fill(false);
            let controls = Controls::Sequence(control.as_slice(), steps);
            self.run(py, controls, steps, threads, Some(record.as_slice_mut()))
        })?;
        drop(record);
        Ok(out)
    }
}

/// Registers the class and `rollout`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Batch>()?;
    m.add_function(wrap_pyfunction!(rollout, m)?)?;
    Ok(())
}
