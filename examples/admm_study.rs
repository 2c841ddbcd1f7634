//! Where seed 000's ADMM spends its iterations on the hard scenes, and what its settings
//! change (issue 28 item 3): a scenario of `signorini bench` (or the bundled quadruped
//! under seeded random torques, as scripts/bench_python.py drives it) simulated as the
//! bench does (warm-started, polish off, no fallback), with the ADMM's settings from the
//! command line; prints iterations per step (median, p99, max), unconverged steps, time
//! per step (median), and with `--history STEP` that step's problem re-solved cold with
//! `record_history`: its primal, dual and complementarity residuals every 10 iterations,
//! and when it does not converge, how its iterates drift and the NCP criterion of the
//! iterate every 100 iterations.
//!
//!   cargo run --release --example admm_study -- --scene cube-wall [--anderson 5] [--polish]
//!     [--contact-scaling 1] [--rule spectral|linear|osqp] [--step 0.05] [--ratio 10] [--eta 1e-6] [--power 0.2]
//!     [--no-block-scaling] [--preconditioned-spectrum] [--tolerance 1e-6] [--max 1000] [--steps N] [--history STEP] [--trace]
//!
//! `--scene quadruped-torques`: the quadruped settled 1 s under its hold PD, then torques
//! uniform in ±kp·0.1 rad (seed 1) every step for `--steps` (1000) steps.

use std::time::Instant;

use signorini::config::{ContactConfig, Fallback, PositiveF64};
use signorini::contact::cone::block;
use signorini::contact::{AdmmSettings, AdmmSolver, RhoRule, SolveResult, Solver, StoppingRule};
use signorini::scenes::{Sources, suite, worlds};
use signorini::sim::{Stepper, World};

const DT: f64 = 1e-3;
const CAPACITY: usize = 512;

struct Options {
    scene: String,
    admm: AdmmSettings,
    steps: Option<usize>,
    history: Option<usize>,
    trace: bool,
}

fn options() -> Options {
    let mut o =
        Options { scene: "cube-wall".into(), admm: AdmmSettings::default(), steps: None, history: None, trace: false };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    let num = |i: usize| -> f64 { args.get(i + 1).and_then(|s| s.parse().ok()).expect("a number after the option") };
    while i < args.len() {
        match args[i].as_str() {
            "--scene" => o.scene = args[i + 1].clone(),
            "--anderson" => o.admm.anderson = num(i) as usize,
            "--polish" => {
                o.admm.polish = true;
                i += 1;
                continue;
            }
            "--rule" => {
                o.admm.rule = match args[i + 1].as_str() {
                    "linear" => RhoRule::Linear { factor: 2.0 },
                    "osqp" => RhoRule::Osqp,
                    _ => o.admm.rule,
                }
            }
            "--step" => o.admm.rule = RhoRule::Spectral { step: num(i) },
            "--ratio" => o.admm.ratio = num(i),
            "--contact-scaling" => o.admm.contact_scaling = num(i),
            "--eta" => o.admm.eta = num(i),
            "--power" => o.admm.rho_power = num(i),
            "--tolerance" => o.admm.stop.absolute = num(i),
            "--max" => o.admm.stop.max_iterations = num(i) as usize,
            "--steps" => o.steps = Some(num(i) as usize),
            "--history" => o.history = Some(num(i) as usize),
            "--trace" => {
                o.trace = true;
                i += 1;
                continue;
            }
            "--preconditioned-spectrum" => {
                o.admm.preconditioned_spectrum = true;
                i += 1;
                continue;
            }
            "--no-block-scaling" => {
                o.admm.block_scaling = false;
                i += 1;
                continue;
            }
            other => panic!("unknown option {other}"),
        }
        i += 2;
    }
    o
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.is_empty() {
        return f64::NAN;
    }
    s[((s.len() - 1) as f64 * p).round() as usize]
}

type Drive = Box<dyn FnMut(&mut World, &mut [f64])>;

/// The world, its driver and the steps to run.
fn scene(o: &Options, sources: &Sources) -> (World, Drive, usize) {
    if o.scene == "quadruped-torques" {
        let (mut world, reference, (kp, kd)) = worlds::quadruped(sources, 0.0).expect("the quadruped");
        let mut hold = worlds::hold(&world, &reference, kp, kd);
        let contact = ContactConfig::default();
        let mut settle = Stepper::new(&world, DT, &contact.settings(), CAPACITY);
        let mut tau = vec![0.0; world.nv()];
        for _ in 0..1000 {
            worlds::pd(&world, &mut hold, &mut tau);
            settle.step(&mut world, &tau);
        }
        let limits: Vec<f64> = world.robot.as_ref().expect("a robot").model.effort_limit.iter().copied().collect();
        let mut draw = signorini::sampling::uniform(1);
        let drive: Drive = Box::new(move |_w, tau| {
            for (j, t) in tau.iter_mut().enumerate().skip(6) {
                let amp = (kp * 0.1).min(limits.get(j).copied().unwrap_or(f64::INFINITY).abs());
                *t = amp * (2.0 * draw() - 1.0);
            }
        });
        return (world, drive, o.steps.unwrap_or(1000));
    }
    let scenario = suite::by_name(&o.scene).expect("a scenario of the suite");
    let s = scenario.build(sources).expect("the scene");
    let steps = o.steps.unwrap_or(((scenario.duration / DT).round() as usize).max(1));
    let mut script = s.script;
    (s.world, Box::new(move |w, tau| script.drive(w, tau)), steps)
}

fn main() {
    let o = options();
    let sources = Sources::repository();
    let (mut world, mut drive, steps) = scene(&o, &sources);
    let contact = ContactConfig {
        tolerance: PositiveF64::new(o.admm.stop.absolute).expect("positive"),
        polish: false,
        fallback: Fallback::None,
        ..Default::default()
    };
    let blocks = Stepper::blocks(&world, CAPACITY);
    let admm = AdmmSettings {
        stop: StoppingRule { max_iterations: o.admm.stop.max_iterations, ..contact.stopping_rule() },
        ..o.admm
    };
    let mut stepper = Stepper::with_solver(
        &world,
        DT,
        &contact.settings(),
        CAPACITY,
        Box::new(AdmmSolver::with_capacity(blocks, admm)),
    );
    let mut tau = vec![0.0; world.nv()];
    let (mut iterations, mut times, mut unconverged, mut factorizations) = (Vec::new(), Vec::new(), 0, 0);
    for k in 0..steps {
        tau.fill(0.0);
        drive(&mut world, &mut tau);
        if o.history == Some(k) {
            // The previous state's problem is assembled in the step: run it, then re-solve.
            let t0 = Instant::now();
            let r = *stepper.step(&mut world, &tau);
            times.push(t0.elapsed().as_secs_f64() * 1e6);
            print_history(stepper.problem(), admm, r.iterations);
            iterations.push(r.iterations as f64);
            unconverged += usize::from(!r.converged && r.contacts > 0);
            continue;
        }
        let t0 = Instant::now();
        let r = *stepper.step(&mut world, &tau);
        times.push(t0.elapsed().as_secs_f64() * 1e6);
        if o.trace {
            println!("step {k}: contacts {} iterations {} converged {}", r.contacts, r.iterations, r.converged);
        }
        if r.contacts > 0 {
            iterations.push(r.iterations as f64);
            unconverged += usize::from(!r.converged);
            factorizations += r.factorizations;
        }
        if !world.is_finite() {
            println!("not finite at step {k}");
            break;
        }
    }
    println!(
        "{} contact_scaling {} preconditioned_spectrum {} anderson {} rule {:?} ratio {} eta {:e} p0 {} block_scaling {}: steps {} with contacts {}, iterations median {} p99 {} max {} mean {:.1}, unconverged {}, factorizations/step {:.2}, µs/step median {:.1}",
        o.scene,
        admm.contact_scaling,
        admm.preconditioned_spectrum,
        admm.anderson,
        admm.rule,
        admm.ratio,
        admm.eta,
        admm.rho_power,
        admm.block_scaling,
        steps,
        iterations.len(),
        percentile(&iterations, 0.5),
        percentile(&iterations, 0.99),
        percentile(&iterations, 1.0),
        iterations.iter().sum::<f64>() / iterations.len().max(1) as f64,
        unconverged,
        factorizations as f64 / iterations.len().max(1) as f64,
        percentile(&times, 0.5),
    );
}

/// The step's problem solved cold with the history on: residuals every 10 iterations.
fn print_history(problem: &signorini::contact::ContactProblem, admm: AdmmSettings, warm_iterations: usize) {
    let n = problem.contacts();
    let mut solver = AdmmSolver::with_capacity(n, AdmmSettings { record_history: true, ..admm });
    let mut result = SolveResult::with_capacity(n, admm.stop.max_iterations);
    solver.solve(problem, None, &mut result).expect("a solve");
    println!(
        "contacts {n}: warm {warm_iterations} iterations; cold {} iterations, converged {}, factorizations {}, ρ {:.3e}",
        result.stats.iterations, result.converged, result.stats.factorizations, result.rho
    );
    for (k, r) in result.stats.history.iter().enumerate() {
        if k % 10 == 0 || k + 1 == result.stats.history.len() {
            println!("  {:4} primal {:.3e} dual {:.3e} compl {:.3e}", k + 1, r.primal, r.dual, r.complementarity);
        }
    }
    if !result.converged {
        print_drift(problem, admm, result.stats.iterations);
    }
}

/// How an unconverged solve's iterates move at the end, and whether they solve the
/// problem all the same. ADMM on a problem without a bounded solution drifts along a
/// direction of recession (OSQP's infeasibility test, Banjac et al. 2019: δy = y_k −
/// y_{k−1} settles, in the cone, G·δy ≈ 0, gᵀδy < 0); on one with many solutions it can
/// drift along them (G·δy ≈ 0, δy not in the cone: impulses moved between contacts),
/// each iterate a solution, with a dual residual that measures the drift. The 15-cube
/// wall's unconverged step did the latter (the NCP test in the ADMM since).
fn print_drift(problem: &signorini::contact::ContactProblem, admm: AdmmSettings, iterations: usize) {
    let n = problem.contacts();
    let m = 3 * n;
    let solve = |k: usize| {
        let stop = StoppingRule { max_iterations: k, ..admm.stop };
        let mut solver = AdmmSolver::with_capacity(n, AdmmSettings { stop, ..admm });
        let mut r = SolveResult::with_capacity(n, 0);
        solver.solve(problem, None, &mut r).expect("a solve");
        r.lambda[..m].to_vec()
    };
    let (half, before, last) = (solve(iterations / 2), solve(iterations - 1), solve(iterations));
    let norm = |x: &[f64]| x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let delta: Vec<f64> = last.iter().zip(&before).map(|(a, b)| a - b).collect();
    let mean: Vec<f64> = last.iter().zip(&half).map(|(a, b)| (a - b) / (iterations - iterations / 2) as f64).collect();
    let cosine = {
        let dot: f64 = delta.iter().zip(&mean).map(|(a, b)| a * b).sum();
        let l2 = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
        dot / (l2(&delta) * l2(&mean)).max(f64::MIN_POSITIVE)
    };
    let (mut g_delta, mut zero) = (vec![0.0; m], vec![0.0; m]);
    problem.contact_velocity(&delta, &mut g_delta);
    problem.contact_velocity(&vec![0.0; m], &mut zero);
    for (a, b) in g_delta.iter_mut().zip(&zero) {
        *a -= b;
    }
    let g_dot: f64 = problem.g().iter().zip(&delta).map(|(a, b)| a * b).sum();
    let outside = (0..n)
        .map(|i| {
            let d = block(&delta, i);
            let p = problem.sets()[i].project(&d);
            (0..3).fold(0.0f64, |a, r| a.max((p[r] - d[r]).abs()))
        })
        .fold(0.0f64, f64::max);
    // The NCP criterion of an iterate y, as the ADMM's start test has it (velocity units).
    let criterion = |y: &[f64]| {
        let mut sigma = vec![0.0; m];
        problem.contact_velocity(y, &mut sigma);
        (0..n).map(|i| problem.sets()[i].ncp_error(true, &block(y, i), &block(&sigma, i)).0).fold(0.0f64, f64::max)
    };
    // Every 100 iterations, and the last: the ADMM's residuals can stay above the
    // tolerance while its iterate already solves the problem (the iterates drift along
    // non-unique solutions), which the solver's own NCP test catches.
    let every: Vec<String> = (100..iterations)
        .step_by(100)
        .map(|k| format!("{k}: {:.2e}", criterion(&solve(k))))
        .chain(std::iter::once(format!("{iterations}: {:.2e}", criterion(&last))))
        .collect();
    println!("NCP criterion of the iterate (start test, velocity units) at {}", every.join(", "));
    println!(
        "drift: |y| {:.3e} at {} and {:.3e} at {}; |δy| {:.3e}, the mean step since {} {:.3e} (cosine {:.4}); \
         |(G+R)δy| {:.3e}, gᵀδy {:.3e}, δy's distance to the cone {:.3e}",
        norm(&half),
        iterations / 2,
        norm(&last),
        iterations,
        norm(&delta),
        iterations / 2,
        norm(&mean),
        cosine,
        norm(&g_delta),
        g_dot,
        outside,
    );
}
