//! Legal move generation.
//!
//! The core, [`for_each_group`], hands out legal moves in groups: (kind, origin, set of legal
//! destinations) for board moves and (kind, set of legal drop squares) for drops. Perft counts a
//! group with a popcount; the generators expand groups into [`MoveList`]s, split into three
//! disjoint classes whose union is the legal list:
//! - **noisy**: captures (each promotion choice) and non-capturing promotions;
//! - **quiet**: non-capturing board moves that do not promote;
//! - **drops**.
//!
//! Legality is exact: pins, check evasions (interpositions, captures of the checker, king
//! moves), double check, the king never steps into check, forced pawn promotion, nifu, no pawn
//! drop on the last rank, and uchifuzume (a pawn drop that checkmates).

use crate::attacks::{
    attacks, between, bishop_attacks, king_attacks, line, pawn_attacks, rook_attacks,
};
use crate::bitboard::Bitboard;
use crate::position::Position;
use crate::types::{Color, Move, PieceKind, Square};
use std::mem::MaybeUninit;

/// Large enough for any minishogi position (12 men per side at most).
pub const MAX_MOVES: usize = 320;

/// A list of at most [`MAX_MOVES`] moves on the stack. Its storage is left uninitialised: a
/// node makes one or two lists, and zeroing their 640 bytes took about 1.4% of the `perf`
/// samples of `gogo bench 12`.
#[derive(Clone)]
pub struct MoveList {
    /// `moves[..len]` are initialised.
    moves: [MaybeUninit<Move>; MAX_MOVES],
    len: usize,
}

impl Default for MoveList {
    fn default() -> Self {
        MoveList::new()
    }
}

impl MoveList {
    #[inline]
    pub fn new() -> MoveList {
        MoveList {
            moves: [const { MaybeUninit::uninit() }; MAX_MOVES],
            len: 0,
        }
    }
    #[inline(always)]
    pub fn push(&mut self, m: Move) {
        // Indexing checks the bound: a push past MAX_MOVES panics instead of writing past it.
        self.moves[self.len] = MaybeUninit::new(m);
        self.len += 1;
    }
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        // SAFETY: `moves[..len]` are initialised (every push writes one before counting it, and
        // `retain_from` only moves initialised ones down), and `MaybeUninit<Move>` has the
        // layout of `Move`.
        unsafe { std::slice::from_raw_parts(self.moves.as_ptr().cast::<Move>(), self.len) }
    }
    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.moves.as_mut_ptr().cast::<Move>(), self.len) }
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
    pub fn clear(&mut self) {
        self.len = 0;
    }
    /// Keeps the moves for which `keep` is true, in their order.
    pub fn retain(&mut self, keep: impl FnMut(Move) -> bool) {
        self.retain_from(0, keep);
    }
    /// Keeps the first `start` moves and, of the rest, those for which `keep` is true, in
    /// their order.
    pub fn retain_from(&mut self, start: usize, mut keep: impl FnMut(Move) -> bool) {
        let start = start.min(self.len);
        let mut n = start;
        for i in start..self.len {
            let m = self.as_slice()[i];
            if keep(m) {
                self.moves[n] = MaybeUninit::new(m);
                n += 1;
            }
        }
        self.len = n;
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Move classes for [`generate`]; combine with `|`.
pub const NOISY: u8 = 1;
pub const QUIET: u8 = 2;
pub const DROPS: u8 = 4;
pub const ALL: u8 = NOISY | QUIET | DROPS;

/// Squares from which a pawn of `color` could never move again (its last rank).
#[inline(always)]
fn last_rank(color: Color) -> Bitboard {
    Bitboard::zone(color)
}

/// Files (as a mask of whole files) that hold an unpromoted pawn of `color`.
#[inline(always)]
fn pawn_files(pos: &Position, color: Color) -> Bitboard {
    let pawns = pos.pieces_of(color, PieceKind::Pawn).0;
    // Fold the ranks onto one row, then copy that row onto every rank.
    let row = (pawns | pawns >> 5 | pawns >> 10 | pawns >> 15 | pawns >> 20) & 0b11111;
    Bitboard(row * 0x0108421)
}

/// Receives groups of legal moves from [`for_each_group`].
pub trait GroupSink {
    /// Legal board moves of the man `kind` on `from` to each square of `targets` (each
    /// promotion choice is the sink's to expand).
    fn board(&mut self, kind: PieceKind, from: Square, targets: Bitboard);
    /// Legal drops of `kind` on each square of `targets`.
    fn drop(&mut self, kind: PieceKind, targets: Bitboard);
}

/// Hands every group of legal moves of `pos` to `sink`.
#[inline(always)]
pub fn for_each_group(pos: &Position, sink: &mut impl GroupSink) {
    let us = pos.side_to_move();
    let them = !us;
    let own = pos.pieces(us);
    let occ = pos.occupied();
    let checkers = pos.checkers();
    let king = pos.king_square(us);

    // King moves first: they are the only moves in double check.
    if let Some(k) = king {
        let mut targets = king_attacks(k) & !own;
        let occ_wo_king = occ ^ Bitboard::from(k);
        let mut legal = Bitboard::EMPTY;
        while targets.any() {
            let t = targets.pop();
            if pos.attackers(them, t, occ_wo_king).is_empty() {
                legal |= Bitboard::from(t);
            }
        }
        if legal.any() {
            sink.board(PieceKind::King, k, legal);
        }
        if checkers.more_than_one() {
            return;
        }
    }

    // Where a non-king move must land, and where a drop may go.
    let (move_mask, drop_mask) = match (king, checkers.any()) {
        (Some(k), true) => {
            let c = checkers.lsb();
            let blocks = between(k, c);
            (blocks | checkers, blocks)
        }
        _ => (!own, !occ),
    };
    let move_mask = move_mask & !own;

    let pinned = pos.pinned();
    let mut men = own & !pos.kind_bb(PieceKind::King);
    while men.any() {
        let from = men.pop();
        // The position's invariant: every bit of `own` has a man on the board.
        let kind = match pos.piece_on(from) {
            Some(p) => p.kind,
            None => continue,
        };
        let mut targets = attacks(us, kind, from, occ) & move_mask;
        if pinned.has(from) {
            if let Some(k) = king {
                targets &= line(k, from);
            }
        }
        if targets.any() {
            sink.board(kind, from, targets);
        }
    }

    let hand = pos.hand(us);
    if hand.is_empty() || drop_mask.is_empty() {
        return;
    }
    for kind in PieceKind::HAND {
        if hand.count(kind) == 0 {
            continue;
        }
        let mut targets = drop_mask;
        if kind == PieceKind::Pawn {
            targets &= !last_rank(us) & !pawn_files(pos, us);
            if let Some(tk) = pos.king_square(them) {
                let check_sq = pawn_attacks(them, tk) & targets;
                if check_sq.any() && is_pawn_drop_mate(pos, check_sq.lsb()) {
                    targets ^= check_sq;
                }
            }
        }
        if targets.any() {
            sink.drop(kind, targets);
        }
    }
}

/// Whether dropping a pawn of the side to move on `sq` (an empty square right in front of the
/// enemy king) would checkmate, which makes the drop illegal.
pub fn is_pawn_drop_mate(pos: &Position, sq: Square) -> bool {
    let us = pos.side_to_move();
    let them = !us;
    let Some(tk) = pos.king_square(them) else {
        return false;
    };
    debug_assert!(pawn_attacks(us, sq).has(tk));
    let occ = pos.occupied() | Bitboard::from(sq);
    // Can the king step away or take the pawn? (The pawn attacks only the king's square.)
    let occ_wo_king = occ ^ Bitboard::from(tk);
    for t in king_attacks(tk) & !pos.pieces(them) {
        if pos.attackers(us, t, occ_wo_king).is_empty() {
            return false;
        }
    }
    // Can another man take the pawn without exposing the king?
    let capturers = pos.attackers(them, sq, occ) & !pos.kind_bb(PieceKind::King);
    let our_rooks = pos.rook_movers() & pos.pieces(us);
    let our_bishops = pos.bishop_movers() & pos.pieces(us);
    for c in capturers {
        let occ2 = occ ^ Bitboard::from(c);
        let exposed =
            (rook_attacks(tk, occ2) & our_rooks) | (bishop_attacks(tk, occ2) & our_bishops);
        if exposed.is_empty() {
            return false;
        }
    }
    true
}

struct Counter {
    zone: Bitboard,
    n: u64,
}

impl GroupSink for Counter {
    #[inline(always)]
    fn board(&mut self, kind: PieceKind, from: Square, targets: Bitboard) {
        self.n += targets.count() as u64;
        if matches!(
            kind,
            PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook
        ) {
            // Optional promotion: a second move for each destination where it is allowed.
            self.n += if self.zone.has(from) {
                targets.count()
            } else {
                (targets & self.zone).count()
            } as u64;
        }
    }
    #[inline(always)]
    fn drop(&mut self, _kind: PieceKind, targets: Bitboard) {
        self.n += targets.count() as u64;
    }
}

/// The number of legal moves (perft's bulk count at the last ply).
#[inline]
pub fn count_legal(pos: &Position) -> u64 {
    let mut c = Counter {
        zone: Bitboard::zone(pos.side_to_move()),
        n: 0,
    };
    for_each_group(pos, &mut c);
    c.n
}

/// Whether the side to move has any legal move. Fast when the king can step to a square the
/// opponent does not attack (the usual case after a check that does not mate); otherwise it
/// counts the legal moves.
pub fn has_legal_move(pos: &Position) -> bool {
    let us = pos.side_to_move();
    if let Some(k) = pos.king_square(us) {
        let occ = pos.occupied() ^ Bitboard::from(k);
        for to in crate::attacks::king_attacks(k) & !pos.pieces(us) {
            if pos.attackers(!us, to, occ).is_empty() {
                return true;
            }
        }
    }
    count_legal(pos) > 0
}

struct Expander<'a> {
    classes: u8,
    zone: Bitboard,
    enemy: Bitboard,
    list: &'a mut MoveList,
}

impl GroupSink for Expander<'_> {
    #[inline(always)]
    fn board(&mut self, kind: PieceKind, from: Square, targets: Bitboard) {
        let (zone, list) = (self.zone, &mut *self.list);
        let noisy = self.classes & NOISY != 0;
        let quiet = self.classes & QUIET != 0;
        let caps = targets & self.enemy;
        let quiets = targets & !self.enemy;
        match kind {
            PieceKind::Pawn => {
                if noisy {
                    for to in caps | (quiets & zone) {
                        list.push(Move::board(from, to, zone.has(to)));
                    }
                }
                if quiet {
                    for to in quiets & !zone {
                        list.push(Move::board(from, to, false));
                    }
                }
            }
            PieceKind::Silver | PieceKind::Bishop | PieceKind::Rook => {
                let promo_ok = if zone.has(from) { Bitboard::FULL } else { zone };
                if noisy {
                    for to in caps {
                        if promo_ok.has(to) {
                            list.push(Move::board(from, to, true));
                        }
                        list.push(Move::board(from, to, false));
                    }
                    for to in quiets & promo_ok {
                        list.push(Move::board(from, to, true));
                    }
                }
                if quiet {
                    for to in quiets {
                        list.push(Move::board(from, to, false));
                    }
                }
            }
            _ => {
                if noisy {
                    for to in caps {
                        list.push(Move::board(from, to, false));
                    }
                }
                if quiet {
                    for to in quiets {
                        list.push(Move::board(from, to, false));
                    }
                }
            }
        }
    }
    #[inline(always)]
    fn drop(&mut self, kind: PieceKind, targets: Bitboard) {
        if self.classes & DROPS != 0 {
            for to in targets {
                self.list.push(Move::drop(kind, to));
            }
        }
    }
}

/// Appends the legal moves of the classes in `classes` (see [`NOISY`], [`QUIET`], [`DROPS`]).
pub fn generate(pos: &Position, classes: u8, list: &mut MoveList) {
    let us = pos.side_to_move();
    let mut e = Expander {
        classes,
        zone: Bitboard::zone(us),
        enemy: pos.pieces(!us),
        list,
    };
    for_each_group(pos, &mut e);
}

/// All legal moves.
pub fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    generate(pos, ALL, &mut list);
    list
}

/// Legal moves when in check (all of them); empty when not in check.
pub fn evasions(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    if pos.in_check() {
        generate(pos, ALL, &mut list);
    }
    list
}

/// Collects the quiet moves and drops that give check (see [`quiet_checks`]).
struct QuietChecks<'a> {
    pos: &'a Position,
    them: Color,
    /// The enemy king's square.
    king: Square,
    occ: Bitboard,
    enemy: Bitboard,
    zone: Bitboard,
    /// Our men whose leaving their square may uncover a check by another of our men.
    discoverers: Bitboard,
    list: &'a mut MoveList,
}

impl GroupSink for QuietChecks<'_> {
    #[inline(always)]
    fn board(&mut self, kind: PieceKind, from: Square, targets: Bitboard) {
        // The quiet class of `Expander`: no capture, no promotion, pawns outside the zone.
        let mut quiets = targets & !self.enemy;
        if kind == PieceKind::Pawn {
            quiets &= !self.zone;
        }
        if self.discoverers.has(from) {
            for to in quiets {
                let m = Move::board(from, to, false);
                if gives_check(self.pos, m) {
                    self.list.push(m);
                }
            }
        } else {
            // The squares from which `kind` sees the king once `from` is empty: by symmetry,
            // those that `kind` of the other colour sees from the king.
            let occ = self.occ ^ Bitboard::from(from);
            for to in quiets & attacks(self.them, kind, self.king, occ) {
                self.list.push(Move::board(from, to, false));
            }
        }
    }
    #[inline(always)]
    fn drop(&mut self, kind: PieceKind, targets: Bitboard) {
        for to in targets & attacks(self.them, kind, self.king, self.occ) {
            self.list.push(Move::drop(kind, to));
        }
    }
}

/// Appends the legal quiet moves and drops (the classes [`QUIET`] and [`DROPS`]) that give
/// check, in the order in which [`generate`] gives those classes: the same list as filtering
/// that generation with [`gives_check`], without testing every move.
pub fn quiet_checks(pos: &Position, list: &mut MoveList) {
    let us = pos.side_to_move();
    let them = !us;
    let Some(king) = pos.king_square(them) else {
        return;
    };
    let mut sink = QuietChecks {
        pos,
        them,
        king,
        occ: pos.occupied(),
        enemy: pos.pieces(them),
        zone: Bitboard::zone(us),
        discoverers: pos.blockers(them, king) & pos.pieces(us),
        list,
    };
    for_each_group(pos, &mut sink);
}

/// Legal moves that give check.
pub fn checks(pos: &Position) -> MoveList {
    let mut all = MoveList::new();
    generate(pos, ALL, &mut all);
    let mut list = MoveList::new();
    for &m in all.iter() {
        if gives_check(pos, m) {
            list.push(m);
        }
    }
    list
}

/// Whether legal move `m` checks the opponent's king (directly or by discovery).
#[inline]
pub fn gives_check(pos: &Position, m: Move) -> bool {
    let us = pos.side_to_move();
    let Some(tk) = pos.king_square(!us) else {
        return false;
    };
    let to = m.to();
    let (kind, occ) = if m.is_drop() {
        (m.drop_kind(), pos.occupied() | Bitboard::from(to))
    } else {
        let from = m.from();
        let Some(p) = pos.piece_on(from) else {
            return false;
        };
        let kind = if m.is_promotion() {
            p.kind.promote()
        } else {
            p.kind
        };
        (
            kind,
            (pos.occupied() ^ Bitboard::from(from)) | Bitboard::from(to),
        )
    };
    if attacks(us, kind, to, occ).has(tk) {
        return true;
    }
    if m.is_drop() {
        return false;
    }
    // Discovered check: one of our other sliders now sees the king.
    let from = Bitboard::from(m.from());
    let mine = pos.pieces(us) & !from & !Bitboard::from(to);
    let sliders = (rook_attacks(tk, occ) & pos.rook_movers()
        | bishop_attacks(tk, occ) & pos.bishop_movers())
        & mine;
    sliders.any()
}

/// [`gives_check`] for the moves of one position, with what every move shares worked out
/// once: the enemy king, the men whose leaving a line uncovers a check, and, per kind (on
/// first use), the squares from which a man of that kind checks.
pub struct CheckInfo {
    king: Option<Square>,
    us: Color,
    occ: Bitboard,
    discoverers: Bitboard,
    squares: [Bitboard; PieceKind::COUNT],
    known: u16,
}

impl CheckInfo {
    pub fn new(pos: &Position) -> CheckInfo {
        let us = pos.side_to_move();
        let king = pos.king_square(!us);
        CheckInfo {
            king,
            us,
            occ: pos.occupied(),
            discoverers: king.map_or(Bitboard::EMPTY, |k| pos.blockers(!us, k) & pos.pieces(us)),
            squares: [Bitboard::EMPTY; PieceKind::COUNT],
            known: 0,
        }
    }

    /// Whether the legal move `m` of the position this was made for checks the enemy king.
    /// The squares are those of the position before the move: a slider that would only see
    /// the king through the square it leaves was checking already, which a legal position
    /// (the enemy king not in check with us to move) rules out.
    #[inline(always)]
    pub fn gives_check(&mut self, pos: &Position, m: Move) -> bool {
        let Some(tk) = self.king else {
            return false;
        };
        let to = m.to();
        let kind = if m.is_drop() {
            m.drop_kind()
        } else {
            let from = m.from();
            if self.discoverers.has(from) && !line(tk, from).has(to) {
                return true;
            }
            let Some(p) = pos.piece_on(from) else {
                return false;
            };
            if m.is_promotion() {
                p.kind.promote()
            } else {
                p.kind
            }
        };
        let k = kind.index();
        if self.known & 1 << k == 0 {
            // By symmetry: the squares that `kind` of the other colour sees from the king.
            self.squares[k] = attacks(!self.us, kind, tk, self.occ);
            self.known |= 1 << k;
        }
        self.squares[k].has(to)
    }
}

/// Whether `m` is a legal move in `pos` (for moves from the hash table, killers, user input).
pub fn is_legal(pos: &Position, m: Move) -> bool {
    // Reject encodings that name no square (the fields have room for 32).
    let raw = m.raw();
    if m.is_none() || raw & 31 >= 25 || raw >> 5 & 31 >= 25 || raw >> 12 != 0 {
        return false;
    }
    let us = pos.side_to_move();
    let them = !us;
    let to = m.to();
    let occ = pos.occupied();
    let king = pos.king_square(us);
    let checkers = pos.checkers();
    if m.is_drop() {
        let kind = m.drop_kind();
        if raw >> 5 & 31 > 4 || m.is_promotion() || pos.hand(us).count(kind) == 0 || occ.has(to) {
            return false;
        }
        if kind == PieceKind::Pawn {
            if last_rank(us).has(to) || pawn_files(pos, us).has(to) {
                return false;
            }
            if let Some(tk) = pos.king_square(them) {
                if pawn_attacks(us, to).has(tk) && is_pawn_drop_mate(pos, to) {
                    return false;
                }
            }
        }
        return match (king, checkers.any()) {
            (Some(k), true) => !checkers.more_than_one() && between(k, checkers.lsb()).has(to),
            _ => true,
        };
    }
    let from = m.from();
    let Some(p) = pos.piece_on(from) else {
        return false;
    };
    if p.color != us || pos.pieces(us).has(to) || !attacks(us, p.kind, from, occ).has(to) {
        return false;
    }
    let zone = Bitboard::zone(us);
    if m.is_promotion() {
        if !p.kind.can_promote() || !(zone.has(from) || zone.has(to)) {
            return false;
        }
    } else if p.kind == PieceKind::Pawn && zone.has(to) {
        return false;
    }
    let Some(k) = king else {
        return true;
    };
    if p.kind == PieceKind::King {
        return pos
            .attackers(them, to, occ ^ Bitboard::from(from))
            .is_empty();
    }
    if checkers.any() {
        if checkers.more_than_one() {
            return false;
        }
        let c = checkers.lsb();
        if !(between(k, c) | checkers).has(to) {
            return false;
        }
    }
    !pos.pinned().has(from) || line(k, from).has(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_has_14_moves() {
        let p = Position::startpos();
        assert_eq!(legal_moves(&p).len(), 14);
        assert_eq!(count_legal(&p), 14);
    }

    #[test]
    fn pawn_files_cover_whole_files() {
        let p = Position::from_sfen("4k/5/2P2/5/K4 b - 1").unwrap();
        assert_eq!(pawn_files(&p, Color::Black), Bitboard::file(3));
        let p = Position::from_sfen("4k/P4/5/4P/K4 b - 1").unwrap();
        assert_eq!(
            pawn_files(&p, Color::Black),
            Bitboard::file(5) | Bitboard::file(1)
        );
    }
}
