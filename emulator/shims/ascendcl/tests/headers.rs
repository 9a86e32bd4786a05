//! The C headers under `include/`: layouts and values as reference acl.md
//! §2 gives them, declarations that match the library's exports one to one
//! (names and C signatures, taken from `vmmkit_sys::acl_functions!`), error
//! codes equal to `AclError`'s, and usable from C and C++.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use common::{Scratch, c_compiler, include_dir, run_compiler};

/// How long a test program may run before it is killed (each runs in
/// milliseconds; a hang fails the test instead of the run).
const PROGRAM_DEADLINE: std::time::Duration = std::time::Duration::from_secs(60);
use vmmkit_sys::acl::{AclApi, AclError};

/// The headers, relative to `include/`.
const HEADERS: &[&str] = &[
    "acl/acl.h",
    "acl/acl_base.h",
    "acl/acl_rt.h",
    "acl/acl_rt_allocator.h",
    "acl/acl_rt_unsupported.h",
    "acl/error_codes/rt_error_codes.h",
];

/// Compiles `src` with `compiler` and `flags` against `include/`, to an object file.
fn compile_object(compiler: &str, flags: &[&str], src: &Path, scratch: &Scratch) {
    let mut cmd = Command::new(compiler);
    cmd.args(flags).arg("-I").arg(include_dir()).arg("-c").arg(src).arg("-o").arg(scratch.path().join("out.o"));
    run_compiler(&mut cmd, src);
}

/// `tests/c/layout.c`: `_Static_assert`s of every struct's size, alignment
/// and offsets, every enum value and every §2.2 macro, in strict C11.
fn layouts_and_values_match_the_reference() {
    let scratch = Scratch::new();
    let src = common::c_dir().join("layout.c");
    compile_object(&c_compiler(), &["-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror"], &src, &scratch);
}

/// Defines `SIGNATURES`: one `(name, return type, parameter types)` per
/// function of the list, as the Rust tokens of `vmmkit_sys::acl_functions!`.
macro_rules! signatures {
    (
        required { $( $(#[$rm:meta])* $r:ident : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        const SIGNATURES: &[(&str, &str, &[&str])] = &[
            $( (stringify!($r), stringify!($rr), &[$(stringify!($rt)),*]), )*
            $( (stringify!($o), stringify!($or), &[$(stringify!($ot)),*]), )*
        ];
    };
}
vmmkit_sys::acl_functions!(signatures {});

/// The C spelling of a Rust type of the function list.
fn c_type(rust: &str) -> String {
    // `stringify!` of a pointer type may space it as `* const T`.
    let rust = rust.trim().replace("* const ", "*const ").replace("* mut ", "*mut ");
    let rust = rust.as_str();
    if let Some(inner) = rust.strip_prefix("*mut ") {
        return format!("{} *", c_type(inner));
    }
    if let Some(inner) = rust.strip_prefix("*const ") {
        assert!(!inner.starts_with('*'), "a const pointer to a pointer needs a C spelling here: {rust}");
        return format!("const {} *", c_type(inner));
    }
    match rust {
        "i32" => "int32_t",
        "u32" => "uint32_t",
        "u64" => "uint64_t",
        "i64" => "int64_t",
        "u16" => "uint16_t",
        "usize" => "size_t",
        "c_void" => "void",
        "c_char" => "char",
        "f32" => "float",
        acl => {
            assert!(acl.starts_with("acl"), "no C spelling for the Rust type {acl}");
            acl
        }
    }
    .to_string()
}

/// Every function of the list is declared by `acl/acl.h` with exactly the C
/// type the library exports it with (GCC's `__builtin_types_compatible_p`).
fn declarations_have_the_exported_signatures() {
    let scratch = Scratch::new();
    let mut src = String::from("#include <acl/acl.h>\n");
    for (name, ret, params) in SIGNATURES {
        let params = if params.is_empty() {
            "void".to_string()
        } else {
            params.iter().map(|p| c_type(p)).collect::<Vec<_>>().join(", ")
        };
        src += &format!(
            "_Static_assert(__builtin_types_compatible_p(__typeof__(&{name}), {ret} (*)({params})), \"{name}\");\n",
            ret = c_type(ret)
        );
    }
    let path = scratch.path().join("signatures.c");
    std::fs::write(&path, &src).expect("write signatures.c");
    compile_object(&c_compiler(), &["-std=gnu11", "-Wall", "-Wextra", "-Werror"], &path, &scratch);
    assert_eq!(SIGNATURES.len(), AclApi::REQUIRED.len() + AclApi::OPTIONAL.len());
}

/// The headers declare no function that the library does not export, and
/// every exported ACL function (not the shim marker), emulated or
/// unsupported, is declared.
fn headers_declare_exactly_the_exported_functions() {
    let mut declared = BTreeSet::new();
    for h in HEADERS {
        let text = std::fs::read_to_string(include_dir().join(h)).expect("read header");
        for decl in text.split("ACL_FUNC_VISIBILITY").skip(1) {
            let head = decl.split('(').next().unwrap_or_default();
            if let Some(name) = head.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).rfind(|w| !w.is_empty())
            {
                declared.insert(name.to_string());
            }
        }
    }
    // The `#define ACL_FUNC_VISIBILITY ...` line is not a declaration.
    declared.remove("__attribute__");
    declared.remove("define");
    let exported: BTreeSet<String> = AclApi::REQUIRED
        .iter()
        .chain(AclApi::OPTIONAL)
        .chain(ascendcl::DEVICE_CODE)
        .chain(ascendcl::NOT_YET)
        .map(|s| s.to_string())
        .collect();
    let undeclared: Vec<_> = exported.difference(&declared).collect();
    let not_exported: Vec<_> = declared.difference(&exported).collect();
    assert!(
        undeclared.is_empty() && not_exported.is_empty(),
        "exported but not declared: {undeclared:?}; declared but not exported: {not_exported:?}"
    );
}

/// Each `ACL_ERROR_*` constant of the headers equals `AclError`'s value of the same name.
fn error_codes_match_acl_error() {
    let scratch = Scratch::new();
    let mut src = String::from("#include <stdio.h>\n#include <acl/acl.h>\nint main(void) {\n");
    for code in AclError::ALL {
        let name = code.name().expect("every listed code has a name");
        src += &format!("    printf(\"%s=%d\\n\", \"{name}\", (int){name});\n");
    }
    src += "    printf(\"ACL_ERROR_NONE=%d\\nACL_RT_SUCCESS=%d\\n\", ACL_ERROR_NONE, (int)ACL_RT_SUCCESS);\n    return 0;\n}\n";
    let path = scratch.path().join("codes.c");
    std::fs::write(&path, &src).expect("write codes.c");
    let exe = scratch.path().join("bin/codes");
    let mut cmd = Command::new(c_compiler());
    cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"]).arg(include_dir()).arg("-o").arg(&exe).arg(&path);
    run_compiler(&mut cmd, &path);
    let (exit, text) = vmmkit_testkit::process::run(&mut Command::new(&exe), PROGRAM_DEADLINE).expect("run codes");
    assert!(exit.success(), "codes: {exit}\n{text}");
    let mut lines = text.lines();
    for code in AclError::ALL {
        assert_eq!(lines.next(), Some(format!("{}={}", code.name().unwrap_or_default(), code.0).as_str()));
    }
    assert_eq!(lines.next(), Some("ACL_ERROR_NONE=0"));
    assert_eq!(lines.next(), Some("ACL_RT_SUCCESS=0"));
}

/// Each header compiles on its own, in C and in C++; a C++ program links
/// against the library (so the declarations have C linkage) and runs.
fn headers_stand_alone_in_c_and_cxx() {
    let scratch = Scratch::new();
    for h in HEADERS {
        let c = scratch.path().join("one.c");
        std::fs::write(&c, format!("#include <{h}>\n")).expect("write one.c");
        compile_object(&c_compiler(), &["-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror"], &c, &scratch);
    }
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    if Command::new(&cxx).arg("--version").output().is_err() {
        vmmkit_testkit::harness::skip(format!("the C part passed; no C++ compiler `{cxx}` for the C++ part (set CXX)"));
    }
    for h in HEADERS {
        let cc = scratch.path().join("one.cc");
        std::fs::write(&cc, format!("#include <{h}>\n")).expect("write one.cc");
        compile_object(&cxx, &["-std=c++11", "-Wall", "-Wextra", "-Werror"], &cc, &scratch);
    }
    let cc = scratch.path().join("main.cc");
    std::fs::write(
        &cc,
        "#include <acl/acl.h>\n#include <cstdio>\nint main() {\n    aclrtPhysicalMemProp prop = {};\n    size_t g = 0;\n    \
         aclError ret = aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g);\n    \
         std::printf(\"%s %d\\n\", aclrtGetSocName(), ret);\n    return 0;\n}\n",
    )
    .expect("write main.cc");
    let exe = scratch.path().join("bin/main_cc");
    let mut cmd = Command::new(&cxx);
    cmd.args(["-std=c++11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(include_dir())
        .arg("-o")
        .arg(&exe)
        .arg(&cc)
        .arg("-L")
        .arg(scratch.lib_dir())
        .arg("-lascendcl");
    run_compiler(&mut cmd, &cc);
    let (exit, text) =
        vmmkit_testkit::process::run(&mut scratch.command(&exe), PROGRAM_DEADLINE).expect("run the C++ program");
    // A zeroed prop has memAttr ACL_DDR_MEM (0): ACL-GRAN-003, 100000.
    assert!(
        exit.success() && text.lines().any(|l| l.starts_with("Ascend") && l.ends_with(" 100000")),
        "C++ program ({exit}): {text}"
    );
}

vmmkit_testkit::harness!(
    layouts_and_values_match_the_reference,
    declarations_have_the_exported_signatures,
    headers_declare_exactly_the_exported_functions,
    error_codes_match_acl_error,
    headers_stand_alone_in_c_and_cxx,
);
