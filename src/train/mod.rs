//! What only training needs, kept apart from the evaluation the engine runs
//! ([`crate::nnue`]): the training-data format, self-play data generation in resumable
//! shards, rescoring data with deeper searches, merging data into a training set, the float
//! net and the trainer; and SPSA tuning of the search parameters ([`spsa`]). Nothing in the
//! engine imports this module. Commands and figures: `docs/nnue.md`, `docs/tuning.md`.

pub mod data;
pub mod datagen;
pub mod float;
pub mod merge;
pub mod rescore;
pub mod rng;
pub mod shard;
pub mod spsa;
pub mod trainer;
