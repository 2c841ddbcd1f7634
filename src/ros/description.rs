//! The robot description from a topic: URDF text as std_msgs/String, reliable and
//! transient local, as robot_state_publisher publishes `/robot_description` and as
//! Gazebo's spawner (`ros_gz_sim create -topic robot_description`) and the
//! controller_manager read it.
//!
//! The node subscribes first, before anything of the loop is built, and spins on its own
//! (start-up) thread until the first message arrives or `robot.description_timeout`
//! passes. Transient local durability hands this late-joining subscription the message a
//! publisher started earlier has kept; a publisher started later delivers it when it
//! publishes. The robot is built once from that text: the model, every buffer and the
//! loop are sized from it, so a later message is not a hot reload. A changed URDF is
//! ignored with a warning naming the topic (restart the node to load it); the same text
//! again (a restarted robot_state_publisher) passes silently.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::{FutureExt, Stream, StreamExt};
use r2r::std_msgs::msg::String as StringMsg;

use super::node::{NODE_NAME, NodeError};
use super::qos::profile;
use crate::config::{Durability, Qos, Reliability, TopicName};

/// robot_state_publisher's profile for `/robot_description`: reliable, transient local,
/// keep last 1.
const DESCRIPTION_QOS: Qos =
    Qos { reliability: Reliability::Reliable, durability: Durability::TransientLocal, depth: 1 };

/// How long one wait for the first message spins before checking the deadline again.
const SPIN: Duration = Duration::from_millis(10);

/// Set by SIGINT or SIGTERM while the node waits (before the node's own handlers exist).
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn interrupted(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// SIGINT and SIGTERM set [`INTERRUPTED`] while it lives; the default actions come back
/// when it is dropped (the node installs its own handlers later).
struct InterruptFlag;

impl InterruptFlag {
    fn install() -> Self {
        INTERRUPTED.store(false, Ordering::Relaxed);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t);
            libc::signal(libc::SIGTERM, interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t);
        }
        Self
    }

    fn raised(&self) -> bool {
        INTERRUPTED.load(Ordering::Relaxed)
    }
}

impl Drop for InterruptFlag {
    fn drop(&mut self) {
        // SAFETY: restores the default dispositions.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
        }
    }
}

/// The first URDF text on `topic`, and the subscription, for [`ignore_later`].
pub struct Description<S> {
    /// The URDF text of the first message.
    pub xml: String,
    /// The subscription (later messages).
    pub later: S,
}

/// Subscribes to `topic` and spins `node` until its first message, at most `timeout`
/// (an error naming the topic after that), or until SIGINT or SIGTERM
/// ([`NodeError::Interrupted`]). Prints a line while it waits.
pub fn wait_for_description(
    node: &mut r2r::Node,
    topic: &TopicName,
    timeout: Duration,
) -> Result<Description<impl Stream<Item = StringMsg> + Unpin + Send + use<>>, NodeError> {
    let mut stream = node
        .subscribe::<StringMsg>(topic, profile(DESCRIPTION_QOS))
        .map_err(|source| NodeError::Ros { what: format!("subscribing to {topic}"), source })?;
    println!(
        "signorini: waiting for the URDF on {topic} (std_msgs/String, transient local) for up to {} s...",
        timeout.as_secs_f64()
    );
    // A timeout beyond what an Instant holds is no deadline.
    let deadline = Instant::now().checked_add(timeout);
    let signals = InterruptFlag::install();
    loop {
        if signals.raised() {
            return Err(NodeError::Interrupted { topic: topic.to_string() });
        }
        node.spin_once(SPIN);
        if let Some(Some(message)) = stream.next().now_or_never() {
            return Ok(Description { xml: message.data, later: stream });
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(NodeError::NoDescription { topic: topic.to_string(), timeout_s: timeout.as_secs_f64() });
        }
    }
}

/// The task watching `topic` after start-up: a URDF other than `loaded` is ignored with a
/// warning (the robot is not rebuilt while running).
pub async fn ignore_later(mut later: impl Stream<Item = StringMsg> + Unpin, loaded: String, topic: String) {
    while let Some(message) = later.next().await {
        if message.data != loaded {
            r2r::log_warn!(
                NODE_NAME,
                "{topic}: a changed URDF arrived while running; ignored (the robot is built once: restart the node to load it)"
            );
        }
    }
}
