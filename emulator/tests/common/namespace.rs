//! A `pre_exec` that gives the child a private mount namespace with a
//! tmpfs mounted on a directory. Everything is prepared before the fork:
//! between fork and exec only raw system calls run.

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

/// What the child does before exec.
pub struct Plan {
    target: CString,
    options: CString,
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
}

impl Plan {
    pub fn new(target: &Path, options: &str) -> Self {
        let uid = rustix::process::geteuid().as_raw();
        let gid = rustix::process::getegid().as_raw();
        Self {
            target: CString::new(target.as_os_str().as_encoded_bytes()).expect("path"),
            options: CString::new(options).expect("options"),
            uid_map: format!("0 {uid} 1\n").into_bytes(),
            gid_map: format!("0 {gid} 1\n").into_bytes(),
        }
    }

    pub fn apply(&self, cmd: &mut Command) {
        let target = self.target.clone();
        let options = self.options.clone();
        let uid_map = self.uid_map.clone();
        let gid_map = self.gid_map.clone();
        // SAFETY: the closure makes only system calls on data prepared
        // before the fork (no allocation, no locks).
        unsafe {
            cmd.pre_exec(move || {
                // Root with CAP_SYS_ADMIN: a mount namespace; else a user namespace too.
                if libc::unshare(libc::CLONE_NEWNS) != 0 {
                    if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                        skip(b"vmmkit-test: skip: cannot create a mount or user namespace (unshare failed)\n");
                    }
                    write_file(c"/proc/self/setgroups", b"deny");
                    write_file(c"/proc/self/uid_map", &uid_map);
                    write_file(c"/proc/self/gid_map", &gid_map);
                }
                let none = c"none";
                if libc::mount(
                    none.as_ptr(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) != 0
                {
                    skip(b"vmmkit-test: skip: cannot make mounts private in the new namespace\n");
                }
                if libc::mount(c"tmpfs".as_ptr(), target.as_ptr(), c"tmpfs".as_ptr(), 0, options.as_ptr().cast()) != 0 {
                    skip(b"vmmkit-test: skip: cannot mount a tmpfs in the new namespace\n");
                }
                Ok(())
            });
        }
    }
}

/// Writes `data` to `path` with raw calls (errors ignored: the mount that follows reports them).
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) {
    // SAFETY: valid C string and buffer.
    unsafe {
        let fd = libc::open(path.as_ptr(), libc::O_WRONLY);
        if fd >= 0 {
            libc::write(fd, data.as_ptr().cast(), data.len());
            libc::close(fd);
        }
    }
}

/// Says why on stderr and exits without running the test.
fn skip(msg: &[u8]) -> ! {
    // SAFETY: raw write and exit.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
        libc::_exit(0)
    }
}

/// Runs `role` of this test binary in a private mount namespace with a tmpfs
/// of `options` on `mnt` (its root `mnt/root`), collecting the lines it
/// replies until `end`. `Err(reason)` when the namespace or the mount cannot
/// be made (the test then reports itself skipped with the reason); a
/// scenario that ends otherwise fails the test.
pub fn run_scenario(role: &str, mnt: &Path, options: &str, env: &[(&str, &str)]) -> Result<Vec<String>, String> {
    let plan = Plan::new(mnt, options);
    let root = mnt.join("root");
    let mut child = super::worker::Worker::start_with(role, role, &root, env, |cmd| plan.apply(cmd));
    let mut report = Vec::new();
    loop {
        match child.recv_within(std::time::Duration::from_secs(60)) {
            Ok(line) if line == "end" => break,
            Ok(line) => report.push(line),
            Err(ended) => {
                let tail = child.stderr_tail();
                if let Some(reason) = tail.lines().find_map(|l| l.strip_prefix("vmmkit-test: skip: ")) {
                    return Err(reason.to_string());
                }
                panic!("{role} scenario ended ({ended}):\n{tail}");
            }
        }
    }
    child.finish();
    Ok(report)
}
