//! The CUDA catalog against reference cuda.md §3, every CUDA rule on the
//! emulator and on the real driver (one test per rule and backend:
//! `cuda_vmm_008::case_1_emulator`), and `vmmkit fidelity`.
//!
//! Without `libcuda.so.1` (or without a GPU) every rule is not-supported on
//! the `cuda` backend, with the reason, and the fidelity table has no real
//! data; with a GPU the same tests run the real driver.

mod binary;

use std::collections::HashSet;
use std::process::Command;

use rstest::rstest;
use serde_json::Value;
use vmmkit_conformance::backend::BackendKind;
use vmmkit_conformance::baseline::Baseline;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::outcome::Outcome;
use vmmkit_conformance::rule::{Confidence, Dialect, Rule, is_valid_id};

/// Rules of cuda.md §3 the catalog does not hold, with why (a word of it is
/// checked against the catalog module's docs).
const NOT_CATALOGUED: &[(&str, &str)] = &[("CUDA-IPC-007", "second context"), ("CUDA-VMM-014", "test writers")];

fn cuda_rules() -> Vec<&'static Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Cuda).collect()
}

fn check(id: &str, backend: BackendKind) {
    let rule = Catalog::Suite.find(id).unwrap_or_else(|| panic!("{id} is not in the catalog"));
    let r = binary::run_rule(rule, backend, Catalog::Suite);
    let detail = r.detail.as_deref().unwrap_or("");
    match &r.outcome {
        Outcome::Pass => {}
        Outcome::Fail { expected, got } => {
            panic!("{id} on {}: expected {expected}, got {got}\n{detail}", backend.name())
        }
        Outcome::NotSupported(reason) | Outcome::Skipped(reason) => {
            assert_ne!(
                backend,
                BackendKind::Emulator,
                "{id} is not supported on the emulator, which must run it: {reason}"
            );
            eprintln!("skipped: {id} on {}: {reason}", backend.name());
        }
    }
}

macro_rules! reference_rules {
    ($($name:ident => $id:literal,)*) => {
        /// Every id of cuda.md §3.
        const REFERENCE_IDS: &[&str] = &[$($id),*];

        $(
            #[rstest]
            #[case::emulator(BackendKind::Emulator)]
            #[case::cuda(BackendKind::Cuda)]
            fn $name(#[case] backend: BackendKind) {
                if NOT_CATALOGUED.iter().any(|(i, _)| *i == $id) {
                    assert!(Catalog::Suite.find($id).is_none(), "{} is catalogued now: drop it from NOT_CATALOGUED", $id);
                    return;
                }
                check($id, backend);
            }
        )*
    };
}

reference_rules! {
    cuda_gen_001 => "CUDA-GEN-001",
    cuda_gen_002 => "CUDA-GEN-002",
    cuda_gen_003 => "CUDA-GEN-003",
    cuda_ipc_001 => "CUDA-IPC-001",
    cuda_ipc_002 => "CUDA-IPC-002",
    cuda_ipc_003 => "CUDA-IPC-003",
    cuda_ipc_004 => "CUDA-IPC-004",
    cuda_ipc_005 => "CUDA-IPC-005",
    cuda_ipc_006 => "CUDA-IPC-006",
    cuda_ipc_007 => "CUDA-IPC-007",
    cuda_ipc_008 => "CUDA-IPC-008",
    cuda_ipc_009 => "CUDA-IPC-009",
    cuda_ipc_010 => "CUDA-IPC-010",
    cuda_ipc_011 => "CUDA-IPC-011",
    cuda_vmm_001 => "CUDA-VMM-001",
    cuda_vmm_002 => "CUDA-VMM-002",
    cuda_vmm_003 => "CUDA-VMM-003",
    cuda_vmm_004 => "CUDA-VMM-004",
    cuda_vmm_005 => "CUDA-VMM-005",
    cuda_vmm_006 => "CUDA-VMM-006",
    cuda_vmm_007 => "CUDA-VMM-007",
    cuda_vmm_008 => "CUDA-VMM-008",
    cuda_vmm_009 => "CUDA-VMM-009",
    cuda_vmm_010 => "CUDA-VMM-010",
    cuda_vmm_011 => "CUDA-VMM-011",
    cuda_vmm_012 => "CUDA-VMM-012",
    cuda_vmm_013 => "CUDA-VMM-013",
    cuda_vmm_014 => "CUDA-VMM-014",
    cuda_vmm_015 => "CUDA-VMM-015",
    cuda_vmm_016 => "CUDA-VMM-016",
    cuda_vmm_017 => "CUDA-VMM-017",
    cuda_vmm_018 => "CUDA-VMM-018",
    cuda_vmm_019 => "CUDA-VMM-019",
    cuda_vmm_020 => "CUDA-VMM-020",
}

#[test]
fn catalog_holds_every_reference_id_once_or_says_why_not() {
    let rules = cuda_rules();
    let ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
    for id in REFERENCE_IDS {
        let n = ids.iter().filter(|i| *i == id).count();
        let skipped = NOT_CATALOGUED.iter().any(|(i, _)| i == id);
        assert!(n == 1 || (n == 0 && skipped), "{id}: catalogued {n} times");
    }
    let reference: HashSet<&str> = REFERENCE_IDS.iter().copied().collect();
    for id in &ids {
        assert!(reference.contains(id), "{id} is not a rule of cuda.md §3");
    }
    assert_eq!(ids.len() + NOT_CATALOGUED.len(), REFERENCE_IDS.len());
    let docs = include_str!("../src/catalog/cuda.rs");
    for (id, why) in NOT_CATALOGUED {
        assert!(docs.contains(id) && docs.contains(why), "the catalog's docs say why {id} is not there ({why})");
    }
}

#[test]
fn every_rule_is_complete_and_names_valid_equivalents() {
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
                assert!(acl.contains(&e), "{id}: equivalent {e} is not in the ACL catalog");
            }
        }
    }
}

#[test]
fn the_real_cuda_baseline_parses() {
    let text = include_str!("../baselines/cuda.txt");
    let b = Baseline::parse(text).expect("conformance/baselines/cuda.txt parses");
    let ids: HashSet<&str> = cuda_rules().iter().map(|r| r.id.as_str()).collect();
    for k in &b.entries {
        assert!(ids.contains(k.id.as_str()), "baseline entry {} names no CUDA rule", k.id);
    }
}

/// Whether a real driver is here (then the cuda backend runs, and these
/// tests do not expect not-supported).
fn libcuda_present() -> bool {
    vmmkit_sys::cuda::CudaApi::load(None).is_ok()
}

fn vmmkit(args: &[&str]) -> (Value, Option<i32>, String) {
    let o = Command::new(binary::exe())
        .args(args)
        .env_remove("VMMKIT_BACKEND")
        .env_remove("VMMKIT_MUTATE")
        .output()
        .expect("run vmmkit");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let v = serde_json::from_str(&text).unwrap_or(Value::Null);
    (v, o.status.code(), text)
}

#[test]
fn cuda_backend_without_the_driver_is_not_supported_with_the_reason() {
    if libcuda_present() {
        eprintln!("skipped: libcuda.so.1 is present; the catalog tests run the real driver");
        return;
    }
    let (v, code, text) = vmmkit(&["conformance", "--backend", "cuda", "--filter", "CUDA-*", "--format", "json"]);
    assert_eq!(code, Some(0), "not-supported is no failure: {text}");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), cuda_rules().len());
    for r in rules {
        assert_eq!(r["outcome"], "not-supported", "{r}");
        let reason = r["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("libcuda.so.1"), "the reason names the library: {reason}");
    }
}

#[test]
fn fidelity_of_the_emulator_against_itself_agrees_everywhere() {
    let (v, code, text) =
        vmmkit(&["fidelity", "--backend", "emulator", "--filter", "CUDA-*", "--format", "json", "--timeout", "120"]);
    assert_eq!(code, Some(0), "{text}");
    let rows = v["rules"].as_array().expect("rules");
    assert_eq!(rows.len(), cuda_rules().len());
    for r in rows {
        assert_eq!(r["verdict"], "agree", "{r}");
        assert_eq!(r["emulator"]["kind"], "pass", "{r}");
    }
    assert_eq!(v["summary"]["agree"].as_u64(), Some(rows.len() as u64));
    assert!(rows.iter().any(|r| r["equivalents"].as_array().is_some_and(|e| !e.is_empty())));
}

#[test]
fn fidelity_against_cuda_without_the_driver_has_no_data_and_says_why() {
    if libcuda_present() {
        eprintln!("skipped: libcuda.so.1 is present");
        return;
    }
    let (_, code, text) = vmmkit(&["fidelity", "--backend", "cuda", "--timeout", "120"]);
    assert_eq!(code, Some(0), "no data is no failure: {text}");
    let n = cuda_rules().len();
    assert!(text.starts_with("fidelity: emulator vs cuda\n"), "{text}");
    assert!(
        text.contains(&format!("{n} rules: 0 agree, 0 differ, 0 known differences, {n} without real data")),
        "{text}"
    );
    assert!(text.contains("no data from cuda: ") && text.contains("libcuda.so.1"), "{text}");
    for r in cuda_rules() {
        let line = text.lines().find(|l| l.starts_with(r.id.as_str())).unwrap_or_else(|| panic!("{} row", r.id));
        assert!(line.contains("pass") && line.ends_with("no data"), "{line}");
    }
}

#[test]
fn fidelity_refuses_auto_and_bad_baselines() {
    let (_, code, _) = vmmkit(&["fidelity", "--backend", "auto"]);
    assert_eq!(code, Some(2), "an error of the command");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("b.txt");
    std::fs::write(&bad, "CUDA-VMM-010 fails \"x\"\n").unwrap();
    let (_, code, _) = vmmkit(&["fidelity", "--backend", "emulator", "--baseline", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "an error of the command");
}
