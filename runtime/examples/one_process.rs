//! Reserve device addresses, back them with physical memory, and copy a
//! pattern host → device → host, printing each step.
//!
//! ```text
//! cargo run -p vmmkit-runtime --example one_process
//! ```
//!
//! It runs on the backend that `VMMKIT_BACKEND` names (`emulator-hip`,
//! `emulator-cuda`, `hip`, … : the same program for every vendor), else on a
//! real library with a device, else on the emulator's ACL dialect; the
//! emulator gets a temporary `VMMKIT_ROOT` of its own unless one is set.

use std::process::ExitCode;

use vmmkit_runtime::{Access, Granularity, Location, Runtime};

mod common;

use common::own_root;

fn main() -> ExitCode {
    // Before any other thread starts and before the emulator reads it.
    let _root = own_root();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("one_process: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let selection = Runtime::select()?;
    println!("backend: {selection}");
    let rt = Runtime::new(selection.backend)?;
    let dev = rt.device(0)?;
    // ACL counts device memory; the HIP and CUDA tables have no such call.
    let before = dev.mem_info().ok();
    if let Some(m) = before {
        println!("device 0: {} of {} bytes free", m.free, m.total);
    }

    let g = dev.granularity(Granularity::Minimum)?;
    println!("granularity: {g:#x} bytes");

    let rsv = dev.reserve(2 * g)?;
    println!("reserved {:#x} bytes at {:p}", rsv.size(), rsv.base());
    let mem = dev.alloc_physical(g)?;
    println!("allocated {g:#x} bytes of physical memory (handle {:#x})", mem.as_raw());
    let map = rsv.map(0, &mem)?;
    println!("mapped it at {:p}", map.addr());
    map.set_access(Location::Device(0), Access::ReadWrite)?;
    println!("granted device 0 read-write access");
    if before.is_some() {
        println!("device 0 now: {} bytes free", dev.mem_info()?.free);
    }

    let pattern: Vec<u8> = (0..g).map(|i| (i % 251) as u8).collect();
    map.write(0, &pattern)?;
    println!("copied {g:#x} bytes host -> device (bytes {:?}...)", &pattern[..8]);
    let mut back = vec![0u8; g];
    map.read(0, &mut back)?;
    println!("copied {g:#x} bytes device -> host (bytes {:?}...)", &back[..8]);
    if back != pattern {
        return Err("the pattern came back different".into());
    }
    println!("the pattern came back intact");

    // One thing that goes wrong, to show what an error says.
    match rsv.map(0, &mem) {
        Err(e) => println!("mapping over it again fails, as it should: {e}"),
        Ok(_) => return Err("a second map over a mapped range succeeded".into()),
    }

    map.unmap()?;
    println!("unmapped");
    mem.free()?;
    println!("freed the physical memory");
    rsv.free()?;
    println!("released the addresses");
    if let Some(before) = before {
        let after = dev.mem_info()?;
        println!("device 0: {} of {} bytes free", after.free, after.total);
        if after != before {
            return Err(format!("device memory not back: {after:?} != {before:?}").into());
        }
    }
    if !rt.take_drop_errors().is_empty() {
        return Err("a release failed".into());
    }
    Ok(())
}
