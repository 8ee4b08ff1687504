//! The USI dialect: parses a line into a [`Command`] and formats the engine's events as USI
//! text. Squares and moves are USI's (`5e4d`, `P*2c`), mate scores count plies, a `go mate`
//! is answered by one `checkmate ...` line. The loop itself is `crate::protocol`.

use crate::event::{Event, MateAnswer, Score, SearchInfo};
use crate::game::Game;
use crate::notation::UsiMove;
use crate::options::Dialect;
use crate::protocol::{self, Command, CommandError};
use crate::text::sanitize;
use crate::tt::Bound;
use crate::types::Move;

/// Parses one USI command line (already split into words).
pub fn parse(words: &[&str]) -> Result<Command, CommandError> {
    let Some((&cmd, args)) = words.split_first() else {
        return Ok(Command::Nothing);
    };
    if let Some(common) = protocol::parse_common(cmd, args) {
        return common;
    }
    match cmd {
        "usi" => Ok(Command::Hello),
        "usinewgame" => Ok(Command::NewGame),
        "position" => parse_position(args),
        "go" if args.first() == Some(&"perft") => protocol::parse_perft(&args[1..]),
        "go" => Ok(Command::Go(protocol::parse_go(args, Dialect::Usi, |m| {
            UsiMove::parse(m).ok()
        }))),
        _ => Err(CommandError::Unknown(sanitize(cmd, 40))),
    }
}

/// `position startpos|sfen <sfen> [moves <m>...]`, the moves checked for syntax here and for
/// legality when the game is set up.
fn parse_position(args: &[&str]) -> Result<Command, CommandError> {
    let (head, moves) = protocol::split_position(args, Dialect::Usi, |m| UsiMove::parse(m).ok())?;
    // The start position through the one parser of position descriptions.
    let start = *Game::parse_position(&head.join(" "))?.start();
    Ok(Command::Position { start, moves })
}

/// `score cp N` or `score mate N` (plies).
fn score(s: Score) -> String {
    match s {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(plies) => format!("mate {plies}"),
    }
}

/// The `info` line of a search report, with moves written by `write_move` and scores by
/// `write_score` (the UCI dialect uses this with its own notations).
pub fn info_line(
    info: &SearchInfo,
    write_move: fn(Move) -> String,
    write_score: fn(Score) -> String,
) -> String {
    let bound = match info.bound {
        Bound::Lower => " lowerbound",
        Bound::Upper => " upperbound",
        _ => "",
    };
    let pv: Vec<String> = info.pv.iter().map(|&m| write_move(m)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {}{bound} nodes {} nps {} time {} hashfull {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        write_score(info.score),
        info.nodes,
        info.nps,
        info.time_ms,
        info.hashfull,
        pv.join(" ")
    )
}

/// The lines of an event that are the same in both dialects but for the notation of moves.
pub fn common_lines(event: &Event, write_move: fn(Move) -> String) -> Option<Vec<String>> {
    Some(match event {
        Event::Message(text) => vec![format!("info string {}", sanitize(text, 2000))],
        Event::PerftMove { mv, nodes } => vec![format!("{}: {nodes}", write_move(*mv))],
        Event::PerftDone { nodes, complete } => {
            let mut v = vec![String::new(), format!("Nodes searched: {nodes}")];
            if !*complete {
                v.push("info string perft stopped: the count is partial".to_string());
            }
            v
        }
        Event::BenchPosition { index, nodes, best } => vec![format!(
            "info string position {index:>2}: {nodes:>9} nodes, bestmove {}",
            best.map_or("none".to_string(), write_move)
        )],
        Event::BenchDone {
            nodes,
            nps,
            complete,
        } => {
            let mut v = vec![format!("{nodes} nodes {nps} nps")];
            if !*complete {
                v.push("info string bench stopped: the count is partial".to_string());
            }
            v
        }
        _ => return None,
    })
}

/// An event as USI lines.
pub fn format(event: &Event) -> Vec<String> {
    let usi_move = |m: Move| m.to_string();
    if let Some(lines) = common_lines(event, usi_move) {
        return lines;
    }
    vec![match event {
        Event::Info(info) => info_line(info, usi_move, score),
        Event::BestMove {
            best: Some(b),
            ponder: Some(p),
        } => format!("bestmove {b} ponder {p}"),
        Event::BestMove { best: Some(b), .. } => format!("bestmove {b}"),
        Event::BestMove { best: None, .. } => "bestmove resign".to_string(),
        Event::Checkmate(MateAnswer::Mate(moves)) => {
            let text: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
            format!("checkmate {}", text.join(" "))
        }
        Event::Checkmate(MateAnswer::NoMate) => "checkmate nomate".to_string(),
        Event::Checkmate(MateAnswer::Timeout) => "checkmate timeout".to_string(),
        _ => return Vec::new(),
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_commands() {
        assert!(matches!(parse(&["usi"]), Ok(Command::Hello)));
        assert!(matches!(
            parse(&["go", "perft", "3"]),
            Ok(Command::Perft(3))
        ));
        assert!(matches!(parse(&["bench"]), Ok(Command::Bench(None))));
        assert!(matches!(
            parse(&["bench", "0"]),
            Err(CommandError::Usage(_))
        ));
        assert!(matches!(
            parse(&["position", "startpos", "moves", "zz"]),
            Err(CommandError::MoveSyntax { index: 1, .. })
        ));
        match parse(&["position", "startpos", "moves", "2e2d"]) {
            Ok(Command::Position { moves, .. }) => assert_eq!(moves.len(), 1),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            parse(&["frobnicate\x1b"]),
            Err(CommandError::Unknown(c)) if c == "frobnicate\\x1b"
        ));
    }

    #[test]
    fn formats_events() {
        let info = SearchInfo {
            depth: 3,
            seldepth: 5,
            multipv: 1,
            score: Score::Mate(-4),
            bound: Bound::Lower,
            nodes: 10,
            nps: 1000,
            time_ms: 10,
            hashfull: 0,
            pv: vec![UsiMove::parse("2e2d").unwrap().to_move()],
        };
        assert_eq!(
            format(&Event::Info(info)),
            vec!["info depth 3 seldepth 5 multipv 1 score mate -4 lowerbound nodes 10 nps 1000 time 10 hashfull 0 pv 2e2d"]
        );
        assert_eq!(
            format(&Event::BestMove {
                best: None,
                ponder: None
            }),
            vec!["bestmove resign"]
        );
        assert_eq!(
            format(&Event::Message("bad\x07".into())),
            vec!["info string bad\\x07"]
        );
    }
}
