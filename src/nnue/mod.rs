//! NNUE evaluation: features, the quantised network with its incrementally updated
//! accumulators and the embedded default net. This is what the engine runs; what only training
//! needs (data format, self-play generation, float net, trainer) is in [`crate::train`], which
//! builds on this module and never the other way round.
//!
//! The search evaluates with [`default_net`], the net embedded in the binary (`default.nnue`
//! beside this file), unless the `EvalFile` option loads another or `UseNNUE` is off (then the
//! handcrafted [`crate::eval`]). Commands and figures: `docs/nnue.md`.
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

pub mod features;
pub mod net;
pub mod stack;

pub use net::{Accumulator, NetError, Network};

use std::sync::{Arc, LazyLock};

/// The net file embedded in the binary (made and measured as `docs/nnue.md` says).
pub const DEFAULT_NET: &[u8] = include_bytes!("default.nnue");

static DEFAULT: LazyLock<Arc<Network>> = LazyLock::new(|| {
    // The embedded bytes are checked by the `the_embedded_net_is_valid` test of every build.
    Arc::new(Network::from_bytes(DEFAULT_NET).expect("the embedded net is a valid net"))
});

/// The embedded net, parsed once.
pub fn default_net() -> Arc<Network> {
    DEFAULT.clone()
}

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

#[cfg(test)]
mod tests {
    #[test]
    fn the_embedded_net_is_valid() {
        let net = super::Network::from_bytes(super::DEFAULT_NET).unwrap();
        assert_eq!(net.hash(), super::default_net().hash());
    }
}
