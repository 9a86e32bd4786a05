//! Through the drop-in: `tests/c/runtime.c`, built against our
//! headers and linked with `-lascendcl`, calls each family vmmkit emulates
//! beyond memory sharing (devices, contexts, streams, events, callbacks,
//! host data) and two unsupported exports, checking every documented result
//! itself; one process per family, on a fresh emulator root.

mod common;

use common::{Scratch, finish};

/// Runs `runtime <family>`; it must exit 0 and report its checks.
fn family(name: &str) {
    let scratch = Scratch::new();
    let exe = scratch.compile("runtime", "ascendcl");
    let mut cmd = scratch.command(&exe);
    cmd.arg(name);
    let out = finish(&mut [scratch.start(name, cmd)]);
    let head = format!("[INFO]  {name}: ");
    let passed = out[0].lines().find(|l| l.starts_with(&head) && l.ends_with(" checks passed"));
    println!("{}", passed.unwrap_or("(no summary)"));
    assert!(passed.is_some_and(|l| !l.starts_with(&format!("{head}0 "))), "{name}:\n{}", out[0]);
    scratch.assert_nothing_shared();
}

#[test]
fn device_functions() {
    family("device");
}

#[test]
fn context_functions() {
    family("context");
}

#[test]
fn stream_functions() {
    family("stream");
}

#[test]
fn event_functions() {
    family("event");
}

#[test]
fn callbacks_on_a_report_thread() {
    family("callback");
}

#[test]
fn host_data_and_last_error() {
    family("hostdata");
}

#[test]
fn unsupported_exports_fail_with_207000_and_name_themselves() {
    family("unsupported");
}
