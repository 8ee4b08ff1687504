//! The USI dialect: parses a line into a [`Command`] and formats the engine's events as USI
//! text. Squares and moves are USI's (`5e4d`, `P*2c`), mate scores count plies, a `go mate`
//! is answered by one `checkmate ...` line. The loop itself is `protocol::session`.

use super::command::{self, Command, CommandError, Notation};
use super::dialect::Dialect;
use super::format::{common_lines, info_line};
use crate::event::{Event, MateAnswer, Score};
use crate::game::Game;
use crate::notation::UsiMove;
use crate::options::OptionSpec;
use crate::text::sanitize;
use crate::types::Move;

/// The USI dialect, as the loop holds it.
pub struct Usi;

impl Dialect for Usi {
    fn handshake(&self) -> &'static str {
        "usi"
    }
    fn parse(&self, words: &[&str]) -> Result<Command, CommandError> {
        parse(words)
    }
    fn format(&self, event: &Event) -> Vec<String> {
        format(event)
    }
    fn move_text(&self, m: Move) -> String {
        m.to_string()
    }
    fn option_name(&self, spec: &OptionSpec) -> Option<&'static str> {
        Some(spec.usi_name)
    }
}

/// USI's move syntax and clocks for the command grammar.
pub const NOTATION: Notation = Notation {
    parse_move: |m| UsiMove::parse(m).ok(),
    white_is_sente: false,
    mate_is_depth: false,
    move_examples: "5e4d, 2e2a+ or G*2b",
};

/// Parses one USI command line (already split into words).
pub fn parse(words: &[&str]) -> Result<Command, CommandError> {
    let Some((&cmd, args)) = words.split_first() else {
        return Ok(Command::Nothing);
    };
    if let Some(common) = command::parse_common(cmd, args, &NOTATION) {
        return common;
    }
    match cmd {
        "usi" => Ok(Command::Hello),
        "usinewgame" => Ok(Command::NewGame),
        "position" => parse_position(args),
        _ => Err(CommandError::Unknown(sanitize(cmd, 40))),
    }
}

/// `position startpos|sfen <sfen> [moves <m>...]`, the moves checked for syntax here and for
/// legality when the game is set up.
fn parse_position(args: &[&str]) -> Result<Command, CommandError> {
    let (head, moves) = command::split_position(args, &NOTATION)?;
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
    use crate::event::SearchInfo;
    use crate::tt::Bound;

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
