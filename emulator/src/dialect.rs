//! How every entry point of every dialect runs, written once: a body that
//! returns `Result<(), Fail<V>>`, panics caught at the edge, the thread's
//! message set on failure (naming the rule), and the code returned.
//!
//! A rule broken by the caller fails with the code its record in the
//! vendor's rule table lists ([`Fail::rule`]); a dialect never types a
//! rule's code or id, it names the rule (`rules::MAP_003`). A core error
//! becomes a code and a rule through the dialect's table by operation
//! ([`Dialect::code_for`]), the only place core errors get numbers.

use std::panic::{AssertUnwindSafe, catch_unwind};

use vmmkit_sys::rule::Rule;
use vmmkit_sys::{Vendor, VendorCode};

use crate::core::{CoreError, thread};

/// What the emulator adds to a vendor's description: its operations, the
/// mapping of core errors to codes, and what a panic returns.
pub trait Dialect: Vendor {
    /// The operations of this vendor that reach the core.
    type Op: Copy + std::fmt::Debug;

    /// The code an entry point returns when it panicked.
    const PANIC: Self::Code;

    /// The rule every call breaks in a process forked after the emulator
    /// started there ([`crate::fork`]).
    const FORK_RULE: &'static Rule;

    /// The entry points such a forked child may still call: they map a code
    /// to its name or give a version, and read no state of the parent's.
    const STATELESS: &'static [&'static str];

    /// The code of a read or write through a NULL pointer that the entry
    /// point's checks let through ([`crate::ffi::Null`]): the vendor's code
    /// for an invalid argument.
    const NULL: Self::Code;

    /// The code and rule of core error `err` in operation `op`. A rule's
    /// code is the one its record lists ([`by_rule`]).
    fn code_for(op: Self::Op, err: &CoreError) -> (Self::Code, Option<&'static Rule>);

    /// Sees every code an entry point returns (HIP keeps it as the
    /// thread's last error). Nothing by default.
    fn returned(_code: Self::Code) {}
}

/// The main code `rule` lists (of the vendor whose code type `C` is), with
/// the rule: an arm of a [`Dialect::code_for`] table.
///
/// # Panics
/// When the record lists no code of that vendor: a defect the code audit
/// finds (the emulator would then answer the vendor's panic code).
pub fn by_rule<C: VendorCode>(rule: &'static Rule) -> (C, Option<&'static Rule>) {
    (main_code(rule), Some(rule))
}

/// `code`, which `rule` lists, with the rule: an arm for a rule with
/// several codes.
pub fn by_rule_code<C: VendorCode>(rule: &'static Rule, code: C) -> (C, Option<&'static Rule>) {
    debug_assert!(listed(rule, code), "{}: {code} is not among its codes", rule.id);
    (code, Some(rule))
}

fn main_code<C: VendorCode>(rule: &'static Rule) -> C {
    match rule.code().map(C::try_from) {
        Some(Ok(c)) => c,
        _ => panic!("{}: its record lists no code of this vendor", rule.id),
    }
}

/// Whether `code` is one `rule` lists (a rule without codes of its own, an
/// observed or behaviour rule, takes whatever its dialect chose).
fn listed<C: VendorCode>(rule: &'static Rule, code: C) -> bool {
    rule.expect.codes().is_empty() || rule.lists(code.into())
}

/// A failed call: the code to return and why.
#[derive(Debug)]
pub struct Fail<V: Vendor> {
    /// The code returned.
    pub code: V::Code,
    /// The rule broken, if a rule of the table describes the failure.
    pub rule: Option<&'static Rule>,
    /// What was wrong, with the values involved.
    pub msg: String,
}

impl<V: Dialect> Fail<V> {
    /// `rule`, broken by the caller: the code is the record's main one.
    pub fn rule(rule: &'static Rule, msg: String) -> Self {
        Self { code: main_code(rule), rule: Some(rule), msg }
    }

    /// `rule`, broken by the caller, answered with `code` (one of the codes
    /// the record lists, where the rule has several).
    pub fn rule_code(rule: &'static Rule, code: V::Code, msg: String) -> Self {
        debug_assert!(listed(rule, code), "{}: {code} is not among its codes", rule.id);
        Self { code, rule: Some(rule), msg }
    }

    /// A failure no rule of the table describes.
    pub fn plain(code: V::Code, msg: String) -> Self {
        Self { code, rule: None, msg }
    }

    /// A core error the caller attributes to `rule` (for errors whose rule
    /// depends on the call, not on the error alone), with the rule's main
    /// code. When `VMMKIT_MUTATE` names the rule, the call reports success.
    pub fn core_under(rule: &'static Rule, e: CoreError) -> Self {
        Self::core_under_code(rule, main_code(rule), e)
    }

    /// As [`Fail::core_under`], answered with `code` (one `rule` lists).
    pub fn core_under_code(rule: &'static Rule, code: V::Code, e: CoreError) -> Self {
        if crate::mutation::enforced(rule) {
            Self::rule_code(rule, code, e.to_string())
        } else {
            Self::plain(V::Code::SUCCESS, String::new())
        }
    }

    /// A core error in operation `op`. When `VMMKIT_MUTATE` names the rule it
    /// maps to, the call reports success instead (see `crate::mutation`).
    pub fn core(op: V::Op, e: CoreError) -> Self {
        let (code, rule) = V::code_for(op, &e);
        match rule {
            Some(r) if !crate::mutation::enforced(r) => Self::plain(V::Code::SUCCESS, String::new()),
            _ => Self { code, rule, msg: e.to_string() },
        }
    }
}

/// A NULL pointer past the checks fails the call with the dialect's
/// [`Dialect::NULL`] code (`out.write(v)?` in a body).
impl<V: Dialect> From<crate::ffi::Null> for Fail<V> {
    fn from(_: crate::ffi::Null) -> Self {
        if crate::mutation::any_mutated() {
            // A rule's check is off (VMMKIT_MUTATE): the net must not answer
            // for it with the same code, or the suite could not tell.
            return Self::plain(V::PANIC, "a NULL pointer reached a read or a write past a mutated check".to_owned());
        }
        Self::plain(V::NULL, "a NULL pointer reached a read or a write".to_owned())
    }
}

/// Checks a caller-side rule: fails with the rule's code (or, after `=>`,
/// one of its other codes, a full path) unless `$cond` holds or the rule is mutated away.
/// The dialect's `Fail` alias is used where it is invoked.
///
/// ```ignore
/// ensure!(flags == 0, rules::MAP_003, "flags must be 0, got {flags}");
/// ensure!(id < n, rules::GEN_005 => RT_FEATURE_NOT_SUPPORT, "…");
/// ```
macro_rules! ensure {
    ($cond:expr, $rule:path => $code:expr, $($msg:tt)+) => {
        if !($cond) && $crate::mutation::enforced(&$rule) {
            return Err(Fail::rule_code(&$rule, $code, format!($($msg)+)));
        }
    };
    ($cond:expr, $rule:path, $($msg:tt)+) => {
        if !($cond) && $crate::mutation::enforced(&$rule) {
            return Err(Fail::rule(&$rule, format!($($msg)+)));
        }
    };
}
pub(crate) use ensure;

/// A dialect's `Fail` alias and its `run`, for `call.rs`:
/// `dialect::aliases!(Acl, aclError);`.
macro_rules! aliases {
    ($vendor:ty, $raw:ty) => {
        /// A failed call of this dialect.
        pub(super) type Fail = $crate::dialect::Fail<$vendor>;

        /// Runs the body of entry point `name` (see [`crate::dialect::run`]).
        pub(super) fn run(name: &'static str, body: impl FnOnce() -> Result<(), Fail>) -> $raw {
            $crate::dialect::run::<$vendor>(name, body)
        }
    };
}
pub(crate) use aliases;

/// Runs the body of entry point `name` of dialect `V` and returns its code.
///
/// In a process forked after the emulator started, the body does not run:
/// the call fails under the vendor's fork rule ([`crate::fork`]). A panic
/// in the body is caught: the hook of [`crate::panic`] prints one line, and
/// the call returns the vendor's panic code with that line as its message.
pub fn run<V: Dialect>(name: &'static str, body: impl FnOnce() -> Result<(), Fail<V>>) -> <V::Code as VendorCode>::Raw {
    let outcome = match crate::fork::refusal(V::FORK_RULE, V::STATELESS, name) {
        Some((rule, msg)) => Ok(Err(Fail::rule(rule, msg))),
        None => {
            let _inside = crate::panic::Inside::enter(name);
            catch_unwind(AssertUnwindSafe(body))
        }
    };
    let code = match outcome {
        Ok(Ok(())) => V::Code::SUCCESS,
        Ok(Err(f)) if f.code.is_ok() => V::Code::SUCCESS,
        Ok(Err(f)) => {
            let msg = match f.rule {
                Some(r) => format!("{}: {name}: {} ({})", r.id, f.msg, f.code),
                None => format!("{name}: {} ({})", f.msg, f.code),
            };
            tracing::debug!(target: "vmmkit::dialect", dialect = V::DIALECT.name(), "{msg}");
            thread::set_message(&msg);
            crate::violations::record(f.rule, f.code.into());
            crate::journal::note_rule(f.rule);
            f.code
        }
        Err(_) => {
            let line = crate::panic::take_last()
                .unwrap_or_else(|| format!("vmmkit: internal error in {name} (a panic); please report it"));
            thread::set_message(&line);
            V::PANIC
        }
    };
    V::returned(code);
    code.raw()
}

/// Answers a query for an entry point by name (`hipGetProcAddress`,
/// `cuGetProcAddress`), one sequence for every dialect: `symbol` or `pfn`
/// NULL, or `args_ok` false, fail with the dialect's invalid-argument code
/// and `why`; `name` maps the symbol asked for to the name looked up in
/// `table` (or refuses it); `*pfn` is the entry point found, or NULL, and
/// `*status`, when given, its query result, 0 found or 1 not found (the
/// same values in `hipDriverProcAddressQueryResult`, hip_runtime_api.h
/// 7.2.4:607-611, and `CUdriverProcAddressQueryResult`, cuda.md §1.2). A
/// name not found fails with `not_found`, the vendor's code for it.
///
/// # Errors
/// As above.
#[allow(clippy::too_many_arguments, reason = "the C call's arguments and the vendor's answers, each once")]
pub fn answer_proc_query<V: Dialect>(
    symbol: crate::ffi::CStrIn<'_>,
    pfn: crate::ffi::Out<'_, *mut std::ffi::c_void>,
    status: crate::ffi::Out<'_, i32>,
    args_ok: bool,
    why: &str,
    name: impl for<'a> FnOnce(&'a [u8]) -> Result<&'a [u8], Fail<V>>,
    table: fn(&[u8]) -> Option<*mut std::ffi::c_void>,
    not_found: V::Code,
) -> Result<(), Fail<V>> {
    if symbol.is_null() || pfn.is_null() || !args_ok {
        return Err(Fail::plain(V::NULL, why.to_owned()));
    }
    let name = name(symbol.get()?.to_bytes())?;
    let found = table(name);
    pfn.write(found.unwrap_or(std::ptr::null_mut()))?;
    status.write_if_given(if found.is_some() { 0 } else { 1 });
    if found.is_some() {
        return Ok(());
    }
    Err(Fail::plain(not_found, format!("{} is not an entry point of the emulator", String::from_utf8_lossy(name))))
}

/// What a case of [`assert_codes`] must give: its code, its rule, or both.
#[cfg(test)]
#[derive(Debug)]
pub(crate) enum Want<C> {
    /// The code (whatever the rule).
    Code(C),
    /// The rule (whatever the code).
    Rule(&'static Rule),
    /// The code and the rule.
    Both(C, &'static Rule),
}

/// An out-of-memory error, for the tables of [`assert_codes`].
#[cfg(test)]
pub(crate) fn out_of_memory() -> CoreError {
    CoreError::OutOfMemory { place: crate::registry::Place::Device(0), requested: 1, used: 0, capacity: 0 }
}

/// A case of [`assert_codes`]: an operation, a core error, and what it must give.
#[cfg(test)]
pub(crate) type Case<D> = (<D as Dialect>::Op, CoreError, Want<<D as Vendor>::Code>);

/// Checks a dialect's table of core errors ([`Dialect::code_for`]), case by
/// case. One body for every dialect's table test.
#[cfg(test)]
pub(crate) fn assert_codes<D: Dialect>(cases: &[Case<D>]) {
    for (op, err, want) in cases {
        let (code, rule) = D::code_for(*op, err);
        let ok = match want {
            Want::Code(c) => code == *c,
            Want::Rule(r) => rule.is_some_and(|x| std::ptr::eq(x, *r)),
            Want::Both(c, r) => code == *c && rule.is_some_and(|x| std::ptr::eq(x, *r)),
        };
        assert!(ok, "{:?} {op:?} {err:?}: got {code} under {:?}, want {want:?}", D::DIALECT, rule.map(|r| r.id));
    }
}

/// A dialect's test of its table of core errors, one `assert_codes` case
/// a row: `code_table_test!(Acl, (Op::Release, err, Code(code)), …)`.
macro_rules! code_table_test {
    ($dialect:ty, $($case:expr),* $(,)?) => {
        #[cfg(test)]
        mod tests {
            use super::*;
            use crate::dialect::Want::*;
            // Not every dialect's table names a place or runs out of memory.
            #[allow(unused_imports)]
            use crate::dialect::out_of_memory;
            #[allow(unused_imports)]
            use crate::registry::Place;

            #[test]
            fn one_meaning_different_codes() {
                crate::dialect::assert_codes::<$dialect>(&[$($case),*]);
            }
        }
    };
}
pub(crate) use code_table_test;

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use vmmkit_sys::acl::AclError;
    use vmmkit_sys::vendor::Acl;

    const ROLE_ENV: &str = "VMMKIT_PANIC_TEST_CHILD";

    /// In a child with `RUST_BACKTRACE=1` whose host program has a hook of
    /// its own: a panic inside an entry point prints exactly one line and no
    /// backtrace, the call returns ACL's panic code with that line as the
    /// thread's message; a panic outside any entry point still reaches the
    /// host's hook.
    #[test]
    fn a_panic_at_the_boundary_prints_one_line() {
        if std::env::var_os(ROLE_ENV).is_some() {
            std::panic::set_hook(Box::new(|info| {
                eprintln!("HOST HOOK: {}", crate::panic::message(info.payload()));
            }));
            crate::panic::install();
            let code = super::run::<Acl>("aclTestPanic", || panic!("forced for the test"));
            println!("code {code}");
            println!("message {}", crate::core::thread::message());
            let _ = std::panic::catch_unwind(|| panic!("outside any entry point"));
            return;
        }
        let mut cmd = vmmkit_testkit::libtest::rerun("dialect::tests::a_panic_at_the_boundary_prints_one_line")
            .expect("test exe");
        cmd.env(ROLE_ENV, "1").env("RUST_BACKTRACE", "1");
        let (exit, out) = vmmkit_testkit::process::run(&mut cmd, Duration::from_secs(60)).expect("child");
        assert!(exit.success(), "child {exit}:\n{out}");
        let lines: Vec<&str> = out.lines().filter(|l| l.contains("forced for the test")).collect();
        assert_eq!(lines.len(), 2, "the hook's line and the message, nothing else:\n{out}");
        // libtest's "test NAME ... " may precede the hook's line.
        let hook = lines[0].find("vmmkit: ").map_or(lines[0], |i| &lines[0][i..]);
        assert!(
            hook.starts_with("vmmkit: internal error in aclTestPanic: forced for the test at emulator/src/dialect.rs:")
                && hook.ends_with("; please report it"),
            "{out}"
        );
        assert_eq!(lines[1], format!("message {hook}"), "{out}");
        assert!(!out.contains("stack backtrace") && !out.contains("HOST HOOK: forced"), "{out}");
        assert!(out.contains("HOST HOOK: outside any entry point"), "{out}");
        assert!(out.contains(&format!("code {}", AclError::RT_DRV_INTERNAL_ERROR.0)), "{out}");
    }
}
