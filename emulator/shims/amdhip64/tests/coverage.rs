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

/// The functions of [`EMULATED_FAMILIES`] that are exported but not
/// emulated, each with why; the test fails when one more, or one fewer, is.
/// The symbol functions need a loaded code object (a symbol is a device
/// variable of one), so they are device code; the 7.1 batch copies (lists of
/// copies with per-copy attributes) are not emulated yet.
const NOT_EMULATED: &[(&str, Status)] = &[
    ("hipGetSymbolAddress", Status::DeviceCode),
    ("hipGetSymbolSize", Status::DeviceCode),
    ("hipMemcpy3DBatchAsync", Status::NotYet),
    ("hipMemcpyBatchAsync", Status::NotYet),
    ("hipMemcpyFromSymbol", Status::DeviceCode),
    ("hipMemcpyFromSymbolAsync", Status::DeviceCode),
    ("hipMemcpyFromSymbolAsync_spt", Status::DeviceCode),
    ("hipMemcpyFromSymbol_spt", Status::DeviceCode),
    ("hipMemcpyToSymbol", Status::DeviceCode),
    ("hipMemcpyToSymbolAsync", Status::DeviceCode),
    ("hipMemcpyToSymbolAsync_spt", Status::DeviceCode),
    ("hipMemcpyToSymbol_spt", Status::DeviceCode),
    ("hipModuleGetGlobal", Status::DeviceCode),
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
    assert!(missing.is_empty(), "declared but not exported: {missing:?}");
    let not_emulated: Vec<(&str, Status)> = c
        .functions
        .iter()
        .filter(|f| EMULATED_FAMILIES.contains(&f.family.as_str()) && f.status != Status::Emulated)
        .filter(|f| !f.name.starts_with("hipGraph"))
        .map(|f| (f.name.as_str(), f.status))
        .collect();
    assert_eq!(
        not_emulated, NOT_EMULATED,
        "the functions of the families host memory emulates that are not emulated, and the justified list, differ"
    );
    // Exports the header does not declare are those of the real library's
    // export list (`docs/api/hip-exports.tsv`, from Debian's packages).
    let library =
        std::fs::read_to_string(common::repo_root().join("docs/api/hip-exports.tsv")).expect("hip-exports.tsv");
    let library: Vec<&str> =
        library.lines().filter(|l| !l.starts_with('#')).filter_map(|l| l.split('\t').next()).collect();
    let undeclared: Vec<&String> = c.undeclared_unsupported.iter().filter(|n| !library.contains(&n.as_str())).collect();
    assert!(
        undeclared.is_empty(),
        "unsupported exports neither the header nor the real library declares: {undeclared:?}"
    );
}
