//! Reading a caller's pointer that may be bad without faulting on it (HIP's
//! `int *` `osHandle`, [HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026)): a bad pointer must be an error code,
//! never a crash.
//!
//! A pointer into the calling thread's own stack, between the current stack
//! pointer and the stack's top, is read directly: that part of a stack is
//! always mapped (frames of the callers live there), so the read cannot
//! fault. Any other pointer is read with `process_vm_readv` of this
//! process, which reports `EFAULT` instead of faulting. Callers usually pass
//! the address of a local `int` (the runtime, HIP's own tests), so the
//! usual import makes no system call for it.

use std::cell::Cell;
use std::ffi::c_void;

thread_local! {
    /// The calling thread's stack, `[low, top)`, from `pthread_getattr_np`
    /// the first time it is needed; `Some((0, 0))` when it could not be had.
    static STACK: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

/// The calling thread's stack bounds `[low, top)`, asked once per thread
/// (for the main thread glibc reads `/proc/self/maps` then; other threads'
/// stacks are in their descriptor). `(0, 0)` when they cannot be had.
fn stack() -> (usize, usize) {
    if let Some(s) = STACK.get() {
        return s;
    }
    let s = ask_stack().unwrap_or((0, 0));
    STACK.set(Some(s));
    s
}

fn ask_stack() -> Option<(usize, usize)> {
    // SAFETY: an all-zero `pthread_attr_t` is a valid out-parameter, which
    // `pthread_getattr_np` initialises; it is destroyed once, after its
    // stack was read, and only when the call succeeded.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) != 0 {
            return None;
        }
        let mut addr: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        let ok = libc::pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        libc::pthread_attr_destroy(&mut attr);
        ok.then(|| (addr as usize, (addr as usize).saturating_add(size)))
    }
}

/// Whether `[p, p + len)` lies in the calling thread's stack between the
/// current stack pointer (the address of a local of this frame) and the
/// stack's top. A local outside the stack (a signal handler on an
/// alternate stack) answers false.
#[inline(never)]
fn on_live_stack(p: usize, len: usize) -> bool {
    let here = 0u8;
    let sp = std::hint::black_box(&raw const here) as usize;
    let (low, top) = stack();
    low <= sp && sp < top && sp <= p && p.checked_add(len).is_some_and(|end| end <= top)
}

/// Reads an `int` at `p` if the address is readable, without faulting on a
/// bad one. `pid` is this process's (the registry's, read once at start: a
/// forked child never gets here, its calls are refused first), so no
/// `getpid` is made.
pub fn read_i32(p: usize, pid: u32) -> Option<i32> {
    if on_live_stack(p, size_of::<i32>()) {
        // SAFETY: `p..p + 4` lies between this frame's stack pointer and the
        // top of this thread's stack (`on_live_stack`): the frames of this
        // call's callers, which are mapped and readable while they run.
        return Some(unsafe { (p as *const i32).read_unaligned() });
    }
    let mut v = 0i32;
    let local = libc::iovec { iov_base: (&raw mut v).cast(), iov_len: 4 };
    let remote = libc::iovec { iov_base: p as *mut c_void, iov_len: 4 };
    // SAFETY: `local` is our own 4-byte integer; the kernel reads `remote`
    // through this process's page tables and fails with EFAULT rather than
    // faulting when it is not readable.
    let n = unsafe { libc::process_vm_readv(pid as libc::pid_t, &local, 1, &remote, 1, 0) };
    match n {
        4 => Some(v),
        // Where the call is not allowed (a seccomp filter), trust the caller
        // as the real runtime does.
        -1 if matches!(std::io::Error::last_os_error().raw_os_error(), Some(libc::EPERM | libc::ENOSYS)) => {
            // SAFETY: HIP-VMM-026: a value at or above 2^20 is the caller's `int*`.
            Some(unsafe { (p as *const i32).read_unaligned() })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pid() -> u32 {
        std::process::id()
    }

    #[test]
    fn a_callers_local_is_on_the_live_stack_and_read() {
        let v = std::hint::black_box(0x1234_5678i32);
        let p = &raw const v as usize;
        assert!(on_live_stack(p, 4), "a local of the caller");
        assert_eq!(read_i32(p, pid()), Some(v));
        // On another thread too (its stack is its own mapping).
        std::thread::spawn(|| {
            let w = std::hint::black_box(-7i32);
            assert!(on_live_stack(&raw const w as usize, 4));
            assert_eq!(read_i32(&raw const w as usize, pid()), Some(-7));
        })
        .join()
        .expect("thread");
    }

    #[test]
    fn other_pointers_go_through_the_kernel() {
        let heap = Box::new(42i32);
        let p = &raw const *heap as usize;
        assert!(!on_live_stack(p, 4), "the heap is not the stack");
        assert_eq!(read_i32(p, pid()), Some(42));
        // Another thread's local is not this thread's stack.
        let v = std::hint::black_box(9i32);
        let there = &raw const v as usize;
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(!on_live_stack(there, 4));
                assert_eq!(read_i32(there, pid()), Some(9));
            });
        });
        // Below the stack pointer (a frame that returned), or past the top: not taken directly.
        let (low, top) = stack();
        assert!(low < top, "the stack is known");
        assert!(!on_live_stack(low, 4) && !on_live_stack(top - 2, 4) && !on_live_stack(usize::MAX - 1, 4));
    }

    #[test]
    fn an_unmapped_pointer_is_none_not_a_fault() {
        let page = 4096;
        // SAFETY: a fresh anonymous mapping, unmapped again at once: its address is unmapped after.
        let p = unsafe {
            let p =
                libc::mmap(std::ptr::null_mut(), page, libc::PROT_NONE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0);
            assert_ne!(p, libc::MAP_FAILED);
            assert_eq!(libc::munmap(p, page), 0);
            p as usize
        };
        assert_eq!(read_i32(p, pid()), None);
        assert_eq!(read_i32(8, pid()), None, "near NULL");
    }
}
