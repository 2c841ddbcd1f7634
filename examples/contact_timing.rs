//! Contact solve times and iterations, cold and warm, ADMM and PGS, on the Pinocchio
//! fixtures and the stacks of `signorini::scenes::problems` (same timing method as the other
//! examples: batches ≥ 2 ms, median per-call time).
//!
//!   cargo run --release --example contact_timing -- [--tol 1e-6] [--rounds 15]
//!       [--json OUT.json] [--export DIR] [--history DIR]
//!
//! `--export DIR` writes each problem in the `signorini solve` format (plus the name and our
//! λ) for scripts/bench_contact.py to give to Pinocchio's ADMM; `--history DIR` writes the
//! NCP criterion ε_abs after each iteration of ADMM (spectral ρ), ADMM (linear ρ) and PGS
//! (run to 1e-12) for the convergence plot. `--json` writes the table as JSON. A warm solve
//! starts from the solver's own converged solution (λ, z and, for ADMM, the penalty
//! exponent): the steady state of a resting contact.

use std::hint::black_box;
use std::path::PathBuf;

use signorini::contact::{
    AdmmSettings, AdmmSolver, ContactModel, ContactProblem, Metrics, PgsSettings, PgsSolver, RhoRule, SolveResult,
    Solver, StoppingRule, WarmStart,
};

use signorini::scenes::{Sources, problems};

mod common;

struct Options {
    tol: f64,
    rounds: usize,
    json: Option<PathBuf>,
    export: Option<PathBuf>,
    history: Option<PathBuf>,
}

fn options() -> Result<Options, String> {
    let mut o = Options { tol: 1e-6, rounds: 15, json: None, export: None, history: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--tol" => o.tol = value()?.parse().map_err(|e| format!("--tol: {e}"))?,
            "--rounds" => o.rounds = value()?.parse().map_err(|e| format!("--rounds: {e}"))?,
            "--json" => o.json = Some(value()?.into()),
            "--export" => o.export = Some(value()?.into()),
            "--history" => o.history = Some(value()?.into()),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    Ok(o)
}

fn stop(tol: f64, max_iterations: usize) -> StoppingRule {
    StoppingRule { absolute: tol, max_iterations, ..Default::default() }
}

fn admm(n: usize, tol: f64, rule: RhoRule, max_iterations: usize) -> AdmmSolver {
    AdmmSolver::with_capacity(n, AdmmSettings { stop: stop(tol, max_iterations), rule, ..Default::default() })
}

fn pgs(n: usize, tol: f64, max_iterations: usize) -> PgsSolver {
    PgsSolver::with_capacity(n, PgsSettings { stop: stop(tol, max_iterations), ..Default::default() })
}

struct Timed {
    us: f64,
    iterations: usize,
    converged: bool,
    factorizations: usize,
    eps_abs: f64,
}

fn time(solver: &mut dyn Solver, p: &ContactProblem, warm: Option<&WarmStart>, rounds: usize) -> (Timed, SolveResult) {
    let mut r = SolveResult::with_capacity(p.contacts(), 0);
    solver.solve(p, warm, &mut r).unwrap();
    let us = common::median_us(
        |_| {
            solver.solve(black_box(p), warm, &mut r).unwrap();
        },
        rounds,
    );
    let mut sigma = vec![0.0; 3 * p.contacts()];
    let m = Metrics::evaluate(p, &r.lambda, 1.0, ContactModel::Ncp, &mut sigma);
    let t = Timed {
        us,
        iterations: r.stats.iterations,
        converged: r.converged,
        factorizations: r.stats.factorizations,
        eps_abs: m.eps_abs,
    };
    (t, r)
}

/// ε_abs of the k-th iterate for k = 1..=max (each from a cold solve capped at k
/// iterations: the solvers are deterministic). Stops once the solver converges.
fn history(mut make: impl FnMut(usize) -> Box<dyn Solver>, p: &ContactProblem, max: usize) -> Vec<f64> {
    let mut out = Vec::new();
    let mut r = SolveResult::with_capacity(p.contacts(), 0);
    let mut sigma = vec![0.0; 3 * p.contacts()];
    for k in 1..=max {
        make(k).solve(p, None, &mut r).unwrap();
        out.push(Metrics::evaluate(p, &r.lambda, 1.0, ContactModel::Ncp, &mut sigma).eps_abs);
        if r.converged || r.stats.iterations < k {
            break;
        }
    }
    out
}

fn main() {
    let o = match options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("contact_timing: {e}");
            std::process::exit(2);
        }
    };
    let spectral = AdmmSettings::default().rule;
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for (key, scene) in problems::benchmark_problems(&Sources::repository()).expect("the problems build") {
        let p = &scene.problem;
        let n = p.contacts();
        let max = StoppingRule::default().max_iterations;
        let (admm_cold, admm_result) = time(&mut admm(n, o.tol, spectral, max), p, None, o.rounds);
        let warm = WarmStart::from_result(&admm_result);
        let (admm_warm, _) = time(&mut admm(n, o.tol, spectral, max), p, Some(&warm), o.rounds);
        let (pgs_cold, pgs_result) = time(&mut pgs(n, o.tol, max), p, None, o.rounds);
        let warm_pgs = WarmStart::from_result(&pgs_result);
        let (pgs_warm, _) = time(&mut pgs(n, o.tol, max), p, Some(&warm_pgs), o.rounds);
        let cell =
            |t: &Timed| format!("{:.2} ({}{})", t.us, t.iterations, if t.converged { "" } else { ", not converged" });
        rows.push(format!(
            "| {} | {n} | {} | {} | {} | {} |",
            scene.name,
            cell(&admm_cold),
            cell(&admm_warm),
            cell(&pgs_cold),
            cell(&pgs_warm)
        ));
        let json = |t: &Timed| {
            serde_json::json!({"us": t.us, "iterations": t.iterations, "converged": t.converged,
                "factorizations": t.factorizations, "eps_abs": t.eps_abs})
        };
        records.push(serde_json::json!({
            "key": key, "name": scene.name, "contacts": n,
            "admm_cold": json(&admm_cold), "admm_warm": json(&admm_warm),
            "pgs_cold": json(&pgs_cold), "pgs_warm": json(&pgs_warm),
        }));
        if let Some(dir) = &o.export {
            let m = 3 * n;
            let rows: Vec<&[f64]> = p.delassus().chunks(m).collect();
            let mu: Vec<f64> = p.sets().iter().map(|s| s.friction()).collect();
            let doc = serde_json::json!({
                "name": scene.name, "G": rows, "g": p.g(), "mu": mu, "R": p.compliance(),
                "signorini_lambda": admm_result.lambda,
            });
            write(&dir.join(format!("{key}.json")), &doc.to_string());
        }
        if let Some(dir) = &o.history {
            // Past the operating tolerance, to show the rates.
            let (cap, tol) = (if n > 50 { 300 } else { 150 }, 1e-12);
            let linear = RhoRule::Linear { factor: 2.0 };
            let doc = serde_json::json!({
                "name": scene.name, "contacts": n, "tolerance": o.tol,
                "admm_spectral": history(|k| Box::new(admm(n, tol, spectral, k)), p, cap),
                "admm_linear": history(|k| Box::new(admm(n, tol, linear, k)), p, cap),
                "pgs": history(|k| Box::new(pgs(n, tol, k)), p, cap),
            });
            write(&dir.join(format!("{key}.json")), &doc.to_string());
        }
    }
    println!(
        "Tolerance {:e} (absolute, NCP); µs (iterations); warm = from the solver's own solution.\n\n\
         | problem | contacts | ADMM cold | ADMM warm | PGS cold | PGS warm |\n|---|---:|---:|---:|---:|---:|\n{}",
        o.tol,
        rows.join("\n")
    );
    if let Some(path) = &o.json {
        write(path, &serde_json::Value::Array(records).to_string());
    }
}

fn write(path: &std::path::Path, text: &str) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(path, text) {
        eprintln!("contact_timing: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
}
