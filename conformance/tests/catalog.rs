//! The ACL catalog against the reference, and every rule run on every
//! backend: one test per rule and backend, so `cargo test` names the rule
//! that broke (`acl_map_003::case_1_emulator`).
//!
//! The list below is the reference's rule ids (shared/reference/acl.md §4,
//! 151 ids), the combined cases of §5 (`ACL-ORD-*`) and the sample flows of
//! §7 (`ACL-FLOW-*`), checked in because shared/ is not beside every
//! checkout. A test asserts that the catalog holds each exactly once, and
//! nothing else.

mod binary;

use std::collections::HashSet;

use rstest::rstest;
use vmmkit_conformance::backend::BackendKind;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::outcome::Outcome;
use vmmkit_conformance::rule::{Confidence, Dialect, Expect, is_valid_id};

/// Rules the emulator cannot exercise, with a word of the reason it must
/// give. Any other not-supported rule on the emulator is a test failure.
const NOT_SUPPORTED_ON_EMULATOR: &[(&str, &str)] = &[
    ("ACL-GEN-009", "compute-group"),
    ("ACL-GEN-010", "chip simulator"),
    ("ACL-EXP-009", "trustlist switch"),
    ("ACL-IMP-018", "release"),
    ("ACL-IMP-020", "bookkeeping"),
    ("ACL-IMP-021", "unreachable through ACL"),
    // Depend on the emulated platform: giant pages, P2P, a server id.
    ("ACL-MP-010", "supports 1 GiB pages"),
    ("ACL-MP-014", "no 1 GiB pages"),
    ("ACL-PEER-006", "can access each other"),
    ("ACL-PEER-007", "no P2P"),
    ("ACL-FLOW-003", "no server id"),
    // Need root in the pid namespace.
    ("ACL-PID-009", "pid steering"),
    ("ACL-PID-010", "ns_last_pid"),
    ("ACL-IMP-012", "ns_last_pid"),
];

/// Emulator defects the suite found, as data (wgpu's expectations): the
/// rule must fail with a `got` containing the text; once it passes, the
/// test fails so that the mark is removed. Details in the report of the
/// suite's issue (emulator findings).
const KNOWN_EMULATOR_DEFECTS: &[(&str, &str, &str)] = &[];

/// The reason every rule gives until the emulator's table exists.
const EMULATOR_NOT_BUILT: &str = "is not built yet";

fn check(id: &str, backend: BackendKind) {
    let rule = Catalog::Suite.find(id).unwrap_or_else(|| panic!("{id} is not in the catalog"));
    let r = binary::run_rule(rule, backend, Catalog::Suite);
    let detail = r.detail.as_deref().unwrap_or("");
    let known = KNOWN_EMULATOR_DEFECTS.iter().find(|(i, _, _)| *i == id && backend == BackendKind::Emulator);
    match &r.outcome {
        Outcome::Pass => {
            if let Some((_, _, why)) = known {
                panic!("{id} passes on the emulator now: remove its KNOWN_EMULATOR_DEFECTS mark ({why})");
            }
        }
        Outcome::Fail { got, .. } if known.is_some_and(|(_, text, _)| got.contains(text)) => {
            eprintln!("known emulator defect: {id}: got {got}: {}", known.map_or("", |k| k.2));
        }
        Outcome::Fail { expected, got } => {
            panic!("{id} on {}: expected {expected}, got {got}\n{detail}", backend.name())
        }
        Outcome::NotSupported(reason) | Outcome::Skipped(reason) => {
            let allowed = backend != BackendKind::Emulator
                || reason.contains(EMULATOR_NOT_BUILT)
                || NOT_SUPPORTED_ON_EMULATOR.iter().any(|(i, word)| *i == id && reason.contains(word));
            assert!(allowed, "{id} is not supported on the emulator, which must run it: {reason}");
            eprintln!("skipped: {id} on {}: {reason}", backend.name());
        }
    }
}

/// The ACL rules of the suite (other vendors' rules live beside them).
fn acl_rules() -> Vec<&'static vmmkit_conformance::rule::Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Acl).collect()
}

macro_rules! reference_rules {
    ($($name:ident => $id:literal,)*) => {
        /// Every id the catalog must hold.
        const REFERENCE_IDS: &[&str] = &[$($id),*];

        $(
            #[rstest]
            #[case::emulator(BackendKind::Emulator)]
            #[case::ascend(BackendKind::Ascend)]
            fn $name(#[case] backend: BackendKind) {
                check($id, backend);
            }
        )*
    };
}

reference_rules! {
    acl_gen_001 => "ACL-GEN-001",
    acl_gen_002 => "ACL-GEN-002",
    acl_gen_003 => "ACL-GEN-003",
    acl_gen_004 => "ACL-GEN-004",
    acl_gen_005 => "ACL-GEN-005",
    acl_gen_006 => "ACL-GEN-006",
    acl_gen_007 => "ACL-GEN-007",
    acl_gen_008 => "ACL-GEN-008",
    acl_gen_009 => "ACL-GEN-009",
    acl_gen_010 => "ACL-GEN-010",
    acl_gran_001 => "ACL-GRAN-001",
    acl_gran_002 => "ACL-GRAN-002",
    acl_gran_003 => "ACL-GRAN-003",
    acl_gran_004 => "ACL-GRAN-004",
    acl_gran_005 => "ACL-GRAN-005",
    acl_gran_006 => "ACL-GRAN-006",
    acl_gran_007 => "ACL-GRAN-007",
    acl_gran_008 => "ACL-GRAN-008",
    acl_gran_009 => "ACL-GRAN-009",
    acl_gran_010 => "ACL-GRAN-010",
    acl_mp_001 => "ACL-MP-001",
    acl_mp_002 => "ACL-MP-002",
    acl_mp_003 => "ACL-MP-003",
    acl_mp_004 => "ACL-MP-004",
    acl_mp_005 => "ACL-MP-005",
    acl_mp_006 => "ACL-MP-006",
    acl_mp_007 => "ACL-MP-007",
    acl_mp_008 => "ACL-MP-008",
    acl_mp_009 => "ACL-MP-009",
    acl_mp_010 => "ACL-MP-010",
    acl_mp_011 => "ACL-MP-011",
    acl_mp_012 => "ACL-MP-012",
    acl_mp_013 => "ACL-MP-013",
    acl_mp_014 => "ACL-MP-014",
    acl_mp_015 => "ACL-MP-015",
    acl_mp_016 => "ACL-MP-016",
    acl_mp_017 => "ACL-MP-017",
    acl_fp_001 => "ACL-FP-001",
    acl_fp_002 => "ACL-FP-002",
    acl_fp_003 => "ACL-FP-003",
    acl_fp_004 => "ACL-FP-004",
    acl_fp_005 => "ACL-FP-005",
    acl_rsv_001 => "ACL-RSV-001",
    acl_rsv_002 => "ACL-RSV-002",
    acl_rsv_003 => "ACL-RSV-003",
    acl_rsv_004 => "ACL-RSV-004",
    acl_rsv_005 => "ACL-RSV-005",
    acl_rsv_006 => "ACL-RSV-006",
    acl_rsv_007 => "ACL-RSV-007",
    acl_rsv_008 => "ACL-RSV-008",
    acl_rsv_009 => "ACL-RSV-009",
    acl_rsv_010 => "ACL-RSV-010",
    acl_rel_001 => "ACL-REL-001",
    acl_rel_002 => "ACL-REL-002",
    acl_rel_003 => "ACL-REL-003",
    acl_rel_004 => "ACL-REL-004",
    acl_map_001 => "ACL-MAP-001",
    acl_map_002 => "ACL-MAP-002",
    acl_map_003 => "ACL-MAP-003",
    acl_map_004 => "ACL-MAP-004",
    acl_map_005 => "ACL-MAP-005",
    acl_map_006 => "ACL-MAP-006",
    acl_map_007 => "ACL-MAP-007",
    acl_map_008 => "ACL-MAP-008",
    acl_map_009 => "ACL-MAP-009",
    acl_map_010 => "ACL-MAP-010",
    acl_map_011 => "ACL-MAP-011",
    acl_map_012 => "ACL-MAP-012",
    acl_map_013 => "ACL-MAP-013",
    acl_map_014 => "ACL-MAP-014",
    acl_map_015 => "ACL-MAP-015",
    acl_map_016 => "ACL-MAP-016",
    acl_unmap_001 => "ACL-UNMAP-001",
    acl_unmap_002 => "ACL-UNMAP-002",
    acl_unmap_003 => "ACL-UNMAP-003",
    acl_acc_001 => "ACL-ACC-001",
    acl_acc_002 => "ACL-ACC-002",
    acl_acc_003 => "ACL-ACC-003",
    acl_acc_004 => "ACL-ACC-004",
    acl_acc_005 => "ACL-ACC-005",
    acl_acc_006 => "ACL-ACC-006",
    acl_acc_007 => "ACL-ACC-007",
    acl_acc_008 => "ACL-ACC-008",
    acl_acc_009 => "ACL-ACC-009",
    acl_acc_010 => "ACL-ACC-010",
    acl_exp_001 => "ACL-EXP-001",
    acl_exp_002 => "ACL-EXP-002",
    acl_exp_003 => "ACL-EXP-003",
    acl_exp_004 => "ACL-EXP-004",
    acl_exp_005 => "ACL-EXP-005",
    acl_exp_006 => "ACL-EXP-006",
    acl_exp_007 => "ACL-EXP-007",
    acl_exp_008 => "ACL-EXP-008",
    acl_exp_009 => "ACL-EXP-009",
    acl_exp_010 => "ACL-EXP-010",
    acl_exp_011 => "ACL-EXP-011",
    acl_exp_012 => "ACL-EXP-012",
    acl_pid_001 => "ACL-PID-001",
    acl_pid_002 => "ACL-PID-002",
    acl_pid_003 => "ACL-PID-003",
    acl_pid_004 => "ACL-PID-004",
    acl_pid_005 => "ACL-PID-005",
    acl_pid_006 => "ACL-PID-006",
    acl_pid_007 => "ACL-PID-007",
    acl_pid_008 => "ACL-PID-008",
    acl_pid_009 => "ACL-PID-009",
    acl_pid_010 => "ACL-PID-010",
    acl_pid_011 => "ACL-PID-011",
    acl_pid_012 => "ACL-PID-012",
    acl_imp_001 => "ACL-IMP-001",
    acl_imp_002 => "ACL-IMP-002",
    acl_imp_003 => "ACL-IMP-003",
    acl_imp_004 => "ACL-IMP-004",
    acl_imp_005 => "ACL-IMP-005",
    acl_imp_006 => "ACL-IMP-006",
    acl_imp_007 => "ACL-IMP-007",
    acl_imp_008 => "ACL-IMP-008",
    acl_imp_009 => "ACL-IMP-009",
    acl_imp_010 => "ACL-IMP-010",
    acl_imp_011 => "ACL-IMP-011",
    acl_imp_012 => "ACL-IMP-012",
    acl_imp_013 => "ACL-IMP-013",
    acl_imp_014 => "ACL-IMP-014",
    acl_imp_015 => "ACL-IMP-015",
    acl_imp_016 => "ACL-IMP-016",
    acl_imp_017 => "ACL-IMP-017",
    acl_imp_018 => "ACL-IMP-018",
    acl_imp_019 => "ACL-IMP-019",
    acl_imp_020 => "ACL-IMP-020",
    acl_imp_021 => "ACL-IMP-021",
    acl_life_001 => "ACL-LIFE-001",
    acl_life_002 => "ACL-LIFE-002",
    acl_life_003 => "ACL-LIFE-003",
    acl_life_004 => "ACL-LIFE-004",
    acl_life_005 => "ACL-LIFE-005",
    acl_peer_001 => "ACL-PEER-001",
    acl_peer_002 => "ACL-PEER-002",
    acl_peer_003 => "ACL-PEER-003",
    acl_peer_004 => "ACL-PEER-004",
    acl_peer_005 => "ACL-PEER-005",
    acl_peer_006 => "ACL-PEER-006",
    acl_peer_007 => "ACL-PEER-007",
    acl_tgid_001 => "ACL-TGID-001",
    acl_tgid_002 => "ACL-TGID-002",
    acl_cpy_001 => "ACL-CPY-001",
    acl_cpy_002 => "ACL-CPY-002",
    acl_cpy_003 => "ACL-CPY-003",
    acl_cpy_004 => "ACL-CPY-004",
    acl_cpy_005 => "ACL-CPY-005",
    acl_ret_001 => "ACL-RET-001",
    acl_ret_002 => "ACL-RET-002",
    acl_ord_001 => "ACL-ORD-001",
    acl_ord_002 => "ACL-ORD-002",
    acl_ord_003 => "ACL-ORD-003",
    acl_ord_004 => "ACL-ORD-004",
    acl_flow_001 => "ACL-FLOW-001",
    acl_flow_002 => "ACL-FLOW-002",
    acl_flow_003 => "ACL-FLOW-003",
}

#[test]
fn catalog_holds_every_reference_id_exactly_once() {
    let rules = acl_rules();
    let mut missing = Vec::new();
    for id in REFERENCE_IDS {
        match rules.iter().filter(|r| r.id.as_str() == *id).count() {
            1 => {}
            0 => missing.push(*id),
            n => panic!("{id} is in the catalog {n} times"),
        }
    }
    assert!(missing.is_empty(), "rules of the reference missing from the catalog: {missing:?}");
    let reference: HashSet<&str> = REFERENCE_IDS.iter().copied().collect();
    let extra: Vec<&str> = rules.iter().map(|r| r.id.as_str()).filter(|id| !reference.contains(id)).collect();
    assert!(extra.is_empty(), "catalog rules that are not in the reference list: {extra:?}");
    assert_eq!(REFERENCE_IDS.len(), 158);
    assert_eq!(REFERENCE_IDS.iter().filter(|id| !id.contains("-ORD-") && !id.contains("-FLOW-")).count(), 151);
    assert_eq!(rules.len(), REFERENCE_IDS.len());
}

#[test]
fn every_rule_is_complete() {
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
