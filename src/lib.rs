//! Gogo, a minishogi engine: rules core (bitboards, positions, legal moves, game state),
//! search, evaluation and the USI protocol. `src/main.rs` only dispatches to this library.

pub mod attacks;
pub mod bench;
pub mod bitboard;
pub mod engine;
pub mod eval;
pub mod event;
pub mod game;
#[cfg(feature = "gui")]
pub mod gui;
pub mod kif;
pub mod mate;
pub mod movegen;
pub mod movepick;
pub mod nnue;
pub mod notation;
pub mod options;
pub mod params;
pub mod perft;
pub mod position;
pub mod protocol;
pub mod score;
pub mod search;
pub mod see;
pub mod skill;
pub mod text;
pub mod time;
pub mod train;
pub mod tt;
pub mod types;
// The dialects are reached as `gogo::usi` and `gogo::uci` too.
pub use protocol::{uci, usi};
pub mod zobrist;
