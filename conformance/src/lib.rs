//! The vmmkit conformance suite.
