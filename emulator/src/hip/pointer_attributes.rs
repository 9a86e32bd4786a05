//! The driver-style pointer queries hipPointerGetAttribute,
//! hipDrvPointerGetAttributes and hipPointerSetAttribute, as clr answers
//! them (hipamd/src/hip_memory.cpp:3823-4050, `ihipPointerGetAttributes`).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, emu, run};
use super::pointer::{Extent, Kind, extent};
use super::state::state;
use crate::ffi::{In, Out};
use crate::core::Emulator;
use crate::registry::Place;

/// One attribute's value, in the width clr writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    U32(u32),
    I32(i32),
    Bool(bool),
    Ptr(usize),
}

impl Value {
    /// Writes the value at `data`, sized for the attribute by the C
    /// contract (unaligned writes, as the caller's buffer has no alignment
    /// promise beyond the C type's).
    fn write(self, data: Out<'_, c_void>) -> Result<(), crate::ffi::Null> {
        match self {
            Value::U32(v) => data.cast::<u32>().write(v),
            Value::I32(v) => data.cast::<i32>().write(v),
            Value::Bool(v) => data.cast::<u8>().write(u8::from(v)),
            Value::Ptr(v) => data.cast::<usize>().write(v),
        }
    }
}

/// The attributes clr answers 801 for (hip_memory.cpp: CONTEXT, P2P_TOKENS,
/// IS_LEGACY_HIP_IPC_CAPABLE, ALLOWED_HANDLE_TYPES,
/// IS_GPU_DIRECT_RDMA_CAPABLE, MEMPOOL_HANDLE).
const NOT_SUPPORTED: &[hipPointer_attribute] = &[
    HIP_POINTER_ATTRIBUTE_CONTEXT,
    HIP_POINTER_ATTRIBUTE_P2P_TOKENS,
    HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE,
    HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
    HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
    HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
];

/// Whether the memory is host memory to clr (fine-grain or host-pointer buffers).
fn is_host(x: &Extent) -> bool {
    matches!(x.kind, Kind::Host | Kind::Registered | Kind::Managed)
}

/// The value of `attribute` for `p`: `Ok` to write and succeed, `Err` with
/// the value clr still writes (if any) and the failure.
fn attribute(e: &Emulator, attribute: hipPointer_attribute, p: usize) -> Result<Value, (Option<Value>, Fail)> {
    let x = extent(e, p);
    let unknown = |v: Option<Value>| (v, Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} is not memory HIP knows")));
    if NOT_SUPPORTED.contains(&attribute) {
        let why = format!("pointer attribute {attribute} is not supported by HIP (clr answers 801)");
        return Err((None, Fail::plain(HipError::NOT_SUPPORTED, why)));
    }
    let Some(x) = x else {
        return match attribute {
            // clr: an array handle is hipMemoryTypeArray (hip_memory.cpp:3864-3887).
            HIP_POINTER_ATTRIBUTE_MEMORY_TYPE if state(e).mem.array(p).is_some() => Ok(Value::U32(hipMemoryTypeArray as u32)),
            HIP_POINTER_ATTRIBUTE_MEMORY_TYPE => Err(unknown(Some(Value::U32(0)))),
            HIP_POINTER_ATTRIBUTE_DEVICE_POINTER | HIP_POINTER_ATTRIBUTE_HOST_POINTER => Err(unknown(Some(Value::Ptr(0)))),
            HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS | HIP_POINTER_ATTRIBUTE_IS_MANAGED | HIP_POINTER_ATTRIBUTE_MAPPED => {
                Err(unknown(Some(Value::Bool(false))))
            }
            HIP_POINTER_ATTRIBUTE_BUFFER_ID => Err(unknown(Some(Value::U32(0)))),
            HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL => Err(unknown(Some(Value::I32(hipInvalidDeviceId)))),
            HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR => Err(unknown(Some(Value::Ptr(0)))),
            HIP_POINTER_ATTRIBUTE_RANGE_SIZE => Err(unknown(Some(Value::U32(0)))),
            // clr: 0 and success for memory it does not know.
            HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS => Ok(Value::U32(0)),
            _ => Err((None, bad_attribute(attribute))),
        };
    };
    let mem = &state(e).mem;
    let device = match x.device {
        Place::Device(d) | Place::Host(d) => d as i32,
    };
    Ok(match attribute {
        HIP_POINTER_ATTRIBUTE_MEMORY_TYPE => {
            Value::U32(if is_host(&x) { hipMemoryTypeHost } else { hipMemoryTypeDevice } as u32)
        }
        HIP_POINTER_ATTRIBUTE_DEVICE_POINTER => Value::Ptr(p),
        HIP_POINTER_ATTRIBUTE_HOST_POINTER if is_host(&x) => Value::Ptr(p),
        HIP_POINTER_ATTRIBUTE_HOST_POINTER => {
            let why = format!("{p:#x} is device memory: it has no host pointer");
            return Err((Some(Value::Ptr(0)), Fail::plain(HipError::INVALID_VALUE, why)));
        }
        HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS => Value::Bool(mem.sync_memops(x.base)),
        // HIP-MEM-004: clr's memory objects take `++numAllocs`; vmmkit gives
        // each allocation the next of one count at its first query (never 0,
        // which clr gives unknown memory), never reused after a free.
        HIP_POINTER_ATTRIBUTE_BUFFER_ID => {
            let identity = match x.kind {
                // Allocations whose start a later one may reuse: their generation or handle.
                Kind::Malloc(_) | Kind::Opened => x.props[3],
                Kind::Vmm => e.mapping(x.base).map_or(0, |(_, m)| m.handle.0),
                // Host buffers, registered and managed ranges: their free forgets the id.
                Kind::Host | Kind::Registered | Kind::Managed => 0,
            };
            if crate::mutation::enforced(&rules::MEM_004) {
                Value::U32(mem.buffer_id(x.base, identity))
            } else {
                Value::U32(((x.base >> 12) as u32).max(1))
            }
        }
        HIP_POINTER_ATTRIBUTE_IS_MANAGED => Value::Bool(x.kind == Kind::Managed),
        HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL => Value::I32(device),
        HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR => Value::Ptr(x.base),
        // HIP-MEM-006: clr writes the size as a `uint32_t` (hip_memory.cpp:3872-3879).
        HIP_POINTER_ATTRIBUTE_RANGE_SIZE => Value::U32(x.size as u32),
        HIP_POINTER_ATTRIBUTE_MAPPED => Value::Bool(true),
        HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS => Value::U32(mem.flags(x.base)),
        _ => return Err((None, bad_attribute(attribute))),
    })
}

fn bad_attribute(attribute: hipPointer_attribute) -> Fail {
    Fail::plain(HipError::INVALID_VALUE, format!("{attribute} is not a hipPointer_attribute"))
}

/// Answers one attribute into `data` (non-null), as `ihipPointerGetAttributes`.
fn get_into(e: &Emulator, data: Out<'_, c_void>, attr: hipPointer_attribute, p: usize) -> Result<(), Fail> {
    let (value, failure) = match attribute(e, attr, p) {
        Ok(v) => (Some(v), None),
        Err((v, f)) => (v, Some(f)),
    };
    if let Some(v) = value {
        v.write(data)?;
    }
    failure.map_or(Ok(()), Err)
}

/// `hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attribute, hipDeviceptr_t ptr)`:
/// data or ptr NULL → 1; the attributes clr does not support → 801; memory
/// HIP does not know → 1 with clr's default value written (0, NULL, false,
/// −2), except ACCESS_FLAGS (0 and success); an unknown attribute → 1.
pub extern "C" fn hipPointerGetAttribute(data: Out<'_, c_void>, attribute: hipPointer_attribute, ptr: hipDeviceptr_t) -> hipError_t {
    run("hipPointerGetAttribute", || {
        if data.is_null() || ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "data or ptr is NULL".into()));
        }
        get_into(emu()?, data, attribute, ptr as usize)
    })
}

/// `hipError_t hipDrvPointerGetAttributes(unsigned int numAttributes, hipPointer_attribute *attributes, void **data, hipDeviceptr_t ptr)`:
/// any argument NULL or 0 → 1; else each attribute as hipPointerGetAttribute
/// into `data[i]`, and success whatever each one answered (clr
/// hip_memory.cpp:4075-4090).
pub extern "C" fn hipDrvPointerGetAttributes(
    numAttributes: u32,
    attributes: In<'_, hipPointer_attribute>,
    data: In<'_, *mut c_void>,
    ptr: hipDeviceptr_t,
) -> hipError_t {
    run("hipDrvPointerGetAttributes", || {
        if numAttributes == 0 || attributes.is_null() || data.is_null() || ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "numAttributes is 0 or a pointer is NULL".into()));
        }
        let e = emu()?;
        for i in 0..numAttributes as usize {
            let (a, d) = (attributes.read_at(i)?, data.out_at(i)?);
            if !d.is_null() {
                // Ignored, as clr ignores it.
                let _ = get_into(e, d, a, ptr as usize);
            }
        }
        Ok(())
    })
}

/// `hipError_t hipPointerSetAttribute(const void *value, hipPointer_attribute attribute, hipDeviceptr_t ptr)`:
/// value or ptr NULL → 1; any attribute but SYNC_MEMOPS → 1; a value other
/// than 0 or 1 → 1; memory HIP does not know → 17 (clr hip_memory.cpp:3823-3842).
pub extern "C" fn hipPointerSetAttribute(value: In<'_, c_void>, attribute: hipPointer_attribute, ptr: hipDeviceptr_t) -> hipError_t {
    run("hipPointerSetAttribute", || {
        if value.is_null() || ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "value or ptr is NULL".into()));
        }
        if attribute != HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("only SYNC_MEMOPS can be set, not {attribute}")));
        }
        let v = value.cast::<u32>().read()?;
        if v > 1 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("SYNC_MEMOPS is 0 or 1, not {v}")));
        }
        let e = emu()?;
        let x = extent(e, ptr as usize).ok_or_else(|| {
            Fail::plain(HipError::INVALID_DEVICE_POINTER, format!("{ptr:p} is not memory HIP knows"))
        })?;
        state(e).mem.set_sync_memops(x.base, v == 1);
        Ok(())
    })
}
