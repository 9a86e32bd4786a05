//! The catalog's shape, vendor by vendor: the ids against the references'
//! lists, one group per API family, complete entries, valid equivalents.
//! Running the rules is `tests/rules.rs`.
//!
//! The ACL list is the reference's rule ids (shared/reference/acl.md §4,
//! 151 ids), the combined cases of §5 (`ACL-ORD-*`) and the sample flows of
//! §7 (`ACL-FLOW-*`), then the rules later waves took from the vendors'
//! source (IPC by key, V2, retain, queries); the CUDA list is
//! cuda.md §3 and the later waves' rules (copies, fork, pools); the HIP list
//! is hip.md §4. All are checked in because shared/ is not beside every
//! checkout. A test asserts that the catalog holds each exactly once (or
//! says why not); for ACL and CUDA, also nothing else.
//!
//! The project's own HIP-INIT rules (contexts, limits, reset, valid and
//! visible devices) are numbered from HIP-INIT-005 on, after the
//! reference's four, so that an id means one rule in both.

use std::collections::HashSet;

use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::{Confidence, Dialect, Expect, Rule, is_valid_id};

/// Every ACL id the catalog must hold.
const ACL_REFERENCE_IDS: &[&str] = &[
    "ACL-GEN-001",
    "ACL-GEN-002",
    "ACL-GEN-003",
    "ACL-GEN-004",
    "ACL-GEN-005",
    "ACL-GEN-006",
    "ACL-GEN-007",
    "ACL-GEN-008",
    "ACL-GEN-009",
    "ACL-GEN-010",
    "ACL-GEN-011",
    "ACL-GEN-012",
    "ACL-GRAN-001",
    "ACL-GRAN-002",
    "ACL-GRAN-003",
    "ACL-GRAN-004",
    "ACL-GRAN-005",
    "ACL-GRAN-006",
    "ACL-GRAN-007",
    "ACL-GRAN-008",
    "ACL-GRAN-009",
    "ACL-GRAN-010",
    "ACL-MP-001",
    "ACL-MP-002",
    "ACL-MP-003",
    "ACL-MP-004",
    "ACL-MP-005",
    "ACL-MP-006",
    "ACL-MP-007",
    "ACL-MP-008",
    "ACL-MP-009",
    "ACL-MP-010",
    "ACL-MP-011",
    "ACL-MP-012",
    "ACL-MP-013",
    "ACL-MP-014",
    "ACL-MP-015",
    "ACL-MP-016",
    "ACL-MP-017",
    "ACL-FP-001",
    "ACL-FP-002",
    "ACL-FP-003",
    "ACL-FP-004",
    "ACL-FP-005",
    "ACL-RSV-001",
    "ACL-RSV-002",
    "ACL-RSV-003",
    "ACL-RSV-004",
    "ACL-RSV-005",
    "ACL-RSV-006",
    "ACL-RSV-007",
    "ACL-RSV-008",
    "ACL-RSV-009",
    "ACL-RSV-010",
    "ACL-RSV-011",
    "ACL-RSV-012",
    "ACL-RSV-013",
    "ACL-REL-001",
    "ACL-REL-002",
    "ACL-REL-003",
    "ACL-REL-004",
    "ACL-MAP-001",
    "ACL-MAP-002",
    "ACL-MAP-003",
    "ACL-MAP-004",
    "ACL-MAP-005",
    "ACL-MAP-006",
    "ACL-MAP-007",
    "ACL-MAP-008",
    "ACL-MAP-009",
    "ACL-MAP-010",
    "ACL-MAP-011",
    "ACL-MAP-012",
    "ACL-MAP-013",
    "ACL-MAP-014",
    "ACL-MAP-015",
    "ACL-MAP-016",
    "ACL-UNMAP-001",
    "ACL-UNMAP-002",
    "ACL-UNMAP-003",
    "ACL-ACC-001",
    "ACL-ACC-002",
    "ACL-ACC-003",
    "ACL-ACC-004",
    "ACL-ACC-005",
    "ACL-ACC-006",
    "ACL-ACC-007",
    "ACL-ACC-008",
    "ACL-ACC-009",
    "ACL-ACC-010",
    "ACL-EXP-001",
    "ACL-EXP-002",
    "ACL-EXP-003",
    "ACL-EXP-004",
    "ACL-EXP-005",
    "ACL-EXP-006",
    "ACL-EXP-007",
    "ACL-EXP-008",
    "ACL-EXP-009",
    "ACL-EXP-010",
    "ACL-EXP-011",
    "ACL-EXP-012",
    "ACL-PID-001",
    "ACL-PID-002",
    "ACL-PID-003",
    "ACL-PID-004",
    "ACL-PID-005",
    "ACL-PID-006",
    "ACL-PID-007",
    "ACL-PID-008",
    "ACL-PID-009",
    "ACL-PID-010",
    "ACL-PID-011",
    "ACL-PID-012",
    "ACL-IMP-001",
    "ACL-IMP-002",
    "ACL-IMP-003",
    "ACL-IMP-004",
    "ACL-IMP-005",
    "ACL-IMP-006",
    "ACL-IMP-007",
    "ACL-IMP-008",
    "ACL-IMP-009",
    "ACL-IMP-010",
    "ACL-IMP-011",
    "ACL-IMP-012",
    "ACL-IMP-013",
    "ACL-IMP-014",
    "ACL-IMP-015",
    "ACL-IMP-016",
    "ACL-IMP-017",
    "ACL-IMP-018",
    "ACL-IMP-019",
    "ACL-IMP-020",
    "ACL-IMP-021",
    "ACL-LIFE-001",
    "ACL-LIFE-002",
    "ACL-LIFE-003",
    "ACL-LIFE-004",
    "ACL-LIFE-005",
    "ACL-PEER-001",
    "ACL-PEER-002",
    "ACL-PEER-003",
    "ACL-PEER-004",
    "ACL-PEER-005",
    "ACL-PEER-006",
    "ACL-PEER-007",
    "ACL-TGID-001",
    "ACL-TGID-002",
    "ACL-CPY-001",
    "ACL-CPY-002",
    "ACL-CPY-003",
    "ACL-CPY-004",
    "ACL-CPY-005",
    // Copies check their kind: the emulator's rules, not acl.md's.
    "ACL-CPY-006",
    "ACL-CPY-007",
    "ACL-FORK-001",
    "ACL-RET-001",
    "ACL-RET-002",
    "ACL-ORD-001",
    "ACL-ORD-002",
    "ACL-ORD-003",
    "ACL-ORD-004",
    "ACL-FLOW-001",
    "ACL-FLOW-002",
    "ACL-FLOW-003",
    // IPC by key: rules from the vendor's source, docs/audit/acl-ipc-key.md.
    "ACL-IPK-001",
    "ACL-IPK-002",
    "ACL-IPK-003",
    "ACL-IPK-004",
    "ACL-IPK-005",
    "ACL-IPK-006",
    "ACL-IPK-007",
    "ACL-IPK-008",
    "ACL-IPK-009",
    "ACL-IPK-010",
    "ACL-IPK-011",
    "ACL-IPK-012",
    "ACL-IPK-013",
    "ACL-IPK-014",
    "ACL-IPK-015",
    "ACL-IPK-016",
    // V2 and fabric handles, retain, address queries.
    "ACL-SHV-001",
    "ACL-SHV-002",
    "ACL-SHV-003",
    "ACL-SHV-004",
    "ACL-SHV-005",
    "ACL-SHV-006",
    "ACL-RET-003",
    "ACL-RET-004",
    "ACL-RET-005",
    "ACL-RET-006",
    "ACL-QRY-001",
    "ACL-QRY-002",
    "ACL-QRY-003",
    "ACL-STM-001",
    "ACL-STM-002",
    "ACL-STM-003",
    "ACL-STM-004",
    "ACL-STM-005",
    "ACL-STM-006",
    "ACL-STM-007",
    "ACL-STM-008",
    "ACL-EVT-001",
    "ACL-EVT-002",
    "ACL-EVT-003",
    "ACL-EVT-004",
    "ACL-EVT-005",
    "ACL-EVT-006",
    "ACL-EVT-007",
    "ACL-EVT-008",
    "ACL-NTF-001",
    "ACL-NTF-002",
    "ACL-NTF-003",
    "ACL-NTF-004",
    "ACL-NTF-005",
    "ACL-NTF-006",
    "ACL-NTF-007",
    "ACL-NTF-008",
    "ACL-NTF-009",
    "ACL-IEV-001",
    "ACL-IEV-002",
    "ACL-IEV-003",
    "ACL-IEV-004",
    "ACL-IEV-005",
    "ACL-VAL-001",
    "ACL-VAL-002",
    // Memory.
    "ACL-IPK-017",
    "ACL-REG-001",
    "ACL-REG-002",
    "ACL-FILL-001",
    // Model capture (docs/audit/acl-model.md).
    "ACL-MRI-001",
    "ACL-MRI-002",
    "ACL-MRI-003",
    "ACL-MRI-004",
    "ACL-MRI-005",
    "ACL-MRI-006",
    "ACL-MRI-007",
    "ACL-MRI-008",
    "ACL-MRI-009",
    "ACL-MRI-010",
    "ACL-MRI-011",
    "ACL-MRI-012",
    "ACL-MRI-013",
    "ACL-MRI-014",
    "ACL-MRI-015",
    "ACL-MRI-016",
    "ACL-MRI-017",
    "ACL-MRI-018",
];

/// Every id of cuda.md §3.
const CUDA_REFERENCE_IDS: &[&str] = &[
    "CUDA-GEN-001",
    "CUDA-GEN-002",
    "CUDA-GEN-003",
    "CUDA-GEN-004",
    "CUDA-IPC-001",
    "CUDA-IPC-002",
    "CUDA-IPC-003",
    "CUDA-IPC-004",
    "CUDA-IPC-005",
    "CUDA-IPC-006",
    "CUDA-IPC-007",
    "CUDA-IPC-008",
    "CUDA-IPC-009",
    "CUDA-IPC-010",
    "CUDA-IPC-011",
    "CUDA-VMM-001",
    "CUDA-VMM-002",
    "CUDA-VMM-003",
    "CUDA-VMM-004",
    "CUDA-VMM-005",
    "CUDA-VMM-006",
    "CUDA-VMM-007",
    "CUDA-VMM-008",
    "CUDA-VMM-009",
    "CUDA-VMM-010",
    "CUDA-VMM-011",
    "CUDA-VMM-012",
    "CUDA-VMM-013",
    "CUDA-VMM-014",
    "CUDA-VMM-015",
    "CUDA-VMM-016",
    "CUDA-VMM-017",
    "CUDA-VMM-018",
    "CUDA-VMM-019",
    "CUDA-VMM-020",
    // Copies check their kind: the emulator's rule, not cuda.md's.
    "CUDA-CPY-001",
    "CUDA-FORK-001",
    // Memory-pool rules from the CUDA driver API docs (docs/cuda.md, "Memory pools").
    "CUDA-POOL-001",
    "CUDA-POOL-002",
    "CUDA-POOL-003",
    "CUDA-POOL-004",
    "CUDA-POOL-005",
    "CUDA-POOL-006",
    "CUDA-POOL-007",
    "CUDA-POOL-008",
    "CUDA-POOL-009",
    "CUDA-POOL-010",
    "CUDA-POOL-011",
    "CUDA-POOL-012",
    "CUDA-POOL-013",
    // Streams, events and IPC events.
    "CUDA-STM-001",
    "CUDA-STM-002",
    "CUDA-STM-003",
    "CUDA-STM-004",
    "CUDA-STM-005",
    "CUDA-STM-006",
    "CUDA-STM-007",
    "CUDA-STM-008",
    "CUDA-STM-009",
    "CUDA-STM-010",
    "CUDA-STM-011",
    "CUDA-STM-012",
    "CUDA-STM-013",
    "CUDA-EVT-001",
    "CUDA-EVT-002",
    "CUDA-EVT-003",
    "CUDA-EVT-004",
    "CUDA-EVT-005",
    "CUDA-EVT-006",
    "CUDA-IEV-001",
    "CUDA-IEV-002",
    "CUDA-IEV-003",
    // Graphs and stream capture.
    "CUDA-GRF-001",
    "CUDA-GRF-002",
    "CUDA-GRF-003",
    "CUDA-GRF-004",
    "CUDA-GRF-005",
    "CUDA-GRF-006",
];

/// Rules of cuda.md §3 the catalog does not hold, with why (a word of it is
/// checked against the catalog module's docs).
const NOT_CATALOGUED: &[(&str, &str)] = &[("CUDA-IPC-007", "second context"), ("CUDA-VMM-014", "test writers")];

/// The suite's rules of one dialect.
fn rules_of(dialect: Dialect) -> Vec<&'static Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == dialect).collect()
}

fn acl_rules() -> Vec<&'static Rule> {
    rules_of(Dialect::Acl)
}

fn hip_rules() -> Vec<&'static Rule> {
    rules_of(Dialect::Hip)
}

fn cuda_rules() -> Vec<&'static Rule> {
    rules_of(Dialect::Cuda)
}

#[test]
fn acl_catalog_holds_every_reference_id_exactly_once() {
    let rules = acl_rules();
    let mut missing = Vec::new();
    for id in ACL_REFERENCE_IDS {
        match rules.iter().filter(|r| r.id.as_str() == *id).count() {
            1 => {}
            0 => missing.push(*id),
            n => panic!("{id} is in the catalog {n} times"),
        }
    }
    assert!(missing.is_empty(), "rules of the reference missing from the catalog: {missing:?}");
    let reference: HashSet<&str> = ACL_REFERENCE_IDS.iter().copied().collect();
    let extra: Vec<&str> = rules.iter().map(|r| r.id.as_str()).filter(|id| !reference.contains(id)).collect();
    assert!(extra.is_empty(), "catalog rules that are not in the reference list: {extra:?}");
    assert_eq!(ACL_REFERENCE_IDS.len(), 249);
    assert_eq!(ACL_REFERENCE_IDS.iter().filter(|id| !id.contains("-ORD-") && !id.contains("-FLOW-")).count(), 242);
    assert_eq!(rules.len(), ACL_REFERENCE_IDS.len());
}

#[test]
fn every_acl_rule_is_complete() {
    for r in acl_rules() {
        let id = r.id.as_str();
        assert!(is_valid_id(id), "{id}");
        assert_eq!(r.dialect, Dialect::Acl, "{id}");
        let family = id.split('-').nth(1).unwrap_or_default();
        assert!(r.group.starts_with("acl.") && !r.group.contains(' '), "{id}: group {}", r.group);
        assert!(!r.text.is_empty() && r.text.ends_with('.'), "{id}: one sentence ending with a period");
        assert!(!r.apis.is_empty() && r.apis.iter().all(|a| a.starts_with("acl")), "{id}: apis");
        assert!(!r.confidence.is_empty(), "{id}: confidence");
        let undetermined = r.confidence.contains(&Confidence::Undetermined);
        assert!(!r.sources.is_empty() || undetermined, "{id}: a source, unless undetermined");
        if let Expect::Codes(c) = r.expect {
            assert!(!c.is_empty(), "{id}: at least one code");
        }
        // One group per API family: the same family never spans two groups.
        for other in acl_rules() {
            if other.id.as_str().split('-').nth(1) == Some(family) {
                assert_eq!(other.group, r.group, "{id} and {} are one family", other.id);
            }
        }
    }
}

#[test]
fn doc_vs_source_rules_carry_the_note() {
    // D1, D2, D3 of the reference's §6.
    for id in ["ACL-IMP-009", "ACL-IMP-010", "ACL-IMP-014", "ACL-IMP-016"] {
        let r = Catalog::Suite.find(id).unwrap();
        assert!(r.note.is_some_and(|n| n.contains("doc-vs-source")), "{id}: {:?}", r.note);
    }
}

#[test]
fn rules_the_mutation_test_covers_have_error_codes() {
    let n = acl_rules().iter().filter(|r| r.expect.has_error_code()).count();
    assert!(n > 100, "only {n} rules expect an error code");
}

#[test]
fn every_hip_rule_is_complete() {
    let rules = hip_rules();
    assert!(rules.len() >= 39, "{} HIP rules", rules.len());
    for r in &rules {
        let id = r.id.as_str();
        assert!(is_valid_id(id) && id.starts_with("HIP-"), "{id}");
        let family = id.split('-').nth(1).unwrap_or_default().to_ascii_lowercase();
        assert_eq!(r.group, format!("hip.{family}"), "{id}: one group per family");
        assert!(!r.text.is_empty() && r.text.ends_with('.'), "{id}: one sentence ending with a period");
        assert!(!r.apis.is_empty() && r.apis.iter().all(|a| a.starts_with("hip")), "{id}: apis");
        assert!(!r.confidence.is_empty() && !r.sources.is_empty(), "{id}: confidence and sources");
        if let Expect::Codes(c) = r.expect {
            assert!(!c.is_empty(), "{id}: at least one code");
        }
        for e in r.equivalents.iter().map(|e| e.id.as_str()) {
            let other = Catalog::Suite.find(e).unwrap_or_else(|| panic!("{id}: equivalent {e} is not in the catalog"));
            assert_eq!(other.dialect, Dialect::Acl, "{id}: equivalent {e} is an ACL rule");
        }
    }
}

#[test]
fn cuda_catalog_holds_every_reference_id_once_or_says_why_not() {
    let rules = cuda_rules();
    let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    for id in CUDA_REFERENCE_IDS {
        let n = ids.iter().filter(|i| *i == id).count();
        let skipped = NOT_CATALOGUED.iter().any(|(i, _)| i == id);
        assert!(n == 1 || (n == 0 && skipped), "{id}: catalogued {n} times");
    }
    let reference: HashSet<&str> = CUDA_REFERENCE_IDS.iter().copied().collect();
    for id in &ids {
        assert!(reference.contains(id), "{id} is neither a rule of cuda.md §3 nor of wave 2");
    }
    assert_eq!(ids.len() + NOT_CATALOGUED.len(), CUDA_REFERENCE_IDS.len());
    let docs = include_str!("../../sys/src/cuda/rules.rs");
    for (id, why) in NOT_CATALOGUED {
        assert!(docs.contains(id) && docs.contains(why), "the catalog's docs say why {id} is not there ({why})");
    }
}

/// Every rule id of hip.md §4 (checked in: shared/ is not beside every
/// checkout). The catalog's other HIP families (copies, pools, streams,
/// events, graphs, memory) and HIP-INIT-005 on are the later waves'.
const HIP_REFERENCE_IDS: &[&str] = &[
    "HIP-INIT-001",
    "HIP-INIT-002",
    "HIP-INIT-003",
    "HIP-INIT-004",
    "HIP-IPC-001",
    "HIP-IPC-002",
    "HIP-IPC-003",
    "HIP-IPC-004",
    "HIP-IPC-005",
    "HIP-IPC-006",
    "HIP-IPC-007",
    "HIP-IPC-008",
    "HIP-IPC-009",
    "HIP-IPC-010",
    "HIP-IPC-020",
    "HIP-IPC-021",
    "HIP-IPC-022",
    "HIP-IPC-023",
    "HIP-IPC-024",
    "HIP-IPC-025",
    "HIP-IPC-026",
    "HIP-IPC-027",
    "HIP-IPC-028",
    "HIP-IPC-029",
    "HIP-IPC-030",
    "HIP-IPC-031",
    "HIP-IPC-032",
    "HIP-IPC-040",
    "HIP-IPC-041",
    "HIP-IPC-042",
    "HIP-IPC-043",
    "HIP-IPC-044",
    "HIP-IPC-045",
    "HIP-IPC-046",
    "HIP-IPC-047",
    "HIP-IPC-048",
    "HIP-IPC-049",
    "HIP-VMM-001",
    "HIP-VMM-002",
    "HIP-VMM-003",
    "HIP-VMM-004",
    "HIP-VMM-005",
    "HIP-VMM-006",
    "HIP-VMM-007",
    "HIP-VMM-008",
    "HIP-VMM-009",
    "HIP-VMM-010",
    "HIP-VMM-011",
    "HIP-VMM-012",
    "HIP-VMM-013",
    "HIP-VMM-014",
    "HIP-VMM-015",
    "HIP-VMM-016",
    "HIP-VMM-017",
    "HIP-VMM-018",
    "HIP-VMM-019",
    "HIP-VMM-020",
    "HIP-VMM-021",
    "HIP-VMM-022",
    "HIP-VMM-023",
    "HIP-VMM-024",
    "HIP-VMM-025",
    "HIP-VMM-026",
    "HIP-VMM-027",
    "HIP-VMM-028",
    "HIP-VMM-029",
    "HIP-VMM-030",
    "HIP-VMM-031",
    "HIP-VMM-032",
    "HIP-VMM-033",
];

/// Rules of hip.md §4 the catalog does not hold, with why (a word of it is
/// checked against the HIP rule table's docs, "Not here, and why").
const HIP_NOT_CATALOGUED: &[(&str, &str)] = &[
    ("HIP-INIT-004", "fork before"),
    ("HIP-IPC-030", "hipMemGetAddressRange"),
    ("HIP-IPC-032", "second context"),
    ("HIP-IPC-047", "not asserted"),
    ("HIP-IPC-048", "peers only import"),
    ("HIP-VMM-031", "test writers"),
];

#[test]
fn hip_catalog_holds_every_reference_id_once_or_says_why_not() {
    let ids: Vec<&str> = hip_rules().iter().map(|r| r.id.as_str()).collect();
    assert_eq!(HIP_REFERENCE_IDS.len(), 70, "hip.md §4 has 70 rule ids");
    for id in HIP_REFERENCE_IDS {
        let n = ids.iter().filter(|i| *i == id).count();
        let skipped = HIP_NOT_CATALOGUED.iter().any(|(i, _)| i == id);
        assert!(n == 1 || (n == 0 && skipped), "{id}: catalogued {n} times");
        assert!(!(n == 1 && skipped), "{id} is catalogued and listed as not catalogued");
    }
    for (id, _) in HIP_NOT_CATALOGUED {
        assert!(HIP_REFERENCE_IDS.contains(id), "{id} is not a rule of hip.md §4");
    }
    let in_reference = ids.iter().filter(|id| HIP_REFERENCE_IDS.contains(id)).count();
    assert_eq!(in_reference + HIP_NOT_CATALOGUED.len(), HIP_REFERENCE_IDS.len());
    let docs = include_str!("../../sys/src/hip/rules.rs");
    for (id, why) in HIP_NOT_CATALOGUED {
        assert!(docs.contains(id) && docs.contains(why), "the HIP table's docs say why {id} is not there ({why})");
    }
}

#[test]
fn every_cuda_rule_is_complete_and_names_valid_equivalents() {
    let acl: HashSet<&str> =
        Catalog::Suite.rules().iter().filter(|r| r.dialect == Dialect::Acl).map(|r| r.id.as_str()).collect();
    for r in cuda_rules() {
        let id = r.id.as_str();
        let family = id.split('-').nth(1).unwrap();
        let group = if family == "GEN" { "general".to_string() } else { family.to_lowercase() };
        assert_eq!(r.group, format!("cuda.{group}"), "{id}");
        assert!(!r.text.is_empty() && !r.apis.is_empty() && !r.sources.is_empty(), "{id}");
        assert!(!r.confidence.is_empty(), "{id}");
        if r.confidence.contains(&Confidence::Undetermined) {
            assert!(r.note.is_some_and(|n| n.contains("undetermined")), "{id}: undetermined rules say so");
        }
        for e in r.equivalents.iter().map(|e| e.id.as_str()) {
            assert!(is_valid_id(e) && (e.starts_with("ACL-") || e.starts_with("HIP-")), "{id}: equivalent {e}");
            if e.starts_with("ACL-") {
                assert!(acl.contains(e), "{id}: equivalent {e} is not in the ACL catalog");
            }
        }
    }
}

/// Whether a table function shares memory between processes: an export, an
/// import, legacy IPC, the share trustlist or a retain (each such
/// function is exercised by at least one rule).
fn shares(name: &str) -> bool {
    ["Ipc", "Export", "Import", "RetainAllocationHandle", "SetPidToShareableHandle"]
        .iter()
        .any(|part| name.contains(part))
}

#[test]
fn every_sharing_function_is_in_a_rule() {
    use vmmkit_sys::{acl::AclApi, cuda::CudaApi, hip::HipApi};
    let tables: [(Dialect, &[(&str, &str)]); 3] =
        [(Dialect::Acl, AclApi::FUNCTIONS), (Dialect::Hip, HipApi::FUNCTIONS), (Dialect::Cuda, CudaApi::FUNCTIONS)];
    let mut missing = Vec::new();
    for (dialect, functions) in tables {
        let rules = rules_of(dialect);
        let sharing: Vec<&str> = functions.iter().map(|(name, _)| *name).filter(|name| shares(name)).collect();
        assert!(sharing.len() >= 5, "{dialect:?}: only {sharing:?} look like sharing functions");
        missing.extend(sharing.into_iter().filter(|name| !rules.iter().any(|r| r.apis.contains(name))));
    }
    assert!(missing.is_empty(), "sharing functions that no rule exercises: {missing:?}");
}
