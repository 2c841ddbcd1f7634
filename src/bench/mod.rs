//! `signorini bench`: every contact solver on the scenario suite, measured on one
//! yardstick (issue 9; seed 002's criteria and scenarios, seed 000 Fig. 4 and 7).
//!
//! For each scenario ([`crate::scenes::suite`]) and each solver variant (a solver, with the NCP or
//! the CCP where it has both), at each tolerance: a trajectory run ([`run::trajectory`]).
//! The reference run — seed 000's ADMM on the NCP at the tightest tolerance — goes
//! first; its positions are what the trajectory error of the others is measured
//! against, and two of its contact problems (the one with the most contacts and the last
//! one) are solved cold by every variant with growing iteration budgets
//! ([`run::curve`]). [`report`] writes the JSON, the markdown tables and the section of
//! docs/BENCHMARKS.md; [`plots`] the PNG figures: convergence curves, time against
//! accuracy, and performance profiles (Dolan–Moré).
//!
//! Runs are spread over `jobs` threads, each run on one thread (the timings are of one
//! core); a progress bar goes to the terminal.

pub mod plots;
pub mod progress;
pub mod report;
pub mod run;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;

use crate::config::SolverKind;
use crate::contact::ContactModel;

use crate::scenes::suite::Scenario;
use crate::scenes::{SceneError, Sources};

pub use run::{Curve, Point, Trajectory};

/// What can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// A scene that cannot be built (a robot file missing, ...).
    #[error("scenario `{scenario}`: {message}")]
    Scene {
        /// The scenario.
        scenario: String,
        /// What is wrong.
        message: String,
    },
    /// Bad options.
    #[error("{0}")]
    Options(String),
    /// Writing the results.
    #[error("{path}: {message}")]
    Output {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
}

impl From<SceneError> for BenchError {
    fn from(e: SceneError) -> Self {
        BenchError::Scene { scenario: e.scene, message: e.message }
    }
}

/// A solver and the contact model it is asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Variant {
    /// The solver.
    #[serde(serialize_with = "serialize_solver")]
    pub solver: SolverKind,
    /// The model asked for (solvers of one model ignore it; see [`Variant::label`]).
    #[serde(serialize_with = "serialize_model")]
    pub model: ContactModel,
}

fn serialize_model<S: serde::Serializer>(model: &ContactModel, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match model {
        ContactModel::Ncp => "ncp",
        ContactModel::Ccp => "ccp",
        ContactModel::Lcp => "lcp",
    })
}

fn serialize_solver<S: serde::Serializer>(kind: &SolverKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

impl Variant {
    /// Whether the solver has both models (admm, pgs, vfpi, vfpi-block).
    pub fn has_both_models(solver: SolverKind) -> bool {
        matches!(solver, SolverKind::Admm | SolverKind::Pgs | SolverKind::Vfpi | SolverKind::VfpiBlock)
    }

    /// "admm NCP", "sap" (which solves its CCP whatever is asked), "lcp".
    pub fn label(&self) -> String {
        if Self::has_both_models(self.solver) {
            format!("{} {}", self.solver.name(), if self.model == ContactModel::Ccp { "CCP" } else { "NCP" })
        } else {
            self.solver.name().to_owned()
        }
    }

    /// Every variant: the solvers with both models twice.
    pub fn all() -> Vec<Variant> {
        Self::of(&SolverKind::ALL)
    }

    /// The variants of `solvers`.
    pub fn of(solvers: &[SolverKind]) -> Vec<Variant> {
        let mut out = Vec::new();
        for &solver in solvers {
            if Self::has_both_models(solver) {
                out.push(Variant { solver, model: ContactModel::Ncp });
                out.push(Variant { solver, model: ContactModel::Ccp });
            } else {
                let model = if solver == SolverKind::Lcp { ContactModel::Lcp } else { ContactModel::Ccp };
                out.push(Variant { solver, model });
            }
        }
        out
    }

    /// Parses `admm`, `admm:ncp`, `pgs:ccp`, … (a solver alone: all its models).
    pub fn parse(text: &str) -> Result<Vec<Variant>, BenchError> {
        let (name, model) = match text.split_once(':') {
            Some((n, m)) => (n, Some(m)),
            None => (text, None),
        };
        let solver = SolverKind::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = SolverKind::ALL.iter().map(|s| s.name()).collect();
            BenchError::Options(format!("--solvers: unknown solver `{name}` (one of {})", names.join(", ")))
        })?;
        let all = Self::of(&[solver]);
        match model {
            None => Ok(all),
            Some(m) => {
                let model = match m {
                    "ncp" => ContactModel::Ncp,
                    "ccp" => ContactModel::Ccp,
                    _ => return Err(BenchError::Options(format!("--solvers: `{text}`: the model is ncp or ccp"))),
                };
                if !Self::has_both_models(solver) {
                    return Err(BenchError::Options(format!("--solvers: `{name}` has one model; drop `:{m}`")));
                }
                Ok(all.into_iter().filter(|v| v.model == model).collect())
            }
        }
    }

    /// Seed 000's ADMM on the NCP: the reference.
    pub const REFERENCE: Variant = Variant { solver: SolverKind::Admm, model: ContactModel::Ncp };
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Options {
    /// Scenarios.
    pub scenarios: Vec<Scenario>,
    /// Solver variants.
    pub variants: Vec<Variant>,
    /// Tolerances of the trajectory runs.
    pub tolerances: Vec<f64>,
    /// Durations are multiplied by this (1: the scenarios' own).
    pub duration_scale: f64,
    /// Threads.
    pub jobs: usize,
    /// Where robots come from.
    pub sources: Sources,
}

/// Everything measured.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// When and where (free text).
    pub measured: String,
    /// Scenario names and their one-line descriptions.
    pub scenarios: Vec<(String, String)>,
    /// Tolerances of the trajectory runs.
    pub tolerances: Vec<f64>,
    /// Trajectory runs.
    pub trajectories: Vec<Trajectory>,
    /// Convergence curves.
    pub curves: Vec<Curve>,
    /// Wall time of the whole benchmark (s).
    pub wall_s: f64,
}

/// Runs the benchmark; `progress` is told of every finished run.
pub fn run(options: &Options, progress: &mut dyn progress::Progress) -> Result<Results, BenchError> {
    if options.scenarios.is_empty() || options.variants.is_empty() || options.tolerances.is_empty() {
        return Err(BenchError::Options("nothing to run: no scenario, solver or tolerance".into()));
    }
    let started = std::time::Instant::now();
    let tightest = options.tolerances.iter().copied().fold(f64::INFINITY, f64::min);
    let (scenarios, sources, scale) = (&options.scenarios, &options.sources, options.duration_scale);

    // 1. The reference runs: their positions and problems are needed by the others.
    let mut runs = Vec::new();
    for s in 0..scenarios.len() {
        for &v in &options.variants {
            for &t in &options.tolerances {
                if !(v == Variant::REFERENCE && t == tightest) {
                    runs.push((s, v, t));
                }
            }
        }
    }
    progress.start(scenarios.len() + runs.len());
    let firsts = parallel(options.jobs, &(0..scenarios.len()).collect::<Vec<_>>(), progress, |&s| {
        let what = format!("{} {} {tightest:e} (reference)", scenarios[s].name, Variant::REFERENCE.label());
        let r = run::trajectory(&scenarios[s], sources, Variant::REFERENCE, tightest, scale, None, true);
        (r, what)
    })?;
    let (mut trajectories, references): (Vec<Trajectory>, Vec<Option<run::Reference>>) = firsts
        .into_iter()
        .map(|(mut t, kept)| {
            t.drift = Some(0.0);
            (t, kept)
        })
        .unzip();

    // 2. Every other run, against its reference.
    let others = parallel(options.jobs, &runs, progress, |&(s, v, t)| {
        let what = format!("{} {} {t:e}", scenarios[s].name, v.label());
        let r = run::trajectory(&scenarios[s], sources, v, t, scale, references[s].as_ref(), false);
        (r.map(|(t, _)| t), what)
    })?;
    trajectories.extend(others);
    progress.finish();
    let order = |t: &Trajectory| {
        (
            scenarios.iter().position(|s| s.name == t.scenario),
            options.variants.iter().position(|v| *v == t.variant),
            options.tolerances.iter().position(|&x| x == t.tolerance),
        )
    };
    trajectories.sort_by_key(order);

    // 3. The reference runs' problems, solved cold by every variant.
    let mut problems = Vec::new();
    for (s, r) in references.iter().enumerate() {
        for (p, _) in r.iter().flat_map(|r| r.problems.iter()).enumerate() {
            for &v in &options.variants {
                problems.push((s, p, v));
            }
        }
    }
    progress.start(problems.len());
    let curves = parallel(options.jobs, &problems, progress, |&(s, p, v)| {
        let name = scenarios[s].name;
        match references[s].as_ref().and_then(|r| r.problems.get(p)) {
            Some((what, problem, dt)) => {
                (run::curve(name, what, problem, *dt, v), format!("{name} ({what}) {}", v.label()))
            }
            None => (Err(BenchError::Options(format!("{name}: no problem {p}"))), String::new()),
        }
    })?;
    progress.finish();

    Ok(Results {
        measured: String::new(),
        scenarios: scenarios.iter().map(|s| (s.name.to_owned(), s.about.to_owned())).collect(),
        tolerances: options.tolerances.clone(),
        trajectories,
        curves,
        wall_s: started.elapsed().as_secs_f64(),
    })
}

/// `work` over `items` on `jobs` threads, in the items' order; `progress` hears of each
/// one done (by the description `work` returns). The first error is returned.
fn parallel<I: Sync, O: Send>(
    jobs: usize,
    items: &[I],
    progress: &mut dyn progress::Progress,
    work: impl Fn(&I) -> (Result<O, BenchError>, String) + Sync,
) -> Result<Vec<O>, BenchError> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Result<O, BenchError>)>> = Mutex::new(Vec::with_capacity(items.len()));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.max(1) {
            let tx = tx.clone();
            let (next, results, work) = (&next, &results, &work);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let (r, what) = work(item);
                    if let Ok(mut out) = results.lock() {
                        out.push((i, r));
                    }
                    let _ = tx.send(what);
                }
            });
        }
        drop(tx);
        for what in rx {
            progress.advance(&what);
        }
    });
    let mut results = results.into_inner().map_err(|_| BenchError::Options("a benchmark thread panicked".into()))?;
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
