//! Processes forked after the emulator started: the
//! child never acts with its parent's identity. A worker allocates, maps,
//! fills and exports with the trustlist on, then forks; its child's import,
//! allocation and free return ACL-FORK-001's code with a message naming the
//! parent, while the memory it inherited stays readable; the child's exit
//! reports none of the parent's objects (leak report, journal); an unrelated
//! untrusted process is still refused, the parent's capacity stays charged
//! and the parent keeps working.
//!
//! The fork happens in a worker (this binary run again in a role), never in
//! the multi-threaded test harness that runs the tests.

mod common;

use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};

use common::dialect::{Acl, Dialect, checksum, pattern};
use common::isolated;
use common::worker::{Worker, err_code};
use vmmkit_emulator::journal::Record;
use vmmkit_sys::acl::rules;

const G: usize = 2 << 20;
const SEED: u64 = 7;

/// The peers: this binary run as a driver, or as the process that forks.
#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("driver") => common::driver::serve::<Acl>(),
        Some("forker") => forker(),
        Some(other) => panic!("unknown role {other}"),
    }
}

/// `setup` (replies the shareable handle), `fork` (replies
/// `CHILD IMPORT ALLOC FREE READABLE|MESSAGE`), `again`, `teardown`.
fn forker() {
    let d = Acl::open();
    let mut state = None;
    while let Some(cmd) = common::next_command() {
        let out = match cmd.as_str() {
            "setup" => {
                d.set_device(0).expect("device");
                let h = d.alloc(0, G).expect("alloc");
                let va = d.reserve(G).expect("reserve");
                d.map(va, G, h, 0).expect("map");
                d.write(va, &pattern(G, SEED)).expect("fill");
                let key = d.export(h, true).expect("export with the trustlist on");
                state = Some((h, va, key));
                format!("ok {key}")
            }
            "fork" => {
                let (h, va, key) = state.expect("setup first");
                fork_and_probe(&d, h, va, key)
            }
            "again" => {
                let h = d.alloc(0, G).expect("alloc after the child");
                d.free(h).expect("free after the child");
                let (_, va, _) = state.expect("setup first");
                let mut data = vec![0u8; G];
                d.read(va, &mut data).expect("read after the child");
                assert_eq!(checksum(&data), checksum(&pattern(G, SEED)), "the parent's data");
                "ok".into()
            }
            "teardown" => {
                let (h, va, _) = state.take().expect("setup first");
                d.unmap(va).and_then(|()| d.release(va)).and_then(|()| d.free(h)).expect("teardown");
                "ok".into()
            }
            other => panic!("unknown forker command {other:?}"),
        };
        common::reply(out);
    }
}

/// Forks; the child imports the parent's export, allocates, frees the
/// parent's handle and reads the inherited mapping directly, writes what it
/// got to a pipe and exits through `exit` (so that its atexit handlers run).
fn fork_and_probe(d: &Acl, h: usize, va: usize, key: <Acl as Dialect>::Shareable) -> String {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0, "pipe");
    // SAFETY: the worker's only other thread is libtest's, waiting for this
    // test; the child calls the emulator (which refuses), writes and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork");
    if pid == 0 {
        let code = |r: Result<usize, i64>| r.err().unwrap_or(0);
        let import = code(d.import(key, 0));
        let message = d.last_message();
        let alloc = code(d.alloc(0, G));
        let free = d.free(h).err().unwrap_or(0);
        // SAFETY: the mapping was inherited, readable from the host (VMMKIT_HOST_ACCESS=1).
        let inherited = unsafe { std::slice::from_raw_parts(va as *const u8, G) };
        let readable = checksum(inherited) == checksum(&pattern(G, SEED));
        let line = format!("{} {import} {alloc} {free} {readable}|{message}", std::process::id());
        // SAFETY: fds[1] is the pipe's write end, owned by the child now.
        let mut w = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fds[1]) });
        let _ = std::io::Write::write_all(&mut w, line.as_bytes());
        drop(w);
        // SAFETY: ends the child through exit(3), running the atexit
        // handlers it inherited (the leak report, the journal).
        unsafe { libc::exit(0) }
    }
    // SAFETY: fds[1] is the write end, which only the child keeps.
    unsafe { libc::close(fds[1]) };
    // SAFETY: fds[0] is the read end, owned here from now on.
    let mut r = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fds[0]) });
    let mut got = String::new();
    r.read_to_string(&mut got).expect("the child's line");
    let mut status = 0;
    // SAFETY: waits for our own child.
    assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid, "waitpid");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "child status {status:#x}");
    format!("ok {got}")
}

#[test]
fn a_forked_child_never_acts_as_its_parent() {
    isolated("a_forked_child_never_acts_as_its_parent", &[], |root| {
        let journal = root.parent().expect("parent").join("journal");
        std::fs::create_dir_all(&journal).expect("journal dir");
        let env = [("VMMKIT_LEAK_REPORT", "1"), ("VMMKIT_JOURNAL", journal.to_str().expect("utf-8"))];
        let mut parent = Worker::start("parent", "forker", root, &env);
        let parent_pid = parent.pid();
        let key = parent.ok("setup");

        let reply = parent.ok("fork");
        let (codes, message) = reply.split_once('|').expect("codes|message");
        let f: Vec<&str> = codes.split_whitespace().collect();
        let want = rules::FORK_001.code().expect("a code").raw().to_string();
        assert_eq!(f[1..4], [want.as_str(), want.as_str(), want.as_str()], "import, alloc, free in the child");
        assert_eq!(f[4], "true", "the inherited mapping stays readable");
        assert!(
            message.starts_with("ACL-FORK-001: aclrtMemImportFromShareableHandle: this process (pid ")
                && message.contains(&format!("is a fork of pid {parent_pid}, made after the emulator")),
            "{message}"
        );
        let child: u32 = f[0].parse().expect("child pid");

        // An unrelated process is refused by the trustlist; the parent's
        // allocation is still charged (the child freed nothing).
        let mut stranger = Worker::start("stranger", "driver", root, &[]);
        stranger.ok("device 0");
        let refused = stranger.ask(&format!("import x {key} 0 {G}"));
        assert_eq!(err_code(&refused), rules::IMP_011.code().map(|c| c.raw()), "{refused}");
        assert_eq!(stranger.ok("used"), G.to_string(), "the parent's allocation stays charged");

        parent.ok("again");
        parent.ok("teardown");
        parent.finish();
        stranger.ok("exit");
        stranger.finish();

        // One leak report (the parent's, after its teardown): the child's
        // exit reported nothing of its parent's.
        let log = parent.stderr_tail();
        let reports: Vec<&str> = log.lines().filter(|l| l.contains("vmmkit: leak report")).collect();
        assert_eq!(reports, ["vmmkit: leak report: nothing left unreleased"], "{log}");
        // The journals: the parent's exit lists nothing (it tore down); the
        // child, whose every call was refused, lists none of its parent's
        // objects (it has no journal unless it recorded something).
        for pid in [parent_pid, child] {
            let Ok(text) = std::fs::read_to_string(journal.join(format!("{pid}.jsonl"))) else {
                assert_eq!(pid, child, "the parent's journal");
                continue;
            };
            let records: Vec<Record> = text.lines().map(|l| serde_json::from_str(l).expect("record")).collect();
            assert!(matches!(records.last(), Some(Record::Exit { leaks, .. }) if leaks.is_empty()), "{pid}: {text}");
        }
    });
}
