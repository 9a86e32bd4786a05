//! Gives `libascendcl.so` its soname, so that programs linked against it
//! record `NEEDED libascendcl.so` (as with the vendor library), whatever name
//! they linked it under (`-lascendcl`, or `-lacl_rt` through a symlink).

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libascendcl.so");
    println!("cargo:rerun-if-changed=build.rs");
}
