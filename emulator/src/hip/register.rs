//! What a hipcc-built program calls for its code objects: at load,
//! `__hipRegisterFatBinary` once per object and `__hipRegisterFunction` /
//! `__hipRegisterVar` per kernel and device variable; at exit
//! `__hipUnregisterFatBinary`. vmmkit runs no device code, so registration
//! is bookkeeping: it succeeds (as in clr, where it only records what is
//! there) and sets no error, and a launch then fails with 801
//! (`hipLaunchKernel`, `__hipPushCallConfiguration`: device code). Without
//! these a program with any kernel in it does not even load on the drop-in.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::sync::Mutex;

/// The registered code objects: each a boxed slot whose address is the
/// `void**` handle, kept until unregistered. Boxed so that the address stays
/// put while the vector grows. Process-global, not in the HIP state of the
/// emulator: the program's static constructors register its code objects
/// before `main`, before anything could start the emulator (which may
/// never start), and registering must not fail.
#[allow(clippy::vec_box)]
static MODULES: Mutex<Vec<Box<usize>>> = Mutex::new(Vec::new());

#[allow(clippy::vec_box)]
fn modules() -> std::sync::MutexGuard<'static, Vec<Box<usize>>> {
    MODULES.lock().unwrap_or_else(|p| p.into_inner())
}

/// `void **__hipRegisterFatBinary(const void *data)`: a handle for the code object.
pub extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut *mut c_void {
    let mut slot = Box::new(data as usize);
    let handle = (&raw mut *slot).cast::<*mut c_void>();
    modules().push(slot);
    handle
}

/// `void __hipRegisterFunction(void **modules, const void *hostFunction, …)`: nothing to keep.
pub extern "C" fn __hipRegisterFunction(
    _modules: *mut *mut c_void,
    _hostFunction: *const c_void,
    _deviceFunction: *mut c_char,
    _deviceName: *const c_char,
    _threadLimit: u32,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _blockDim: *mut c_void,
    _gridDim: *mut c_void,
    _wSize: *mut i32,
) {
}

/// `void __hipRegisterVar(void **modules, void *var, …)`: nothing to keep
/// (hipMemcpyToSymbol and kin are not emulated).
pub extern "C" fn __hipRegisterVar(
    _modules: *mut *mut c_void,
    _var: *mut c_void,
    _hostVar: *mut c_char,
    _deviceVar: *mut c_char,
    _ext: i32,
    _size: usize,
    _constant: i32,
    _global: i32,
) {
}

/// `void __hipUnregisterFatBinary(void **modules)`: forgets the handle; an unknown one is ignored.
pub extern "C" fn __hipUnregisterFatBinary(modules_: *mut *mut c_void) {
    modules().retain(|slot| !std::ptr::eq(&raw const **slot, modules_.cast::<usize>().cast_const()));
}

/// `void __hipRegisterManagedVar(void *hipModule, void **pointer, void *init_value, const char *name,
/// size_t size, unsigned align)`: a `__managed__` variable, as clr's (hip_platform.cpp:145-170):
/// `size` bytes of managed memory, the initial value copied in, the address
/// stored through `pointer`. Managed memory is host memory in vmmkit, so
/// host code reads the variable. Nothing happens for a NULL pointer or a
/// size of 0; an allocation that fails leaves `*pointer` as it was (clr stops
/// the process there).
pub extern "C" fn __hipRegisterManagedVar(
    _hipModule: *mut c_void,
    pointer: crate::ffi::Out<'_, *mut c_void>,
    init_value: crate::ffi::In<'_, c_void>,
    _name: *const c_char,
    size: usize,
    _align: u32,
) {
    if pointer.is_null() || size == 0 {
        return;
    }
    let mut p: *mut c_void = std::ptr::null_mut();
    let rc = super::managed::hipMallocManaged(crate::ffi::Out::from_mut(&mut p), size, vmmkit_sys::hip::hipMemAttachGlobal);
    if rc != 0 || p.is_null() {
        return;
    }
    if let Ok(bytes) = init_value.cast::<u8>().to_vec(size) {
        // SAFETY: `p` was just allocated with `size` bytes, host memory no
        // other thread knows yet.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p.cast::<u8>(), size) };
    }
    pointer.write_if_given(p);
}

/// `void __hipRegisterSurface(void **modules, void *var, char *hostVar, char *deviceVar, int type, int ext)`:
/// nothing to keep (surfaces are read by device code).
pub extern "C" fn __hipRegisterSurface(
    _modules: *mut *mut c_void,
    _var: *mut c_void,
    _hostVar: *mut c_char,
    _deviceVar: *mut c_char,
    _type: i32,
    _ext: i32,
) {
}

/// `void __hipRegisterTexture(void **modules, void *var, char *hostVar, char *deviceVar, int type, int norm,
/// int ext)`: nothing to keep (textures are read by device code).
pub extern "C" fn __hipRegisterTexture(
    _modules: *mut *mut c_void,
    _var: *mut c_void,
    _hostVar: *mut c_char,
    _deviceVar: *mut c_char,
    _type: i32,
    _norm: i32,
    _ext: i32,
) {
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_distinct_and_unregister() {
        let (a, b) = (__hipRegisterFatBinary(std::ptr::null()), __hipRegisterFatBinary(8 as *const c_void));
        assert!(!a.is_null() && a != b);
        let before = modules().len();
        __hipUnregisterFatBinary(a);
        assert_eq!(modules().len(), before - 1);
        // Unknown handles are ignored.
        __hipUnregisterFatBinary(a);
        __hipUnregisterFatBinary(b);
        assert_eq!(modules().len(), before - 2);
    }
}
