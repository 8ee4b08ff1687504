//! What differs between the text dialects, behind one trait: the loop holds the dialect spoken
//! now as a `&'static dyn Dialect` and never matches on which one it is.

use super::command::{Command, CommandError};
use crate::engine::Engine;
use crate::event::Event;
use crate::options::OptionSpec;
use crate::position::Position;
use crate::types::Move;

pub trait Dialect: Sync {
    /// The handshake command that selects the dialect (`usi`, `uci`); its answer ends with
    /// this word and `ok`.
    fn handshake(&self) -> &'static str;
    /// What the handshake changes in the engine besides the dialect.
    fn on_handshake(&self, _engine: &mut Engine) {}
    /// Parses one command line, already split into words.
    fn parse(&self, words: &[&str]) -> Result<Command, CommandError>;
    /// An event as the dialect's lines.
    fn format(&self, event: &Event) -> Vec<String>;
    /// A move in the dialect's notation.
    fn move_text(&self, m: Move) -> String;
    /// The option's name in this dialect, or `None` where it is not offered.
    fn option_name(&self, spec: &OptionSpec) -> Option<&'static str>;
    /// Lines `d` adds to the board diagram.
    fn describe(&self, _pos: &Position) -> Vec<String> {
        Vec::new()
    }
}
