//! A vLLM-style ctypes wrapper over `libamdhip64.so`
//! (`tests/python/vllm_style.py`, our own script): it binds every function
//! vLLM's HIP wrapper declares, by name and C type, and runs an IPC round
//! trip between two Python processes on vmmkit's drop-in. Skips with a
//! reason when `python3` is not there.

mod common;

use std::process::Command;

use common::{Scratch, crate_dir, finish, library_dir};

fn vllm_style_ctypes_wrapper_binds_every_function_and_shares_memory() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    if Command::new(&python).arg("--version").output().is_err() {
        vmmkit_testkit::harness::skip(format!("no {python} (set PYTHON)"));
    }
    let scratch = Scratch::new();
    let script = crate_dir().join("tests/python/vllm_style.py");
    let lib = library_dir().join("libamdhip64.so");
    let mut cmd = scratch.command(python.as_ref(), library_dir());
    cmd.arg(&script).arg(&lib);
    let out = finish(&mut [scratch.start("vllm_style.py", cmd)]).remove(0);
    print!("{out}");
    assert!(out.contains("bound 10 functions"), "not every function was bound:\n{out}");
    assert!(out.contains("child: ok") && out.contains("parent: ok"), "the round trip did not finish:\n{out}");
    assert_eq!(scratch.shared_left(), Vec::<String>::new(), "left shared memory behind");
}

vmmkit_testkit::harness!(vllm_style_ctypes_wrapper_binds_every_function_and_shares_memory,);
