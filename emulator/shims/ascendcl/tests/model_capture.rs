//! Model capture through the drop-in (`tests/c/model_capture.c`, ACL-MRI):
//! a copy, a fill and a host function captured into a model run at each
//! execution and only then, in capture order; refused calls leave the
//! capture going. Fails when the order, the replay or a check breaks.

mod common;

use common::{Scratch, finish};

#[test]
fn captured_copy_fill_and_host_function_replay_in_order() {
    let scratch = Scratch::new();
    let exe = scratch.compile("model_capture", "ascendcl");
    let mut procs = [scratch.start("model_capture", scratch.command(&exe))];
    let out = finish(&mut procs);
    println!("{}", out[0]);
    for line in [
        "[INFO]  aclrtSynchronizeStream (capturing) returned 107027",
        "[INFO]  aclrtMemcpy (GLOBAL capture) returned 107030",
        "[INFO]  status while capturing: 1",
        "[INFO]  before executing: byte 0 = 0, host function runs = 0",
        "[INFO]  execution 1: in order = 1, host function runs = 1",
        "[INFO]  execution 2: in order = 1, host function runs = 2",
        "[INFO]  aclmdlRIExecuteAsync (destroyed model) returned 107017",
        "[INFO]  model capture: done",
    ] {
        assert!(out[0].lines().any(|l| l == line), "expected `{line}` in:\n{}", out[0]);
    }
    scratch.assert_nothing_shared();
}
