//! Every way `Position::from_sfen` can refuse an SFEN, one test per `SfenError` variant, each
//! with the exact variant and a message that names the problem; and the unusual SFENs that
//! docs/rules.md says must still be accepted (tsume positions without the attacker's king, promoted men, no move
//! number).

use gogo::position::{Position, SfenError, START_SFEN};
use gogo::types::{Color, PieceKind, Square};

/// Parses `sfen`, which must be rejected with `expected`, and checks that the message contains
/// every fragment of `words` (case-insensitive).
fn rejects(sfen: &str, expected: SfenError, words: &[&str]) {
    let err = match Position::from_sfen(sfen) {
        Ok(p) => panic!("{sfen:?} was accepted as {p}; expected {expected:?}"),
        Err(e) => e,
    };
    assert_eq!(err, expected, "{sfen:?}");
    let msg = err.to_string();
    let lower = msg.to_lowercase();
    for w in words {
        assert!(
            lower.contains(&w.to_lowercase()),
            "{sfen:?}: message {msg:?} does not mention {w:?}"
        );
    }
}

/// The start position without its optional move number.
const START_SFEN_NO_NUMBER: &str = "rbsgk/4p/5/P4/KGSBR b -";

fn accepts(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen:?} rejected: {e}"))
}

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap()
}

#[test]
fn empty() {
    rejects("", SfenError::Empty, &["empty"]);
    rejects("   \t ", SfenError::Empty, &["empty"]);
}

#[test]
fn missing_fields() {
    rejects(
        "rbsgk/4p/5/P4/KGSBR",
        SfenError::MissingFields(1),
        &["1 field", "side to move", "hands"],
    );
    rejects(
        "rbsgk/4p/5/P4/KGSBR b",
        SfenError::MissingFields(2),
        &["2 field", "hands"],
    );
}

#[test]
fn too_many_fields() {
    rejects(
        "rbsgk/4p/5/P4/KGSBR b - 1 moves",
        SfenError::TooManyFields(5),
        &["5 fields", "at most 4"],
    );
    rejects(
        "rbsgk/4p/5/P4/KGSBR b - 1 2 3",
        SfenError::TooManyFields(6),
        &["6 fields"],
    );
}

#[test]
fn nine_by_nine() {
    let shogi = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    rejects(shogi, SfenError::NineByNine, &["9x9", "5x5"]);
    // Recognised even when the rest of the SFEN is missing.
    rejects(
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
        SfenError::NineByNine,
        &["9x9"],
    );
}

#[test]
fn rank_count() {
    rejects(
        "rbsgk/4p/P4/KGSBR b - 1",
        SfenError::RankCount(4),
        &["4 ranks", "5"],
    );
    rejects(
        "rbsgk/4p/5/5/P4/KGSBR b - 1",
        SfenError::RankCount(6),
        &["6 ranks"],
    );
}

#[test]
fn rank_length() {
    // Too long: a digit run past the edge, or a sixth man.
    rejects(
        "rbsgk/4p/6/P4/KGSBR b - 1",
        SfenError::RankLength {
            rank: 'c',
            length: 6,
        },
        &["rank c", "6 squares"],
    );
    rejects(
        "rbsgkp/5/5/P4/KGSBR b - 1",
        SfenError::RankLength {
            rank: 'a',
            length: 6,
        },
        &["rank a", "6"],
    );
    // Too short, and empty.
    rejects(
        "rbsgk/4p/5/P3/KGSBR b - 1",
        SfenError::RankLength {
            rank: 'd',
            length: 4,
        },
        &["rank d", "4 squares"],
    );
    rejects(
        "rbsgk/4p/5/P4/KGSB b - 1",
        SfenError::RankLength {
            rank: 'e',
            length: 4,
        },
        &["rank e"],
    );
    rejects(
        "rbsgk//5/P4/KGSBR b - 1",
        SfenError::RankLength {
            rank: 'b',
            length: 0,
        },
        &["rank b", "0 squares"],
    );
}

#[test]
fn unknown_piece() {
    // Knights and lances exist in shogi but not here.
    rejects(
        "rbsgk/4p/5/P4/KGSBN b - 1",
        SfenError::UnknownPiece('N'),
        &["'N'"],
    );
    rejects(
        "rbsgk/4p/2x2/P4/KGSBR b - 1",
        SfenError::UnknownPiece('x'),
        &["unknown", "'x'"],
    );
    rejects(
        "lbsgk/4p/5/P4/KGSBR b - 1",
        SfenError::UnknownPiece('l'),
        &["'l'"],
    );
}

#[test]
fn bad_promotion() {
    rejects(
        "rbs+Gk/4p/5/P4/KGSBR b - 1",
        SfenError::BadPromotion("+G".into()),
        &["+G", "promoted"],
    );
    rejects(
        "rbsgk/4p/5/P4/+KGSBR b - 1",
        SfenError::BadPromotion("+K".into()),
        &["+K"],
    );
    rejects(
        "rbsg+k/4p/5/P4/KGSBR b - 1",
        SfenError::BadPromotion("+k".into()),
        &["+k"],
    );
    // A '+' with nothing after it.
    rejects(
        "rbsgk/4p/5/P4/KGSB+ b - 1",
        SfenError::BadPromotion("+".into()),
        &["'+'"],
    );
}

#[test]
fn bad_side() {
    rejects(
        "rbsgk/4p/5/P4/KGSBR x - 1",
        SfenError::BadSide("x".into()),
        &["'x'", "'b' or 'w'"],
    );
    rejects(
        "rbsgk/4p/5/P4/KGSBR B - 1",
        SfenError::BadSide("B".into()),
        &["'B'"],
    );
    rejects(
        "rbsgk/4p/5/P4/KGSBR - b 1",
        SfenError::BadSide("-".into()),
        &["side to move"],
    );
}

#[test]
fn bad_hand() {
    for hand in ["K", "k", "0P", "3", "P2", "Q", "+P", "--", "2-"] {
        let sfen = format!("4k/5/5/5/K4 b {hand} 1");
        rejects(
            &sfen,
            SfenError::BadHand(hand.into()),
            &["hand", &format!("'{hand}'")],
        );
    }
}

#[test]
fn bad_move_number() {
    for n in ["0", "abc", "-1", "1.5", "99999999999"] {
        let sfen = format!("{START_SFEN_NO_NUMBER} {n}");
        rejects(
            &sfen,
            SfenError::BadMoveNumber(n.into()),
            &["move number", &format!("'{n}'")],
        );
    }
}

#[test]
fn too_many_of_a_kind() {
    // Three pawns: one on the board and one in each hand.
    rejects(
        "4k/5/5/P4/K4 b Pp 1",
        SfenError::TooMany {
            kind: PieceKind::Pawn,
            count: 3,
        },
        &["3 pawns", "only 2"],
    );
    // Promoted men count as their unpromoted kind.
    rejects(
        "4k/5/+p4/P4/K4 b P 1",
        SfenError::TooMany {
            kind: PieceKind::Pawn,
            count: 3,
        },
        &["3 pawns"],
    );
    rejects(
        "r3k/5/+R4/5/K3+r b - 1",
        SfenError::TooMany {
            kind: PieceKind::Rook,
            count: 3,
        },
        &["3 rooks"],
    );
    rejects(
        "4k/5/5/5/K4 b 2Bb 1",
        SfenError::TooMany {
            kind: PieceKind::Bishop,
            count: 3,
        },
        &["3 bishops"],
    );
    rejects(
        "4k/5/1G1g1/5/K4 b g 1",
        SfenError::TooMany {
            kind: PieceKind::Gold,
            count: 3,
        },
        &["3 golds"],
    );
    rejects(
        "4k/5/1S1+s1/5/K4 b S 1",
        SfenError::TooMany {
            kind: PieceKind::Silver,
            count: 3,
        },
        &["3 silvers"],
    );
    // Too many in one hand alone.
    rejects(
        "4k/5/5/5/K4 b 3P 1",
        SfenError::TooMany {
            kind: PieceKind::Pawn,
            count: 3,
        },
        &["3 pawns"],
    );
}

#[test]
fn two_kings() {
    rejects(
        "4k/5/5/5/K3K b - 1",
        SfenError::TwoKings(Color::Black),
        &["sente", "more than one king"],
    );
    rejects(
        "k3k/5/5/5/K4 b - 1",
        SfenError::TwoKings(Color::White),
        &["gote", "king"],
    );
}

#[test]
fn pawn_on_last_rank() {
    rejects(
        "P3k/5/5/5/K4 b - 1",
        SfenError::PawnOnLastRank(sq("5a")),
        &["last rank", "5a"],
    );
    rejects(
        "4k/5/5/5/K3p b - 1",
        SfenError::PawnOnLastRank(sq("1e")),
        &["last rank", "1e"],
    );
    // A pawn on the opponent's last rank is fine, and so are promoted pawns and other men.
    accepts("p3k/5/5/5/K3P b - 1");
    accepts("+P3k/5/5/5/K3+p b - 1");
    accepts("S2rk/5/5/5/KR2s b - 1");
}

#[test]
fn nifu() {
    rejects(
        "4k/5/P4/P4/K4 b - 1",
        SfenError::Nifu {
            color: Color::Black,
            file: 5,
        },
        &["sente", "file 5", "nifu"],
    );
    rejects(
        "k4/5/2p2/2p2/4K b - 1",
        SfenError::Nifu {
            color: Color::White,
            file: 3,
        },
        &["gote", "file 3", "nifu"],
    );
    // A tokin does not count, and pawns of opposite colours may share a file.
    accepts("4k/5/+P4/P4/K4 b - 1");
    accepts("k4/5/2+p2/2p2/4K b - 1");
    accepts("4k/3p1/5/3P1/K4 b - 1");
}

#[test]
fn side_not_to_move_in_check() {
    // Sente to move, and sente's rook already attacks gote's king along file 1.
    rejects(
        "4k/5/5/5/K3R b - 1",
        SfenError::SideNotToMoveInCheck,
        &["not to move", "check"],
    );
    // Gote to move, and gote's bishop on 4d attacks sente's king on 5e.
    rejects(
        "4k/5/5/1b3/K4 w - 1",
        SfenError::SideNotToMoveInCheck,
        &["check"],
    );
    // The side to move may be in check.
    let p = accepts("4k/5/5/5/K3R w - 1");
    assert!(p.in_check());
    let p = accepts("4k/5/5/1b3/K4 b - 1");
    assert!(p.in_check());
}

#[test]
fn accepted_without_the_attackers_king() {
    // A tsume problem: the attacker (to move) has no king.
    let p = accepts("4k/5/5/5/5 b 2R 1");
    assert_eq!(p.king_square(Color::Black), None);
    assert_eq!(p.king_square(Color::White), Some(sq("1a")));
    assert_eq!(p.hand(Color::Black).count(PieceKind::Rook), 2);
    // The same with gote attacking.
    let p = accepts("5/5/5/5/K4 w 2r 1");
    assert_eq!(p.king_square(Color::Black), Some(sq("5e")));
    assert_eq!(p.king_square(Color::White), None);
    // Nothing is in check without a king, however exposed.
    let p = accepts("4k/5/5/5/R4 b - 1");
    assert!(!p.in_check());
}

#[test]
fn no_king_for_the_side_not_to_move() {
    // Sente to move and gote, not to move, has no king: there is nothing to play for.
    rejects(
        "5/5/5/5/K4 b B 1",
        SfenError::NoKing(Color::White),
        &["gote", "no king"],
    );
    rejects(
        "4k/5/5/5/5 w B 1",
        SfenError::NoKing(Color::Black),
        &["sente", "no king"],
    );
    // No king at all (issue 10, item 11).
    rejects(
        "5/2r2/5/2R2/5 b - 1",
        SfenError::NoKing(Color::White),
        &["not to move", "king"],
    );
}

#[test]
fn accepted_without_move_number() {
    let p = accepts(START_SFEN_NO_NUMBER);
    assert_eq!(p.move_number(), 1);
    assert_eq!(p.to_sfen(), START_SFEN);
    let p = accepts("4k/5/5/5/K4 w -");
    assert_eq!(p.move_number(), 1);
    assert_eq!(p.side_to_move(), Color::White);
    let p = accepts("4k/5/5/5/K4 w - 38");
    assert_eq!(p.move_number(), 38);
}

#[test]
fn accepted_with_promoted_men() {
    let sfen = "4k/+p+s+b+r1/+B+P+S+R1/5/K4 b - 7";
    let p = accepts(sfen);
    assert_eq!(p.to_sfen(), sfen);
    assert_eq!(p.move_number(), 7);
    let kinds = [
        ("5b", Color::White, PieceKind::Tokin),
        ("4b", Color::White, PieceKind::ProSilver),
        ("3b", Color::White, PieceKind::Horse),
        ("2b", Color::White, PieceKind::Dragon),
        ("5c", Color::Black, PieceKind::Horse),
        ("4c", Color::Black, PieceKind::Tokin),
        ("3c", Color::Black, PieceKind::ProSilver),
        ("2c", Color::Black, PieceKind::Dragon),
    ];
    for (s, color, kind) in kinds {
        let pc = p.piece_on(sq(s)).unwrap_or_else(|| panic!("empty {s}"));
        assert_eq!((pc.color, pc.kind), (color, kind), "{s}");
    }
    assert!(!p.in_check());
    // The same men, but sente's horse on 3c looks down the diagonal at gote's king on 1a.
    rejects(
        "4k/+p+s3/+P+S+B2/5/K4 b - 1",
        SfenError::SideNotToMoveInCheck,
        &["check"],
    );
}

#[test]
fn non_canonical_hand_order_is_accepted_and_printed_canonically() {
    let p = accepts("4k/5/5/5/K4 b pgPBr 1");
    assert_eq!(p.to_sfen(), "4k/5/5/5/K4 b BPrgp 1");
    let p = accepts("4k/5/5/5/K4 b PP 1");
    assert_eq!(p.hand(Color::Black).count(PieceKind::Pawn), 2);
    assert_eq!(p.to_sfen(), "4k/5/5/5/K4 b 2P 1");
}

/// One bad SFEN per variant. The match has no wildcard arm, so a new variant does not compile
/// until it has an example here.
fn example(variant: &SfenError) -> &'static str {
    match variant {
        SfenError::Empty => "",
        SfenError::MissingFields(_) => "4k/5/5/5/K4 b",
        SfenError::TooManyFields(_) => "4k/5/5/5/K4 b - 1 x",
        SfenError::NineByNine => "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        SfenError::RankCount(_) => "4k/5/5/K4 b - 1",
        SfenError::RankLength { .. } => "4k/5/5/5/K5 b - 1",
        SfenError::UnknownPiece(_) => "4k/5/5/5/K3N b - 1",
        SfenError::BadPromotion(_) => "4k/5/5/5/K3+G b - 1",
        SfenError::BadSide(_) => "4k/5/5/5/K4 x - 1",
        SfenError::BadHand(_) => "4k/5/5/5/K4 b K 1",
        SfenError::BadMoveNumber(_) => "4k/5/5/5/K4 b - 0",
        SfenError::TooMany { .. } => "4k/5/5/5/K4 b 2Pp 1",
        SfenError::TwoKings(_) => "4k/5/5/5/KK3 b - 1",
        SfenError::NoKing(_) => "5/5/5/5/K4 b - 1",
        SfenError::PawnOnLastRank(_) => "4k/5/5/5/K3p b - 1",
        SfenError::Nifu { .. } => "4k/4p/4p/5/K4 b - 1",
        SfenError::SideNotToMoveInCheck => "4k/5/5/5/K3R b - 1",
    }
}

#[test]
fn every_variant_has_an_example_that_produces_it() {
    let all = [
        SfenError::Empty,
        SfenError::MissingFields(2),
        SfenError::TooManyFields(5),
        SfenError::NineByNine,
        SfenError::RankCount(4),
        SfenError::RankLength {
            rank: 'e',
            length: 6,
        },
        SfenError::UnknownPiece('N'),
        SfenError::BadPromotion("+G".into()),
        SfenError::BadSide("x".into()),
        SfenError::BadHand("K".into()),
        SfenError::BadMoveNumber("0".into()),
        SfenError::TooMany {
            kind: PieceKind::Pawn,
            count: 3,
        },
        SfenError::TwoKings(Color::Black),
        SfenError::NoKing(Color::White),
        SfenError::PawnOnLastRank(sq("1e")),
        SfenError::Nifu {
            color: Color::White,
            file: 1,
        },
        SfenError::SideNotToMoveInCheck,
    ];
    let mut messages = std::collections::BTreeSet::new();
    for expected in all {
        let sfen = example(&expected);
        assert_eq!(Position::from_sfen(sfen), Err(expected.clone()), "{sfen:?}");
        messages.insert(expected.to_string());
    }
    // No two problems share a message.
    assert_eq!(messages.len(), 17);
}
