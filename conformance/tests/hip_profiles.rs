//! The HIP catalog passes on the emulator under each version profile: the
//! 7.x profile (`VMMKIT_HIP_VERSION=7`) as well as the default 6.x one,
//! every HIP rule judged by the expectation of the profile the backend
//! reports (`Rule::expect_in`). HIP-INIT-001 alone is not-supported: it
//! needs a runtime that cannot start.

mod binary;

use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::Dialect;
use vmmkit_testkit::TestRoot;

/// The rules a running emulator cannot provoke, with why.
const NOT_SUPPORTED: &[&str] = &["HIP-INIT-001"];

/// `(id, outcome, got or reason)` of every HIP rule run with `VMMKIT_HIP_VERSION=version`.
fn run_hip(version: &str) -> Vec<(String, String, String)> {
    let dir = TestRoot::new("vmmkit-hip-profile-").expect("temp root");
    let root = dir.path().to_str().expect("UTF-8 root").to_string();
    let o = binary::conformance_env(
        &["--backend", "emulator", "--format", "json", "--filter", "HIP-*"],
        &[("VMMKIT_HIP_VERSION", version), ("VMMKIT_ROOT", &root)],
    );
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("profile {version}: JSON: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    let rules = v["rules"].as_array().expect("rules");
    rules
        .iter()
        .map(|r| {
            let text = r["got"].as_str().or(r["reason"].as_str()).unwrap_or_default();
            (r["id"].as_str().unwrap_or_default().into(), r["outcome"].as_str().unwrap_or_default().into(), text.into())
        })
        .collect()
}

fn every_hip_rule_passes(version: &str) {
    let results = run_hip(version);
    let want: Vec<&str> =
        Catalog::Suite.rules().iter().filter(|r| r.dialect == Dialect::Hip).map(|r| r.id.as_str()).collect();
    let ran: Vec<&str> = results.iter().map(|(id, _, _)| id.as_str()).collect();
    assert_eq!(ran, want, "profile {version}: every HIP rule runs, in the catalog's order");
    let bad: Vec<String> = results
        .iter()
        .filter(|(id, outcome, _)| {
            let expected = if NOT_SUPPORTED.contains(&id.as_str()) { "not-supported" } else { "pass" };
            outcome != expected
        })
        .map(|(id, outcome, why)| format!("{id}: {outcome}: {why}"))
        .collect();
    assert!(bad.is_empty(), "profile {version}:\n{}", bad.join("\n"));
}

#[test]
fn the_hip_catalog_passes_under_the_7x_profile() {
    every_hip_rule_passes("7");
}

#[test]
fn the_hip_catalog_passes_under_the_6x_profile() {
    every_hip_rule_passes("6.3");
}
