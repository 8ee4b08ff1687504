//! Mate solver (in progress).
