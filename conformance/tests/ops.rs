//! `vmmkit ls` and `vmmkit gc` on a registry made by real processes, with
//! fault injection making an importer's open fail.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::ptr::null_mut;

use serde_json::Value;
use vmmkit_sys::acl::*;

const G: usize = 2 << 20;

/// A role of this test binary, run as a separate process.
#[test]
fn role() {
    let Ok(role) = std::env::var("VMMKIT_OPS_ROLE") else { return };
    let acl = vmmkit_emulator::acl::api();
    let prop = aclrtPhysicalMemProp {
        memAttr: ACL_HBM_MEM_HUGE,
        location: aclrtMemLocation { id: 0, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        ..Default::default()
    };
    // SAFETY: valid pointers to locals, the documented C contract.
    unsafe {
        assert_eq!((acl.aclrtSetDevice)(0), 0);
        match role.as_str() {
            "exporter" => {
                let (mut h, mut key) = (null_mut(), 0u64);
                assert_eq!((acl.aclrtMallocPhysical)(&mut h, G, &prop, 0), 0);
                assert_eq!((acl.aclrtMemExportToShareableHandle)(h, 0, 1, &mut key), 0);
                println!("\n@@ {key:x}");
                let mut line = String::new();
                let _ = std::io::stdin().read_line(&mut line); // hold until told (or killed)
            }
            "importer" => {
                let key = u64::from_str_radix(&std::env::var("VMMKIT_OPS_KEY").unwrap(), 16).unwrap();
                let mut h = null_mut();
                let rc = (acl.aclrtMemImportFromShareableHandle)(key, 1, &mut h);
                println!("\n@@ {rc}");
            }
            other => panic!("unknown role {other}"),
        }
    }
}

fn start(role: &str, root: &Path, env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["role", "--exact", "--nocapture"])
        .env("VMMKIT_OPS_ROLE", role)
        .env("VMMKIT_ROOT", root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

/// The first `@@ ` reply of a role process (it prints it right after starting).
fn reply(child: &mut Child) -> String {
    let out = BufReader::new(child.stdout.as_mut().unwrap());
    out.lines().map_while(Result::ok).find_map(|l| l.strip_prefix("@@ ").map(str::to_string)).expect("a reply")
}

fn vmmkit(args: &[&str], root: &Path) -> String {
    let out = vmmkit_at(args, root);
    assert!(out.status.success(), "vmmkit {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn ls(root: &Path) -> Value {
    serde_json::from_str(&vmmkit(&["ls", "--format", "json"], root)).unwrap()
}

#[test]
fn injected_import_failure_and_ls_before_and_after_gc() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let mut exporter = start("exporter", &root, &[]);
    let key = reply(&mut exporter);

    // The importer's open fails because VMMKIT_FAULTS says so (for this handle only).
    let faults = format!("aclrtMemImportFromShareableHandle@{key}=ACL_ERROR_RT_DRV_INTERNAL_ERROR");
    let mut importer = start("importer", &root, &[("VMMKIT_OPS_KEY", key.clone()), ("VMMKIT_FAULTS", faults)]);
    assert_eq!(reply(&mut importer), "507899", "the injected code");
    assert!(importer.wait().unwrap().success());

    let before = ls(&root);
    let e = &before["exported"][0];
    assert_eq!(e["shareable_handle"], format!("0x{key}"));
    assert_eq!(e["exporter_pid"], exporter.id());
    assert_eq!(e["exporter_alive"], true);
    assert_eq!(e["holders"], serde_json::json!([exporter.id()]));
    assert_eq!(before["devices"][0]["used"], G);
    let table = vmmkit(&["ls"], &root);
    println!("vmmkit ls (exporter alive):\n{table}");
    assert!(table.contains(&format!("0x{key}")) && table.contains("(alive)"), "{table}");

    // The exporter dies holding everything.
    exporter.kill().unwrap();
    exporter.wait().unwrap();
    let dead = ls(&root);
    assert_eq!(dead["exported"][0]["exporter_alive"], false);
    assert_eq!(dead["exported"][0]["holders"], serde_json::json!([]));
    assert_eq!(dead["devices"][0]["used"], G, "not collected yet");
    println!("vmmkit ls (exporter killed):\n{}", vmmkit(&["ls"], &root));

    let gc = vmmkit(&["gc"], &root);
    println!("{gc}");
    assert!(gc.contains("freed 2 MiB from 1 dead process(es) and 1 unheld exported handle(s)"), "{gc}");
    let after = ls(&root);
    assert_eq!(after["exported"], serde_json::json!([]));
    assert_eq!(after["devices"][0]["used"], 0);
    assert_eq!(after["processes"], serde_json::json!([]));
    println!("vmmkit ls (after gc):\n{}", vmmkit(&["ls"], &root));
    let again: Value = serde_json::from_str(&vmmkit(&["gc", "--format", "json"], &root)).unwrap();
    assert_eq!((again["entries"].as_u64(), again["bytes"].as_u64()), (Some(0), Some(0)), "nothing left");
    let _ = exporter.stdin.take().map(|mut s| s.write_all(b"\n"));
}

/// `vmmkit <args> --root <root>`, run to its end within 120 s.
fn vmmkit_at(args: &[&str], root: &Path) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
    cmd.args(args).arg("--root").arg(root);
    vmmkit_testkit::process::output(&mut cmd, std::time::Duration::from_secs(120)).unwrap()
}

#[test]
fn ls_and_gc_of_an_unused_root_say_so_and_create_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    for root in [&missing, &empty] {
        let table = vmmkit(&["ls"], root);
        let want = format!("root {}: no emulator state here yet (no program has used it)", root.display());
        assert_eq!(table.trim_end(), want);
        let v = ls(root);
        assert_eq!(v["root"], root.display().to_string());
        assert_eq!(v["in_use"], false);
        for key in ["devices", "processes", "exported"] {
            assert_eq!(v[key], serde_json::json!([]), "{key}: {v}");
        }
        let gc = vmmkit(&["gc"], root);
        assert!(gc.contains("no emulator state here yet") && gc.contains("nothing to collect"), "{gc}");
        let gc: Value = serde_json::from_str(&vmmkit(&["gc", "--format", "json"], root)).unwrap();
        assert_eq!((gc["processes"].as_u64(), gc["bytes"].as_u64()), (Some(0), Some(0)));
    }
    assert!(!missing.exists(), "ls and gc created the root");
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "ls and gc wrote into an unused root");
}

#[test]
fn ls_of_a_file_or_a_refused_root_is_an_error() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, b"").unwrap();
    let open = dir.path().join("open");
    std::fs::create_dir(&open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
    for (root, why) in [(&file, "exists and is not a directory"), (&open, "must not be group- or world-writable")] {
        for cmd in ["ls", "gc"] {
            let out = vmmkit_at(&[cmd], root);
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {}: {err}", root.display());
            assert!(err.contains(why), "{cmd} {}: {err}", root.display());
        }
    }
}
