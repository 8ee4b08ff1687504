//! Attack tables, all computed at compile time from the slow ray walker [`slow_slider`], which
//! the tests compare them against.
//!
//! Sliders use "magic" indexing: the occupancy of the relevant squares (the rays without their
//! edge squares) times a per-square 64-bit constant, shifted right by 58, indexes a 64-entry
//! table. The constants were found by a random search; `tests::magic_tables_match_ray_walk`
//! proves each one collision-free over every relevant occupancy.

use crate::bitboard::Bitboard;
use crate::types::{Color, PieceKind, Square};

type Dir = (i8, i8); // (rank delta, column delta); column index = 5 - file

const ROOK_DIRS: [Dir; 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRS: [Dir; 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

/// Attacks along `dirs` from `sq`, stopping at (and including) the first occupied square.
pub const fn slow_slider(sq: usize, occ: u32, dirs: &[Dir; 4]) -> u32 {
    let (r, c) = ((sq / 5) as i8, (sq % 5) as i8);
    let mut att = 0u32;
    let mut d = 0;
    while d < 4 {
        let (dr, dc) = dirs[d];
        let (mut rr, mut cc) = (r + dr, c + dc);
        while rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
            let b = 1u32 << (rr * 5 + cc);
            att |= b;
            if occ & b != 0 {
                break;
            }
            rr += dr;
            cc += dc;
        }
        d += 1;
    }
    att
}

/// The squares whose occupancy matters for a slider on `sq`: its rays minus their last square.
const fn relevant_mask(sq: usize, dirs: &[Dir; 4]) -> u32 {
    let (r, c) = ((sq / 5) as i8, (sq % 5) as i8);
    let mut m = 0u32;
    let mut d = 0;
    while d < 4 {
        let (dr, dc) = dirs[d];
        let (mut rr, mut cc) = (r + dr, c + dc);
        while rr + dr >= 0 && rr + dr < 5 && cc + dc >= 0 && cc + dc < 5 {
            m |= 1 << (rr * 5 + cc);
            rr += dr;
            cc += dc;
        }
        d += 1;
    }
    m
}

const ROOK_MAGICS: [u64; 25] = [
    0xc4208000400c2041,
    0x0910100600103000,
    0x5902020180590000,
    0x0211160500000000,
    0x040a081000000180,
    0xc190202208410040,
    0x0008200006000880,
    0x090ac00488004062,
    0x00c4028001000600,
    0x0246080100a01004,
    0x0120a02009000284,
    0x2884400000000000,
    0x0154025058800800,
    0x0024020902000011,
    0x0204020002011102,
    0x1081480809001008,
    0x2048020700602000,
    0x0100441e02100085,
    0x202040c002801306,
    0x084110000602d000,
    0x208151000a000001,
    0x0122088840000002,
    0x1008048001010884,
    0x090408c93046000c,
    0x0403430080000000,
];

const BISHOP_MAGICS: [u64; 25] = [
    0x4202300018001012,
    0x0102000401481004,
    0x4e040000c0404400,
    0xa100840501000024,
    0x101a218000100200,
    0x000a201010044030,
    0x0a15502502048102,
    0x0042008010000020,
    0x2100a20484020000,
    0x80a0208080088840,
    0x0040800026720a2c,
    0x009003c000541201,
    0x00e0302100060004,
    0x6009040840010001,
    0x0492281000080006,
    0x8208185000101720,
    0x00c2000148008001,
    0x0c411600405000cc,
    0x2180840000200804,
    0x0024020530580140,
    0x040b8100020000a8,
    0x9021090002101000,
    0x42000480c0100630,
    0x0402210100000442,
    0x8087025130800000,
];

const MAGIC_SHIFT: u32 = 58;

struct Magic {
    mask: [u32; 25],
    magic: [u64; 25],
    table: [[u32; 64]; 25],
}

const fn build_magic(dirs: &[Dir; 4], magics: &[u64; 25]) -> Magic {
    let mut m = Magic {
        mask: [0; 25],
        magic: *magics,
        table: [[0; 64]; 25],
    };
    let mut sq = 0;
    while sq < 25 {
        let mask = relevant_mask(sq, dirs);
        m.mask[sq] = mask;
        // Enumerate every subset of the mask (Carry-Rippler).
        let mut sub = 0u32;
        loop {
            let idx = ((sub as u64).wrapping_mul(magics[sq]) >> MAGIC_SHIFT) as usize;
            m.table[sq][idx] = slow_slider(sq, sub, dirs);
            sub = sub.wrapping_sub(mask) & mask;
            if sub == 0 {
                break;
            }
        }
        sq += 1;
    }
    m
}

static ROOK: Magic = build_magic(&ROOK_DIRS, &ROOK_MAGICS);
static BISHOP: Magic = build_magic(&BISHOP_DIRS, &BISHOP_MAGICS);

#[inline(always)]
pub fn rook_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let i = sq.index();
    let idx = ((occ.0 & ROOK.mask[i]) as u64).wrapping_mul(ROOK.magic[i]) >> MAGIC_SHIFT;
    Bitboard(ROOK.table[i][idx as usize])
}

#[inline(always)]
pub fn bishop_attacks(sq: Square, occ: Bitboard) -> Bitboard {
    let i = sq.index();
    let idx = ((occ.0 & BISHOP.mask[i]) as u64).wrapping_mul(BISHOP.magic[i]) >> MAGIC_SHIFT;
    Bitboard(BISHOP.table[i][idx as usize])
}

/// Step offsets for sente (forward is rank -1); gote's are mirrored.
const PAWN_STEPS: &[Dir] = &[(-1, 0)];
const SILVER_STEPS: &[Dir] = &[(-1, 0), (-1, -1), (-1, 1), (1, -1), (1, 1)];
const GOLD_STEPS: &[Dir] = &[(-1, 0), (-1, -1), (-1, 1), (0, -1), (0, 1), (1, 0)];
const KING_STEPS: &[Dir] = &[
    (-1, 0),
    (-1, -1),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, 0),
    (1, -1),
    (1, 1),
];
const ORTHO_STEPS: &[Dir] = &[(-1, 0), (1, 0), (0, -1), (0, 1)];
const DIAG_STEPS: &[Dir] = &[(-1, -1), (-1, 1), (1, -1), (1, 1)];

const fn step_table(steps: &[Dir], color: Color) -> [u32; 25] {
    let mut t = [0u32; 25];
    let sign: i8 = match color {
        Color::Black => 1,
        Color::White => -1,
    };
    let mut sq = 0;
    while sq < 25 {
        let (r, c) = ((sq / 5) as i8, (sq % 5) as i8);
        let mut i = 0;
        while i < steps.len() {
            let (rr, cc) = (r + sign * steps[i].0, c + sign * steps[i].1);
            if rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
                t[sq] |= 1 << (rr * 5 + cc);
            }
            i += 1;
        }
        sq += 1;
    }
    t
}

static PAWN: [[u32; 25]; 2] = [
    step_table(PAWN_STEPS, Color::Black),
    step_table(PAWN_STEPS, Color::White),
];
static SILVER: [[u32; 25]; 2] = [
    step_table(SILVER_STEPS, Color::Black),
    step_table(SILVER_STEPS, Color::White),
];
static GOLD: [[u32; 25]; 2] = [
    step_table(GOLD_STEPS, Color::Black),
    step_table(GOLD_STEPS, Color::White),
];
static KING: [u32; 25] = step_table(KING_STEPS, Color::Black);
static ORTHO: [u32; 25] = step_table(ORTHO_STEPS, Color::Black);
static DIAG: [u32; 25] = step_table(DIAG_STEPS, Color::Black);

#[inline(always)]
pub fn pawn_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(PAWN[color.index()][sq.index()])
}
#[inline(always)]
pub fn silver_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(SILVER[color.index()][sq.index()])
}
#[inline(always)]
pub fn gold_attacks(color: Color, sq: Square) -> Bitboard {
    Bitboard(GOLD[color.index()][sq.index()])
}
#[inline(always)]
pub fn king_attacks(sq: Square) -> Bitboard {
    Bitboard(KING[sq.index()])
}
#[inline(always)]
pub fn ortho_steps(sq: Square) -> Bitboard {
    Bitboard(ORTHO[sq.index()])
}
#[inline(always)]
pub fn diag_steps(sq: Square) -> Bitboard {
    Bitboard(DIAG[sq.index()])
}

/// Squares attacked by a `kind` of `color` on `sq` with occupancy `occ`.
#[inline]
pub fn attacks(color: Color, kind: PieceKind, sq: Square, occ: Bitboard) -> Bitboard {
    match kind {
        PieceKind::Pawn => pawn_attacks(color, sq),
        PieceKind::Silver => silver_attacks(color, sq),
        PieceKind::Gold | PieceKind::Tokin | PieceKind::ProSilver => gold_attacks(color, sq),
        PieceKind::King => king_attacks(sq),
        PieceKind::Bishop => bishop_attacks(sq, occ),
        PieceKind::Rook => rook_attacks(sq, occ),
        PieceKind::Horse => bishop_attacks(sq, occ) | ortho_steps(sq),
        PieceKind::Dragon => rook_attacks(sq, occ) | diag_steps(sq),
    }
}

const fn line_tables() -> ([[u32; 25]; 25], [[u32; 25]; 25]) {
    let mut between = [[0u32; 25]; 25];
    let mut line = [[0u32; 25]; 25];
    let all_dirs: [Dir; 8] = [
        (1, 0),
        (-1, 0),
        (0, 1),
        (0, -1),
        (1, 1),
        (1, -1),
        (-1, 1),
        (-1, -1),
    ];
    let mut a = 0;
    while a < 25 {
        let (r, c) = ((a / 5) as i8, (a % 5) as i8);
        let mut d = 0;
        while d < 8 {
            let (dr, dc) = all_dirs[d];
            // The full line through `a` in this direction (both ways).
            let mut full = 1u32 << a;
            let (mut rr, mut cc) = (r + dr, c + dc);
            while rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
                full |= 1 << (rr * 5 + cc);
                rr += dr;
                cc += dc;
            }
            let (mut rr, mut cc) = (r - dr, c - dc);
            while rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
                full |= 1 << (rr * 5 + cc);
                rr -= dr;
                cc -= dc;
            }
            let mut btw = 0u32;
            let (mut rr, mut cc) = (r + dr, c + dc);
            while rr >= 0 && rr < 5 && cc >= 0 && cc < 5 {
                let b = (rr * 5 + cc) as usize;
                between[a][b] = btw;
                line[a][b] = full;
                btw |= 1 << b;
                rr += dr;
                cc += dc;
            }
            d += 1;
        }
        a += 1;
    }
    (between, line)
}

static LINES: ([[u32; 25]; 25], [[u32; 25]; 25]) = line_tables();

/// Squares strictly between `a` and `b` when they share a rank, file or diagonal; else empty.
#[inline(always)]
pub fn between(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.0[a.index()][b.index()])
}

/// The whole line through `a` and `b` (edge to edge) when they are aligned; else empty.
#[inline(always)]
pub fn line(a: Square, b: Square) -> Bitboard {
    Bitboard(LINES.1[a.index()][b.index()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_tables_match_ray_walk() {
        for sq in Square::all() {
            for (dirs, f) in [
                (&ROOK_DIRS, rook_attacks as fn(Square, Bitboard) -> Bitboard),
                (&BISHOP_DIRS, bishop_attacks),
            ] {
                let mask = relevant_mask(sq.index(), dirs);
                let mut sub = 0u32;
                loop {
                    // Squares outside the mask must not matter either.
                    for noise in [0u32, 0x1ff_ffff & !mask, 0x0aa_aaaa & !mask] {
                        let occ = sub | noise;
                        assert_eq!(
                            f(sq, Bitboard(occ)).0,
                            slow_slider(sq.index(), occ, dirs),
                            "{sq} {occ:#x}"
                        );
                    }
                    sub = sub.wrapping_sub(mask) & mask;
                    if sub == 0 {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn steps_and_lines() {
        let sq = |s| Square::parse(s).unwrap();
        assert_eq!(
            pawn_attacks(Color::Black, sq("3c")),
            Bitboard::from(sq("3b"))
        );
        assert_eq!(
            pawn_attacks(Color::White, sq("3c")),
            Bitboard::from(sq("3d"))
        );
        assert_eq!(gold_attacks(Color::Black, sq("3c")).count(), 6);
        assert!(!gold_attacks(Color::Black, sq("3c")).has(sq("2d")));
        assert!(silver_attacks(Color::Black, sq("3c")).has(sq("2d")));
        assert!(!silver_attacks(Color::Black, sq("3c")).has(sq("3d")));
        assert_eq!(king_attacks(sq("5e")).count(), 3);
        assert_eq!(between(sq("5e"), sq("1a")).count(), 3);
        assert_eq!(between(sq("5e"), sq("4c")).count(), 0);
        assert_eq!(line(sq("5e"), sq("4d")).count(), 5);
        assert_eq!(line(sq("3c"), sq("3a")), Bitboard::file(3));
    }
}
