//! The ACL section of `docs/api-coverage.md`, made from the built
//! `libascendcl.so` (`nm -D`), its unsupported lists (`DEVICE_CODE`,
//! `NOT_YET`) and the kept list of CANN's runtime-header functions
//! (`docs/api/acl.tsv`); written under `VMMKIT_BLESS=1`
//! (`scripts/api-coverage`), compared otherwise. It also fails when a
//! declared function is not exported, or when a function of a family that
//! host memory emulates in full (memory, device, context, stream, event) is
//! not emulated.

mod common;

use std::path::Path;

use vmmkit_testkit::coverage::{self, Coverage, Status};

/// The families whose every function vmmkit emulates (issue 18).
const EMULATED_FAMILIES: &[&str] = &["memory", "device", "context", "stream", "event"];

fn coverage() -> Coverage {
    let repo = common::crate_dir().join("../../..");
    let list = coverage::read_list(&repo.join("docs/api/acl.tsv")).expect("docs/api/acl.tsv");
    let exported = coverage::exported(common::library());
    Coverage::new("ACL", list, &exported, ascendcl::DEVICE_CODE, ascendcl::NOT_YET)
}

/// Names of `c`'s functions with `status`, and whether each is of an emulated family.
fn names(c: &Coverage, status: Status, emulated_family: bool) -> Vec<String> {
    c.with(status)
        .into_iter()
        .filter(|f| EMULATED_FAMILIES.contains(&f.family.as_str()) == emulated_family)
        .map(|f| format!("{} ({})", f.name, f.family))
        .collect()
}

#[test]
fn the_coverage_document_is_current() {
    let c = coverage();
    let section = c.section("libascendcl.so", "`acl/acl_rt.h`, `acl/acl_base.h` and what they include");
    let doc = common::crate_dir().join("../../../docs/api-coverage.md");
    let bless = std::env::var_os("VMMKIT_BLESS").is_some_and(|v| v == "1");
    coverage::check_or_bless(Path::new(&doc), "ACL", &section, bless).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn every_declared_function_is_exported() {
    let c = coverage();
    let missing: Vec<String> = c.with(Status::Missing).iter().map(|f| format!("{} ({})", f.name, f.family)).collect();
    assert!(missing.is_empty(), "{} declared functions are not exported: {missing:?}", missing.len());
    assert!(c.undeclared_unsupported.is_empty(), "unsupported exports not in the list: {:?}", c.undeclared_unsupported);
}

#[test]
fn memory_device_context_stream_and_event_functions_are_emulated() {
    let c = coverage();
    let not: Vec<String> =
        [Status::DeviceCode, Status::NotYet, Status::Missing].into_iter().flat_map(|s| names(&c, s, true)).collect();
    assert!(not.is_empty(), "{} functions of {EMULATED_FAMILIES:?} are not emulated: {not:?}", not.len());
}

/// Only the families that need device code are listed as such.
#[test]
fn device_code_is_only_claimed_for_device_code_and_graph_functions() {
    let c = coverage();
    let wrong: Vec<String> = c
        .with(Status::DeviceCode)
        .into_iter()
        .filter(|f| !["device code", "graph"].contains(&f.family.as_str()))
        .map(|f| format!("{} ({})", f.name, f.family))
        .collect();
    assert!(wrong.is_empty(), "listed as device code outside those families: {wrong:?}");
}
