//! Stand-ins for the companion libraries that programs of an accelerator
//! vendor load beside its runtime (`librocfft.so.0`, `libroctracer64.so.4`
//! for CuPy on ROCm), so that a program which calls nothing of them before
//! it would need a device can start on vmmkit's drop-ins. They are linked
//! into a machine only by `vmmkit run --stand-ins` (and the pytest plugin's
//! `--vmmkit-stand-ins`), never on the default path.
//!
//! The libraries are C, compiled by this crate's build script into
//! `<target>/<profile>/stand-ins/` from `standins.txt`, which
//! `scripts/stand-ins.py` generates from the vendors' headers: every function
//! the headers declare, in the version node the real library exports it in,
//! returning the library's own failure status. This crate names them.

#![deny(unsafe_code)]

/// One stand-in library.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StandIn {
    /// The name programs load it by.
    pub soname: &'static str,
    /// What its functions that return a status return.
    pub status: i64,
    /// That status's name in the vendor's header.
    pub status_name: &'static str,
    /// Where the list of its functions comes from.
    pub source: &'static str,
    /// The functions it exports.
    pub functions: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/standins.rs"));

/// The directory beside the `vmmkit` command (in `target/<profile>/`, and in
/// the Python package's `_bin/`) that holds the stand-ins.
pub const DIR: &str = "stand-ins";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_names_cupys_companions_with_their_functions() {
        let find = |s: &str| LIBRARIES.iter().find(|l| l.soname == s).unwrap_or_else(|| panic!("{s} is listed"));
        assert!(find("librocfft.so.0").functions.contains(&"rocfft_plan_create"));
        let tracer = find("libroctracer64.so.4");
        assert!(tracer.functions.contains(&"roctracer_start") && tracer.functions.contains(&"roctracer_stop"));
        assert_eq!(tracer.status, -8);
    }
}
