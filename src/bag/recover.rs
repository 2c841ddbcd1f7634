//! `signorini bag recover`: a cut MCAP file (its writer killed, its disk full) rewritten
//! whole, with the summary and footer that seeking readers (rosbag2, `rosbags`) need.
//!
//! The records are read from the start, as a streaming reader does; each chunk is taken
//! only if it is whole and its records all parse, so the output holds every message of the
//! input's complete chunks (and any message written outside chunks), with the input's
//! schema and channel ids, sequence numbers and times. Reading stops at the data end
//! record (a finished file) or at the first record that is cut or malformed.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use mcap::read::{ChunkReader, LinearReader, Options};
use mcap::records::Record;

use super::BagError;

/// What a recovery found and wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Complete chunks of the input.
    pub chunks: u64,
    /// Messages written.
    pub messages: u64,
    /// Channels written.
    pub channels: u64,
    /// Why reading stopped before the input's data end record (`None`: the input was
    /// finished).
    pub cut: Option<String>,
}

/// Rewrites the readable part of the MCAP file `input` into `output` (a new file, not
/// `input`), with its summary and footer. The input is read into memory whole.
pub fn recover(input: &Path, output: &Path) -> Result<Recovery, BagError> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize())
        && a == b
    {
        return Err(BagError::new(output, "is the input: write the recovered file elsewhere".into()));
    }
    let bytes = std::fs::read(input).map_err(|e| BagError::new(input, format!("cannot read: {e}")))?;
    let mut records = LinearReader::new_with_options(&bytes, Options::IgnoreEndMagic.into())
        .map_err(|e| BagError::new(input, format!("not an MCAP file: {e}")))?;
    let (profile, library) = match records.next() {
        Some(Ok(Record::Header(h))) => (h.profile, h.library),
        Some(Err(e)) => return Err(BagError::new(input, format!("not an MCAP file: {e}"))),
        _ => return Err(BagError::new(input, "not an MCAP file: no header record".into())),
    };
    let file = File::create(output).map_err(|e| BagError::new(output, format!("cannot create: {e}")))?;
    let mut writer = mcap::WriteOptions::new()
        .profile(profile)
        .library(library)
        .create(BufWriter::new(file))
        .map_err(|e| write_error(output, e))?;
    let mut recovery = Recovery { cut: Some("the file ends before its data end record".into()), ..Default::default() };
    for record in records {
        let record = match record {
            Ok(Record::DataEnd(_)) => {
                recovery.cut = None;
                break;
            }
            Ok(r) => r,
            Err(e) => {
                recovery.cut = Some(e.to_string());
                break;
            }
        };
        let inner = match record {
            Record::Chunk { header, data } => match chunk_records(header, &data) {
                Ok(inner) => {
                    recovery.chunks += 1;
                    inner
                }
                Err(e) => {
                    recovery.cut = Some(format!("a chunk does not read: {e}"));
                    break;
                }
            },
            r => vec![r],
        };
        for r in &inner {
            copy(&mut writer, r, &mut recovery).map_err(|e| write_error(output, e))?;
        }
    }
    writer.finish().map_err(|e| write_error(output, e))?;
    writer.into_inner().flush().map_err(|e| BagError::new(output, format!("cannot write: {e}")))?;
    Ok(recovery)
}

/// The records of a chunk, all of them or an error.
fn chunk_records(header: mcap::records::ChunkHeader, data: &[u8]) -> mcap::McapResult<Vec<Record<'static>>> {
    ChunkReader::new(header, data)?.map(|r| r.map(Record::into_owned)).collect()
}

/// Writes a schema, channel or message record with its ids; skips any other.
fn copy<W: Write + std::io::Seek>(
    writer: &mut mcap::Writer<W>,
    record: &Record,
    recovery: &mut Recovery,
) -> mcap::McapResult<()> {
    match record {
        Record::Schema { header, data } => {
            writer.add_schema_with_id(header.id, &header.name, &header.encoding, data)?;
        }
        Record::Channel(c) => {
            writer.add_channel_with_id(c.id, c.schema_id, &c.topic, &c.message_encoding, &c.metadata)?;
            recovery.channels += 1;
        }
        Record::Message { header, data } => {
            writer.write_to_known_channel(header, data)?;
            recovery.messages += 1;
        }
        _ => {}
    }
    Ok(())
}

fn write_error(path: &Path, e: mcap::McapError) -> BagError {
    match e {
        mcap::McapError::Io(e) => BagError::new(path, format!("cannot write: {e}")),
        e => BagError::new(path, e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bag::sink::BagSink;

    /// A finished file of 30 steps of two messages in chunks of 3 steps (see sink.rs), and
    /// the end offset of each chunk with the messages up to it.
    fn finished(path: &Path) -> Vec<(u64, u64)> {
        let mut sink = BagSink::create(path, 500).unwrap();
        let clock = sink.channel("/clock", "rosgraph_msgs/msg/Clock").unwrap();
        let states = sink.channel("/joint_states", "sensor_msgs/msg/JointState").unwrap();
        for k in 1..=30u32 {
            sink.write(clock, k, u64::from(k), &k.to_le_bytes().repeat(3)).unwrap();
            sink.write(states, k, u64::from(k), &[2; 100]).unwrap();
            sink.end_step().unwrap();
        }
        sink.finish().unwrap();
        let bytes = std::fs::read(path).unwrap();
        let summary = mcap::read::Summary::read(&bytes).unwrap().unwrap();
        assert_eq!(summary.chunk_indexes.len(), 10);
        let per_chunk = summary.chunk_indexes.iter().scan(0, |n, c| {
            *n += 6;
            Some((c.chunk_start_offset + c.chunk_length, *n))
        });
        per_chunk.collect()
    }

    #[test]
    fn a_file_cut_anywhere_recovers_the_messages_of_its_complete_chunks() {
        let dir = crate::scratch::private_dir("signorini-recover").unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        let (whole, cut, out) = (dir.join("whole.mcap"), dir.join("cut.mcap"), dir.join("out.mcap"));
        let chunks = finished(&whole);
        let bytes = std::fs::read(&whole).unwrap();
        let data_end = chunks.last().unwrap().0 as usize;
        // Magic, then the header record: opcode, length, body.
        let header_end = 8 + 9 + u64::from_le_bytes(bytes[9..17].try_into().unwrap()) as usize;
        let ends = chunks.iter().map(|c| c.0 as usize);
        for len in (0..=data_end).step_by(7).chain(ends).chain([data_end - 1]) {
            std::fs::write(&cut, &bytes[..len]).unwrap();
            let Ok(r) = recover(&cut, &out) else {
                assert!(len < header_end, "only a file cut inside its magic or header is refused ({len} bytes)");
                continue;
            };
            assert!(len >= header_end, "{len}");
            let expected = chunks.iter().rfind(|(end, _)| *end as usize <= len).map_or(0, |c| c.1);
            assert_eq!(r.messages, expected, "cut at {len} bytes");
            assert!(r.cut.is_some(), "{len}: no data end record, {r:?}");
            // The output is a finished file a seeking reader opens, with the same messages.
            let rewritten = std::fs::read(&out).unwrap();
            let summary = mcap::read::Summary::read(&rewritten).unwrap().unwrap();
            assert_eq!(summary.stats.map(|s| s.message_count), Some(expected));
            let messages: Vec<_> = mcap::MessageStream::new(&rewritten).unwrap().map(Result::unwrap).collect();
            let clocks: Vec<u32> = messages
                .iter()
                .filter(|m| m.channel.topic == "/clock")
                .map(|m| u32::from_le_bytes(m.data[..4].try_into().unwrap()))
                .collect();
            assert_eq!(clocks, (1..=expected as u32 / 2).collect::<Vec<_>>(), "{len}");
        }
        // A finished file is copied whole.
        let r = recover(&whole, &out).unwrap();
        assert_eq!((r.chunks, r.messages, r.channels, r.cut), (10, 60, 2, None));
        assert!(
            recover(&out, &out).unwrap_err().to_string().ends_with("is the input: write the recovered file elsewhere")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
