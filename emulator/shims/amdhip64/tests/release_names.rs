//! The HIP release follows the library name a program loaded: a program
//! built against ROCm 7's `libamdhip64` (its `DT_NEEDED` is
//! `libamdhip64.so.7`) finds the drop-in under that name (build.rs links
//! `libamdhip64.so.{5,6,7}` to it) and is answered as 7.0, with no variable
//! set; `.so.6` as 6.3, `.so.5` as 5.7 (with the 6.x profile's codes);
//! `VMMKIT_HIP_VERSION` still overrides.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scratch, binutils, finish, library_dir, run_compiler};

/// Links `release_name.c` against a stand-in whose soname is
/// `libamdhip64.so.<major>`, so the program needs that name.
fn program_for(scratch: &Scratch, major: u32) -> PathBuf {
    let c = common::crate_dir().join("tests/c");
    let stub_dir = scratch.path().join(format!("stub{major}"));
    std::fs::create_dir_all(&stub_dir).expect("stub dir");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let stub_src = c.join("release_stub.c");
    let mut cmd = Command::new(&cc);
    cmd.args(["-shared", "-fPIC", "-o"])
        .arg(stub_dir.join("libamdhip64.so"))
        .arg(format!("-Wl,-soname,libamdhip64.so.{major}"))
        .arg(&stub_src);
    run_compiler(&mut cmd, &stub_src);
    let src = c.join("release_name.c");
    let exe = scratch.path().join("bin").join(format!("release_name_so{major}"));
    let mut cmd = Command::new(&cc);
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"]).arg(&exe).arg(&src).arg("-L").arg(&stub_dir);
    cmd.arg("-lamdhip64");
    run_compiler(&mut cmd, &src);
    exe
}

/// Runs `exe` on the drop-in's directory, with `VMMKIT_HIP_VERSION` as given (unset for `None`).
fn run(scratch: &Scratch, exe: &Path, hip_version: Option<&str>) -> String {
    let mut cmd = scratch.command(exe, library_dir());
    match hip_version {
        Some(v) => cmd.env("VMMKIT_HIP_VERSION", v),
        None => cmd.env_remove("VMMKIT_HIP_VERSION"),
    };
    let out = finish(&mut [scratch.start("release_name", cmd)]).remove(0);
    println!("{} (VMMKIT_HIP_VERSION={}):\n{out}", exe.display(), hip_version.unwrap_or("unset"));
    out
}

#[test]
fn a_program_linked_against_so7_sees_7x_without_any_variable() {
    let scratch = Scratch::new();
    let cases = [(7, "runtime 70000000 driver 70000000", "1"), (6, "runtime 60300000 driver 60300000", "2")];
    for (major, versions, code) in cases {
        let exe = program_for(&scratch, major);
        let dynamic = binutils("readelf", &["-d".as_ref(), exe.as_os_str()]);
        let needed = format!("[libamdhip64.so.{major}]");
        assert!(dynamic.lines().any(|l| l.contains("(NEEDED)") && l.contains(&needed)), "{dynamic}");
        let out = run(&scratch, &exe, None);
        assert!(out.contains(versions), ".so.{major}: {out}");
        assert!(out.contains(&format!("reserve-bad-alignment {code}")), ".so.{major}: HIP-VMM-011's code: {out}");
    }
    let exe = program_for(&scratch, 5);
    assert!(run(&scratch, &exe, None).contains("runtime 50700000"), ".so.5 reports 5.7");
    // The variable still decides.
    let exe = program_for(&scratch, 7);
    let out = run(&scratch, &exe, Some("6.2"));
    assert!(out.contains("runtime 60200000") && out.contains("reserve-bad-alignment 2"), "{out}");
}
