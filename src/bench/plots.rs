//! The benchmark's figures (PNG, plotters' bitmap backend): convergence curves and time
//! against accuracy per problem (seed 000 Fig. 4 style, on the common NCP criterion), and
//! performance profiles (seed 000 Fig. 7). Text needs a TrueType font: DejaVu Sans
//! (Debian's `fonts-dejavu-core`, which `make` installs) or `--font`.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::performance_profile;
use super::{BenchError, Curve, Results, Variant};
use crate::config::SolverKind;
use crate::contact::ContactModel;

/// Where DejaVu Sans usually is.
const FONTS: [&str; 3] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];

/// Registers `font` (or the first of the usual places) as plotters' sans-serif.
pub fn register_font(font: Option<&Path>) -> Result<(), BenchError> {
    let path: PathBuf = match font {
        Some(p) => p.to_owned(),
        None => FONTS.iter().map(PathBuf::from).find(|p| p.is_file()).ok_or_else(|| BenchError::Output {
            path: FONTS[0].into(),
            message: "no TrueType font for the plots: install DejaVu Sans (Debian/Ubuntu: fonts-dejavu-core) or pass \
                      --font FILE.ttf"
                .into(),
        })?,
    };
    let bytes = std::fs::read(&path)
        .map_err(|e| BenchError::Output { path: path.display().to_string(), message: e.to_string() })?;
    // plotters keeps registered fonts for the life of the process.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| BenchError::Output {
        path: path.display().to_string(),
        message: "not a TrueType font plotters can read".into(),
    })
}

fn plot_error(path: &Path, e: impl std::fmt::Debug) -> BenchError {
    BenchError::Output { path: path.display().to_string(), message: format!("{e:?}") }
}

/// One colour per solver, the CCP of a two-model solver dashed.
fn style(v: &Variant) -> (RGBColor, bool) {
    let colour = match v.solver {
        SolverKind::Admm => RGBColor(214, 39, 40),
        SolverKind::Pgs => RGBColor(31, 119, 180),
        SolverKind::Lcp => RGBColor(140, 86, 75),
        SolverKind::ChronoAdmm => RGBColor(44, 160, 44),
        SolverKind::ChronoFadmm => RGBColor(23, 190, 207),
        SolverKind::Sap => RGBColor(148, 103, 189),
        SolverKind::Vfpi => RGBColor(255, 127, 14),
        SolverKind::VfpiBlock => RGBColor(188, 189, 34),
    };
    (colour, v.model == ContactModel::Ccp && Variant::has_both_models(v.solver))
}

fn variants_of(curves: &[Curve]) -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    for c in curves {
        if !out.contains(&c.variant) {
            out.push(c.variant);
        }
    }
    out
}

/// A legend of `variants` along the bottom strip.
fn legend(area: &DrawingArea<BitMapBackend<'_>, Shift>, variants: &[Variant], path: &Path) -> Result<(), BenchError> {
    let (w, _) = area.dim_in_pixel();
    let per_row = 6usize;
    let cell = w as i32 / per_row as i32;
    for (i, v) in variants.iter().enumerate() {
        let (x, y) = (10 + cell * (i % per_row) as i32, 15 + 22 * (i / per_row) as i32);
        let (colour, dashed) = style(v);
        let line = if dashed { vec![(x, y), (x + 8, y)] } else { vec![(x, y), (x + 24, y)] };
        area.draw(&PathElement::new(line, colour.stroke_width(3))).map_err(|e| plot_error(path, e))?;
        if dashed {
            area.draw(&PathElement::new(vec![(x + 14, y), (x + 24, y)], colour.stroke_width(3)))
                .map_err(|e| plot_error(path, e))?;
        }
        area.draw(&Text::new(v.label(), (x + 30, y - 7), ("sans-serif", 14))).map_err(|e| plot_error(path, e))?;
    }
    Ok(())
}

fn exponent(v: &f64) -> String {
    format!("1e{}", v.log10().round() as i32)
}

/// A grid of log–log panels, one per problem: ε_abs against `x` (iterations or µs).
fn panels(
    path: &Path,
    curves: &[Curve],
    x_of: fn(&super::Point) -> f64,
    x_desc: &str,
    title: &str,
) -> Result<(), BenchError> {
    let mut problems: Vec<(&str, &str, usize)> = Vec::new();
    for c in curves.iter().filter(|c| c.problem == super::run::MOST_LOADED) {
        if !problems.iter().any(|(s, p, _)| *s == c.scenario && *p == c.problem) {
            problems.push((c.scenario, c.problem.as_str(), c.contacts));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    let variants = variants_of(curves);
    let cols = problems.len().min(4);
    let rows = problems.len().div_ceil(cols);
    let legend_rows = variants.len().div_ceil(6);
    let (width, height) = (420 * cols as u32, 320 * rows as u32 + 40 + 24 * legend_rows as u32);
    let root = BitMapBackend::new(path, (width, height)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let root = root.titled(title, ("sans-serif", 22)).map_err(|e| plot_error(path, e))?;
    let (upper, lower) = root.split_vertically(320 * rows as u32);
    let xs: Vec<f64> =
        curves.iter().flat_map(|c| c.points.iter().map(x_of)).filter(|x| *x > 0.0 && x.is_finite()).collect();
    let (x_lo, x_hi) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min).max(1e-3),
        xs.iter().copied().fold(0.0f64, f64::max).max(10.0),
    );
    for (area, &(scenario, problem, contacts)) in upper.split_evenly((rows, cols)).iter().zip(&problems) {
        let mine: Vec<&Curve> = curves.iter().filter(|c| c.scenario == scenario && c.problem == problem).collect();
        let ys: Vec<f64> = mine
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.eps_abs))
            .filter(|y| y.is_finite() && *y > 0.0)
            .collect();
        let y_lo = ys.iter().copied().fold(f64::INFINITY, f64::min).clamp(1e-14, 1e-3) * 0.5;
        let y_hi = ys.iter().copied().fold(0.0f64, f64::max).clamp(1e-2, 1e12) * 2.0;
        let mut chart = ChartBuilder::on(area)
            .caption(format!("{scenario} ({contacts} contacts)"), ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(52)
            .build_cartesian_2d((x_lo * 0.8..x_hi * 1.25).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(|e| plot_error(path, e))?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc("ε_abs (N)")
            .x_label_formatter(&exponent)
            .y_label_formatter(&exponent)
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| plot_error(path, e))?;
        for c in mine {
            let (colour, dashed) = style(&c.variant);
            let points: Vec<(f64, f64)> = c
                .points
                .iter()
                .map(|p| (x_of(p).max(x_lo), if p.eps_abs.is_finite() { p.eps_abs.clamp(y_lo, y_hi) } else { y_hi }))
                .collect();
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(points.clone(), 6, 4, colour.stroke_width(2)))
                    .map_err(|e| plot_error(path, e))?;
            } else {
                chart
                    .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                    .map_err(|e| plot_error(path, e))?;
            }
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 2, colour.filled())))
                .map_err(|e| plot_error(path, e))?;
        }
    }
    legend(&lower, &variants, path)?;
    root.present().map_err(|e| plot_error(path, e))
}

/// Performance profiles at ε_abs ≤ 10⁻⁴ and 10⁻⁶.
fn profiles(path: &Path, curves: &[Curve]) -> Result<(), BenchError> {
    let variants = variants_of(curves);
    let taus: Vec<f64> = (0..=60).map(|k| 10f64.powf(f64::from(k) / 20.0)).collect();
    let legend_rows = variants.len().div_ceil(6);
    let root = BitMapBackend::new(path, (1100, 440 + 24 * legend_rows as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let (upper, lower) = root.split_vertically(420);
    for (area, target) in upper.split_evenly((1, 2)).iter().zip([1e-4, 1e-6]) {
        let profile = performance_profile(curves, target, &taus);
        let mut chart = ChartBuilder::on(area)
            .caption(format!("performance profile, ε_abs ≤ {target:e} N"), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d((1f64..1000f64).log_scale(), 0f64..1.02f64)
            .map_err(|e| plot_error(path, e))?;
        chart
            .configure_mesh()
            .x_desc("τ: time within this factor of the fastest")
            .y_desc("fraction of problems")
            .x_label_formatter(&|v| format!("{v:.0}"))
            .label_style(("sans-serif", 12))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(|e| plot_error(path, e))?;
        for (v, fractions) in profile {
            let (colour, dashed) = style(&v);
            // A step function.
            let mut points = Vec::new();
            for (k, (&tau, &f)) in taus.iter().zip(&fractions).enumerate() {
                if k > 0 {
                    points.push((tau, fractions[k - 1]));
                }
                points.push((tau, f));
            }
            if dashed {
                chart
                    .draw_series(DashedLineSeries::new(points, 6, 4, colour.stroke_width(2)))
                    .map_err(|e| plot_error(path, e))?;
            } else {
                chart.draw_series(LineSeries::new(points, colour.stroke_width(2))).map_err(|e| plot_error(path, e))?;
            }
        }
    }
    legend(&lower, &variants, path)?;
    root.present().map_err(|e| plot_error(path, e))
}

/// Writes convergence.png, work_precision.png and profiles.png into `dir`.
pub fn write(dir: &Path, results: &Results) -> Result<(), BenchError> {
    std::fs::create_dir_all(dir).map_err(|e| plot_error(dir, e))?;
    panels(
        &dir.join("convergence.png"),
        &results.curves,
        |p| p.iterations.max(1) as f64,
        "iterations",
        "NCP criterion of the iterate against iterations (cold)",
    )?;
    panels(
        &dir.join("work_precision.png"),
        &results.curves,
        |p| p.us,
        "time (µs)",
        "NCP criterion of the iterate against solve time (cold)",
    )?;
    profiles(&dir.join("profiles.png"), &results.curves)
}
