//! SIGINT and SIGTERM during `signorini sim`: the first one sets a flag that the step loop
//! reads between two steps, so that the run ends as if its duration were over (the bag
//! finished, the summary printed); the handler then gives the signal back its default
//! action (`SA_RESETHAND`), so a second Ctrl-C ends the process at once (the bag then
//! reads as a killed writer's, see [`crate::bag::sink`]).
//!
//! SIGXFSZ (a write beyond `ulimit -f`) is ignored while the flag lives, so that such a
//! write fails with `EFBIG` and the run stops with an error naming the file instead of
//! being killed.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first SIGINT or SIGTERM while [`Interrupts`] lives.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn interrupted(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// The handlers, installed until this is dropped.
pub struct Interrupts;

impl Interrupts {
    /// Installs the handlers (and clears the flag).
    pub fn install() -> Self {
        INTERRUPTED.store(false, Ordering::Relaxed);
        // SAFETY: the handler only stores to an atomic, which is async-signal-safe; the
        // sigaction structure is fully initialized (zeroed, then its fields set).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = interrupted as extern "C" fn(libc::c_int) as libc::sighandler_t;
            action.sa_flags = libc::SA_RESETHAND;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGINT, &action, std::ptr::null_mut());
            libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
        }
        Self
    }

    /// The flag the handlers set.
    pub fn flag(&self) -> &'static AtomicBool {
        &INTERRUPTED
    }
}

impl Drop for Interrupts {
    fn drop(&mut self) {
        // SAFETY: restores the default dispositions.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
        }
    }
}
