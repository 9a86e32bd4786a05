//! Loader assertions shared by the vendors' ABI tests.
#![allow(dead_code)]

use std::path::Path;

use vmmkit_sys::LoadError;

/// The C library exists everywhere and exports none of the vendor symbols.
pub fn libc_path() -> &'static Path {
    [
        "/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/lib64/libc.so.6",
        "/usr/lib64/libc.so.6",
    ]
    .iter()
    .map(Path::new)
    .find(|p| p.exists())
    .expect("a libc.so.6 on this machine")
}

/// `err` says that `vendor`'s library was not found, having tried exactly `path`.
pub fn assert_not_found(err: &LoadError, vendor: &str, path: &str) {
    let LoadError::NotFound { vendor: v, tried } = err else { panic!("expected NotFound, got {err:?}") };
    assert_eq!(*v, vendor);
    assert_eq!(tried.len(), 1);
    assert_eq!(tried[0].candidate, path);
    assert!(err.to_string().contains(path), "{err}");
}

/// `err` says that libc lacks every one of `required`, and names `some` in its message.
pub fn assert_lacks_all(err: &LoadError, vendor: &str, required: &[&str], some: &[&str]) {
    let LoadError::MissingSymbols { vendor: v, path, missing } = err else {
        panic!("expected MissingSymbols, got {err:?}")
    };
    assert_eq!((*v, path.as_path()), (vendor, libc_path()));
    assert_eq!(missing.as_slice(), required, "every required symbol, once, in order");
    let msg = err.to_string();
    for name in some {
        assert!(msg.contains(name), "message lacks {name}: {msg}");
    }
}
