//! ROCm's hip-tests, their kernel-free event, IPC-event and stream cases
//! and their kernel-free VMM, IPC-memory and
//! memory-pool cases (the multi-GPU maps and a multiprocess pool
//! case included), against vmmkit's `libamdhip64.so`;
//! and the functions hip-tests' own main calls, all exported.
//!
//! The cases are read at run time from a hip-tests copy that is never
//! committed here: `VMMKIT_HIP_TESTS` (a checkout, or a bare git directory
//! whose `HEAD` is read), else `target/hip-tests` (made with
//! `git clone https://github.com/ROCm/hip-tests target/hip-tests`). Each
//! case's body is extracted verbatim from its file (hip-tests' own helpers
//! need a device compiler; these bodies do not) and built with g++ against
//! Debian's HIP headers (`scripts/fetch-hip.sh headers`) and a small
//! Catch2-compatible shim of our own (`tests/cpp/hip_tests/hip_test_common.hh`,
//! with SECTION and GENERATE) and our host-only stand-ins for the helpers of
//! hip-tests' `mempool_common.hh` and `resource_guards.hh` that the pool
//! cases use (`mempool_support.hh`), then run on a fresh emulator root under
//! `async`, `adversarial` and `eager`; the cases in [`OWN_PROCESS`] each in
//! a process of their own, as hip-tests' ctest runs every case. The list of
//! cases run and not run, with why, is docs/audit/hip-tests.md.
//!
//! Every case must pass; a case that differs from clr would be listed in
//! [`KNOWN`] with its source. Where the copy or the headers are absent,
//! the test is reported ignored with why (`vmmkit_testkit::harness`).

mod common;
mod hip_tests_source;

use std::path::Path;

use common::{Scratch, finish, library_dir, repo_root, run_compiler};
use hip_tests_source::{Copy, extract, extract_decl, preamble, undefines};
use vmmkit_testkit::hip::ignore;

/// The kernel-free cases: (file under `catch/`, case names).
const CASES: &[(&str, &[&str])] = &[
    (
        "unit/event/Unit_hipEvent_Negative.cc",
        &[
            "Unit_hipEventCreate_NullCheck",
            "Unit_hipEventCreateWithFlags_NullCheck",
            "Unit_hipEventCreate_IncompatibleFlags",
            "Unit_hipEventSynchronize_NullCheck",
            "Unit_hipEventQuery_NullCheck",
            "Unit_hipEventDestroy_NullCheck",
        ],
    ),
    (
        "unit/event/Unit_hipEventElapsedTime.cc",
        &[
            "Unit_hipEventElapsedTime_NullCheck",
            "Unit_hipEventElapsedTime_DisableTiming",
            "Unit_hipEventElapsedTime_DifferentDevices",
            // Its LaunchDelayKernel is a sleeping host function here (the shim says why).
            "Unit_hipEventElapsedTime_NotReady_Negative",
            "Unit_hipEventElapsedTime",
        ],
    ),
    ("unit/event/Unit_hipEventRecord.cc", &["Unit_hipEventRecord_Negative"]),
    ("unit/event/hipEventDestroy.cc", &["Unit_hipEventDestroy_Negative"]),
    ("multiproc/hipIpcEventHandle.cc", &["Unit_hipIpcEventHandle_ParameterValidation"]),
    // The stream cases that need no kernel and no helper of their file.
    (
        "unit/stream/hipStreamQuery.cc",
        &[
            "Unit_hipStreamQuery_WithNoWork",
            "Unit_hipStreamQuery_WithDestroyedStream",
            "Unit_hipStreamQuery_WithUninitializedStream",
        ],
    ),
    (
        "unit/stream/hipStreamDestroy.cc",
        &[
            "Unit_hipStreamDestroy_Default",
            "Unit_hipStreamDestroy_Negative_DoubleDestroy",
            "Unit_hipStreamDestroy_Negative_NullStream",
        ],
    ),
    (
        "unit/stream/hipStreamSynchronize.cc",
        &["Unit_hipStreamSynchronize_EmptyStream", "Unit_hipStreamSynchronize_UninitializedStream"],
    ),
    ("unit/stream/hipStreamGetFlags.cc", &["Unit_hipStreamGetFlags_Negative"]),
    (
        "unit/stream/hipStreamGetPriority.cc",
        &[
            "Unit_hipStreamGetPriority_nullptr_nullptr",
            "Unit_hipStreamGetPriority_stream_nullptr",
            "Unit_hipStreamGetPriority_nullptr_priority",
            "Unit_hipStreamGetPriority_stream_priority",
        ],
    ),
    (
        "unit/stream/hipStreamCreateWithFlags.cc",
        &["Unit_hipStreamCreateWithFlags_Negative_NullStream", "Unit_hipStreamCreateWithFlags_Negative_InvalidFlag"],
    ),
    ("unit/stream/hipStreamCreate.cc", &["Unit_hipStreamCreate_Negative"]),
    ("unit/stream/hipStreamWaitEvent.cc", &["Unit_hipStreamWaitEvent_UninitializedStream_Negative"]),
    ("unit/stream/hipStreamCreateWithPriority.cc", &["Unit_hipStreamCreateWithPriority_NegTst"]),
    ("unit/stream/hipLaunchHostFunc.cc", &["Unit_hipLaunchHostFunc_Negative"]),
];

/// The kernel-free VMM (the multi-GPU ones included), IPC-memory
/// and memory-pool cases. Their files' `#define` and `constexpr` lines
/// before the first case are taken too, each file in its own namespace.
const MEMORY_CASES: &[(&str, &[&str])] = &[
    ("unit/virtualMemoryManagement/hipMemAddressFree.cc", &["Unit_hipMemAddressFree_negative"]),
    (
        "unit/virtualMemoryManagement/hipMemAddressReserve.cc",
        &["Unit_hipMemAddressReserve_AlignmentTest", "Unit_hipMemAddressReserve_Negative"],
    ),
    (
        "unit/virtualMemoryManagement/hipMemCreate.cc",
        &[
            "Unit_hipMemCreate_BasicAllocateDeAlloc_MultGranularity",
            "Unit_hipMemCreate_ChkDev2HstMemcpy_ReleaseHdlPostUnmap",
            "Unit_hipMemCreate_ChkDev2HstMemcpy_ReleaseHdlPreUse",
            "Unit_hipMemCreate_ChkWithMemset",
            "Unit_hipMemCreate_Negative",
        ],
    ),
    (
        "unit/virtualMemoryManagement/hipMemGetAllocationGranularity.cc",
        &["Unit_hipMemGetAllocationGranularity_NegativeTests"],
    ),
    (
        "unit/virtualMemoryManagement/hipMemGetAllocationPropertiesFromHandle.cc",
        &[
            "Unit_hipMemGetAllocationPropertiesFromHandle_functional",
            "Unit_hipMemGetAllocationPropertiesFromHandle_Negative",
        ],
    ),
    (
        "unit/virtualMemoryManagement/hipMemMap.cc",
        &[
            "Unit_hipMemMap_PhysicalMemory_Map2MultVMMs",
            "Unit_hipMemMap_PhysicalMemoryReuse_MultiDev",
            "Unit_hipMemMap_VMMMemoryReuse_MultiGPU",
            "Unit_hipMemMap_MapPartialPhysicalMem",
            "Unit_hipMemMap_MapPartialVMMMem",
            "Unit_hipMemMap_negative",
        ],
    ),
    ("unit/virtualMemoryManagement/hipMemRelease.cc", &["Unit_hipMemRelease_negative"]),
    (
        "unit/virtualMemoryManagement/hipMemRetainAllocationHandle.cc",
        &["Unit_hipMemRetainAllocationHandle_SetGet", "Unit_hipMemRetainAllocationHandle_NegTst"],
    ),
    (
        "unit/virtualMemoryManagement/hipMemSetGetAccess.cc",
        &[
            "Unit_hipMemSetAccess_SetGet",
            "Unit_hipMemSetAccess_MultDevSetGet",
            "Unit_hipMemSetAccess_EntireVMMRangeSetGet",
            "Unit_hipMemGetAccess_NegTst",
            "Unit_hipMemSetAccess_AccessDirectlyFromHost",
            "Unit_hipMemSetAccess_ChangeAccessProp",
            "Unit_hipMemSetAccess_Vmm2DevMemCpy",
            "Unit_hipMemSetAccess_Vmm2PeerDevMemCpy",
            "Unit_hipMemSetAccess_Vmm2PeerPeerMemCpy",
            "Unit_hipMemSetAccess_Vmm2VMMMemCpy",
            "Unit_hipMemSetAccess_Vmm2VMMInterDevMemCpy",
            "Unit_hipMemSetAccess_MapPhysChksFromMulDev",
            "Unit_hipMemSetAccess_negative",
        ],
    ),
    ("unit/virtualMemoryManagement/hipMemUnmap.cc", &["Unit_hipMemUnmap_negative"]),
    ("unit/virtualMemoryManagement/hipMemVmm_old.cc", &["Unit_hipMemVmm_Basic"]),
    ("multiproc/hipIpcMemAccessTest.cc", &["Unit_hipIpcMemAccess_ParameterValidation"]),
    // Buffer ids (HIP-MEM-004) and the mipmapped-array NULL arguments (HIP-MEM-005).
    ("unit/memory/hipPointerGetAttribute.cc", &["Unit_hipPointerGetAttribute_BufferID"]),
    ("unit/memory/hipFreeMipmappedArray.cc", &["Unit_hipFreeMipmappedArray_Negative_Nullptr"]),
    // The memory-pool cases whose bodies launch no kernel (those with
    // `GENERATE` are further down); the helpers of mempool_common.hh they use are our own
    // host-only stand-ins (tests/cpp/hip_tests/mempool_support.hh).
    (
        "unit/memory/hipMemPoolCreate.cc",
        &[
            "Unit_hipMemPoolCreate_Negative_Parameter",
            "Unit_hipMemPoolCreate_With_maxSize",
            "Unit_hipMemPoolCreate_Without_maxSize",
        ],
    ),
    ("unit/memory/hipMemPoolDestroy.cc", &["Unit_hipMemPoolDestroy_Negative_Parameter"]),
    ("unit/memory/hipMemPoolTrimTo.cc", &["Unit_hipMemPoolTrimTo_Negative_Parameter"]),
    ("unit/memory/hipMallocFromPoolAsync.cc", &["Unit_hipMallocFromPoolAsync_Negative_Parameters"]),
    ("unit/memory/hipMallocAsync.cc", &["Unit_hipMallocAsync_Negative_Parameters"]),
    ("unit/memory/hipFreeAsync.cc", &["Unit_hipFreeAsync_Negative_Parameters"]),
    ("unit/memory/hipDeviceGetMemPool.cc", &["Unit_hipDeviceGetMemPool_Basic"]),
    (
        "unit/memory/hipDeviceSetMemPool.cc",
        &["Unit_hipDeviceSetMemPool_Basic", "Unit_hipDeviceSetMemPool_DestroyCurrentMempool"],
    ),
    ("unit/memory/hipMemPoolExportToShareableHandle.cc", &["Unit_hipMemPoolExportToShareableHandle_Negative"]),
    ("unit/memory/hipMemPoolImportFromShareableHandle.cc", &["Unit_hipMemPoolImportFromShareableHandle_Negative"]),
    ("unit/memory/hipMemPoolExportPointer.cc", &["Unit_hipMemPoolExportPointer_Negative"]),
    ("unit/memory/hipMemPoolImportPointer.cc", &["Unit_hipMemPoolImportPointer_Negative"]),
    // Multiprocess: the child imports the pool through an fd passed on a
    // socket (our ipcSocketCom) and reads its access for every device.
    ("unit/memory/hipMemPoolExportToShareableHandle.cc", &["Unit_hipMemPoolExportToShareableHandle_ChldCheckAccess"]),
    (
        "unit/memory/hipMemPoolSetGetAccess.cc",
        &[
            // Not Unit_hipMemPoolSetAccess_Negative_Parameters: it starts with
            // CHECK_IMAGE_SUPPORT, and the emulator has no images (attribute
            // ImageSupport is 0), so hip-tests itself skips it.
            "Unit_hipMemPoolSetGetAccess_Positive_Basic",
            "Unit_hipMemPoolSetAccess_NegTst",
            "Unit_hipMemPoolGetAccess_Negative_Parameters",
            "Unit_hipMemPoolGetAccess_SetGet",
            "Unit_hipMemPoolGetAccess_GetDefMempoolOfEachDevice",
        ],
    ),
    ("unit/memory/hipMemPoolApi.cc", &["Unit_hipMemPoolApi_Basic"]),
    (
        "unit/memory/hipMemPoolSetGetAttribute.cc",
        &[
            "Unit_hipMemPoolSetGetAttribute_Positive_Default",
            "Unit_hipMemPoolSetGetAttribute_Positive_MemBasic",
            "Unit_hipMemPoolSetAttribute_Negative_Parameters",
            "Unit_hipMemPoolSetAttribute_ResetMemHighAttr",
            "Unit_hipMemPoolGetAttribute_Negative_Parameters",
            "Unit_hipMemPoolGetAttribute_SetGet",
            "Unit_hipMemPoolGetAttribute_UsedMem",
            "Unit_hipMemPoolGetAttribute_ReservedMem",
            "Unit_hipMemPoolGetAttribute_UsageStatistics",
            "Unit_hipMemPoolGetAttribute_hipMalloc_DefMempool",
            "Unit_hipMemPoolGetAttribute_CheckDefaultValues",
        ],
    ),
];

/// Cases that run in a process of their own, as hip-tests' ctest runs every
/// case, with why a shared process would not do.
const OWN_PROCESS: &[(&str, &str)] = &[
    (
        "Unit_hipMemPoolExportToShareableHandle_ChldCheckAccess",
        "it forks before its first HIP call and uses HIP in the child; the emulator refuses calls \
         in a child forked after it started in the parent (HIP-FORK-001)",
    ),
    (
        "Unit_hipMemPoolApi_Basic",
        "it sets ReuseFollowEventDependencies of device 0's default pool to 0 and leaves it so; \
         Unit_hipMemPoolSetGetAttribute_Positive_Default expects the default, 1",
    ),
];

/// Kernel-free helpers of a file that its listed cases call (functions by
/// name, or a file-level variable), taken verbatim like the cases.
const FILE_HELPERS: &[(&str, &[&str])] = &[
    (
        "unit/memory/hipMemPoolSetGetAccess.cc",
        &[
            "MemPoolSetGetAccess",
            "getDevicePairs",
            "checkMempoolSetAccessWithGet",
            "checkMempoolSetAccessWithGetUsingArray",
        ],
    ),
    ("unit/memory/hipMemPoolApi.cc", &["kPoolProps", "initMemPoolProps"]),
    ("unit/memory/hipPointerGetAttribute.cc", &["N"]),
    (
        "unit/memory/hipMemPoolSetGetAttribute.cc",
        &[
            "MemPoolSetGetAttribute",
            "resetHighValue",
            "iterations",
            "reservedHighExp",
            "usedHighExp",
            "mempoolUsgStat",
            "getUsageStatistics",
            "checkDefaultAttributeValues",
            "checkhipMemPoolSetAttribute",
        ],
    ),
];

/// Cases whose result on clr differs from hip-tests' expectation, with the
/// source that says so (none so far).
const KNOWN: &[(&str, &str)] = &[];

/// Builds the runner: our shim, then each case, with the file it came from;
/// with `constants`, each file's [`preamble`] too, each file in its own namespace.
fn source(copy: &Copy, cases: &[(&str, &[&str])], constants: bool) -> Result<String, String> {
    let mut out = String::from(
        "#include \"hip_test_common.hh\"\n#include \"mempool_support.hh\"\n#include <limits>\n#include <sys/wait.h>\n#include <unistd.h>\n",
    );
    for (i, (file, names)) in cases.iter().enumerate() {
        let path = format!("catch/{file}");
        let src = copy.read(&path)?;
        if constants {
            out.push_str(&format!("\nnamespace vmmkit_file_{i} {{\n// hip-tests {path}\n{}", preamble(&src)));
            let helpers = FILE_HELPERS.iter().filter(|(f, _)| f == file).flat_map(|(_, h)| h.iter());
            for helper in helpers {
                let text = extract_decl(&src, helper).ok_or_else(|| format!("{path}: no definition of {helper}"))?;
                out.push_str(&format!("{text}\n"));
            }
        }
        for name in *names {
            let body = extract(&src, name).ok_or_else(|| format!("{path}: no TEST_CASE(\"{name}\")"))?;
            out.push_str(&format!("\n// hip-tests {path}\n{body}\n"));
        }
        if constants {
            out.push_str("}\n");
            out.push_str(&undefines(&preamble(&src)));
        }
    }
    Ok(out)
}

fn hip_tests_event_and_stream_cases_pass_on_our_library() {
    run_cases("hip_tests_events", CASES, false, "1G");
}

/// hip-tests' kernel-free VMM (incl. the multi-GPU
/// `hipMemMap_VMMMemoryReuse_MultiGPU` and `hipMemSetAccess_MapPhysChksFromMulDev`),
/// IPC-memory and memory-pool cases, built against Debian's headers and
/// linked directly against our library, pass on it.
fn hip_tests_vmm_ipc_and_pool_cases_pass_on_our_library() {
    // Unit_hipMemPoolCreate_With_maxSize and _Without_maxSize never free
    // what they allocate (512 MiB, then 1025 MiB) before destroying their
    // pool, and clr keeps a destroyed pool's allocations until they are freed
    // (clr hipamd/src/hip_mempool.cpp:338-345 releases only the free ones;
    // each allocation holds a reference on the pool: hip_mempool_impl.cpp:227
    // retains it, :306 releases it at the free),
    // as the emulator does: a GPU's memory holds that; 1 GiB would not.
    let memory = "4G";
    run_cases("hip_tests_memory", MEMORY_CASES, true, memory);
}

/// Builds `cases` into `bin/<exe>` and runs them on a fresh root in each
/// streams mode, with `device_memory` bytes per device (`VMMKIT_DEVICE_MEMORY`).
fn run_cases(exe_name: &str, cases: &[(&str, &[&str])], constants: bool, device_memory: &str) {
    let copy = match Copy::find() {
        Ok(c) => c,
        Err(reason) => ignore(&reason),
    };
    let env = match vmmkit_testkit::hip::fetch(&repo_root(), "headers") {
        Ok(env) => env,
        Err(reason) => ignore(&reason),
    };
    let text = source(&copy, cases, constants).unwrap_or_else(|e| panic!("hip-tests at {}: {e}", copy.revision()));
    let scratch = Scratch::new();
    let src = scratch.path().join(format!("{exe_name}.cpp"));
    std::fs::write(&src, text).expect("write the runner");
    let exe = scratch.path().join("bin").join(exe_name);
    let mut cmd = hip_tests_source::compiler(&src, &exe, Path::new(&env["HIP_INCLUDE"]));
    run_compiler(&mut cmd, &src);
    let want: usize = cases.iter().map(|(_, n)| n.len()).sum();
    println!("hip-tests {} ({} cases, headers {})", copy.revision(), want, env["HIP_HEADERS_VERSION"]);
    for mode in ["async", "adversarial", "eager"] {
        let fresh: Vec<&str> = cases
            .iter()
            .flat_map(|(_, n)| n.iter().copied())
            .filter(|n| OWN_PROCESS.iter().any(|(c, _)| c == n))
            .collect();
        // The shared process leaves out the cases that get their own, then each of those runs.
        let runs = std::iter::once(fresh.iter().map(|n| format!("-{n}")).collect::<Vec<_>>())
            .chain(fresh.iter().map(|n| vec![n.to_string()]));
        let mut out = String::new();
        for (case, why) in OWN_PROCESS.iter().filter(|(c, _)| fresh.contains(c)) {
            out.push_str(&format!("{case} runs in a process of its own: {why}\n"));
        }
        for args in runs {
            let mut cmd = scratch.command(&exe, library_dir());
            cmd.args(&args).env("VMMKIT_STREAMS", mode).env("VMMKIT_DEVICE_MEMORY", device_memory);
            let started = scratch.start(&format!("{exe_name} ({mode}) {}", args.join(" ")), cmd);
            out.push_str(&finish(&mut [started]).remove(0));
        }
        print!("--- VMMKIT_STREAMS={mode}:\n{out}");
        let results: Vec<(&str, &str)> =
            out.lines().filter_map(|l| l.strip_prefix("CASE ")).filter_map(|l| l.split_once(": ")).collect();
        assert_eq!(results.len(), want, "{mode}: every case reports");
        for (case, result) in &results {
            let known = KNOWN.iter().find(|(k, _)| k == case);
            match (result.starts_with("PASS"), known) {
                (true, None) => {}
                (false, Some((_, why))) => println!("{case}: a known difference: {why}"),
                (true, Some(_)) => panic!("{mode}: {case} passes; remove it from KNOWN"),
                (false, None) => panic!("{mode}: {case}: {result}"),
            }
        }
    }
    // Some cases never destroy their IPC events (hip-tests leaves that to
    // process exit): what they held is collected once they have ended.
    assert_eq!(scratch.collect(), Vec::<String>::new(), "gc left shared objects behind");
}

/// `extract` matches braces, not the first `}`.
fn extract_takes_the_whole_case() {
    let src = "x\nTEST_CASE(\"A\") {\n  if (1) { f(); }\n  SECTION(\"s\") { g(); }\n}\nTEST_CASE(\"B\") { h(); }\n";
    assert_eq!(
        extract(src, "A").as_deref(),
        Some("TEST_CASE(\"A\") {\n  if (1) { f(); }\n  SECTION(\"s\") { g(); }\n}")
    );
    assert_eq!(extract(src, "B").as_deref(), Some("TEST_CASE(\"B\") { h(); }"));
    assert_eq!(extract(src, "C"), None);
}

/// The files of hip-tests' own main and common header, whose references
/// decide whether any hip-tests binary links.
const MAIN_FILES: &[&str] = &[
    "catch/hipTestMain/main.cc",
    "catch/hipTestMain/hip_test_context.cc",
    "catch/hipTestMain/hip_test_features.cc",
    "catch/include/hip_test_common.hh",
    "catch/include/hip_test_context.hh",
];

/// hip-tests' own main references hipModuleUnload and hipCtxCreate
/// (and graphs, arrays, stream capture): every HIP runtime function its main
/// and common header call is exported by our library, so a hip-tests binary
/// links against the drop-in directly. The memory-family names (arrays) are
/// the memory branch's and only reported here; the coverage test requires
/// every declared function.
fn hip_tests_main_references_are_exported() {
    let copy = match Copy::find() {
        Ok(c) => c,
        Err(reason) => ignore(&reason),
    };
    let list = vmmkit_testkit::coverage::read_list(&repo_root().join("docs/api/hip.tsv")).expect("hip.tsv");
    let family: std::collections::HashMap<&str, &str> = list.iter().map(|(n, f, _)| (n.as_str(), f.as_str())).collect();
    let exported = vmmkit_testkit::coverage::exported(&library_dir().join("libamdhip64.so"));
    let mut called = std::collections::BTreeSet::new();
    for file in MAIN_FILES {
        let text = copy.read(file).unwrap_or_else(|e| panic!("hip-tests at {}: {e}", copy.revision()));
        let bytes = text.as_bytes();
        let mut i = 0;
        while let Some(at) = text[i..].find("hip") {
            let start = i + at;
            let end = start + text[start..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(0);
            let word = &text[start..end.max(start + 3)];
            let boundary = start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
            if boundary && text[end..].trim_start().starts_with('(') && family.contains_key(word) {
                called.insert(word.to_string());
            }
            i = end.max(start + 3);
        }
    }
    let missing: Vec<&String> = called.iter().filter(|n| !exported.contains(*n)).collect();
    let (memory, other): (Vec<&String>, Vec<&String>) =
        missing.into_iter().partition(|n| family[n.as_str()].starts_with("Memory Management"));
    println!("hip-tests {}: its main calls {} runtime functions: {called:?}", copy.revision(), called.len());
    if !memory.is_empty() {
        println!("not exported yet, memory family: {memory:?}");
    }
    assert!(called.contains("hipModuleUnload") && called.contains("hipCtxCreate"), "{called:?}");
    assert!(other.is_empty(), "hip-tests' main calls functions our library does not export: {other:?}");
}

/// `undefines` names each macro of a preamble once, function-like ones too.
fn undefines_names_each_macro() {
    let pre = "#define DATA_SIZE 1024\nconstexpr int N = 4;\n#define SQ(x) ((x) * (x))\n";
    assert_eq!(undefines(pre), "#undef DATA_SIZE\n#undef SQ\n");
}

/// `extract_decl` takes a function with its body, or a variable's line (or lines, to its `;`), at file level only.
fn extract_decl_takes_file_level_definitions() {
    assert_eq!(extract_decl("static void *gp;\n", "gp").as_deref(), Some("static void *gp;"));
    assert_eq!(extract_decl("static void w(int* m, int v) { *m = v; }\n", "m"), None);
    let src = "int z;\ntemplate <int n>\nusing arr = std::array<int, n>;\n";
    assert_eq!(extract_decl(src, "arr").as_deref(), Some("template <int n>\nusing arr = std::array<int, n>;"));
    let src = "int z;\ntypedef struct h {\n  int d;\n} h_t;\nint q;\n";
    assert_eq!(extract_decl(src, "h_t").as_deref(), Some("typedef struct h {\n  int d;\n} h_t;"));
    assert_eq!(extract_decl(&src[7..], "h_t").as_deref(), Some("typedef struct h {\n  int d;\n} h_t;"));
    let src = "static int kN;\n  int inner(int a) { return a; }\nvoid init() {\n  if (1) { kN = 1; }\n};\nTEST_CASE(\"A\") { init(); }\n";
    assert_eq!(extract_decl(src, "kN").as_deref(), Some("static int kN;"));
    assert_eq!(extract_decl(src, "init").as_deref(), Some("void init() {\n  if (1) { kN = 1; }\n};"));
    assert_eq!(extract_decl(src, "inner"), None);
    let src = "constexpr int kIter = 2;\nstruct Stat {\n  int a;\n};\n";
    assert_eq!(extract_decl(src, "kIter").as_deref(), Some("constexpr int kIter = 2;"));
    assert_eq!(extract_decl(src, "Stat").as_deref(), Some("struct Stat {\n  int a;\n};"));
    let src = "int x;\ntemplate <typename T>\nstatic void f(T t) {\n  g(t);\n}\n";
    assert_eq!(extract_decl(src, "f").as_deref(), Some("template <typename T>\nstatic void f(T t) {\n  g(t);\n}"));
    let src = "using fn_t = int (*)(int a,\n                   int b);\nstatic int t[2] = {\n  1, 2};\n";
    assert_eq!(extract_decl(src, "fn_t").as_deref(), Some("using fn_t = int (*)(int a,\n                   int b);"));
    assert_eq!(extract_decl(src, "t").as_deref(), Some("static int t[2] = {\n  1, 2};"));
    let src = "int y;\ntemplate <typename T>\nusing pick =\n    typename std::conditional<true, T, int>::type;\n\
               template <int> inline constexpr bool kOn = true;\ntemplate <int N> auto make() {\n  return N;\n}\n";
    assert_eq!(
        extract_decl(src, "pick").as_deref(),
        Some("template <typename T>\nusing pick =\n    typename std::conditional<true, T, int>::type;")
    );
    assert_eq!(extract_decl(src, "make").as_deref(), Some("template <int N> auto make() {\n  return N;\n}"));
}

vmmkit_testkit::harness!(
    hip_tests_event_and_stream_cases_pass_on_our_library,
    hip_tests_vmm_ipc_and_pool_cases_pass_on_our_library,
    extract_takes_the_whole_case,
    hip_tests_main_references_are_exported,
    undefines_names_each_macro,
    extract_decl_takes_file_level_definitions,
);
