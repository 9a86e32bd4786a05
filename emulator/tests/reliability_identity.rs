//! Who a process is, and what happens when one stops, forks, lives in
//! another pid namespace, or the root's `state` is lost, each in real
//! processes with its own root.
//!
//! The capacity ledger takes no lock and knows a process by the lock of its
//! slot, not by its pid (emulator/src/registry/state.rs); these tests are
//! what breaks when either stops being true.

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::path::Path;
use std::process::Command;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use common::{TIMEOUT, acl, isolated, next_command, prop, reply};
use vmmkit_emulator::registry::Registry;
use vmmkit_sys::acl::*;
use vmmkit_testkit::libtest;

const MIB: usize = 1 << 20;
/// The longest a registry change of one process may be delayed by another
/// process stopped in the middle of one of its own. The ledger takes no
/// lock, so the delay is the change's own cost (tens of microseconds); the
/// bound leaves room for a loaded 2-core CI machine.
const STOP_BOUND: Duration = Duration::from_millis(250);

fn setup(api: &AclApi) {
    let rc = call!(api, aclInit(std::ptr::null()));
    assert!(rc == AclError::SUCCESS || rc == AclError::REPEAT_INITIALIZE, "aclInit: {rc}");
    ok!(api, aclrtSetDevice(0));
}

fn alloc(api: &AclApi, size: usize) -> Result<aclrtDrvMemHandle, AclError> {
    let mut h = null_mut();
    match call!(api, aclrtMallocPhysical(&mut h, size, &prop(0), 0)) {
        AclError::SUCCESS => Ok(h),
        rc => Err(rc),
    }
}

fn export(api: &AclApi, h: aclrtDrvMemHandle, trustlist: bool) -> u64 {
    let flags = if trustlist { ACL_RT_VMM_EXPORT_FLAG_DEFAULT } else { ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION };
    let mut key = 0;
    ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut key));
    key
}

/// MiB in use on devices 0 and 1.
fn used_mib(root: &Path) -> Vec<u64> {
    let reg = Registry::open_existing(root).expect("open the root");
    reg.usage().used.iter().take(2).map(|u| u / MIB as u64).collect()
}

/// Starts a peer in `role` with extra environment (common::Peer takes none).
fn spawn(role: &str, env: &[(&str, &str)], wrap: &[&str]) -> vmmkit_testkit::Peer {
    let rerun = libtest::rerun("peer").expect("test exe");
    let mut cmd = match wrap.split_first() {
        Some((first, rest)) => {
            let mut c = Command::new(first);
            c.args(rest).arg(rerun.get_program()).args(rerun.get_args());
            c
        }
        None => rerun,
    };
    cmd.env("VMMKIT_TEST_PEER", role).env_remove("VMMKIT_TEST_CHILD");
    for (k, v) in env {
        cmd.env(k, v);
    }
    vmmkit_testkit::Peer::spawn_logged(role, &mut cmd).expect("spawn peer")
}

fn ask(p: &mut vmmkit_testkit::Peer, line: &str) -> String {
    p.send_text(line, &[]).unwrap_or_else(|e| panic!("`{line}`: {e}"));
    p.recv_text(TIMEOUT).unwrap_or_else(|e| panic!("reply to `{line}`: {e}\n{}", p.output_tail(40)))
}

/// The peers: this binary, run in a role.
fn peer() {
    let Some(role) = common::peer_role() else { return };
    let api = acl();
    setup(&api);
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match (role.as_str(), words.as_slice()) {
            (_, ["pid"]) => reply(std::process::id()),
            (_, ["alloc", mib]) => {
                let h = alloc(&api, mib.parse::<usize>().expect("MiB") * MIB).expect("alloc");
                reply(h as usize);
            }
            (_, ["export", mib, trust]) => {
                let h = alloc(&api, mib.parse::<usize>().expect("MiB") * MIB).expect("alloc");
                reply(format!("{:x}", export(&api, h, *trust == "on")));
            }
            // Allocate, export, free: one of each kind of registry change.
            (_, ["cycle"]) => {
                let h = alloc(&api, 2 * MIB).expect("alloc");
                export(&api, h, false);
                ok!(api, aclrtFreePhysical(h));
                reply("done");
            }
            // A child that inherits everything and waits to be killed.
            ("forker", ["fork"]) => {
                // SAFETY: the child calls only async-signal-safe functions
                // (alarm, pause) and never returns into Rust.
                let child = unsafe { libc::fork() };
                if child == 0 {
                    // SAFETY: as above; the alarm ends it if nobody does.
                    unsafe {
                        libc::alarm(120);
                        loop {
                            libc::pause();
                        }
                    }
                }
                reply(child);
            }
            // Imports `key` until it is gone: each try is refused (not on
            // the trustlist) or finds no such handle.
            ("prober", ["probe", key]) => {
                let key = u64::from_str_radix(key, 16).expect("hex key");
                let mut tries = 0u32;
                loop {
                    let mut h = null_mut();
                    let rc = call!(api, aclrtMemImportFromShareableHandle(key, 0, &mut h));
                    tries += 1;
                    match rc {
                        AclError::SUCCESS => panic!("an untrusted import succeeded"),
                        AclError::RT_DRV_INTERNAL_ERROR => {}
                        _ => break,
                    }
                }
                reply(tries);
            }
            // Takes the setup lock of the root's state file and keeps it.
            (_, ["hold-setup", path]) => {
                let f = std::fs::File::open(path).expect("state file");
                rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive).expect("flock");
                std::mem::forget(f);
                reply("held");
            }
            (r, w) => panic!("peer {r}: unknown command {w:?}"),
        }
    }
}

/// Item 1: a child forked from a process that allocated device memory holds
/// that memory (its mappings are the parent's); while it lives, gc must not
/// give the capacity back, and nobody may over-commit it.
fn a_forked_child_keeps_its_memory_charged() {
    isolated("a_forked_child_keeps_its_memory_charged", &[("VMMKIT_DEVICE_MEMORY", "64m")], |root| {
        // The orphaned child comes to us, so that we can reap it.
        rustix::process::set_child_subreaper(Some(rustix::process::getpid())).expect("subreaper");
        let mut p = spawn("forker", &[], &[]);
        ask(&mut p, "alloc 32");
        let child: i32 = ask(&mut p, "fork").parse().expect("child pid");
        p.close();
        assert!(p.wait(TIMEOUT).expect("the parent exits").success());

        let reg = Registry::open_existing(root).unwrap();
        let report = reg.gc().unwrap();
        assert_eq!((report.processes, report.bytes), (0, 0), "the child is alive: {report:?}");
        assert_eq!(used_mib(root), [32, 0]);
        let api = acl();
        setup(&api);
        assert_eq!(alloc(&api, 48 * MIB).unwrap_err(), AclError::RT_MEMORY_ALLOCATION, "no over-commit");

        // SAFETY: kill and waitpid on our own (adopted) child.
        unsafe {
            libc::kill(child, libc::SIGKILL);
            libc::waitpid(child, null_mut(), 0);
        }
        let report = reg.gc().unwrap();
        assert_eq!((report.processes, report.bytes), (1, 32 * MIB as u64), "{report:?}");
        assert_eq!(used_mib(root), [0, 0]);
        ok!(api, aclrtFreePhysical(alloc(&api, 48 * MIB).expect("fits now")));
    });
}

/// Item 9: a process stopped (SIGSTOP) in the middle of a registry change —
/// a charge, an export, a removal — delays no other process's allocation,
/// export or free by more than [`STOP_BOUND`], nor gc; once continued, it
/// finishes, and the ledger is exact.
fn a_stopped_process_delays_nobody() {
    isolated("a_stopped_process_delays_nobody", &[], |root| {
        let api = acl();
        setup(&api);
        for point in ["charge", "export", "remove"] {
            let mut p = spawn("stopper", &[("VMMKIT_PAUSE_AT", point)], &[]);
            p.send_text("cycle", &[]).unwrap();
            wait_stopped(p.pid());
            let mut worst = Duration::ZERO;
            for _ in 0..50 {
                let t = Instant::now();
                let h = alloc(&api, 2 * MIB).expect("alloc while a peer is stopped");
                export(&api, h, false);
                ok!(api, aclrtFreePhysical(h));
                worst = worst.max(t.elapsed());
            }
            let t = Instant::now();
            Registry::open_existing(root).unwrap().gc().unwrap();
            let gc = t.elapsed();
            println!("stopped at {point}: worst allocate + export + free {worst:?}, gc {gc:?}");
            assert!(worst < STOP_BOUND && gc < STOP_BOUND, "stopped at {point}: {worst:?}, gc {gc:?}");
            rustix::process::kill_process(
                rustix::process::Pid::from_raw(p.pid() as i32).unwrap(),
                rustix::process::Signal::CONT,
            )
            .unwrap();
            assert_eq!(p.recv_text(TIMEOUT).unwrap(), "done", "the stopped peer finishes its change");
            p.close();
            assert!(p.wait(TIMEOUT).unwrap().success());
            let reg = Registry::open_existing(root).unwrap();
            reg.gc().unwrap();
            assert_eq!(used_mib(root), [0, 0], "stopped at {point}: exact once it finished");
            assert!(reg.entries().is_empty());
        }
    });
}

/// The setup lock of a root's state file (the one wait on a `flock` that
/// is taken blocking, with a bound): a holder stopped with it delays
/// another process's open by the stated bound (5 s), which then fails
/// (`TimedOut`, the dialects' init code) instead of hanging; once the holder
/// is killed, the kernel drops its lock and the open succeeds at once.
fn a_stopped_holder_of_the_setup_lock_delays_an_open_by_its_bound_only() {
    isolated("a_stopped_holder_of_the_setup_lock_delays_an_open_by_its_bound_only", &[], |root| {
        let cfg = vmmkit_emulator::Config::from_env().expect("config");
        drop(vmmkit_emulator::registry::Registry::open(&cfg).expect("the root is set up"));
        let mut p = spawn("holder", &[], &[]);
        let state = root.join("state");
        assert_eq!(ask(&mut p, &format!("hold-setup {}", state.display())), "held");
        let pid = rustix::process::Pid::from_raw(p.pid() as i32).unwrap();
        rustix::process::kill_process(pid, rustix::process::Signal::STOP).unwrap();
        wait_stopped(p.pid());
        let t = Instant::now();
        let r = vmmkit_emulator::registry::Registry::open(&cfg);
        let waited = t.elapsed();
        assert!(r.is_err(), "a held setup lock: the open fails");
        assert!(waited >= Duration::from_secs(4) && waited < Duration::from_secs(8), "bounded at 5 s: {waited:?}");
        rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
        let _ = p.wait(TIMEOUT);
        let t = Instant::now();
        drop(vmmkit_emulator::registry::Registry::open(&cfg).expect("the killed holder's lock is gone"));
        assert!(t.elapsed() < Duration::from_secs(1), "{:?}", t.elapsed());
    });
}

fn wait_stopped(pid: u32) {
    let deadline = Instant::now() + TIMEOUT;
    loop {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if stat.rsplit(')').next().is_some_and(|rest| rest.trim_start().starts_with('T')) {
            return;
        }
        assert!(Instant::now() < deadline, "peer {pid} never stopped: {stat}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Items 3 and 12: `state` removed while an entry lives, then damaged. The
/// next process sets the ledger up from what is linked: new share ids do
/// not collide with the entry's, its capacity is counted, gc gives back
/// only what was really left, and no byte of `state` makes anyone panic.
fn a_lost_state_is_rebuilt_from_the_entries() {
    isolated("a_lost_state_is_rebuilt_from_the_entries", &[("VMMKIT_DEVICE_MEMORY", "64m")], |root| {
        let mut p = spawn("exporter", &[], &[]);
        let old = u64::from_str_radix(&ask(&mut p, "export 4 off"), 16).unwrap();
        std::fs::remove_file(root.join("state")).unwrap();

        let api = acl();
        setup(&api);
        let h = alloc(&api, 2 * MIB).unwrap();
        let key = export(&api, h, false);
        assert_ne!(key, old, "a fresh share id");
        assert_eq!(used_mib(root), [6, 0], "the live entry is counted in the new ledger");
        let mut imported = null_mut();
        ok!(api, aclrtMemImportFromShareableHandle(old, 1, &mut imported));
        ok!(api, aclrtFreePhysical(imported));

        // The old exporter lets go: nothing wraps around in either ledger.
        p.close();
        assert!(p.wait(TIMEOUT).unwrap().success());
        let reg = Registry::open_existing(root).unwrap();
        reg.gc().unwrap();
        assert_eq!(used_mib(root), [2, 0]);
        ok!(api, aclrtFreePhysical(h));
        assert_eq!(used_mib(root), [0, 0]);

        // A device count no root can have: inspection says so, no panic.
        let state = root.join("state");
        let mut bytes = std::fs::read(&state).unwrap();
        bytes[8..12].copy_from_slice(&1000u32.to_le_bytes());
        std::fs::write(&state, &bytes).unwrap();
        let e = Registry::open_existing(root).unwrap_err().to_string();
        assert!(e.contains("not a vmmkit state file"), "{e}");
    });
}

/// Item 10: new device figures are taken once every process that used the
/// old ones has exited, without a manual gc; what they left is collected.
fn new_device_figures_once_everyone_exited() {
    isolated("new_device_figures_once_everyone_exited", &[("VMMKIT_DEVICE_MEMORY", "128m")], |root| {
        let mut p = spawn("old", &[("VMMKIT_DEVICE_MEMORY", "64m")], &[]);
        ask(&mut p, "alloc 8");
        p.kill();
        let api = acl();
        setup(&api);
        let (mut free, mut total) = (0, 0);
        ok!(api, aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total));
        assert_eq!((total / MIB, free / MIB), (128, 128));
        assert_eq!(used_mib(root), [0, 0]);
    });
}

/// Item 6: an untrusted importer retrying while the exporter frees must not
/// leave the entry behind: its refused import held the entry for a moment,
/// and if that was the last hold, it removes the entry (no gc needed).
fn a_refused_import_racing_a_free_leaves_nothing() {
    isolated("a_refused_import_racing_a_free_leaves_nothing", &[], |root| {
        let api = acl();
        setup(&api);
        let mut prober = spawn("prober", &[], &[]);
        let rounds = 200;
        let mut tries = 0u64;
        for _ in 0..rounds {
            let h = alloc(&api, 2 * MIB).unwrap();
            let key = export(&api, h, true);
            prober.send_text(&format!("probe {key:x}"), &[]).unwrap();
            std::thread::sleep(Duration::from_micros(200));
            ok!(api, aclrtFreePhysical(h));
            tries += prober.recv_text(TIMEOUT).unwrap().parse::<u64>().unwrap();
            let reg = Registry::open_existing(root).unwrap();
            assert!(reg.entries().is_empty(), "entry {key:#x} left behind");
            assert_eq!(used_mib(root), [0, 0], "entry {key:#x} still charged");
        }
        println!("{rounds} rounds, {tries} refused imports racing the free");
    });
}

/// Item 2: processes in another pid namespace share the root. Nobody looks
/// a pid up in the wrong /proc: a live process in a container keeps its
/// memory charged, whatever its pid means here.
fn another_pid_namespace_shares_the_root() {
    isolated("another_pid_namespace_shares_the_root", &[("VMMKIT_DEVICE_MEMORY", "64m")], |root| {
        let wrap = ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child"];
        let probe = Command::new(wrap[0]).args(&wrap[1..]).arg("true").output();
        if !probe.as_ref().is_ok_and(|o| o.status.success()) {
            vmmkit_testkit::harness::skip(format!("`unshare --user --pid` is not available here ({probe:?})"));
        }
        let mut p = spawn("contained", &[], &wrap);
        assert_eq!(ask(&mut p, "pid"), "1", "pid 1 of its own namespace");
        ask(&mut p, "alloc 16");
        let reg = Registry::open_existing(root).unwrap();
        assert_eq!(reg.gc().unwrap().processes, 0, "alive, whatever pid 1 is here");
        assert_eq!(used_mib(root), [16, 0]);
        let api = acl();
        setup(&api);
        assert_eq!(alloc(&api, 56 * MIB).unwrap_err(), AclError::RT_MEMORY_ALLOCATION, "no over-commit");
        p.kill();
        // `--kill-child` ends the contained process a moment after unshare.
        let deadline = Instant::now() + TIMEOUT;
        let report = loop {
            let r = reg.gc().unwrap();
            if r.processes > 0 || Instant::now() > deadline {
                break r;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!((report.processes, report.bytes), (1, 16 * MIB as u64), "{report:?}");
        ok!(api, aclrtFreePhysical(alloc(&api, 56 * MIB).expect("fits now")));
    });
}

vmmkit_testkit::harness!(
    peer,
    a_forked_child_keeps_its_memory_charged,
    a_stopped_process_delays_nobody,
    a_stopped_holder_of_the_setup_lock_delays_an_open_by_its_bound_only,
    a_lost_state_is_rebuilt_from_the_entries,
    new_device_figures_once_everyone_exited,
    a_refused_import_racing_a_free_leaves_nothing,
    another_pid_namespace_shares_the_root,
);
