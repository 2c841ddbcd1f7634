//! OMG CDR, little endian, as ROS 2 serializes messages (the rmw's XCDR1 plain encoding):
//! a 4-byte encapsulation header, then each primitive aligned to its size relative to the
//! end of that header; strings as u32 length (with the NUL) + bytes + NUL; sequences as
//! u32 count + elements; fixed arrays as their elements.

/// A message being serialized.
#[derive(Clone, Debug, Default)]
pub struct CdrWriter {
    buf: Vec<u8>,
}

impl CdrWriter {
    /// Starts a little-endian CDR message.
    pub fn new() -> Self {
        Self { buf: vec![0x00, 0x01, 0x00, 0x00] }
    }

    fn align(&mut self, n: usize) {
        while !(self.buf.len() - 4).is_multiple_of(n) {
            self.buf.push(0);
        }
    }

    /// An int32.
    pub fn i32(&mut self, x: i32) -> &mut Self {
        self.align(4);
        self.buf.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A uint32.
    pub fn u32(&mut self, x: u32) -> &mut Self {
        self.align(4);
        self.buf.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A float64.
    pub fn f64(&mut self, x: f64) -> &mut Self {
        self.align(8);
        self.buf.extend_from_slice(&x.to_le_bytes());
        self
    }

    /// A string.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.u32(s.len() as u32 + 1);
        self.buf.extend_from_slice(s.as_bytes());
        self.buf.push(0);
        self
    }

    /// A float64[] sequence.
    pub fn f64_seq(&mut self, xs: &[f64]) -> &mut Self {
        self.u32(xs.len() as u32);
        for &x in xs {
            self.f64(x);
        }
        self
    }

    /// A string[] sequence.
    pub fn string_seq<S: AsRef<str>>(&mut self, xs: &[S]) -> &mut Self {
        self.u32(xs.len() as u32);
        for s in xs {
            self.string(s.as_ref());
        }
        self
    }

    /// The serialized bytes.
    pub fn finish(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn primitives_are_aligned_after_the_encapsulation_header() {
        let mut w = CdrWriter::new();
        w.i32(-1).string("ab").f64(1.0);
        let b = w.finish();
        assert_eq!(&b[..4], &[0, 1, 0, 0]);
        assert_eq!(&b[4..8], &(-1i32).to_le_bytes());
        assert_eq!(&b[8..12], &3u32.to_le_bytes());
        assert_eq!(&b[12..15], b"ab\0");
        // 11 bytes of payload so far: padded to 16 before the f64.
        assert_eq!(b.len(), 4 + 16 + 8);
        assert_eq!(&b[20..28], &1.0f64.to_le_bytes());
    }
}
