//! Transposition table: buckets of four entries, one 64-byte line each, shared between search
//! threads without locks. An entry is two `AtomicU64`s, the data and the key XOR the data, so a
//! torn write (two threads storing at once) reads back as a key mismatch, never as a wrong move
//! for the position.
//!
//! Data packing (64 bits): move 16 | score 16 | static eval 16 | depth 8 | generation 6, bound 2.
//! Mate scores are stored relative to the node (see `score_to_tt` / `score_from_tt` in the
//! search), so they do not depend on the ply at which they were found.
//!
//! Replacement: a bucket slot with the same key is always reused; otherwise the slot with the
//! lowest `depth - 4 * age` goes, so deep entries survive but old ones make room for new.

use crate::types::Move;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    None = 0,
    Upper = 1,
    Lower = 2,
    Exact = 3,
}

impl Bound {
    /// Whether a stored score `s` with this bound decides a node searched with the window
    /// (`alpha`, `beta`): exact, or a bound on the side of the window it lies beyond.
    #[inline]
    pub fn cuts(self, s: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => s >= beta,
            Bound::Upper => s <= alpha,
            Bound::None => false,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub mv: Move,
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;

/// The slots a key may use: one cache line, so that a probe reads one line from memory.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; BUCKET]);

pub struct TranspositionTable {
    table: Vec<Bucket>,
    buckets: usize,
    generation: AtomicU8,
}

fn pack(mv: Move, score: i32, eval: i32, depth: i32, generation: u8, bound: Bound) -> u64 {
    (mv.raw() as u64)
        | ((score as i16 as u16 as u64) << 16)
        | ((eval as i16 as u16 as u64) << 32)
        | ((depth.clamp(0, 255) as u64) << 48)
        | (((generation as u64) << 2 | bound as u64) << 56)
}

fn unpack(data: u64) -> (TtEntry, u8) {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Upper,
        2 => Bound::Lower,
        3 => Bound::Exact,
        _ => Bound::None,
    };
    (
        TtEntry {
            mv: Move::from_raw(data as u16),
            score: (data >> 16) as u16 as i16 as i32,
            eval: (data >> 32) as u16 as i16 as i32,
            depth: ((data >> 48) & 255) as i32,
            bound,
        },
        ((data >> 58) & 63) as u8,
    )
}

/// Asks Linux to back the memory at `addr` (`len` bytes) with transparent huge pages where it
/// can (`madvise(MADV_HUGEPAGE)`; honoured when the system's setting is `madvise` or
/// `always`). A probe lands anywhere in the table: with 4 KiB pages nearly every probe of a
/// large table also misses the address-translation cache, with 2 MiB pages few do. Only a
/// hint: nothing else changes when it is refused or the system is not Linux.
fn advise_huge_pages(addr: usize, len: usize) {
    #[cfg(target_os = "linux")]
    {
        unsafe extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        const PAGE: usize = 4096;
        let start = addr.next_multiple_of(PAGE);
        let end = (addr + len) & !(PAGE - 1);
        if end > start {
            // SAFETY: the range lies inside one live allocation of this process, and the
            // advice changes how it is backed, never its contents or its validity.
            unsafe { madvise(start as *mut std::ffi::c_void, end - start, MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (addr, len);
}

impl TranspositionTable {
    /// A table of `mb` megabytes. Panics when the memory cannot be had: for sizes that a user
    /// chooses, use [`TranspositionTable::try_new`].
    pub fn new(mb: usize) -> TranspositionTable {
        TranspositionTable::try_new(mb)
            .unwrap_or_else(|e| panic!("cannot allocate a {mb} MB hash table: {e}"))
    }

    /// A table of `mb` megabytes (at least one bucket), or the allocation error when the
    /// memory is not there (instead of aborting the process).
    pub fn try_new(mb: usize) -> Result<TranspositionTable, std::collections::TryReserveError> {
        let bytes = mb.max(1).saturating_mul(1024 * 1024);
        let buckets = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut table: Vec<Bucket> = Vec::new();
        table.try_reserve_exact(buckets)?;
        // Before the first touch, so that the kernel can back the table with huge pages.
        advise_huge_pages(
            table.as_ptr() as usize,
            buckets * std::mem::size_of::<Bucket>(),
        );
        table.resize_with(buckets, Bucket::default);
        Ok(TranspositionTable {
            table,
            buckets,
            generation: AtomicU8::new(0),
        })
    }

    /// Size in megabytes (rounded down).
    pub fn size_mb(&self) -> usize {
        self.table.len() * std::mem::size_of::<Bucket>() / (1024 * 1024)
    }

    pub fn clear(&self) {
        for s in self.slots() {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Starts a new search: entries from earlier searches age.
    pub fn new_search(&self) {
        let g = self.generation.load(Ordering::Relaxed);
        self.generation.store((g + 1) & 63, Ordering::Relaxed);
    }

    #[inline]
    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed)
    }

    fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.table.iter().flat_map(|b| b.0.iter())
    }

    #[inline]
    fn bucket(&self, key: u64) -> &[Slot] {
        let i = ((key as u128 * self.buckets as u128) >> 64) as usize;
        &self.table[i].0
    }

    /// Asks the processor to bring the bucket of `key` into the cache, so that a probe of it
    /// soon after does not wait for memory (a hint only: nothing changes if it is ignored).
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket = self.bucket(key).as_ptr() as *const i8;
            // SAFETY: SSE is part of every x86-64 processor, and a prefetch reads nothing: the
            // address is that of a bucket of this live table in any case.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for s in self.bucket(key) {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key && data != 0 {
                return Some(unpack(data).0);
            }
        }
        None
    }

    #[inline]
    pub fn store(&self, key: u64, mv: Move, score: i32, eval: i32, depth: i32, bound: Bound) {
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut victim_value = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 || s.check.load(Ordering::Relaxed) ^ data == key {
                // Same position: keep the old move if the new search found none, and do not
                // let a shallow non-exact result overwrite a much deeper one.
                if data != 0 {
                    let (old, _) = unpack(data);
                    if bound != Bound::Exact && depth + 3 < old.depth {
                        return;
                    }
                    let mv = if mv.is_none() { old.mv } else { mv };
                    let d = pack(mv, score, eval, depth, self.generation(), bound);
                    s.data.store(d, Ordering::Relaxed);
                    s.check.store(key ^ d, Ordering::Relaxed);
                    return;
                }
                victim = i;
                break;
            }
            let (e, generation) = unpack(data);
            let age = (self.generation().wrapping_sub(generation) & 63) as i32;
            let value = e.depth - 4 * age;
            if value < victim_value {
                victim_value = value;
                victim = i;
            }
        }
        let d = pack(mv, score, eval, depth, self.generation(), bound);
        bucket[victim].data.store(d, Ordering::Relaxed);
        bucket[victim].check.store(key ^ d, Ordering::Relaxed);
    }

    /// Permille of sampled slots filled in the current generation.
    pub fn hashfull(&self) -> u32 {
        let n = (self.table.len() * BUCKET).min(1000);
        if n == 0 {
            return 0;
        }
        let used = self
            .slots()
            .take(n)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && unpack(d).1 == self.generation()
            })
            .count();
        (used * 1000 / n) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Square;

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let m = Move::board(Square::new(20), Square::new(16), false);
        tt.store(0x1234_5678_9abc_def0, m, -31000, 55, 12, Bound::Lower);
        let e = tt.probe(0x1234_5678_9abc_def0).unwrap();
        assert_eq!(e.mv, m);
        assert_eq!(e.score, -31000);
        assert_eq!(e.eval, 55);
        assert_eq!(e.depth, 12);
        assert_eq!(e.bound, Bound::Lower);
        assert!(tt.probe(0x1234_5678_9abc_def1).is_none());
    }
}
