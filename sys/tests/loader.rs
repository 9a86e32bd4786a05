//! Loading a vendor table from libraries that are absent or incomplete.

mod common;

use std::path::Path;

use vmmkit_sys::LoadError;
use vmmkit_sys::acl::{AclApi, LIBRARY};

#[test]
fn missing_library_lists_the_paths_tried() {
    let err = AclApi::load(Some(Path::new("/nonexistent/dir/libascendcl.so"))).unwrap_err();
    common::assert_not_found(&err, "ACL", "/nonexistent/dir/libascendcl.so");
}

#[test]
fn library_without_the_symbols_lists_every_missing_name() {
    let err = AclApi::load(Some(common::libc_path())).unwrap_err();
    common::assert_lacks_all(
        &err,
        "ACL",
        AclApi::REQUIRED,
        &["aclInit", "aclrtMapMem", "aclrtMemImportFromShareableHandle", "aclGetRecentErrMsg"],
    );
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
