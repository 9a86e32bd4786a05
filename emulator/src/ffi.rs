//! The pointers a C caller passes, as the dialects see them: one `unsafe`
//! step at the boundary, safe methods after it.
//!
//! An entry point of a dialect takes its pointer arguments as [`Out`] (a
//! value the call writes), [`In`] (a value or an array the call reads) or
//! [`CStrIn`] (a NUL-terminated string) instead of raw pointers. Each is the
//! caller's pointer unchanged (`#[repr(transparent)]`), made only by
//! [`FromC::from_c`], which the instrumentation layer calls once per
//! argument when it forwards a C call ([`crate::instrumented!`]): that call
//! is the one place where the C contract is taken on trust. The dialect's
//! bodies then read and write through safe methods, and its module needs no
//! `unsafe` for its arguments.
//!
//! The wrappers do not decide what NULL means: each entry point still checks
//! its pointers in the vendor's order with the vendor's codes (`ensure!`).
//! A read or write through a NULL the checks let through (a vendor that does
//! not check, or a rule mutated away by `VMMKIT_MUTATE`) does not touch
//! memory: it fails with [`Null`], which becomes the dialect's
//! [`Dialect::NULL`](crate::dialect::Dialect::NULL) code, not a crash.

use std::ffi::{CStr, c_char};
use std::fmt;
use std::marker::PhantomData;

/// A NULL pointer reached a read or a write: the call fails with its
/// dialect's [`Dialect::NULL`](crate::dialect::Dialect::NULL) code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Null;

/// A C argument as the dialect's function takes it: itself (a value, a
/// handle, a raw pointer the body does not dereference), or one of this
/// module's wrappers of the same pointer.
pub trait FromC<R>: Sized {
    /// `raw` as `Self`.
    ///
    /// # Safety
    /// For a wrapper: `raw`, when not NULL, is valid for the whole call for
    /// every read and write that the vendor's C contract of the entry point
    /// allows through it: of the type that contract names, and for an array,
    /// of the length it names (given with the pointer); so is every pointer
    /// the contract says the argument holds (an array of out-pointers).
    /// Nothing for a value.
    unsafe fn from_c(raw: R) -> Self;
}

impl<T> FromC<T> for T {
    unsafe fn from_c(raw: T) -> T {
        raw
    }
}

/// A pointer to a value the call writes (an out-parameter), maybe NULL.
#[repr(transparent)]
pub struct Out<'a, T>(*mut T, PhantomData<&'a mut T>);

/// A pointer to a value, or the first of an array, that the call reads,
/// maybe NULL.
#[repr(transparent)]
pub struct In<'a, T>(*const T, PhantomData<&'a T>);

/// A pointer to a NUL-terminated C string the call reads, maybe NULL.
#[repr(transparent)]
pub struct CStrIn<'a>(*const c_char, PhantomData<&'a CStr>);

impl<'a, T> FromC<*mut T> for Out<'a, T> {
    unsafe fn from_c(raw: *mut T) -> Self {
        Self(raw, PhantomData)
    }
}

impl<'a, T> FromC<*const T> for In<'a, T> {
    unsafe fn from_c(raw: *const T) -> Self {
        Self(raw, PhantomData)
    }
}

/// An input the C header declares without `const`.
impl<'a, T> FromC<*mut T> for In<'a, T> {
    unsafe fn from_c(raw: *mut T) -> Self {
        Self(raw.cast_const(), PhantomData)
    }
}

impl<'a> FromC<*const c_char> for CStrIn<'a> {
    unsafe fn from_c(raw: *const c_char) -> Self {
        Self(raw, PhantomData)
    }
}

impl<'a, T> Out<'a, T> {
    /// An out-parameter of Rust's own (a call of an entry point from
    /// inside the emulator).
    pub fn from_mut(v: &'a mut T) -> Self {
        Self(v, PhantomData)
    }

    /// NULL: an out-parameter not given.
    pub const NULL: Self = Self(std::ptr::null_mut(), PhantomData);

    /// Whether the caller passed NULL.
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// The address, for messages and comparisons (never dereferenced).
    pub fn as_ptr(&self) -> *mut T {
        self.0
    }

    /// Writes `v` (unaligned writes are tolerated).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL (nothing is written).
    pub fn write(&self, v: T) -> Result<(), Null> {
        if self.0.is_null() {
            return Err(Null);
        }
        // SAFETY: not NULL, and valid for a write of `T` for the call (the
        // promise of `from_c`, the only maker of an `Out`).
        unsafe { self.0.write_unaligned(v) };
        Ok(())
    }

    /// Writes `vals` at the start of the array there, whose length the C
    /// contract gives with the pointer and which holds at least
    /// `vals.len()` values (checked by the caller against that length).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL for a non-empty `vals`.
    pub fn write_slice(&self, vals: &[T]) -> Result<(), Null>
    where
        T: Copy,
    {
        if vals.is_empty() {
            return Ok(());
        }
        if self.0.is_null() {
            return Err(Null);
        }
        for (i, v) in vals.iter().enumerate() {
            // SAFETY: not NULL, and valid for writes of the array's values
            // for the call, `i` within the length the C contract gives with
            // the pointer (the promise of `from_c`, the caller's check).
            unsafe { self.0.add(i).write_unaligned(*v) };
        }
        Ok(())
    }

    /// Writes `v` when the caller passed a pointer (an optional
    /// out-parameter); whether it did.
    pub fn write_if_given(&self, v: T) -> bool {
        self.write(v).is_ok()
    }

    /// Reads the value there, for a parameter the C contract reads before it
    /// writes (an in-out parameter).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn read(&self) -> Result<T, Null>
    where
        T: Copy,
    {
        // The C contract reads it: valid for a read too (the promise of `from_c`).
        In(self.0.cast_const(), PhantomData).read()
    }

    /// The same pointer as one to `U`, where the C contract names the type
    /// by another argument (a `void *` whose type an attribute picks, an
    /// `int` handle written through a `void *`).
    pub fn cast<U>(self) -> Out<'a, U> {
        Out(self.0.cast(), PhantomData)
    }
}

impl<'a, T> In<'a, T> {
    /// An input of Rust's own (a call of an entry point from inside the
    /// emulator).
    pub fn from_ref(v: &'a T) -> Self {
        Self(v, PhantomData)
    }

    /// Whether the caller passed NULL.
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// The address, for messages and comparisons (never dereferenced).
    pub fn as_ptr(&self) -> *const T {
        self.0
    }

    /// The value there (unaligned reads are tolerated).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn read(&self) -> Result<T, Null>
    where
        T: Copy,
    {
        if self.0.is_null() {
            return Err(Null);
        }
        // SAFETY: not NULL, and valid for a read of `T` for the call (the
        // promise of `from_c`, the only maker of an `In`).
        Ok(unsafe { self.0.read_unaligned() })
    }

    /// The value there, or `None` for NULL (an optional input).
    pub fn read_if_given(&self) -> Option<T>
    where
        T: Copy,
    {
        self.read().ok()
    }

    /// Value `i` of the array there, `i` below the length the C contract
    /// gives with the pointer (unaligned reads are tolerated).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn read_at(&self, i: usize) -> Result<T, Null>
    where
        T: Copy,
    {
        if self.0.is_null() {
            return Err(Null);
        }
        // SAFETY: not NULL, and valid for reads of the array's values for the
        // call, `i` within the length the C contract gives with the pointer
        // (the promise of `from_c`).
        Ok(unsafe { self.0.add(i).read_unaligned() })
    }

    /// Value `i` of an array of out-pointers there (each valid for what
    /// the C contract writes through it), `i` below the array's length.
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn out_at<U>(&self, i: usize) -> Result<Out<'a, U>, Null>
    where
        T: Copy + Into<*mut U>,
    {
        Ok(Out(self.read_at(i)?.into(), PhantomData))
    }

    /// A pointer that value `i` of the array there holds (a C struct's
    /// field, which `field` picks: `|c| c.attrs`), as an input of its own,
    /// `i` below the array's length. The C caller's struct's pointers are
    /// valid for the call as the vendor's header documents them (of the
    /// type and the length it names, often given by another field): the
    /// promise of `from_c` for "every pointer the contract says the
    /// argument holds".
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL for the struct.
    pub fn held_at<U>(&self, i: usize, field: fn(&T) -> *const U) -> Result<In<'a, U>, Null>
    where
        T: Copy,
    {
        Ok(In(field(&self.read_at(i)?), PhantomData))
    }

    /// As [`In::held_at`], for a pointer the struct holds through which
    /// the call writes (an out-pointer field).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL for the struct.
    pub fn held_out_at<U>(&self, i: usize, field: fn(&T) -> *mut U) -> Result<Out<'a, U>, Null>
    where
        T: Copy,
    {
        Ok(Out(field(&self.read_at(i)?), PhantomData))
    }

    /// The `n` values of the array there, `n` the length the C contract
    /// gives with the pointer (unaligned reads are tolerated). An empty
    /// array may be NULL.
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL for a non-empty array.
    pub fn to_vec(&self, n: usize) -> Result<Vec<T>, Null>
    where
        T: Copy,
    {
        if n == 0 {
            return Ok(Vec::new());
        }
        if self.0.is_null() {
            return Err(Null);
        }
        // SAFETY: not NULL, and valid for reads of `n` values of `T` for the
        // call, `n` being the length the C contract gives with the pointer
        // (the promise of `from_c`).
        Ok((0..n).map(|i| unsafe { self.0.add(i).read_unaligned() }).collect())
    }

    /// The same pointer as one to `U`, where the C contract names the type
    /// by another argument (a `const void *` whose type an attribute picks).
    pub fn cast<U>(self) -> In<'a, U> {
        In(self.0.cast(), PhantomData)
    }
}

impl<'a> CStrIn<'a> {
    /// Whether the caller passed NULL.
    pub fn is_null(&self) -> bool {
        self.0.is_null()
    }

    /// The address, for messages and comparisons (never dereferenced).
    pub fn as_ptr(&self) -> *const c_char {
        self.0
    }

    /// The bytes of the string before its NUL, reading at most `max`
    /// bytes: all `max` when none of them is the NUL (a vendor that
    /// checks a length reads no further than it).
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn bytes_up_to(&self, max: usize) -> Result<Vec<u8>, Null> {
        if self.0.is_null() {
            return Err(Null);
        }
        let mut out = Vec::new();
        for i in 0..max {
            // SAFETY: not NULL, and a NUL-terminated string (the promise of
            // `from_c`): readable up to its NUL, where the loop stops.
            let b = unsafe { self.0.add(i).read() } as u8;
            if b == 0 {
                break;
            }
            out.push(b);
        }
        Ok(out)
    }

    /// The string.
    ///
    /// # Errors
    /// [`Null`] when the caller passed NULL.
    pub fn get(&self) -> Result<&'a CStr, Null> {
        if self.0.is_null() {
            return Err(Null);
        }
        // SAFETY: not NULL, and a NUL-terminated string that stays valid and
        // unchanged for the call (the promise of `from_c`).
        Ok(unsafe { CStr::from_ptr(self.0) })
    }
}

/// The wrappers are addresses: copied freely, shown as the address.
macro_rules! address_like {
    ($([$($g:tt)*] $w:ty),*) => {$(
        impl<$($g)*> Clone for $w {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($g)*> Copy for $w {}
        impl<$($g)*> fmt::Debug for $w {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Pointer::fmt(&self.0, f)
            }
        }
        impl<$($g)*> fmt::Pointer for $w {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Pointer::fmt(&self.0, f)
            }
        }
    )*};
}
address_like!(['a, T] Out<'a, T>, ['a, T] In<'a, T>, ['a] CStrIn<'a>);

#[cfg(test)]
mod tests {
    use super::*;

    /// A write through NULL fails and touches nothing; through a pointer
    /// it lands, even unaligned; reads likewise.
    #[test]
    fn null_is_refused_and_values_pass() {
        let mut v = 0u32;
        // SAFETY: `v` lives for the test.
        let out: Out<'_, u32> = unsafe { FromC::from_c(&raw mut v) };
        assert_eq!(out.write(7), Ok(()));
        assert_eq!(v, 7);
        // SAFETY: NULL is never dereferenced.
        let none: Out<'_, u32> = unsafe { FromC::from_c(std::ptr::null_mut::<u32>()) };
        assert_eq!(none.write(1), Err(Null));
        assert!(!none.write_if_given(1));
        let mut bytes = [0u8; 9];
        // SAFETY: bytes 1..9 hold a u64.
        let odd: Out<'_, u64> = unsafe { FromC::from_c(bytes.as_mut_ptr().add(1).cast::<u64>()) };
        odd.write(u64::MAX).unwrap();
        assert_eq!(bytes[0], 0);
        assert!(bytes[1..].iter().all(|b| *b == 0xff));
        let arr = [1u16, 2, 3];
        // SAFETY: `arr` lives for the test.
        let src: In<'_, u16> = unsafe { FromC::from_c(arr.as_ptr()) };
        assert_eq!(src.to_vec(3), Ok(vec![1, 2, 3]));
        assert_eq!(src.read(), Ok(1));
        // SAFETY: NULL is never dereferenced.
        let empty: In<'_, u16> = unsafe { FromC::from_c(std::ptr::null::<u16>()) };
        assert_eq!(empty.to_vec(0), Ok(vec![]));
        assert_eq!(empty.to_vec(1), Err(Null));
        assert_eq!(empty.read_if_given(), None);
        // SAFETY: a literal, NUL-terminated.
        let s: CStrIn<'_> = unsafe { FromC::from_c(c"cuInit".as_ptr()) };
        assert_eq!(s.get().unwrap().to_bytes(), b"cuInit");
        assert_eq!(format!("{:p}", s), format!("{:p}", c"cuInit".as_ptr()));
    }

    /// A pointer inside a struct the caller passed reads as an input of its
    /// own; a key is read no further than its bound.
    #[test]
    fn held_pointers_and_bounded_strings() {
        #[derive(Clone, Copy)]
        struct List {
            items: *const u32,
            len: usize,
        }
        let items = [4u32, 5, 6];
        let lists = [List { items: std::ptr::null(), len: 0 }, List { items: items.as_ptr(), len: 3 }];
        // SAFETY: `lists` and `items` live for the test.
        let arg: In<'_, List> = unsafe { FromC::from_c(lists.as_ptr()) };
        let l = arg.read_at(1).unwrap();
        assert_eq!(arg.held_at(1, |l| l.items).unwrap().to_vec(l.len), Ok(vec![4, 5, 6]));
        assert_eq!(arg.held_at(0, |l| l.items).unwrap().read(), Err(Null));
        // SAFETY: NULL is never dereferenced.
        let none: In<'_, List> = unsafe { FromC::from_c(std::ptr::null::<List>()) };
        assert!(none.held_at(0, |l| l.items).is_err());
        // SAFETY: a literal, NUL-terminated.
        let key: CStrIn<'_> = unsafe { FromC::from_c(c"abcdef".as_ptr()) };
        assert_eq!(key.bytes_up_to(4), Ok(b"abcd".to_vec()));
        assert_eq!(key.bytes_up_to(65), Ok(b"abcdef".to_vec()));
    }
}
