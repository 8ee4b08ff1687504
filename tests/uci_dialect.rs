//! The UCI dialect (src/uci.rs): moves, FEN and protocol lines against the USI forms. The
//! hand-checked vectors were printed by Fairy-Stockfish (upstream c19b5f6c) in UCI mode with
//! `setoption name UCI_Variant value minishogi` (`d`, `go perft 1`, `go depth N`) and compared
//! with the same commands in USI mode.

mod common;

use common::data_rows;
use common::engine::{Engine, SECOND};
use gogo::event::{Event, Score, SearchInfo};
use gogo::game::Game;
use gogo::movegen;
use gogo::notation::UsiMove;
use gogo::options;
use gogo::position::Position;
use gogo::protocol::{self, Command};
use gogo::tt::Bound;
use gogo::types::Move;
use gogo::uci::{self, fen_to_sfen, sfen_to_fen, uci_move_to_usi, usi_move_to_uci};
use gogo::usi;
use std::collections::BTreeSet;

/// Fairy-Stockfish `go perft 1` from the start position, USI mode then UCI mode (same order).
const FSF_STARTPOS: &str = "2e3d d1c2,2e1d d1e2,2e4c d1b3,2e5b d1a4,1e1d e1e2,1e1c e1e3,\
    1e1b e1e4,3e4d c1b2,3e3d c1c2,3e2d c1d2,5d5c a2a3,4e4d b1b2,4e3d b1c2,5e4d a1b2";

/// The same for `4k/r1S2/4G/5/2K2 b P 1` (sente promotions and pawn drops).
const FSF_SENTE: (&str, &str) = (
    "4k/r1S2/4G/5/2K2 b P 1",
    "3b4c c4b3,3b2c c4d3,3b4a c4b5,3b3a c4c5,3b2a c4d5,3b4a+ c4b5+,3b3a+ c4c5+,3b2a+ c4d5+,\
     1c1d e3e2,1c2c e3d3,1c2b e3d4,1c1b e3e4,P*5e P@a1,P*4e P@b1,P*2e P@d1,P*1e P@e1,\
     P*5d P@a2,P*4d P@b2,P*3d P@c2,P*2d P@d2,P*1d P@e2,P*5c P@a3,P*4c P@b3,P*3c P@c3,\
     P*2c P@d3,P*4b P@b4,P*2b P@d4,P*1b P@e4,3e2d c1d2,3e3d c1c2,3e4d c1b2,3e2e c1d1,\
     3e4e c1b1",
);

/// The same for `1bsg1/s4/5/K1k2/2r2 w Rbg2p 1` (gote to move: its drops are upper case too).
const FSF_GOTE: (&str, &str) = (
    "1bsg1/s4/5/K1k2/2r2 w Rbg2p 1",
    "4a1d b5e2,4a2c b5d3,4a3b b5c4,3e5e c1a1,3e4e c1b1,3e2e c1d1,3e1e c1e1,3e5e+ c1a1+,\
     3e4e+ c1b1+,3e2e+ c1d1+,3e1e+ c1e1+,5b5c a4a3,5b4c a4b3,3a4b c5b4,3a3b c5c4,3a2b c5d4,\
     2a3b d5c4,2a2b d5d4,2a1b d5e4,2a1a d5e5,B*5e B@a1,B*4e B@b1,B*2e B@d1,B*1e B@e1,\
     B*4d B@b2,B*2d B@d2,B*1d B@e2,B*5c B@a3,B*4c B@b3,B*3c B@c3,B*2c B@d3,B*1c B@e3,\
     B*4b B@b4,B*3b B@c4,B*2b B@d4,B*1b B@e4,B*5a B@a5,B*1a B@e5,3d2c c2d3,3d3c c2c3,\
     3d2d c2d2,3d2e c2d1,P*4d P@b2,P*2d P@d2,P*1d P@e2,P*5c P@a3,P*4c P@b3,P*3c P@c3,\
     P*2c P@d3,P*1c P@e3,P*4b P@b4,P*3b P@c4,P*2b P@d4,P*1b P@e4,P*5a P@a5,P*1a P@e5,\
     G*5e G@a1,G*4e G@b1,G*2e G@d1,G*1e G@e1,G*4d G@b2,G*2d G@d2,G*1d G@e2,G*5c G@a3,\
     G*4c G@b3,G*3c G@c3,G*2c G@d3,G*1c G@e3,G*4b G@b4,G*3b G@c4,G*2b G@d4,G*1b G@e4,\
     G*5a G@a5,G*1a G@e5",
);

/// SFEN and the FEN Fairy-Stockfish's `d` prints for it (after `position sfen ...`).
const FSF_FENS: [(&str, &str); 10] = [
    (
        "rbsgk/4p/5/P4/KGSBR b - 1",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 1",
    ),
    (
        "+R1+s1k/2+p2/1+B3/3+S1/K1+b1+r w Ggp 1",
        "+R1+s1k/2+p2/1+B3/3+S1/K1+b1+r[Ggp] b - - 0 1",
    ),
    ("4k/5/2+P2/5/K4 b P 1", "4k/5/2+P2/5/K4[P] w - - 0 1"),
    ("k4/5/2+p2/5/4K w p 1", "k4/5/2+p2/5/4K[p] b - - 0 1"),
    (
        "2+R2/3Sk/RS3/2K2/1G2+p b 2BGP 1",
        "2+R2/3Sk/RS3/2K2/1G2+p[GPBB] w - - 0 1",
    ),
    (
        "2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1",
        "2+B2/4g/2k2/G3B/1KS2[PSRRp] w - - 0 1",
    ),
    (
        "k1+PB1/4B/K4/3g1/1G3 b RPr2s 7",
        "k1+PB1/4B/K4/3g1/1G3[PRssr] w - - 0 4",
    ),
    (
        "1bsg1/s4/5/K1k2/2r2 w Rbg2p 6",
        "1bsg1/s4/5/K1k2/2r2[Rgppb] b - - 0 3",
    ),
    (
        "1bsg1/s4/5/K1k2/2r2 w Rbg2p 5",
        "1bsg1/s4/5/K1k2/2r2[Rgppb] b - - 0 2",
    ),
    (
        "1bsg1/s4/5/K1k2/2r2 b Rbg2p 6",
        "1bsg1/s4/5/K1k2/2r2[Rgppb] w - - 0 3",
    ),
];

fn pairs(list: &str) -> Vec<(String, String)> {
    list.split(',')
        .map(|p| {
            let mut it = p.split_whitespace();
            let usi = it.next().expect("usi move").to_string();
            let uci = it.next().expect("uci move").to_string();
            (usi, uci)
        })
        .collect()
}

fn data_sfens() -> Vec<String> {
    data_rows("perft.tsv")
        .into_iter()
        .map(|r| r[0].clone())
        .collect()
}

/// A UCI move as Fairy-Stockfish writes it: `a1b2`, `a1b2+` or `P@a1`.
fn is_uci_syntax(m: &str) -> bool {
    let b = m.as_bytes();
    let sq = |f: u8, r: u8| (b'a'..=b'e').contains(&f) && (b'1'..=b'5').contains(&r);
    match b.len() {
        4 if b[1] == b'@' => b"PSGBR".contains(&b[0]) && sq(b[2], b[3]),
        4 => sq(b[0], b[1]) && sq(b[2], b[3]),
        5 => b[4] == b'+' && sq(b[0], b[1]) && sq(b[2], b[3]),
        _ => false,
    }
}

/// Every legal move of `pos` round-trips USI -> UCI -> USI, and distinct moves stay distinct.
fn check_moves_round_trip(pos: &Position) -> usize {
    let mut seen = BTreeSet::new();
    let moves = movegen::legal_moves(pos);
    for m in moves.iter() {
        let usi = m.to_string();
        let uci = usi_move_to_uci(&usi).unwrap_or_else(|| panic!("{usi} in {pos}"));
        assert!(is_uci_syntax(&uci), "{usi} -> {uci}");
        assert_eq!(
            uci_move_to_usi(&uci).as_deref(),
            Some(usi.as_str()),
            "{uci}"
        );
        assert!(seen.insert(uci.clone()), "{uci} twice in {pos}");
    }
    moves.len()
}

// ------------------------------------------------------------------------------- moves

#[test]
fn squares_follow_chess_coordinates_from_sentes_side() {
    // USI 5e (sente's king) is a1, USI 1a (gote's king) is e5.
    for (usi, uci) in [
        ("5e4d", "a1b2"),
        ("1a2b", "e5d4"),
        ("5a1e", "a5e1"),
        ("3c3b", "c3c4"),
        ("1e1d", "e1e2"),
    ] {
        assert_eq!(usi_move_to_uci(usi).as_deref(), Some(uci), "{usi}");
        assert_eq!(uci_move_to_usi(uci).as_deref(), Some(usi), "{uci}");
    }
    // All 25 x 24 board moves, with and without promotion, and all drops.
    let squares: Vec<String> = (1..=5)
        .flat_map(|f| ('a'..='e').map(move |r| format!("{f}{r}")))
        .collect();
    let mut ucis = BTreeSet::new();
    for from in &squares {
        for to in &squares {
            if from == to {
                assert_eq!(usi_move_to_uci(&format!("{from}{to}")), None);
                continue;
            }
            for suffix in ["", "+"] {
                let usi = format!("{from}{to}{suffix}");
                let uci = usi_move_to_uci(&usi).unwrap();
                assert!(is_uci_syntax(&uci), "{uci}");
                assert_eq!(uci_move_to_usi(&uci), Some(usi));
                assert!(ucis.insert(uci));
            }
        }
        for piece in ["P", "S", "G", "B", "R"] {
            let usi = format!("{piece}*{from}");
            let uci = usi_move_to_uci(&usi).unwrap();
            assert!(uci.starts_with(&format!("{piece}@")), "{uci}");
            assert_eq!(uci_move_to_usi(&uci), Some(usi));
            assert!(ucis.insert(uci));
        }
    }
    assert_eq!(ucis.len(), 25 * 24 * 2 + 25 * 5);
}

#[test]
fn moves_match_fairy_stockfish() {
    let mut all = pairs(FSF_STARTPOS);
    all.extend(pairs(FSF_SENTE.1));
    all.extend(pairs(FSF_GOTE.1));
    for (usi, uci) in &all {
        assert_eq!(usi_move_to_uci(usi).as_ref(), Some(uci), "{usi}");
        assert_eq!(uci_move_to_usi(uci).as_ref(), Some(usi), "{uci}");
    }
    // Fairy-Stockfish's legal moves are the engine's legal moves, translated.
    for (sfen, list) in [
        ("rbsgk/4p/5/P4/KGSBR b - 1", FSF_STARTPOS),
        FSF_SENTE,
        FSF_GOTE,
    ] {
        let pos = Position::from_sfen(sfen).unwrap();
        let ours: BTreeSet<String> = movegen::legal_moves(&pos)
            .iter()
            .map(|m| usi_move_to_uci(&m.to_string()).unwrap())
            .collect();
        let fsf: BTreeSet<String> = pairs(list).into_iter().map(|(_, uci)| uci).collect();
        // Fairy-Stockfish also generates pawn drops that mate (it scores them as lost for the
        // dropper instead of leaving them out); for the engine they are uchifuzume, illegal.
        assert!(ours.is_subset(&fsf), "{sfen}");
        let extra: Vec<&String> = fsf.difference(&ours).collect();
        for uci in &extra {
            let usi = uci_move_to_usi(uci).unwrap();
            assert!(usi.starts_with("P*"), "{sfen}: {uci}");
            let after = pos.after(UsiMove::parse(&usi).unwrap().to_move());
            assert!(
                after.in_check() && movegen::count_legal(&after) == 0,
                "{sfen}: {uci}"
            );
        }
        assert!(extra.len() <= 1, "{sfen}: {extra:?}");
    }
    // Fairy-Stockfish's principal variations (`go depth 8`): USI mode and UCI mode.
    let pv: Vec<String> = ["P*2c", "1a2a", "1c2b"]
        .iter()
        .map(|m| usi_move_to_uci(m).unwrap())
        .collect();
    assert_eq!(pv.join(" "), "P@d3 e5d5 e3d4");
    assert_eq!(
        [usi_move_to_uci("3e2d"), usi_move_to_uci("3a4b")],
        [Some("c1d2".to_string()), Some("c5b4".to_string())]
    );
}

#[test]
fn every_legal_move_of_the_data_positions_round_trips() {
    let mut checked = 0;
    let mut drops = 0;
    let mut promotions = 0;
    for sfen in data_sfens() {
        let pos = Position::from_sfen(&sfen).unwrap();
        checked += check_moves_round_trip(&pos);
        // And every move one ply deeper.
        for m in movegen::legal_moves(&pos).iter() {
            let s = m.to_string();
            drops += s.contains('*') as usize;
            promotions += s.ends_with('+') as usize;
            checked += check_moves_round_trip(&pos.after(*m));
        }
    }
    assert!(checked > 100_000, "{checked} moves checked");
    assert!(
        drops > 1000 && promotions > 100,
        "{drops} drops, {promotions} promotions"
    );
}

#[test]
fn the_listed_legal_moves_round_trip() {
    let mut n = 0;
    for row in data_rows("perft-moves.tsv") {
        for usi in row
            .get(1)
            .map(|s| s.as_str())
            .unwrap_or("")
            .split_whitespace()
        {
            assert!(UsiMove::parse(usi).is_ok(), "{usi}");
            let uci = usi_move_to_uci(usi).unwrap();
            assert_eq!(uci_move_to_usi(&uci).as_deref(), Some(usi));
            n += 1;
        }
    }
    assert!(n > 9000, "{n}");
}

#[test]
fn move_syntax_errors() {
    for bad in [
        "", "5e", "5e4", "6e4d", "5f4d", "5e4d=", "K*2b", "g*2b", "X*2b", "5e5e", "5e4d++", "P*6a",
        "resign", "P@c3", "a1b2", "5e4d+ ",
    ] {
        assert_eq!(usi_move_to_uci(bad), None, "{bad:?}");
    }
    for bad in [
        "", "a1", "a1b", "f1a2", "a6a5", "a0a1", "a1a1", "K@c3", "X@c3", "P@f1", "P*c3", "c3",
        "a1b2q", "a1b2++", "(none)", "0000", "5e4d", "P@c33", "é1b2",
    ] {
        assert_eq!(uci_move_to_usi(bad), None, "{bad:?}");
    }
    // As Fairy-Stockfish: a trailing `=` declines a promotion. Also a lower-case drop letter.
    assert_eq!(uci_move_to_usi("c3c2=").as_deref(), Some("3c3d"));
    assert_eq!(uci_move_to_usi("p@d3").as_deref(), Some("P*2c"));
}

// ------------------------------------------------------------------------------- FEN

#[test]
fn fen_matches_fairy_stockfish() {
    for (sfen, fen) in FSF_FENS {
        assert_eq!(sfen_to_fen(sfen).as_deref(), Ok(fen), "{sfen}");
        // Back: the same position; the move count too when it agrees with the side to move.
        let back = fen_to_sfen(fen).unwrap();
        let a = Position::from_sfen(sfen).unwrap();
        let b = Position::from_sfen(&back).unwrap();
        assert_eq!(
            a.to_sfen().rsplit_once(' ').unwrap().0,
            b.to_sfen().rsplit_once(' ').unwrap().0
        );
        assert_eq!(back, b.to_sfen(), "canonical SFEN");
    }
    assert_eq!(
        fen_to_sfen("k1+PB1/4B/K4/3g1/1G3[PRssr] w - - 0 4").unwrap(),
        "k1+PB1/4B/K4/3g1/1G3 b RPr2s 7"
    );
    // Fairy-Stockfish's `d` after moves (half-move clock 2 and 1; it has no SFEN counterpart).
    assert_eq!(
        fen_to_sfen("3k1/3G1/3P1/5/K4[] b - - 2 2").unwrap(),
        "3k1/3G1/3P1/5/K4 w - 4"
    );
    assert_eq!(
        fen_to_sfen("rbsgk/4p/5/P1B2/KGS1R[] b - - 1 1").unwrap(),
        "rbsgk/4p/5/P1B2/KGS1R w - 2"
    );
    // Fairy-Stockfish's start position string and its SFEN move count 0.
    assert_eq!(
        fen_to_sfen("rbsgk/4p/5/P4/KGSBR[-] w 0 1").unwrap(),
        "rbsgk/4p/5/P4/KGSBR b - 1"
    );
    // Gote to move at SFEN count 1 is FEN move 1; back it becomes SFEN count 2 (as in FSF).
    assert_eq!(
        fen_to_sfen("k4/5/2+p2/5/4K[p] b - - 0 1").unwrap(),
        "k4/5/2+p2/5/4K w p 2"
    );
}

#[test]
fn fen_round_trips_on_the_data_positions() {
    let sfens = data_sfens();
    assert!(sfens.len() >= 300);
    for sfen in &sfens {
        for n in [1u32, 2, 7, 40] {
            let (head, _) = sfen.rsplit_once(' ').unwrap();
            let sfen = format!("{head} {n}");
            let fen = sfen_to_fen(&sfen).unwrap();
            // The board field is the SFEN board field.
            assert_eq!(fen.split('[').next(), sfen.split(' ').next());
            let back = fen_to_sfen(&fen).unwrap();
            let a = Position::from_sfen(&sfen).unwrap();
            let b = Position::from_sfen(&back).unwrap_or_else(|e| panic!("{back}: {e}"));
            assert_eq!(
                a.to_sfen().rsplit_once(' ').unwrap().0,
                b.to_sfen().rsplit_once(' ').unwrap().0,
                "{sfen} -> {fen} -> {back}"
            );
            // The move count survives when it agrees with the side to move (odd for sente).
            let gote = a.side_to_move() == gogo::types::Color::White;
            if (n % 2 == 0) == gote {
                assert_eq!(back, a.to_sfen(), "{fen}");
            }
            // FEN -> SFEN -> FEN is exact.
            assert_eq!(sfen_to_fen(&back).as_deref(), Ok(fen.as_str()));
        }
    }
}

#[test]
fn fen_input_forms() {
    let start = "rbsgk/4p/5/P4/KGSBR b - 1";
    for fen in [
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[-] w - - 0 1",
        // cutechess-cli writes one number, the full-move number.
        "rbsgk/4p/5/P4/KGSBR[-] w - 1",
        "rbsgk/4p/5/P4/KGSBR[] w",
        "rbsgk/4p/5/P4/KGSBR w - -",
        "rbsgk/4p/5/P4/KGSBR/ w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 0",
        "  rbsgk/4p/5/P4/KGSBR[]   w - - 12 1 ",
        "rbsgk/4p/11111/P4/KGSBR[] w - - 0 1",
    ] {
        assert_eq!(fen_to_sfen(fen).as_deref(), Ok(start), "{fen}");
    }
    // Hands in any order, as a sixth rank, with counts (cutechess writes R B G S P order).
    for fen in [
        "4k/5/4G/5/K4[RBPPrg] w - - 0 1",
        "4k/5/4G/5/K4[PPBRgr] w - - 0 1",
        "4k/5/4G/5/K4[2PBRgr] w - - 0 1",
        "4k/5/4G/5/K4/RBPPrg w - - 0 1",
    ] {
        assert_eq!(
            fen_to_sfen(fen).as_deref(),
            Ok("4k/5/4G/5/K4 b RB2Prg 1"),
            "{fen}"
        );
    }
    assert_eq!(
        fen_to_sfen("4k/5/4G/5/K4[P] b - - 0 3").as_deref(),
        Ok("4k/5/4G/5/K4 w P 6")
    );
    for bad in [
        "",
        "rbsgk/4p/5/P4[] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR/5[] w - - 0 1",
        "rbsgk/4p/5/P5/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P3/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P0004/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/N4/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/+G4/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/+K4/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P3+/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P~4/KGSBR[] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[] x - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[]",
        "rbsgk/4p/5/P4/KGSBR[ w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[]x w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[K] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[PPP] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[3P] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[0P] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[2] w - - 0 1",
        "rbsgk/4p/5/P4/KGSBR[] w KQkq - 0 1",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 1 moves",
        "rbsgk/4p/5/P4/KGSBR[] w - - x 1",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 -1",
        "rbsgk/4p/5/P4/KGSBR[] w - - 0 99999999999",
    ] {
        assert!(fen_to_sfen(bad).is_err(), "{bad:?}");
    }
    assert!(fen_to_sfen("rbsgk/4p/5/P4/KGSBR[] x - - 0 1")
        .unwrap_err()
        .to_string()
        .contains("w = sente"));
}

#[test]
fn sfen_input_forms() {
    assert_eq!(
        sfen_to_fen("4k/5/4G/5/K4 w 2Pg 1").as_deref(),
        Ok("4k/5/4G/5/K4[PPg] b - - 0 1")
    );
    // The one SFEN parser judges: the hands field is required, move counts start at 1.
    for bad in [
        "",
        "rbsgk/4p/5/P4/KGSBR",
        "rbsgk/4p/5/P4/KGSBR b",
        "rbsgk/4p/5/P4/KGSBR b - 0",
        "rbsgk/4p/5/P4/KGSBR x - 1",
        "rbsgk/4p/5/P4/KGSBR b - 1 2",
        "rbsgk/4p/5/P4/KGSBR b K 1",
        "rbsgk/4p/5/P4/KGSBR b 3P 1",
        "rbsgk/4p/5/P4/KGSBR b 0P 1",
        "rbsgk/4p/5/P4/KGSBR b 2 1",
        "rbsgk/4p/5/P4/KGSBR b - x",
        "rbsgk/4p/5/P4/KGSB b - 1",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ] {
        assert!(sfen_to_fen(bad).is_err(), "{bad:?}");
    }
}

// ------------------------------------------------------------------------------- input lines

/// The command a UCI line parses into, rendered for comparison.
fn uci_cmd(line: &str) -> String {
    match uci::parse(&protocol::tokens(line)) {
        Ok(c) => format!("{c:?}"),
        Err(e) => panic!("{line}: {e}"),
    }
}

/// The command a USI line parses into, rendered for comparison.
fn usi_cmd(line: &str) -> String {
    match usi::parse(&protocol::tokens(line)) {
        Ok(c) => format!("{c:?}"),
        Err(e) => panic!("{line}: {e}"),
    }
}

/// A UCI line means the same command as a USI line.
fn same(uci_line: &str, usi_line: &str) {
    assert_eq!(uci_cmd(uci_line), usi_cmd(usi_line), "{uci_line}");
}

fn uci_error(line: &str) -> String {
    match uci::parse(&protocol::tokens(line)) {
        Ok(c) => panic!("{line}: parsed as {c:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn input_commands() {
    same("uci", "usi");
    same("ucinewgame", "usinewgame");
    same("\u{feff}uci\r\n", "usi");
    for common in [
        "isready",
        "stop",
        "ponderhit",
        "quit",
        "d",
        "perft 3",
        "gameover win",
    ] {
        same(common, common);
    }
    for nothing in ["", "   ", "debug on", "debug off", "register later"] {
        assert_eq!(uci_cmd(nothing), "Nothing", "{nothing:?}");
    }
}

#[test]
fn input_positions() {
    same("position startpos", "position startpos");
    same("position startpos moves", "position startpos");
    same(
        "position startpos moves c1d2 c5b4 d1c2 P@d3 a4a1+",
        "position startpos moves 3e2d 3a4b 2e3d P*2c 5b5e+",
    );
    same(
        "position fen rbsgk/4p/5/P4/KGSBR[-] w - 1 moves d1c2",
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 2e3d",
    );
    same(
        "position fen 1bsg1/s4/5/K1k2/2r2[Rgppb] b - - 0 3 moves P@b2 c2d1",
        "position sfen 1bsg1/s4/5/K1k2/2r2 w Rbg2p 6 moves P*4d 3d2e",
    );
    // Fairy-Stockfish also takes an SFEN in UCI mode; its moves are still UCI moves.
    same(
        "position sfen 4k/5/4G/5/K4 b P 1 moves P@d3",
        "position sfen 4k/5/4G/5/K4 b P 1 moves P*2c",
    );
    for (bad, needle) in [
        ("position", "expected 'startpos' or 'sfen'"),
        ("position startpos c1d2", "after startpos"),
        ("position fen", "empty FEN"),
        (
            "position fen rbsgk/4p/5/P4/KGSBR[] x - - 0 1",
            "side to move",
        ),
        ("position startpos moves c1d2 3a4b", "move 2 '3a4b'"),
        ("position startpos moves c1d2 c5c5", "is not a move"),
        ("position kiwipete", "expected 'startpos' or 'sfen'"),
    ] {
        let e = uci_error(bad);
        assert!(e.contains(needle), "{bad}: {e}");
    }
}

#[test]
fn input_go_swaps_the_clocks() {
    // UCI white (w) is sente, USI black (b).
    same(
        "go wtime 1100 btime 900 winc 100 binc 50",
        "go btime 1100 wtime 900 binc 100 winc 50",
    );
    same(
        "go ponder wtime 1 btime 2 movestogo 10",
        "go ponder btime 1 wtime 2 movestogo 10",
    );
    for common in [
        "go infinite",
        "go movetime 500",
        "go depth 7",
        "go nodes 1000",
        "go",
        "go perft 3",
    ] {
        same(common, common);
    }
    same(
        "go depth 5 searchmoves c1d2 P@d3 a4a1+ wtime 10",
        "go depth 5 searchmoves 3e2d P*2c 5b5e+ btime 10",
    );
    // A bad searchmoves entry is a problem reported with the search, not a refusal.
    let go = uci_cmd("go searchmoves c1d2 zz");
    assert!(go.contains("BadSearchMoves"), "{go}");
    // UCI `go mate N` (N moves) is a search of 2N - 1 plies that still ends in bestmove.
    same("go mate 3", "go depth 5");
    same("go mate 1 wtime 10", "go depth 1 btime 10");
    same("go depth 4 mate 3", "go depth 4");
    for bad in ["go mate", "go mate x"] {
        let go = uci_cmd(bad);
        assert!(
            go.contains("problems: [") && !go.contains("problems: []"),
            "{go}"
        );
        assert!(go.contains("mate: None"), "{go}");
    }
}

#[test]
fn input_setoption_names() {
    // The option table knows both dialects' names; a UCI name sets the USI option.
    for (uci_name, usi_name) in [
        ("UCI_Variant", "USI_Variant"),
        ("Hash", "USI_Hash"),
        ("Ponder", "USI_Ponder"),
        ("Threads", "Threads"),
        ("SennichiteRule", "SennichiteRule"),
        ("Move Overhead", "MoveOverhead"),
    ] {
        assert_eq!(
            options::find(uci_name).map(|o| o.usi_name),
            Some(usi_name),
            "{uci_name}"
        );
    }
    let cmd = uci_cmd("setoption name Clear Hash");
    assert!(cmd.contains("name: \"Clear Hash\""), "{cmd}");
    let variant = options::find("UCI_Variant").unwrap();
    assert!(variant.parse("minishogi").is_ok());
    let e = variant.parse("chess").unwrap_err().to_string();
    assert!(e.contains("'chess' is not one of minishogi"), "{e}");
}

// ------------------------------------------------------------------------------- output lines

fn mv(usi_text: &str) -> Move {
    UsiMove::parse(usi_text).unwrap().to_move()
}

fn out(e: Event) -> String {
    uci::format(&e).join("\n")
}

#[test]
fn output_options() {
    let lines: Vec<String> = options::OPTIONS
        .iter()
        .filter_map(|o| o.uci_name.map(|name| o.line(name)))
        .collect();
    for expected in [
        "option name Hash type spin default 64 min 1 max 65536",
        "option name Ponder type check default false",
        "option name UCI_Variant type combo default minishogi var minishogi",
        "option name Threads type spin default 1 min 1 max 256",
        "option name SennichiteRule type combo default draw var draw var gote-wins",
    ] {
        assert!(lines.iter().any(|l| l == expected), "{expected}: {lines:?}");
    }
    assert!(!lines.iter().any(|l| l.contains("USI_")), "{lines:?}");
}

#[test]
fn output_bestmove() {
    let best = |b: &str, p: Option<&str>| Event::BestMove {
        best: Some(mv(b)),
        ponder: p.map(mv),
    };
    assert_eq!(out(best("3e2d", None)), "bestmove c1d2");
    assert_eq!(out(best("P*2c", Some("1a2a"))), "bestmove P@d3 ponder e5d5");
    assert_eq!(
        out(best("5b5e+", Some("G*3c"))),
        "bestmove a4a1+ ponder G@c3"
    );
    // No move: Fairy-Stockfish prints `bestmove (none)` where USI says `resign`.
    assert_eq!(
        out(Event::BestMove {
            best: None,
            ponder: None
        }),
        "bestmove (none)"
    );
}

#[test]
fn output_info() {
    let info = |score: Score, pv: &[&str]| {
        Event::Info(SearchInfo {
            depth: 6,
            seldepth: 6,
            multipv: 1,
            score,
            bound: Bound::Exact,
            nodes: 406,
            nps: 203000,
            time_ms: 2,
            hashfull: 0,
            pv: pv.iter().map(|m| mv(m)).collect(),
        })
    };
    assert_eq!(
        out(info(Score::Cp(169), &["3e2d", "3a4b", "2e3d", "2a2b", "4e4d"])),
        "info depth 6 seldepth 6 multipv 1 score cp 169 nodes 406 nps 203000 time 2 hashfull 0 pv c1d2 c5b4 d1c2 d5d4 b1b2"
    );
    // Mate distances: plies (USI) to moves (UCI), as Fairy-Stockfish prints them.
    for (plies, moves) in [
        (1, "1"),
        (2, "1"),
        (3, "2"),
        (4, "2"),
        (5, "3"),
        (0, "0"),
        (-1, "-1"),
        (-2, "-1"),
        (-3, "-2"),
        (-4, "-2"),
    ] {
        let line = out(info(Score::Mate(plies), &["1a2a"]));
        assert!(
            line.contains(&format!(" score mate {moves} nodes")),
            "{plies}: {line}"
        );
        assert!(line.ends_with(" pv e5d5"), "{line}");
        // USI keeps plies.
        let usi_line = usi::format(&info(Score::Mate(plies), &["1a2a"])).join("");
        assert!(usi_line.contains(&format!(" score mate {plies} nodes")));
    }
    // Free text is left alone but for control characters.
    assert_eq!(
        out(Event::Message("go without a usable limit".into())),
        "info string go without a usable limit"
    );
    assert_eq!(
        out(Event::Message("a\x1b[2J".into())),
        "info string a\\x1b[2J"
    );
}

// ------------------------------------------------------------------------------- end to end

/// The translated input drives the real USI engine to the position the UCI text describes.
#[test]
fn translated_positions_are_the_positions_meant() {
    // A FEN and UCI moves (a Fairy-Stockfish line), through the translation, give the same
    // position as the SFEN and USI moves Fairy-Stockfish shows in USI mode.
    let cmd = uci::parse(&protocol::tokens(
        "position fen 4k/5/4G/5/K4[P] w - - 0 1 moves P@d3 e5d5 e3d4",
    ));
    let Ok(Command::Position { start, moves }) = cmd else {
        panic!("{cmd:?}");
    };
    let game = Game::from_moves(start, &moves).unwrap();
    // Fairy-Stockfish: `Fen: 3k1/3G1/3P1/5/K4[] b - - 2 2`, gote checkmated.
    assert_eq!(game.current().to_sfen(), "3k1/3G1/3P1/5/K4 w - 4");
    assert_eq!(
        sfen_to_fen(&game.current().to_sfen()).unwrap(),
        "3k1/3G1/3P1/5/K4[] b - - 0 2"
    );
    assert_eq!(movegen::count_legal(game.current()), 0);
}

/// The real engine binary speaking the UCI dialect: a short game.
#[test]
fn engine_plays_in_the_uci_dialect() {
    let mut e = Engine::start();
    fn send(e: &mut Engine, uci: &str) {
        e.send(uci);
    }
    send(&mut e, "uci");
    let hello = e.until("uciok", 60 * SECOND);
    assert!(hello.iter().any(|l| l.starts_with("id name ")));
    assert!(hello.iter().any(
        |l| l.starts_with("option name UCI_Variant type combo") && l.contains("var minishogi")
    ));
    assert!(hello.iter().any(|l| l.starts_with("option name Hash ")));
    assert!(hello.iter().any(|l| l.starts_with("option name Ponder ")));
    assert!(!hello.iter().any(|l| l.contains("USI_")));
    send(&mut e, "setoption name UCI_Variant value minishogi");
    send(&mut e, "setoption name Hash value 8");
    send(&mut e, "ucinewgame");
    send(&mut e, "isready");
    let ready = e.until("readyok", 60 * SECOND);
    assert!(
        !ready.iter().any(|l| l.starts_with("info string")),
        "{ready:?}"
    );

    let mut game = Game::new(Position::startpos());
    let mut uci_moves: Vec<String> = Vec::new();
    for _ in 0..8 {
        if movegen::count_legal(game.current()) == 0 {
            break;
        }
        let mut cmd = "position startpos".to_string();
        if !uci_moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&uci_moves.join(" "));
        }
        send(&mut e, &cmd);
        send(&mut e, "go depth 3 wtime 5000 btime 5000");
        let lines = e.until("bestmove", 60 * SECOND);
        for l in &lines {
            assert!(!l.starts_with("info string"), "{l}");
            if let Some(pv) = l.split(" pv ").nth(1) {
                assert!(pv.split_whitespace().all(is_uci_syntax), "{l}");
            }
        }
        let best = lines
            .last()
            .unwrap()
            .split_whitespace()
            .nth(1)
            .unwrap()
            .to_string();
        assert!(is_uci_syntax(&best), "{best}");
        let usi = uci_move_to_usi(&best).unwrap();
        game.play_usi(&usi)
            .unwrap_or_else(|e| panic!("{best} ({usi}): {e}"));
        uci_moves.push(best);
    }
    assert!(uci_moves.len() >= 4);
    // From a FEN (gote to move, hands), the answer is a legal gote move in UCI notation.
    send(&mut e, &format!("position fen {}", FSF_FENS[7].1));
    send(&mut e, "go depth 2");
    let best = e.until("bestmove", 60 * SECOND).last().unwrap().clone();
    let m = best.split_whitespace().nth(1).unwrap();
    let pos = Position::from_sfen(FSF_FENS[7].0).unwrap();
    assert!(
        gogo::notation::parse_move(&pos, &uci_move_to_usi(m).unwrap()).is_ok(),
        "{best}"
    );
    // A malformed UCI move is reported in UCI terms.
    send(&mut e, "position startpos moves e2e6");
    send(&mut e, "isready");
    let lines = e.until("readyok", 60 * SECOND);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("'e2e6' is not a move (expected e.g. c1d2")),
        "{lines:?}"
    );
    e.quit();
}
