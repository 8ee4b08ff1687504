//! Uchifuzume: a pawn drop that checkmates is illegal; every neighbouring case is legal (a
//! pawn-drop check that is not mate, a pawn drop that stalemates without check, mate by a pawn
//! moved on the board, mate by a drop of any other man). Each position is tried as written and
//! colour-flipped, and each claim about it (check, the replies that remain) is checked by
//! playing the move.

use gogo::movegen::{is_legal, legal_moves};
use gogo::notation::{parse_move, IllegalMove, UsiMove};
use gogo::position::Position;
use gogo::types::Color;
use std::collections::BTreeSet;

fn legal(p: &Position) -> BTreeSet<String> {
    legal_moves(p).iter().map(|m| m.to_string()).collect()
}

/// A USI move, or a bare square, seen from the other side of the board.
fn flip_move(m: &str) -> String {
    let flip_sq = |s: &[u8]| {
        format!(
            "{}{}",
            (b'6' - s[0] + b'0') as char,
            (b'e' - s[1] + b'a') as char
        )
    };
    let b = m.as_bytes();
    if b.len() == 2 {
        flip_sq(b)
    } else if b[1] == b'*' {
        format!("{}*{}", b[0] as char, flip_sq(&b[2..4]))
    } else {
        let promo = if b.len() == 5 { "+" } else { "" };
        format!("{}{}{promo}", flip_sq(&b[0..2]), flip_sq(&b[2..4]))
    }
}

/// Translates sente's USI moves (or squares) into those of one colour's version of a position.
type Translate = fn(&str) -> String;

/// The position as written (sente to move) and colour-flipped (gote to move), each with the
/// translation of sente's moves into that position's.
fn both_colours(sfen: &str) -> Vec<(Position, Translate)> {
    let p = Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"));
    assert_eq!(p.side_to_move(), Color::Black, "{sfen}");
    assert!(!p.in_check(), "{sfen}");
    let flipped = p.flipped();
    // The flipped position is itself a valid SFEN.
    assert_eq!(Position::from_sfen(&flipped.to_sfen()), Ok(flipped));
    vec![(p, |m: &str| m.to_string()), (flipped, flip_move)]
}

/// `drop` must be an uchifuzume: well formed, not generated, refused by `is_legal` and by
/// `resolve` with `IllegalMove::Uchifuzume`; yet after it the opponent really would be in
/// check with no reply (so the position is what the test says it is).
fn assert_uchifuzume(sfen: &str, drop: &str) {
    for (p, tr) in both_colours(sfen) {
        let m = tr(drop);
        let usi = UsiMove::parse(&m).unwrap();
        assert!(!legal(&p).contains(&m), "{m} generated in {p}");
        assert!(!is_legal(&p, usi.to_move()), "{m} accepted in {p}");
        assert_eq!(usi.resolve(&p), Err(IllegalMove::Uchifuzume), "{m} in {p}");
        let err = parse_move(&p, &m).unwrap_err().to_string();
        assert!(err.contains("uchifuzume"), "{err}");
        let after = p.after(usi.to_move());
        assert!(after.in_check(), "{m} in {p} must check");
        assert!(legal(&after).is_empty(), "{m} in {p} must mate");
    }
}

/// `mv` must be legal (generated, accepted, resolved) and leave the opponent in check (or
/// not, per `check`) with exactly the replies `replies` (sente's notation).
fn assert_legal_with_replies(sfen: &str, mv: &str, check: bool, replies: &[&str]) {
    for (p, tr) in both_colours(sfen) {
        let m = tr(mv);
        assert!(legal(&p).contains(&m), "{m} not generated in {p}");
        let resolved = UsiMove::parse(&m).unwrap().resolve(&p);
        assert_eq!(resolved.map(|x| x.to_string()), Ok(m.clone()), "{p}");
        let after = p.after(parse_move(&p, &m).unwrap());
        assert_eq!(after.in_check(), check, "{m} in {p}");
        let expected: BTreeSet<String> = replies.iter().map(|r| tr(r)).collect();
        assert_eq!(legal(&after), expected, "replies to {m} in {p}");
    }
}

// ------------------------------------------------------------------ illegal: the drop mates

/// Gote's king on 1a. Sente's silver on 3b covers 2a, sente's gold on 2c covers 2b and guards
/// 1b. P*1b would check with no escape and no capture.
const BOXED: &str = "4k/2S2/3G1/5/K4 b GP 1";

#[test]
fn pawn_drop_mate_is_illegal() {
    assert_uchifuzume(BOXED, "P*1b");
}

#[test]
fn other_pawn_drops_in_the_same_position_are_legal() {
    for (p, tr) in both_colours(BOXED) {
        let moves = legal(&p);
        // Every empty square that is not on the last rank and not 1b.
        for drop in ["P*5b", "P*4b", "P*2b", "P*1c", "P*5d", "P*1e"] {
            assert!(moves.contains(&tr(drop)), "{drop} in {p}");
        }
        for drop in ["P*4a", "P*1b"] {
            assert!(!moves.contains(&tr(drop)), "{drop} in {p}");
        }
    }
}

#[test]
fn non_pawn_drop_mate_is_legal() {
    // A gold on the same square mates, and that is allowed.
    assert_legal_with_replies(BOXED, "G*1b", true, &[]);
}

#[test]
fn pawn_drop_mate_with_a_pinned_capturer_on_a_rank_is_illegal() {
    // Gote's silver on 2a could take a pawn on 1b, but sente's rook on 5a pins it to the king.
    let sfen = "R2sk/5/3G1/5/K4 b P 1";
    // Check the pin: with gote to move, the silver has no legal move at all.
    for (p, tr) in both_colours(sfen) {
        let mut q = p;
        q.do_null_move();
        assert!(!q.in_check());
        let silver = tr("2a");
        assert!(!legal(&q).iter().any(|m| m.starts_with(&silver)), "{q}");
    }
    assert_uchifuzume(sfen, "P*1b");
}

#[test]
fn pawn_drop_mate_with_a_pinned_capturer_on_a_diagonal_is_illegal() {
    // Gote's gold on 2b could take a pawn on 1b sideways, but sente's bishop on 4d pins it along
    // the 4d-1a diagonal. Sente's silver on 3b covers 2a, sente's gold on 1c guards 1b.
    assert_uchifuzume("4k/2Sg1/4G/1B3/K4 b P 1", "P*1b");
}

// ------------------------------------------------------------------ legal: check but not mate

#[test]
fn pawn_drop_check_with_an_escape_is_legal() {
    // Without the silver on 3b the king escapes to 2a.
    assert_legal_with_replies("4k/5/3G1/5/K4 b P 1", "P*1b", true, &["1a2a"]);
}

#[test]
fn pawn_drop_check_the_king_can_answer_by_capture_is_legal() {
    // Sente's rook on 2e covers 2a and 2b, but nothing guards 1b: the king takes the pawn.
    assert_legal_with_replies("4k/5/5/5/K2R1 b P 1", "P*1b", true, &["1a1b"]);
}

#[test]
fn pawn_drop_check_another_man_can_answer_by_capture_is_legal() {
    // As in the mate above, but gote's silver on 2a is not pinned and takes the pawn.
    assert_legal_with_replies("3sk/5/3G1/5/K4 b P 1", "P*1b", true, &["2a1b"]);
}

#[test]
fn pinned_capturer_that_stays_on_its_line_makes_the_drop_legal() {
    // Gote's gold on 1c is pinned by sente's rook on 1e, but taking a pawn on 1b keeps it on
    // file 1, between the rook and the king, so the capture is legal and the drop is no mate.
    assert_legal_with_replies("4k/2S2/3Gg/5/K3R b P 1", "P*1b", true, &["1c1b"]);
}

#[test]
fn the_dropped_pawn_blocks_a_flight_square_guard() {
    // Gote's king on 2a; its neighbours 3a (rook) and 1a (pawn) are its own men; sente's rook on
    // 5b covers 4b..1b and sente's silver on 3c guards 2b. A pawn on 2b checks, and also cuts
    // the rook off from 1b, so the king escapes there: no mate, a legal drop.
    assert_legal_with_replies("2rkp/R4/2S2/5/K4 b P 1", "P*2b", true, &["2a1b"]);
    // Before the drop, 1b is covered.
    for (p, tr) in both_colours("2rkp/R4/2S2/5/K4 b P 1") {
        let mut q = p;
        q.do_null_move();
        assert!(!legal(&q).contains(&tr("2a1b")), "{q}");
    }
}

// ------------------------------------------------------------------ legal: no check, or no drop

#[test]
fn pawn_drop_that_leaves_no_move_without_check_is_legal() {
    // Gote's king on 1a: 2a is covered by sente's bishop on 4c, 2b by sente's silver on 3c, so
    // gote's only move is to 1b. P*1c covers 1b without checking: gote is left without a move,
    // which loses for gote, and the drop is legal.
    let sfen = "4k/5/1BS2/5/K4 b P 1";
    for (p, tr) in both_colours(sfen) {
        let mut q = p;
        q.do_null_move();
        assert_eq!(legal(&q), [tr("1a1b")].into_iter().collect::<BTreeSet<_>>());
    }
    assert_legal_with_replies(sfen, "P*1c", false, &[]);
}

#[test]
fn mate_by_a_pawn_moved_on_the_board_is_legal() {
    // The pawn on 1c steps to 1b, guarded by the gold on 2c; the silver on 3b covers 2a.
    assert_legal_with_replies("4k/2S2/3GP/5/K4 b - 1", "1c1b", true, &[]);
}

#[test]
fn pawn_drop_mate_guarded_from_afar_is_illegal() {
    // Sente's silvers on 3b and 3c cover 2a and 2b; the bishop on 4e guards 1b along the
    // diagonal, so the king cannot take the pawn.
    assert_uchifuzume("4k/2S2/2S2/5/KB3 b P 1", "P*1b");
}

#[test]
fn pawn_drop_mate_is_illegal_without_the_attacker_s_king() {
    // A tsume problem: sente has no king, and the rule is the same.
    assert_uchifuzume("4k/2S2/3G1/5/5 b GP 1", "P*1b");
    assert_legal_with_replies("4k/2S2/3G1/5/5 b GP 1", "G*1b", true, &[]);
}

#[test]
fn a_pawn_drop_that_ignores_a_check_is_not_called_uchifuzume() {
    // BOXED plus gote's rook on 5a checking sente's king on 5e along file 5. P*1b would be
    // uchifuzume in BOXED, but here it is illegal for a simpler reason: it leaves sente's own
    // king in check. Only king moves and blocking drops on file 5 are legal.
    let p = Position::from_sfen("r3k/2S2/3G1/5/K4 b P 1").unwrap();
    assert!(p.in_check());
    let moves = legal(&p);
    let expected: BTreeSet<String> = ["5e4d", "5e4e", "P*5b", "P*5c", "P*5d"]
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(moves, expected);
    assert_eq!(
        UsiMove::parse("P*1b").unwrap().resolve(&p),
        Err(IllegalMove::NotLegal)
    );
}
