//! External allocators (`acl/acl_rt_allocator.h`). A
//! description holds the user's allocator object and its four callbacks;
//! registering it on a stream keeps a copy, which aclrtAllocatorGetByStream
//! hands back so that the caller (an operator library, as in CANN) calls
//! them. The behaviour is hicann/runtime@681ef76
//! `src/acl/aclrt_impl/allocator.cpp` (lines in docs/emulator.md): every
//! NULL is 100000, registering needs the object, alloc, free and
//! get-address callbacks, a stream with no allocator is 100000, and
//! unregistering an unregistered stream succeeds. Descriptions are looked up
//! by address (an unknown one is 100000), never dereferenced.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::acl::*;

use super::call::{Fail, emu, non_null, run};
use crate::ffi::Out;
use super::mem_alloc::{bad, mem};
use super::state::lock;

/// A description: the user's allocator and its callbacks.
#[derive(Debug, Clone, Copy)]
pub(super) struct Desc {
    obj: aclrtAllocator,
    alloc: aclrtAllocatorAllocFunc,
    free: aclrtAllocatorFreeFunc,
    advise: aclrtAllocatorAllocAdviseFunc,
    get_addr: aclrtAllocatorGetAddrFromBlockFunc,
}

// SAFETY: the values are the user's opaque pointers and C functions, passed
// back to the user, never dereferenced here.
unsafe impl Send for Desc {}

impl Default for Desc {
    fn default() -> Self {
        Self { obj: std::ptr::null_mut(), alloc: None, free: None, advise: None, get_addr: None }
    }
}

/// The descriptions alive, by address: each a `Box<Desc>` leaked into the
/// table's keeping until aclrtAllocatorDestroyDesc.
fn with_desc<R>(d: aclrtAllocatorDesc, f: impl FnOnce(&mut Desc) -> R) -> Result<R, Fail> {
    non_null(d, "allocatorDesc")?;
    let e = emu()?;
    let descs = lock(&mem(e).allocator_descs);
    if !descs.contains(&(d as usize)) {
        return Err(bad(AclError::INVALID_PARAM, format!("{d:p} is no allocator description of this process")));
    }
    // SAFETY: a live `Box<Desc>` made by aclrtAllocatorCreateDesc (in the
    // table, which the lock keeps from being destroyed meanwhile).
    Ok(f(unsafe { &mut *d.cast::<Desc>() }))
}

/// `aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)`: a new, empty description (NULL when the emulator cannot start).
pub extern "C" fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc {
    let mut out: aclrtAllocatorDesc = std::ptr::null_mut();
    let _ = run("aclrtAllocatorCreateDesc", || {
        let e = emu()?;
        let p = Box::into_raw(Box::<Desc>::default());
        lock(&mem(e).allocator_descs).insert(p as usize);
        out = p.cast();
        Ok(())
    });
    out
}

/// `aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)`.
pub extern "C" fn aclrtAllocatorDestroyDesc(allocatorDesc: aclrtAllocatorDesc) -> aclError {
    run("aclrtAllocatorDestroyDesc", || {
        non_null(allocatorDesc, "allocatorDesc")?;
        let e = emu()?;
        if !lock(&mem(e).allocator_descs).remove(&(allocatorDesc as usize)) {
            return Err(bad(AclError::INVALID_PARAM, format!("{allocatorDesc:p} is no allocator description of this process")));
        }
        // SAFETY: made by Box::into_raw in aclrtAllocatorCreateDesc, removed from the table once.
        drop(unsafe { Box::from_raw(allocatorDesc.cast::<Desc>()) });
        Ok(())
    })
}

/// `aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)`.
pub extern "C" fn aclrtAllocatorSetObjToDesc(allocatorDesc: aclrtAllocatorDesc, allocator: aclrtAllocator) -> aclError {
    run("aclrtAllocatorSetObjToDesc", || {
        non_null(allocatorDesc, "allocatorDesc")?;
        non_null(allocator, "allocator")?;
        with_desc(allocatorDesc, |d| d.obj = allocator)
    })
}

/// The four setters: the description, then the function, must not be NULL (allocator.cpp:81-117).
macro_rules! setter {
    ($(#[$doc:meta])* $name:ident, $ty:ty, $field:ident) => {
        $(#[$doc])*
        pub extern "C" fn $name(allocatorDesc: aclrtAllocatorDesc, func: $ty) -> aclError {
            run(stringify!($name), || {
                non_null(allocatorDesc, "allocatorDesc")?;
                if func.is_none() {
                    return Err(bad(AclError::INVALID_PARAM, "func is NULL"));
                }
                with_desc(allocatorDesc, |d| d.$field = func)
            })
        }
    };
}

setter!(
    /// `aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorAllocFunc)`.
    aclrtAllocatorSetAllocFuncToDesc, aclrtAllocatorAllocFunc, alloc
);
setter!(
    /// `aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorFreeFunc)`.
    aclrtAllocatorSetFreeFuncToDesc, aclrtAllocatorFreeFunc, free
);
setter!(
    /// `aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorAllocAdviseFunc)`.
    aclrtAllocatorSetAllocAdviseFuncToDesc, aclrtAllocatorAllocAdviseFunc, advise
);
setter!(
    /// `aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc, aclrtAllocatorGetAddrFromBlockFunc)`.
    aclrtAllocatorSetGetAddrFromBlockFuncToDesc, aclrtAllocatorGetAddrFromBlockFunc, get_addr
);

/// `aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)`:
/// stream and description NULL, and a description without its object, alloc,
/// free or get-address function, are 100000 (allocator.cpp:119-139); a
/// later registration on the same stream replaces the earlier.
pub extern "C" fn aclrtAllocatorRegister(stream: aclrtStream, allocatorDesc: aclrtAllocatorDesc) -> aclError {
    run("aclrtAllocatorRegister", || {
        non_null(stream, "stream")?;
        non_null(allocatorDesc, "allocatorDesc")?;
        let copy = with_desc(allocatorDesc, |d| *d)?;
        non_null(copy.obj, "allocatorDesc->obj")?;
        for (set, what) in [
            (copy.alloc.is_some(), "allocatorDesc->allocFunc"),
            (copy.free.is_some(), "allocatorDesc->freeFunc"),
            (copy.get_addr.is_some(), "allocatorDesc->getAddrFromBlockFunc"),
        ] {
            if !set {
                return Err(bad(AclError::INVALID_PARAM, format!("{what} is NULL")));
            }
        }
        super::device::stream_id(stream)?;
        lock(&mem(emu()?).allocators).insert(stream as usize, (allocatorDesc as usize, copy));
        Ok(())
    })
}

/// `aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
/// aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc, aclrtAllocatorFreeFunc *freeFunc,
/// aclrtAllocatorAllocAdviseFunc *allocAdviseFunc, aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)`:
/// what was registered; the outputs other than allocatorDesc may be NULL.
pub extern "C" fn aclrtAllocatorGetByStream(
    stream: aclrtStream,
    allocatorDesc: Out<'_, aclrtAllocatorDesc>,
    allocator: Out<'_, aclrtAllocator>,
    allocFunc: Out<'_, aclrtAllocatorAllocFunc>,
    freeFunc: Out<'_, aclrtAllocatorFreeFunc>,
    allocAdviseFunc: Out<'_, aclrtAllocatorAllocAdviseFunc>,
    getAddrFromBlockFunc: Out<'_, aclrtAllocatorGetAddrFromBlockFunc>,
) -> aclError {
    run("aclrtAllocatorGetByStream", || {
        non_null(allocatorDesc, "allocatorDesc")?;
        non_null(stream, "stream")?;
        let Some((desc, d)) = lock(&mem(emu()?).allocators).get(&(stream as usize)).copied() else {
            return Err(bad(AclError::INVALID_PARAM, "the stream is not registered with any allocator"));
        };
        allocatorDesc.write(desc as *mut c_void)?;
        allocator.write_if_given(d.obj);
        allocFunc.write_if_given(d.alloc);
        freeFunc.write_if_given(d.free);
        allocAdviseFunc.write_if_given(d.advise);
        getAddrFromBlockFunc.write_if_given(d.get_addr);
        Ok(())
    })
}

/// `aclError aclrtAllocatorUnregister(aclrtStream stream)`: NULL is 100000; any other stream succeeds.
pub extern "C" fn aclrtAllocatorUnregister(stream: aclrtStream) -> aclError {
    run("aclrtAllocatorUnregister", || {
        non_null(stream, "stream")?;
        lock(&mem(emu()?).allocators).remove(&(stream as usize));
        Ok(())
    })
}
