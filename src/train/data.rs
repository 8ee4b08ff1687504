//! Training data: a binary file of fixed-size records behind a versioned header.
//!
//! Header (32 bytes, little endian): magic `GOGODATA`, u32 version, u32 record size, u64
//! record count, u64 reserved (zero). Then `count` records of [`RECORD_BYTES`]:
//! - bytes 0..16: the board as a u128, five bits per square in SFEN order (square `i` at bits
//!   `5i..5i+5`): 0 empty, `1 + kind` for sente, `11 + kind` for gote (kind = `PieceKind`
//!   index); bits 125..128 zero;
//! - bytes 16..20: a u32: hand counts, two bits each at `2 * (colour * 5 + hand kind)`
//!   (bits 0..20), side to move at bit 20 (1 = gote), game result for the side to move at
//!   bits 21..23 (0 loss, 1 draw, 2 win); the other bits zero;
//! - bytes 20..22: the search score, i16 centipawns for the side to move;
//! - bytes 22..24: u16 ply of the position in its game (0 = the game's first position).
//!
//! The reader refuses a file with another magic, version or record size, a length that does
//! not match the count (truncated or padded), and any record that does not decode to a legal
//! position (bad piece code, stray bits, too many men, two kings, nifu, ...), naming the record.

use crate::position::Position;
use crate::types::{Color, PieceKind, Square};
use std::fmt;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"GOGODATA";
pub const VERSION: u32 = 1;
pub const HEADER_BYTES: usize = 32;
pub const RECORD_BYTES: usize = 24;

/// One training position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub pos: Position,
    /// Search score in centipawns, side to move's point of view.
    pub score: i16,
    /// Game result for the side to move: 1 win, 0 draw, -1 loss.
    pub result: i8,
    pub ply: u16,
}

#[derive(Debug)]
pub enum DataError {
    Io(std::io::Error),
    BadMagic,
    UnsupportedVersion(u32),
    RecordSize(u32),
    Length { count: u64, bytes: u64 },
    BadRecord { index: u64, reason: String },
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DataError::Io(e) => write!(f, "cannot read the data file: {e}"),
            DataError::BadMagic => write!(f, "not a Gogo training data file (bad magic)"),
            DataError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "unsupported data version {v} (this build reads {VERSION})"
                )
            }
            DataError::RecordSize(s) => {
                write!(
                    f,
                    "record size {s} in header, this build needs {RECORD_BYTES}"
                )
            }
            DataError::Length { count, bytes } => write!(
                f,
                "header says {count} records ({} bytes) but the file has {bytes} bytes \
                 (truncated or damaged)",
                HEADER_BYTES as u64 + count * RECORD_BYTES as u64
            ),
            DataError::BadRecord { index, reason } => {
                write!(f, "record {index} is invalid: {reason}")
            }
        }
    }
}

impl std::error::Error for DataError {}

impl From<std::io::Error> for DataError {
    fn from(e: std::io::Error) -> Self {
        DataError::Io(e)
    }
}

fn piece_code(pos: &Position, sq: Square) -> u128 {
    match pos.piece_on(sq) {
        None => 0,
        Some(p) => 1 + p.kind.index() as u128 + 10 * p.color.index() as u128,
    }
}

impl Record {
    pub fn encode(&self) -> [u8; RECORD_BYTES] {
        let mut board = 0u128;
        for sq in Square::all() {
            board |= piece_code(&self.pos, sq) << (5 * sq.index());
        }
        let mut meta = 0u32;
        for c in Color::BOTH {
            for kind in PieceKind::HAND {
                let n = self.pos.hand(c).count(kind).min(3) as u32;
                meta |= n << (2 * (c.index() * 5 + kind.index()));
            }
        }
        meta |= (self.pos.side_to_move().index() as u32) << 20;
        meta |= ((self.result.clamp(-1, 1) + 1) as u32) << 21;
        let mut out = [0u8; RECORD_BYTES];
        out[..16].copy_from_slice(&board.to_le_bytes());
        out[16..20].copy_from_slice(&meta.to_le_bytes());
        out[20..22].copy_from_slice(&self.score.to_le_bytes());
        out[22..24].copy_from_slice(&self.ply.to_le_bytes());
        out
    }

    /// Decodes and validates one record (`index` only names it in errors).
    pub fn decode(b: &[u8], index: u64) -> Result<Record, DataError> {
        let bad = |reason: String| DataError::BadRecord { index, reason };
        if b.len() != RECORD_BYTES {
            return Err(bad(format!("{} bytes, {RECORD_BYTES} expected", b.len())));
        }
        let board = u128::from_le_bytes(b[..16].try_into().expect("16 bytes"));
        if board >> 125 != 0 {
            return Err(bad("stray bits after the 25th square".into()));
        }
        let meta = u32::from_le_bytes(b[16..20].try_into().expect("4 bytes"));
        if meta >> 23 != 0 {
            return Err(bad(format!("stray bits in the hand/side word {meta:#x}")));
        }
        let result = ((meta >> 21) & 3) as i8 - 1;
        if result > 1 {
            return Err(bad("result code 3".into()));
        }
        // Build the SFEN and let the rules core validate the position.
        let mut sfen = String::with_capacity(48);
        for r in 0..5 {
            let mut empty = 0;
            for c in 0..5 {
                let code = ((board >> (5 * (r * 5 + c))) & 31) as usize;
                if code == 0 {
                    empty += 1;
                    continue;
                }
                if code > 20 {
                    return Err(bad(format!("piece code {code} on square {}", r * 5 + c)));
                }
                if empty > 0 {
                    sfen.push((b'0' + empty) as char);
                    empty = 0;
                }
                let kind = PieceKind::from_index((code - 1) % 10);
                let color = if code > 10 {
                    Color::White
                } else {
                    Color::Black
                };
                let l = kind.letter();
                if kind.is_promoted() {
                    sfen.push('+');
                }
                sfen.push(if color == Color::Black {
                    l
                } else {
                    l.to_ascii_lowercase()
                });
            }
            if empty > 0 {
                sfen.push((b'0' + empty) as char);
            }
            if r < 4 {
                sfen.push('/');
            }
        }
        sfen.push_str(if meta & (1 << 20) != 0 { " w " } else { " b " });
        let mut hand = String::new();
        for c in Color::BOTH {
            for kind in PieceKind::HAND {
                let n = (meta >> (2 * (c.index() * 5 + kind.index()))) & 3;
                for _ in 0..n {
                    let l = kind.letter();
                    hand.push(if c == Color::Black {
                        l
                    } else {
                        l.to_ascii_lowercase()
                    });
                }
            }
        }
        sfen.push_str(if hand.is_empty() { "-" } else { &hand });
        let ply = u16::from_le_bytes([b[22], b[23]]);
        sfen.push_str(&format!(" {}", ply as u32 + 1));
        let pos = Position::from_sfen(&sfen).map_err(|e| bad(format!("{e} ({sfen})")))?;
        Ok(Record {
            pos,
            score: i16::from_le_bytes([b[20], b[21]]),
            result,
            ply,
        })
    }
}

fn header(count: u64) -> [u8; HEADER_BYTES] {
    let mut h = [0u8; HEADER_BYTES];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&(RECORD_BYTES as u32).to_le_bytes());
    h[16..24].copy_from_slice(&count.to_le_bytes());
    h
}

/// Checks a header and the file length; returns the record count.
pub fn check_header(h: &[u8], file_bytes: u64) -> Result<u64, DataError> {
    if h.len() < HEADER_BYTES {
        if h.len() >= 8 && &h[..8] != MAGIC {
            return Err(DataError::BadMagic);
        }
        return Err(DataError::Length {
            count: 0,
            bytes: file_bytes,
        });
    }
    if &h[..8] != MAGIC {
        return Err(DataError::BadMagic);
    }
    let version = u32::from_le_bytes(h[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(DataError::UnsupportedVersion(version));
    }
    let size = u32::from_le_bytes(h[12..16].try_into().expect("4 bytes"));
    if size as usize != RECORD_BYTES {
        return Err(DataError::RecordSize(size));
    }
    let count = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes"));
    let expected = count
        .checked_mul(RECORD_BYTES as u64)
        .and_then(|n| n.checked_add(HEADER_BYTES as u64));
    if expected != Some(file_bytes) {
        return Err(DataError::Length {
            count,
            bytes: file_bytes,
        });
    }
    Ok(count)
}

/// Checks magic, version and record size of a header, not the count.
fn check_prefix_header(h: &[u8; HEADER_BYTES]) -> Result<(), DataError> {
    let count = u64::from_le_bytes(h[16..24].try_into().expect("8 bytes"));
    check_header(
        h,
        (HEADER_BYTES as u64).saturating_add(count.saturating_mul(RECORD_BYTES as u64)),
    )
    .map(|_| ())
}

/// Reads a data file as raw records, each validated: all of them (`count` `None`: the header's
/// count must match the length, as for [`read_file`]), or only the first `count` of a file
/// that may still be growing (a shard being written: its header and later records ignored).
pub fn read_raw(path: &Path, count: Option<u64>) -> Result<Vec<[u8; RECORD_BYTES]>, DataError> {
    let mut f = File::open(path)?;
    let mut h = [0u8; HEADER_BYTES];
    let len = f.metadata()?.len();
    f.read_exact(&mut h).map_err(|_| DataError::Length {
        count: 0,
        bytes: len,
    })?;
    let count = match count {
        None => check_header(&h, len)?,
        Some(n) => {
            check_prefix_header(&h)?;
            if len < HEADER_BYTES as u64 + n * RECORD_BYTES as u64 {
                return Err(DataError::Length {
                    count: n,
                    bytes: len,
                });
            }
            n
        }
    };
    let mut bytes = vec![0u8; count as usize * RECORD_BYTES];
    f.read_exact(&mut bytes)?;
    let mut out = Vec::with_capacity(count as usize);
    for (i, chunk) in bytes.chunks_exact(RECORD_BYTES).enumerate() {
        Record::decode(chunk, i as u64)?;
        out.push(chunk.try_into().expect("a record"));
    }
    Ok(out)
}

/// Reads a data file's records (all, or the first `count`, as [`read_raw`]), decoded.
pub fn read_records(path: &Path, count: Option<u64>) -> Result<Vec<Record>, DataError> {
    read_raw(path, count)?
        .iter()
        .enumerate()
        .map(|(i, bytes)| Record::decode(bytes, i as u64))
        .collect()
}

/// Writes raw records as a data file.
pub fn write_raw(path: &Path, records: &[[u8; RECORD_BYTES]]) -> Result<(), DataError> {
    let mut out = BufWriter::new(File::create(path)?);
    out.write_all(&header(records.len() as u64))?;
    for r in records {
        out.write_all(r)?;
    }
    out.flush()?;
    out.get_mut().sync_all()?;
    Ok(())
}

/// The part of a raw record that names its position (board, hands, side to move), without
/// the score, the result and the ply.
pub fn position_key(r: &[u8; RECORD_BYTES]) -> (u128, u32) {
    let board = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
    let meta = u32::from_le_bytes(r[16..20].try_into().expect("4 bytes"));
    (board, meta & ((1 << 21) - 1))
}

/// Decodes a whole file held in memory.
pub fn decode_all(bytes: &[u8]) -> Result<Vec<Record>, DataError> {
    let count = check_header(&bytes[..bytes.len().min(HEADER_BYTES)], bytes.len() as u64)?;
    bytes[HEADER_BYTES..]
        .chunks_exact(RECORD_BYTES)
        .enumerate()
        .map(|(i, chunk)| Record::decode(chunk, i as u64))
        .take(count as usize)
        .collect()
}

/// The games of `records`, in the order a generator writes them (each game's positions
/// together, in the order they were played): index ranges of runs whose plies rise from one
/// record to the next. A shuffled file (the output of `merge`) has no such runs; its "games"
/// are mostly single positions.
pub fn games(records: &[Record]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=records.len() {
        if i == records.len() || records[i].ply <= records[i - 1].ply {
            if start < i {
                out.push(start..i);
            }
            start = i;
        }
    }
    out
}

/// Reads and validates a whole data file.
pub fn read_file(path: &Path) -> Result<Vec<Record>, DataError> {
    let mut bytes = Vec::new();
    File::open(path)?.read_to_end(&mut bytes)?;
    decode_all(&bytes)
}

/// Writes records; the header's count is rewritten by [`DataWriter::sync`] and
/// [`DataWriter::finish`], so a file cut short by a crash still reads up to the last sync.
pub struct DataWriter {
    out: BufWriter<File>,
    count: u64,
}

impl DataWriter {
    pub fn create(path: &Path) -> Result<DataWriter, DataError> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&header(0))?;
        Ok(DataWriter { out, count: 0 })
    }

    /// Opens an existing data file to append after its first `count` records: the file is cut
    /// to them (dropping records of a run that was killed) and its header rewritten.
    pub fn resume(path: &Path, count: u64) -> Result<DataWriter, DataError> {
        let mut f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        let mut h = [0u8; HEADER_BYTES];
        f.read_exact(&mut h)?;
        let len = f.metadata()?.len();
        let need = HEADER_BYTES as u64 + count * RECORD_BYTES as u64;
        check_prefix_header(&h)?;
        if len < need {
            return Err(DataError::Length { count, bytes: len });
        }
        f.set_len(need)?;
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&header(count))?;
        f.seek(SeekFrom::End(0))?;
        Ok(DataWriter {
            out: BufWriter::new(f),
            count,
        })
    }

    pub fn write(&mut self, r: &Record) -> Result<(), DataError> {
        self.out.write_all(&r.encode())?;
        self.count += 1;
        Ok(())
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    /// Flushes the records and makes the header count them.
    pub fn sync(&mut self) -> Result<(), DataError> {
        self.out.flush()?;
        let f = self.out.get_mut();
        f.seek(SeekFrom::Start(0))?;
        f.write_all(&header(self.count))?;
        f.seek(SeekFrom::End(0))?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64, DataError> {
        self.sync()?;
        self.out.get_mut().sync_all()?;
        Ok(self.count)
    }
}

/// Encodes records into an in-memory file (tests and tools).
pub fn encode_all(records: &[Record]) -> Vec<u8> {
    let mut out = header(records.len() as u64).to_vec();
    for r in records {
        out.extend_from_slice(&r.encode());
    }
    out
}
