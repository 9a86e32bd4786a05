//! The `driver` worker role: one command per line, each a step of the
//! export/import flow done through a [`Dialect`], on memory named by the
//! orchestrating test. Replies are `ok [VALUE]` or `err CODE MESSAGE`.
//!
//! ```text
//! device D                   make device D current
//! alloc NAME D SIZE          physical memory on device D
//! map NAME D                 reserve, map all of it, grant device D access
//! fill NAME SEED             write the pattern of SEED; replies its checksum
//! sum NAME                   read the whole mapping; replies its checksum
//! export NAME TRUST          TRUST 1: trustlist on; replies the shareable
//!                            handle (an fd handle: `fd`, the fd attached)
//! setpid NAME PID            add PID to the trustlist of NAME's export
//! import NAME SHAREABLE D SIZE
//!                            (an fd handle: `fd`, the fd attached; it is
//!                            closed after the import, as memMapIPCDrv does)
//! copyloop NAME              a thread copies NAME to the host, again and
//!                            again; replies after the first copy
//! unmap NAME                 unmap and release the reservation
//! free NAME                  free the handle
//! teardown                   unmap, release and free everything left
//! pid | used | census        the pid trustlists name | bytes used on the current device |
//!                            handles reservations mappings window-maps root-fds
//! exit
//! ```

use std::collections::HashMap;
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::dialect::{Dialect, Handle, checksum, pattern};
use super::{next_command_fds, reply, reply_fds};

struct Obj {
    h: Handle,
    size: usize,
    va: Option<usize>,
    /// The export's wire text (ACL: the key, for set-pid); an exported fd
    /// is not kept: it travels with the reply and is closed here.
    key: Option<String>,
}

fn err<D: Dialect>(d: &D, code: i64) -> String {
    format!("err {code} {} ({})", D::describe(code), d.last_message())
}

/// Serves driver commands until `exit` or end of input.
pub fn serve<D: Dialect>() {
    let d = D::open();
    let root = PathBuf::from(std::env::var("VMMKIT_ROOT").expect("root"));
    let mut objs: HashMap<String, Obj> = HashMap::new();
    let stop = Arc::new(AtomicBool::new(false));
    let mut loops = Vec::new();
    while let Some((cmd, mut fds)) = next_command_fds() {
        let w: Vec<&str> = cmd.split_whitespace().collect();
        let num = |i: usize| -> u64 { w[i].parse().unwrap_or_else(|_| panic!("number in `{cmd}`")) };
        let out = match w.as_slice() {
            ["device", _] => d.set_device(num(1) as u32).map(|()| "ok".into()).unwrap_or_else(|c| err(&d, c)),
            ["alloc", name, _, _] => match d.alloc(num(2) as u32, num(3) as usize) {
                Ok(h) => {
                    objs.insert(name.to_string(), Obj { h, size: num(3) as usize, va: None, key: None });
                    "ok".into()
                }
                Err(c) => err(&d, c),
            },
            ["map", name, _] => {
                let o = objs.get_mut(*name).expect("known name");
                match d.reserve(o.size) {
                    Ok(va) => match d.map(va, o.size, o.h, num(2) as u32) {
                        Ok(()) => {
                            o.va = Some(va);
                            "ok".into()
                        }
                        Err(c) => {
                            let _ = d.release(va);
                            err(&d, c)
                        }
                    },
                    Err(c) => err(&d, c),
                }
            }
            ["fill", name, _] => {
                let o = &objs[*name];
                let data = pattern(o.size, num(2));
                match d.write(o.va.expect("mapped"), &data) {
                    Ok(()) => format!("ok {}", checksum(&data)),
                    Err(c) => err(&d, c),
                }
            }
            ["sum", name] => {
                let o = &objs[*name];
                let mut data = vec![0u8; o.size];
                match d.read(o.va.expect("mapped"), &mut data) {
                    Ok(()) => format!("ok {}", checksum(&data)),
                    Err(c) => err(&d, c),
                }
            }
            ["export", name, trust] => {
                let o = objs.get_mut(*name).expect("known name");
                match d.export(o.h, *trust == "1") {
                    Ok(k) => {
                        let (text, fd) = D::to_wire(k);
                        o.key = Some(text.clone());
                        // The fd goes with the reply; this process's copy closes here.
                        reply_fds(
                            format!("ok {text}"),
                            &fd.as_ref().map(|f| f.as_fd()).into_iter().collect::<Vec<_>>(),
                        );
                        continue;
                    }
                    Err(c) => err(&d, c),
                }
            }
            ["setpid", name, pid] => {
                let text = objs[*name].key.clone().expect("exported");
                let key = D::from_wire(&text, None).expect("a shareable handle that is text");
                match d.set_pids(key, &[pid.parse().expect("pid")]) {
                    Ok(()) => "ok".into(),
                    Err(c) => err(&d, c),
                }
            }
            ["import", name, key, _, _] => {
                let Some(s) = D::from_wire(key, fds.pop()) else { panic!("shareable handle in `{cmd}`") };
                match d.import(s, num(3) as u32) {
                    Ok(h) => {
                        objs.insert(name.to_string(), Obj { h, size: num(4) as usize, va: None, key: None });
                        "ok".into()
                    }
                    Err(c) => err(&d, c),
                }
            }
            ["copyloop", name] => {
                let o = &objs[*name];
                let (va, size) = (o.va.expect("mapped"), o.size);
                let stop = stop.clone();
                let first = Arc::new(AtomicU64::new(0));
                let (tx, rx) = std::sync::mpsc::channel();
                loops.push(std::thread::spawn(move || {
                    let d = D::open();
                    let _ = d.set_device(0);
                    let mut host = vec![0u8; size];
                    let mut n = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if let Err(c) = d.read(va, &mut host) {
                            let _ = tx.send(Err(c));
                            return;
                        }
                        n += 1;
                        if n == 1 {
                            first.store(checksum(&host), Ordering::Relaxed);
                            let _ = tx.send(Ok(first.load(Ordering::Relaxed)));
                        }
                    }
                }));
                match rx.recv_timeout(super::TIMEOUT) {
                    Ok(Ok(sum)) => format!("ok {sum}"),
                    Ok(Err(c)) => err(&d, c),
                    Err(e) => panic!("copy loop: {e}"),
                }
            }
            ["unmap", name] => {
                let o = objs.get_mut(*name).expect("known name");
                let va = o.va.take().expect("mapped");
                match d.unmap(va).and_then(|()| d.release(va)) {
                    Ok(()) => "ok".into(),
                    Err(c) => err(&d, c),
                }
            }
            ["free", name] => {
                let o = objs.remove(*name).expect("known name");
                match d.free(o.h) {
                    Ok(()) => "ok".into(),
                    Err(c) => err(&d, c),
                }
            }
            ["teardown"] => {
                // Unmap, release and free whatever is left; the first failure is the reply.
                let mut first = None;
                for (_, o) in objs.drain() {
                    if let Some(va) = o.va {
                        first = first.or(d.unmap(va).and_then(|()| d.release(va)).err());
                    }
                    first = first.or(d.free(o.h).err());
                }
                first.map(|c| err(&d, c)).unwrap_or_else(|| "ok".into())
            }
            ["pid"] => format!("ok {}", d.pid()),
            ["used"] => d.used().map(|u| format!("ok {u}")).unwrap_or_else(|c| err(&d, c)),
            ["census"] => {
                let c = super::audit::process_census(&root);
                format!("ok {} {} {} {} {}", c.census.0, c.census.1, c.census.2, c.window_maps, c.root_fds)
            }
            ["exit"] => {
                stop.store(true, Ordering::Relaxed);
                for l in loops.drain(..) {
                    let _ = l.join();
                }
                reply("ok");
                return;
            }
            other => panic!("unknown driver command {other:?}"),
        };
        reply(out);
    }
}
