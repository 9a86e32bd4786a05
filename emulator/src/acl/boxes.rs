//! Objects the ACL dialect allocates for a program and hands out by pointer
//! (data buffers, stream configuration handles): each kind keeps the set of
//! its live addresses, so a pointer it did not make, or already freed, is
//! refused instead of dereferenced.

use std::collections::HashSet;
use std::marker::PhantomData;
use std::sync::Mutex;

use super::state::lock;

/// The live objects of type `T` handed out as `*mut T`.
#[derive(Debug)]
pub(super) struct Boxes<T> {
    live: Mutex<Option<HashSet<usize>>>,
    kind: PhantomData<fn(T)>,
}

impl<T> Boxes<T> {
    /// An empty set (usable in a `static`).
    pub(super) const fn new() -> Self {
        Self { live: Mutex::new(None), kind: PhantomData }
    }

    /// Allocates `value` and hands it out.
    pub(super) fn create(&self, value: T) -> *mut T {
        let p = Box::into_raw(Box::new(value));
        lock(&self.live).get_or_insert_with(HashSet::new).insert(p as usize);
        p
    }

    /// Frees `p` if it is live; whether it was.
    pub(super) fn destroy(&self, p: *const T) -> bool {
        let removed = lock(&self.live).as_mut().is_some_and(|s| s.remove(&(p as usize)));
        if removed {
            // SAFETY: a live address is a `Box<T>` of `create`, just taken out of the set: freed once.
            drop(unsafe { Box::from_raw(p.cast_mut()) });
        }
        removed
    }

    /// The object at `p`, if it is live.
    ///
    /// # Safety
    /// The caller holds no other reference to it (the C caller owns it and
    /// calls one function on it at a time, as the vendor requires).
    pub(super) unsafe fn get<'a>(&self, p: *const T) -> Option<&'a mut T> {
        let live = !p.is_null() && lock(&self.live).as_ref().is_some_and(|s| s.contains(&(p as usize)));
        // SAFETY: a live address is a `Box<T>` of `create` not yet freed; exclusivity is the caller's promise.
        live.then(|| unsafe { &mut *p.cast_mut() })
    }
}
