//! The ACL catalog passes on the emulator under each Ascend chip profile
//! (`VMMKIT_SOC`): A3 (`Ascend910_9391`, the default) and 910B
//! (`Ascend910B1`), every rule judged by the expectation of the profile of
//! the SoC name the backend reports (`Rule::expect_in`). A rule that needs a
//! profile (`Need::Profile`: FABRIC handles, the NoUCMemory dynamic window)
//! is not-supported under the other; the rest of the not-supported ones
//! need what no emulated machine offers, under either chip.

mod binary;

use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::Dialect;
use vmmkit_sys::acl::Chip;
use vmmkit_sys::rule::Need;
use vmmkit_testkit::TestRoot;

/// The rules no emulated machine can provoke, under either chip (each check says why).
const NOT_SUPPORTED: &[&str] = &[
    "ACL-GEN-009",
    "ACL-GEN-010",
    "ACL-MP-010",
    "ACL-EXP-009",
    "ACL-IMP-018",
    "ACL-IMP-020",
    "ACL-IMP-021",
    "ACL-PEER-006",
];

/// `(id, outcome, got or reason)` of every ACL rule run with `VMMKIT_SOC=soc`.
fn run_acl(soc: &str) -> Vec<(String, String, String)> {
    let dir = TestRoot::new("vmmkit-acl-profile-").expect("temp root");
    let root = dir.path().to_str().expect("UTF-8 root").to_string();
    // Debug builds under load: ACL-IPK-006 sets 32,768 pids.
    let o = binary::conformance_env(
        &["--backend", "emulator", "--format", "json", "--timeout", "120", "--filter", "ACL-*"],
        &[("VMMKIT_SOC", soc), ("VMMKIT_ROOT", &root)],
    );
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{soc}: JSON: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    v["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| {
            let text = r["got"].as_str().or(r["reason"].as_str()).unwrap_or_default();
            (r["id"].as_str().unwrap_or_default().into(), r["outcome"].as_str().unwrap_or_default().into(), text.into())
        })
        .collect()
}

fn every_acl_rule_passes(soc: &str) {
    let (chip, _) = Chip::parse(soc).expect("a known SoC");
    let results = run_acl(soc);
    let rules: Vec<_> = Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Acl).collect();
    let want: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    let ran: Vec<&str> = results.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ran, want, "{soc}: every ACL rule runs, in the catalog's order");
    let other_chip = |id: &str| {
        rules
            .iter()
            .find(|r| r.id.as_str() == id)
            .is_some_and(|r| r.requires.iter().any(|n| matches!(n, Need::Profile(p) if *p != chip.profile())))
    };
    let bad: Vec<String> = results
        .iter()
        .filter(|(id, outcome, _)| {
            let ns = NOT_SUPPORTED.contains(&id.as_str()) || other_chip(id);
            outcome != if ns { "not-supported" } else { "pass" }
        })
        .map(|(id, outcome, why)| format!("{id}: {outcome}: {why}"))
        .collect();
    assert!(bad.is_empty(), "{soc} ({}):\n{}", chip.profile(), bad.join("\n"));
    let chip_only = results.iter().filter(|(id, _, _)| other_chip(id)).count();
    println!("{soc}: {} rules, {chip_only} not-supported for the chip", results.len());
}

#[test]
fn the_acl_catalog_passes_under_the_a3_profile() {
    every_acl_rule_passes("Ascend910_9391");
}

#[test]
fn the_acl_catalog_passes_under_the_910b_profile() {
    every_acl_rule_passes("Ascend910B1");
}
