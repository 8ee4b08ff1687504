//! The USI loop end to end: the real binary on pipes.

mod common;

use common::engine::{check_bestmove, Engine, SECOND};
use common::Rng;
use gogo::game::Game;
use gogo::position::Position;
use std::time::{Duration, Instant};

#[test]
fn handshake_lists_options_and_answers_isready() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", 2 * SECOND);
    assert!(lines[0].starts_with("id name Gogo"));
    // Every option of the table, each once, in the table's order, and nothing else.
    let options: Vec<&String> = lines.iter().filter(|l| l.starts_with("option ")).collect();
    let declared: Vec<String> = gogo::options::OPTIONS
        .iter()
        .map(|o| o.line(o.usi_name))
        .collect();
    assert!(declared.len() >= 13, "{declared:?}");
    assert_eq!(options, declared.iter().collect::<Vec<_>>());
    for name in ["USI_Hash", "USI_Ponder", "Threads", "MultiPV", "EvalFile"] {
        assert!(
            options
                .iter()
                .any(|l| l.starts_with(&format!("option name {name} type "))),
            "{name} missing"
        );
    }
    e.ready();
    e.quit();
}

#[test]
fn go_depth_gives_one_legal_bestmove_and_legal_pvs() {
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", 2 * SECOND);
    e.send("position startpos moves 2e3d 4a3b");
    e.send("go depth 6");
    let lines = e.until("bestmove", 20 * SECOND);
    let mut game = Game::new(Position::startpos());
    game.play_usi("2e3d").unwrap();
    game.play_usi("4a3b").unwrap();
    check_bestmove(&lines, &game);
    assert!(lines.iter().any(|l| l.starts_with("info depth 6 ")));
    e.quit();
}

#[test]
fn stop_ends_infinite_and_ponder_searches_with_one_bestmove() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    // No bestmove before stop.
    let early = e.drain(SECOND / 2);
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "{early:?}"
    );
    e.ready(); // isready is answered while searching
    e.send("stop");
    let lines = e.until("bestmove", 5 * SECOND);
    check_bestmove(&lines, &Game::new(Position::startpos()));
    // Nothing more comes.
    let late = e.drain(SECOND / 4);
    assert!(late.iter().all(|l| !l.starts_with("bestmove")), "{late:?}");

    e.send("go ponder btime 1000 wtime 1000 byoyomi 500");
    let early = e.drain(SECOND / 2);
    assert!(
        early.iter().all(|l| !l.starts_with("bestmove")),
        "{early:?}"
    );
    let t = Instant::now();
    e.send("ponderhit");
    let (lines, at) = e.until_at("bestmove", 5 * SECOND);
    // The clock starts at ponderhit: 1 s main time + 0.5 s byoyomi, plus the default
    // MoveOverhead of 50 ms.
    assert!(
        at - t <= Duration::from_millis(1550),
        "ponderhit search took {:?}",
        at - t
    );
    check_bestmove(&lines, &Game::new(Position::startpos()));

    e.send("go ponder btime 1000 wtime 1000");
    e.drain(SECOND / 5);
    e.send("stop");
    let lines = e.until("bestmove", 5 * SECOND);
    check_bestmove(&lines, &Game::new(Position::startpos()));
    e.quit();
}

#[test]
fn movetime_and_clock_searches_end_in_time() {
    // The time from sending go to reading bestmove, against the clock plus MoveOverhead (more
    // cases in tests/time_safety.rs).
    let mut e = Engine::start();
    e.send("setoption name MoveOverhead value 50");
    e.send("position startpos");
    let ms = Duration::from_millis;
    let (lines, took) = e.timed_go_within("go movetime 300", ms(350));
    assert!(took >= ms(150), "{took:?}");
    check_bestmove(&lines, &Game::new(Position::startpos()));

    // A nearly empty clock: the move still comes, within it.
    let (lines, _) = e.timed_go_within("go btime 100 wtime 100", ms(150));
    check_bestmove(&lines, &Game::new(Position::startpos()));
    e.quit();
}

#[test]
fn bad_positions_are_rejected_and_the_old_one_stays() {
    let mut e = Engine::start();
    e.send("position startpos moves 2e3d");
    for bad in [
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "position startpos moves 2e3d 5e5a",
        "position sfen rbsgk/4p/5/P4/KGSBR x - 1",
        "position",
        "position foo",
    ] {
        e.send(bad);
        let l = e.until("info string", 2 * SECOND);
        assert!(
            l.last().unwrap().contains("position rejected"),
            "{bad}: {l:?}"
        );
    }
    e.send("d");
    let lines = e.until("sfen:", 2 * SECOND);
    let sfen = lines.last().unwrap();
    let mut g = Game::new(Position::startpos());
    g.play_usi("2e3d").unwrap();
    let want = g.current().to_sfen();
    assert!(sfen.ends_with(&want), "{sfen} vs {want}");
    e.quit();
}

#[test]
fn no_legal_move_resigns_and_missing_move_number_is_fine() {
    let mut e = Engine::start();
    // Sente's king on 5e is mated by the gold on 4d, which the gold on 4c protects.
    let mated = "4k/5/1g3/1g3/K4 b -";
    let g = Game::from_sfen(mated).unwrap();
    assert_eq!(
        gogo::movegen::count_legal(g.current()),
        0,
        "test position must be mate"
    );
    e.send(&format!("position sfen {mated}"));
    e.send("go btime 1000 wtime 1000");
    let lines = e.until("bestmove", 5 * SECOND);
    assert_eq!(lines.last().unwrap(), "bestmove resign");
    e.quit();
}

#[test]
fn go_accepts_every_limit_and_junk() {
    let mut e = Engine::start();
    e.send("position startpos moves");
    for go in [
        "go btime 2000 wtime 2000 binc 100 winc 100",
        "go btime 0 wtime 0 byoyomi 200",
        "go btime 500 wtime 500 byoyomi 0 binc 50 winc 50",
        "go movetime 0.2",
        "go movestogo 5 btime 1000 wtime 1000",
        "go nodes 2000",
        "go depth 3 searchmoves 5e4d 1e1c",
        "go depth x",
        "go movetime abc",
        "go btime -50 wtime 1000",
        "go wibble depth 2",
    ] {
        e.send(go);
        let lines = e.until("bestmove", 10 * SECOND);
        let mv = check_bestmove(&lines, &Game::new(Position::startpos()));
        if go.contains("searchmoves") {
            assert!(mv == "5e4d" || mv == "1e1c", "{go}: {mv}");
        }
    }
    e.quit();
}

#[test]
fn multipv_reports_distinct_first_moves() {
    let mut e = Engine::start();
    e.send("setoption name MultiPV value 3");
    e.send("position startpos");
    e.send("go depth 5");
    let lines = e.until("bestmove", 10 * SECOND);
    check_bestmove(&lines, &Game::new(Position::startpos()));
    let last: Vec<&String> = lines
        .iter()
        .filter(|l| l.starts_with("info depth 5 "))
        .collect();
    let firsts: std::collections::BTreeSet<&str> = last
        .iter()
        .map(|l| {
            l.split(" pv ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(last.len(), 3, "{last:?}");
    assert_eq!(firsts.len(), 3, "{last:?}");
    e.quit();
}

#[test]
fn random_and_mutated_input_never_kills_the_engine() {
    let mut rng = Rng::new(7);
    let mut e = Engine::start();
    let valid = [
        "usi",
        "isready",
        "usinewgame",
        "position startpos moves 2e3d 4a3b",
        "position sfen rbsgk/4p/5/P4/KGSBR b - 1 moves 5e4d",
        "setoption name USI_Hash value 8",
        "setoption name MultiPV value 2",
        "setoption name SennichiteRule value gote-wins",
        "go depth 2",
        "go btime 100 wtime 100 byoyomi 50",
        "stop",
        "ponderhit",
        "gameover win",
        "d",
        "eval",
        "go perft 2",
    ];
    let junk_words = [
        "",
        "position",
        "sfen",
        "moves",
        "go",
        "setoption",
        "name",
        "value",
        "-1",
        "999999999999",
        "1.5",
        "+",
        "*",
        "G*3c",
        "5e4d",
        "\t",
        "startpos",
        "depth",
        "infinite",
        "9x9",
        "ponder",
        "searchmoves",
        "byoyomi",
        "\u{3042}",
        "mate",
    ];
    for _ in 0..400 {
        let line = match rng.below(4) {
            0 => valid[rng.below(valid.len())].to_string(),
            1 => {
                // Mutate a valid line: drop, duplicate or replace a word.
                let mut words: Vec<String> = valid[rng.below(valid.len())]
                    .split(' ')
                    .map(str::to_string)
                    .collect();
                let i = rng.below(words.len());
                match rng.below(3) {
                    0 => {
                        words.remove(i);
                    }
                    1 => {
                        let w = words[i].clone();
                        words.insert(i, w);
                    }
                    _ => words[i] = junk_words[rng.below(junk_words.len())].to_string(),
                }
                words.join(" ")
            }
            2 => (0..rng.below(8))
                .map(|_| junk_words[rng.below(junk_words.len())])
                .collect::<Vec<_>>()
                .join(" "),
            _ => (0..rng.below(60))
                .map(|_| (32 + rng.below(95)) as u8 as char)
                .collect(),
        };
        if line.trim() == "quit" || line.contains("infinite") || line.contains("ponder") {
            continue; // these wait for a stop that random input may never send
        }
        e.send(&line);
        if rng.below(5) == 0 {
            e.send("stop");
        }
    }
    // Raw bytes: CRLF, invalid UTF-8, a huge line.
    e.send_raw(b"isready\r\n");
    e.send_raw(&[0xff, 0xfe, b'g', b'o', b'\n']);
    let huge = "x".repeat(3 << 20);
    e.send(&huge);
    e.send("stop");
    e.drain(SECOND);
    e.ready();
    e.send("position startpos moves 3e2d");
    e.send("go depth 4");
    let lines = e.until("bestmove", 20 * SECOND);
    let mut g = Game::new(Position::startpos());
    g.play_usi("3e2d").unwrap();
    check_bestmove(&lines, &g);
    e.quit();
}

#[test]
fn end_of_input_exits_cleanly() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.close_stdin();
    let status = e
        .wait_exit(10 * SECOND)
        .expect("engine did not exit on EOF");
    assert!(status.success());
}

#[test]
fn uci_dialect_plays_in_chess_coordinates() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok", 2 * SECOND);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name UCI_Variant")),
        "{lines:?}"
    );
    assert!(lines.iter().all(|l| !l.contains("USI_")), "{lines:?}");
    e.send("setoption name UCI_Variant value minishogi");
    e.ready();
    e.send("ucinewgame");
    // 2e3d in USI is d1c2 in this dialect (files a..e from sente's left, ranks 1..5).
    e.send("position fen rbsgk/4p/5/P4/KGSBR[] w - - 0 1 moves d1c2");
    e.send("go wtime 1000 btime 1000 winc 100 binc 100");
    let lines = e.until("bestmove", 5 * SECOND);
    let best = lines
        .last()
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .to_string();
    let usi = gogo::uci::uci_move_to_usi(&best).expect("a UCI move");
    let mut g = Game::new(Position::startpos());
    g.play_usi("2e3d").unwrap();
    g.play_usi(&usi)
        .unwrap_or_else(|err| panic!("{best} ({usi}) is illegal: {err}"));
    e.quit();
}

#[test]
fn never_completes_a_losing_perpetual_check_when_another_move_exists() {
    // Sente's rook checks along ranks a and b while gote's king shuffles 1a-1b. One more
    // 3b3a would be the fourth occurrence of that position with sente checking every time.
    let cycle = "1a1b 3a3b 1b1a 3b3a";
    let moves = format!("{cycle} {cycle} 1a1b 3a3b 1b1a");
    let sfen = "2R1k/5/5/5/K4 w - 1";
    let mut g = Game::from_sfen(sfen).unwrap();
    for m in moves.split_whitespace() {
        g.play_usi(m).unwrap();
    }
    let mut after = g.clone();
    after.play_usi("3b3a").unwrap();
    assert!(matches!(
        after.result(gogo::game::GameRules::default()),
        Some(r) if r.reason == gogo::game::EndReason::PerpetualCheck
    ));
    for rule in [
        gogo::game::SennichiteRule::Draw,
        gogo::game::SennichiteRule::GoteWins,
    ] {
        assert_eq!(
            gogo::game::repetition_loser(after.positions(), rule),
            Some(gogo::types::Color::Black)
        );
        assert_eq!(gogo::game::repetition_loser(g.positions(), rule), None);
    }
    let mut e = Engine::start();
    e.send(&format!("position sfen {sfen} moves {moves}"));
    e.send("go depth 6");
    let lines = e.until("bestmove", 10 * SECOND);
    let mv = check_bestmove(&lines, &g);
    assert_ne!(mv, "3b3a");
    e.quit();
}

#[test]
fn go_mate_answers_with_one_checkmate_line() {
    let mut e = Engine::start();
    // Mate in one: the horse steps next to the king.
    let sfen = "2+B2/4g/2k2/G3B/1KS2 b 2RSPp 1";
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate 5000");
    let lines = e.until("checkmate", 10 * SECOND);
    let last = lines.last().unwrap();
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    let moves: Vec<&str> = last.split_whitespace().skip(1).collect();
    assert_eq!(moves.len(), 1, "{last}");
    let mut g = Game::from_sfen(sfen).unwrap();
    g.play_usi(moves[0]).unwrap();
    assert!(g.current().in_check());
    assert_eq!(
        gogo::movegen::count_legal(g.current()),
        0,
        "{last} does not mate"
    );

    // No check at all: proved no mate.
    e.send("position startpos");
    e.send("go mate 1000");
    let lines = e.until("checkmate", 10 * SECOND);
    assert_eq!(lines.last().unwrap(), "checkmate nomate");

    // Stopped early: timeout unless proved.
    e.send("position startpos moves 2e3d 4a3b 3d2c 3b2c 1e1b");
    e.send("go mate infinite");
    std::thread::sleep(Duration::from_millis(200));
    e.send("stop");
    let lines = e.until("checkmate", 10 * SECOND);
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    let late = e.drain(SECOND / 4);
    assert!(late.iter().all(|l| !l.starts_with("checkmate")), "{late:?}");
    e.ready();
    e.quit();
}

/// The score and PV of an `info` line.
fn score_and_pv(line: &str) -> (String, Vec<String>) {
    let score = line
        .split(" score ")
        .nth(1)
        .map(|s| s.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .unwrap_or_default();
    let pv = line
        .split(" pv ")
        .nth(1)
        .map(|s| s.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    (score, pv)
}

/// Checks that `pv` is a forced-mate line from `sfen` (every attacker move a check, the
/// defender mated at the end).
fn assert_mating_line(sfen: &str, pv: &[String]) {
    let mut game = Game::from_sfen(sfen).unwrap();
    let root = *game.current();
    let mut moves = Vec::new();
    for m in pv {
        let mv = gogo::notation::parse_move(game.current(), m).unwrap();
        game.play(mv).unwrap();
        moves.push(mv);
    }
    gogo::mate::check_mate_line(&root, &moves).unwrap_or_else(|e| panic!("{pv:?}: {e}"));
}

#[test]
fn a_mate_found_by_the_root_probe_is_reported_and_played_at_once() {
    // Mate in 7 plies; the first iterations of the search see only a big material edge.
    let sfen = "1b1gk/1K3/4p/2S2/1G1BR b RSP 1";
    let mut e = Engine::start();
    e.send(&format!("position sfen {sfen}"));
    e.send("go btime 60000 wtime 60000 binc 1000 winc 1000");
    let lines = e.until("bestmove", 10 * SECOND);
    let game = Game::from_sfen(sfen).unwrap();
    let best = check_bestmove(&lines, &game);
    let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    // The first iteration's score triggers the probe, and the timed search plays the proven
    // mate without iterating further.
    assert_eq!(infos.len(), 2, "{lines:?}");
    assert!(infos[0].starts_with("info depth 1 "), "{lines:?}");
    let (score, pv) = score_and_pv(infos[1]);
    assert_eq!(score, "mate 7");
    assert_eq!(pv.len(), 7);
    assert_eq!(pv[0], best);
    assert_mating_line(sfen, &pv);

    // Analysis: the probe runs before the first iteration, so the mate is the first line at
    // every depth, and the answer after stop.
    e.send("go infinite");
    std::thread::sleep(SECOND / 2);
    e.send("stop");
    let lines = e.until("bestmove", 10 * SECOND);
    let best = check_bestmove(&lines, &game);
    let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" score ")).collect();
    assert!(infos.len() > 1, "{lines:?}");
    for l in &infos {
        let (score, pv) = score_and_pv(l);
        let plies: i32 = score
            .strip_prefix("mate ")
            .unwrap_or_else(|| panic!("not a mate score: {l}"))
            .parse()
            .unwrap();
        assert!((1..=7).contains(&plies) && plies % 2 == 1, "{l}");
        assert_mating_line(sfen, &pv);
    }
    assert_eq!(score_and_pv(infos.last().unwrap()).1[0], best);

    // With MultiPV the probe is off and the search finds the mate itself.
    e.send("setoption name MultiPV value 2");
    e.send("go depth 9");
    let lines = e.until("bestmove", 20 * SECOND);
    check_bestmove(&lines, &game);
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 1 ")),
        "{lines:?}"
    );
    e.ready();
    e.quit();
}
