//! The examples a new user runs first, run as they would be, over the
//! emulator and over the drop-in `libascendcl.so` (chosen the way a user
//! would: `VMMKIT_BACKEND=ascend` with `VMMKIT_ACL_LIBRARY`). The
//! two-process example is the cross-process half of the runtime scenario:
//! export with a trustlist, pid over a pipe, import, read, write back.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use common::{Which, profile_dir, run_bounded};
use rstest::rstest;
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
fn run_example(name: &str, which: Which) -> Option<String> {
    let root = TestRoot::new("vmmkit-runtime-example-").expect("a temporary root").checked();
    let mut cmd = Command::new(example(name));
    root.apply(&mut cmd).env_remove("VMMKIT_ACL_LIBRARY");
    match which {
        Which::Emulator => {
            cmd.env("VMMKIT_BACKEND", "emulator");
        }
        Which::Shim => match common::shim_env() {
            Ok(shim) => {
                cmd.env("VMMKIT_BACKEND", "ascend").env("VMMKIT_ACL_LIBRARY", shim);
            }
            Err(common::Skip(reason)) => {
                eprintln!("SKIPPED (shim case): {reason}");
                return None;
            }
        },
    }
    let (status, out) = run_bounded(cmd, common::DEADLINE);
    println!("---- {name} over {which:?} ----\n{out}");
    assert!(status.success(), "{name} failed ({status}):\n{out}");
    root.check_clean().unwrap_or_else(|e| panic!("{name}: {e}"));
    Some(out)
}

#[rstest]
#[case::emulator(Which::Emulator)]
#[case::shim(Which::Shim)]
fn one_process(#[case] which: Which) {
    let Some(out) = run_example("one_process", which) else { return };
    let backend = if which == Which::Emulator { "backend: emulator" } else { "backend: ascend" };
    assert!(out.starts_with(backend), "{out}");
    for line in [
        "granularity: 0x200000 bytes",
        "the pattern came back intact",
        "mapping over it again fails, as it should: aclrtMapMem: 507899 ACL_ERROR_RT_DRV_INTERNAL_ERROR (ACL-MAP-009:",
        "released the addresses",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
}

#[rstest]
#[case::emulator(Which::Emulator)]
#[case::shim(Which::Shim)]
fn two_process(#[case] which: Which) {
    let Some(out) = run_example("two_process", which) else { return };
    for line in [
        "[exporter] exported with the trustlist on",
        "added it to the trustlist",
        "[importer] read 0x200000 bytes: the exporter's pattern",
        "[exporter] found the importer's reply in our memory: \"hello from the importer, pid ",
        "[exporter] the importer exited: exit status: 0",
        "[exporter] unmapped, freed and released; done",
    ] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
}
