//! Real-time settings of the calling thread: SCHED_FIFO priority and CPU affinity.

/// Applies the settings to the calling thread. Returns one message per setting that could
/// not be applied (typically EPERM without CAP_SYS_NICE); the loop runs anyway.
pub fn apply(priority: Option<u8>, cpu: Option<usize>) -> Vec<String> {
    let mut warnings = Vec::new();
    // Linux lets a normal thread's timed sleep overshoot by its timer slack, 50 µs by
    // default: that alone would be the loop's median jitter. 1 ns is the minimum.
    // SAFETY: PR_SET_TIMERSLACK takes one integer argument and affects the calling thread.
    if unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) } != 0 {
        warnings.push(format!("could not reduce the loop's timer slack ({})", std::io::Error::last_os_error()));
    }
    if let Some(p) = priority {
        let param = libc::sched_param { sched_priority: i32::from(p) };
        // SAFETY: pid 0 is the calling thread; `param` is a valid sched_param.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
            warnings.push(format!(
                "realtime.priority: SCHED_FIFO priority {p} not applied ({}); running with normal scheduling",
                std::io::Error::last_os_error()
            ));
        }
    }
    if let Some(c) = cpu {
        // SAFETY: cpu_set_t is plain data; CPU_SET bounds-checks `c` against its size.
        let rc = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if c < libc::CPU_SETSIZE as usize {
                libc::CPU_SET(c, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
            } else {
                -1
            }
        };
        if rc != 0 {
            warnings
                .push(format!("realtime.cpu: could not pin the loop to CPU {c} ({})", std::io::Error::last_os_error()));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    #[test]
    fn nothing_requested_nothing_reported_and_the_timer_slack_is_minimal() {
        std::thread::spawn(|| {
            assert!(super::apply(None, None).is_empty());
            // SAFETY: PR_GET_TIMERSLACK takes no argument.
            assert_eq!(unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) }, 1);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn an_impossible_cpu_is_reported_not_fatal() {
        let w = super::apply(None, Some(100_000));
        assert_eq!(w.len(), 1);
        assert!(w[0].starts_with("realtime.cpu"));
    }
}
