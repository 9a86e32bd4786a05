//! The CANN memory-sharing samples, and negative cases, as C programs of our
//! own: built by this test with the system C compiler against `include/`,
//! linked with `-lascendcl` against the `libascendcl.so` this `cargo test`
//! built, and run as two real processes on a fresh emulator root.

mod common;

use common::{Process, Scratch, finish, value_after};

/// Runs exporter `a` and importer `b` together, as the samples' launcher
/// does, and checks what the launcher checks: both exit 0, and the value
/// after `Source data:` in A's output equals the one after
/// `Destination data:` in B's (here also: it is 123).
fn run_sample(a: &str, b: &str) {
    let scratch = Scratch::new();
    let a_exe = scratch.compile(a, "ascendcl");
    let b_exe = scratch.compile(b, "ascendcl");
    let mut procs = [scratch.start(a, scratch.command(&a_exe)), scratch.start(b, scratch.command(&b_exe))];
    let out = finish(&mut procs);
    let source = value_after(&out[0], "Source data:");
    let destination = value_after(&out[1], "Destination data:");
    println!("{a}: Source data: {}", source.unwrap_or("(none)"));
    println!("{b}: Destination data: {}", destination.unwrap_or("(none)"));
    assert_eq!(source, Some("123"), "{a} printed no `Source data: 123`:\n{}", out[0]);
    assert_eq!(destination, source, "{b}'s destination differs from the source:\n{}", out[1]);
    println!("[SUCCESS] Memory sharing successfully. Values at source and destination are equal: 123");
    scratch.assert_nothing_shared();
}

/// Sample 7 (acl.md §7.1): trustlist on, B's pid exchanged through `file/pid.bin`.
#[test]
fn sample7_sharing_with_pid() {
    run_sample("sample7_a", "sample7_b");
}

/// Sample 8 (acl.md §7.2): exported with DISABLE_PID_VALIDATION, no pid exchange.
#[test]
fn sample8_sharing_without_pid() {
    run_sample("sample8_a", "sample8_b");
}

/// Runs `negative <case>` (and, for two-process cases, a second case beside
/// it); returns each one's output.
fn run_negative(cases: &[&str]) -> Vec<String> {
    let scratch = Scratch::new();
    let exe = scratch.compile("negative", "ascendcl");
    let mut procs: Vec<Process> = cases
        .iter()
        .map(|c| {
            let mut cmd = scratch.command(&exe);
            cmd.arg(c);
            scratch.start(c, cmd)
        })
        .collect();
    let out = finish(&mut procs);
    scratch.assert_nothing_shared();
    out
}

/// Checks that `output` printed `<call> returned <code>`, and that the error
/// message that followed names `rule` first.
fn assert_code(output: &str, call: &str, code: i32, rule: &str) {
    let line = format!("[INFO]  {call} returned {code}");
    println!("{line}");
    assert!(output.lines().any(|l| l == line), "expected `{line}` in:\n{output}");
    let msg = value_after(output, "aclGetRecentErrMsg").unwrap_or_default();
    println!("  aclGetRecentErrMsg: {msg}");
    assert!(msg.starts_with(&format!("{rule}:")), "the message should name {rule}: {msg}");
}

/// ACL-IMP-011: an importer that is not on the trustlist gets 507899.
#[test]
fn importer_not_on_trustlist_is_507899() {
    let out = run_negative(&["untrusted-export", "untrusted-import"]);
    assert_code(&out[1], "aclrtMemImportFromShareableHandle", 507_899, "ACL-IMP-011");
}

/// ACL-IMP-007: a shareable handle that was never exported is 107017.
#[test]
fn unknown_shareable_handle_is_107017() {
    let out = run_negative(&["unknown-handle"]);
    assert_code(&out[0], "aclrtMemImportFromShareableHandle", 107_017, "ACL-IMP-007");
}

/// ACL-MAP-007: a map at an address that is not 2 MiB aligned is 507899.
#[test]
fn misaligned_map_is_507899() {
    let out = run_negative(&["misaligned-map"]);
    assert_code(&out[0], "aclrtMapMem", 507_899, "ACL-MAP-007");
}

/// ACL-PID-007: SetPid on a handle exported with DISABLE_PID_VALIDATION is 207006.
#[test]
fn setpid_after_disable_pid_validation_is_207006() {
    let out = run_negative(&["setpid-disabled"]);
    assert_code(&out[0], "aclrtMemSetPidToShareableHandle", 207_006, "ACL-PID-007");
}

/// acl.md §1.1: the sample environment script links a helper with
/// `-lacl_rt`. `libacl_rt.so` is a symlink to `libascendcl.so` (as the README
/// tells users to make it); the helper links, records `NEEDED libascendcl.so`
/// through the soname, and runs.
#[test]
fn acl_rt_symlink_links_the_env_script_helper() {
    let scratch = Scratch::new();
    let exe = scratch.compile("soc_name", "acl_rt");
    let mut procs = [scratch.start("soc_name", scratch.command(&exe))];
    let out = finish(&mut procs);
    println!("aclrtGetSocName: {}", out[0].trim());
    assert!(out[0].starts_with("Ascend"), "aclrtGetSocName printed {:?}", out[0]);
    let dynamic = common::binutils("readelf", &["-d".as_ref(), exe.as_os_str()]);
    assert!(dynamic.contains("[libascendcl.so]"), "the helper should need libascendcl.so:\n{dynamic}");
}

/// Fault injection works through the drop-in library: the sample's exporter
/// fails where `VMMKIT_FAULTS` says, with that code, and reports it the way
/// the vendor sample does (acl.md §7: exit status 255).
#[test]
fn fault_injection_reaches_c_programs() {
    let scratch = Scratch::new();
    let exe = scratch.compile("sample8_a", "ascendcl");
    let mut cmd = scratch.command(&exe);
    cmd.env("VMMKIT_FAULTS", "aclrtMallocPhysical#1=ACL_ERROR_RT_MEMORY_ALLOCATION");
    let (exit, text) = vmmkit_testkit::process::run(&mut cmd, common::DEADLINE).expect("run sample8_a");
    assert_eq!(exit.code(), Some(255), "{text}");
    assert!(
        text.contains("[ERROR]  Operation failed: aclrtMallocPhysical returned error code 207001"),
        "the injected code reaches the program:\n{text}"
    );
    scratch.assert_nothing_shared();
}

/// Runs `soc_windows` with `VMMKIT_SOC=soc` (unset for `None`); its output.
fn soc_windows(soc: Option<&str>) -> String {
    let scratch = Scratch::new();
    let exe = scratch.compile("soc_windows", "ascendcl");
    let mut cmd = scratch.command(&exe);
    match soc {
        Some(s) => cmd.env("VMMKIT_SOC", s),
        None => cmd.env_remove("VMMKIT_SOC"),
    };
    let mut procs = [scratch.start("soc_windows", cmd)];
    let out = finish(&mut procs).remove(0);
    println!("VMMKIT_SOC={}:\n{out}", soc.unwrap_or("(unset)"));
    out
}

/// The fields after `label ` on its line.
fn fields<'a>(out: &'a str, label: &str) -> Vec<&'a str> {
    let line = out.lines().find(|l| l.starts_with(&format!("{label} "))).unwrap_or_default();
    line.split_whitespace().skip(1).collect()
}

/// Whether the `%p` text `p` lies in [16 TiB, 24 TiB).
fn in_reserve_window(p: &str) -> bool {
    let a = usize::from_str_radix(p.trim_start_matches("0x"), 16).unwrap_or(0);
    (16usize << 40..24usize << 40).contains(&a)
}

/// The chip name and the windows agree, under each profile: an A3 name
/// (the default, and `VMMKIT_SOC=A3`) gets the dynamic window, so the
/// A3 branch's NoUCMemory reservation at 78 TiB succeeds, maps and reads
/// back; a 910B name gets the 910B's windows, where that reservation is
/// refused as on a 910B (507899, ACL-RSV-011 under 910B). Both reserve
/// in [16 TiB, 24 TiB).
#[test]
fn soc_name_and_address_windows_agree_under_each_profile() {
    for soc in [None, Some("A3"), Some("Ascend910_9382")] {
        let out = soc_windows(soc);
        let s = fields(&out, "soc");
        assert!(s.first().is_some_and(|n| n.starts_with("Ascend910_93")) && s[1] == "a3=1", "{soc:?}: {out}");
        assert!(soc != Some("Ascend910_9382") || s[0] == "Ascend910_9382", "the name given is the name reported");
        let r = fields(&out, "reserve");
        assert!(r[0] == "0" && in_reserve_window(r[1]), "{soc:?}: {out}");
        assert_eq!(fields(&out, "nouc"), ["0", "0x4e0000000000"], "{soc:?}: the A3 reservation at 78 TiB");
        assert_eq!(fields(&out, "nouc-map"), ["0", "120"], "{soc:?}: mapped and read back at 78 TiB");
    }
    for soc in ["910B", "Ascend910B3"] {
        let out = soc_windows(Some(soc));
        let s = fields(&out, "soc");
        assert!(s.first().is_some_and(|n| n.starts_with("Ascend910B")) && s[1] == "a3=0", "{soc}: {out}");
        let r = fields(&out, "reserve");
        assert!(r[0] == "0" && in_reserve_window(r[1]), "{soc}: {out}");
        assert_eq!(fields(&out, "nouc").first(), Some(&"507899"), "{soc}: refused as on a 910B: {out}");
    }
}
