//! Test helpers: a deterministic PRNG, the data files, and a slow, obviously-correct reference
//! move generator that shares no code with the engine (it parses the engine's SFEN output into
//! its own 5x5 array and walks directions square by square).
#![allow(dead_code, unused_imports, clippy::needless_range_loop)]

use std::collections::BTreeSet;

pub mod child;
pub mod data;
pub mod engine;
pub mod mate_tools;
pub mod rng;

pub use data::data_rows;
pub use rng::Rng;

// ---------------------------------------------------------------- reference generator

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
struct Man {
    white: bool,
    letter: u8, // upper-case P S G B R K
    promoted: bool,
}

#[derive(Clone, Debug)]
pub struct RefPos {
    /// board[row][col]: row 0 = rank a, col 0 = file 5.
    board: [[Option<Man>; 5]; 5],
    /// hands[side][letter index in "PSGBR"]
    hands: [[u8; 5]; 2],
    white_to_move: bool,
}

const HAND_LETTERS: &[u8; 5] = b"PSGBR";

impl RefPos {
    pub fn from_sfen(sfen: &str) -> RefPos {
        let f: Vec<&str> = sfen.split_whitespace().collect();
        let mut board = [[None; 5]; 5];
        for (r, rank) in f[0].split('/').enumerate() {
            let mut c = 0;
            let mut promoted = false;
            for ch in rank.bytes() {
                if ch.is_ascii_digit() {
                    c += (ch - b'0') as usize;
                } else if ch == b'+' {
                    promoted = true;
                } else {
                    board[r][c] = Some(Man {
                        white: ch.is_ascii_lowercase(),
                        letter: ch.to_ascii_uppercase(),
                        promoted,
                    });
                    promoted = false;
                    c += 1;
                }
            }
        }
        let mut hands = [[0u8; 5]; 2];
        if f[2] != "-" {
            let mut n = 0u8;
            for ch in f[2].bytes() {
                if ch.is_ascii_digit() {
                    n = n * 10 + (ch - b'0');
                } else {
                    let side = ch.is_ascii_lowercase() as usize;
                    let i = HAND_LETTERS
                        .iter()
                        .position(|&l| l == ch.to_ascii_uppercase())
                        .unwrap();
                    hands[side][i] += n.max(1);
                    n = 0;
                }
            }
        }
        RefPos {
            board,
            hands,
            white_to_move: f[1] == "w",
        }
    }

    /// (dr, dc, slides) from the mover's point of view with forward = dr -1 for sente.
    fn steps(m: Man) -> Vec<(i32, i32, bool)> {
        let gold = vec![
            (-1, 0, false),
            (-1, -1, false),
            (-1, 1, false),
            (0, -1, false),
            (0, 1, false),
            (1, 0, false),
        ];
        let king = vec![
            (-1, 0, false),
            (-1, -1, false),
            (-1, 1, false),
            (0, -1, false),
            (0, 1, false),
            (1, 0, false),
            (1, -1, false),
            (1, 1, false),
        ];
        let rook = vec![(-1, 0, true), (1, 0, true), (0, -1, true), (0, 1, true)];
        let bishop = vec![(-1, -1, true), (-1, 1, true), (1, -1, true), (1, 1, true)];
        let mut v = match (m.letter, m.promoted) {
            (b'P', false) => vec![(-1, 0, false)],
            (b'S', false) => vec![
                (-1, 0, false),
                (-1, -1, false),
                (-1, 1, false),
                (1, -1, false),
                (1, 1, false),
            ],
            (b'G', _) | (b'P', true) | (b'S', true) => gold,
            (b'K', _) => king,
            (b'R', false) => rook,
            (b'B', false) => bishop,
            (b'R', true) => {
                let mut r = rook;
                r.extend([
                    (-1, -1, false),
                    (-1, 1, false),
                    (1, -1, false),
                    (1, 1, false),
                ]);
                r
            }
            (b'B', true) => {
                let mut b = bishop;
                b.extend([(-1, 0, false), (1, 0, false), (0, -1, false), (0, 1, false)]);
                b
            }
            _ => panic!("bad man"),
        };
        if m.white {
            for s in v.iter_mut() {
                s.0 = -s.0;
                s.1 = -s.1;
            }
        }
        v
    }

    fn targets(&self, r: usize, c: usize) -> Vec<(usize, usize)> {
        let m = self.board[r][c].unwrap();
        let mut out = Vec::new();
        for (dr, dc, slide) in RefPos::steps(m) {
            let (mut rr, mut cc) = (r as i32 + dr, c as i32 + dc);
            while (0..5).contains(&rr) && (0..5).contains(&cc) {
                let t = self.board[rr as usize][cc as usize];
                if let Some(o) = t {
                    if o.white != m.white {
                        out.push((rr as usize, cc as usize));
                    }
                    break;
                }
                out.push((rr as usize, cc as usize));
                if !slide {
                    break;
                }
                rr += dr;
                cc += dc;
            }
        }
        out
    }

    fn king_attacked(&self, white_king: bool) -> bool {
        let mut king = None;
        for r in 0..5 {
            for c in 0..5 {
                if let Some(m) = self.board[r][c] {
                    if m.letter == b'K' && m.white == white_king {
                        king = Some((r, c));
                    }
                }
            }
        }
        let Some(k) = king else { return false };
        for r in 0..5 {
            for c in 0..5 {
                if let Some(m) = self.board[r][c] {
                    if m.white != white_king && self.targets(r, c).contains(&k) {
                        return true;
                    }
                }
            }
        }
        false
    }

    fn square_name(r: usize, c: usize) -> String {
        format!("{}{}", 5 - c, (b'a' + r as u8) as char)
    }

    fn apply_board(&self, fr: usize, fc: usize, tr: usize, tc: usize, promote: bool) -> RefPos {
        let mut p = self.clone();
        let mut m = p.board[fr][fc].take().unwrap();
        if let Some(cap) = p.board[tr][tc] {
            let i = HAND_LETTERS.iter().position(|&l| l == cap.letter).unwrap();
            p.hands[m.white as usize][i] += 1;
        }
        if promote {
            m.promoted = true;
        }
        p.board[tr][tc] = Some(m);
        p.white_to_move = !p.white_to_move;
        p
    }

    fn apply_drop(&self, i: usize, r: usize, c: usize) -> RefPos {
        let mut p = self.clone();
        let white = p.white_to_move;
        p.hands[white as usize][i] -= 1;
        p.board[r][c] = Some(Man {
            white,
            letter: HAND_LETTERS[i],
            promoted: false,
        });
        p.white_to_move = !white;
        p
    }

    /// Legal moves in USI notation.
    pub fn legal_moves(&self) -> BTreeSet<String> {
        self.moves(true)
    }

    fn moves(&self, check_uchifuzume: bool) -> BTreeSet<String> {
        let white = self.white_to_move;
        let last_row = if white { 4 } else { 0 };
        let mut out = BTreeSet::new();
        for r in 0..5 {
            for c in 0..5 {
                let Some(m) = self.board[r][c] else { continue };
                if m.white != white {
                    continue;
                }
                for (tr, tc) in self.targets(r, c) {
                    let can_promote = !m.promoted
                        && matches!(m.letter, b'P' | b'S' | b'B' | b'R')
                        && (r == last_row || tr == last_row);
                    let must_promote = m.letter == b'P' && !m.promoted && tr == last_row;
                    let name = format!(
                        "{}{}",
                        RefPos::square_name(r, c),
                        RefPos::square_name(tr, tc)
                    );
                    let mut options = vec![];
                    if !must_promote {
                        options.push(false);
                    }
                    if can_promote {
                        options.push(true);
                    }
                    for promote in options {
                        let next = self.apply_board(r, c, tr, tc, promote);
                        if !next.king_attacked(white) {
                            out.insert(if promote {
                                format!("{name}+")
                            } else {
                                name.clone()
                            });
                        }
                    }
                }
            }
        }
        for i in 0..5 {
            if self.hands[white as usize][i] == 0 {
                continue;
            }
            for r in 0..5 {
                for c in 0..5 {
                    if self.board[r][c].is_some() {
                        continue;
                    }
                    if HAND_LETTERS[i] == b'P' {
                        if r == last_row {
                            continue;
                        }
                        let nifu = (0..5).any(|rr| {
                            self.board[rr][c].is_some_and(|m| {
                                m.letter == b'P' && !m.promoted && m.white == white
                            })
                        });
                        if nifu {
                            continue;
                        }
                    }
                    let next = self.apply_drop(i, r, c);
                    if next.king_attacked(white) {
                        continue;
                    }
                    if HAND_LETTERS[i] == b'P'
                        && check_uchifuzume
                        && next.king_attacked(!white)
                        && next.moves(false).is_empty()
                    {
                        continue;
                    }
                    out.insert(format!(
                        "{}*{}",
                        HAND_LETTERS[i] as char,
                        RefPos::square_name(r, c)
                    ));
                }
            }
        }
        out
    }
}
