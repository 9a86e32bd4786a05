//! How many allocations a process can hold live: none costs an open file
//! (the memory not shared lives in the process's one arena file), and
//! neighbouring `hipMalloc` allocations are one mapping to the kernel, so
//! neither `RLIMIT_NOFILE`'s soft value (1024 by default) nor
//! `vm.max_map_count` (65,530 by default) stops a program that holds
//! 100,000 of them, as a caching allocator or a KV-cache pool does.
//! Each test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::{audit, isolated};
use hip_common::{hip, read, write};
use vmmkit_sys::hip::*;

/// Live allocations the test holds.
const LIVE: usize = 100_000;
/// The soft limit of open files the test runs under (the usual default).
const SOFT_NOFILE: u64 = 1024;

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map(|d| d.count()).unwrap_or(0)
}

fn set_soft_nofile(soft: u64) {
    let mut l = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: a valid out-pointer.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) }, 0);
    l.rlim_cur = soft.min(l.rlim_max);
    // SAFETY: a valid in-pointer.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &l) }, 0, "setrlimit");
}

/// 100,000 live `hipMalloc` allocations of a page each under a soft limit
/// of 1024 open files (the hard limit as it is): each one written and read
/// back (every 97th), the process's open files and mappings counted, then
/// all freed, leaving nothing behind. Before the arena, `hipMalloc` failed
/// with 2 after about 1,017 live allocations here.
#[test]
fn hip_malloc_holds_100_000_live_allocations_under_1024_open_files() {
    isolated("hip_malloc_holds_100_000_live_allocations_under_1024_open_files", &[("VMMKIT_DEVICES", "2")], |root| {
        set_soft_nofile(SOFT_NOFILE);
        let api = hip();
        let mut live: Vec<*mut c_void> = Vec::with_capacity(LIVE);
        // The first allocation starts the emulator (its registry's files, the arena).
        let mut first = null_mut();
        hok!(api, hipMalloc(&mut first, 4096));
        live.push(first);
        let (fds_before, maps_before) = (open_fds(), audit::all_maps());
        let started = std::time::Instant::now();
        for i in 1..LIVE {
            let mut p = null_mut();
            let rc = hcall!(api, hipMalloc(&mut p, 4096));
            assert_eq!(rc, HipError::SUCCESS, "hipMalloc number {} of {LIVE}: {}", i + 1, hip_common::message());
            live.push(p);
        }
        let took = started.elapsed();
        for (i, &p) in live.iter().enumerate().step_by(97) {
            write(&api, p, &(i as u64).to_le_bytes());
        }
        for (i, &p) in live.iter().enumerate().step_by(97) {
            assert_eq!(read(&api, p, 8), (i as u64).to_le_bytes(), "allocation {i} kept its bytes");
        }
        let (fds, maps) = (open_fds(), audit::all_maps());
        let max_map_count: usize = std::fs::read_to_string("/proc/sys/vm/max_map_count")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(65_530);
        println!(
            "{LIVE} live hipMalloc allocations in {took:?}: open files {fds_before} -> {fds} (soft limit {SOFT_NOFILE}), \
             mappings {maps_before} -> {maps} (vm.max_map_count {max_map_count})"
        );
        assert_eq!(fds, fds_before, "no open file per allocation");
        assert!(maps < maps_before + 100, "neighbouring allocations share mappings: {maps_before} -> {maps}");
        for p in live {
            hok!(api, hipFree(p));
        }
        assert_eq!(audit::window_maps(), 0, "no mapping left in the device window");
        audit::assert_clean(root, "after 100,000 allocations");
    });
}

/// Freed holes are filled again: allocations freed in the middle of a run
/// and made again read as zeros (their pages were given back), and the
/// mappings merge again once the holes are filled.
#[test]
fn hip_malloc_reuses_freed_ranges_zeroed() {
    isolated("hip_malloc_reuses_freed_ranges_zeroed", &[("VMMKIT_DEVICES", "2")], |root| {
        let api = hip();
        let maps_before = audit::all_maps();
        let mut live: Vec<*mut c_void> = (0..64)
            .map(|_| {
                let mut p = null_mut();
                hok!(api, hipMalloc(&mut p, 4096));
                p
            })
            .collect();
        for &p in &live {
            write(&api, p, &[0xab; 4096]);
        }
        for i in (0..64).step_by(2) {
            hok!(api, hipFree(live[i]));
            let mut p = null_mut();
            hok!(api, hipMalloc(&mut p, 4096));
            assert_eq!(read(&api, p, 4096), vec![0u8; 4096], "a freed range comes back zeroed");
            live[i] = p;
        }
        for &p in live.iter().skip(1).step_by(2) {
            assert_eq!(read(&api, p, 4096), vec![0xab; 4096], "neighbours keep their bytes");
        }
        assert!(audit::all_maps() < maps_before + 8, "{maps_before} -> {}", audit::all_maps());
        for p in live {
            hok!(api, hipFree(p));
        }
        audit::assert_clean(root, "after reuse");
    });
}
