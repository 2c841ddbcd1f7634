//! `signorini bench`: the comparative benchmark ([`crate::bench`]) from the command line:
//! which scenarios, solvers and tolerances; where the robots are; where the results go.

use std::path::{Path, PathBuf};

use crate::bench::{BenchError, Options, Results, Variant, plots, progress, report};
use crate::scenes::Sources;
use crate::scenes::suite::{self, Scenario};

/// The command's options.
#[derive(Clone, Debug)]
pub struct BenchArgs {
    /// Solver names (`admm`, `admm:ncp`, …); empty: all.
    pub solvers: Vec<String>,
    /// Scenario names; empty: all.
    pub scenarios: Vec<String>,
    /// Tolerances; empty: 1e-4, 1e-6, 1e-8.
    pub tolerances: Vec<f64>,
    /// Results directory (JSON, markdown, PNG).
    pub out: PathBuf,
    /// The markdown file whose `solvers` section is rewritten (None: none).
    pub doc: Option<PathBuf>,
    /// Threads (0: all cores).
    pub jobs: usize,
    /// Scales every scenario's duration.
    pub duration_scale: f64,
    /// The directory holding `urdf/quadruped.urdf`.
    pub robots: PathBuf,
    /// example-robot-data's `share` (None: $EXAMPLE_ROBOT_DATA_SHARE, then the project's venv).
    pub example_robot_data: Option<PathBuf>,
    /// A TrueType font for the plots (None: DejaVu Sans where Debian puts it).
    pub font: Option<PathBuf>,
    /// The command line, for the reports.
    pub command: String,
}

/// Today's date (UTC), YYYY-MM-DD.
fn today() -> String {
    let days =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil from days (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Runs the benchmark and writes its outputs; returns the results.
pub fn run(args: &BenchArgs) -> Result<Results, BenchError> {
    let scenarios: Vec<Scenario> = if args.scenarios.is_empty() {
        suite::ALL.to_vec()
    } else {
        args.scenarios
            .iter()
            .map(|name| {
                suite::by_name(name).ok_or_else(|| {
                    let names: Vec<&str> = suite::ALL.iter().map(|s| s.name).collect();
                    BenchError::Options(format!("--scenarios: unknown scenario `{name}` (one of {})", names.join(", ")))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let mut variants = Vec::new();
    if args.solvers.is_empty() {
        variants = Variant::all();
    } else {
        for s in &args.solvers {
            for v in Variant::parse(s)? {
                if !variants.contains(&v) {
                    variants.push(v);
                }
            }
        }
    }
    let tolerances = if args.tolerances.is_empty() { vec![1e-4, 1e-6, 1e-8] } else { args.tolerances.clone() };
    if let Some(t) = tolerances.iter().find(|t| !(t.is_finite() && **t > 0.0)) {
        return Err(BenchError::Options(format!("--tolerances: {t} is not a positive number")));
    }
    if !(args.duration_scale.is_finite() && args.duration_scale > 0.0) {
        return Err(BenchError::Options(format!("--duration-scale: {} is not a positive number", args.duration_scale)));
    }
    plots::register_font(args.font.as_deref())?;
    let jobs = if args.jobs == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { args.jobs };
    let sources = Sources::new(args.robots.clone(), args.example_robot_data.as_deref());
    let options = Options { scenarios, variants, tolerances, duration_scale: args.duration_scale, jobs, sources };
    let mut bar = progress::Bar::default();
    let mut results = crate::bench::run(&options, &mut bar)?;
    results.measured = format!("Measured {} on {jobs} thread(s), one run per thread.", today());

    // The figures' directory as the doc links it: relative to the doc's directory.
    let relative = |to: &Path| -> String {
        let base = args.doc.as_deref().and_then(Path::parent).unwrap_or(Path::new(""));
        let r = to.strip_prefix(base).unwrap_or(to).display().to_string();
        if r.is_empty() { ".".into() } else { r }
    };
    report::write(&args.out.join("results.json"), &report::json(&results)?)?;
    report::write(&args.out.join("results.md"), &report::markdown(&results, &args.command))?;
    plots::write(&args.out, &results)?;
    if let Some(doc) = &args.doc {
        report::update_doc(doc, &report::doc_section(&results, &args.command, &relative(&args.out)))?;
    }
    Ok(results)
}
