//! ACL, the Ascend CANN runtime (`libascendcl.so`), as the reference
//! `shared/reference/acl.md` describes it (ACL header version 1.17.0).
//!
//! Names keep the C spelling so the header can be grepped.

mod api;
pub mod chips;
mod error;
pub mod rules;
mod types;

pub use api::{AclApi, LIBRARY};
pub use chips::Chip;
pub use error::AclError;
pub use types::*;
