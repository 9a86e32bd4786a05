//! A real `libamdhip64` on a machine without an AMD GPU reports every HIP
//! rule not-supported with its reason (hip.md §1.4). The runtime is fetched
//! by `scripts/fetch-hip.sh`; where the package registry cannot be reached
//! the trial is reported ignored with the reason, never passed. Every HIP
//! rule on the emulator, and on a real library on the default search path,
//! is `tests/rules.rs`.

mod binary;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use serde_json::Value;
use vmmkit_conformance::catalog::Catalog;
use vmmkit_conformance::rule::Dialect;

fn hip_rules() -> Vec<&'static vmmkit_conformance::rule::Rule> {
    Catalog::Suite.rules().into_iter().filter(|r| r.dialect == Dialect::Hip).collect()
}

/// `vmmkit conformance --filter HIP-* --format json` with `backend` and
/// extra arguments and environment; the rules of the JSON report.
fn run_hip(backend: &str, library: Option<&str>, ld_path: Option<&str>) -> Vec<Value> {
    let mut cmd = Command::new(binary::exe());
    cmd.args(["conformance", "--backend", backend, "--filter", "HIP-*", "--format", "json", "--timeout", "120"]);
    if let Some(l) = library {
        cmd.args(["--library", l]);
    }
    if let Some(p) = ld_path {
        cmd.env("LD_LIBRARY_PATH", p);
    }
    cmd.env_remove("VMMKIT_BACKEND").env_remove("VMMKIT_MUTATE");
    let o = cmd.output().expect("run vmmkit");
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("JSON: {e}: {}", String::from_utf8_lossy(&o.stderr)));
    v["rules"].as_array().cloned().unwrap_or_default()
}

/// Runs `scripts/fetch-hip.sh runtime`: (library, LD_LIBRARY_PATH), or why not.
fn fetch_runtime() -> Result<(String, String), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut cmd = Command::new(root.join("scripts/fetch-hip.sh"));
    cmd.arg("runtime");
    if std::env::var_os("HIP_CACHE_DIR").is_none() {
        // Shared with the drop-in library's tests: <target>/hip-runtime.
        let exe = std::env::current_exe().expect("test exe");
        let target: PathBuf = exe.ancestors().nth(3).expect("<target>/<profile>/deps/<exe>").to_path_buf();
        cmd.env("HIP_CACHE_DIR", target.join("hip-runtime"));
    }
    let o = cmd.output().map_err(|e| format!("cannot run scripts/fetch-hip.sh: {e}"))?;
    match o.status.code() {
        Some(0) => {
            let text = String::from_utf8_lossy(&o.stdout);
            let get = |k: &str| text.lines().find_map(|l| l.strip_prefix(k)).map(str::to_string);
            Ok((get("HIP_RUNTIME_LIB=").expect("library"), get("HIP_RUNTIME_LD_PATH=").expect("path")))
        }
        Some(2) => Err(String::from_utf8_lossy(&o.stderr).trim().to_string()),
        _ => panic!("scripts/fetch-hip.sh runtime failed ({}): {}", o.status, String::from_utf8_lossy(&o.stderr)),
    }
}

/// `vmmkit conformance --backend hip --library <real libamdhip64.so.5>`: no
/// GPU here, so every HIP rule is not-supported, with hipErrorNoDevice as the
/// reason. Ignored, with the reason, where the runtime cannot be fetched
/// (a failure with `VMMKIT_REQUIRE_REAL_HIP=1`) or the machine may have an
/// AMD GPU.
fn real_runtime_without_a_gpu_is_not_supported() -> Result<Completion, Failed> {
    let (lib, ld_path) = match fetch_runtime() {
        Ok(x) => x,
        Err(reason) if std::env::var("VMMKIT_REQUIRE_REAL_HIP").as_deref() == Ok("1") => {
            return Err(format!("VMMKIT_REQUIRE_REAL_HIP=1, and no runtime: {reason}").into());
        }
        Err(reason) => return Ok(Completion::ignored_with(format!("no real HIP runtime: {reason}"))),
    };
    if Path::new("/dev/kfd").exists() {
        return Ok(Completion::ignored_with("/dev/kfd exists: this machine may have an AMD GPU"));
    }
    let rules = run_hip("hip", Some(&lib), Some(&ld_path));
    assert_eq!(rules.len(), hip_rules().len());
    for r in &rules {
        let reason = r["reason"].as_str().unwrap_or_default();
        assert_eq!(r["outcome"], "not-supported", "{}: {r}", r["id"]);
        assert!(reason.contains("100 hipErrorNoDevice"), "{}: reason {reason:?}", r["id"]);
    }
    println!("{} HIP rules not-supported on {lib}: {}", rules.len(), rules[0]["reason"]);
    Ok(Completion::Completed)
}

fn main() -> ExitCode {
    let args = Arguments::from_args();
    let trials =
        vec![Trial::ignorable_test("hip::real_runtime_without_a_gpu", real_runtime_without_a_gpu_is_not_supported)];
    libtest_mimic::run(&args, trials).exit_code()
}
