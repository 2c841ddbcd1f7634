//! A progress bar for long runs: redrawn in place on a terminal, a line every tenth of the
//! way otherwise (logs, CI).

use std::io::{IsTerminal, Write};
use std::time::Instant;

/// Told of the work's size and of each piece done.
pub trait Progress {
    /// A phase of `total` pieces starts.
    fn start(&mut self, total: usize);
    /// One piece (`what`) is done.
    fn advance(&mut self, what: &str);
    /// The phase is over.
    fn finish(&mut self);
}

/// Silence (tests, libraries).
pub struct Quiet;

impl Progress for Quiet {
    fn start(&mut self, _: usize) {}
    fn advance(&mut self, _: &str) {}
    fn finish(&mut self) {}
}

/// The bar on standard error.
pub struct Bar {
    total: usize,
    done: usize,
    started: Instant,
    terminal: bool,
    last_tenth: usize,
    phase: usize,
}

impl Default for Bar {
    fn default() -> Self {
        Self {
            total: 0,
            done: 0,
            started: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            last_tenth: 0,
            phase: 0,
        }
    }
}

fn clock(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    format!("{}:{:02}", s / 60, s % 60)
}

impl Progress for Bar {
    fn start(&mut self, total: usize) {
        self.phase += 1;
        (self.total, self.done, self.started, self.last_tenth) = (total, 0, Instant::now(), 0);
    }

    fn advance(&mut self, what: &str) {
        self.done += 1;
        let elapsed = self.started.elapsed().as_secs_f64();
        let fraction = self.done as f64 / self.total.max(1) as f64;
        let eta = if self.done > 0 { elapsed / fraction - elapsed } else { 0.0 };
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let width = 30;
            let filled = (fraction * width as f64).round() as usize;
            let mut name: String = what.chars().take(48).collect();
            while name.chars().count() < 48 {
                name.push(' ');
            }
            let _ = write!(
                err,
                "\r[{}{}] {}/{} {} elapsed {} eta {} ",
                "#".repeat(filled.min(width)),
                "-".repeat(width - filled.min(width)),
                self.done,
                self.total,
                name,
                clock(elapsed),
                clock(eta)
            );
            let _ = err.flush();
        } else {
            let tenth = (fraction * 10.0).floor() as usize;
            if tenth > self.last_tenth {
                self.last_tenth = tenth;
                let _ = writeln!(
                    err,
                    "phase {}: {}/{} done, elapsed {}, eta {} (last: {what})",
                    self.phase,
                    self.done,
                    self.total,
                    clock(elapsed),
                    clock(eta)
                );
            }
        }
    }

    fn finish(&mut self) {
        if self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }
}
