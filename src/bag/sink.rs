//! The MCAP file of a recording, written so that an interrupted writer leaves a readable
//! file.
//!
//! MCAP ([spec](https://mcap.dev/spec)) puts messages in chunk records, each followed by
//! its message indexes; the summary section (chunk indexes, statistics) and the footer come
//! only when the file is finished. A seeking reader (rosbag2, `rosbags`, `mcap`'s
//! `SeekingReader`) starts from the footer, so a file whose writer died has none of its
//! messages for it; a streaming reader (`mcap`'s `StreamReader`, `mcap cat`) walks the
//! records from the start and yields the messages of every chunk it can read whole.
//!
//! The mcap crate's default writer leaves each chunk's length as a placeholder until the
//! chunk ends, and a chunk may grow to 1 MiB inside a `BufWriter`. Here instead:
//! - each chunk is built in memory and written whole with its length, then its message
//!   indexes (`disable_seeking`: the crate's buffered chunk mode);
//! - a chunk ends at the end of the first step (see [`BagSink::end_step`]) at which it holds
//!   [`CHUNK_BYTES`], so that chunks hold whole steps, the same steps on every run of a
//!   configuration;
//! - after each chunk the file's buffer is handed to the operating system (`flush`, no
//!   `fsync`): a process killed at any instant (SIGKILL, a panic, the OOM killer) leaves
//!   every complete chunk in the file, and at most the open chunk is lost. A power cut or
//!   a kernel crash may lose more (what the page cache had not written).
//!
//! [`crate::bag::recover`] rewrites such a file with its summary and footer.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use mcap::McapError;
use mcap::records::MessageHeader;
use mcap::write::NoSeek;

use super::BagError;
use super::messages;

/// Bytes of messages after which the open chunk is written at the end of a step: 256 KiB,
/// about 60 steps of the bundled quadruped (62 ms of simulated time).
pub const CHUNK_BYTES: usize = 256 * 1024;

/// Bytes of a message record besides its data: opcode, length, channel, sequence, two
/// times.
const MESSAGE_RECORD_BYTES: usize = 1 + 8 + 2 + 4 + 8 + 8;

/// What the file holds in chunks already handed to the operating system.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Complete chunks.
    pub chunks: u64,
    /// Messages in them.
    pub messages: u64,
}

/// An MCAP file (profile `ros2`) written chunk by chunk.
pub struct BagSink {
    path: PathBuf,
    writer: mcap::Writer<NoSeek<BufWriter<File>>>,
    chunk_bytes: usize,
    /// Message bytes in the open chunk.
    open_bytes: usize,
    /// Messages in the open chunk.
    open_messages: u64,
    written: Written,
}

impl BagSink {
    /// Creates `path`; a chunk ends at the first step end at which it holds `chunk_bytes`.
    pub fn create(path: &Path, chunk_bytes: usize) -> Result<Self, BagError> {
        let file = File::create(path).map_err(|e| BagError::new(path, format!("cannot create: {e}")))?;
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library(concat!("signorini ", env!("CARGO_PKG_VERSION")))
            .disable_seeking(true)
            // Chunks end where `end_step` says, never in the middle of a step.
            .chunk_size(None)
            .create(NoSeek::new(BufWriter::new(file)))
            .map_err(|e| write_error(path, e))?;
        Ok(Self {
            path: path.to_owned(),
            writer,
            chunk_bytes,
            open_bytes: 0,
            open_messages: 0,
            written: Written::default(),
        })
    }

    /// A channel of `msg_type` (e.g. `rosgraph_msgs/msg/Clock`, CDR encoded) on `topic`.
    pub fn channel(&mut self, topic: &str, msg_type: &str) -> Result<u16, BagError> {
        let schema = self
            .writer
            .add_schema(msg_type, "ros2msg", messages::schema(msg_type).as_bytes())
            .map_err(|e| write_error(&self.path, e))?;
        self.writer.add_channel(schema, topic, "cdr", &BTreeMap::new()).map_err(|e| write_error(&self.path, e))
    }

    /// One message, logged and published at `ns`.
    pub fn write(&mut self, channel_id: u16, sequence: u32, ns: u64, data: &[u8]) -> Result<(), BagError> {
        let header = MessageHeader { channel_id, sequence, log_time: ns, publish_time: ns };
        self.writer.write_to_known_channel(&header, data).map_err(|e| write_error(&self.path, e))?;
        self.open_bytes += MESSAGE_RECORD_BYTES + data.len();
        self.open_messages += 1;
        Ok(())
    }

    /// The end of a step: writes the open chunk if it holds the chunk size.
    pub fn end_step(&mut self) -> Result<(), BagError> {
        if self.open_bytes >= self.chunk_bytes { self.write_chunk() } else { Ok(()) }
    }

    /// Writes the open chunk (if any) and hands the file's buffer to the operating system.
    pub fn write_chunk(&mut self) -> Result<(), BagError> {
        self.writer.flush().map_err(|e| write_error(&self.path, e))?;
        if self.open_messages > 0 {
            self.written.chunks += 1;
            self.written.messages += self.open_messages;
        }
        self.open_bytes = 0;
        self.open_messages = 0;
        Ok(())
    }

    /// What the complete chunks hold.
    pub fn written(&self) -> Written {
        self.written
    }

    /// Writes the open chunk, the summary and the footer.
    pub fn finish(mut self) -> Result<Written, BagError> {
        self.write_chunk()?;
        self.writer.finish().map_err(|e| write_error(&self.path, e))?;
        Ok(self.written)
    }
}

/// A failed write of `path`, with the operating system's reason (`No space left on
/// device`, `File too large`) rather than the mcap crate's generic one.
fn write_error(path: &Path, e: McapError) -> BagError {
    match e {
        McapError::Io(e) => BagError::new(path, format!("cannot write: {e}")),
        e => BagError::new(path, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of `steps` steps of two messages (10 and 100 bytes), chunks of 500 bytes,
    /// left as a killed process leaves it (never finished, nothing dropped).
    fn killed_after(path: &Path, steps: u32) -> Written {
        let mut sink = BagSink::create(path, 500).unwrap();
        let clock = sink.channel("/clock", "rosgraph_msgs/msg/Clock").unwrap();
        let states = sink.channel("/joint_states", "sensor_msgs/msg/JointState").unwrap();
        for k in 1..=steps {
            sink.write(clock, k, u64::from(k), &[1; 10]).unwrap();
            sink.write(states, k, u64::from(k), &[2; 100]).unwrap();
            sink.end_step().unwrap();
        }
        let written = sink.written();
        std::mem::forget(sink);
        written
    }

    /// The messages a streaming read of `path` yields before the first record it cannot
    /// read: (channel, sequence) pairs.
    fn streamed(path: &Path) -> Vec<(u16, u32)> {
        let bytes = std::fs::read(path).unwrap();
        let options = mcap::read::Options::IgnoreEndMagic.into();
        let mut out = Vec::new();
        for record in mcap::read::LinearReader::new_with_options(&bytes, options).unwrap() {
            let (header, data) = match record {
                Ok(mcap::records::Record::Chunk { header, data }) => (header, data),
                Ok(_) => continue,
                Err(_) => break,
            };
            for inner in mcap::read::ChunkReader::new(header, &data).unwrap() {
                if let mcap::records::Record::Message { header, .. } = inner.unwrap() {
                    out.push((header.channel_id, header.sequence));
                }
            }
        }
        out
    }

    #[test]
    fn a_killed_writer_leaves_every_complete_chunk_of_whole_steps() {
        let dir = crate::scratch::private_dir("signorini-sink").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("killed.mcap");
        let written = killed_after(&path, 20);
        // 2 × 31 + 110 = 172 bytes a step: a chunk ends every third step (516 ≥ 500).
        assert_eq!(written, Written { chunks: 6, messages: 36 });
        let messages = streamed(&path);
        assert_eq!(messages.len(), 36);
        let steps: Vec<u32> = messages.iter().map(|m| m.1).step_by(2).collect();
        assert_eq!(steps, (1..=18).collect::<Vec<_>>(), "whole steps, in order");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_disk_is_an_error_naming_the_file() {
        let mut sink = BagSink::create(Path::new("/dev/full"), 100).unwrap();
        let clock = sink.channel("/clock", "rosgraph_msgs/msg/Clock").unwrap();
        sink.write(clock, 1, 1, &[0; 200]).unwrap();
        let e = sink.end_step().unwrap_err().to_string();
        assert!(e.starts_with("/dev/full: cannot write: No space left on device"), "{e}");
        // Finishing fails the same way, without panicking.
        assert!(sink.finish().unwrap_err().to_string().starts_with("/dev/full: "));
    }
}
