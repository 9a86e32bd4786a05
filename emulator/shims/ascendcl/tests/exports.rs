//! What `libascendcl.so` exports: exactly the ACL functions of
//! `vmmkit_sys::acl_functions!` (required and optional), the unsupported
//! ones (`DEVICE_CODE`, `NOT_YET` of `export_unsupported!`) and the shim marker,
//! all as functions, with the vendor soname, and no Rust symbol leaking.

mod common;

use std::collections::BTreeSet;

use vmmkit_sys::acl::AclApi;

/// `nm -D --defined-only`: (type, name) of every defined dynamic symbol.
fn defined_dynamic_symbols() -> Vec<(String, String)> {
    let lib = common::library();
    let out = common::binutils("nm", &["-D".as_ref(), "--defined-only".as_ref(), lib.as_os_str()]);
    out.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace().rev();
            let name = f.next()?;
            let kind = f.next()?;
            Some((kind.to_string(), name.to_string()))
        })
        .collect()
}

#[test]
fn exports_exactly_the_documented_acl_names() {
    let symbols = defined_dynamic_symbols();
    let got: BTreeSet<&str> = symbols.iter().map(|(_, n)| n.split('@').next().unwrap_or(n)).collect();
    let want: BTreeSet<&str> = AclApi::REQUIRED
        .iter()
        .chain(AclApi::OPTIONAL)
        .chain(ascendcl::DEVICE_CODE)
        .chain(ascendcl::NOT_YET)
        .copied()
        .chain([vmmkit_sys::SHIM_MARKER])
        .collect();
    let missing: Vec<_> = want.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing exports: {missing:?}; unexpected exports: {extra:?}");
    assert_eq!(symbols.len(), want.len(), "a name is exported twice: {symbols:?}");
    for (kind, name) in &symbols {
        assert_eq!(kind, "T", "{name} should be a function in the text section, is `{kind}`");
    }
    println!(
        "{} symbols exported: {} required + {} optional ACL functions, {} device code + {} not yet, + {}",
        symbols.len(),
        AclApi::REQUIRED.len(),
        AclApi::OPTIONAL.len(),
        ascendcl::DEVICE_CODE.len(),
        ascendcl::NOT_YET.len(),
        vmmkit_sys::SHIM_MARKER
    );
}

#[test]
fn no_rust_symbols_leak() {
    let mangled: Vec<_> = defined_dynamic_symbols()
        .into_iter()
        .map(|(_, n)| n)
        .filter(|n| n.starts_with("_ZN") || n.starts_with("_R") || n.starts_with("__rust") || n.starts_with("rust_"))
        .collect();
    assert!(mangled.is_empty(), "Rust symbols exported: {mangled:?}");
}

#[test]
fn soname_is_libascendcl_so() {
    let lib = common::library();
    let dynamic = common::binutils("readelf", &["-d".as_ref(), lib.as_os_str()]);
    assert!(
        dynamic.lines().any(|l| l.contains("(SONAME)") && l.contains("[libascendcl.so]")),
        "soname should be libascendcl.so:\n{dynamic}"
    );
}

/// The loader of vmmkit-sys recognises the marker, and an explicit path
/// loads every function of the table from the library.
#[test]
fn loads_as_a_full_acl_table() {
    let loaded = AclApi::load(Some(common::library())).expect("load libascendcl.so by path");
    assert!(loaded.is_vmmkit_shim, "the loader should see the {} marker", vmmkit_sys::SHIM_MARKER);
    assert!(
        loaded.api.missing_optional().is_empty(),
        "optional functions missing: {:?}",
        loaded.api.missing_optional()
    );
    // SAFETY: aclrtGetSocName takes no argument and returns a static NUL-terminated string.
    let soc = unsafe { std::ffi::CStr::from_ptr((loaded.api.aclrtGetSocName)()) };
    assert!(soc.to_bytes().starts_with(b"Ascend"), "aclrtGetSocName through the library: {soc:?}");
}
