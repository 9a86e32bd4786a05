//! Issue 18: the memory functions of `libascendcl.so`, family by family,
//! from a C program built against our headers (`tests/c/memory18.c`): each
//! family checks the documented results and codes through the drop-in and
//! prints `[PASS] <family>`.

mod common;

use common::{Scratch, finish};

/// Runs `memory18 <family>` on a fresh root; checks it passed and left nothing shared.
fn family(name: &str) {
    let scratch = Scratch::new();
    let exe = scratch.compile("memory18", "ascendcl");
    let mut cmd = scratch.command(&exe);
    cmd.arg(name);
    let mut procs = [scratch.start(name, cmd)];
    let out = finish(&mut procs);
    let pass = format!("[INFO]  [PASS] {name}");
    assert!(out[0].lines().any(|l| l == pass), "no `{pass}` in:\n{}", out[0]);
    println!("{pass}");
    scratch.assert_nothing_shared();
}

#[test]
fn malloc_variants_and_devsync_frees() {
    family("malloc");
}

#[test]
fn host_register_v2_device_pointer_unregister() {
    family("host");
}

#[test]
fn managed_memory_advise_attrs_prefetch() {
    family("managed");
}

#[test]
fn allocators_register_and_are_called() {
    family("allocator");
}

#[test]
fn d32_fills_batch_offset_condition_and_desc_copies() {
    family("copy");
}

#[test]
fn usage_type_uce_cache_and_link_queries() {
    family("query");
}

#[test]
fn mbufs_data_user_data_refs_and_chains() {
    family("mbuf");
}

#[test]
fn device_code_functions_fail_with_207000_and_say_so() {
    family("device");
}
