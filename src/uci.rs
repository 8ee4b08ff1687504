//! UCI dialect (in progress).
