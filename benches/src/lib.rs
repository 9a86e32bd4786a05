//! Shared code of the vmmkit benches.
