//! A running node's threads and tasks, supervised: the real-time loop, the publishers, the
//! ROS spinner, the status printer and the async tasks (subscriptions, services,
//! /diagnostics). One that ends while the node runs stops the node with an error naming
//! it; SIGINT or SIGTERM stop it cleanly.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use r2r::Publisher;
use r2r::diagnostic_msgs::msg::DiagnosticArray;

use super::diagnostics::diagnostic_array;
use super::node::{NODE_NAME, NodeError, NodeSummary};
use super::qos::profile;
use crate::app::Setup;
use crate::config::{Mode, Qos};
use crate::runtime::status::{WatchedInput, status, status_line};
use crate::runtime::{Console, Counters, Job, LoopReport, LoopThread, MailboxReader};

/// The node's async tasks, by name, started when the node serves.
#[derive(Default)]
pub struct Tasks(Vec<(String, BoxFuture<'static, ()>)>);

impl Tasks {
    /// Adds `task`, named `name` in the error if it ends.
    pub fn spawn(&mut self, name: String, task: impl std::future::Future<Output = ()> + Send + 'static) {
        self.0.push((name, task.boxed()));
    }
}

/// The exchanges every mode's loop has with the node.
pub struct LoopIo {
    /// Set when the node stops.
    pub shutdown: Arc<AtomicBool>,
    /// The loop's counters (/diagnostics).
    pub counters: Arc<Counters>,
    diagnostics: Publisher<DiagnosticArray>,
}

impl LoopIo {
    /// The shutdown flag, the counters and /diagnostics.
    pub fn new(node: &mut r2r::Node, setup: &Setup) -> Result<Self, NodeError> {
        let (topic, qos) = (&setup.config.topics.diagnostics, &setup.config.qos.diagnostics);
        let diagnostics = node
            .create_publisher::<DiagnosticArray>(topic, profile(qos.over(Qos::PUBLISHER)))
            .map_err(|source| NodeError::Ros { what: format!("creating the publisher on {topic}"), source })?;
        Ok(Self { shutdown: Arc::new(AtomicBool::new(false)), counters: Arc::new(Counters::default()), diagnostics })
    }
}

/// Runs `job` in the real-time loop next to the ROS spinner, the publisher threads and
/// the async `tasks` (with /diagnostics), until SIGINT or SIGTERM, or until one of them
/// ends (an error naming it).
pub fn serve<J: Job + Send + 'static>(
    node: r2r::Node,
    setup: &Setup,
    job: J,
    publishers: Vec<std::thread::JoinHandle<()>>,
    io: LoopIo,
    banner: String,
    tasks: Tasks,
) -> Result<NodeSummary, NodeError> {
    let config = &setup.config;
    let LoopIo { shutdown, counters, diagnostics } = io;
    let (report_writer, report_reader) = crate::runtime::mailbox(LoopReport::default());
    let loop_thread = LoopThread::spawn(config.loop_settings("signorini-loop"), job, shutdown.clone(), report_writer)
        .map_err(|e| NodeError::Thread(format!("starting the loop thread: {e}")))?;
    for w in &loop_thread.startup_warnings {
        r2r::log_warn!(NODE_NAME, "{}", w);
    }
    let spinner = spawn_spinner(node, shutdown.clone())?;
    let mut console = Console::stdout().map_err(|e| NodeError::Thread(format!("starting the status printer: {e}")))?;
    console.print(banner);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| NodeError::Thread(format!("starting the async runtime: {e}")))?;
    let status = config.diagnostics.status_line.then_some(console);
    let reporter = report_diagnostics(report_reader, counters.clone(), diagnostics, status, watched_input(config));
    let mut tasks = tasks;
    tasks.spawn("/diagnostics".to_owned(), reporter);
    let outcome = runtime.block_on(async {
        let mut running = tokio::task::JoinSet::new();
        for (name, task) in tasks.0 {
            running.spawn(async move { (name, std::panic::AssertUnwindSafe(task).catch_unwind().await.is_err()) });
        }
        let threads = publishers.iter().map(|p| ("a publisher", p)).chain([("the ROS spinner", &spinner)]);
        wait_for_stop(&loop_thread, threads.collect(), &mut running).await
    });
    shutdown.store(true, Ordering::Relaxed);
    let loop_result = loop_thread.stop();
    for publisher in publishers {
        publisher.thread().unpark();
        let _ = publisher.join();
    }
    let _ = spinner.join();
    outcome?;
    let (_, report) = loop_result.map_err(|_| NodeError::Thread("the loop thread panicked".into()))?;
    Ok(NodeSummary { report, counters: counters.snapshot() })
}

/// The ROS spinner: `spin_once` in a tight loop until `shutdown`.
fn spawn_spinner(node: r2r::Node, shutdown: Arc<AtomicBool>) -> Result<std::thread::JoinHandle<()>, NodeError> {
    let node = Arc::new(Mutex::new(node));
    std::thread::Builder::new()
        .name("signorini-spin".into())
        .spawn(move || {
            while !shutdown.load(Ordering::Relaxed) {
                match node.lock() {
                    Ok(mut n) => n.spin_once(Duration::from_millis(5)),
                    Err(_) => return,
                }
            }
        })
        .map_err(|e| NodeError::Thread(format!("starting the spin thread: {e}")))
}

/// Waits for SIGINT or SIGTERM; fails, naming it, if the loop thread, one of `threads` or
/// one of the `running` tasks ends by itself.
async fn wait_for_stop<J: Job + 'static>(
    loop_thread: &LoopThread<J>,
    threads: Vec<(&str, &std::thread::JoinHandle<()>)>,
    running: &mut tokio::task::JoinSet<(String, bool)>,
) -> Result<(), NodeError> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut sigterm =
        signal(SignalKind::terminate()).map_err(|e| NodeError::Thread(format!("SIGTERM handler: {e}")))?;
    let mut check = tokio::time::interval(Duration::from_millis(100));
    let died = |what: &str| Err(NodeError::Thread(format!("{what} unexpectedly; stopping the node")));
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = sigterm.recv() => return Ok(()),
            Some(ended) = running.join_next() => {
                let (name, panicked) = ended.unwrap_or_else(|e| (format!("a task ({e})"), true));
                let how = if panicked { "panicked" } else { "ended" };
                return died(&format!("the task of {name} {how}"));
            }
            _ = check.tick() => {
                if loop_thread.is_finished() {
                    return died("the loop thread stopped");
                }
                if let Some((name, _)) = threads.iter().find(|(_, t)| t.is_finished()) {
                    return died(&format!("the thread of {name} stopped"));
                }
            }
        }
    }
}

/// What the loop of `config`'s mode watches: the simulator's effort command, or the
/// controller's measured state.
fn watched_input(config: &crate::config::Config) -> WatchedInput {
    match config.mode {
        Mode::Control => WatchedInput {
            name: "measured state",
            when_stale: format!("the safe output: {}", config.control.safe_output),
        },
        Mode::Sim | Mode::SimAndControl => WatchedInput::effort_command(),
    }
}

/// Publishes /diagnostics (and prints the status line on `console`) once per loop report
/// window.
async fn report_diagnostics(
    mut reports: MailboxReader<LoopReport>,
    counters: Arc<Counters>,
    publisher: Publisher<DiagnosticArray>,
    mut console: Option<Console>,
    watched: WatchedInput,
) {
    let mut poll = tokio::time::interval(Duration::from_millis(20));
    let (mut seen, mut before) = (0, counters.snapshot());
    loop {
        poll.tick().await;
        let latest = reports.latest();
        if latest.sequence == seen {
            continue;
        }
        seen = latest.sequence;
        let (report, now, input) = (latest.value, counters.snapshot(), counters.input_freshness());
        let s = status(&report, &now, &before, input, &watched);
        let sim_time = counters.last_published_sim_time_ns.load(Ordering::Relaxed);
        if publisher.publish(&diagnostic_array(&s, sim_time, NODE_NAME)).is_err() {
            Counters::bump(&counters.publish_errors);
        }
        if let Some(console) = console.as_mut()
            && !console.print(status_line(&report, &now, input, &watched))
        {
            Counters::bump(&counters.status_lines_dropped);
        }
        before = now;
    }
}
