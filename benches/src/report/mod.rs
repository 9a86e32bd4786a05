//! The report: criterion's results read back, each operation beside its
//! floor with the ratio and the target, as a terminal table or
//! as BENCHMARKS.md (`bench-report --markdown`).

pub mod render;
pub mod results;
pub mod table;

pub use results::{Measurement, read};
pub use table::{Row, Target, rows};
