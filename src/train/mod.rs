//! What only training the NNUE needs, kept apart from the evaluation the engine runs
//! ([`crate::nnue`]): the training-data format, self-play data generation, the float net and
//! the trainer. Nothing in the engine imports this module. Commands and figures:
//! `docs/nnue.md`.

pub mod data;
pub mod datagen;
pub mod float;
pub mod rng;
pub mod trainer;
