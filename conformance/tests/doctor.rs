//! `vmmkit doctor` as a user runs it: the built binary, its exit status and output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use vmmkit_conformance::backend::BackendKind;

/// Every backend, in the doctor's order: the emulator, then the vendor list's.
fn backends() -> Vec<&'static str> {
    BackendKind::ALL.iter().map(|b| b.name()).collect()
}
const KEYS: [&str; 8] = ["backend", "usable", "library", "version", "devices", "error_code", "error_name", "detail"];

/// Runs `vmmkit doctor` with a private emulator root and the given library variables.
fn doctor(args: &[&str], root: &Path, vars: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
    cmd.arg("doctor").args(args);
    for var in ["VMMKIT_DEVICES", "VMMKIT_DEVICE_MEMORY", "VMMKIT_HOST_ACCESS", "ASCEND_HOME_PATH", "ROCM_PATH"] {
        cmd.env_remove(var);
    }
    cmd.env("VMMKIT_ROOT", root);
    cmd.env("VMMKIT_ACL_LIBRARY", "/nonexistent/vmmkit-test/libascendcl.so");
    cmd.env("VMMKIT_HIP_LIBRARY", "/nonexistent/vmmkit-test/libamdhip64.so");
    cmd.env("VMMKIT_CUDA_LIBRARY", "/nonexistent/vmmkit-test/libcuda.so.1");
    #[cfg(feature = "example-vendor")]
    cmd.env("VMMKIT_EXAMPLE_LIBRARY", "/nonexistent/vmmkit-test/libexample.so");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out =
        vmmkit_testkit::process::output(&mut cmd, std::time::Duration::from_secs(120)).expect("run the vmmkit binary");
    assert_eq!(out.status.code(), Some(0), "exit status; stderr: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// The table: one line per backend, in order.
fn lines(out: &Output) -> Vec<String> {
    let text = stdout(out);
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), backends().len(), "one line per backend:\n{text}");
    for (line, backend) in lines.iter().zip(backends()) {
        assert!(line.starts_with(&format!("{backend} ")), "{line:?} should start with {backend}");
    }
    lines
}

/// The JSON report: an array of one object per backend, in order, with exactly the stable keys.
fn rows(out: &Output) -> Vec<Value> {
    let text = stdout(out);
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"));
    let rows = v.as_array().expect("a JSON array").clone();
    assert_eq!(rows.len(), backends().len());
    for (row, backend) in rows.iter().zip(backends()) {
        let obj = row.as_object().expect("an object per backend");
        let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut want = KEYS.to_vec();
        want.sort_unstable();
        assert_eq!(keys, want);
        assert_eq!(row["backend"], backend);
        assert!(row["usable"].is_boolean() && row["detail"].is_string(), "{row}");
    }
    rows
}

#[test]
fn table_has_one_line_per_backend_and_says_why_real_backends_are_missing() {
    let root = tempfile::tempdir().expect("temporary root");
    let out = doctor(&[], root.path(), &[("VMMKIT_DEVICES", "3"), ("VMMKIT_DEVICE_MEMORY", "1G")]);
    let lines = lines(&out);
    assert!(lines[0].contains(" usable "), "{}", lines[0]);
    assert!(lines[0].contains("3 devices × 1 GiB"), "{}", lines[0]);
    assert!(lines[0].contains(&root.path().display().to_string()), "{}", lines[0]);
    for (line, path) in lines[1..].iter().zip([
        "/nonexistent/vmmkit-test/libascendcl.so",
        "/nonexistent/vmmkit-test/libamdhip64.so",
        "/nonexistent/vmmkit-test/libcuda.so.1",
    ]) {
        assert!(line.contains(" not usable "), "{line}");
        assert!(line.contains(path), "{line} should name {path}");
    }
}

#[test]
fn json_has_the_stable_keys_and_real_backends_are_not_usable() {
    let root = tempfile::tempdir().expect("temporary root");
    let out = doctor(&["--format", "json"], root.path(), &[("VMMKIT_DEVICES", "3")]);
    let rows = rows(&out);
    assert_eq!(rows[0]["usable"], true);
    assert_eq!(rows[0]["devices"], 3);
    for row in &rows[1..] {
        assert_eq!(row["usable"], false, "{row}");
        assert_eq!(row["library"], Value::Null, "{row}");
        assert!(row["detail"].as_str().unwrap().contains("/nonexistent/vmmkit-test/"), "{row}");
    }
}

#[test]
fn a_bad_emulator_setting_is_a_line_not_a_crash() {
    let root = tempfile::tempdir().expect("temporary root");
    let out = doctor(&[], root.path(), &[("VMMKIT_DEVICES", "0")]);
    let lines = lines(&out);
    assert!(lines[0].contains(" not usable ") && lines[0].contains("VMMKIT_DEVICES"), "{}", lines[0]);
    let out = doctor(&["--format", "json"], root.path(), &[("VMMKIT_DEVICE_MEMORY", "12Q")]);
    let rows = rows(&out);
    assert_eq!(rows[0]["usable"], false);
    assert!(rows[0]["detail"].as_str().unwrap().contains("VMMKIT_DEVICE_MEMORY"), "{}", rows[0]);
}

/// Builds a stand-in vendor library exporting `symbols` (each returning 0
/// unless `bodies` defines it) with `cc`, in `dir`.
fn fake_library(dir: &Path, file: &str, symbols: &[&str], bodies: &str) -> PathBuf {
    let mut src = String::from(bodies);
    for sym in symbols {
        if !bodies.contains(&format!(" {sym}(")) {
            src.push_str(&format!("int {sym}(void) {{ return 0; }}\n"));
        }
    }
    let c = dir.join(format!("{file}.c"));
    std::fs::write(&c, src).expect("write the C source");
    let lib = dir.join(file);
    let status = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&c)
        .status()
        .expect("run cc (a C compiler is needed to link Rust itself)");
    assert!(status.success(), "cc failed for {file}");
    lib
}

#[test]
fn loaded_libraries_report_version_and_the_exact_code() {
    let root = tempfile::tempdir().expect("temporary root");
    let dir = tempfile::tempdir().expect("scratch directory");
    // A HIP runtime with no GPU (hip.md §1.4): versions succeed, the count is 100.
    let hip = fake_library(
        dir.path(),
        "libamdhip64.so.5",
        vmmkit_sys::hip::HipApi::REQUIRED,
        "int hipRuntimeGetVersion(int *v) { *v = 50422803; return 0; }\n\
         int hipDriverGetVersion(int *v) { *v = 50422803; return 0; }\n\
         int hipGetDeviceCount(int *n) { *n = 0; return 100; }\n",
    );
    // The CUDA toolkit's stub, renamed: every call returns 34 (cuda.md §1.1).
    let cuda = fake_library(
        dir.path(),
        "libcuda.so.1",
        vmmkit_sys::cuda::CudaApi::REQUIRED,
        "unsigned cuInit(unsigned f) { return 34; }\n\
         unsigned cuDriverGetVersion(int *v) { *v = 12060; return 0; }\n",
    );
    // A shim of vmmkit's own, chosen explicitly: never called beyond its
    // version (a count would start the emulator), its devices are the
    // emulator's settings (one here). Were aclInit called, it would leave a mark.
    let mark = dir.path().join("aclInit-was-called");
    let acl = fake_library(
        dir.path(),
        "libascendcl.so",
        vmmkit_sys::acl::AclApi::REQUIRED,
        &format!(
            "#include <stdio.h>\n\
             const char *vmmkit_shim_info(void) {{ return \"test\"; }}\n\
             int aclrtGetVersion(int *a, int *b, int *c) {{ *a = 1; *b = 17; *c = 0; return 0; }}\n\
             int aclInit(const char *p) {{ FILE *f = fopen(\"{}\", \"w\"); if (f) fclose(f); return 0; }}\n\
             int aclrtGetDeviceCount(unsigned *n) {{ *n = 5; return 0; }}\n",
            mark.display()
        ),
    );
    let vars = [
        ("VMMKIT_HIP_LIBRARY", hip.to_str().unwrap()),
        ("VMMKIT_CUDA_LIBRARY", cuda.to_str().unwrap()),
        ("VMMKIT_ACL_LIBRARY", acl.to_str().unwrap()),
        ("VMMKIT_DEVICES", "1"),
    ];

    let lines = lines(&doctor(&[], root.path(), &vars));
    assert!(lines[1].contains(" usable ") && lines[1].contains("ACL 1.17.0"), "{}", lines[1]);
    assert!(lines[1].contains("vmmkit's own drop-in library"), "{}", lines[1]);
    let want = format!("{} loaded, HIP 50422803 (5.4.22803), hipGetDeviceCount → 100 hipErrorNoDevice", hip.display());
    assert!(lines[2].contains(" not usable ") && lines[2].contains(&want), "{}", lines[2]);
    assert!(lines[3].contains("CUDA 12060, cuInit(0) → 34 CUDA_ERROR_STUB_LIBRARY"), "{}", lines[3]);

    let rows = rows(&doctor(&["--format", "json"], root.path(), &vars));
    assert_eq!((&rows[1]["usable"], &rows[1]["devices"]), (&Value::from(true), &Value::from(1)));
    assert_eq!(rows[1]["version"], "1.17.0");
    assert_eq!(rows[2]["library"], hip.to_str().unwrap());
    assert_eq!((&rows[2]["version"], &rows[2]["error_code"]), (&Value::from("50422803"), &Value::from(100)));
    assert_eq!(rows[2]["error_name"], "hipErrorNoDevice");
    assert_eq!((&rows[3]["usable"], &rows[3]["error_code"]), (&Value::from(false), &Value::from(34)));
    assert_eq!(rows[3]["error_name"], "CUDA_ERROR_STUB_LIBRARY");
    assert!(!mark.exists(), "the doctor called into vmmkit's own drop-in");
}

#[test]
fn doctor_creates_no_state_and_says_the_root_is_not_created_yet() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let root = dir.path().join("not/yet/root");
    let mut vars = vec![];
    // vmmkit's own ACL drop-in, when this build has it: chosen explicitly,
    // it must not be started either.
    let shim = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit")).with_file_name("libascendcl.so");
    let shim_text = shim.display().to_string();
    if shim.exists() {
        vars.push(("VMMKIT_ACL_LIBRARY", shim_text.as_str()));
    } else {
        eprintln!("{} is not built: only the emulator line is checked", shim.display());
    }
    for format in ["table", "json"] {
        let out = doctor(&["--format", format], &root, &vars);
        assert!(!root.exists(), "doctor --format {format} created {}", root.display());
        assert!(!dir.path().join("not").exists(), "doctor --format {format} created a parent of the root");
        let text = stdout(&out);
        let want = format!("root {} (not created yet: a program's first call creates it 0700)", root.display());
        assert!(text.contains(&want), "{text}");
    }
    let lines = lines(&doctor(&[], &root, &vars));
    assert!(lines[0].contains(" usable "), "{}", lines[0]);
    if shim.exists() {
        assert!(lines[1].contains(" usable ") && lines[1].contains("vmmkit's own drop-in library"), "{}", lines[1]);
    }
    // An existing root that no program has used is left as it is.
    std::fs::create_dir_all(&root).unwrap();
    let text = stdout(&doctor(&[], &root, &vars));
    assert!(text.contains("(exists, no emulator state yet"), "{text}");
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0, "doctor wrote into {}", root.display());
}

/// The visible-device lists in force are on the emulator's line, vendor by
/// vendor, as the machine's devices each process sees (HIP-INIT-009,
/// CUDA-GEN-004, ACL-GEN-011).
#[test]
fn doctor_shows_the_visible_device_lists_in_force() {
    let dir = tempfile::tempdir().expect("scratch directory");
    let root = dir.path().join("root");
    let masks = ["ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "ASCEND_RT_VISIBLE_DEVICES"];
    let none = stdout(&doctor(&[], &root, &[("VMMKIT_DEVICES", "4")]));
    if masks.iter().all(|m| std::env::var_os(m).is_none()) {
        assert!(none.contains("every vendor sees all 4 devices"), "{none}");
    }
    let vars = [("VMMKIT_DEVICES", "4"), ("HIP_VISIBLE_DEVICES", "3,1"), ("ASCEND_RT_VISIBLE_DEVICES", "2,1")];
    let text = stdout(&doctor(&[], &root, &vars));
    assert!(text.contains("HIP sees HIP_VISIBLE_DEVICES=\"3,1\" -> devices [3,1] of 4"), "{text}");
    assert!(text.contains("ACL sees ASCEND_RT_VISIBLE_DEVICES=\"2,1\": refused"), "{text}");
}
