//! Criterion benches of the contact solvers (ADMM and PGS, NCP, tolerance 1e-6), cold and
//! warm-started from their own solution, on `signorini::scenes::problems::benchmark_problems`.
//! The ratios against Pinocchio's ADMM are measured by scripts/bench_contact.py.
//!
//!   cargo bench --features bench --bench contact        (make bench)

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use signorini::contact::{AdmmSettings, AdmmSolver, PgsSettings, PgsSolver, SolveResult, Solver, WarmStart};
use signorini::scenes::{Sources, problems};

fn solves(c: &mut Criterion) {
    let problems = problems::benchmark_problems(&Sources::repository()).expect("the problems build");
    let mut g = c.benchmark_group("contact solve");
    g.sample_size(20);
    for (_, scene) in &problems {
        let p = &scene.problem;
        let n = p.contacts();
        let solvers: [Box<dyn Solver>; 2] = [
            Box::new(AdmmSolver::with_capacity(n, AdmmSettings::default())),
            Box::new(PgsSolver::with_capacity(n, PgsSettings::default())),
        ];
        for mut solver in solvers {
            let mut r = SolveResult::with_capacity(n, 0);
            solver.solve(p, None, &mut r).unwrap();
            if !r.converged {
                continue; // PGS on the ill-conditioned stacks: timed to its cap, not a solve.
            }
            let warm = WarmStart::from_result(&r);
            let name = format!("{} {} ({n} contacts)", solver.name(), scene.name);
            g.bench_function(format!("{name} cold"), |b| b.iter(|| solver.solve(black_box(p), None, &mut r)));
            g.bench_function(format!("{name} warm"), |b| b.iter(|| solver.solve(black_box(p), Some(&warm), &mut r)));
        }
    }
    g.finish();
}

criterion_group!(benches, solves);
criterion_main!(benches);
