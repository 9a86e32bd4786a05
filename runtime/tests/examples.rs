//! The examples a new user runs first, run as they would be, over every
//! emulated dialect and over the drop-in `libascendcl.so` and
//! `libamdhip64.so` (chosen the way a user would: `VMMKIT_BACKEND=ascend`
//! with `VMMKIT_ACL_LIBRARY`, `VMMKIT_BACKEND=hip` with
//! `VMMKIT_HIP_LIBRARY`). The two-process example is the cross-process half
//! of the runtime scenario: export (ACL: with a trustlist, the pid over a
//! pipe; HIP, CUDA: the fd with `SCM_RIGHTS`), import, read, write back.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::{Which, profile_dir, run_bounded};
use vmmkit_runtime::Vendor;
use vmmkit_testkit::TestRoot;

/// This build's example executable `name`, (re)built once per test process.
fn example(name: &str) -> PathBuf {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        let profile_dir = profile_dir();
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(["build", "--quiet", "-p", "vmmkit-runtime", "--examples"])
            .env("CARGO_TARGET_DIR", profile_dir.parent().expect("<target>/<profile>"));
        match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") => {}
            Some("release") => {
                cmd.arg("--release");
            }
            Some(other) => {
                cmd.args(["--profile", other]);
            }
            None => panic!("no profile in {}", profile_dir.display()),
        }
        let (status, out) = run_bounded(cmd, common::BUILD_DEADLINE);
        assert!(status.success(), "building the examples failed ({status}):\n{out}");
    });
    profile_dir().join("examples").join(name)
}

/// Runs example `name` over `which` with an emulator root of its own;
/// returns its output.
fn run_example(name: &str, which: Which) -> String {
    let root = TestRoot::new("vmmkit-runtime-example-").expect("a temporary root").checked();
    let mut cmd = Command::new(example(name));
    root.apply(&mut cmd).env_remove("VMMKIT_ACL_LIBRARY").env_remove("VMMKIT_HIP_LIBRARY");
    match which {
        Which::Emulator(v) => {
            cmd.env("VMMKIT_BACKEND", vmmkit_runtime::Backend::emulator(v).name());
        }
        Which::Shim(v) => {
            let (backend, var) =
                if v == Vendor::Acl { ("ascend", "VMMKIT_ACL_LIBRARY") } else { ("hip", "VMMKIT_HIP_LIBRARY") };
            cmd.env("VMMKIT_BACKEND", backend).env(var, common::shim_env(v));
        }
    }
    let (status, out) = run_bounded(cmd, common::DEADLINE);
    println!("---- {name} over {which:?} ----\n{out}");
    assert!(status.success(), "{name} failed ({status}):\n{out}");
    root.check_clean().unwrap_or_else(|e| panic!("{name}: {e}"));
    out
}

/// Fails unless every line of `lines` is in `out`.
fn assert_lines(out: &str, lines: &[&str]) {
    for line in lines {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
}

per_backend!(one_process => |which: Which| {
    let out = run_example("one_process", which);
    let backend = match which {
        Which::Emulator(v) => format!("backend: {}", vmmkit_runtime::Backend::emulator(v).name()),
        Which::Shim(Vendor::Acl) => "backend: ascend".to_owned(),
        Which::Shim(_) => "backend: hip".to_owned(),
    };
    assert!(out.starts_with(&backend), "{out}");
    assert_lines(&out, &["the pattern came back intact", "mapping over it again fails, as it should: ", "released the addresses"]);
    if which.vendor() == Vendor::Acl {
        assert_lines(&out, &[
            "granularity: 0x200000 bytes",
            "mapping over it again fails, as it should: aclrtMapMem: 507899 ACL_ERROR_RT_DRV_INTERNAL_ERROR (ACL-MAP-009:",
        ]);
    }
});

per_backend!(two_process => |which: Which| {
    let out = run_example("two_process", which);
    assert_lines(&out, &[
        "[importer] read 0x",
        "bytes: the exporter's pattern",
        "[exporter] found the importer's reply in our memory: \"hello from the importer, pid ",
        "[exporter] the importer exited: exit status: 0",
        "[exporter] unmapped, freed and released; done",
    ]);
    if which.vendor() == Vendor::Acl {
        assert_lines(&out, &[
            "[exporter] exported with the trustlist on",
            "added it to the trustlist",
            "[importer] read 0x200000 bytes: the exporter's pattern",
        ]);
    } else {
        assert_lines(&out, &[
            "[exporter] exported as a POSIX fd",
            "[exporter] sent the fd with SCM_RIGHTS, and the size",
            "[importer] received an fd with SCM_RIGHTS",
        ]);
    }
});

per_backend!(legacy_ipc => |which: Which| {
    let out = run_example("legacy_ipc", which);
    if which.vendor() == Vendor::Acl {
        assert_lines(&out, &["[exporter] legacy IPC is not supported on ACL: Device::malloc: 207000"]);
        return;
    }
    assert_lines(&out, &[
        "[exporter] opening our own handle fails, as it should: ",
        "[importer] read 0x100000 bytes: the exporter's pattern",
        "[exporter] found the importer's reply in our buffer: \"legacy IPC reply from pid ",
        "[exporter] the importer exited: exit status: 0",
        "[exporter] freed the buffer; done",
    ]);
    if matches!(which, Which::Emulator(_)) {
        assert_lines(&out, &["the handle was made by this process"]);
    }
});
