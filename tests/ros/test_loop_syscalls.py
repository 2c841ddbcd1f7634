"""The loop thread makes no blocking system call after start-up (issue 26, item 8).

The node runs the quadruped at 1 kHz (`mode: sim`, and `mode: sim+control` with the
controller in the same loop); strace attaches to its loop thread alone (the thread named
`signorini-loop`, found in /proc/PID/task/*/comm) once start-up is over and records every
system call that thread makes for SECONDS. Allowed, and why:

- clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ...): the wait for the next absolute
  deadline, the one place the loop is meant to block; `restart_syscall` resuming it (strace's
  attach interrupts the sleep in progress);
- futex(..., FUTEX_WAKE_PRIVATE, 1): the hand-off unparking a publisher thread after a sample
  (Rust's Thread::unpark); a wake never waits.

Anything else fails the test: a futex wait (a lock taken or a condition waited on), read,
write, sendto, poll, mmap, brk (an allocation reaching the kernel), ... clock_gettime does not
show: the vDSO answers it in user space.

strace (a Debian package) is installed by scripts/ros_env.sh with the other test tools. Run:
scripts/with_ros.sh python -m pytest tests/ros/test_loop_syscalls.py -s
"""

import collections
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import NodeProcess

SECONDS = 3.0
LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d+ (\w+)\((.*)$")


def loop_thread(pid):
    """The id of the process's thread named signorini-loop."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            if (task / "comm").read_text().strip() == "signorini-loop":
                return int(task.name)
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    raise AssertionError(f"process {pid} has no thread named signorini-loop")


def allowed(name, args):
    if name == "clock_nanosleep":
        return args.startswith("CLOCK_MONOTONIC, TIMER_ABSTIME")
    if name == "restart_syscall":
        return "clock_nanosleep" in args
    if name == "futex":
        return "FUTEX_WAKE" in args and "FUTEX_WAKE_OP" not in args
    return False


@pytest.mark.parametrize("config", ["config/quadruped.yaml", "config/quadruped_sim_control.yaml"])
def test_the_loop_thread_only_sleeps_and_wakes_after_start_up(config, tmp_path):
    strace = shutil.which("strace")
    assert strace, "strace is missing: scripts/ros_env.sh installs it (apt-get install strace)"
    node = NodeProcess("node", "--config", config)
    out = tmp_path / "loop.strace"
    try:
        node.wait_for_line("signorini: quadruped")
        time.sleep(1.0)  # well past the loop's first tick: start-up is over
        tid = loop_thread(node.proc.pid)
        tracer = subprocess.Popen([strace, "-tt", "-p", str(tid), "-o", str(out)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        time.sleep(SECONDS)
        tracer.send_signal(signal.SIGINT)  # detaches; the node runs on
        _, err = tracer.communicate(timeout=10)
        assert node.alive(), node.output()
    finally:
        code = node.stop()
    assert code == 0, node.output()
    calls = collections.Counter()
    forbidden = []
    for line in out.read_text().splitlines():
        m = LINE.match(line)
        if not m:
            continue  # "<... resumed>" halves, strace's own notes
        name, args = m.groups()
        calls[name if name != "futex" else "futex " + args.split(", ")[1]] += 1
        if not allowed(name, args):
            forbidden.append(line)
    sleeps = calls["clock_nanosleep"]
    print(f"{config}: loop thread {tid}, {SECONDS:.0f} s traced: {dict(calls)}")
    assert sleeps >= 0.5 * SECONDS * 1000, f"the trace saw {sleeps} periods of 1 ms in {SECONDS} s: {err}"
    assert not forbidden, f"{len(forbidden)} forbidden system calls on the loop thread, first ones:\n" + "\n".join(
        forbidden[:20])
