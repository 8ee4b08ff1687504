//! Mate-solver tools shared by `tests/mate.rs` and the examples `mate_report`,
//! `mate_generate` and `mate_one` (which include this file by path): an independent brute
//! force, the problem files of `tests/data`, and a generator of random tsume-like positions.
//! It depends on the library, `data.rs` and `rng.rs` only (not on the engine binary).

use super::data::data_rows;
use super::rng::Rng;
use gogo::movegen::legal_moves;
use gogo::position::Position;
use gogo::types::Move;
use std::collections::HashMap;

// ------------------------------------------------------------------ brute force

/// Plain minimax over checks (attacker) and all replies (defender), sharing nothing with the
/// solver but the move generator: a check is a legal move after which the opponent is in
/// check. `memo` (position key and depth, both node kinds) may be `None` for a pure search;
/// without repetition rules the depth-limited value is a function of (position, depth), so
/// memoising it is exact.
pub struct Brute {
    pub memo: Option<HashMap<(u64, u32), bool>>,
    pub nodes: u64,
    /// Node budget; once spent, every answer is "no" and `exhausted` is set.
    pub budget: u64,
    pub exhausted: bool,
}

impl Brute {
    pub fn new(memo: bool) -> Brute {
        Brute {
            memo: memo.then(HashMap::new),
            nodes: 0,
            budget: u64::MAX,
            exhausted: false,
        }
    }

    /// The attacker (to move) mates within `d` plies.
    pub fn attack(&mut self, pos: &Position, d: u32) -> bool {
        if d == 0 {
            return false;
        }
        if let Some(&v) = self.memo.as_ref().and_then(|m| m.get(&(pos.key(), d))) {
            return v;
        }
        self.nodes += 1;
        if self.nodes > self.budget {
            self.exhausted = true;
            return false;
        }
        let mut result = false;
        for &m in legal_moves(pos).iter() {
            let c = pos.after(m);
            if c.in_check() && self.defend(&c, d - 1) {
                result = true;
                break;
            }
        }
        if let Some(memo) = self.memo.as_mut() {
            memo.insert((pos.key(), d), result);
        }
        result
    }

    /// The defender (to move, in check) is mated within `d` plies whatever it does.
    pub fn defend(&mut self, pos: &Position, d: u32) -> bool {
        let moves = legal_moves(pos);
        if moves.is_empty() {
            return true;
        }
        if d < 2 {
            return false;
        }
        if let Some(&v) = self.memo.as_ref().and_then(|m| m.get(&(pos.key(), d))) {
            return v;
        }
        self.nodes += 1;
        let mut result = true;
        for &m in moves.iter() {
            if !self.attack(&pos.after(m), d - 1) {
                result = false;
                break;
            }
        }
        if let Some(memo) = self.memo.as_mut() {
            memo.insert((pos.key(), d), result);
        }
        result
    }

    /// The shortest mate length up to `max` plies (`None` also when the budget ran out).
    pub fn shortest(&mut self, pos: &Position, max: u32) -> Option<u32> {
        let r = (1..=max).step_by(2).find(|&d| self.attack(pos, d));
        if self.exhausted {
            None
        } else {
            r
        }
    }
}

// ------------------------------------------------------------------ problems

pub fn line_text(line: &[Move]) -> String {
    line.iter()
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A problem of `tests/data/mate.tsv`: the position and its shortest mate length in plies
/// (`None`: no mate).
pub struct Problem {
    pub pos: Position,
    pub len: Option<usize>,
    pub note: String,
}

/// The problems of `tests/data/<file>`.
pub fn problems(file: &str) -> Vec<Problem> {
    data_rows(file)
        .into_iter()
        .map(|row| {
            let len = match row[1].trim() {
                "nomate" => None,
                n => Some(
                    n.parse()
                        .unwrap_or_else(|_| panic!("bad length in {row:?}")),
                ),
            };
            Problem {
                pos: pos(&row[0]),
                len,
                note: row.get(2).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

// ------------------------------------------------------------------ generator

/// A random tsume-like position with gote's king, or `None` if it came out invalid.
pub fn random_position(rng: &mut Rng) -> Option<Position> {
    let mut board: [Option<String>; 25] = Default::default();
    let mut stock: Vec<char> = "RRBBGGSSPP".chars().collect();
    let mut take = |rng: &mut Rng| -> Option<char> {
        if stock.is_empty() {
            return None;
        }
        let i = rng.below(stock.len());
        Some(stock.swap_remove(i))
    };
    // Gote's king, mostly near its back ranks.
    let kr = [0, 0, 0, 1, 1, 2][rng.below(6)];
    let ksq = kr * 5 + rng.below(5);
    board[ksq] = Some("k".into());
    if rng.below(3) == 0 {
        loop {
            let s = 15 + rng.below(10);
            if board[s].is_none() {
                board[s] = Some("K".into());
                break;
            }
        }
    }
    let place = |rng: &mut Rng, letter: char, black: bool, board: &mut [Option<String>; 25]| {
        for _ in 0..20 {
            let s = rng.below(25);
            if board[s].is_some() {
                continue;
            }
            let promote = letter != 'G' && rng.below(4) == 0;
            let mut t = String::new();
            if promote {
                t.push('+');
            }
            t.push(if black {
                letter
            } else {
                letter.to_ascii_lowercase()
            });
            board[s] = Some(t);
            return;
        }
    };
    let n_att = 1 + rng.below(3);
    for _ in 0..n_att {
        if let Some(l) = take(rng) {
            place(rng, l, true, &mut board);
        }
    }
    let n_def = rng.below(4);
    for _ in 0..n_def {
        if let Some(l) = take(rng) {
            place(rng, l, false, &mut board);
        }
    }
    let mut hand = String::new();
    let n_hand = 1 + rng.below(3);
    for _ in 0..n_hand {
        if let Some(l) = take(rng) {
            hand.push(l);
        }
    }
    // The rest to gote's hand, sometimes.
    if rng.below(2) == 0 {
        while let Some(l) = take(rng) {
            hand.push(l.to_ascii_lowercase());
        }
    }
    let mut sfen = String::new();
    for r in 0..5 {
        let mut empty = 0;
        for c in 0..5 {
            match &board[r * 5 + c] {
                None => empty += 1,
                Some(t) => {
                    if empty > 0 {
                        sfen.push_str(&empty.to_string());
                        empty = 0;
                    }
                    sfen.push_str(t);
                }
            }
        }
        if empty > 0 {
            sfen.push_str(&empty.to_string());
        }
        if r < 4 {
            sfen.push('/');
        }
    }
    if hand.is_empty() {
        hand.push('-');
    }
    let sfen = format!("{sfen} b {hand} 1");
    let p = Position::from_sfen(&sfen).ok()?;
    // Keep the canonical form.
    Position::from_sfen(&p.to_sfen()).ok()
}

/// Whether the side to move could mate by a pawn drop if uchifuzume were allowed.
pub fn has_pawn_drop_mate(p: &Position) -> bool {
    use gogo::types::{Color, PieceKind};
    let us = p.side_to_move();
    let Some(k) = p.king_square(!us) else {
        return false;
    };
    if p.hand(us).count(PieceKind::Pawn) == 0 {
        return false;
    }
    let front = match us {
        Color::Black => k.index() + 5,
        Color::White => k.index().wrapping_sub(5),
    };
    if front >= 25 {
        return false;
    }
    let sq = gogo::types::Square::new(front as u8);
    if p.piece_on(sq).is_some() {
        return false;
    }
    let file = gogo::bitboard::Bitboard::file(sq.file());
    if (p.pieces_of(us, PieceKind::Pawn) & file).any() {
        return false;
    }
    gogo::movegen::is_pawn_drop_mate(p, sq)
}
