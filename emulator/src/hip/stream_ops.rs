//! Stream Memory Operations, [HIP-STM-012](vmmkit_sys::hip::rules::STM_012) (clr 6.3 `hipamd/src/hip_stream_ops.cpp`):
//! hipStreamWaitValue32/64, hipStreamWriteValue32/64 and (6.4+)
//! hipStreamBatchMemOp, as works of the core's streams. clr's checks, in its
//! order: a NULL `ptr` → 1; a dead stream → 709 ([HIP-STM-004](vmmkit_sys::hip::rules::STM_004)); an address
//! that is no memory HIP knows → 1; a wait's `flags` that is no comparison → 1.
//! The wait compares `*ptr & mask` with `value` as the header says
//! (`hipStreamWaitValueGte`: `*ptr&mask >= value`, unsigned; `Nor`:
//! `~((*ptr&mask) | (value&mask)) != 0`).
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, emu, ensure, run};
use super::pointer::is_known_range;
use super::stream::{live, work_failed};
use crate::ffi::In;
use crate::core::{ValueCmp, Work};

/// One memory operation: a write, or a wait with its comparison and mask.
#[derive(Debug, Clone, Copy)]
enum Op {
    Write,
    Wait { flags: u32, mask: u64 },
}

/// The comparison of a wait's `flags`, or 1 ([HIP-STM-012](vmmkit_sys::hip::rules::STM_012)); `None` when
/// that check is switched off (the wait is then left out).
fn comparison(flags: u32) -> Result<Option<ValueCmp>, Fail> {
    let cmp = match flags {
        hipStreamWaitValueGte => Some(ValueCmp::Gte),
        hipStreamWaitValueEq => Some(ValueCmp::Eq),
        hipStreamWaitValueAnd => Some(ValueCmp::And),
        hipStreamWaitValueNor => Some(ValueCmp::Nor),
        _ => None,
    };
    ensure!(cmp.is_some(), rules::STM_012, "flags {flags} is not a hipStreamWaitValue comparison");
    Ok(cmp)
}

/// Checks one operation of `width` bytes at `ptr` on `stream` and enqueues it.
fn enqueue(stream: hipStream_t, ptr: *mut c_void, value: u64, width: u8, op: Op) -> Result<(), Fail> {
    ensure!(!ptr.is_null(), rules::STM_012, "ptr is NULL");
    let e = emu()?;
    let Some(id) = live(e, stream)? else { return Ok(()) };
    let addr = ptr as usize;
    let known = !ptr.is_null() && is_known_range(e, addr, usize::from(width));
    ensure!(known, rules::STM_012, "{addr:#x}+{width} is not memory that HIP allocated");
    if !known {
        return Ok(()); // a check above was switched off: nothing is written or awaited
    }
    let work = match op {
        Op::Write => Work::WriteValue { addr, value, width },
        Op::Wait { flags, mask } => {
            let Some(cmp) = comparison(flags)? else { return Ok(()) };
            Work::WaitValue { addr, value, mask, width, cmp }
        }
    };
    // SAFETY: `addr..addr+width` is memory of this process, checked above.
    unsafe { e.enqueue(id, work) }.map_err(work_failed)
}

/// `hipError_t hipStreamWaitValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags, uint32_t mask)`.
pub extern "C" fn hipStreamWaitValue32(stream: hipStream_t, ptr: *mut c_void, value: u32, flags: u32, mask: u32) -> hipError_t {
    run("hipStreamWaitValue32", || {
        enqueue(stream, ptr, u64::from(value), 4, Op::Wait { flags, mask: u64::from(mask) })
    })
}

/// `hipError_t hipStreamWaitValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags, uint64_t mask)`.
pub extern "C" fn hipStreamWaitValue64(stream: hipStream_t, ptr: *mut c_void, value: u64, flags: u32, mask: u64) -> hipError_t {
    run("hipStreamWaitValue64", || enqueue(stream, ptr, value, 8, Op::Wait { flags, mask }))
}

/// `hipError_t hipStreamWriteValue32(hipStream_t stream, void *ptr, uint32_t value, unsigned int flags)`:
/// `flags` is unused (clr passes 0 on).
pub extern "C" fn hipStreamWriteValue32(stream: hipStream_t, ptr: *mut c_void, value: u32, _flags: u32) -> hipError_t {
    run("hipStreamWriteValue32", || enqueue(stream, ptr, u64::from(value), 4, Op::Write))
}

/// `hipError_t hipStreamWriteValue64(hipStream_t stream, void *ptr, uint64_t value, unsigned int flags)`.
pub extern "C" fn hipStreamWriteValue64(stream: hipStream_t, ptr: *mut c_void, value: u64, _flags: u32) -> hipError_t {
    run("hipStreamWriteValue64", || enqueue(stream, ptr, value, 8, Op::Write))
}

/// The operation at `p`, read from its 48-byte union.
fn batch_op(p: &hipStreamBatchMemOpParams) -> Result<(u32, *mut c_void, u64, u32), Fail> {
    type P = hipStreamBatchMemOpParams;
    let u32_at = |at: usize| u32::from_le_bytes([p.bytes[at], p.bytes[at + 1], p.bytes[at + 2], p.bytes[at + 3]]);
    let u64_at = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&p.bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    Ok((u32_at(P::operation), u64_at(P::address) as usize as *mut c_void, u64_at(P::value), u32_at(P::flags)))
}

/// `hipError_t hipStreamBatchMemOp(hipStream_t stream, unsigned int count, hipStreamBatchMemOpParams *paramArray, unsigned int flags)`:
/// `count` 0, a NULL array or `flags` ≠ 0 → 1; each operation as the single
/// calls (a 32-bit one reads `value`, a 64-bit one `value64`); barriers and
/// remote-write flushes, which AMD does not support (header) → 801. The
/// whole batch is checked before any of it is enqueued.
pub extern "C" fn hipStreamBatchMemOp(
    stream: hipStream_t,
    count: u32,
    paramArray: In<'_, hipStreamBatchMemOpParams>,
    flags: u32,
) -> hipError_t {
    run("hipStreamBatchMemOp", || {
        if count == 0 || paramArray.is_null() || flags != 0 {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("count {count}, paramArray {paramArray:p}, flags {flags:#x}: need a non-empty array and flags 0"),
            ));
        }
        let ops = paramArray.to_vec(count as usize)?;
        let mut plan = Vec::with_capacity(ops.len());
        for (i, p) in ops.iter().enumerate() {
            let (operation, address, value, op_flags) = batch_op(p)?;
            let (width, op, value) = match operation {
                hipStreamMemOpWaitValue32 => (4, Op::Wait { flags: op_flags, mask: u64::from(u32::MAX) }, value & 0xffff_ffff),
                hipStreamMemOpWaitValue64 => (8, Op::Wait { flags: op_flags, mask: u64::MAX }, value),
                hipStreamMemOpWriteValue32 => (4, Op::Write, value & 0xffff_ffff),
                hipStreamMemOpWriteValue64 => (8, Op::Write, value),
                hipStreamMemOpBarrier | hipStreamMemOpFlushRemoteWrites => {
                    return Err(Fail::plain(
                        HipError::NOT_SUPPORTED,
                        format!("operation {i}: {operation} (a barrier or flush) is not supported on AMD"),
                    ));
                }
                _ => {
                    return Err(Fail::plain(
                        HipError::INVALID_VALUE,
                        format!("operation {i}: {operation} is not a hipStreamBatchMemOpType"),
                    ));
                }
            };
            if let Op::Wait { flags, .. } = op
                && comparison(flags)?.is_none()
            {
                continue;
            }
            let e = emu()?;
            let known = !address.is_null() && is_known_range(e, address as usize, usize::from(width));
            ensure!(known, rules::STM_012, "operation {i}: {address:p}+{width} is not memory that HIP allocated");
            if known {
                plan.push((address, value, width, op));
            }
        }
        plan.into_iter().try_for_each(|(address, value, width, op)| enqueue(stream, address, value, width, op))
    })
}
