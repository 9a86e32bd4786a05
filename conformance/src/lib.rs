//! The vmmkit conformance suite and the `vmmkit` command.
//!
//! Every documented rule of a vendor API is a [`rule::Rule`] in a
//! [`catalog`], with a check written against the vendor's C function table
//! ([`vmmkit_sys::acl::AclApi`]), so the same check runs on the emulator
//! and on a real library. The [`runner`] runs each rule in a fresh process,
//! with peers for multi-process rules ([`peer`]), and the [`report`] module
//! renders the outcomes as a table, JSON or JUnit XML; a [`baseline`]
//! excuses known differences of a backend.
//!
//! ```
//! use vmmkit_conformance::catalog::Catalog;
//! use vmmkit_conformance::rule::Expect;
//!
//! let map_003 = Catalog::Suite.find("ACL-MAP-003").unwrap();
//! assert_eq!(map_003.group, "acl.vmm.map");
//! assert_eq!(map_003.expect.to_string(), "100000 ACL_ERROR_INVALID_PARAM");
//! assert!(matches!(map_003.expect, Expect::Codes(_)));
//! ```

#![deny(unsafe_code)]

pub mod acl;
pub mod backend;
pub mod baseline;
// The generator of the checks' call tables (expanded at each vendor's C boundary).
pub mod calls;
pub mod catalog;
pub mod checked;
pub mod checks;
pub mod command;
pub mod ctx;
pub mod cuda;
pub mod doctor;
#[cfg(feature = "example-vendor")]
pub mod example;
pub mod fidelity;
// fork(2) and waitpid of a check that runs in a child.
#[allow(unsafe_code)]
pub mod forked;
pub mod hip;
pub mod machine;
pub mod ops;
pub mod outcome;
pub mod pattern;
pub mod peer;
pub mod probe;
pub mod report;
pub mod rule;
pub mod run_dir;
pub mod runner;
pub mod vendors;
