//! Zobrist keys, generated at compile time by splitmix64 from a fixed seed.
//!
//! A position's key is the XOR of `piece(color, kind, sq)` for every man on the board,
//! `hand(color, kind, i)` for `i` in `1..=count` for every hand count, and `side()` when gote is
//! to move. So adding the n-th man of a kind to a hand XORs `hand(color, kind, n)`.

use crate::types::{Color, PieceKind, Square};

const fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Hand counts go up to 2 in real play; a few more slots keep malformed input from indexing
/// out of bounds before validation rejects it.
const HAND_SLOTS: usize = 8;

struct Keys {
    piece: [[[u64; 25]; 10]; 2],
    hand: [[[u64; HAND_SLOTS]; 5]; 2],
    side: u64,
}

const fn build() -> Keys {
    let mut s = 0x6f67_6f67_2d6d_696e; // fixed seed
    let mut k = Keys {
        piece: [[[0; 25]; 10]; 2],
        hand: [[[0; HAND_SLOTS]; 5]; 2],
        side: 0,
    };
    let mut c = 0;
    while c < 2 {
        let mut p = 0;
        while p < 10 {
            let mut sq = 0;
            while sq < 25 {
                k.piece[c][p][sq] = splitmix(&mut s);
                sq += 1;
            }
            p += 1;
        }
        let mut h = 0;
        while h < 5 {
            let mut n = 0;
            while n < HAND_SLOTS {
                k.hand[c][h][n] = splitmix(&mut s);
                n += 1;
            }
            h += 1;
        }
        c += 1;
    }
    k.side = splitmix(&mut s);
    k
}

static KEYS: Keys = build();

#[inline(always)]
pub fn piece(color: Color, kind: PieceKind, sq: Square) -> u64 {
    KEYS.piece[color.index()][kind.index()][sq.index()]
}

/// Key of the `n`-th (1-based) man of `kind` in `color`'s hand.
#[inline(always)]
pub fn hand(color: Color, kind: PieceKind, n: u8) -> u64 {
    KEYS.hand[color.index()][kind.index()][n as usize % HAND_SLOTS]
}

#[inline(always)]
pub fn side() -> u64 {
    KEYS.side
}

/// A hasher for maps keyed by position keys: the keys are already random bits, so one
/// multiply spreads them enough, where the default SipHash would cost more than the lookup
/// itself (the search asks such a map at every node).
#[derive(Default, Clone, Copy)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (n ^ (n >> 32)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A map from position keys.
pub type KeyMap<V> = std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<KeyHasher>>;
