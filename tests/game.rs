//! The end of the game as docs/rules.md states it: checkmate, no legal move, fourfold repetition
//! (perpetual check, and plain sennichite under both `SennichiteRule` values), the ply limit;
//! and the `Game` bookkeeping (`play_usi` refusals, `undo`).
//!
//! Every position is checked before use (legal moves, check status), so a test cannot pass
//! because its position is not the one the comment describes.

use gogo::game::{EndReason, Game, GameResult, GameRules, Repetition, SennichiteRule};
use gogo::movegen::legal_moves;
use gogo::position::Position;
use gogo::types::{Color, Move};
use std::collections::BTreeSet;

const DRAW: GameRules = GameRules {
    sennichite: SennichiteRule::Draw,
    max_plies: 0,
};
const GOTE_WINS: GameRules = GameRules {
    sennichite: SennichiteRule::GoteWins,
    max_plies: 0,
};
const BOTH_RULES: [GameRules; 2] = [DRAW, GOTE_WINS];

fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

fn legal(p: &Position) -> BTreeSet<String> {
    legal_moves(p).iter().map(|m| m.to_string()).collect()
}

fn set(moves: &[&str]) -> BTreeSet<String> {
    moves.iter().map(|s| s.to_string()).collect()
}

/// A USI move seen from the other side of the board (for colour-flipped positions).
fn flip_move(m: &str) -> String {
    let flip_sq = |s: &[u8]| {
        format!(
            "{}{}",
            (b'6' - s[0] + b'0') as char,
            (b'e' - s[1] + b'a') as char
        )
    };
    let b = m.as_bytes();
    if b[1] == b'*' {
        format!("{}*{}", b[0] as char, flip_sq(&b[2..4]))
    } else {
        let promo = if b.len() == 5 { "+" } else { "" };
        format!("{}{}{promo}", flip_sq(&b[0..2]), flip_sq(&b[2..4]))
    }
}

fn flip_all(moves: &[&str]) -> Vec<String> {
    moves.iter().map(|m| flip_move(m)).collect()
}

fn play(game: &mut Game, m: &str) {
    game.play_usi(m)
        .unwrap_or_else(|e| panic!("{m} after {:?}: {e}", game.moves()));
}

fn result(winner: Option<Color>, reason: EndReason) -> Option<GameResult> {
    Some(GameResult { winner, reason })
}

// ------------------------------------------------------------------ checkmate, no legal move

/// Sente drops a gold on 1b, guarded by the pawn on 1c: gote's king on 1a has no square.
const MATE_IN_ONE: &str = "4k/5/4P/5/K4 b G 1";

fn check_mate_in_one(start: Position, mate: &str, winner: Color) {
    let mut game = Game::new(start);
    assert!(!start.in_check());
    assert!(legal(&start).contains(mate));
    for rules in BOTH_RULES {
        assert_eq!(game.result(rules), None);
    }
    play(&mut game, mate);
    let p = *game.current();
    assert!(p.in_check());
    assert!(legal(&p).is_empty());
    for rules in BOTH_RULES {
        assert_eq!(
            game.result(rules),
            result(Some(winner), EndReason::Checkmate)
        );
    }
    assert_eq!(
        game.result(DRAW).unwrap().to_string(),
        match winner {
            Color::Black => "sente wins (Checkmate)",
            Color::White => "gote wins (Checkmate)",
        }
    );
}

#[test]
fn checkmate_by_sente() {
    check_mate_in_one(pos(MATE_IN_ONE), "G*1b", Color::Black);
}

#[test]
fn checkmate_by_gote() {
    let p = pos(MATE_IN_ONE).flipped();
    assert_eq!(p.side_to_move(), Color::White);
    check_mate_in_one(p, &flip_move("G*1b"), Color::White);
}

#[test]
fn a_check_that_is_not_mate_does_not_end_the_game() {
    // The same drop without the guarding pawn: the king's only move is to take the gold.
    let mut game = Game::new(pos("4k/5/5/5/K4 b G 1"));
    play(&mut game, "G*1b");
    assert!(game.current().in_check());
    assert_eq!(legal(game.current()), set(&["1a1b"]));
    assert_eq!(game.result(DRAW), None);
}

/// Gote's king on 1a, not in check, boxed in by the silver on 3b (covers 2a) and the gold that
/// sente moves to 2c (covers 2b and 1b). Gote has nothing else.
const BOX_IN: &str = "4k/2S2/5/3G1/K4 b - 1";

fn check_no_legal_move(start: Position, last: &str, winner: Color) {
    let mut game = Game::new(start);
    assert_eq!(game.result(DRAW), None);
    play(&mut game, last);
    let p = *game.current();
    assert!(!p.in_check(), "{p}");
    assert!(legal(&p).is_empty(), "{p}");
    for rules in BOTH_RULES {
        assert_eq!(
            game.result(rules),
            result(Some(winner), EndReason::NoLegalMove),
            "no stalemate draw: the side to move loses"
        );
    }
}

#[test]
fn no_legal_move_without_check_loses_for_gote() {
    let start = pos(BOX_IN);
    // Before the gold arrives gote could still step to 2b or 1b.
    assert_eq!(legal(&pos("4k/2S2/5/3G1/K4 w - 1")), set(&["1a1b", "1a2b"]));
    check_no_legal_move(start, "2d2c", Color::Black);
}

#[test]
fn no_legal_move_without_check_loses_for_sente() {
    check_no_legal_move(pos(BOX_IN).flipped(), &flip_move("2d2c"), Color::White);
}

// ------------------------------------------------------------------ repetition

/// Plays `cycle` `times` times, checking after every ply that the game is not over yet,
/// except possibly after the very last ply.
fn play_cycles(game: &mut Game, cycle: &[String], times: usize) {
    for t in 0..times {
        for (i, m) in cycle.iter().enumerate() {
            play(game, m);
            let last = t + 1 == times && i + 1 == cycle.len();
            if !last {
                for rules in BOTH_RULES {
                    assert_eq!(game.result(rules), None, "after {:?}", game.moves());
                }
                assert_eq!(game.repetition(), Repetition::None);
            }
        }
    }
}

/// Checks that each move of `cycle` is legal in turn, gives check exactly where `checks` says,
/// and that the cycle returns to `start`.
fn verify_cycle(start: Position, cycle: &[String], checks: &[bool]) {
    assert_eq!(cycle.len(), checks.len());
    let mut p = start;
    for (m, &check) in cycle.iter().zip(checks) {
        assert!(legal(&p).contains(m), "{m} is not legal in {p}");
        let mv: Move = gogo::notation::parse_move(&p, m).unwrap();
        p = p.after(mv);
        assert_eq!(p.in_check(), check, "{m} gives check: expected {check}");
    }
    assert_eq!(p.key(), start.key(), "the cycle must return to its start");
}

const ROOK_VS_KING: &str = "4k/2R2/5/5/K4 b - 1";
const PERPETUAL: [&str; 4] = ["3b3a", "1a1b", "3a3b", "1b1a"];

fn perpetual_check(start: Position, cycle: Vec<String>, checker: Color) {
    let mut game = Game::new(start);
    play_cycles(&mut game, &cycle, 2);
    assert_eq!(game.occurrences(), 3);
    for rules in BOTH_RULES {
        assert_eq!(
            game.result(rules),
            None,
            "the third occurrence is not the end"
        );
    }
    play_cycles(&mut game, &cycle, 1);
    assert_eq!(game.occurrences(), 4);
    assert_eq!(game.moves().len(), 12);
    assert_eq!(
        game.repetition(),
        Repetition::Fourfold {
            checker: Some(checker)
        }
    );
    for rules in BOTH_RULES {
        assert_eq!(
            game.result(rules),
            result(Some(!checker), EndReason::PerpetualCheck),
            "{rules:?}"
        );
    }
}

#[test]
fn perpetual_check_by_sente_loses() {
    let start = pos(ROOK_VS_KING);
    let cycle: Vec<String> = PERPETUAL.iter().map(|m| m.to_string()).collect();
    verify_cycle(start, &cycle, &[true, false, true, false]);
    perpetual_check(start, cycle, Color::Black);
}

#[test]
fn perpetual_check_by_gote_loses() {
    let start = pos(ROOK_VS_KING).flipped();
    assert_eq!(start.side_to_move(), Color::White);
    let cycle = flip_all(&PERPETUAL);
    assert_eq!(cycle, ["3d3e", "5e5d", "3e3d", "5d5e"]);
    verify_cycle(start, &cycle, &[true, false, true, false]);
    perpetual_check(start, cycle, Color::White);
}

#[test]
fn quiet_moves_before_the_first_occurrence_do_not_excuse_perpetual_check() {
    // Sente's king and gote's pawn make one quiet move each, then the checking cycle starts.
    // The repeated position first occurs after those two moves.
    let start = pos("4k/p1R2/5/5/K4 b - 1");
    let mut game = Game::new(start);
    play(&mut game, "5e4e");
    assert!(!game.current().in_check());
    play(&mut game, "5b5c");
    assert!(!game.current().in_check());
    let cycle: Vec<String> = PERPETUAL.iter().map(|m| m.to_string()).collect();
    verify_cycle(*game.current(), &cycle, &[true, false, true, false]);
    play_cycles(&mut game, &cycle, 3);
    assert_eq!(game.moves().len(), 14);
    assert_eq!(game.occurrences(), 4);
    for rules in BOTH_RULES {
        assert_eq!(
            game.result(rules),
            result(Some(Color::White), EndReason::PerpetualCheck)
        );
    }
}

#[test]
fn repetition_with_some_checks_is_plain_sennichite() {
    // The rook alternates a quiet move (to 3c) with a check (back to 3b against the king on 1b).
    let start = pos(ROOK_VS_KING);
    let cycle: Vec<String> = ["3b3c", "1a1b", "3c3b", "1b1a"]
        .iter()
        .map(|m| m.to_string())
        .collect();
    verify_cycle(start, &cycle, &[false, false, true, false]);
    let mut game = Game::new(start);
    play_cycles(&mut game, &cycle, 3);
    assert_eq!(game.occurrences(), 4);
    assert_eq!(game.repetition(), Repetition::Fourfold { checker: None });
    assert_eq!(game.result(DRAW), result(None, EndReason::Sennichite));
    assert_eq!(
        game.result(GOTE_WINS),
        result(Some(Color::White), EndReason::Sennichite)
    );
}

#[test]
fn quiet_repetition_is_plain_sennichite() {
    let start = pos("4k/5/5/5/K4 b - 1");
    let cycle: Vec<String> = ["5e5d", "1a1b", "5d5e", "1b1a"]
        .iter()
        .map(|m| m.to_string())
        .collect();
    verify_cycle(start, &cycle, &[false; 4]);
    let mut game = Game::new(start);
    play_cycles(&mut game, &cycle, 2);
    assert_eq!(game.occurrences(), 3);
    assert_eq!(game.result(DRAW), None);
    assert_eq!(game.result(GOTE_WINS), None);
    play_cycles(&mut game, &cycle, 1);
    assert_eq!(game.repetition(), Repetition::Fourfold { checker: None });
    assert_eq!(game.result(DRAW), result(None, EndReason::Sennichite));
    assert_eq!(
        game.result(GOTE_WINS),
        result(Some(Color::White), EndReason::Sennichite)
    );
    // The same, with gote moving first, so that the fourth occurrence has gote to move and
    // sente made the last move: `gote-wins` still gives the game to gote.
    let start = pos("4k/5/5/5/K4 w - 1");
    let cycle: Vec<String> = ["1a1b", "5e5d", "1b1a", "5d5e"]
        .iter()
        .map(|m| m.to_string())
        .collect();
    let mut game = Game::new(start);
    play_cycles(&mut game, &cycle, 3);
    assert_eq!(game.current().side_to_move(), Color::White);
    assert_eq!(game.result(DRAW), result(None, EndReason::Sennichite));
    assert_eq!(
        game.result(GOTE_WINS),
        result(Some(Color::White), EndReason::Sennichite)
    );
}

#[test]
fn hands_and_side_to_move_are_part_of_the_repeated_position() {
    let a = pos("4k/5/5/5/K4 b P 1");
    assert_ne!(a.key(), pos("4k/5/5/5/K4 b p 1").key());
    assert_ne!(a.key(), pos("4k/5/5/5/K4 b 2P 1").key());
    assert_ne!(a.key(), pos("4k/5/5/5/K4 w P 1").key());
    // Sente's king walks a triangle while gote's king steps back and forth: the board returns
    // to the start, but with gote to move, which is not a repetition of the start.
    let start = pos("4k/5/5/5/K4 b - 1");
    let mut game = Game::new(start);
    for m in ["5e5d", "1a1b", "5d4e", "1b1a", "4e5e"] {
        play(&mut game, m);
    }
    let board = |p: &Position| p.to_sfen().split(' ').next().unwrap().to_string();
    assert_eq!(board(game.current()), board(&start));
    assert_eq!(game.current().side_to_move(), Color::White);
    assert_eq!(game.occurrences(), 1);
    // The same walk once more lands on the start with sente to move: the second occurrence.
    for m in ["1a1b", "5e5d", "1b1a", "5d4e", "1a1b", "4e5e", "1b1a"] {
        play(&mut game, m);
    }
    assert_eq!(game.current().to_sfen(), "4k/5/5/5/K4 b - 13");
    assert_eq!(game.occurrences(), 2);
}

// ------------------------------------------------------------------ move limit

#[test]
fn move_limit_draws_exactly_when_reached() {
    let walk = [
        "5e5d", "1a1b", "5d5c", "1b1c", "5c5b", "1c1d", "5b5a", "1d1e",
    ];
    for limit in 1..=walk.len() as u32 {
        let rules = GameRules {
            sennichite: SennichiteRule::Draw,
            max_plies: limit,
        };
        let mut game = Game::from_sfen("4k/5/5/5/K4 b - 1").unwrap();
        assert_eq!(game.result(rules), None);
        for (ply, m) in walk.iter().enumerate().take(limit as usize) {
            play(&mut game, m);
            let expected = if ply + 1 == limit as usize {
                result(None, EndReason::MoveLimit)
            } else {
                None
            };
            assert_eq!(
                game.result(rules),
                expected,
                "limit {limit}, ply {}",
                ply + 1
            );
            // No limit at all.
            assert_eq!(game.result(DRAW), None);
        }
    }
}

#[test]
fn move_limit_counts_from_the_sfen_move_number() {
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: 6,
    };
    // Move number 5: four plies are already behind us, so two more reach the limit.
    let mut game = Game::from_sfen("4k/5/5/5/K4 b - 5").unwrap();
    assert_eq!(game.result(rules), None);
    play(&mut game, "5e5d");
    assert_eq!(game.result(rules), None);
    play(&mut game, "1a1b");
    assert_eq!(game.result(rules), result(None, EndReason::MoveLimit));
    // A position whose move number is past the limit is over at once.
    let game = Game::from_sfen("4k/5/5/5/K4 w - 10").unwrap();
    assert_eq!(game.result(rules), result(None, EndReason::MoveLimit));
    assert_eq!(game.result(DRAW), None);
}

#[test]
fn mate_on_the_last_allowed_ply_is_still_mate() {
    let rules = GameRules {
        sennichite: SennichiteRule::Draw,
        max_plies: 1,
    };
    let mut game = Game::new(pos(MATE_IN_ONE));
    play(&mut game, "G*1b");
    assert_eq!(
        game.result(rules),
        result(Some(Color::Black), EndReason::Checkmate)
    );
}

// ------------------------------------------------------------------ play_usi, undo, options

#[test]
fn play_usi_rejects_bad_moves_and_leaves_the_game_alone() {
    let mut game = Game::new(Position::startpos());
    let before = game.current().to_sfen();
    let malformed = [
        "", "5e", "e5e4", "5e4d++", "5e4d=", "K*3c", "p*3c", "P*6c", "5f5e", "5e5e", "5e 4d",
        "５e4d",
    ];
    for m in malformed {
        let err = game.play_usi(m).expect_err(m);
        let err = err.to_string();
        assert!(err.contains("not a USI move"), "{m:?}: {err}");
    }
    let illegal = [
        ("5e5c", "not legal"),        // the king steps one square only
        ("1e1a", "not legal"),        // the rook is blocked by gote's pawn on 1b
        ("3c3b", "no man on 3c"),     // empty square
        ("1a2b", "side not to move"), // gote's king
        ("G*3c", "no G in hand"),
        ("5d5c+", "cannot promote"), // neither square is in the zone
    ];
    for (m, why) in illegal {
        let err = game.play_usi(m).expect_err(m).to_string();
        assert!(err.contains("illegal move"), "{m}: {err}");
        assert!(err.contains(why), "{m}: {err}");
    }
    assert!(game.play(Move::NONE).is_err());
    assert!(game.play(Move::from_raw(u16::MAX)).is_err());
    assert_eq!(game.moves().len(), 0);
    assert_eq!(game.positions().len(), 1);
    assert_eq!(game.current().to_sfen(), before);
    // A legal move still goes through afterwards.
    play(&mut game, "5d5c");
    assert_eq!(game.moves().len(), 1);
    assert_eq!(game.current().side_to_move(), Color::White);
}

#[test]
fn play_usi_requires_promotion_of_a_pawn_on_the_last_rank() {
    let mut game = Game::from_sfen("4k/P4/5/5/K4 b - 1").unwrap();
    let err = game.play_usi("5b5a").unwrap_err().to_string();
    assert!(err.contains("must promote"), "{err}");
    assert_eq!(game.moves().len(), 0);
    play(&mut game, "5b5a+");
    assert_eq!(game.current().to_sfen(), "+P3k/5/5/5/K4 w - 2");
}

#[test]
fn play_usi_refuses_a_move_into_check() {
    // Gote's rook on 4a covers file 4; sente's king on 5e may not step to 4e or 4d.
    let mut game = Game::from_sfen("1r2k/5/5/5/K4 b - 1").unwrap();
    assert_eq!(legal(game.current()), set(&["5e5d"]));
    for m in ["5e4e", "5e4d"] {
        assert!(game.play_usi(m).is_err(), "{m}");
    }
    assert!(game.moves().is_empty());
}

#[test]
fn undo_takes_back_exactly_one_move() {
    let start = Position::startpos();
    let mut game = Game::new(start);
    assert!(!game.undo(), "nothing to undo");
    play(&mut game, "5d5c");
    let after_one = *game.current();
    play(&mut game, "1b1c");
    assert_eq!(game.moves().len(), 2);
    assert!(game.undo());
    assert_eq!(*game.current(), after_one);
    assert_eq!(game.moves().len(), 1);
    assert_eq!(game.positions().len(), 2);
    assert!(game.undo());
    assert_eq!(*game.current(), start);
    assert_eq!(*game.start(), start);
    assert!(game.moves().is_empty());
    assert!(!game.undo());
    assert_eq!(*game.current(), start);
}

#[test]
fn undo_takes_back_the_end_of_a_game() {
    let mut game = Game::new(pos("4k/5/5/5/K4 b - 1"));
    for _ in 0..3 {
        for m in ["5e5d", "1a1b", "5d5e", "1b1a"] {
            play(&mut game, m);
        }
    }
    assert_eq!(game.result(DRAW), result(None, EndReason::Sennichite));
    assert!(game.undo());
    assert_eq!(game.result(DRAW), None);
    assert_eq!(game.repetition(), Repetition::None);
    play(&mut game, "1b1a");
    assert_eq!(game.result(DRAW), result(None, EndReason::Sennichite));

    let mut game = Game::new(pos(MATE_IN_ONE));
    play(&mut game, "G*1b");
    assert!(game.result(DRAW).is_some());
    assert!(game.undo());
    assert_eq!(game.result(DRAW), None);
    assert_eq!(
        game.current()
            .hand(Color::Black)
            .count(gogo::types::PieceKind::Gold),
        1
    );
}

#[test]
fn sennichite_rule_option_values() {
    assert_eq!(SennichiteRule::default(), SennichiteRule::Draw);
    assert_eq!(GameRules::default(), DRAW);
    assert_eq!(SennichiteRule::parse("draw"), Some(SennichiteRule::Draw));
    assert_eq!(
        SennichiteRule::parse("gote-wins"),
        Some(SennichiteRule::GoteWins)
    );
    assert_eq!(
        SennichiteRule::parse("Gote-Wins"),
        Some(SennichiteRule::GoteWins)
    );
    for bad in ["", "sente-wins", "gote", "drawn", "gote_wins"] {
        assert_eq!(SennichiteRule::parse(bad), None, "{bad:?}");
    }
    for r in [SennichiteRule::Draw, SennichiteRule::GoteWins] {
        assert_eq!(SennichiteRule::parse(r.name()), Some(r));
    }
    assert_eq!(SennichiteRule::Draw.winner(), None);
    assert_eq!(SennichiteRule::GoteWins.winner(), Some(Color::White));
}

/// `Game::play` move by move and `Game::from_moves` (what `position ... moves` and
/// `Game::parse_position` use) build the same game: the same result after every prefix of a
/// plain repetition, a perpetual-check cycle and a game that ends by mate.
#[test]
fn a_game_set_up_from_its_moves_ends_as_the_played_one_does() {
    let lines: [(&str, Vec<&str>); 3] = [
        (
            "startpos",
            ["5e4d", "1a2b", "4d5e", "2b1a"].repeat(3).to_vec(),
        ),
        (ROOK_VS_KING, PERPETUAL.repeat(3).to_vec()),
        (MATE_IN_ONE, vec!["G*1b"]),
    ];
    let mut ended = 0;
    for (start, moves) in lines {
        let start_pos = if start == "startpos" {
            Position::startpos()
        } else {
            pos(start)
        };
        let mut played = Game::new(start_pos);
        for n in 0..=moves.len() {
            if n > 0 {
                play(&mut played, moves[n - 1]);
            }
            let text = format!("{start} moves {}", moves[..n].join(" "));
            let text = if start == "startpos" {
                text
            } else {
                format!("sfen {text}")
            };
            let parsed = Game::parse_position(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.moves(), played.moves());
            assert_eq!(parsed.occurrences(), played.occurrences(), "{text}");
            for rules in BOTH_RULES {
                assert_eq!(parsed.result(rules), played.result(rules), "{text}");
            }
        }
        ended += played.result(DRAW).is_some() as usize;
    }
    // Every line ends the game at its last move (so the comparison covered real endings).
    assert_eq!(ended, 3);
}
