//! The checks: one function per rule, grouped like the catalog, written
//! against a vendor table only.

pub mod acl;
pub mod cuda;
#[cfg(feature = "example-vendor")]
pub mod example;
pub mod hip;
