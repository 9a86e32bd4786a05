//! `vmmkit conformance --backend cuda` without the driver, and `vmmkit
//! fidelity`. Without `libcuda.so.1` (or without a GPU) every CUDA rule is
//! not-supported on the `cuda` backend, with the reason, and the fidelity
//! table has no real data. The CUDA catalog's shape is `tests/catalog.rs`;
//! every CUDA rule on the emulator and on the real driver is `tests/rules.rs`.

mod binary;

use std::process::Command;

use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::{Dialect, Rule};

fn cuda_rules() -> Vec<&'static Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Cuda).collect()
}

/// Whether a real driver is here (then the cuda backend runs, and these
/// tests do not expect not-supported).
fn libcuda_present() -> bool {
    vmmkit_sys::cuda::CudaApi::load(None).is_ok()
}

fn vmmkit(args: &[&str]) -> (Value, Option<i32>, String) {
    let o =
        binary::output(Command::new(binary::exe()).args(args).env_remove("VMMKIT_BACKEND").env_remove("VMMKIT_MUTATE"));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let v = serde_json::from_str(&text).unwrap_or(Value::Null);
    (v, o.status.code(), text)
}

fn cuda_backend_without_the_driver_is_not_supported_with_the_reason() {
    if libcuda_present() {
        vmmkit_testkit::harness::skip("libcuda.so.1 is present; the catalog tests run the real driver");
    }
    let (_, code, text) = vmmkit(&["conformance", "--backend", "cuda", "--format", "json"]);
    assert_eq!(code, Some(2), "a named backend without its driver ends the run: {text}");
    let (v, code, text) = vmmkit(&["conformance", "--backend", "cuda", "--allow-unavailable", "--format", "json"]);
    assert_eq!(code, Some(0), "not-supported is no failure with --allow-unavailable: {text}");
    let rules = v["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), cuda_rules().len());
    for r in rules {
        assert_eq!(r["outcome"], "not-supported", "{r}");
        let reason = r["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("libcuda.so.1"), "the reason names the library: {reason}");
    }
}

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

fn fidelity_against_cuda_without_the_driver_has_no_data_and_says_why() {
    if libcuda_present() {
        vmmkit_testkit::harness::skip("libcuda.so.1 is present; the fidelity run has data");
    }
    let (_, code, text) = vmmkit(&["fidelity", "--backend", "cuda", "--timeout", "120"]);
    assert_eq!(code, Some(2), "a real backend without its driver ends the comparison: {text}");
    let (_, code, text) = vmmkit(&["fidelity", "--backend", "cuda", "--allow-unavailable", "--timeout", "120"]);
    assert_eq!(code, Some(0), "no data is no failure with --allow-unavailable: {text}");
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

fn fidelity_refuses_auto_and_bad_baselines() {
    let (_, code, _) = vmmkit(&["fidelity", "--backend", "auto"]);
    assert_eq!(code, Some(2), "an error of the command");
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("b.txt");
    std::fs::write(&bad, "CUDA-VMM-010 fails \"x\"\n").unwrap();
    let (_, code, _) = vmmkit(&["fidelity", "--backend", "emulator", "--baseline", bad.to_str().unwrap()]);
    assert_eq!(code, Some(2), "an error of the command");
    let (_, code, _) = vmmkit(&["fidelity", "--backend", "emulator", "--filter", "NOPE-*"]);
    assert_eq!(code, Some(2), "a filter that matches no rule");
}

vmmkit_testkit::harness!(
    cuda_backend_without_the_driver_is_not_supported_with_the_reason,
    fidelity_of_the_emulator_against_itself_agrees_everywhere,
    fidelity_against_cuda_without_the_driver_has_no_data_and_says_why,
    fidelity_refuses_auto_and_bad_baselines,
);
