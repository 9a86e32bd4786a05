//! Identity comes from the registry, not from caller-supplied text: the
//! creator of an IPC key is the process the registry recorded for its block,
//! whatever pid the key's text spells. Real processes: an exporter (then
//! SIGKILLed), a process that keeps the block open, and an importer that
//! tries the real key and forged ones.

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use common::acl;
use common::worker::Worker;
use vmmkit_sys::acl::*;
use vmmkit_testkit::TestRoot;

const SIZE: usize = 2 << 20;

/// The peers: this binary serving the `ipk` commands.
#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("ipk") => ipk_serve(),
        Some(other) => panic!("unknown role {other}"),
    }
}

/// The `ipk` commands, through the ACL library:
///
/// ```text
/// export SEED   aclrtMalloc 2 MiB on device 0, filled with SEED, and a key
///               for it that any process may import; replies the key
/// import KEY    aclrtIpcMemImportByKey; replies the first byte read through it
/// pid           replies this process's pid
/// ```
fn ipk_serve() {
    let api = acl();
    let rc = call!(api, aclInit(std::ptr::null()));
    assert!(rc == AclError::SUCCESS || rc == AclError::REPEAT_INITIALIZE, "aclInit: {rc}");
    ok!(api, aclrtSetDevice(0));
    let err = |rc: AclError| format!("err {} {}", rc.0, common::last_message(&api));
    while let Some(line) = common::next_command() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let out = match w.as_slice() {
            ["export", seed] => {
                let mut va: *mut c_void = null_mut();
                ok!(api, aclrtMalloc(&mut va, SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
                ok!(api, aclrtMemset(va, SIZE, seed.parse::<i32>().unwrap(), SIZE));
                let mut key = [0 as c_char; ACL_IPC_KEY_MIN_LEN];
                let flags = ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
                match call!(api, aclrtIpcMemGetExportKey(va, SIZE, key.as_mut_ptr(), key.len(), flags)) {
                    AclError::SUCCESS => {
                        // SAFETY: the key is NUL-terminated within its 65 bytes.
                        let text = unsafe { std::ffi::CStr::from_ptr(key.as_ptr()) };
                        format!("ok {}", text.to_str().unwrap())
                    }
                    rc => err(rc),
                }
            }
            ["import", key] => {
                let text = std::ffi::CString::new(*key).unwrap();
                let mut va: *mut c_void = null_mut();
                match call!(api, aclrtIpcMemImportByKey(&mut va, text.as_ptr(), 0)) {
                    AclError::SUCCESS => {
                        let mut first = [0u8; 4096];
                        let kind = ACL_MEMCPY_DEVICE_TO_HOST;
                        ok!(api, aclrtMemcpy(first.as_mut_ptr().cast(), first.len(), va, first.len(), kind));
                        format!("ok {}", first[0])
                    }
                    rc => err(rc),
                }
            }
            ["pid"] => format!("ok {}", std::process::id()),
            _ => panic!("unknown ipk command {line}"),
        };
        common::reply(out);
    }
}

/// `key` with its first 8 characters (the creator's pid) replaced by `pid`.
fn with_pid(key: &str, pid: &str) -> String {
    format!("{:08x}{}", pid.parse::<u32>().unwrap(), &key[8..])
}

/// `key` with its device field (characters 24 and 25) replaced by `device`.
fn with_device(key: &str, device: u8) -> String {
    format!("{}{device:02x}{}", &key[..24], &key[26..])
}

/// The importer's reply to importing `key`: must be the kernel's refusal.
fn refused(importer: &mut Worker, key: &str, what: &str) {
    let reply = importer.ask(&format!("import {key}"));
    assert!(reply.starts_with("err 507899"), "{what}: {reply}");
}

/// A forged key (the real one with another pid or device written in it)
/// names no export, before and after its creator dies: the import trusts
/// the creator the registry recorded, never the pid in the key. The real
/// key is refused once its creator is dead (ACL-IPK-015).
#[test]
fn a_forged_key_imports_nothing_before_or_after_its_creator_dies() {
    let root = TestRoot::new("vmmkit-keys-").expect("root").checked();
    let mut exporter = Worker::start("exporter", "ipk", root.path(), &[]);
    let mut holder = Worker::start("holder", "ipk", root.path(), &[]);
    let mut importer = Worker::start("importer", "ipk", root.path(), &[]);
    let key = exporter.ok("export 7");
    assert_eq!(key.len(), 64, "{key}");
    assert_eq!(holder.ok(&format!("import {key}")), "7", "the real key imports while its creator lives");
    let me = importer.ok("pid");
    let other = holder.ok("pid");
    let forged = [
        (with_pid(&key, &me), "the importer's own pid"),
        (with_pid(&key, &other), "another live importer's pid"),
        (with_device(&key, 1), "another device"),
    ];
    for (k, what) in &forged {
        refused(&mut importer, k, &format!("while the creator lives, a key with {what}"));
    }
    exporter.kill();
    // The holder keeps the block open: the entry is still there.
    refused(&mut importer, &key, "the real key after its creator was SIGKILLed (ACL-IPK-015)");
    for (k, what) in &forged {
        refused(&mut importer, k, &format!("after the creator was SIGKILLed, a key with {what}"));
    }
    importer.finish();
    holder.finish();
    // Every process that held the block is gone: gc collects it.
    assert_eq!(common::audit::gc(root.path()).entries, 1, "the dead exporter's block");
    assert_eq!(root.leftovers(), Vec::<String>::new());
}
