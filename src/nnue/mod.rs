//! NNUE evaluation: features, quantised network with an incrementally updated accumulator,
//! its float (training) twin, the training-data format and self-play data generation.
//!
//! Not used by the search yet: the handcrafted [`crate::eval`] stays the default evaluation
//! until a net is shown stronger in a match. Commands and figures: `docs/nnue.md`.
//!
//! Architecture (one perspective per side, "HalfKP-like" with the king square as bucket):
//! - inputs, for each perspective (the side whose accumulator it is, seen as sente: gote's
//!   board is rotated by 180 degrees): own king square (25 buckets) x [every man on the board
//!   by relative colour (own, enemy) x kind (10, kings and promoted kinds included) x square
//!   (25), plus hand features: relative colour x hand kind (5) x "holds at least n" (n = 1, 2)];
//!   [`features::FEATURES`] = 25 x 520 = 13,000 inputs;
//! - an accumulator of [`HIDDEN`] i16 per perspective, incrementally updated by moves, captures
//!   into hand, drops and promotions; the perspective whose king moved is refreshed;
//! - squared clipped ReLU (SCReLU) of both accumulators (side to move first) and one output.

pub mod data;
pub mod datagen;
pub mod features;
pub mod float;
pub mod net;
pub mod rng;
pub mod stack;
pub mod trainer;

pub use net::{Accumulator, NetError, Network};

/// Accumulator width per perspective. The quantised file format stores it; a net of another
/// width is rejected by [`Network::from_bytes`].
pub const HIDDEN: usize = 128;
/// Quantisation of the accumulator (the float activation range 0..1 maps to 0..QA).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Network output 1.0 = this many centipawns; also the sigmoid scale of the training target
/// (`sigmoid(cp / SCALE)`).
pub const SCALE: i32 = 400;
