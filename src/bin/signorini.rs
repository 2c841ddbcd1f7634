//! The `signorini` command line.
//!
//! Exit codes: 0 success, 2 bad input (arguments, configuration, URDF), 1 anything else.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::{Parser, Subcommand};

use signorini::app::Setup;
use signorini::app::SimLoop;
use signorini::cli::sim::SimOptions;
use signorini::model::{MimicPolicy, Model, ModelOptions};
use signorini::runtime::status::{WatchedInput, status_line};
use signorini::runtime::{Counters, EmptyJob, Job, LoopReport, LoopSettings, LoopThread, mailbox};

/// Real-time frictional contact simulation and proximal inverse dynamics for ROS 2 robots.
#[derive(Parser, Debug)]
#[command(name = "signorini", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run the ROS 2 node (the default without a subcommand, e.g. under `ros2 run`).
    Node {
        /// Configuration file (else the ROS parameter `config_file`, else the packaged
        /// quadruped configuration).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Check a configuration and its URDF, and print what the node would run.
    Check {
        /// Configuration file.
        #[arg(long)]
        config: PathBuf,
    },
    /// Rigid-body dynamics of one state as JSON: RNEA, M, ABA, gravity, link placements.
    Dynamics {
        /// The robot's URDF.
        #[arg(long)]
        urdf: PathBuf,
        /// Add a free-flyer root joint (`root_joint`; q starts with x, y, z, qx, qy, qz, qw).
        #[arg(long)]
        floating_base: bool,
        /// A directory holding packages, for `package://` mesh URIs (repeatable).
        #[arg(long = "package-dir")]
        package_dirs: Vec<PathBuf>,
        /// Load mimic joints as independent joints (as Pinocchio does by default).
        #[arg(long)]
        mimic_independent: bool,
        /// Accept bodies whose inertia is not positive semi-definite.
        #[arg(long)]
        allow_invalid_inertia: bool,
        /// Input JSON: {"q": [...], "v": [...], "a": [...], "tau": [...]} (v, a, tau optional).
        #[arg(long)]
        input: PathBuf,
        /// Output JSON file (default: standard output).
        #[arg(long)]
        output: Option<PathBuf>,
    },
    /// Solve one contact problem given as JSON (G, g, mu, R); print the solution and its
    /// NCP criteria as JSON.
    Solve {
        /// Input JSON: {"G": [[...]], "g": [...], "mu": [...], "R": [...]} (R optional),
        /// contact blocks ordered (Tx, Ty, N).
        #[arg(long)]
        problem: PathBuf,
        /// `admm`, `pgs` or `lcp` (the pyramid LCP; `--mode` does not apply).
        #[arg(long, default_value = "admm", value_parser = solver_names())]
        solver: String,
        /// `ncp` (Signorini + Coulomb + maximum dissipation) or `ccp` (the convex relaxation).
        #[arg(long, default_value = "ncp", value_parser = ["ncp", "ccp"])]
        mode: String,
        /// Absolute tolerance of the residuals.
        #[arg(long, default_value_t = 1e-6)]
        tol: f64,
        /// Iteration cap.
        #[arg(long = "max-iter", default_value_t = 1000)]
        max_iter: usize,
    },
    /// Simulate the configured robot, environment and free bodies headless; print a summary.
    Sim {
        /// Configuration file.
        #[arg(long)]
        config: PathBuf,
        /// Simulated time (s).
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// Also write the summary as JSON to this file.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Pace the simulation on the wall clock instead of running as fast as possible.
        #[arg(long)]
        realtime: bool,
        /// Record a rosbag2 MCAP file of the run (/clock, /joint_states, odometry, contact wrenches).
        #[arg(long)]
        bag: Option<PathBuf>,
        /// Drive the robot by the inverse-dynamics controller towards the posture of
        /// `control:` (instead of the joint PD of `sim.hold_kp`/`hold_kd`).
        #[arg(long)]
        control: bool,
        /// The contact solver, in place of the configuration's `contact.solver`.
        #[arg(long, value_parser = solver_names())]
        solver: Option<String>,
    },
    /// Rosbag files: `bag recover IN OUT` rewrites a cut MCAP file (its writer killed, its
    /// disk full) with every message of its complete chunks and the summary and footer
    /// that seeking readers need.
    Bag {
        #[command(subcommand)]
        command: BagCommand,
    },
    /// Every contact solver on the scenario suite (seed 002's criteria): JSON, markdown
    /// tables and PNG figures into --out, and the `solvers` section of --doc.
    Bench {
        /// Solvers, comma-separated (`admm`, `admm:ncp`, `pgs:ccp`, …; default: all).
        #[arg(long, value_delimiter = ',')]
        solvers: Vec<String>,
        /// Scenarios, comma-separated (default: all; see src/scenes/suite.rs).
        #[arg(long, value_delimiter = ',')]
        scenarios: Vec<String>,
        /// Tolerances of the runs, comma-separated (default: 1e-4,1e-6,1e-8).
        #[arg(long, value_delimiter = ',')]
        tolerances: Vec<f64>,
        /// Results directory.
        #[arg(long, default_value = "docs/bench")]
        out: PathBuf,
        /// Markdown file whose `<!-- solvers:begin/end -->` section is rewritten.
        #[arg(long, default_value = "docs/BENCHMARKS.md")]
        doc: PathBuf,
        /// Do not touch --doc.
        #[arg(long)]
        no_doc: bool,
        /// Threads (default: all cores).
        #[arg(long, default_value_t = 0)]
        jobs: usize,
        /// Multiplies every scenario's duration.
        #[arg(long, default_value_t = 1.0)]
        duration_scale: f64,
        /// The directory holding urdf/quadruped.urdf.
        #[arg(long, default_value = ".")]
        robots: PathBuf,
        /// example-robot-data's `share` directory (default: $EXAMPLE_ROBOT_DATA_SHARE, then
        /// the project's .ros venv).
        #[arg(long)]
        example_robot_data: Option<PathBuf>,
        /// A TrueType font for the figures (default: DejaVu Sans).
        #[arg(long)]
        font: Option<PathBuf>,
    },
    /// Run the real-time loop without ROS for a while and print its timing every second.
    Loop {
        /// Configuration file.
        #[arg(long)]
        config: PathBuf,
        /// How long to run (s).
        #[arg(long, default_value_t = 10.0)]
        duration: f64,
        /// Run the configured loop (rate, priority, CPU) with a tick that does nothing: what
        /// this host's scheduler alone costs the loop, as cyclictest measures it, and the
        /// baseline for the node's own overruns.
        #[arg(long)]
        empty: bool,
    },
}

/// The contact solvers' names, for `--solver`.
fn solver_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(signorini::config::SolverKind::ALL.map(|s| s.name()))
}

/// The arguments meant for clap: everything except the `--ros-args … [--]` blocks that
/// `ros2 run` and launch files append (rcl reads those itself).
fn own_arguments() -> Vec<OsString> {
    let mut out = Vec::new();
    let mut in_ros_args = false;
    for a in std::env::args_os() {
        if a == "--ros-args" {
            in_ros_args = true;
        } else if in_ros_args && a == "--" {
            in_ros_args = false;
        } else if !in_ros_args {
            out.push(a);
        }
    }
    out
}

/// Counts the loop thread's heap allocations after start-up (reported on /diagnostics and
/// by `signorini loop`; zero by design).
#[global_allocator]
static ALLOCATOR: signorini::runtime::alloc_probe::CountingAllocator =
    signorini::runtime::alloc_probe::CountingAllocator;

#[derive(Subcommand, Debug)]
enum BagCommand {
    /// Rewrite the readable part of an MCAP file, with its summary and footer, into a new file.
    Recover {
        /// The cut (or whole) MCAP file.
        input: PathBuf,
        /// The file to write (not the input).
        output: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse_from(own_arguments());
    let command = cli.command.unwrap_or(Command::Node { config: None });
    let result = match command {
        Command::Node { config } => node(config),
        Command::Check { config } => check(&config),
        Command::Loop { config, duration, empty } => run_loop(&config, duration, empty),
        Command::Sim { config, duration, json, realtime, bag, control, solver } => {
            let solver = solver.as_deref().and_then(signorini::config::SolverKind::from_name);
            sim(&config, json.as_deref(), bag.as_deref(), solver, SimOptions { duration, realtime, control })
        }
        Command::Bag { command: BagCommand::Recover { input, output } } => recover_bag(&input, &output),
        Command::Solve { problem, solver, mode, tol, max_iter } => solve(&problem, &solver, &mode, tol, max_iter),
        Command::Bench {
            solvers,
            scenarios,
            tolerances,
            out,
            doc,
            no_doc,
            jobs,
            duration_scale,
            robots,
            example_robot_data,
            font,
        } => {
            let command = std::env::args().collect::<Vec<_>>().join(" ");
            let args = signorini::cli::bench::BenchArgs {
                solvers,
                scenarios,
                tolerances,
                out,
                doc: (!no_doc).then_some(doc),
                jobs,
                duration_scale,
                robots,
                example_robot_data,
                font,
                command,
            };
            bench(&args)
        }
        Command::Dynamics {
            urdf,
            floating_base,
            package_dirs,
            mimic_independent,
            allow_invalid_inertia,
            input,
            output,
        } => {
            let options = ModelOptions {
                floating_base,
                mimic: if mimic_independent { MimicPolicy::Independent } else { MimicPolicy::Error },
                package_dirs,
                skip_meshes: false,
                allow_invalid_inertia,
                ..Default::default()
            };
            dynamics(&urdf, &options, &input, output.as_deref())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::BadInput(msg)) => {
            eprintln!("signorini: error: {msg}");
            ExitCode::from(2)
        }
        Err(Failure::Other(msg)) => {
            eprintln!("signorini: error: {msg}");
            ExitCode::from(1)
        }
    }
}

fn bench(args: &signorini::cli::bench::BenchArgs) -> Result<(), Failure> {
    use signorini::bench::BenchError;
    match signorini::cli::bench::run(args) {
        Ok(results) => {
            println!(
                "signorini bench: {} runs and {} convergence curves in {:.0} s; results in {}{}",
                results.trajectories.len(),
                results.curves.len(),
                results.wall_s,
                args.out.display(),
                args.doc.as_ref().map_or(String::new(), |d| format!(", section of {}", d.display()))
            );
            Ok(())
        }
        Err(e @ (BenchError::Options(_) | BenchError::Scene { .. })) => Err(Failure::BadInput(e.to_string())),
        Err(e) => Err(Failure::Other(e.to_string())),
    }
}

enum Failure {
    BadInput(String),
    Other(String),
}

#[cfg(feature = "ros")]
fn node(config: Option<PathBuf>) -> Result<(), Failure> {
    use signorini::ros::{NodeError, NodeOptions};
    match signorini::ros::run(NodeOptions { config_file: config }) {
        Ok(summary) => {
            let r = &summary.report;
            println!(
                "signorini: stopped after {} ticks in {:.1} s | whole run: {}",
                r.total_ticks,
                r.window_seconds,
                r.status_line()
            );
            // One stable line for scripts and the ROS tests' teardown (tests/ros/conftest.py):
            // the loop thread's heap allocations after its first tick, by the counting
            // allocator below.
            let counted = r.loop_allocations.map_or("not counted".to_owned(), |n| n.to_string());
            println!("signorini: loop allocations after start-up: {counted}");
            Ok(())
        }
        Err(e @ NodeError::Interrupted { .. }) => {
            println!("signorini: {e}");
            Ok(())
        }
        Err(
            e @ (NodeError::Setup(_)
            | NodeError::Parameter { .. }
            | NodeError::NoConfig(_)
            | NodeError::NoDescription { .. }),
        ) => Err(Failure::BadInput(e.to_string())),
        Err(e) => Err(Failure::Other(e.to_string())),
    }
}

#[cfg(not(feature = "ros"))]
fn node(_config: Option<PathBuf>) -> Result<(), Failure> {
    Err(Failure::Other("this build has no ROS 2 support (built without the `ros` feature)".into()))
}

fn load(config: &std::path::Path) -> Result<Setup, Failure> {
    Setup::load(config, None).map_err(|e| Failure::BadInput(e.to_string()))
}

fn check(config: &std::path::Path) -> Result<(), Failure> {
    let s = load(config)?;
    let c = &s.config;
    let world = s.collision_world().map_err(|e| Failure::BadInput(e.to_string()))?;
    println!("configuration {}: ok", config.display());
    println!("  mode {}, {} Hz, controller `{}`", c.mode, c.rate_hz.get(), c.controller);
    println!(
        "  robot `{}` from {}: {} links, {} joints ({} movable), root `{}`{}",
        s.robot.name,
        s.robot.origin,
        s.robot.links.len(),
        s.robot.joints.len(),
        s.robot.movable_joints().count(),
        s.robot.root_link(),
        if c.robot.floating_base { ", floating base" } else { "" }
    );
    println!(
        "  model: nq {}, nv {}, {} joints, {} frames, {} collision shapes, total mass {:.3} kg",
        s.model.nq,
        s.model.nv,
        s.model.njoints() - 1,
        s.model.nframes(),
        s.model.collision_geometries.len(),
        s.model.total_mass()
    );
    let robot = world.objects().iter().filter(|o| matches!(o.owner, signorini::collision::Owner::Robot { .. })).count();
    let environment: Vec<&str> = world
        .objects()
        .iter()
        .filter(|o| o.owner == signorini::collision::Owner::Static)
        .map(|o| o.name.as_str())
        .collect();
    println!(
        "  collision: {robot} robot shapes, environment [{}], margin {} m, self-collision {}",
        environment.join(", "),
        c.collision.margin.get(),
        if c.collision.self_collision { "on" } else { "off" }
    );
    let k = &c.contact;
    println!(
        "  contact: {} for the {}, tolerance {:e}, max {} iterations, compliance {} / {} m/N (normal / tangential)",
        k.solver.name(),
        // The model the solver enforces (chrono-admm and sap solve the CCP whatever
        // `contact.model` says).
        match k.settings().build_solver(1).model() {
            signorini::contact::ContactModel::Lcp => "pyramid LCP",
            signorini::contact::ContactModel::Ncp => "NCP",
            signorini::contact::ContactModel::Ccp => "CCP",
        },
        k.tolerance.get(),
        k.max_iterations,
        k.compliance_normal.get(),
        k.compliance_tangential.get()
    );
    println!("  controlled joints (command and /joint_states order):");
    for (name, q0) in s.joint_names.iter().zip(&s.initial_positions) {
        println!("    {name:<24} initial {q0:+.4}");
    }
    println!(
        "  topics: {} {} {} ; commands {}",
        c.topics.clock,
        c.topics.joint_states,
        c.topics.diagnostics,
        c.commands_topic()
    );
    Ok(())
}

fn dynamics(
    urdf: &std::path::Path,
    options: &ModelOptions,
    input: &std::path::Path,
    output: Option<&std::path::Path>,
) -> Result<(), Failure> {
    use signorini::cli::dynamics::{evaluate, parse_input};
    let model = Model::from_urdf_file(urdf, options).map_err(|e| Failure::BadInput(e.to_string()))?;
    let text = std::fs::read_to_string(input)
        .map_err(|e| Failure::BadInput(format!("{}: cannot read: {e}", input.display())))?;
    let parsed =
        parse_input(&text, &input.display().to_string(), &model).map_err(|e| Failure::BadInput(e.to_string()))?;
    let json = serde_json::to_string_pretty(&evaluate(&model, &parsed)).map_err(|e| Failure::Other(e.to_string()))?;
    match output {
        Some(path) => std::fs::write(path, json + "\n")
            .map_err(|e| Failure::Other(format!("{}: cannot write: {e}", path.display()))),
        None => {
            println!("{json}");
            Ok(())
        }
    }
}

fn solve(problem: &std::path::Path, solver: &str, mode: &str, tol: f64, max_iter: usize) -> Result<(), Failure> {
    use signorini::cli::solve::{SolveOptions, parse_input, solve};
    use signorini::config::SolverKind;
    use signorini::contact::ContactModel;
    if !(tol.is_finite() && tol > 0.0) {
        return Err(Failure::BadInput(format!("--tol: expected a positive number, got {tol}")));
    }
    if max_iter == 0 {
        return Err(Failure::BadInput("--max-iter: expected at least 1".into()));
    }
    let text = std::fs::read_to_string(problem)
        .map_err(|e| Failure::BadInput(format!("{}: cannot read: {e}", problem.display())))?;
    let parsed = parse_input(&text, &problem.display().to_string()).map_err(|e| Failure::BadInput(e.to_string()))?;
    let options = SolveOptions {
        solver: SolverKind::from_name(solver).unwrap_or_default(),
        model: if mode == "ccp" { ContactModel::Ccp } else { ContactModel::Ncp },
        tolerance: tol,
        max_iterations: max_iter,
    };
    let output = solve(&parsed, &options).map_err(|e| Failure::Other(e.to_string()))?;
    let json = serde_json::to_string_pretty(&output).map_err(|e| Failure::Other(e.to_string()))?;
    println!("{json}");
    Ok(())
}

fn sim(
    config: &std::path::Path,
    json: Option<&std::path::Path>,
    bag: Option<&std::path::Path>,
    solver: Option<signorini::config::SolverKind>,
    options: SimOptions,
) -> Result<(), Failure> {
    use signorini::cli::sim::{SimError, run};
    let duration = options.duration;
    if !(duration.is_finite() && duration > 0.0) {
        return Err(Failure::BadInput(format!("--duration: expected a positive number of seconds, got {duration}")));
    }
    let mut s = load(config)?;
    if let Some(solver) = solver {
        s.config.contact.solver = solver;
    }
    let interrupts = signorini::cli::interrupt::Interrupts::install();
    let summary =
        run(&s, &options, bag, interrupts.flag(), |line| eprintln!("signorini sim: {line}")).map_err(|e| match e {
            SimError::Setup(e) => Failure::BadInput(e.to_string()),
            e => Failure::Other(e.to_string()),
        })?;
    drop(interrupts);
    if summary.interrupted {
        println!("signorini sim: interrupted at t = {:.3} s; the bag (if any) is finished", summary.sim_time_s);
    }
    println!(
        "signorini sim: {} and {} free bodies, {:.3} s in {} steps of {} s\n  \
         wall {:.3} s, {:.0} steps/s, real-time factor {:.1}\n  \
         solver iterations mean {:.2}, max {} ({} steps not converged); contacts mean {:.1}, max {}\n  \
         max penetration {:.3e} m, max NCP criterion {:.3e}",
        summary.robot,
        summary.bodies,
        summary.sim_time_s,
        summary.steps,
        summary.dt,
        summary.wall_time_s,
        summary.steps_per_s,
        summary.realtime_factor,
        summary.iterations_mean,
        summary.iterations_max,
        summary.not_converged,
        summary.contacts_mean,
        summary.contacts_max,
        summary.max_penetration_m,
        summary.max_eps_abs
    );
    if summary.contacts_dropped > 0 {
        println!(
            "  {} contacts dropped in {} steps: more than collision.max_contacts were found (the deepest kept)",
            summary.contacts_dropped, summary.steps_with_dropped_contacts
        );
    }
    if let (Some(path), Some(messages)) = (bag, summary.bag_messages) {
        println!("  bag {}: {messages} messages", path.display());
    }
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&summary).map_err(|e| Failure::Other(e.to_string()))?;
        std::fs::write(path, text).map_err(|e| Failure::Other(format!("{}: cannot write: {e}", path.display())))?;
    }
    Ok(())
}

fn recover_bag(input: &std::path::Path, output: &std::path::Path) -> Result<(), Failure> {
    let r = signorini::bag::recover(input, output).map_err(|e| Failure::Other(e.to_string()))?;
    let how = r.cut.map_or("it was finished".to_owned(), |why| format!("reading stopped there: {why}"));
    println!(
        "signorini bag recover: {} messages on {} channels from {} complete chunks of {} written to {}; {how}",
        r.messages,
        r.channels,
        r.chunks,
        input.display(),
        output.display()
    );
    Ok(())
}

fn run_loop(config: &std::path::Path, duration: f64, empty: bool) -> Result<(), Failure> {
    if !(duration.is_finite() && duration > 0.0) {
        return Err(Failure::BadInput(format!("--duration: expected a positive number of seconds, got {duration}")));
    }
    let s = load(config)?;
    let counters = Arc::new(Counters::default());
    let settings = s.config.loop_settings("signorini-loop");
    if empty {
        return time_loop(settings, EmptyJob, duration, &counters, || ());
    }
    // The simulator as the node runs it, with nothing on its inputs (the hold PD).
    let SimLoop { job, commands: _commands, joint_commands: _joint_commands, ends } =
        SimLoop::new(&s, counters.clone()).map_err(|e| Failure::BadInput(e.to_string()))?;
    let mut consumer = ends.samples;
    time_loop(settings, job, duration, &counters, move || while consumer.pop_with(|_| ()) {})
}

/// Runs `job` on the loop thread for `duration` seconds, calling `drain` every 20 ms (the
/// consumer side of the job's outputs) and printing each window's status line, then the
/// whole run's.
fn time_loop<J: Job + 'static>(
    settings: LoopSettings,
    job: J,
    duration: f64,
    counters: &Counters,
    mut drain: impl FnMut(),
) -> Result<(), Failure> {
    let (report_writer, mut reports) = mailbox(LoopReport::default());
    let shutdown = Arc::new(AtomicBool::new(false));
    let loop_thread = LoopThread::spawn(settings, job, shutdown.clone(), report_writer)
        .map_err(|e| Failure::Other(format!("starting the loop thread: {e}")))?;
    for w in &loop_thread.startup_warnings {
        eprintln!("signorini: warning: {w}");
    }
    let stop_at = std::time::Instant::now() + Duration::from_secs_f64(duration);
    let mut seen = 0;
    while std::time::Instant::now() < stop_at && !shutdown.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
        drain();
        let r = reports.latest();
        if r.sequence > seen {
            seen = r.sequence;
            let watched = WatchedInput::effort_command();
            println!("{}", status_line(&r.value, &counters.snapshot(), counters.input_freshness(), &watched));
        }
    }
    let (_, run) = loop_thread.stop().map_err(|_| Failure::Other("the loop thread panicked".into()))?;
    println!(
        "whole run: {} ticks in {:.1} s, {} missed periods | {}",
        run.total_ticks,
        run.window_seconds,
        run.total_missed_periods,
        run.status_line()
    );
    Ok(())
}
