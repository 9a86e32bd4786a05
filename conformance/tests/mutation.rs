//! Proof that the checks can fail: for every rule whose expected outcome on
//! the emulator is an error code, the suite is run on that rule with the
//! emulator's enforcement of it switched off (`VMMKIT_MUTATE=<RULE-ID>`, a
//! `mutation` build), and the rule must be reported failed. A rule whose
//! check still passes is a defect of the suite.
//!
//! Run with `cargo test -p vmmkit-conformance --features mutation --test mutation -- --nocapture`.
#![cfg(feature = "mutation")]

mod binary;

use std::process::Command;
use std::sync::Mutex;

use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;

/// Rules enforced under another rule's id. The combined cases of acl.md §5
/// (`ACL-ORD-*`) are decided by the check that wins the order: switching
/// that one off must change the code. General rules the reference restates
/// per call are enforced under the specific id the check provokes first.
const MUTANT_OF: &[(&str, &str)] = &[
    ("ACL-ORD-001", "ACL-IMP-007"),  // V1 then falls through to the context check: 107002
    ("ACL-ORD-002", "ACL-EXP-001"),  // then the flags check: 107000
    ("ACL-ORD-003", "ACL-MAP-003"),  // then the offset check: 107000
    ("ACL-ORD-004", "ACL-MAP-004"),  // then the reservation check: 507899
    ("ACL-GEN-006", "ACL-MP-008"),   // the check's first case is MallocPhysical's device id
    ("ACL-LIFE-003", "ACL-IMP-007"), // the released handle's import is the unknown-handle lookup
    ("HIP-IPC-046", "HIP-IPC-025"),  // a new open after the exporter's free is the unknown-key lookup: 17
];

/// Rules whose error branch the emulated platform cannot reach, with why.
const UNREACHABLE_ON_EMULATOR: &[(&str, &str)] = &[(
    "ACL-IMP-006",
    "the emulated platform has a server id (A3), so the 207000 branch cannot be reached; the check exercised the \
     same-server import instead",
)];

/// What one rule's run says: its outcome and got or reason.
fn run(id: &str, mutate: Option<&str>) -> (String, String) {
    let mut cmd = Command::new(binary::exe());
    // A debug build of the emulator is slow (SetPid of 65,535 pids): a long deadline.
    cmd.args(["conformance", "--backend", "emulator", "--format", "json", "--jobs", "1", "--timeout", "120"]);
    cmd.args(["--filter", id]);
    cmd.env_remove("VMMKIT_MUTATE").env_remove("VMMKIT_BACKEND");
    if let Some(m) = mutate {
        cmd.env("VMMKIT_MUTATE", m);
    }
    let o = binary::output(&mut cmd);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{id}: JSON: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    let r = &v["rules"][0];
    let text = r["got"].as_str().or(r["reason"].as_str()).unwrap_or_default().to_string();
    (r["outcome"].as_str().unwrap_or_default().to_string(), text)
}

#[test]
fn every_rule_with_an_error_code_fails_when_its_enforcement_is_off() {
    let with_codes: Vec<_> = Catalog::Suite.rules().into_iter().filter(|r| r.expect.has_error_code()).collect();
    let rules: Vec<&str> = with_codes.iter().map(|r| r.id.as_str()).collect();
    // A rule whose record names the rules that enforce it (and no entry of
    // MUTANT_OF) is switched off through the first of them.
    let enforcer = |id: &str| {
        with_codes.iter().find(|r| r.id.as_str() == id).and_then(|r| r.enforced_by.first()).map(|e| e.id.as_str())
    };
    let covered = Mutex::new(Vec::new());
    let uncoverable = Mutex::new(Vec::new());
    let defects = Mutex::new(Vec::new());
    let next = Mutex::new(rules.iter());
    let jobs = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let Some(&id) = next.lock().unwrap().next() else { break };
                    if let Some((_, why)) = UNREACHABLE_ON_EMULATOR.iter().find(|(r, _)| *r == id) {
                        uncoverable.lock().unwrap().push(format!("{id}: {why}"));
                        continue;
                    }
                    let mutant = MUTANT_OF
                        .iter()
                        .find(|(r, _)| *r == id)
                        .map(|(_, m)| *m)
                        .or_else(|| enforcer(id))
                        .unwrap_or(id);
                    let (plain, why) = run(id, None);
                    if plain != "pass" {
                        // Not-supported on the emulator (or failing already,
                        // which the catalog tests report): nothing to mutate.
                        uncoverable.lock().unwrap().push(format!("{id}: {plain} without mutation: {why}"));
                        continue;
                    }
                    let (mutated, got) = run(id, Some(mutant));
                    if mutated == "fail" {
                        covered.lock().unwrap().push(format!("{id} (VMMKIT_MUTATE={mutant}): {got}"));
                    } else {
                        defects.lock().unwrap().push(format!("{id}: still {mutated} with VMMKIT_MUTATE={mutant}"));
                    }
                }
            });
        }
    });
    let (covered, uncoverable, defects) =
        (covered.into_inner().unwrap(), uncoverable.into_inner().unwrap(), defects.into_inner().unwrap());
    println!("mutation: {} of {} rules with an error code covered", covered.len(), rules.len());
    for c in &covered {
        println!("  covered {c}");
    }
    println!("not coverable ({}):", uncoverable.len());
    for u in &uncoverable {
        println!("  {u}");
    }
    assert!(defects.is_empty(), "checks that pass with their rule switched off:\n{}", defects.join("\n"));
    assert!(!covered.is_empty(), "no rule was covered");
}
