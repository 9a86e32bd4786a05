//! A real `libamdhip64` on a machine without an AMD GPU reports every HIP
//! rule not-supported with its reason (hip.md §1.4). The runtime is fetched
//! by `scripts/fetch-hip.sh`; where the package registry cannot be reached
//! the trial is reported ignored with the reason, never passed. Every HIP
//! rule on the emulator, and on a real library on the default search path,
//! is `tests/rules.rs`.

mod binary;

use std::path::Path;
use std::process::{Command, ExitCode, Output};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::Dialect;

fn hip_rules() -> Vec<&'static vmmkit_conformance::rule::Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Hip).collect()
}

/// `vmmkit conformance --backend hip --library <library> <extra>` with
/// `LD_LIBRARY_PATH=<ld_path>`, run to completion.
fn run_hip(library: &str, ld_path: &str, extra: &[&str]) -> Output {
    let mut cmd = Command::new(binary::exe());
    cmd.args(["conformance", "--backend", "hip", "--library", library, "--timeout", "120"]).args(extra);
    cmd.env("LD_LIBRARY_PATH", ld_path);
    cmd.env_remove("VMMKIT_BACKEND").env_remove("VMMKIT_MUTATE");
    binary::output(&mut cmd)
}

/// Runs `scripts/fetch-hip.sh runtime`: (library, LD_LIBRARY_PATH), or why not.
fn fetch_runtime() -> Result<(String, String), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let env = vmmkit_testkit::hip::fetch(&root, "runtime")?;
    let get = |k: &str| env.get(k).cloned().unwrap_or_else(|| panic!("fetch-hip.sh runtime printed no {k}"));
    Ok((get("HIP_RUNTIME_LIB"), get("HIP_RUNTIME_LD_PATH")))
}

/// `vmmkit conformance --backend hip --library <real libamdhip64.so.5>`: no
/// GPU here, so the run ends with exit status 2, naming the library, its
/// version and "no device"; with `--allow-unavailable` every HIP rule (and
/// no other) is not-supported, with hipErrorNoDevice as the reason, and the
/// summary names the library and its version. Ignored, with the reason,
/// where the runtime cannot be fetched (a failure with
/// `VMMKIT_REQUIRE_REAL_HIP=1`) or the machine may have an AMD GPU.
fn real_runtime_without_a_gpu_is_not_supported() -> Result<Completion, Failed> {
    let (lib, ld_path) = match fetch_runtime() {
        Ok(x) => x,
        Err(reason) if std::env::var(vmmkit_testkit::hip::REQUIRE_ENV).as_deref() == Ok("1") => {
            return Err(format!("VMMKIT_REQUIRE_REAL_HIP=1, and no runtime: {reason}").into());
        }
        Err(reason) => return Ok(Completion::ignored_with(format!("no real HIP runtime: {reason}"))),
    };
    if Path::new("/dev/kfd").exists() {
        return Ok(Completion::ignored_with("/dev/kfd exists: this machine may have an AMD GPU"));
    }
    let o = run_hip(&lib, &ld_path, &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "a HIP gate without a device is not green: {err}");
    for want in ["backend hip is unavailable", lib.as_str(), "HIP 5022", "(5.2.", "no device", "100 hipErrorNoDevice"] {
        assert!(err.contains(want), "stderr should name {want:?}: {err}");
    }
    assert!(o.stdout.is_empty(), "no report: {}", String::from_utf8_lossy(&o.stdout));

    let o = run_hip(&lib, &ld_path, &["--allow-unavailable", "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("JSON: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    assert_eq!(v["backend"]["library"], lib.as_str());
    assert!(v["backend"]["version"].as_str().is_some_and(|s| s.starts_with("HIP 5022")), "{}", v["backend"]);
    let rules = v["rules"].as_array().cloned().unwrap_or_default();
    assert_eq!(rules.len(), hip_rules().len(), "only the HIP rules, without a --filter");
    for r in &rules {
        assert!(r["id"].as_str().is_some_and(|id| id.starts_with("HIP-")), "{}", r["id"]);
        let reason = r["reason"].as_str().unwrap_or_default();
        assert_eq!(r["outcome"], "not-supported", "{}: {r}", r["id"]);
        assert!(reason.contains("100 hipErrorNoDevice"), "{}: reason {reason:?}", r["id"]);
    }
    let o = run_hip(&lib, &ld_path, &["--allow-unavailable"]);
    let table = String::from_utf8_lossy(&o.stdout);
    let want = format!("library {lib} (HIP 5022");
    assert!(table.lines().any(|l| l.starts_with(&want)), "the summary names {want:?}:\n{table}");
    // Each rule line is `  LABEL  RULE-ID  text`.
    let labels = ["PASS", "FAIL", "KNOWN", "N/S", "SKIP"];
    let ids: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("  ") && l.split_whitespace().next().is_some_and(|w| labels.contains(&w)))
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(ids.len(), hip_rules().len(), "{table}");
    assert!(ids.iter().all(|id| id.starts_with("HIP-")), "{ids:?}");
    println!("{} HIP rules not-supported on {lib}: {}", rules.len(), rules[0]["reason"]);
    Ok(Completion::Completed)
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials =
        vec![Trial::ignorable_test("hip::real_runtime_without_a_gpu", real_runtime_without_a_gpu_is_not_supported)];
    libtest_mimic::run(&args, trials).exit_code()
}
