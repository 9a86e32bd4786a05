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

/// The families whose every function vmmkit emulates, but for
/// [`DEVICE_CODE_EXCEPTIONS`] and [`NOT_YET_EXCEPTIONS`].
const EMULATED_FAMILIES: &[&str] = &["memory", "device", "context", "stream", "event"];

/// Functions of [`EMULATED_FAMILIES`] in `DEVICE_CODE`, each with why: the
/// test fails when one is emulated, or when another is listed so.
const DEVICE_CODE_EXCEPTIONS: &[(&str, &str)] = &[
    // A symbol is a variable of a loaded device binary (aclrtGetSymbolAddress, kernel.cpp).
    ("aclrtMemcpyFromSymbol", "reads a variable of a loaded device binary"),
    ("aclrtMemcpyFromSymbolAsync", "reads a variable of a loaded device binary"),
    ("aclrtMemcpyToSymbol", "writes a variable of a loaded device binary"),
    ("aclrtMemcpyToSymbolAsync", "writes a variable of a loaded device binary"),
    // The cached information belongs to the last kernel task (kernel.cpp:692-714).
    ("aclrtCacheLastTaskOpInfo", "attaches operator information to the last kernel task"),
    ("aclrtCacheLastTaskExtendInfo", "attaches extended information to the last kernel task"),
];

/// Counting notifies: the standard-SoC runtime answers 207000 for all of
/// them (ApiImpl::CntNotify*, src/runtime/api/impl/api_impl_standard_soc.cc:55-110);
/// only the Ascend 950 runtime implements them (ApiImplDavid, api_impl_david.cc:1020).
const CNT_NOTIFY: &str = "counting notifies exist on the Ascend 950 runtime only; the standard SoC's answers 207000";

/// Process snapshots: a chip feature (RT_FEATURE_DFX_PROCESS_SNAPSHOT,
/// src/runtime/api/api_c_snapshot.cc:21-33) that checkpoints the driver's device state.
const SNAPSHOT: &str = "process snapshots checkpoint the driver's device state, which the emulator has no model of";

/// Functions of [`EMULATED_FAMILIES`] in `NOT_YET`, each with why: the test
/// fails when one is emulated, or when another is listed so.
const NOT_YET_EXCEPTIONS: &[(&str, &str)] = &[
    ("aclrtCntNotifyCreate", CNT_NOTIFY),
    ("aclrtCntNotifyDestroy", CNT_NOTIFY),
    ("aclrtCntNotifyGetId", CNT_NOTIFY),
    ("aclrtCntNotifyRecord", CNT_NOTIFY),
    ("aclrtCntNotifyReset", CNT_NOTIFY),
    ("aclrtCntNotifyWaitWithTimeout", CNT_NOTIFY),
    (
        "aclrtRepairError",
        "repairs a device fault (a memory UCE, an AI-core error; event.cpp:413-442) the emulator never raises",
    ),
    ("aclrtSnapShotCallbackRegister", SNAPSHOT),
    ("aclrtSnapShotCallbackUnregister", SNAPSHOT),
    ("aclrtSnapShotProcessBackup", SNAPSHOT),
    ("aclrtSnapShotProcessLock", SNAPSHOT),
    ("aclrtSnapShotProcessRestore", SNAPSHOT),
    ("aclrtSnapShotProcessUnlock", SNAPSHOT),
];

fn coverage() -> Coverage {
    let repo = common::crate_dir().join("../../..");
    let list = coverage::read_list(&repo.join("docs/api/acl.tsv")).expect("docs/api/acl.tsv");
    let exported = coverage::exported(common::library());
    Coverage::new("ACL", list, &exported, ascendcl::DEVICE_CODE, ascendcl::NOT_YET)
}

/// Names of `c`'s functions with `status` in [`EMULATED_FAMILIES`], sorted.
fn unemulated(c: &Coverage, status: Status) -> Vec<String> {
    let mut v: Vec<String> = c
        .with(status)
        .into_iter()
        .filter(|f| EMULATED_FAMILIES.contains(&f.family.as_str()))
        .map(|f| f.name.clone())
        .collect();
    v.sort();
    v
}

/// The names of an exception list, sorted.
fn sorted(list: &[(&str, &str)]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|(n, _)| n.to_string()).collect();
    v.sort();
    v
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
    assert_eq!(unemulated(&c, Status::Missing), Vec::<String>::new(), "missing in {EMULATED_FAMILIES:?}");
    assert_eq!(
        unemulated(&c, Status::DeviceCode),
        sorted(DEVICE_CODE_EXCEPTIONS),
        "device code in {EMULATED_FAMILIES:?} must be exactly DEVICE_CODE_EXCEPTIONS"
    );
    assert_eq!(
        unemulated(&c, Status::NotYet),
        sorted(NOT_YET_EXCEPTIONS),
        "not emulated in {EMULATED_FAMILIES:?} must be exactly NOT_YET_EXCEPTIONS"
    );
}

/// Only the families that need device code are listed as such, and the
/// justified [`DEVICE_CODE_EXCEPTIONS`].
#[test]
fn device_code_is_only_claimed_for_device_code_and_graph_functions() {
    let c = coverage();
    let wrong: Vec<String> = c
        .with(Status::DeviceCode)
        .into_iter()
        .filter(|f| !["device code", "graph"].contains(&f.family.as_str()))
        .filter(|f| !DEVICE_CODE_EXCEPTIONS.iter().any(|(n, _)| *n == f.name))
        .map(|f| format!("{} ({})", f.name, f.family))
        .collect();
    assert!(wrong.is_empty(), "listed as device code outside those families: {wrong:?}");
}
