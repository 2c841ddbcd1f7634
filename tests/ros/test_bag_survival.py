"""Issue 26, item 1: recordings that survive. `signorini sim --bag` stopped by SIGINT or
SIGTERM finishes its file (the seeking `mcap` reader and `rosbags` read it whole); killed by
SIGKILL, or stopped by a full disk (a file size limit: EFBIG), it leaves every message of its
complete chunks to a streaming reader, and `signorini bag recover` makes that a file both
readers open.

The reference is the simulator itself: the same configuration run to its end (not paced, not
interrupted). The simulation is deterministic and a chunk ends at the end of the first step at
which it holds 256 KiB, so a cut file is a byte prefix of the reference file, and the
reference's chunk index (written by the simulator) says which chunks a cut at N bytes leaves
whole and how many messages they hold. The SIGKILL run's own progress line ("bag: M messages
in C complete chunks") is checked too: a cut file holds at least the messages it reported."""

import json
import re
import resource
import signal
import subprocess
import threading
import time

import pytest
from mcap.exceptions import EndOfFile, McapError
from mcap.reader import make_reader
from mcap.records import Channel, Chunk, Message
from mcap.stream_reader import StreamReader, breakup_chunk
from rosbags.rosbag2 import Reader, ReaderError

from conftest import ROOT, binary

CONFIG = "config/quadruped.yaml"
REFERENCE_STEPS = 3000
PROGRESS = re.compile(r"bag: (\d+) messages in (\d+) complete chunks")


def streamed(path):
    """(topic, log time, data) of every message a streaming reader yields before the file
    ends or is cut, and whether it was cut."""
    topics, out = {}, []
    with open(path, "rb") as f:
        try:
            for record in StreamReader(f).records:
                if isinstance(record, Channel):
                    topics[record.id] = record.topic
                elif isinstance(record, Message):
                    out.append((topics[record.channel_id], record.log_time, record.data))
        except EndOfFile:
            return out, True
    return out, False


def seeking(path):
    """The seeking reader's summary and messages (it needs the summary and footer)."""
    with open(path, "rb") as f:
        reader = make_reader(f)
        summary = reader.get_summary()
        return summary, [(c.topic, m.log_time, m.data) for _, c, m in reader.iter_messages(log_time_order=False)]


def with_rosbags(path):
    with Reader(path) as reader:
        return [(c.topic, t, bytes(raw)) for c, t, raw in reader.messages()]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The finished reference run: its bytes, messages, topics, and for each chunk the
    offset where it ends and the number of messages up to its end."""
    path = tmp_path_factory.mktemp("reference") / "reference.mcap"
    summary_path = path.with_suffix(".json")
    subprocess.run([binary(), "sim", "--config", CONFIG, "--duration", str(REFERENCE_STEPS / 1000),
                    "--bag", str(path), "--json", str(summary_path)], cwd=ROOT, check=True, capture_output=True)
    summary = json.loads(summary_path.read_text())
    index, messages = seeking(path)
    topics = len(index.channels)
    assert summary["steps"] == REFERENCE_STEPS and summary["bag_messages"] == REFERENCE_STEPS * topics
    # README: 59 900 steps/s with a bag (median of 5 runs of 20 s); a tenth of that here.
    print(f"reference: {summary['steps_per_s']:.0f} steps/s with the bag")
    assert summary["steps_per_s"] > 6000, summary
    assert index.statistics.message_count == len(messages) == REFERENCE_STEPS * topics
    counts = []
    with open(path, "rb") as f:
        for record in StreamReader(f, emit_chunks=True).records:
            if isinstance(record, Chunk):
                counts.append(sum(isinstance(r, Message) for r in breakup_chunk(record)))
    ends, total = [], 0
    for chunk, count in zip(sorted(index.chunk_indexes, key=lambda c: c.chunk_start_offset), counts, strict=True):
        total += count
        ends.append((chunk.chunk_start_offset + chunk.chunk_length, total))
    return {"bytes": path.read_bytes(), "messages": messages, "topics": topics, "chunks": ends}


class Run:
    """`signorini sim --realtime` recording a bag, its stderr read by a thread."""

    def __init__(self, bag, *extra):
        self.proc = subprocess.Popen([binary(), "sim", "--config", CONFIG, "--duration", "30", "--realtime",
                                      "--bag", str(bag), *extra], cwd=ROOT, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.err = []
        self._thread = threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True)
        self._thread.start()

    def reported(self, timeout=30.0):
        """Waits for a progress line with the bag's count; the messages it reports."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            counts = [int(m.group(1)) for m in map(PROGRESS.search, list(self.err)) if m]
            if counts:
                return counts[-1]
            assert self.proc.poll() is None, "".join(self.err)
            time.sleep(0.02)
        raise AssertionError(f"no progress line within {timeout} s: {''.join(self.err)}")

    def stop(self, sig, timeout=20.0):
        self.proc.send_signal(sig)
        out, _ = self.proc.communicate(timeout=timeout)
        self._thread.join(timeout=2)
        return self.proc.returncode, out, "".join(self.err)


def complete_chunks(reference, size):
    """The messages of the reference's chunks that end within `size` bytes."""
    return max([n for end, n in reference["chunks"] if end <= size], default=0)


def check_cut_file(path, reference):
    """A cut file: a prefix of the reference; the streaming reader yields exactly the
    messages of its complete chunks, in whole steps; the seeking readers refuse it;
    `signorini bag recover` gives a file both read whole. Returns the message count."""
    data = path.read_bytes()
    assert len(data) < len(reference["bytes"]), "the run went past the reference"
    assert data == reference["bytes"][:len(data)], "a cut file is a prefix of the finished one"
    expected = complete_chunks(reference, len(data))
    assert expected > 0, f"no complete chunk in {len(data)} bytes"
    messages, cut = streamed(path)
    assert cut
    assert len(messages) == expected, (len(messages), expected)
    assert messages == reference["messages"][:expected]
    steps = expected // reference["topics"]
    assert expected == steps * reference["topics"], "chunks hold whole steps"
    clocks = [t for topic, t, _ in messages if topic == "/clock"]
    assert clocks == [k * 1_000_000 for k in range(1, steps + 1)]
    # Without summary and footer, the seeking readers refuse it.
    with pytest.raises(McapError):
        seeking(path)
    with pytest.raises(ReaderError):
        with_rosbags(path)

    recovered = path.with_name("recovered.mcap")
    result = subprocess.run([binary(), "bag", "recover", str(path), str(recovered)], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    print(result.stdout.strip())
    assert f"recover: {expected} messages on {reference['topics']} channels" in result.stdout
    summary, again = seeking(recovered)
    assert summary.statistics.message_count == expected and again == messages
    assert with_rosbags(recovered) == messages
    return expected


def test_sigint_and_sigterm_finish_the_bag_which_both_readers_read_whole(tmp_path, reference):
    for sig in (signal.SIGINT, signal.SIGTERM):
        bag, summary_path = tmp_path / f"{sig.name}.mcap", tmp_path / f"{sig.name}.json"
        run = Run(bag, "--json", str(summary_path))
        run.reported()
        code, out, err = run.stop(sig)
        assert code == 0, err
        assert "interrupted at t = " in out
        summary = json.loads(summary_path.read_text())
        steps, topics = summary["steps"], reference["topics"]
        assert summary["interrupted"] and 1000 <= steps < REFERENCE_STEPS, summary
        assert summary["bag_messages"] == steps * topics

        index, messages = seeking(bag)
        assert index.statistics.message_count == len(messages) == steps * topics
        assert messages == reference["messages"][:steps * topics]
        assert with_rosbags(bag) == messages
        print(f"{sig.name}: {steps} steps, {len(messages)} messages, {bag.stat().st_size} bytes")


def test_sigkill_leaves_every_message_of_the_complete_chunks(tmp_path, reference):
    bag = tmp_path / "killed.mcap"
    run = Run(bag)
    reported = run.reported()
    time.sleep(0.25)
    code, _, err = run.stop(signal.SIGKILL)
    assert code == -signal.SIGKILL
    n = check_cut_file(bag, reference)
    assert n >= reported, f"the sim reported {reported} messages in complete chunks, the file has {n}"
    print(f"SIGKILL: {n} messages in complete chunks ({reported} reported), {bag.stat().st_size} bytes")


def test_a_full_disk_is_an_error_naming_the_file_and_the_complete_chunks_stay(tmp_path, reference):
    bag = tmp_path / "full.mcap"
    limit = 1_500_000

    def limit_file_size():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    result = subprocess.run([binary(), "sim", "--config", CONFIG, "--duration", "2", "--bag", str(bag)],
                            cwd=ROOT, capture_output=True, text=True, preexec_fn=limit_file_size, timeout=60)
    assert result.returncode == 1, (result.returncode, result.stderr)
    errors = [line for line in result.stderr.splitlines() if not line.startswith("signorini sim: t = ")]
    assert errors == [f"signorini: error: {bag}: cannot write: File too large (os error 27)"], result.stderr
    assert bag.stat().st_size == limit
    n = check_cut_file(bag, reference)
    print(f"file size limit {limit} bytes: {n} messages in complete chunks")
