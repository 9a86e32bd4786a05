//! The memory functions of `libascendcl.so`, family by family,
//! from a C program built against our headers (`tests/c/memory18.c`): each
//! family checks the documented results and codes through the drop-in and
//! prints `[PASS] <family>`.

mod common;

use common::{Scratch, finish};

/// Runs `memory18 <family>` on a fresh root; checks it passed and left nothing shared.
fn family(name: &str) {
    family_with(name, &[]);
}

/// [`family`] with extra environment.
fn family_with(name: &str, env: &[(&str, &str)]) {
    let scratch = Scratch::new();
    let exe = scratch.compile("memory18", "ascendcl");
    let mut cmd = scratch.command(&exe);
    cmd.arg(name).envs(env.iter().copied());
    let mut procs = [scratch.start(name, cmd)];
    let out = finish(&mut procs);
    let pass = format!("[INFO]  [PASS] {name}");
    assert!(out[0].lines().any(|l| l == pass), "no `{pass}` in:\n{}", out[0]);
    println!("{pass}");
    scratch.assert_nothing_shared();
}

fn malloc_variants_and_devsync_frees() {
    family("malloc");
}

fn host_register_v2_device_pointer_unregister() {
    family("host");
}

fn managed_memory_advise_attrs_prefetch() {
    family("managed");
}

fn allocators_register_and_are_called() {
    family("allocator");
}

fn d32_fills_batch_offset_condition_and_desc_copies() {
    family("copy");
}

fn usage_type_uce_cache_and_link_queries() {
    family("query");
}

/// The families with stream work (fills, batch, offset and descriptor
/// copies, prefetches, allocators) also pass when streams run late and out
/// of step (`VMMKIT_STREAMS=adversarial`): each reads only after its synchronize.
fn stream_families_pass_under_adversarial_streams() {
    for name in ["copy", "managed", "allocator"] {
        family_with(name, &[("VMMKIT_STREAMS", "adversarial:7")]);
    }
}

fn mbufs_data_user_data_refs_and_chains() {
    family("mbuf");
}

fn device_code_functions_fail_with_207000_and_say_so() {
    family("device");
}

/// CANN's own headers, when a fetched hicann/runtime is at hand: the
/// directory `VMMKIT_CANN_INCLUDE` names (holding `acl/acl.h`), else
/// `include/external` read out of the git mirror `VMMKIT_CANN_RUNTIME_GIT`
/// (default `/work/.mirror/hicann+runtime/repo`) into `dir`. `None` when neither is there.
fn vendor_include(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    if let Some(inc) = std::env::var_os("VMMKIT_CANN_INCLUDE") {
        let inc = std::path::PathBuf::from(inc);
        return inc.join("acl/acl_rt.h").is_file().then_some(inc);
    }
    let git = std::env::var_os("VMMKIT_CANN_RUNTIME_GIT").unwrap_or_else(|| "/work/.mirror/hicann+runtime/repo".into());
    if !std::path::Path::new(&git).is_dir() {
        return None;
    }
    let script = "git --git-dir \"$0\" archive HEAD include/external/acl | tar -x -C \"$1\"";
    let st = std::process::Command::new("sh").args(["-c", script]).arg(&git).arg(dir).status().ok()?;
    let inc = dir.join("include/external");
    (st.success() && inc.join("acl/acl_rt.h").is_file()).then_some(inc)
}

/// The same program built against CANN's own headers (read from the
/// fetched hicann/runtime at run time, never kept in the repository) runs
/// every family through the drop-in: our exports have the vendor's names,
/// types and values. Skipped, with the reason, where no copy is at hand.
fn vendor_headers_build_and_run_every_family() {
    let scratch = Scratch::new();
    let Some(inc) = vendor_include(scratch.path()) else {
        vmmkit_testkit::harness::skip("no hicann/runtime headers (set VMMKIT_CANN_INCLUDE or VMMKIT_CANN_RUNTIME_GIT)");
    };
    let src = common::c_dir().join("memory18.c");
    let exe = scratch.path().join("bin/memory18_vendor");
    // The vendor marks aclrtMemcpyAsyncWithCondition deprecated; that is all it warns of.
    let mut cmd = std::process::Command::new(common::c_compiler());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-Wno-deprecated-declarations", "-I"])
        .arg(&inc)
        .arg("-o")
        .arg(&exe)
        .arg(&src)
        .arg("-L")
        .arg(scratch.lib_dir())
        .arg("-lascendcl");
    common::run_compiler(&mut cmd, &src);
    for name in ["malloc", "host", "managed", "allocator", "copy", "query", "mbuf", "device"] {
        let mut cmd = scratch.command(&exe);
        cmd.arg(name);
        let out = finish(&mut [scratch.start(name, cmd)]);
        let pass = format!("[INFO]  [PASS] {name}");
        assert!(out[0].lines().any(|l| l == pass), "vendor headers, {name}: no `{pass}` in:\n{}", out[0]);
        println!("vendor headers ({}): {pass}", inc.display());
    }
    scratch.assert_nothing_shared();
}

/// An LD_PRELOAD hook of aclrtMallocAlign32 written in C++
/// (`tests/c/hook_align32.cc`, as sglang's torch_memory_saver) exports the
/// unmangled name, because our header declares it with C linkage, and
/// intercepts the calls of the malloc family, which still passes.
fn a_cxx_ld_preload_hook_of_align32_intercepts_it() {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if std::process::Command::new(&cxx).arg("--version").output().is_err() {
        vmmkit_testkit::harness::skip(format!("no C++ compiler `{cxx}` (set CXX)"));
    }
    let scratch = Scratch::new();
    let src = common::c_dir().join("hook_align32.cc");
    let hook = scratch.path().join("lib/libhook_align32.so");
    let mut cmd = std::process::Command::new(&cxx);
    cmd.args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", "-I"])
        .arg(common::include_dir())
        .arg("-o")
        .arg(&hook)
        .arg(&src)
        .arg("-ldl");
    common::run_compiler(&mut cmd, &src);
    let symbols = common::binutils("nm", &["-D".as_ref(), "--defined-only".as_ref(), hook.as_os_str()]);
    assert!(
        symbols.lines().any(|l| l.ends_with(" T aclrtMallocAlign32")),
        "the hook should export the plain C name:\n{symbols}"
    );
    let exe = scratch.compile("memory18", "ascendcl");
    let mut run = scratch.command(&exe);
    run.arg("malloc").env("LD_PRELOAD", &hook);
    let out = finish(&mut [scratch.start("malloc (hooked)", run)]);
    let hooked = out[0].lines().filter(|l| l.starts_with("[HOOK]  aclrtMallocAlign32")).count();
    assert!(hooked >= 3, "the hook saw {hooked} calls:\n{}", out[0]);
    assert!(out[0].lines().any(|l| l == "[INFO]  [PASS] malloc"), "{}", out[0]);
    println!("the C++ hook intercepted {hooked} aclrtMallocAlign32 calls; the malloc family passed");
}

vmmkit_testkit::harness!(
    malloc_variants_and_devsync_frees,
    host_register_v2_device_pointer_unregister,
    managed_memory_advise_attrs_prefetch,
    allocators_register_and_are_called,
    d32_fills_batch_offset_condition_and_desc_copies,
    usage_type_uce_cache_and_link_queries,
    stream_families_pass_under_adversarial_streams,
    mbufs_data_user_data_refs_and_chains,
    device_code_functions_fail_with_207000_and_say_so,
    vendor_headers_build_and_run_every_family,
    a_cxx_ld_preload_hook_of_align32_intercepts_it,
);
