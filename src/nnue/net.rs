//! The quantised network: i16 feature transformer, i16 accumulators, SCReLU, one i16 output
//! neuron with an i32 sum. SIMD through `std::arch` (AVX2, detected at run time) with a scalar
//! path that gives bit-identical results (all sums wrap the same way; tested).
//!
//! File format (little endian): the 8-byte magic `GOGONNUE`, then u32 version, features,
//! hidden, QA, QB, SCALE, (version 2 only) u32 output buckets, u64 payload length, u64 FNV-1a
//! hash of the payload, then the payload: feature weights (features x hidden i16, row by
//! feature), feature biases (hidden i16), output weights (per output bucket 2 x hidden i16:
//! side to move first), output biases (one i32 per bucket). Version 1 is the net of one
//! output bucket, and such a net is always written as version 1, so its bytes and hash are
//! those of the nets made before output buckets existed.

use super::features::{self, Change, FEATURES};
use super::{HIDDEN, QA, QB, SCALE};
use crate::position::Position;
use crate::types::{Color, Move};
use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// FNV-1a over bytes: the content hash of net files (quantised and float).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

pub const MAGIC: &[u8; 8] = b"GOGONNUE";
/// The newest version this build writes and reads (it reads version 1 as well).
pub const VERSION: u32 = 2;
/// Header of a version 1 file (one output bucket).
const HEADER_V1: usize = 8 + 6 * 4 + 8 + 8;
/// Header of a version 2 file (with the number of output buckets).
const HEADER_V2: usize = HEADER_V1 + 4;

/// The header size of a file of `version`.
fn header_bytes(version: u32) -> usize {
    if version == 1 {
        HEADER_V1
    } else {
        HEADER_V2
    }
}

/// Whether a net may have `n` output buckets: one, or [`features::OUTPUT_BUCKETS`].
pub fn valid_buckets(n: usize) -> bool {
    n == 1 || n == features::OUTPUT_BUCKETS
}

/// What a path names, for the error that refuses it as a net file.
fn file_type_name(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "an unusual file type"
    }
}

/// Why a net file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetError {
    Io(String),
    TooShort(usize),
    BadMagic,
    UnsupportedVersion(u32),
    Shape {
        what: &'static str,
        found: u32,
        expected: u32,
    },
    Length {
        found: u64,
        expected: u64,
    },
    BadHash,
    /// The path names something other than a regular file (what it is).
    NotAFile(&'static str),
    /// A float net whose values cannot be quantised (not finite, or out of range).
    Unquantisable(String),
}

impl fmt::Display for NetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NetError::Io(e) => write!(f, "cannot read the net file: {e}"),
            NetError::TooShort(n) => write!(f, "net file too short ({n} bytes) for a header"),
            NetError::BadMagic => write!(f, "not a Gogo NNUE file (bad magic)"),
            NetError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "unsupported net version {v} (this build reads 1 to {VERSION})"
                )
            }
            NetError::Shape {
                what,
                found,
                expected,
            } => write!(f, "net has {what} {found}, this build needs {expected}"),
            NetError::Length { found, expected } => write!(
                f,
                "net payload is {found} bytes, {expected} expected (truncated or damaged)"
            ),
            NetError::BadHash => write!(f, "net payload hash mismatch (damaged file)"),
            NetError::NotAFile(what) => write!(f, "not a regular file ({what})"),
            NetError::Unquantisable(e) => write!(f, "net cannot be quantised: {e}"),
        }
    }
}

impl std::error::Error for NetError {}

/// The two perspectives' accumulators, indexed by colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(32))]
pub struct Accumulator {
    pub v: [[i16; HIDDEN]; 2],
}

impl Default for Accumulator {
    fn default() -> Self {
        Accumulator {
            v: [[0; HIDDEN]; 2],
        }
    }
}

/// Which code computes the accumulator and output.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kernel {
    Scalar,
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU runs (detected once).
    pub fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| {
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    return Kernel::Avx2;
                }
            }
            Kernel::Scalar
        })
    }

    /// Every kernel this CPU can run (for tests comparing them).
    pub fn available() -> Vec<Kernel> {
        let mut k = vec![Kernel::Scalar];
        if Kernel::best() == Kernel::Avx2 {
            k.push(Kernel::Avx2);
        }
        k
    }
}

#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    /// FEATURES x HIDDEN, row `f` = weights of feature `f`.
    pub ft_w: Vec<i16>,
    pub ft_b: Vec<i16>,
    /// Output buckets: 1, or [`features::OUTPUT_BUCKETS`] (chosen by
    /// [`features::output_bucket`]).
    pub buckets: usize,
    /// buckets x 2 x HIDDEN: per bucket, the side to move's accumulator first.
    pub out_w: Vec<i16>,
    /// One per bucket.
    pub out_b: Vec<i32>,
}

impl fmt::Debug for Network {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Network({} features x {HIDDEN}, {} output buckets, hash {:016x})",
            FEATURES,
            self.buckets,
            self.hash()
        )
    }
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Network {
    /// The payload size of a net of `buckets` output buckets.
    pub const fn payload_bytes(buckets: usize) -> usize {
        (FEATURES * HIDDEN + HIDDEN + buckets * 2 * HIDDEN) * 2 + 4 * buckets
    }

    /// A net of zeros (evaluates everything as 0) with one output bucket.
    pub fn zeros() -> Network {
        Network {
            ft_w: vec![0; FEATURES * HIDDEN],
            ft_b: vec![0; HIDDEN],
            buckets: 1,
            out_w: vec![0; 2 * HIDDEN],
            out_b: vec![0],
        }
    }

    fn payload(&self) -> Vec<u8> {
        let mut p = Vec::with_capacity(Self::payload_bytes(self.buckets));
        for v in self.ft_w.iter().chain(&self.ft_b).chain(&self.out_w) {
            p.extend_from_slice(&v.to_le_bytes());
        }
        for b in &self.out_b {
            p.extend_from_slice(&b.to_le_bytes());
        }
        p
    }

    /// The FNV-1a hash of the payload (names a net in logs and docs).
    pub fn hash(&self) -> u64 {
        fnv1a(&self.payload())
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = self.payload();
        let version = if self.buckets == 1 { 1 } else { VERSION };
        let mut out = Vec::with_capacity(header_bytes(version) + payload.len());
        out.extend_from_slice(MAGIC);
        for v in [
            version,
            FEATURES as u32,
            HIDDEN as u32,
            QA as u32,
            QB as u32,
            SCALE as u32,
        ] {
            put_u32(&mut out, v);
        }
        if version >= 2 {
            put_u32(&mut out, self.buckets as u32);
        }
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&fnv1a(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    /// Checks a net file's header (magic, version, shape) and returns what it declares: the
    /// payload length, the output buckets and the header's size. `b` holds at least the
    /// header.
    fn check_header(b: &[u8]) -> Result<Header, NetError> {
        if b.len() < HEADER_V1 {
            if b.len() >= 8 && &b[..8] != MAGIC {
                return Err(NetError::BadMagic);
            }
            return Err(NetError::TooShort(b.len()));
        }
        if &b[..8] != MAGIC {
            return Err(NetError::BadMagic);
        }
        let version = u32_at(b, 8);
        if !(1..=VERSION).contains(&version) {
            return Err(NetError::UnsupportedVersion(version));
        }
        let header = header_bytes(version);
        if b.len() < header {
            return Err(NetError::TooShort(b.len()));
        }
        let shape = [
            ("features", FEATURES as u32),
            ("hidden size", HIDDEN as u32),
            ("QA", QA as u32),
            ("QB", QB as u32),
            ("scale", SCALE as u32),
        ];
        for (i, (what, expected)) in shape.into_iter().enumerate() {
            let found = u32_at(b, 12 + 4 * i);
            if found != expected {
                return Err(NetError::Shape {
                    what,
                    found,
                    expected,
                });
            }
        }
        let buckets = if version == 1 { 1 } else { u32_at(b, 32) };
        if !valid_buckets(buckets as usize) {
            return Err(NetError::Shape {
                what: "output buckets",
                found: buckets,
                expected: features::OUTPUT_BUCKETS as u32,
            });
        }
        Ok(Header {
            len: u64_at(b, header - 16),
            hash: u64_at(b, header - 8),
            buckets: buckets as usize,
            bytes: header,
        })
    }

    /// Parses a net file, checking magic, version, shape, length and hash.
    pub fn from_bytes(b: &[u8]) -> Result<Network, NetError> {
        let h = Self::check_header(b)?;
        let payload = &b[h.bytes..];
        let expected = Self::payload_bytes(h.buckets) as u64;
        if h.len != expected || payload.len() as u64 != expected {
            return Err(NetError::Length {
                found: payload.len() as u64,
                expected,
            });
        }
        let hash = h.hash;
        if fnv1a(payload) != hash {
            return Err(NetError::BadHash);
        }
        let mut words = payload
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]));
        let mut take = |n: usize| -> Vec<i16> { words.by_ref().take(n).collect() };
        let ft_w = take(FEATURES * HIDDEN);
        let ft_b = take(HIDDEN);
        let out_w = take(h.buckets * 2 * HIDDEN);
        let tail = &payload[payload.len() - 4 * h.buckets..];
        let out_b = tail
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Ok(Network {
            ft_w,
            ft_b,
            buckets: h.buckets,
            out_w,
            out_b,
        })
    }

    /// Loads a net file (the `EvalFile` option): any error leaves the caller's net untouched.
    ///
    /// Only a regular file whose size is that of a net of this build is read, and it is read
    /// only after its header has been checked: a FIFO, a device (`/dev/zero`, `/dev/stdin` on
    /// a terminal or pipe), a directory or a huge file is refused at once, never read whole.
    pub fn load(path: &Path) -> Result<Network, NetError> {
        use std::io::Read;
        let io = |e: std::io::Error| NetError::Io(format!("{}: {e}", path.display()));
        let not_regular = |t: std::fs::FileType| NetError::NotAFile(file_type_name(t));
        let meta = std::fs::metadata(path).map_err(io)?;
        if !meta.is_file() {
            return Err(not_regular(meta.file_type()));
        }
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        // Opening a FIFO for reading blocks until a writer comes; non-blocking, the open
        // returns and the check below refuses it (the path may have changed since the look).
        #[cfg(target_os = "linux")]
        {
            use std::os::unix::fs::OpenOptionsExt;
            const O_NONBLOCK: i32 = 0o4000;
            options.custom_flags(O_NONBLOCK);
        }
        let mut file = options.open(path).map_err(io)?;
        let meta = file.metadata().map_err(io)?;
        if !meta.is_file() {
            return Err(not_regular(meta.file_type()));
        }
        let size = meta.len();
        // The longer header's worth (a version 1 file is far longer than that).
        let mut bytes = vec![0u8; HEADER_V2.min(size as usize)];
        file.read_exact(&mut bytes).map_err(io)?;
        let h = Self::check_header(&bytes)?;
        let expected = Self::payload_bytes(h.buckets) as u64;
        if h.len != expected || size != h.bytes as u64 + expected {
            return Err(NetError::Length {
                found: size.saturating_sub(h.bytes as u64),
                expected,
            });
        }
        let rest = h.bytes as u64 + expected - bytes.len() as u64;
        bytes.reserve_exact(rest as usize);
        // `take`: a file that grew since the look is still read no further than a net's size.
        file.take(rest).read_to_end(&mut bytes).map_err(io)?;
        Network::from_bytes(&bytes)
    }

    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        std::fs::write(path, self.to_bytes())
    }

    #[inline(always)]
    fn row(&self, f: u16) -> &[i16] {
        let f = f as usize;
        &self.ft_w[f * HIDDEN..(f + 1) * HIDDEN]
    }

    /// Recomputes perspective `p`'s accumulator from scratch.
    pub fn refresh(&self, pos: &Position, p: Color, acc: &mut Accumulator, kernel: Kernel) {
        let list = features::active(pos, p);
        let mut rows: [&[i16]; features::MAX_ACTIVE] = [&[]; features::MAX_ACTIVE];
        for (r, &f) in rows.iter_mut().zip(list.as_slice()) {
            *r = self.row(f);
        }
        apply(
            kernel,
            &self.ft_b,
            &rows[..list.len()],
            &[],
            &mut acc.v[p.index()],
        );
    }

    /// Both accumulators of `pos` from scratch.
    pub fn refresh_all(&self, pos: &Position, kernel: Kernel) -> Accumulator {
        let mut acc = Accumulator::default();
        self.refresh_into(pos, &mut acc, kernel);
        acc
    }

    /// Both accumulators of `pos` from scratch, written over `acc`.
    pub fn refresh_into(&self, pos: &Position, acc: &mut Accumulator, kernel: Kernel) {
        for p in Color::BOTH {
            self.refresh(pos, p, acc, kernel);
        }
    }

    /// The accumulators after the legal move `m`, from those of `before` (whose position
    /// after `m` is `after`): the features that changed, or a refresh for the mover's side
    /// when its king moved.
    pub fn update(
        &self,
        before: &Position,
        m: Move,
        after: &Position,
        acc: &Accumulator,
        kernel: Kernel,
    ) -> Accumulator {
        let mut next = Accumulator::default();
        self.update_into(before, m, after, acc, &mut next, kernel);
        next
    }

    /// [`Network::update`] written over `next` (every element of it), which saves the search
    /// an accumulator's zeroing and copy per update.
    pub fn update_into(
        &self,
        before: &Position,
        m: Move,
        after: &Position,
        acc: &Accumulator,
        next: &mut Accumulator,
        kernel: Kernel,
    ) {
        let changes = features::changes(before, m);
        for p in Color::BOTH {
            match changes[p.index()] {
                Change::Refresh => self.refresh(after, p, next, kernel),
                Change::Delta {
                    add,
                    n_add,
                    sub,
                    n_sub,
                } => {
                    let a: [&[i16]; 2] = [self.row(add[0]), self.row(add[1])];
                    let s: [&[i16]; 2] = [self.row(sub[0]), self.row(sub[1])];
                    apply(
                        kernel,
                        &acc.v[p.index()],
                        &a[..n_add],
                        &s[..n_sub],
                        &mut next.v[p.index()],
                    );
                }
            }
        }
    }

    /// The evaluation in centipawns for the side to move of `pos` from its accumulators.
    pub fn evaluate(&self, acc: &Accumulator, pos: &Position, kernel: Kernel) -> i32 {
        let stm = pos.side_to_move();
        let b = features::net_bucket(self.buckets, pos);
        let w = &self.out_w[b * 2 * HIDDEN..(b + 1) * 2 * HIDDEN];
        let sum = screlu_dot(kernel, &acc.v[stm.index()], &w[..HIDDEN]).wrapping_add(screlu_dot(
            kernel,
            &acc.v[(!stm).index()],
            &w[HIDDEN..],
        ));
        (sum / QA + self.out_b[b]) * SCALE / (QA * QB)
    }

    /// The evaluation of `pos` for its side to move, from fresh accumulators.
    pub fn evaluate_position(&self, pos: &Position) -> i32 {
        let k = Kernel::best();
        self.evaluate(&self.refresh_all(pos, k), pos, k)
    }
}

/// What a net file's header declares.
struct Header {
    /// Payload bytes.
    len: u64,
    hash: u64,
    buckets: usize,
    /// The header's own size.
    bytes: usize,
}

/// `dst = src + sum(add) - sum(sub)`, element-wise with wrapping i16 arithmetic.
pub fn apply(kernel: Kernel, src: &[i16], add: &[&[i16]], sub: &[&[i16]], dst: &mut [i16; HIDDEN]) {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => {
            // SAFETY: `Kernel::Avx2` is only handed out when the CPU has AVX2.
            unsafe { avx2::apply(src, add, sub, dst) }
        }
        _ => {
            dst.copy_from_slice(&src[..HIDDEN]);
            for row in add {
                for (d, &w) in dst.iter_mut().zip(row.iter()) {
                    *d = d.wrapping_add(w);
                }
            }
            for row in sub {
                for (d, &w) in dst.iter_mut().zip(row.iter()) {
                    *d = d.wrapping_sub(w);
                }
            }
        }
    }
}

/// `sum(clamp(acc, 0, QA)^2 * w)` with the product formed as `(v * w as i16) * v` (exact for
/// |w| <= 128), summed with wrapping i32 arithmetic, which is order-independent.
pub fn screlu_dot(kernel: Kernel, acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
    match kernel {
        #[cfg(target_arch = "x86_64")]
        Kernel::Avx2 => {
            // SAFETY: `Kernel::Avx2` is only handed out when the CPU has AVX2.
            unsafe { avx2::screlu_dot(acc, w) }
        }
        _ => {
            let mut sum = 0i32;
            for (&a, &w) in acc.iter().zip(w.iter()) {
                let v = a.clamp(0, QA as i16);
                let t = v.wrapping_mul(w);
                sum = sum.wrapping_add(t as i32 * v as i32);
            }
            sum
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{HIDDEN, QA};
    use std::arch::x86_64::*;

    const LANES: usize = 16;
    const _: () = assert!(HIDDEN.is_multiple_of(LANES));

    const REGS: usize = HIDDEN / LANES;

    /// The whole accumulator lives in `REGS` registers while the rows are added.
    #[target_feature(enable = "avx2")]
    pub unsafe fn apply(src: &[i16], add: &[&[i16]], sub: &[&[i16]], dst: &mut [i16; HIDDEN]) {
        assert!(src.len() >= HIDDEN);
        assert!(add.iter().chain(sub.iter()).all(|r| r.len() >= HIDDEN));
        let mut regs = [_mm256_setzero_si256(); REGS];
        // SAFETY (all loads and stores below): every slice holds at least HIDDEN elements
        // (asserted) and the offsets are below HIDDEN - 15.
        for (k, r) in regs.iter_mut().enumerate() {
            *r = unsafe { _mm256_loadu_si256(src.as_ptr().add(k * LANES) as *const __m256i) };
        }
        for row in add {
            for (k, r) in regs.iter_mut().enumerate() {
                let w =
                    unsafe { _mm256_loadu_si256(row.as_ptr().add(k * LANES) as *const __m256i) };
                *r = _mm256_add_epi16(*r, w);
            }
        }
        for row in sub {
            for (k, r) in regs.iter_mut().enumerate() {
                let w =
                    unsafe { _mm256_loadu_si256(row.as_ptr().add(k * LANES) as *const __m256i) };
                *r = _mm256_sub_epi16(*r, w);
            }
        }
        for (k, r) in regs.iter().enumerate() {
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(k * LANES) as *mut __m256i, *r) };
        }
    }

    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(acc: &[i16; HIDDEN], w: &[i16]) -> i32 {
        assert!(w.len() >= HIDDEN);
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for i in (0..HIDDEN).step_by(LANES) {
            // SAFETY: both slices hold at least HIDDEN elements, i + 16 <= HIDDEN.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i) as *const __m256i);
                let v = _mm256_min_epi16(_mm256_max_epi16(a, zero), qa);
                let ww = _mm256_loadu_si256(w.as_ptr().add(i) as *const __m256i);
                let t = _mm256_mullo_epi16(v, ww);
                sum = _mm256_add_epi32(sum, _mm256_madd_epi16(t, v));
            }
        }
        let mut lanes = [0i32; 8];
        // SAFETY: `lanes` is 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, sum) };
        lanes.iter().fold(0i32, |s, &x| s.wrapping_add(x))
    }
}
