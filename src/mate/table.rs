//! The mate solver's transposition table: entries packed into six words, buckets of
//! `BUCKET` entries per board, and hand domination (see the parent module's notes). Kept apart
//! from the df-pn search so that the packing and the replacement rules can be read (and
//! changed) without the search around them.

use super::{Val, DIS_ALL, F_DEPTH, INF, NO_PROOF, PATH_DEPENDENT, REM_INF};
use crate::position::Position;
use crate::types::{Color, PieceKind};
use crate::zobrist;

/// What the table knows a position by: a key of the board and side to move, and both hands
/// (one 4-bit count per kind, sente's in bits 0..20, gote's in bits 32..52).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ident {
    pub(super) board: u64,
    pub(super) hands: u64,
}

/// The guard bits of packed hand counts.
const HAND_GUARD: u64 = 0x8_8888;

impl Ident {
    pub(super) fn of(pos: &Position) -> Ident {
        let mut board = pos.key();
        let mut hands = 0u64;
        for c in Color::BOTH {
            let h = pos.hand(c);
            for kind in PieceKind::HAND {
                let n = h.count(kind);
                for i in 1..=n {
                    board ^= zobrist::hand(c, kind, i);
                }
                hands |= (n.min(7) as u64) << (4 * kind.index() + 32 * c.index());
            }
        }
        Ident { board, hands }
    }
}

/// Every count of the packed hand `a` is at least that of `b`.
#[inline(always)]
fn hand_covers(a: u64, b: u64) -> bool {
    ((a | HAND_GUARD) - b) & HAND_GUARD == HAND_GUARD
}

#[derive(Clone, Copy, Default)]
struct Entry {
    board: u64,
    hands: u64,
    /// Path hash of a path-dependent disproof held in `pn`/`dn`.
    path: u64,
    /// Working numbers (or a path-dependent disproof), for remaining depth `rem`.
    pn: u32,
    dn: u32,
    /// Nodes spent under this entry (replacement priority).
    amount: u32,
    rem: u16,
    /// `Val::rep` of a path-dependent disproof held in `pn`/`dn`.
    rep: u16,
    /// Shortest known mate length, valid for any path and any remaining depth >= it.
    proof: u16,
    /// No mate within `dis - 1` plies (`DIS_ALL`: no mate at all; 0: nothing known).
    dis: u16,
    flags: u8,
    generation: u8,
}

/// An entry as stored: six words, so that a new table is zeroed memory straight from the
/// allocator (pages the search never touches cost nothing, even for a large table).
type Slot = [u64; 6];

#[inline(always)]
fn slot_generation(w: &Slot) -> u8 {
    (w[5] >> 40) as u8
}

impl Entry {
    #[inline(always)]
    fn unpack(w: &Slot) -> Entry {
        Entry {
            board: w[0],
            hands: w[1],
            path: w[2],
            pn: w[3] as u32,
            dn: (w[3] >> 32) as u32,
            amount: w[4] as u32,
            rem: (w[4] >> 32) as u16,
            rep: (w[4] >> 48) as u16,
            proof: w[5] as u16,
            dis: (w[5] >> 16) as u16,
            flags: (w[5] >> 32) as u8,
            generation: slot_generation(w),
        }
    }
    #[inline(always)]
    fn pack(&self) -> Slot {
        [
            self.board,
            self.hands,
            self.path,
            self.pn as u64 | (self.dn as u64) << 32,
            self.amount as u64 | (self.rem as u64) << 32 | (self.rep as u64) << 48,
            self.proof as u64
                | (self.dis as u64) << 16
                | (self.flags as u64) << 32
                | (self.generation as u64) << 40,
        ]
    }
    #[inline(always)]
    fn proof_for(&self, rem: u16) -> Option<Val> {
        (self.proof != NO_PROOF && self.proof <= rem).then(|| Val::proven(self.proof))
    }
    #[inline(always)]
    fn disproof_for(&self, rem: u16) -> Option<Val> {
        if self.dis == DIS_ALL {
            Some(Val::disproved(0))
        } else if rem < self.dis {
            Some(Val::disproved(F_DEPTH))
        } else {
            None
        }
    }
}

/// Entries per bucket; all hands of one board share a bucket.
const BUCKET: usize = 8;

pub(super) struct Table {
    entries: Vec<Slot>,
    /// Number of buckets minus one (a power of two minus one).
    mask: usize,
    generation: u8,
    /// Hand domination: with the same board, a proof holds when the attacker has at least the
    /// same in hand and the defender at most the same, and a disproof the other way round.
    dominance: bool,
    /// Shift of the attacker's hand in `Ident::hands`.
    attacker_shift: u32,
}

pub(super) enum Probe {
    Hit(Val),
    /// Nothing usable; `seen` when the position has an entry at all.
    Miss {
        seen: bool,
    },
}

impl Table {
    pub(super) fn new(mb: usize) -> Table {
        let bytes = mb.max(1).saturating_mul(1 << 20);
        let want = (bytes / (std::mem::size_of::<Entry>() * BUCKET)).max(1);
        let buckets = 1usize << (usize::BITS - 1 - want.leading_zeros());
        Table {
            entries: vec![[0; 6]; buckets * BUCKET],
            mask: buckets - 1,
            generation: 0,
            dominance: true,
            attacker_shift: 0,
        }
    }

    /// Forgets everything (cheaply, by generation).
    pub(super) fn new_search(&mut self, attacker: Color, dominance: bool) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill([0; 6]);
            self.generation = 1;
        }
        self.attacker_shift = 32 * attacker.index() as u32;
        self.dominance = dominance;
    }

    #[inline(always)]
    fn bucket(&self, board: u64) -> std::ops::Range<usize> {
        let b = (board as usize & self.mask) * BUCKET;
        b..b + BUCKET
    }

    /// The entries of the same board and side to move.
    #[inline(always)]
    fn same_board(&self, id: Ident) -> impl Iterator<Item = Entry> + '_ {
        let generation = self.generation;
        self.entries[self.bucket(id.board)]
            .iter()
            .filter(move |w| w[0] == id.board && slot_generation(w) == generation)
            .map(Entry::unpack)
    }

    /// (attacker's hand, defender's hand), packed.
    #[inline(always)]
    fn split(&self, hands: u64) -> (u64, u64) {
        let a = (hands >> self.attacker_shift) & 0xf_ffff;
        let d = (hands >> (32 - self.attacker_shift)) & 0xf_ffff;
        (a, d)
    }

    /// `e`'s proofs hold for `id` (which has at least as much for the attacker).
    #[inline(always)]
    fn superior(&self, id: Ident, e: &Entry) -> bool {
        let (a, d) = self.split(id.hands);
        let (ea, ed) = self.split(e.hands);
        hand_covers(a, ea) && hand_covers(ed, d)
    }

    #[inline(always)]
    fn inferior(&self, id: Ident, e: &Entry) -> bool {
        let (a, d) = self.split(id.hands);
        let (ea, ed) = self.split(e.hands);
        hand_covers(ea, a) && hand_covers(d, ed)
    }

    /// The numbers of `id` at remaining depth `rem` on the path with hash `ph`.
    #[inline]
    pub(super) fn probe(&self, id: Ident, rem: u16, ph: u64) -> Probe {
        let mut exact = None;
        let mut seen = false;
        for e in self.same_board(id) {
            if e.hands == id.hands {
                seen = true;
                if let Some(v) = e.proof_for(rem).or_else(|| e.disproof_for(rem)) {
                    return Probe::Hit(v);
                }
                exact = Some(e);
            } else if self.dominance {
                if let Some(v) = e.proof_for(rem) {
                    if self.superior(id, &e) {
                        return Probe::Hit(v);
                    }
                }
                if let Some(v) = e.disproof_for(rem) {
                    if self.inferior(id, &e) {
                        return Probe::Hit(v);
                    }
                }
            }
        }
        if let Some(e) = exact {
            if e.dn != 0 {
                // Working numbers, perhaps found for another remaining depth: an estimate.
                if e.pn != 0 {
                    return Probe::Hit(Val::open(e.pn, e.dn));
                }
            } else if e.pn != 0 && e.rem == rem && e.path == ph {
                return Probe::Hit(Val {
                    rep: e.rep,
                    ..Val::disproved(e.flags)
                });
            }
        }
        Probe::Miss { seen }
    }

    /// The shortest known mate length of `id`.
    pub(super) fn proof_len(&self, id: Ident) -> Option<u16> {
        self.same_board(id)
            .filter(|e| e.proof != NO_PROOF)
            .filter(|e| e.hands == id.hands || (self.dominance && self.superior(id, e)))
            .map(|e| e.proof)
            .min()
    }

    /// Known (path-independently) to have no mate within `rem` plies.
    pub(super) fn no_mate_within(&self, id: Ident, rem: u16) -> bool {
        self.same_board(id).any(|e| {
            e.disproof_for(rem).is_some()
                && (e.hands == id.hands || (self.dominance && self.inferior(id, &e)))
        })
    }

    pub(super) fn store(&mut self, id: Ident, rem: u16, ph: u64, v: Val, amount: u32) {
        let generation = self.generation;
        let range = self.bucket(id.board);
        let bucket = &self.entries[range.clone()];
        let found = bucket
            .iter()
            .position(|w| w[0] == id.board && w[1] == id.hands && slot_generation(w) == generation);
        let (idx, mut e) = match found {
            Some(i) => (i, Entry::unpack(&bucket[i])),
            None => {
                // A free (old) slot, else the one with the least work under it.
                let i = bucket
                    .iter()
                    .position(|w| slot_generation(w) != generation)
                    .unwrap_or_else(|| {
                        (0..BUCKET)
                            .min_by_key(|&i| bucket[i][4] as u32)
                            .unwrap_or(0)
                    });
                let e = Entry {
                    board: id.board,
                    hands: id.hands,
                    generation,
                    proof: NO_PROOF,
                    ..Entry::default()
                };
                (i, e)
            }
        };
        e.amount = e.amount.max(amount);
        if v.pn == 0 {
            e.proof = e.proof.min(v.len);
        } else if v.dn == 0 {
            if v.flags & PATH_DEPENDENT != 0 {
                e.pn = INF;
                e.dn = 0;
                e.rem = rem;
                e.path = ph;
                e.flags = v.flags;
                e.rep = v.rep;
            } else if v.flags & F_DEPTH != 0 {
                // (A depth-limited disproof never arises without a depth limit.)
                if rem != REM_INF && e.dis != DIS_ALL {
                    e.dis = e.dis.max(rem + 1);
                }
            } else {
                e.dis = DIS_ALL;
            }
        } else {
            e.pn = v.pn;
            e.dn = v.dn;
            e.rem = rem;
            e.path = ph;
            e.flags = 0;
        }
        self.entries[range.start + idx] = e.pack();
    }
}
