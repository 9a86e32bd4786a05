//! HIP, AMD's ROCm runtime (`libamdhip64.so`), as the reference
//! `shared/reference/hip.md` describes it (default profile: ROCm 6.x).
//!
//! Names keep the C spelling so the header can be grepped.

mod api;
mod error;
mod mem_types;
pub mod rules;
mod types;

pub use api::{HipApi, LIBRARY};
pub use error::HipError;
pub use mem_types::*;
pub use types::*;
