//! Isolation and permissions: a root is private (0700, objects 0600); a
//! root that is a symlink, not ours, not a directory, or writable by others
//! is refused with a clear error through the ACL table (207004 and a message
//! naming the problem, for every call that needs the emulator); no shareable
//! handle value can name a path outside the root; two roots never see each
//! other.

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::ptr::null_mut;

use common::dialect::{Acl, Dialect, acl_prop};
use common::worker::{Worker, err_code};
use common::{acl, audit, isolated};
use proptest::prelude::*;
use vmmkit_sys::acl::*;

const G: usize = 2 << 20;

/// The peers: this binary run as a driver, or as a probe of an unusable root.
#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("driver") => common::driver::serve::<Acl>(),
        Some("probe") => probe(),
        Some(other) => panic!("unknown role {other}"),
    }
}

/// Calls every kind of entry point with valid arguments and replies
/// `NAME CODE MESSAGE` for each, then `end`.
fn probe() {
    let api = acl();
    let mut out = Vec::new();
    let mut note = |name: &str, rc: AclError| out.push(format!("{name} {} {}", rc.0, common::last_message(&api)));
    let (mut n, mut h, mut va, mut g) = (0u32, null_mut(), null_mut(), 0usize);
    note("aclInit", call!(api, aclInit(std::ptr::null())));
    note("aclrtGetDeviceCount", call!(api, aclrtGetDeviceCount(&mut n)));
    note("aclrtSetDevice", call!(api, aclrtSetDevice(0)));
    let mut prop = acl_prop(0);
    note("aclrtMemGetAllocationGranularity", call!(api, aclrtMemGetAllocationGranularity(&mut prop, 0, &mut g)));
    note("aclrtMallocPhysical", call!(api, aclrtMallocPhysical(&mut h, G, &acl_prop(0), 0)));
    note("aclrtReserveMemAddress", call!(api, aclrtReserveMemAddress(&mut va, G, 0, null_mut(), 0)));
    note("aclrtMemImportFromShareableHandle", call!(api, aclrtMemImportFromShareableHandle(1, 0, &mut h)));
    let tagged = 0xacd0_0000_0000_0001_usize as aclrtDrvMemHandle;
    note("aclrtFreePhysical", call!(api, aclrtFreePhysical(tagged)));
    let mut key = 0;
    note("aclrtMemExportToShareableHandle", call!(api, aclrtMemExportToShareableHandle(tagged, 0, 0, &mut key)));
    note("aclrtMapMem", call!(api, aclrtMapMem(0x1000_0000_0000_usize as _, G, 0, tagged, 0)));
    for line in out {
        common::reply(line);
    }
    common::reply("end");
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).expect("stat").mode() & 0o7777
}

/// The root, its parents made for it, `state`, `shared/`, exported entries
/// and unnamed objects all have private modes.
#[test]
fn root_and_objects_are_private() {
    isolated("root_and_objects_are_private", &[], |given| {
        // The harness's root is made by its first user; make our own, with parents.
        let top = given.parent().expect("parent").join("made/by/emulator");
        let root = top.join("root");
        let mut w = Worker::start("exporter", "driver", &root, &[("VMMKIT_DEVICES", "2")]);
        w.ok("device 0");
        w.ok(&format!("alloc a 0 {G}"));
        w.ok(&format!("alloc b 0 {G}"));
        let key = w.ok("export a 1");
        for (p, want) in [
            (given.parent().unwrap().join("made"), 0o700),
            (given.parent().unwrap().join("made/by"), 0o700),
            (top.clone(), 0o700),
            (root.clone(), 0o700),
            (root.join("shared"), 0o700),
            (root.join("state"), 0o600),
            (root.join(format!("shared/{:016x}", u64::from_str_radix(&key, 16).unwrap())), 0o600),
        ] {
            assert_eq!(mode(&p), want, "mode of {}", p.display());
        }
        // The unnamed object of `b`, seen through the worker's fds.
        let objects: Vec<u32> = std::fs::read_dir(format!("/proc/{}/fd", w.pid()))
            .expect("fds")
            .flatten()
            .filter(|e| {
                std::fs::read_link(e.path())
                    .is_ok_and(|t| t.starts_with(&root) && !t.ends_with("state") && t != root.join("shared"))
            })
            .map(|e| std::fs::metadata(e.path()).expect("stat object").mode() & 0o7777)
            .collect();
        assert!(objects.len() >= 2, "the worker holds its objects: {objects:?}");
        assert!(objects.iter().all(|&m| m == 0o600), "objects are 0600: {objects:?}");
        w.ok("teardown");
        w.ok("exit");
        w.finish();
        audit::assert_clean(&root, "after exit");
    });
}

/// What a probe of `root` replied: (function, code, message).
fn probe_root(root: &Path) -> (Vec<(String, i64, String)>, String) {
    let mut w = Worker::start("probe", "probe", root, &[]);
    let mut calls = Vec::new();
    loop {
        let line = w.recv().expect("probe replies");
        if line == "end" {
            break;
        }
        let mut parts = line.splitn(3, ' ');
        let name = parts.next().unwrap_or_default().to_string();
        let code = parts.next().and_then(|c| c.parse().ok()).unwrap_or(-1);
        calls.push((name, code, parts.next().unwrap_or_default().to_string()));
    }
    w.finish();
    (calls, w.stderr_tail())
}

/// Every call of the probe returns 207004 and names `root` and `reason`;
/// the reason is printed once to stderr; nothing is created in the root.
fn assert_refused(root: &Path, reason: &str, untouched: &Path) {
    let before = audit::listing(untouched);
    let (calls, stderr) = probe_root(root);
    assert_eq!(calls.len(), 10, "{calls:?}");
    for (name, code, msg) in &calls {
        assert_eq!(*code, Acl::NO_DEVICE, "{name} with root {}: {msg}", root.display());
        assert!(
            msg.contains(&root.display().to_string()) && msg.contains(reason),
            "{name}: message names the root and `{reason}`: {msg}"
        );
    }
    assert_eq!(stderr.matches("vmmkit: ").count(), 1, "the reason is printed once to stderr:\n{stderr}");
    assert!(stderr.contains(reason), "{stderr}");
    assert_eq!(audit::listing(untouched), before, "nothing created in {}", untouched.display());
}

#[test]
fn unusable_roots_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let real = dir.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();

    // A symlink to a good directory.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_refused(&link, "is a symlink", &real);

    // Group- or world-writable.
    for m in [0o770, 0o720, 0o707, 0o777, 0o1777] {
        std::fs::set_permissions(&real, std::fs::Permissions::from_mode(m)).unwrap();
        assert_refused(&real, "lets other users write", &real);
    }
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();

    // Not a directory.
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert_refused(&file, "not a directory", dir.path());
    assert_eq!(std::fs::read(&file).unwrap(), b"x");

    // Owned by another user: as root, a directory given to nobody; otherwise
    // `/`, which is root's and is refused before anything is made in it.
    if rustix::process::geteuid().is_root() {
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::set_permissions(&theirs, std::fs::Permissions::from_mode(0o700)).unwrap();
        rustix::fs::chown(&theirs, Some(rustix::fs::Uid::from_raw(65534)), Some(rustix::fs::Gid::from_raw(65534)))
            .unwrap();
        assert_refused(&theirs, "owned by uid 65534", &theirs);
        println!("owner check: a directory chowned to nobody (65534), running as root");
    } else {
        assert_refused(Path::new("/"), "owned by uid 0", Path::new("/nonexistent-vmmkit"));
        println!("owner check: `/` (owned by root), running as uid {}", rustix::process::geteuid().as_raw());
    }
}

/// Every u64 names `shared/<16 lowercase hex digits>` inside the root
/// (proptest: 4,096 keys, random and chosen).
#[test]
fn every_key_names_a_file_inside_the_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = vmmkit_emulator::Config {
        root: dir.path().join("root"),
        devices: 1,
        device_memory: 1 << 30,
        host_memory: 1 << 30,
        host_access: true,
    };
    let reg = vmmkit_emulator::registry::Registry::open(&cfg).expect("registry");
    let shared = dir.path().join("root/shared");
    let keys = prop_oneof![
        any::<u64>(),
        Just(0u64),
        Just(u64::MAX),
        Just(0x2e2e_2f2e_2e2f_2e2e),
        (0u64..64).prop_map(|d| d << 32 | 1),
    ];
    let config = ProptestConfig { cases: 4096, failure_persistence: None, ..ProptestConfig::default() };
    proptest::test_runner::TestRunner::new(config)
        .run(&keys, |key| {
            let p = reg.entry_path(key);
            let name = p.file_name().and_then(|n| n.to_str()).expect("utf-8 name").to_string();
            prop_assert_eq!(p.parent(), Some(shared.as_path()));
            prop_assert_eq!(name.len(), 16);
            prop_assert!(name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)), "{}", name);
            prop_assert_eq!(u64::from_str_radix(&name, 16).ok(), Some(key));
            Ok(())
        })
        .expect("every key names a file in shared/");
}

/// Through the table: random keys in a root with entries and with files and
/// links planted around it import nothing but what was exported, and never
/// touch what lies outside `shared/`.
#[test]
fn no_key_reaches_outside_the_root() {
    isolated("no_key_reaches_outside_the_root", &[("VMMKIT_DEVICES", "2")], |root| {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let d = Acl::open();
        let h = d.alloc(0, G).unwrap();
        let key = d.export(h, false).unwrap().0;
        // Canaries: files named like keys next to the root, in its parent,
        // in the root itself, and a symlink inside shared/ pointing out.
        let outside = root.parent().unwrap().join("outside");
        std::fs::write(&outside, b"canary").unwrap();
        let planted = [key + 1, key + 2, (1 << 40) - 1]; // the last: the highest handle the driver reads (ACL-PID-005)
        std::fs::write(root.join(format!("{:016x}", planted[0])), b"canary").unwrap();
        std::fs::write(root.parent().unwrap().join(format!("{:016x}", planted[1])), b"canary").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("shared").join(format!("{:016x}", planted[2]))).unwrap();
        let emu = vmmkit_emulator::core::emulator().unwrap();
        let census = emu.census();
        let mut rng = 0x1234_5678u64;
        let mut keys: Vec<u64> = planted[..2].to_vec();
        for _ in 0..2000 {
            rng = common::dialect::splitmix(rng);
            keys.push(match rng % 4 {
                0 => rng,
                1 => rng & 0xff_ffff_ffff,
                2 => (rng & 0x3f) << 32 | (rng >> 40 & 0xff),
                _ => key ^ (1 << (rng % 64)),
            });
        }
        // ACL-PID-005: the driver reads bits 0-39 of a handle, so a key that
        // differs from the real one only above them names the real entry.
        const NAMED: u64 = (1 << 40) - 1;
        for k in keys.into_iter().filter(|k| k & NAMED != key & NAMED) {
            let mut out = null_mut();
            let rc = call!(api, aclrtMemImportFromShareableHandle(k, 1, &mut out));
            assert_eq!(rc, AclError::RT_INVALID_HANDLE, "key {k:#x}: {}", common::last_message(&api));
            let rc = call!(api, aclrtMemSetPidToShareableHandle(k, &mut 1, 1));
            assert_eq!(rc, AclError::RT_INVALID_HANDLE, "set-pid {k:#x}: {}", common::last_message(&api));
        }
        // The planted symlink is not followed: refused, and the canary is untouched.
        let mut out = null_mut();
        let rc = call!(api, aclrtMemImportFromShareableHandle(planted[2], 1, &mut out));
        assert_eq!(rc, AclError::RT_DRV_INTERNAL_ERROR, "a symlinked entry: {}", common::last_message(&api));
        assert!(common::last_message(&api).contains("symbolic links"), "{}", common::last_message(&api));
        assert_eq!(std::fs::read(&outside).unwrap(), b"canary");
        assert_eq!(emu.census(), census, "no handle was made");
        // The real entry still imports.
        ok!(api, aclrtMemImportFromShareableHandle(key, 1, &mut out));
        ok!(api, aclrtFreePhysical(out));
        ok!(api, aclrtFreePhysical(h as aclrtDrvMemHandle));
        assert!(std::fs::read(root.join(format!("{:016x}", planted[0]))).is_ok(), "canaries stay");
    });
}

/// Export in root A; a process of root B cannot import it (107017), and the
/// same key value in B names B's own memory.
#[test]
fn two_roots_never_see_each_other() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (ra, rb) = (dir.path().join("a"), dir.path().join("b"));
    let env = [("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "64M")];
    let mut a = Worker::start("a", "driver", &ra, &env);
    let mut b = Worker::start("b", "driver", &rb, &env);
    let mut b2 = Worker::start("b2", "driver", &rb, &env);
    for w in [&mut a, &mut b, &mut b2] {
        w.ok("device 0");
    }
    a.ok(&format!("alloc x 0 {}", 2 * G));
    a.ok("map x 0");
    let sum_a = a.ok("fill x 1");
    let key_a = a.ok("export x 0");
    let r = b.ask(&format!("import y {key_a} 0 {}", 2 * G));
    assert_eq!(err_code(&r), Some(Acl::UNKNOWN_SHAREABLE), "root B does not see A's export: {r}");
    assert_eq!(audit::used(&rb), vec![0, 0], "B's capacity is its own");
    // B exports the same key value (share ids start at 1 in every root).
    b.ok(&format!("alloc x 0 {}", 2 * G));
    b.ok("map x 0");
    let sum_b = b.ok("fill x 2");
    let key_b = b.ok("export x 0");
    assert_eq!(key_a, key_b, "the same key value in both roots");
    b2.ok(&format!("import y {key_b} 0 {}", 2 * G));
    b2.ok("map y 0");
    assert_eq!(b2.ok("sum y"), sum_b, "B's key names B's memory");
    assert_ne!(sum_a, sum_b);
    assert_eq!(audit::used(&ra), vec![4 << 20, 0]);
    assert_eq!(audit::used(&rb), vec![4 << 20, 0]);
    let pids = [a.pid(), b.pid(), b2.pid()];
    assert_eq!(audit::holders_among(&ra, &pids), vec![(u64::from_str_radix(&key_a, 16).unwrap(), vec![a.pid()])]);
    let mut hb = vec![b.pid(), b2.pid()];
    hb.sort_unstable();
    assert_eq!(audit::holders_among(&rb, &pids), vec![(u64::from_str_radix(&key_b, 16).unwrap(), hb)]);
    for w in [&mut a, &mut b, &mut b2] {
        w.ok("teardown");
        w.ok("exit");
        w.finish();
    }
    audit::assert_clean(&ra, "root A");
    audit::assert_clean(&rb, "root B");
}
