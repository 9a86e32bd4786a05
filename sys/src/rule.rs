//! What a rule is: the record every vendor's rule table fills.
//!
//! A rule is vendor fact, so it lives here beside the vendor's C table and
//! codes: the emulator enforces it (and takes the code it returns from the
//! record), the conformance suite checks it, the reports and docs show it.
//! Each rule is written once, in its vendor's `rules.rs`, with [`rules!`](crate::rules);
//! its id is derived from the name of its `static`, so the id string is
//! never typed anywhere (`MAP_003` in `acl::rules` is [`ACL-MAP-003`](crate::acl::rules::MAP_003)).
//!
//! ```
//! use vmmkit_sys::acl::rules;
//! use vmmkit_sys::acl::AclError;
//! use vmmkit_sys::rule::Code;
//!
//! assert_eq!(rules::MAP_003.id.as_str(), "ACL-MAP-003");
//! assert_eq!(rules::MAP_003.code(), Some(Code::Acl(AclError::INVALID_PARAM)));
//! ```
#![forbid(unsafe_code)]

use std::fmt;

pub use crate::code::{Code, CodeFamily, Dialect};

/// A rule id such as [`ACL-MAP-003`](crate::acl::rules::MAP_003): stable, never renumbered, never reused.
///
/// Made by [`rules!`](crate::rules) from the name of the rule's `static` (or, for a
/// catalog of the suite's own, by [`rule_id!`](crate::rule_id)); the format
/// is checked when the crate compiles: two or more upper-case words and a
/// three-digit number, separated by `-`.
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

    /// The id of `bytes` (ASCII), checked as [`RuleId::new`] does.
    ///
    /// # Panics
    /// When `bytes` is not UTF-8 or not an id.
    pub const fn from_bytes(bytes: &'static [u8]) -> Self {
        match core::str::from_utf8(bytes) {
            Ok(s) => Self::new(s),
            Err(_) => panic!("a rule id is ASCII"),
        }
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

/// `s` with every `_` made `-`, as an array of `N` (= `s.len()`) bytes: the
/// id of a rule from the name of its `static` (`ACL-MAP_003` → [`ACL-MAP-003`](crate::acl::rules::MAP_003)).
#[doc(hidden)]
pub const fn dashed<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    assert!(b.len() == N, "dashed: N is the length of the text");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = if b[i] == b'_' { b'-' } else { b[i] };
        i += 1;
    }
    out
}

/// The [`RuleId`] `PREFIX-NAME` of a rule named `NAME`, checked when the
/// crate compiles: `rule_id!("ACL", MAP_003)` is [`ACL-MAP-003`](crate::acl::rules::MAP_003).
///
/// ```
/// use vmmkit_sys::rule_id;
/// assert_eq!(rule_id!("SELF", PASS_001).as_str(), "SELF-PASS-001");
/// ```
///
/// ```compile_fail
/// use vmmkit_sys::rule_id;
/// let _ = rule_id!("acl", map_3);
/// ```
#[macro_export]
macro_rules! rule_id {
    ($prefix:literal, $name:ident) => {{
        const TEXT: &str = concat!($prefix, "-", stringify!($name));
        const BYTES: [u8; TEXT.len()] = $crate::rule::dashed(TEXT);
        const ID: $crate::rule::RuleId = $crate::rule::RuleId::from_bytes(&BYTES);
        ID
    }};
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

/// What the backend must answer when the rule is provoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// The provoking calls return these codes, the first being the rule's
    /// main one (a rule such as "107002 / 207000" lists both). The emulator
    /// returns one of them when it enforces the rule, and a check may only
    /// expect codes listed here (or success, for state it verifies).
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
        self.codes().iter().any(|c| !c.is_success())
    }

    /// The codes listed (none for behaviour and observed rules).
    pub fn codes(self) -> &'static [Code] {
        match self {
            Self::Codes(c) => c,
            Self::Behaviour | Self::Observed => &[],
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

/// A rule's expectation under one version profile of its vendor (HIP 6.x,
/// 7.x), where releases differ. A rule without any answers [`Rule::expect`]
/// under every profile; one with some answers the entry whose `profile`
/// names the backend's, and [`Rule::expect`] under the others.
///
/// ```
/// use vmmkit_sys::hip::rules;
/// use vmmkit_sys::hip::HipError;
/// use vmmkit_sys::rule::Code;
/// // HIP-VMM-011: a bad size or alignment is 2 in 6.x, 1 in 7.x.
/// assert_eq!(rules::VMM_011.code_in(Some("6")), Some(Code::Hip(HipError::OUT_OF_MEMORY)));
/// assert_eq!(rules::VMM_011.code_in(Some("7")), Some(Code::Hip(HipError::INVALID_VALUE)));
/// assert_eq!(rules::VMM_011.code_in(None), rules::VMM_011.code());
/// // HIP-VMM-003: 101 (a bad device id) is listed under 7.x only.
/// assert!(rules::VMM_003.lists_in(Some("7"), Code::Hip(HipError::INVALID_DEVICE)));
/// assert!(!rules::VMM_003.lists_in(Some("6"), Code::Hip(HipError::INVALID_DEVICE)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileExpect {
    /// The profile, as the vendor's major version: `"6"`, `"7"`.
    pub profile: &'static str,
    /// What the backend must answer under it.
    pub expect: Expect,
    /// Where the vendor crashes (or corrupts state) instead of answering,
    /// the releases and the place, e.g. `"6.2–6.4: NULL dereference in …"`;
    /// `expect` then holds the vendor's nearest error, which the emulator returns.
    pub crashes: Option<&'static str>,
    /// What the vendor does under this profile, in a line, where it is not
    /// all in the codes (e.g. "a partial unmap returns 0 and unmaps nothing").
    pub note: Option<&'static str>,
}

impl ProfileExpect {
    /// `expect` under `profile`, the vendor answering it.
    pub const fn new(profile: &'static str, expect: Expect) -> Self {
        Self { profile, expect, crashes: None, note: None }
    }

    /// `expect` under `profile`, where the vendor crashes as `crashes` says
    /// and `expect` is its nearest error.
    pub const fn crashes(profile: &'static str, expect: Expect, crashes: &'static str) -> Self {
        Self { profile, expect, crashes: Some(crashes), note: None }
    }

    /// With `note` saying what the vendor does under this profile.
    #[must_use]
    pub const fn note(self, note: &'static str) -> Self {
        Self { note: Some(note), ..self }
    }
}

/// Something the machine must offer before a rule is worth checking
/// (Vulkan CTS's `checkSupport`): decided before the check, reported as
/// not-supported with the reason when absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// At least this many devices.
    Devices(u32),
    /// An optional entry point of the vendor table (e.g. `aclrtMemExportToShareableHandleV2`).
    Symbol(&'static str),
    /// Emulated devices of this capacity, so that running out is cheap (the
    /// runner sets the emulator's device memory); a real device is used as it is.
    DeviceMemory(u64),
    /// Peer processes (always available; listed so a reader sees which
    /// rules are multi-process).
    Peers,
    /// A chosen pid for the next process, through
    /// `/proc/sys/kernel/ns_last_pid` (root in the pid namespace).
    PidSteering,
    /// A vendor profile the backend must play (an Ascend chip family such
    /// as `"A3"` for FABRIC handles): not-supported under the others.
    Profile(&'static str),
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Devices(n) => write!(f, "{n} devices"),
            Self::Symbol(s) => write!(f, "symbol {s}"),
            Self::DeviceMemory(b) => write!(f, "emulated devices of {} MiB", b >> 20),
            Self::Peers => f.write_str("peer processes"),
            Self::PidSteering => f.write_str("pid steering (ns_last_pid)"),
            Self::Profile(p) => write!(f, "the {p} profile"),
        }
    }
}

/// One rule: what the reference states, where, how sure, and what a
/// backend must answer. The check that provokes it lives in the
/// conformance suite; the condition that enforces it, in the emulator.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, as in the reference.
    pub id: RuleId,
    /// The vendor family; a backend runs the family it speaks.
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
    /// What the backend must answer (under the vendor's default profile, and
    /// any profile `profiles` does not name).
    pub expect: Expect,
    /// The expectations of version profiles where the vendor differs from
    /// `expect` or crashes (empty: one expectation for every release).
    pub profiles: &'static [ProfileExpect],
    /// The same rule in other vendors' tables.
    pub equivalents: &'static [&'static Rule],
    /// What must be there before the rule can be checked.
    pub requires: &'static [Need],
    /// For a general or combined rule that more specific rules state again
    /// (a device-id rule, an order case of acl.md §5): those rules, whose
    /// ids the emulator names when it enforces this one. Empty for a rule
    /// the emulator names itself.
    pub enforced_by: &'static [&'static Rule],
}

impl Rule {
    /// The defaults of a rule of `dialect`, for the struct-update syntax of
    /// [`rules!`](crate::rules): no text, no sources, behaviour, nothing required.
    pub const fn defaults(dialect: Dialect) -> Self {
        Self {
            id: RuleId("BASE-RULE-000"),
            dialect,
            group: dialect.name(),
            text: "",
            apis: &[],
            sources: &[],
            confidence: &[],
            note: None,
            expect: Expect::Behaviour,
            profiles: &[],
            equivalents: &[],
            requires: &[],
            enforced_by: &[],
        }
    }

    /// The main code the rule expects (its first), if it has codes.
    pub fn code(&self) -> Option<Code> {
        self.expect.codes().first().copied()
    }

    /// Whether `code` is one the rule lists, under any profile (the
    /// emulator answers one of them, whichever profile it plays).
    pub fn lists(&self, code: Code) -> bool {
        self.expect.codes().contains(&code) || self.profiles.iter().any(|p| p.expect.codes().contains(&code))
    }

    /// The entry of `profiles` for `profile`, if the rule has one.
    pub fn profile_entry(&self, profile: Option<&str>) -> Option<&'static ProfileExpect> {
        let profile = profile?;
        self.profiles.iter().find(|p| p.profile == profile)
    }

    /// What the backend must answer under `profile` (`None`: the default).
    pub fn expect_in(&self, profile: Option<&str>) -> Expect {
        self.profile_entry(profile).map_or(self.expect, |p| p.expect)
    }

    /// The main code under `profile`, if the rule has codes there.
    pub fn code_in(&self, profile: Option<&str>) -> Option<Code> {
        self.expect_in(profile).codes().first().copied()
    }

    /// Whether `code` is one the rule lists under `profile`.
    pub fn lists_in(&self, profile: Option<&str>, code: Code) -> bool {
        self.expect_in(profile).codes().contains(&code)
    }

    /// Where the vendor crashes under `profile`, if it does.
    pub fn crashes_in(&self, profile: Option<&str>) -> Option<&'static str> {
        self.profile_entry(profile).and_then(|p| p.crashes)
    }

    /// The confidence tags joined as the reference writes them (`doc, source`).
    pub fn confidence_tags(&self) -> String {
        self.confidence.iter().map(|c| c.tag()).collect::<Vec<_>>().join(", ")
    }

    /// Whether the rule needs `need` (for readers and filters).
    pub fn needs(&self, need: Need) -> bool {
        self.requires.contains(&need)
    }
}

impl PartialEq for Rule {
    /// Rules are equal when their ids are: an id names one rule.
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

/// Defines a vendor's rule table: one `pub static` per rule, named for its
/// id without the vendor prefix, and `ALL`, every rule in order.
///
/// ```ignore
/// rules! {
///     prefix: "ACL", dialect: Dialect::Acl;
///     /// ACL-MAP-003
///     MAP_003 {
///         group: MAP,
///         text: "`flags` must be 0.",
///         expect: Codes(&[acl!(INVALID_PARAM)]),
///     }
/// }
/// ```
#[macro_export]
macro_rules! rules {
    (
        prefix: $prefix:literal, dialect: $dialect:expr;
        $( $(#[$meta:meta])* $name:ident { $($field:ident : $value:expr),* $(,)? } )*
    ) => {
        $(
            $(#[$meta])*
            #[doc = concat!("Rule `", $prefix, "-", stringify!($name), "`.")]
            pub static $name: $crate::rule::Rule = $crate::rule::Rule {
                id: $crate::rule_id!($prefix, $name),
                $($field: $value,)*
                ..$crate::rule::Rule::defaults($dialect)
            };
        )*

        /// Every rule of the table, in the reference's order.
        pub static ALL: &[&$crate::rule::Rule] = &[$(&$name),*];

        // Ids are distinct: checked when the crate compiles.
        const _: () = assert!($crate::rule::ids_unique(&[$($crate::rule_id!($prefix, $name)),*]), "two rules share an id");
    };
}

/// Whether two ids are equal, usable in `const` (uniqueness checks).
pub const fn same_id(a: RuleId, b: RuleId) -> bool {
    let (a, b) = (a.0.as_bytes(), b.0.as_bytes());
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

/// Whether every id in `ids` is distinct, usable in `const`.
pub const fn ids_unique(ids: &[RuleId]) -> bool {
    let mut i = 0;
    while i < ids.len() {
        let mut j = i + 1;
        while j < ids.len() {
            if same_id(ids[i], ids[j]) {
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
        assert_eq!(rule_id!("HIP", IPC_VMM_012).as_str(), "HIP-IPC-VMM-012");
    }
}
