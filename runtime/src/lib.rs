//! Safe Rust API over any vendor table.
