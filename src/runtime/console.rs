//! Status lines that cannot block or panic the code printing them: `println!` to a closed
//! stdout panics, and to a full pipe it blocks. The lines go to a printer thread instead;
//! when it falls behind, newer lines are dropped (and counted), and a write error ends the
//! printing, nothing else.

use std::io::Write;
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};

/// Lines waiting for the printer before newer ones are dropped.
const BACKLOG: usize = 4;

/// The sending side of the printer thread.
#[derive(Debug)]
pub struct Console {
    lines: SyncSender<String>,
    dropped: u64,
}

impl Console {
    /// A printer to stdout.
    pub fn stdout() -> std::io::Result<Self> {
        Self::to(std::io::stdout())
    }

    /// A printer to `out`, on its own thread (`signorini-print`).
    pub fn to(mut out: impl Write + Send + 'static) -> std::io::Result<Self> {
        let (lines, incoming) = sync_channel::<String>(BACKLOG);
        std::thread::Builder::new().name("signorini-print".into()).spawn(move || {
            for line in incoming {
                if writeln!(out, "{line}").and_then(|()| out.flush()).is_err() {
                    return;
                }
            }
        })?;
        Ok(Self { lines, dropped: 0 })
    }

    /// Queues `line`; false (and counted) when the printer is behind or gone.
    pub fn print(&mut self, line: String) -> bool {
        match self.lines.try_send(line) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.dropped += 1;
                false
            }
        }
    }

    /// Lines dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// A pipe nobody reads: every write waits until the test ends.
    struct Stuck(Arc<Mutex<()>>);
    impl Write for Stuck {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let _held = self.0.lock();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_stdout_drops_lines_and_does_not_panic() {
        let mut console = Console::to(Closed).expect("a thread");
        assert!(console.print("first".into()));
        std::thread::sleep(Duration::from_millis(50));
        let accepted = (0..10).filter(|k| console.print(format!("line {k}"))).count();
        assert_eq!(accepted, 0, "the printer has stopped");
        assert_eq!(console.dropped(), 10);
    }

    #[test]
    fn a_stuck_stdout_does_not_block_the_caller() {
        let gate = Arc::new(Mutex::new(()));
        let held = gate.lock().expect("the gate");
        let mut console = Console::to(Stuck(gate.clone())).expect("a thread");
        let start = Instant::now();
        let accepted = (0..100).filter(|k| console.print(format!("line {k}"))).count();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(accepted <= BACKLOG + 1, "{accepted} lines queued");
        assert_eq!(console.dropped(), 100 - accepted as u64);
        drop(held);
    }
}
