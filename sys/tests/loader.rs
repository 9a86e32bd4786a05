//! Loading a vendor table from libraries that are absent or incomplete.

use std::path::Path;

use vmmkit_sys::LoadError;
use vmmkit_sys::acl::{AclApi, LIBRARY};

/// The C library exists everywhere and exports none of the ACL symbols.
fn libc_path() -> &'static Path {
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

#[test]
fn missing_library_lists_the_paths_tried() {
    let err = AclApi::load(Some(Path::new("/nonexistent/dir/libascendcl.so"))).unwrap_err();
    match &err {
        LoadError::NotFound { vendor, tried } => {
            assert_eq!(*vendor, "ACL");
            assert_eq!(tried.len(), 1);
            assert_eq!(tried[0].candidate, "/nonexistent/dir/libascendcl.so");
        }
        other => panic!("expected NotFound, got {other:?}"),
    }
    assert!(err.to_string().contains("/nonexistent/dir/libascendcl.so"), "{err}");
}

#[test]
fn library_without_the_symbols_lists_every_missing_name() {
    let err = AclApi::load(Some(libc_path())).unwrap_err();
    let LoadError::MissingSymbols { vendor, path, missing } = &err else {
        panic!("expected MissingSymbols, got {err:?}");
    };
    assert_eq!(*vendor, "ACL");
    assert_eq!(path, libc_path());
    // Every required symbol is missing from libc, and none is reported twice.
    assert_eq!(missing.as_slice(), AclApi::REQUIRED);
    let msg = err.to_string();
    for name in ["aclInit", "aclrtMapMem", "aclrtMemImportFromShareableHandle", "aclGetRecentErrMsg"] {
        assert!(msg.contains(name), "message lacks {name}: {msg}");
    }
}

#[test]
fn search_order_is_explicit_then_home_then_names_then_defaults() {
    // With an explicit path, only that path is tried.
    assert_eq!(LIBRARY.candidates(Some(Path::new("/x/libascendcl.so"))), vec![Path::new("/x/libascendcl.so")]);
    // Without one (and without the environment variables set by the test
    // runner), the bare soname comes before the vendor's default directory.
    if std::env::var_os(LIBRARY.path_env).is_none() && std::env::var_os("ASCEND_HOME_PATH").is_none() {
        let c = LIBRARY.candidates(None);
        assert_eq!(c[0], Path::new("libascendcl.so"));
        assert_eq!(c[1], Path::new("/usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so"));
    }
}

#[test]
fn default_search_on_a_machine_without_cann_reports_not_found() {
    if std::env::var_os(LIBRARY.path_env).is_some() || std::env::var_os("ASCEND_HOME_PATH").is_some() {
        return; // a configured machine: nothing to assert here
    }
    match AclApi::load(None) {
        Err(LoadError::NotFound { tried, .. }) => assert!(tried.len() >= 2, "{tried:?}"),
        // `cargo test` puts target/*/deps on LD_LIBRARY_PATH, where the
        // workspace's own drop-in libascendcl.so may be found by soname.
        Err(LoadError::MissingSymbols { path, .. }) => {
            eprintln!("found an incomplete {}", path.display())
        }
        Err(e) => panic!("unexpected {e}"),
        Ok(l) => eprintln!("a libascendcl.so is installed at {}", l.path.display()),
    }
}
