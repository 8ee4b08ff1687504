//! The text protocols: USI, and the UCI dialect that chess tools speak for minishogi.
//!
//! - [`command`]: the grammar both dialects share, the typed [`Command`] a line becomes;
//! - [`reader`]: bounded line reading;
//! - [`dialect`]: what differs between the dialects, behind one trait;
//! - [`usi`], [`uci`]: one file per dialect (parsing, notation, formatting of events);
//! - [`format`]: the lines the dialects write alike;
//! - [`session`]: the loop that reads commands, drives the engine and prints its events.
//!
//! The imports run one way: `session` → the dialects → `dialect`, `format`, `command`.

pub mod command;
pub mod dialect;
pub mod format;
pub mod reader;
pub mod session;
pub mod uci;
pub mod usi;

pub use command::{tokens, Command, CommandError, GoCommand, GoProblem, Notation, GO_KEYWORDS};
pub use dialect::Dialect;
pub use reader::{Line, LineReader, MAX_LINE};
pub use session::{run_stdio, CommandLoop, Output, ENGINE_AUTHOR, ENGINE_NAME};
