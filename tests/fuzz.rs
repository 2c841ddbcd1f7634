//! Fuzzing the inputs that come from outside (issue 10): URDF, the YAML configuration, mesh
//! files, and the messages the node accepts (effort commands, joint states, joint
//! trajectories). Mutation-based from seed inputs (the shipped robots and configurations,
//! meshes of each format) and structured random messages, from a fixed seed so that a
//! failure reproduces. For every case: no panic, no single allocation above 256 MB (an
//! unbounded allocation would abort the process: the test fails with it), no case slower
//! than 2 s (a hang shows as a slow case or a test that never ends), and a rejected input
//! has a one-line message that names its file (or is a typed rejection for messages);
//! an accepted robot has finite dynamics at its neutral configuration, an accepted
//! configuration takes one simulator step and one controller tick in the loop assembly
//! with finite outputs, an accepted trajectory finite samples. A case still running after
//! [`HANG`] aborts the test binary naming it (a hang would otherwise never end the test).
//!
//! Cases per target: $SIGNORINI_FUZZ_CASES (default 100 000), spread over the cores. A
//! failing input is written to the temporary directory and named in the failure.

mod common;
mod counting;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use signorini::app::{ExternalWrenches, Outputs, Setup, SetupError, SimAndControlLoop, SimLoop, WrenchTargets};
use signorini::collision::{CollisionShape, CollisionWorld, load_mesh};
use signorini::config::{Config, InitialState};
use signorini::control::{JointTrajectory, TrajectoryPoint};
use signorini::dynamics;
use signorini::model::{Data, MimicPolicy, Model, ModelOptions, RobotDescription};
use signorini::runtime::{
    Counters, Job, MeasuredState, MonotonicTime, Odometry, StateAssembly, Tick, base_pose, select_joints,
    validate_efforts,
};
use signorini::spatial::{Force, Vec3};

use common::repo;
use counting::largest_allocation_during;

const LARGEST_ALLOCATION: usize = 256 << 20;
const SLOWEST_CASE: Duration = Duration::from_secs(2);
/// A case running this long is a hang: the watchdog aborts with its target and number.
const HANG: Duration = Duration::from_secs(60);

fn cases() -> usize {
    std::env::var("SIGNORINI_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000)
}

/// xorshift64*: deterministic, fast, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.next().is_multiple_of(one_in)
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Values that break numbers.
const EVIL_NUMBERS: [&str; 16] = [
    "nan", "NaN", ".nan", "inf", "-inf", ".inf", "-1", "0", "-0", "1e308", "-1e308", "1e-320", "", "abc", "1 2", "0x10",
];

/// Fragments that break structure (the last three: what made mesh-loader hang or reserve
/// 16 GiB before issue 26).
const EVIL_FRAGMENTS: [&str; 19] = [
    "<",
    ">",
    "\"",
    "&",
    "'",
    "<link name=\"x\"/>",
    "</robot>",
    ":",
    "- ",
    "{",
    "[",
    "\u{0}",
    "é",
    "\n",
    "  ",
    "<!--",
    "<Name_array id=\"n\" count=\"2\">a b</Name_array>",
    "<IDREF_array id=\"r\" count=\"1\">a</IDREF_array>",
    " count=\"4294967295\"",
];

fn is_number_char(c: char) -> bool {
    c.is_ascii_digit() || matches!(c, '.' | '-' | 'e' | 'E' | '+')
}

/// One to four random edits of a text: numbers replaced by evil values, lines deleted,
/// duplicated or swapped, a word replaced by another of the document (names: cycles,
/// duplicates, dangling references), fragments inserted, truncation.
fn mutate_text(seed: &str, rng: &mut Rng) -> String {
    let mut text = seed.to_owned();
    for _ in 0..1 + rng.below(4) {
        let boundaries: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let at = *rng.pick(&boundaries);
        match rng.below(8) {
            0 | 1 => {
                // A number starting after `at`.
                let Some(start) = text[at..].find(|c: char| c.is_ascii_digit()).map(|k| at + k) else { continue };
                let start = text[..start]
                    .char_indices()
                    .rev()
                    .find(|&(_, c)| !is_number_char(c))
                    .map_or(0, |(k, c)| k + c.len_utf8());
                let end = text[start..].find(|c: char| !is_number_char(c)).map_or(text.len(), |k| start + k);
                let value = EVIL_NUMBERS[rng.below(EVIL_NUMBERS.len())];
                text.replace_range(start..end, value);
            }
            2 | 3 => {
                let lines: Vec<&str> = text.lines().collect();
                if lines.is_empty() {
                    continue;
                }
                let (i, j) = (rng.below(lines.len()), rng.below(lines.len()));
                let mut out: Vec<&str> = lines.clone();
                match rng.below(3) {
                    0 => {
                        out.remove(i);
                    }
                    1 => out.insert(i, lines[j]),
                    _ => out.swap(i, j),
                }
                text = out.join("\n");
            }
            4 => {
                let words: Vec<&str> =
                    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
                if words.len() < 2 {
                    continue;
                }
                let (from, to) = (rng.pick(&words).to_string(), rng.pick(&words).to_string());
                if let Some(k) = text[at..].find(&from) {
                    text.replace_range(at + k..at + k + from.len(), &to);
                }
            }
            5 | 6 => {
                let fragment = EVIL_FRAGMENTS[rng.below(EVIL_FRAGMENTS.len())];
                text.insert_str(at, fragment)
            }
            _ => text.truncate(at),
        }
    }
    text
}

/// One to four random edits of bytes: bit flips, truncation, inserted bytes, a 32-bit
/// little-endian field (counts, indices) overwritten by an extreme value.
fn mutate_bytes(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(5) {
            0 if at < b.len() => b[at] ^= 1 << rng.below(8),
            1 => b.truncate(at),
            2 => {
                let n = rng.below(8);
                for _ in 0..n {
                    b.insert(at.min(b.len()), rng.next() as u8);
                }
            }
            3 if at + 4 <= b.len() => {
                let v = *rng.pick(&[
                    u32::MAX,
                    u32::MAX / 2,
                    0,
                    1,
                    1 << 30,
                    0x7f80_0000, /* f32 inf */
                    0x7fc0_0000, /* NaN */
                ]);
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            _ => {
                if at < b.len() {
                    let end = (at + rng.below(64)).min(b.len());
                    let chunk = b[at..end].to_vec();
                    let to = rng.below(b.len() + 1);
                    b.splice(to..to, chunk);
                }
            }
        }
    }
    b
}

thread_local! {
    /// Set on the threads that run fuzz cases: their panics are collected, not reported.
    static FUZZING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once for the test binary, a panic hook that is silent on fuzzing threads and
/// reports every other thread's panic as before (the other tests run in parallel with the
/// fuzzers, and a failing one must still say why).
fn quiet_panics_on_fuzzing_threads() {
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let report = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !FUZZING.get() {
                report(info);
            }
        }));
    });
}

/// Runs `cases` cases of `target` on every core; `case(rng, k)` returns its input and
/// Ok(accepted) or Err(message) for an invariant broken without a panic. Panics, slow
/// cases, huge allocations and broken invariants are collected with the input that caused
/// them. At least 1 % of the cases must be accepted (a fuzzer whose every input is
/// refused at the first check tests nothing past it).
fn fuzz(name: &str, cases: usize, case: impl Fn(&mut Rng, usize) -> (String, Result<bool, String>) + Sync) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).max(1);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let slowest = Mutex::new(Duration::ZERO);
    let largest_seen = std::sync::atomic::AtomicUsize::new(0);
    let accepted = std::sync::atomic::AtomicUsize::new(0);
    let started = Instant::now();
    quiet_panics_on_fuzzing_threads();
    // Per thread: the case it runs and since when (ms after `started`; u64::MAX: idle).
    let running: Vec<(std::sync::atomic::AtomicU64, std::sync::atomic::AtomicU64)> = (0..threads)
        .map(|_| (std::sync::atomic::AtomicU64::new(0), std::sync::atomic::AtomicU64::new(u64::MAX)))
        .collect();
    let done = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        let (running, done) = (&running, &done);
        s.spawn(move || {
            use std::sync::atomic::Ordering::Relaxed;
            while done.load(Relaxed) < threads {
                std::thread::sleep(Duration::from_millis(200));
                let now = started.elapsed().as_millis() as u64;
                for (case, since) in running {
                    let since = since.load(Relaxed);
                    if since != u64::MAX && now.saturating_sub(since) > HANG.as_millis() as u64 {
                        eprintln!("{name}: case {} hangs (over {HANG:?}): aborting", case.load(Relaxed));
                        std::process::abort();
                    }
                }
            }
        });
        for t in 0..threads {
            let (failures, slowest, case, accepted, largest_seen) =
                (&failures, &slowest, &case, &accepted, &largest_seen);
            let (running, done) = (running, done);
            s.spawn(move || {
                FUZZING.set(true);
                let mut rng =
                    Rng(0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03) ^ name.len() as u64);
                for k in (t..cases).step_by(threads) {
                    let state = rng.0;
                    let began = Instant::now();
                    running[t].0.store(k as u64, std::sync::atomic::Ordering::Relaxed);
                    running[t].1.store(started.elapsed().as_millis() as u64, std::sync::atomic::Ordering::Relaxed);
                    let (largest, outcome) =
                        largest_allocation_during(|| catch_unwind(AssertUnwindSafe(|| case(&mut rng, k))));
                    let took = began.elapsed();
                    running[t].1.store(u64::MAX, std::sync::atomic::Ordering::Relaxed);
                    largest_seen.fetch_max(largest, std::sync::atomic::Ordering::Relaxed);
                    if let Ok(mut s) = slowest.lock() {
                        *s = (*s).max(took);
                    }
                    if let Ok((_, Ok(true))) = &outcome {
                        accepted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    let problem = match &outcome {
                        Err(p) => Some(format!(
                            "panic: {}",
                            p.downcast_ref::<String>()
                                .cloned()
                                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                .unwrap_or_default()
                        )),
                        Ok((_, Err(m))) => Some(m.clone()),
                        Ok(_) if largest > LARGEST_ALLOCATION => Some(format!("allocated {largest} bytes at once")),
                        Ok(_) if took > SLOWEST_CASE => Some(format!("took {took:?}")),
                        Ok(_) => None,
                    };
                    if let Some(problem) = problem {
                        // Replay the case to keep its input (a panic loses it).
                        let mut again = Rng(state);
                        let input = catch_unwind(AssertUnwindSafe(|| case(&mut again, k).0)).unwrap_or_default();
                        let file = failures_dir().join(format!("{name}-{k}.txt"));
                        let _ = std::fs::write(&file, &input);
                        if let Ok(mut f) = failures.lock() {
                            f.push(format!("case {k}: {problem} (input in {})", file.display()));
                        }
                    }
                }
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let accepted = accepted.into_inner();
    println!(
        "{name}: {cases} cases ({accepted} accepted) in {:.1} s, slowest {:?}, largest allocation {:.1} MB, peak RSS of the test process {:.0} MB, {} failures",
        started.elapsed().as_secs_f64(),
        slowest.into_inner().unwrap(),
        largest_seen.into_inner() as f64 / 1e6,
        peak_rss_mb(),
        failures.len()
    );
    assert!(accepted * 100 >= cases, "{name}: only {accepted} of {cases} inputs accepted");
    assert!(
        failures.is_empty(),
        "{name}: {} failures, first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}

/// The private directory the failing inputs of this run are written to.
fn failures_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| signorini::scratch::private_dir("signorini-fuzz").expect("a private temporary directory"))
}

/// The test process's peak resident set (MB, getrusage's ru_maxrss): all its tests so far.
fn peak_rss_mb() -> f64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } == 0;
    if ok { usage.ru_maxrss as f64 / 1024.0 } else { f64::NAN }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap()
}

/// A model's dynamics at its neutral configuration are finite: RNEA's gravity torques,
/// CRBA's mass matrix, its LTDL factors and ABA's accelerations under zero torque.
fn finite_dynamics(model: &Model) -> Result<(), String> {
    let mut data = Data::new(model);
    let q = model.neutral_configuration();
    let zero = vec![0.0; model.nv];
    let finite = |x: &[f64]| x.iter().all(|v| v.is_finite());
    let tau = dynamics::rnea(model, &mut data, q.as_slice(), &zero, &zero).clone();
    if !finite(tau.as_slice()) {
        return Err(format!("accepted, but g(q₀) = {tau:?}"));
    }
    let m = dynamics::crba(model, &mut data, q.as_slice()).clone();
    if !finite(m.as_slice()) {
        return Err(format!("accepted, but M(q₀) = {m}"));
    }
    dynamics::ltdl_decompose(model, &mut data);
    let mut x = vec![1.0; model.nv];
    dynamics::ltdl_solve(model, &data, &mut x);
    if !finite(&x) {
        return Err(format!("accepted, but M(q₀)⁻¹·1 = {x:?} (LTDL)"));
    }
    let a = dynamics::aba(model, &mut data, q.as_slice(), &zero, &zero).clone();
    if !finite(a.as_slice()) {
        return Err(format!("accepted, but ABA(q₀, 0, 0) = {a:?}"));
    }
    Ok(())
}

/// One simulator step of an accepted robot standing at its neutral configuration on the
/// ground (its shapes against the ground and each other): the state stays finite.
fn one_step(model: &Model) -> Result<(), String> {
    use signorini::sim::{Robot, Stepper, World};
    let q = model.neutral_configuration().as_slice().to_vec();
    let robot = Robot::new(model.clone(), q);
    let environment = signorini::collision::Environment::default();
    let mut world = match World::new(Some(robot), &environment, &Default::default()) {
        Ok(w) => w,
        // Its shapes refused: the collision world's own message is checked by the caller.
        Err(_) => return Ok(()),
    };
    world.place_robot_on(0.0);
    let config = signorini::config::ContactConfig::default();
    let mut stepper = Stepper::new(&world, 1e-3, &config.settings(), 16);
    stepper.step(&mut world, &vec![0.0; model.nv]);
    if world.is_finite() { Ok(()) } else { Err("accepted, but one simulator step is not finite".into()) }
}

#[test]
fn urdf() {
    let seeds: Vec<String> =
        ["urdf/quadruped.urdf", "urdf/arm7.urdf", "urdf/cube.urdf", "tests/fixtures/malformed/mesh.urdf"]
            .iter()
            .map(|p| read(p))
            .collect();
    let package_dir = repo("tests/fixtures");
    fuzz("urdf", cases(), |rng, _| {
        let seed = &seeds[rng.below(seeds.len())];
        let xml = mutate_text(seed, rng);
        let floating = rng.chance(2);
        let result = (|| {
            let description = RobotDescription::from_xml_with(&xml, "fuzz.urdf", MimicPolicy::Independent);
            let description = match description {
                Ok(d) => d,
                Err(e) => {
                    let m = e.to_string();
                    return if m.starts_with("fuzz.urdf: ") && !m.contains('\n') {
                        Ok(false)
                    } else {
                        Err(format!("message: {m}"))
                    };
                }
            };
            let options =
                ModelOptions { floating_base: floating, package_dirs: vec![package_dir.clone()], ..Default::default() };
            match Model::from_description(&description, &options) {
                Ok(model) => {
                    finite_dynamics(&model)?;
                    one_step(&model)?;
                    // Its collision shapes, as the simulator and the controller build them.
                    match CollisionWorld::new(&model, &Default::default(), &Default::default()) {
                        Ok(_) => Ok(true),
                        Err(e) => {
                            let m = e.to_string();
                            if !m.is_empty() && !m.contains('\n') { Ok(false) } else { Err(format!("message: {m}")) }
                        }
                    }
                }
                Err(e) => {
                    let m = e.to_string();
                    if m.contains("fuzz.urdf") && !m.contains('\n') { Ok(false) } else { Err(format!("message: {m}")) }
                }
            }
        })();
        (xml, result)
    });
}

#[test]
fn configuration() {
    let seeds: Vec<String> = std::fs::read_dir(repo("config"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    let robots: Vec<RobotDescription> = ["urdf/quadruped.urdf", "urdf/arm7.urdf"]
        .iter()
        .map(|p| RobotDescription::from_file(&repo(p)).unwrap())
        .collect();
    let file = repo("config/fuzz.yaml");
    fuzz("configuration", cases(), |rng, _| {
        let seed = &seeds[rng.below(seeds.len())];
        let yaml = mutate_text(seed, rng);
        let result = match Config::from_yaml(&yaml, "config/fuzz.yaml") {
            Err(e) => {
                let m = e.to_string();
                if m.starts_with("config/fuzz.yaml: ") && !m.contains('\n') {
                    Ok(false)
                } else {
                    Err(format!("message: {m}"))
                }
            }
            Ok(mut config) => {
                // Stepping from the first tick, whatever the seed says, so that every
                // accepted configuration reaches the loop.
                config.simulation_interfaces.initial_state = InitialState::Playing;
                match Setup::new(&file, config, robots[rng.below(robots.len())].clone()) {
                    Ok(setup) => one_tick(&setup),
                    Err(e) => named_setup_error(&e),
                }
            }
        };
        (yaml, result)
    });
}

/// A start-up error is a one-line message naming the configuration.
fn named_setup_error(e: &SetupError) -> Result<bool, String> {
    let m = e.to_string();
    if m.contains("fuzz.yaml") && !m.contains('\n') { Ok(false) } else { Err(format!("message: {m}")) }
}

/// An accepted configuration in the loop: the loop assembly of `mode: sim+control` (or of
/// `mode: sim` for several robots) built and ticked once: one simulator step and, for one
/// robot, one controller tick on its state. Whatever the numbers, the step is taken and
/// what the tick hands the publishers is finite.
fn one_tick(setup: &Setup) -> Result<bool, String> {
    let now = MonotonicTime::now();
    let tick = Tick { index: 0, deadline: now, wake: now, period: setup.config.loop_period() };
    let counters = Arc::new(Counters::default());
    let finite = |o: &Outputs, what: &str| -> Result<(), String> {
        let mut all = o.position.iter().chain(&o.velocity).chain(&o.effort);
        if all.all(|x| x.is_finite()) { Ok(()) } else { Err(format!("non-finite {what}: {o:?}")) }
    };
    let (steps, sim_sample, control_sample) = if setup.robots.is_empty() {
        let mut assembly = match SimAndControlLoop::new(setup, counters) {
            Ok(a) => a,
            Err(e) => return named_setup_error(&e),
        };
        assembly.job.tick(&tick);
        let mut sim = None;
        assembly.sim.samples.pop_with(|o| sim = Some(finite(o, "simulator sample")));
        let mut control = None;
        assembly.control.samples.pop_with(|o| control = Some(finite(o, "controller sample")));
        (assembly.job.sim().steps_taken(), sim, control)
    } else {
        let mut assembly = match SimLoop::new(setup, counters) {
            Ok(a) => a,
            Err(e) => return named_setup_error(&e),
        };
        assembly.job.tick(&tick);
        let mut sim = None;
        assembly.ends.samples.pop_with(|o| sim = Some(finite(o, "simulator sample")));
        (assembly.job.steps_taken(), sim, Some(Ok(())))
    };
    if steps != 1 {
        return Err(format!("accepted, but the first tick took {steps} steps"));
    }
    sim_sample.unwrap_or(Ok(()))?;
    control_sample.unwrap_or(Ok(()))?;
    Ok(true)
}

/// Seeds of each mesh format: a unit cube as binary and ASCII STL, OBJ and COLLADA.
fn mesh_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let dir = repo("tests/fixtures/malformed");
    ["cube.stl", "cube_ascii.stl", "cube.obj", "cube.dae"]
        .iter()
        .map(|f| (*f, std::fs::read(dir.join(f)).unwrap()))
        .map(|(f, b)| {
            (
                f.rsplit('.').next().map_or("stl", |e| {
                    if e == "stl" {
                        "stl"
                    } else if e == "obj" {
                        "obj"
                    } else {
                        "dae"
                    }
                }),
                b,
            )
        })
        .collect()
}

#[test]
fn meshes() {
    let seeds = mesh_seeds();
    let dir = signorini::scratch::private_dir("signorini-fuzz-meshes").unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    fuzz("meshes", cases(), |rng, k| {
        let (ext, seed) = &seeds[rng.below(seeds.len())];
        let bytes = if rng.chance(3) && *ext != "stl" {
            mutate_text(&String::from_utf8_lossy(seed), rng).into_bytes()
        } else {
            mutate_bytes(seed, rng)
        };
        let path = dir.join(format!("case{k}.{ext}"));
        let result = (|| {
            std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
            let file = path.display().to_string();
            let named = |m: String| {
                if m.starts_with(&file) && !m.contains('\n') { Ok(false) } else { Err(format!("message: {m}")) }
            };
            let scale = Vec3::new(1.0, 1.0, if rng.chance(10) { 0.0 } else { 1.0 });
            match load_mesh(&path, &scale) {
                Err(e) => named(e.to_string()),
                Ok((vertices, triangles)) => {
                    let hull = match CollisionShape::convex_hull(&vertices, &file) {
                        Err(e) => named(e.to_string())?,
                        Ok(_) => true,
                    };
                    match CollisionShape::trimesh(vertices, triangles, &file) {
                        Err(e) => named(e.to_string()),
                        Ok(_) => Ok(hull),
                    }
                }
            }
        })();
        let _ = std::fs::remove_file(&path);
        (String::from_utf8_lossy(&bytes).into_owned(), result)
    });
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A value a message may carry.
fn evil_value(rng: &mut Rng) -> f64 {
    match rng.below(8) {
        0 => f64::NAN,
        1 => f64::INFINITY,
        2 => f64::NEG_INFINITY,
        3 => f64::MAX,
        4 => -0.0,
        _ => (rng.next() as f64 / u64::MAX as f64 - 0.5) * 10.0,
    }
}

/// Names a message may carry: the configured ones, unknown ones, repeated, empty.
fn names_of(rng: &mut Rng, configured: &[String]) -> Vec<String> {
    let n = if rng.chance(50) { rng.below(2000) } else { rng.below(configured.len() + 4) };
    (0..n)
        .map(|_| match rng.below(6) {
            0 => String::new(),
            1 => format!("unknown{}", rng.below(3)),
            2 => "é\u{0}".into(),
            _ => rng.pick(configured).clone(),
        })
        .collect()
}

fn values(rng: &mut Rng, n: usize) -> Vec<f64> {
    let n = match rng.below(10) {
        0 => rng.below(n + 3),
        1 if rng.chance(100) => 1_000_000,
        _ => n,
    };
    (0..n).map(|_| if rng.chance(10) { evil_value(rng) } else { rng.next() as f64 / u64::MAX as f64 }).collect()
}

#[test]
fn messages() {
    let configured: Vec<String> = (0..12).map(|k| format!("joint{k}")).collect();
    let hold = vec![0.1; configured.len()];
    fuzz("messages", cases(), |rng, _| {
        let result = (|| {
            // Effort commands: accepted only with one finite value per joint.
            let efforts = values(rng, configured.len());
            let accepted = validate_efforts(&efforts, configured.len()).is_ok();
            let mut any = accepted;
            if accepted != (efforts.len() == configured.len() && efforts.iter().all(|x| x.is_finite())) {
                return Err(format!("efforts {efforts:?} accepted: {accepted}"));
            }
            // Joint states: an accepted one has every configured joint, finite.
            let names = names_of(rng, &configured);
            let (position, velocity) = (values(rng, names.len()), values(rng, names.len()));
            let mut index = vec![0; configured.len()];
            if select_joints(&configured, &names, &position, &velocity, &mut index).is_ok() {
                any = true;
                for (k, &i) in index.iter().enumerate() {
                    if names[i] != configured[k] || !position[i].is_finite() || !velocity[i].is_finite() {
                        return Err(format!("state accepted with joint {k} at {i}: {names:?}"));
                    }
                }
            }
            // Joint trajectories: an accepted one samples finite values anywhere.
            let names = names_of(rng, &configured);
            let points: Vec<TrajectoryPoint> = (0..rng.below(5))
                .map(|_| TrajectoryPoint {
                    positions: values(rng, names.len()),
                    velocities: if rng.chance(2) { Vec::new() } else { values(rng, names.len()) },
                    accelerations: if rng.chance(2) { Vec::new() } else { values(rng, names.len()) },
                    time_from_start: evil_value(rng).abs(),
                })
                .collect();
            if let Ok(t) = JointTrajectory::for_joints(&configured, &hold, &names, &points) {
                any = true;
                let n = configured.len();
                let (mut q, mut v, mut a) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                for time in [-1.0, 0.0, 0.5 * t.duration(), t.duration(), 1e9, evil_value(rng)] {
                    t.sample(time, &mut q, &mut v, &mut a);
                    if !q.iter().chain(&v).chain(&a).all(|x| x.is_finite()) {
                        return Err(format!("trajectory accepted, sample at {time}: {q:?} {v:?} {a:?}"));
                    }
                }
            }
            Ok(any)
        })();
        (String::new(), result)
    });
}

/// The state assembly of `mode: control` (/joint_states paired with /odom): any sequence
/// of JointStates and odometry, with evil values, stamps and quaternions, never panics;
/// every state it completes has the configured joints finite, a base whose quaternion is
/// unit and whose values are finite, paired within the tolerance.
#[test]
fn state_assembly() {
    let configured: Vec<String> = (0..12).map(|k| format!("joint{k}")).collect();
    let tolerance = Duration::from_micros(500);
    fuzz("state assembly", cases(), |rng, _| {
        let result = (|| {
            let mut assembly = StateAssembly::new(configured.clone(), true, tolerance);
            let mut out = MeasuredState::of_joints(configured.len());
            let mut odometry_stamps = Vec::new();
            let mut any = false;
            for _ in 0..rng.below(8) + 1 {
                // Stamps near each other (pairable), or anywhere (negative, huge, bad ns).
                let stamp = if rng.chance(4) {
                    (rng.next() as i32, rng.next() as u32)
                } else {
                    (1, 1_000_000 * rng.below(4) as u32 + rng.below(1000) as u32 * 1000)
                };
                let assembled = if rng.chance(2) {
                    let mut v = || if rng.chance(10) { evil_value(rng) } else { rng.next() as f64 / u64::MAX as f64 };
                    let mut o = Odometry {
                        position: [v(), v(), v()],
                        orientation: [v(), v(), v(), v()],
                        linear: [v(), v(), v()],
                        angular: [v(), v(), v()],
                    };
                    // Mostly a rotation, its norm off 1 by up to 2 % (the limit is 1 %).
                    if !rng.chance(4) {
                        let norm = o.orientation.iter().map(|x| x * x).sum::<f64>().sqrt();
                        let scale = 1.0 + 0.02 * (rng.next() as f64 / u64::MAX as f64 - 0.5);
                        o.orientation.iter_mut().for_each(|x| *x *= scale / norm);
                    }
                    match assembly.odometry(stamp, o, &mut out) {
                        Ok(a) => {
                            odometry_stamps.push(stamp.0 as u64 * 1_000_000_000 + stamp.1 as u64);
                            a
                        }
                        Err(_) => continue,
                    }
                } else {
                    // Mostly the configured joints (in reverse order), else anything.
                    let names = if rng.chance(4) {
                        names_of(rng, &configured)
                    } else {
                        configured.iter().rev().cloned().collect()
                    };
                    let (position, velocity) = (values(rng, names.len()), values(rng, names.len()));
                    match assembly.joint_state(stamp, &names, &position, &velocity, &mut out) {
                        Ok(a) => a,
                        Err(_) => continue,
                    }
                };
                if !assembled.ready {
                    continue;
                }
                any = true;
                let Some(b) = out.base else { return Err("a floating base's state without its base".into()) };
                let norm = b.orientation.iter().map(|x| x * x).sum::<f64>().sqrt();
                let finite =
                    out.position.iter().chain(&out.velocity).chain(&b.position).chain(&b.linear).all(|x| x.is_finite());
                if !finite || (norm - 1.0).abs() > 1e-12 {
                    return Err(format!("state {out:?}"));
                }
                if !odometry_stamps.iter().any(|&s| s.abs_diff(out.time_ns) <= tolerance.as_nanos() as u64) {
                    return Err(format!("state at {} paired with no odometry within the tolerance", out.time_ns));
                }
            }
            Ok(any)
        })();
        (String::new(), result)
    });
}

/// `~/external_wrench` by name: any sequence of names (links, free bodies, unknown,
/// empty) and wrenches (NaN, infinite, huge) leaves a finite table holding exactly the sum
/// of the accepted wrenches in force on each target.
#[test]
fn wrench_targets() {
    let setup = Setup::load(Path::new(&format!("{}/config/quadruped.yaml", env!("CARGO_MANIFEST_DIR"))), None)
        .expect("the shipped configuration");
    let world = setup.sim_world().expect("the shipped world");
    let links: Vec<String> = setup.model.frames.iter().map(|f| f.name.clone()).collect();
    let table = ExternalWrenches {
        joints: vec![Force::ZERO; setup.model.njoints()],
        bodies: vec![Force::ZERO; world.bodies.len()],
    };
    fuzz("wrench targets", cases(), |rng, _| {
        let mut targets = WrenchTargets::new(&setup.model, &world, table.clone());
        let mut in_force: std::collections::BTreeMap<String, Force> = Default::default();
        let result = (|| {
            for _ in 0..rng.below(20) + 1 {
                let name = match rng.below(4) {
                    0 => names_of(rng, &links).pop().unwrap_or_default(),
                    _ => rng.pick(&links).clone(),
                };
                let zero = rng.chance(5);
                let mut v = || {
                    if rng.chance(10) { evil_value(rng) } else { (rng.next() as f64 / u64::MAX as f64 - 0.5) * 100.0 }
                };
                let wrench = match zero {
                    true => Force::ZERO,
                    false => Force { linear: Vec3::new(v(), v(), v()), angular: Vec3::new(v(), v(), v()) },
                };
                let Ok(t) = targets.set(&name, wrench) else { continue };
                let all = wrench.linear.iter().chain(wrench.angular.iter()).all(|x| x.is_finite());
                if !all {
                    return Err(format!("`{name}`: a non-finite wrench accepted"));
                }
                if wrench == Force::ZERO {
                    in_force.remove(&name)
                } else {
                    in_force.insert(name.clone(), wrench)
                };
                let largest = |f: &Force| f.linear.iter().chain(f.angular.iter()).fold(0.0f64, |m, x| m.max(x.abs()));
                let bound: f64 = in_force.values().map(largest).sum();
                let tabled = t.joints.iter().chain(&t.bodies).map(largest).fold(0.0, f64::max);
                if !tabled.is_finite() || tabled > bound * (1.0 + 1e-12) {
                    return Err(format!("a table entry of {tabled} from wrenches of at most {bound} in force"));
                }
            }
            Ok(!in_force.is_empty())
        })();
        (String::new(), result)
    });
}

/// A base pose reference is accepted only finite with a unit quaternion, and comes out
/// normalized.
#[test]
fn base_pose_references() {
    fuzz("base pose", cases(), |rng, _| {
        let mut v = || if rng.chance(8) { evil_value(rng) } else { rng.next() as f64 / u64::MAX as f64 - 0.5 };
        let mut pose = [v(), v(), v(), v(), v(), v(), v()];
        if rng.chance(2) {
            let norm = pose[3..].iter().map(|x| x * x).sum::<f64>().sqrt();
            let scale = 1.0 + 0.004 * (rng.next() as f64 / u64::MAX as f64 - 0.5);
            pose[3..].iter_mut().for_each(|x| *x *= scale / norm);
        }
        let result = match base_pose(pose) {
            None => Ok(false),
            Some(p) => {
                let norm = p[3..].iter().map(|x| x * x).sum::<f64>().sqrt();
                match p.iter().all(|x| x.is_finite()) && (norm - 1.0).abs() < 1e-12 && p[..3] == pose[..3] {
                    true => Ok(true),
                    false => Err(format!("{pose:?} accepted as {p:?}")),
                }
            }
        };
        (String::new(), result)
    });
}

/// The committed malformed files give their expected errors (tests/fixtures/malformed/
/// expected.txt: `file | text the error must contain`).
#[test]
fn malformed_corpus_gives_the_expected_errors() {
    let dir = repo("tests/fixtures/malformed");
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    let mut checked = 0;
    for line in expected.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let (file, want) = line.split_once(" | ").unwrap();
        let path = dir.join(file);
        let got = error_of(&path);
        assert!(got.contains(want.trim()), "{file}:\n  got: {got}\n want: …{}…", want.trim());
        assert!(got.contains(file) && !got.contains('\n'), "{file}: the error names the file on one line: {got}");
        checked += 1;
    }
    assert!(checked >= 15, "{checked} cases");
}

/// The error loading `path` gives: a URDF through the model, a YAML through the setup (its
/// robot: the bundled quadruped), a mesh through its convex hull.
fn error_of(path: &Path) -> String {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default();
    let options = ModelOptions { package_dirs: vec![repo("tests/fixtures")], ..Default::default() };
    match ext {
        "urdf" => match RobotDescription::from_file(path) {
            Err(e) => e.to_string(),
            Ok(d) => {
                Model::from_description(&d, &options).err().map(|e| e.to_string()).unwrap_or_else(|| "accepted".into())
            }
        },
        "yaml" => match Config::from_file(path) {
            Err(e) => e.to_string(),
            Ok(c) => {
                let robot = RobotDescription::from_file(&repo("urdf/quadruped.urdf")).unwrap();
                Setup::new(path, c, robot).err().map(|e| e.to_string()).unwrap_or_else(|| "accepted".into())
            }
        },
        _ => match load_mesh(path, &Vec3::repeat(1.0)) {
            Err(e) => e.to_string(),
            Ok((v, _)) => CollisionShape::convex_hull(&v, &path.display().to_string())
                .err()
                .map(|e| e.to_string())
                .unwrap_or_else(|| "accepted".into()),
        },
    }
}

/// The node's rig for one fuzzing thread: the quadruped's simulator and controller loops
/// with the node's message handlers in front of them ([`signorini::app::inputs`], which
/// the node's subscriptions call).
struct Rig {
    sim: signorini::app::SimJob,
    sim_samples: signorini::runtime::SampleConsumer<signorini::app::Outputs>,
    efforts: inputs::EffortInput,
    joint_commands: inputs::JointCommandSink,
    wrenches: inputs::WrenchInput,
    control: signorini::app::ControlJob,
    control_samples: signorini::runtime::SampleConsumer<signorini::app::Outputs>,
    states: inputs::StateInput,
    references: inputs::ReferenceInput,
    base: inputs::BasePoseInput,
    joints: Vec<String>,
    targets: Vec<String>,
    ticks: u64,
}

use signorini::app::inputs;

impl Rig {
    fn new() -> Self {
        use signorini::app::{ControlLoop, SimLoop};
        let setup = Setup::load(&repo("config/quadruped.yaml"), None).unwrap();
        let counters = std::sync::Arc::new(signorini::runtime::Counters::default());
        let n = setup.joint_names.len();
        let SimLoop { job: sim, commands, joint_commands, ends } = SimLoop::new(&setup, counters.clone()).unwrap();
        let mut targets: Vec<String> = setup.model.frames.iter().map(|f| f.name.clone()).collect();
        targets.extend(["crate".to_string(), "unknown".into(), String::new()]);
        let efforts = inputs::EffortInput::new(commands, n, std::iter::once(0..n).collect(), counters.clone());
        let joint_commands = inputs::JointCommandSink::new(joint_commands, counters.clone());
        let wrenches = inputs::WrenchInput::new(ends.wrenches, ends.targets, counters.clone());
        let ControlLoop { job: control, states, ends: control_ends } =
            ControlLoop::new(&setup, counters.clone()).unwrap();
        let assembly = StateAssembly::new(setup.joint_names.clone(), true, setup.config.pairing_tolerance());
        let states = inputs::StateInput::new(states, assembly, counters.clone());
        let hold = setup.initial_positions.clone();
        let references =
            inputs::ReferenceInput::new(control_ends.references, (setup.joint_names.clone(), hold), counters.clone());
        let base = inputs::BasePoseInput::new(control_ends.base_references, counters);
        Self {
            sim,
            sim_samples: ends.samples,
            efforts,
            joint_commands,
            wrenches,
            control,
            control_samples: control_ends.samples,
            states,
            references,
            base,
            joints: setup.joint_names.clone(),
            targets,
            ticks: 0,
        }
    }

    /// One random message of a random kind, through its handler (the refusal ignored: its
    /// text was checked by the targets above).
    fn message(&mut self, rng: &mut Rng) {
        let n = self.joints.len();
        let _ = match rng.below(7) {
            0 => self.efforts.accept(0, &values(rng, n)),
            1 => {
                let names = names_of(rng, &self.joints);
                let k = names.len();
                let (p, v, e) = (values(rng, k), values(rng, k), values(rng, k));
                let pick = |x: Vec<f64>, rng: &mut Rng| if rng.chance(2) { Vec::new() } else { x };
                let (p, v, e) = (pick(p, rng), pick(v, rng), pick(e, rng));
                self.joint_commands.accept(&names, &p, &v, &e)
            }
            2 => {
                let target = rng.pick(&self.targets).clone();
                let mut v = || evil_value(rng) * 100.0;
                self.wrenches
                    .accept(&target, Force { linear: Vec3::new(v(), v(), v()), angular: Vec3::new(v(), v(), v()) })
            }
            3 => {
                let names = if rng.chance(3) { names_of(rng, &self.joints) } else { self.joints.clone() };
                let (p, v) = (values(rng, names.len()), values(rng, names.len()));
                let stamp = (1, (self.ticks % 1000) as u32 * 1_000_000);
                self.states.joint_state(stamp, &names, &p, &v)
            }
            4 => {
                let mut v = || if rng.chance(10) { evil_value(rng) } else { rng.next() as f64 / u64::MAX as f64 };
                let mut o = Odometry {
                    position: [v(), v(), v()],
                    orientation: [v(), v(), v(), v()],
                    linear: [v(), v(), v()],
                    angular: [v(), v(), v()],
                };
                let norm = o.orientation.iter().map(|x| x * x).sum::<f64>().sqrt();
                o.orientation.iter_mut().for_each(|x| *x /= norm);
                self.states.odometry((1, (self.ticks % 1000) as u32 * 1_000_000), o)
            }
            5 => {
                let names = names_of(rng, &self.joints);
                let points: Vec<TrajectoryPoint> = (0..rng.below(4))
                    .map(|_| TrajectoryPoint {
                        positions: values(rng, names.len()),
                        velocities: if rng.chance(2) { Vec::new() } else { values(rng, names.len()) },
                        accelerations: Vec::new(),
                        time_from_start: evil_value(rng).abs(),
                    })
                    .collect();
                self.references.accept(0, &names, &points)
            }
            _ => {
                let mut v = || evil_value(rng);
                self.base.accept([v(), v(), v(), 0.0, 0.0, v(), 1.0])
            }
        };
    }

    /// One tick of each loop (commands fresh: ticked now); Err if an output is not finite.
    fn tick(&mut self) -> Result<(), String> {
        let now = signorini::runtime::MonotonicTime::now();
        let period = Duration::from_millis(1);
        let tick = signorini::runtime::Tick { index: self.ticks, deadline: now, wake: now, period };
        self.ticks += 1;
        use signorini::runtime::Job;
        self.sim.tick(&tick);
        self.control.tick(&tick);
        let mut bad = None;
        for (who, samples) in [("simulator", &mut self.sim_samples), ("controller", &mut self.control_samples)] {
            while samples.pop_with(|s| {
                let odometry = s.base.iter().chain(&s.bodies).chain(&s.robot_bases);
                let finite = s.position.iter().chain(&s.velocity).chain(&s.effort).all(|x| x.is_finite())
                    && odometry
                        .flat_map(|o| o.position.iter().chain(&o.orientation).chain(&o.linear))
                        .all(|x| x.is_finite())
                    && s.wrenches.iter().flat_map(|w| w.force.iter().chain(&w.torque)).all(|x| x.is_finite());
                if !finite && bad.is_none() {
                    bad = Some(format!("the {who} published a non-finite sample: {s:?}"));
                }
            }) {}
        }
        if !self.sim.world().is_finite() {
            // The job resets a non-finite state before its next tick: never published.
            self.sim.tick(&tick);
            if !self.sim.world().is_finite() {
                return Err("the simulated state stayed non-finite".into());
            }
        }
        bad.map_or(Ok(()), Err)
    }
}

thread_local! {
    static RIG: std::cell::RefCell<Option<Rig>> = const { std::cell::RefCell::new(None) };
}

/// The node's message handlers in front of the loop jobs they feed (issue 26, item 6):
/// per case a few random messages of every kind the node takes (effort and JointState
/// commands, external wrenches, joint states and odometry, joint trajectories, base
/// poses; evil values, unknown and repeated names, wrong sizes) through the same handlers
/// as the node's subscriptions, then a tick of the quadruped's simulator and of its
/// controller: no panic, and every sample they publish is finite (a diverged simulation is
/// reset, never published; a refused controller tick gives the finite safe output).
#[test]
fn handlers_into_the_loops() {
    fuzz("handlers into the loops", cases() / 4, |rng, _| {
        let result = RIG.with(|rig| {
            let mut rig = rig.borrow_mut();
            let rig = rig.get_or_insert_with(Rig::new);
            for _ in 0..rng.below(3) + 1 {
                rig.message(rng);
            }
            rig.tick().map(|()| true)
        });
        (String::new(), result)
    });
}

/// Every range edge of the configuration (tests/config_errors.rs checks that one past it is
/// refused) starts up and ticks once in the loop within the fuzzers' bounds: at most 256 MB
/// in one allocation, 2 s. `collision.max_contacts: 1024` sizes the largest buffers.
#[test]
fn configuration_range_edges_tick_within_bounds() {
    let base = read("config/quadruped.yaml");
    let robot = RobotDescription::from_file(&repo("urdf/quadruped.urdf")).unwrap();
    let edges = [
        "rate_hz: 1",
        "rate_hz: 100000",
        "sim: {dt: 1.0e-6}",
        "sim: {dt: 1}",
        "sim: {catch_up: 60, realtime_factor: 1000, publish_every: 1000000}",
        "sim: {realtime_factor: 0.001}",
        "watchdog: {stale_after_periods: 1000000}",
        "diagnostics: {rate_hz: 0.01}",
        "diagnostics: {rate_hz: 1000}",
        "collision: {max_contacts: 1024, margin: 10}",
        "contact: {max_iterations: 1000000, tolerance: 1.0e-15}",
        "control: {kp: 1.0e8, kd: 1.0e6, base_kp: 1.0e8, base_kd: 1.0e6, max_contact_force: 1.0e9}",
    ];
    let mut worst = (Duration::ZERO, 0usize, "");
    for edge in edges {
        // The edge's top-level key replaces the seed's.
        let key = edge.split(':').next().unwrap();
        let kept: Vec<&str> = {
            let mut skip = false;
            base.lines()
                .filter(|l| {
                    if !l.starts_with(' ') && !l.is_empty() {
                        skip = l.starts_with(&format!("{key}:"));
                    }
                    !skip
                })
                .collect()
        };
        let yaml = format!("{}\n{edge}\n", kept.join("\n"));
        let file = repo("config/edge.yaml");
        let config = Config::from_yaml(&yaml, "config/edge.yaml").unwrap_or_else(|e| panic!("{edge}: {e}"));
        let began = Instant::now();
        let (largest, outcome) = largest_allocation_during(|| {
            let setup = Setup::new(&file, config, robot.clone()).map_err(|e| e.to_string())?;
            one_tick(&setup)
        });
        let took = began.elapsed();
        assert_eq!(outcome, Ok(true), "{edge}");
        println!("{edge}: {took:?}, largest allocation {:.1} MB", largest as f64 / 1e6);
        assert!(largest <= LARGEST_ALLOCATION && took <= SLOWEST_CASE, "{edge}: {largest} bytes, {took:?}");
        if took > worst.0 {
            worst = (took, largest, edge);
        }
    }
    println!("slowest edge: {worst:?}");
}
