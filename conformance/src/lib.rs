//! The vmmkit conformance suite and the `vmmkit` command.

pub mod doctor;
