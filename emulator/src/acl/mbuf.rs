//! Mbufs (`aclrtAllocBuf` and the `aclrt*Buf*`
//! functions): a data buffer of host memory every device reaches, its data
//! length, a 96-byte private (user data) area, and a chain of further
//! mbufs. aclrtCopyBufRef makes a second handle on the same data; the data
//! is freed with its last handle. Checks from hicann/runtime@681ef76
//! `src/acl/aclrt_impl/memory.cpp:1497-1675`: the ACL layer's NULL and
//! size checks are 100000, user data past 96 bytes is 100000; the runtime
//! refuses unknown handles and out-of-range values (107000).
#![allow(non_snake_case)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::Ordering;

use vmmkit_sys::acl::*;

use super::call::{Fail, emu, non_null, run};
use crate::ffi::{In, Out};
use super::mem_alloc::{bad, mem, positive};
use super::state::{lock, state};
use crate::core::Emulator;

/// Bytes of an mbuf's private area (MEM_SIZE_MAX, memory.cpp:1535).
pub(super) const USER_DATA: usize = 96;

/// One mbuf handle.
#[derive(Debug, Clone)]
pub(super) struct Mbuf {
    data: usize,
    size: usize,
    len: usize,
    user: [u8; USER_DATA],
    chain: Vec<usize>,
}

/// Handle values: a tag in the high bits and a counter (never 0, never an address).
const TAG: usize = 0xacb0 << 48;

fn new_handle(e: &Emulator) -> usize {
    TAG | (state(e).mbufs_made.fetch_add(1, Ordering::Relaxed) + 1)
}

/// Runs `f` on the mbuf `buf` names (checked non-null by the caller), or 107000.
fn with<R>(e: &Emulator, buf: aclrtMbuf, f: impl FnOnce(&mut Mbuf, &mut HashMap<usize, Mbuf>) -> Result<R, Fail>) -> Result<R, Fail> {
    let mut all = lock(&mem(e).mbufs);
    let Some(mut m) = all.remove(&(buf as usize)) else {
        return Err(bad(AclError::RT_PARAM_INVALID, format!("{buf:p} is no mbuf of this process")));
    };
    let r = f(&mut m, &mut all);
    all.insert(buf as usize, m);
    r
}

/// `aclError aclrtAllocBuf(aclrtMbuf *buf, size_t size)`.
pub extern "C" fn aclrtAllocBuf(buf: Out<'_, aclrtMbuf>, size: usize) -> aclError {
    run("aclrtAllocBuf", || {
        non_null(buf, "buf")?;
        positive(size as u64, "size")?;
        let e = emu()?;
        let data = e.alloc_host(size).map_err(|err| bad(AclError::RT_MEMORY_ALLOCATION, err.to_string()))?;
        let h = new_handle(e);
        lock(&mem(e).mbufs).insert(h, Mbuf { data, size, len: 0, user: [0; USER_DATA], chain: Vec::new() });
        buf.write(h as aclrtMbuf)?;
        Ok(())
    })
}

/// `aclError aclrtFreeBuf(aclrtMbuf buf)`: the handle goes; the data goes with its last handle.
pub extern "C" fn aclrtFreeBuf(buf: aclrtMbuf) -> aclError {
    run("aclrtFreeBuf", || {
        non_null(buf, "buf")?;
        let e = emu()?;
        let mut all = lock(&mem(e).mbufs);
        let Some(m) = all.remove(&(buf as usize)) else {
            return Err(bad(AclError::RT_PARAM_INVALID, format!("{buf:p} is no mbuf of this process")));
        };
        if !all.values().any(|o| o.data == m.data) {
            e.free_host(m.data).map_err(|err| bad(AclError::RT_MEMORY_FREE, err.to_string()))?;
        }
        Ok(())
    })
}

/// `aclError aclrtGetBufData(const aclrtMbuf buf, void **dataPtr, size_t *size)`: the data buffer and its size.
pub extern "C" fn aclrtGetBufData(buf: aclrtMbuf, dataPtr: Out<'_, *mut c_void>, size: Out<'_, usize>) -> aclError {
    run("aclrtGetBufData", || {
        non_null(buf, "buf")?;
        non_null(dataPtr, "dataPtr")?;
        non_null(size, "size")?;
        let (d, n) = with(emu()?, buf, |m, _| Ok((m.data, m.size)))?;
        dataPtr.write(d as *mut c_void)?;
        size.write(n)?;
        Ok(())
    })
}

/// `aclError aclrtGetBufDataLen(aclrtMbuf buf, size_t *len)`.
pub extern "C" fn aclrtGetBufDataLen(buf: aclrtMbuf, len: Out<'_, usize>) -> aclError {
    run("aclrtGetBufDataLen", || {
        non_null(buf, "buf")?;
        non_null(len, "len")?;
        let n = with(emu()?, buf, |m, _| Ok(m.len))?;
        len.write(n)?;
        Ok(())
    })
}

/// `aclError aclrtSetBufDataLen(aclrtMbuf buf, size_t len)`: at most the buffer's size (107000).
pub extern "C" fn aclrtSetBufDataLen(buf: aclrtMbuf, len: usize) -> aclError {
    run("aclrtSetBufDataLen", || {
        non_null(buf, "buf")?;
        with(emu()?, buf, |m, _| {
            if len > m.size {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("len {len} exceeds the buffer's {} bytes", m.size)));
            }
            m.len = len;
            Ok(())
        })
    })
}

/// The user-data checks (memory.cpp:1533-1560): size + offset over 96 first, then NULLs.
fn user_range(buf: aclrtMbuf, dataPtr: *const c_void, size: usize, offset: usize) -> Result<std::ops::Range<usize>, Fail> {
    let end = size.checked_add(offset).filter(|&n| n <= USER_DATA);
    let Some(end) = end else {
        return Err(bad(AclError::INVALID_PARAM, format!("size {size} + offset {offset} exceeds {USER_DATA}")));
    };
    non_null(buf, "buf")?;
    non_null(dataPtr, "dataPtr")?;
    Ok(offset..end)
}

/// `aclError aclrtGetBufUserData(const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset)`.
pub extern "C" fn aclrtGetBufUserData(buf: aclrtMbuf, dataPtr: Out<'_, c_void>, size: usize, offset: usize) -> aclError {
    run("aclrtGetBufUserData", || {
        let r = user_range(buf, dataPtr.as_ptr().cast_const(), size, offset)?;
        let bytes = with(emu()?, buf, |m, _| Ok(m.user[r].to_vec()))?;
        // `dataPtr` holds `size` bytes (the contract).
        dataPtr.cast::<u8>().write_slice(&bytes)?;
        Ok(())
    })
}

/// `aclError aclrtSetBufUserData(aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset)`.
pub extern "C" fn aclrtSetBufUserData(buf: aclrtMbuf, dataPtr: In<'_, c_void>, size: usize, offset: usize) -> aclError {
    run("aclrtSetBufUserData", || {
        let r = user_range(buf, dataPtr.as_ptr(), size, offset)?;
        // `dataPtr` holds `size` bytes (the contract).
        let src = dataPtr.cast::<u8>().to_vec(size)?;
        with(emu()?, buf, |m, _| {
            m.user[r].copy_from_slice(&src);
            Ok(())
        })
    })
}

/// `aclError aclrtCopyBufRef(const aclrtMbuf buf, aclrtMbuf *newBuf)`: a new handle on the same data.
pub extern "C" fn aclrtCopyBufRef(buf: aclrtMbuf, newBuf: Out<'_, aclrtMbuf>) -> aclError {
    run("aclrtCopyBufRef", || {
        non_null(buf, "buf")?;
        non_null(newBuf, "newBuf")?;
        let h = new_handle(emu()?);
        with(emu()?, buf, |m, all| {
            all.insert(h, Mbuf { chain: Vec::new(), ..m.clone() });
            Ok(())
        })?;
        newBuf.write(h as aclrtMbuf)?;
        Ok(())
    })
}

/// `aclError aclrtAppendBufChain(aclrtMbuf headBuf, aclrtMbuf buf)`: `buf` (an mbuf, not the head) joins the chain.
pub extern "C" fn aclrtAppendBufChain(headBuf: aclrtMbuf, buf: aclrtMbuf) -> aclError {
    run("aclrtAppendBufChain", || {
        non_null(headBuf, "headBuf")?;
        non_null(buf, "buf")?;
        with(emu()?, headBuf, |m, all| {
            if !all.contains_key(&(buf as usize)) || m.chain.contains(&(buf as usize)) {
                return Err(bad(AclError::RT_PARAM_INVALID, format!("{buf:p} is no other mbuf, or already in the chain")));
            }
            m.chain.push(buf as usize);
            Ok(())
        })
    })
}

/// `aclError aclrtGetBufChainNum(aclrtMbuf headBuf, uint32_t *num)`: the head and what was appended.
pub extern "C" fn aclrtGetBufChainNum(headBuf: aclrtMbuf, num: Out<'_, u32>) -> aclError {
    run("aclrtGetBufChainNum", || {
        non_null(headBuf, "headBuf")?;
        non_null(num, "num")?;
        let n = with(emu()?, headBuf, |m, _| Ok(1 + m.chain.len() as u32))?;
        num.write(n)?;
        Ok(())
    })
}

/// `aclError aclrtGetBufFromChain(aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf)`: index 0 is the head.
pub extern "C" fn aclrtGetBufFromChain(headBuf: aclrtMbuf, index: u32, buf: Out<'_, aclrtMbuf>) -> aclError {
    run("aclrtGetBufFromChain", || {
        non_null(headBuf, "headBuf")?;
        non_null(buf, "buf")?;
        let h = with(emu()?, headBuf, |m, _| match index {
            0 => Ok(headBuf as usize),
            i => m.chain.get(i as usize - 1).copied().ok_or_else(|| {
                bad(AclError::RT_PARAM_INVALID, format!("index {i} is past the chain's {} mbufs", m.chain.len() + 1))
            }),
        })?;
        buf.write(h as aclrtMbuf)?;
        Ok(())
    })
}
