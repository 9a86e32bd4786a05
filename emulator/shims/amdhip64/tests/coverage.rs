//! The HIP section of `docs/api-coverage.md`, made from the built
//! `libamdhip64.so`: the functions of the kept list `docs/api/hip.tsv`
//! (`hip_runtime_api.h` 7.x as Debian's 7.2.4 library exports it), each
//! emulated, device code, not yet, or missing, by what the library exports
//! (`nm -D`) and its two lists `DEVICE_CODE` and `NOT_YET`.
//!
//! It fails when the document differs (`scripts/api-coverage`, which sets
//! `VMMKIT_BLESS=1`, writes it instead), when a declared function is not
//! exported, and when a function of a family that host memory emulates
//! ([`EMULATED_FAMILIES`]) is not emulated.

mod common;

use std::collections::BTreeSet;

use vmmkit_testkit::coverage::{self, Coverage, Status};

/// The families whose every function must be emulated: memory, devices,
/// contexts, streams, events, and what they rest on. Graph nodes that the
/// header's Stream Memory Operations group lists (`hipGraph*BatchMemOp*`)
/// are Graph Management in all but name and are left out.
const EMULATED_FAMILIES: &[&str] = &[
    "Memory Management",
    "Memory Management [Deprecated]",
    "Managed Memory",
    "Stream Ordered Memory Allocator",
    "Virtual Memory Management",
    "Device Management",
    "Context Management [Deprecated]",
    "Stream Management",
    "Stream Memory Operations",
    "Event Management",
    "Initialization and Version",
    "Error Handling",
    "PeerToPeer Device Memory Access",
];

/// The families another branch of issue 18 completes (the memory functions);
/// their gaps are reported separately so that this branch's own are seen.
const MEMORY_FAMILIES: &[&str] = &[
    "Memory Management",
    "Memory Management [Deprecated]",
    "Managed Memory",
    "Stream Ordered Memory Allocator",
    "Virtual Memory Management",
];

fn coverage() -> Coverage {
    let root = common::repo_root();
    let list = coverage::read_list(&root.join("docs/api/hip.tsv")).expect("docs/api/hip.tsv");
    let exported = coverage::exported(&common::library());
    Coverage::new("HIP", list, &exported, amdhip64::DEVICE_CODE, amdhip64::NOT_YET)
}

#[test]
fn document_and_coverage() {
    let c = coverage();
    let section = c.section("libamdhip64.so", "`hip/hip_runtime_api.h` 7.x (Debian's `libamdhip64.so.7` 7.2.4)");
    let bless = std::env::var("VMMKIT_BLESS").as_deref() == Ok("1");
    let doc = common::repo_root().join("docs/api-coverage.md");
    coverage::check_or_bless(&doc, "HIP", &section, bless).unwrap_or_else(|e| panic!("{e}"));

    let missing: Vec<&str> = c.with(Status::Missing).iter().map(|f| f.name.as_str()).collect();
    let not_emulated: Vec<(&str, &str)> = c
        .functions
        .iter()
        .filter(|f| EMULATED_FAMILIES.contains(&f.family.as_str()) && f.status != Status::Emulated)
        .filter(|f| !f.name.starts_with("hipGraph"))
        .map(|f| (f.name.as_str(), f.family.as_str()))
        .collect();
    let memory: BTreeSet<&str> =
        c.functions.iter().filter(|f| MEMORY_FAMILIES.contains(&f.family.as_str())).map(|f| f.name.as_str()).collect();
    let gaps: BTreeSet<&str> = missing.iter().copied().chain(not_emulated.iter().map(|(n, _)| *n)).collect();
    let (memory_gaps, other_gaps): (Vec<&str>, Vec<&str>) = gaps.into_iter().partition(|n| memory.contains(n));
    assert!(
        other_gaps.is_empty(),
        "not exported, or not emulated though host memory emulates its family: {other_gaps:?}"
    );
    assert!(
        memory_gaps.is_empty(),
        "{} memory functions are missing or not emulated: {memory_gaps:?}",
        memory_gaps.len()
    );
    assert!(
        c.undeclared_unsupported.is_empty(),
        "unsupported exports the list does not declare: {:?}",
        c.undeclared_unsupported
    );
}
