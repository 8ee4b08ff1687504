//! Bounded line reading: a line ends at LF, CR LF or a lone CR, and a line longer than
//! [`MAX_LINE`] is skipped as it is read, never held whole.

use std::io::BufRead;

/// Longest input line handled (a position with thousands of moves still fits); longer lines
/// are discarded as they are read, never held whole.
pub const MAX_LINE: usize = 1 << 20;

/// One line of input, or the note that a line was too long (and skipped).
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(String),
    TooLong(usize),
}

/// Reads lines ending in LF, CR LF or a lone CR, keeping at most [`MAX_LINE`] bytes of a line
/// in memory.
pub struct LineReader<R> {
    inner: R,
    /// The last line ended with CR: a LF right after it belongs to that line end.
    after_cr: bool,
    limit: usize,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R) -> Self {
        LineReader::with_limit(inner, MAX_LINE)
    }

    pub fn with_limit(inner: R, limit: usize) -> Self {
        LineReader {
            inner,
            after_cr: false,
            limit,
        }
    }

    /// The next line; `None` at the end of input (a last line without a line end counts).
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut length = 0usize;
        let mut any = false;
        loop {
            let buf = match self.inner.fill_buf() {
                Ok(b) => b,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buf.is_empty() {
                return Ok(any.then(|| self.finish(line, length)));
            }
            let mut start = 0;
            if self.after_cr {
                self.after_cr = false;
                if buf[0] == b'\n' {
                    start = 1;
                }
            }
            let end = buf[start..].iter().position(|&b| b == b'\n' || b == b'\r');
            let chunk_end = end.map_or(buf.len(), |e| start + e);
            let chunk = &buf[start..chunk_end];
            any |= !chunk.is_empty() || end.is_some();
            length += chunk.len();
            if line.len() < self.limit {
                let room = self.limit - line.len();
                line.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            match end {
                Some(_) => {
                    self.after_cr = buf[chunk_end] == b'\r';
                    self.inner.consume(chunk_end + 1);
                    return Ok(Some(self.finish(line, length)));
                }
                None => {
                    let n = buf.len();
                    self.inner.consume(n);
                }
            }
        }
    }

    fn finish(&self, line: Vec<u8>, length: usize) -> Line {
        if length > self.limit {
            Line::TooLong(length)
        } else {
            Line::Text(String::from_utf8_lossy(&line).into_owned())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], limit: usize) -> Vec<Line> {
        let mut r = LineReader::with_limit(input, limit);
        let mut out = Vec::new();
        while let Some(l) = r.next_line().unwrap() {
            out.push(l);
        }
        out
    }

    fn text(s: &str) -> Line {
        Line::Text(s.to_string())
    }

    #[test]
    fn every_line_end_counts() {
        assert_eq!(
            lines(b"isready\rquit\r", 100),
            vec![text("isready"), text("quit")]
        );
        assert_eq!(
            lines(b"a\r\nb\nc\r\rd", 100),
            vec![text("a"), text("b"), text("c"), text(""), text("d")]
        );
        assert_eq!(lines(b"", 100), vec![]);
    }

    #[test]
    fn long_lines_are_counted_not_kept() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        assert_eq!(lines(&input, 10), vec![Line::TooLong(50), text("ok")]);
        // A small buffer splits the line into many reads.
        let reader = std::io::BufReader::with_capacity(4, &input[..]);
        let mut r = LineReader::with_limit(reader, 10);
        assert_eq!(r.next_line().unwrap(), Some(Line::TooLong(50)));
        assert_eq!(r.next_line().unwrap(), Some(text("ok")));
        assert_eq!(r.next_line().unwrap(), None);
    }
}
