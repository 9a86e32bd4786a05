//! What a rule is: the record every catalog entry fills (STYLE.md §6).
//!
//! A rule is data plus one check function. The record says what the
//! reference states (id, text, sources, confidence), what the backend must
//! answer (`expect`), what the machine must offer before the check is worth
//! running (`requires`), and which check provokes it.
#![forbid(unsafe_code)]

use std::fmt;

use vmmkit_sys::acl::AclError;
use vmmkit_sys::cuda::CuResult;
use vmmkit_sys::hip::HipError;

use crate::acl::Ctx as AclCtx;
use crate::cuda::Ctx as CudaCtx;
use crate::hip::Ctx as HipCtx;
use crate::outcome::Failure;

/// A rule id such as `ACL-MAP-003`: stable, never renumbered, never reused.
///
/// Built with [`rule_id!`](crate::rule_id), which checks the format at
/// compile time: two or more upper-case words and a three-digit number,
/// separated by `-`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(&'static str);

impl RuleId {
    /// Checks `s` and wraps it. In a `const` context a bad id stops the build.
    ///
    /// # Panics
    /// When `s` is not of the form `WORD-WORD-NNN` (upper-case words, three digits).
    pub const fn new(s: &'static str) -> Self {
        assert!(is_valid_id(s), "a rule id is WORD-WORD-NNN: upper-case words and a three-digit number");
        Self(s)
    }

    /// The id as written in the reference.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.0)
    }
}

impl fmt::Debug for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RuleId({})", self.0)
    }
}

/// Whether `s` has the shape of a rule id: `[A-Z]+(-[A-Z]+)+-[0-9]{3}`.
pub const fn is_valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    let n = b.len();
    if n < 9 || b[n - 4] != b'-' {
        return false;
    }
    let mut i = n - 3;
    while i < n {
        if !b[i].is_ascii_digit() {
            return false;
        }
        i += 1;
    }
    // The words before the number: at least two, each non-empty upper case.
    let mut words = 0;
    let mut len = 0;
    i = 0;
    while i < n - 4 {
        if b[i] == b'-' {
            if len == 0 {
                return false;
            }
            words += 1;
            len = 0;
        } else if b[i].is_ascii_uppercase() {
            len += 1;
        } else {
            return false;
        }
        i += 1;
    }
    len > 0 && words >= 1
}

/// A [`RuleId`] whose format is checked when the crate compiles.
///
/// ```
/// use vmmkit_conformance::rule_id;
/// assert_eq!(rule_id!("ACL-MAP-003").as_str(), "ACL-MAP-003");
/// ```
///
/// ```compile_fail
/// use vmmkit_conformance::rule_id;
/// let _ = rule_id!("acl-map-3");
/// ```
#[macro_export]
macro_rules! rule_id {
    ($id:literal) => {{
        const ID: $crate::rule::RuleId = $crate::rule::RuleId::new($id);
        ID
    }};
}

/// The vendor API family a rule belongs to. A backend runs the rules of the
/// dialects it speaks; the others are not-supported there, with that reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Ascend CANN `aclrt*` (reference acl.md).
    Acl,
    /// AMD HIP (reference hip.md).
    Hip,
    /// CUDA driver API (reference cuda.md).
    Cuda,
    /// The suite's own synthetic rules, used to test the runner and the
    /// reports without any backend.
    Selftest,
}

impl Dialect {
    /// Lower-case name, as in `--backend`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Acl => "acl",
            Self::Hip => "hip",
            Self::Cuda => "cuda",
            Self::Selftest => "selftest",
        }
    }

    /// Upper-case name, as in the rule ids.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Acl => "ACL",
            Self::Hip => "HIP",
            Self::Cuda => "CUDA",
            Self::Selftest => "SELF",
        }
    }
}

/// Where the reference found a rule (its "Source" column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The CANN documentation: an API page or a header comment.
    Doc(&'static str),
    /// A file of hicann/runtime.
    Runtime(&'static str),
    /// A file of hicann/driver.
    Driver(&'static str),
    /// The reference itself (a validation order of §5, a sample of §7).
    Reference(&'static str),
    /// The HIP API documentation (hip.md's tag `[hdr]`, "HIP docs").
    HipDoc(&'static str),
    /// A file of a ROCm repository, as hip.md tags it (`[clr-mem]`: ROCm/clr
    /// `hipamd/src/hip_memory.cpp`; `[t-ipc]`, `[t-vmm]`: ROCm/hip-tests).
    Rocm(&'static str),
    /// The CUDA driver API documentation (cuda.md's "CUDA docs (function)").
    CudaDoc(&'static str),
    /// A public project's code, sample, issue or pull request, as the reference names it.
    Project(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Doc(page) => write!(f, "CANN docs ({page})"),
            Self::Runtime(file) => write!(f, "runtime: {file}"),
            Self::Driver(file) => write!(f, "driver: {file}"),
            Self::Reference(section) => write!(f, "reference: {section}"),
            Self::HipDoc(page) => write!(f, "HIP docs ({page})"),
            Self::Rocm(file) => write!(f, "ROCm: {file}"),
            Self::CudaDoc(page) => write!(f, "CUDA docs ({page})"),
            Self::Project(what) => f.write_str(what),
        }
    }
}

/// How sure the reference is of a rule (acl.md §0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confidence {
    /// Stated in the vendor documentation or a driver header comment.
    Doc,
    /// Traced in public source through every layer.
    Source,
    /// Derived from source with a gap.
    Inferred,
    /// The real code could not be established; the expected value is the
    /// reference's recommended emulator behaviour.
    Undetermined,
}

impl Confidence {
    /// The reference's tag.
    pub const fn tag(self) -> &'static str {
        match self {
            Self::Doc => "doc",
            Self::Source => "source",
            Self::Inferred => "inferred",
            Self::Undetermined => "undetermined",
        }
    }
}

/// A vendor return code, named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// An `aclError`.
    Acl(AclError),
    /// A `hipError_t`.
    Hip(HipError),
    /// A `CUresult`.
    Cuda(CuResult),
}

impl Code {
    /// Whether this is the vendor's success value.
    pub fn is_success(self) -> bool {
        match self {
            Self::Acl(c) => c.is_success(),
            Self::Hip(c) => c.is_success(),
            Self::Cuda(c) => c.is_success(),
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Acl(c) => c.fmt(f),
            Self::Hip(c) => c.fmt(f),
            Self::Cuda(c) => c.fmt(f),
        }
    }
}

/// `acl!(RT_INVALID_HANDLE)`: the [`Code`] of an ACL constant, for catalog entries.
#[macro_export]
macro_rules! acl {
    ($name:ident) => {
        $crate::rule::Code::Acl(::vmmkit_sys::acl::AclError::$name)
    };
}

/// `hip!(INVALID_VALUE)`: the [`Code`] of a HIP constant, for catalog entries.
#[macro_export]
macro_rules! hip {
    ($name:ident) => {
        $crate::rule::Code::Hip(::vmmkit_sys::hip::HipError::$name)
    };
}

/// `cuda!(INVALID_VALUE)`: the [`Code`] of a CUDA constant, for catalog entries.
#[macro_export]
macro_rules! cuda {
    ($name:ident) => {
        $crate::rule::Code::Cuda(::vmmkit_sys::cuda::CuResult::$name)
    };
}

/// What the backend must answer when the check provokes the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The provoking calls return these codes, the first being the rule's
    /// main one (a rule such as "107002 / 207000" lists both). A check may
    /// only expect codes listed here (or success, for state it verifies).
    Codes(&'static [Code]),
    /// No code of its own (the reference's "–"): the calls succeed and the
    /// effect the rule states is verified.
    Behaviour,
    /// Recorded, not judged: a real-hardware quirk the reference says is no
    /// pass/fail criterion. The check still fails on a crash.
    Observed,
}

impl Expect {
    /// Whether a backend that stopped enforcing the rule would answer
    /// differently: some expected code is an error.
    pub fn has_error_code(self) -> bool {
        match self {
            Self::Codes(c) => c.iter().any(|c| !c.is_success()),
            Self::Behaviour | Self::Observed => false,
        }
    }
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Codes(codes) => {
                for (i, c) in codes.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" / ")?;
                    }
                    c.fmt(f)?;
                }
                Ok(())
            }
            Self::Behaviour => f.write_str("the behaviour the rule states"),
            Self::Observed => f.write_str("observed only"),
        }
    }
}

/// Something the machine must offer before a check is worth running
/// (Vulkan CTS's `checkSupport`): decided before the check, reported as
/// not-supported with the reason when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// At least this many devices.
    Devices(u32),
    /// An optional entry point of the vendor table (e.g. `aclrtMemExportToShareableHandleV2`).
    Symbol(&'static str),
    /// Emulated devices of this capacity, so that running out is cheap (the
    /// runner sets `VMMKIT_DEVICE_MEMORY`); a real device is used as it is.
    DeviceMemory(u64),
    /// Peer processes: the suite's binary run again (always available; listed
    /// so a reader sees which rules are multi-process).
    Peers,
    /// A chosen pid for the next process, through
    /// `/proc/sys/kernel/ns_last_pid` (root in the pid namespace).
    PidSteering,
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Devices(n) => write!(f, "{n} devices"),
            Self::Symbol(s) => write!(f, "symbol {s}"),
            Self::DeviceMemory(b) => write!(f, "emulated devices of {} MiB", b >> 20),
            Self::Peers => f.write_str("peer processes"),
            Self::PidSteering => f.write_str("pid steering (ns_last_pid)"),
        }
    }
}

/// A check, written once against one vendor's table.
#[derive(Clone, Copy)]
pub enum Check {
    /// Runs against an `AclApi` table.
    Acl(fn(&mut AclCtx) -> Result<(), Failure>),
    /// Runs against a `HipApi` table.
    Hip(fn(&mut HipCtx) -> Result<(), Failure>),
    /// Runs against a `CudaApi` table.
    Cuda(fn(&mut CudaCtx) -> Result<(), Failure>),
    /// Needs no table (the self-test catalog).
    Plain(fn() -> Result<(), Failure>),
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Acl(_) => f.write_str("Check::Acl(..)"),
            Self::Hip(_) => f.write_str("Check::Hip(..)"),
            Self::Cuda(_) => f.write_str("Check::Cuda(..)"),
            Self::Plain(_) => f.write_str("Check::Plain(..)"),
        }
    }
}

/// One rule of a catalog.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable id, as in the reference.
    pub id: RuleId,
    /// The vendor family; a backend runs the dialects it speaks.
    pub dialect: Dialect,
    /// Dotted group (`acl.vmm.map`): JUnit classname and report section.
    pub group: &'static str,
    /// The rule in one sentence.
    pub text: &'static str,
    /// The entry points the rule concerns.
    pub apis: &'static [&'static str],
    /// Where the reference found it.
    pub sources: &'static [Source],
    /// The reference's confidence tags.
    pub confidence: &'static [Confidence],
    /// A marking from the reference (doc-vs-source disagreement, undetermined point).
    pub note: Option<&'static str>,
    /// What the backend must answer.
    pub expect: Expect,
    /// Ids of the same rule in other vendors' catalogs.
    pub equivalents: &'static [&'static str],
    /// What must be there before the check runs.
    pub requires: &'static [Need],
    /// The check.
    pub check: Check,
}

impl Rule {
    /// The confidence tags joined as the reference writes them (`doc, source`).
    pub fn confidence_tags(&self) -> String {
        self.confidence.iter().map(|c| c.tag()).collect::<Vec<_>>().join(", ")
    }

    /// Whether the rule needs an optional symbol or peers (for readers and filters).
    pub fn needs(&self, need: Need) -> bool {
        self.requires.contains(&need)
    }
}

/// Whether two ids are equal, usable in `const` (catalog uniqueness checks).
pub const fn same_id(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether every id in `rules` is distinct, usable in `const`.
pub const fn ids_unique(rules: &[&Rule]) -> bool {
    let mut i = 0;
    while i < rules.len() {
        let mut j = i + 1;
        while j < rules.len() {
            if same_id(rules[i].id.as_str(), rules[j].id.as_str()) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_format() {
        for ok in ["ACL-MAP-003", "ACL-ORD-001", "SELF-PASS-001", "HIP-IPC-VMM-012"] {
            assert!(is_valid_id(ok), "{ok}");
        }
        for bad in
            ["", "ACL-003", "acl-MAP-003", "ACL-MAP-03", "ACL-MAP-0033", "ACL--MAP-003", "ACL-MAP003", "-MAP-003"]
        {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }

    #[test]
    fn expect_display_lists_codes_with_names() {
        let e = Expect::Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]);
        assert_eq!(e.to_string(), "107002 ACL_ERROR_RT_CONTEXT_NULL / 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT");
        assert!(e.has_error_code());
        assert!(!Expect::Codes(&[acl!(SUCCESS)]).has_error_code());
    }
}
