//! `Ctx<V>`: what a check of vendor `V` gets, written once for every
//! vendor. The table, the rule being checked, where peers come from, the
//! observations made, the rule's needs, and the judging helpers that
//! compare a code with the rule's record. Each vendor adds its own setup
//! helpers (`impl Ctx<vendor::Acl>` in `acl/ctx.rs`, …), whose failures
//! read "setup: `<call>` returned `<code>`".
#![forbid(unsafe_code)]

use std::fmt;
use std::path::{Path, PathBuf};

use vmmkit_sys::VendorCode;

use crate::calls::Table;
use crate::outcome::Failure;
use crate::peer::Launcher;
use crate::rule::{Need, Record};
use crate::vendors::{Backed, BackendKind, Env};

/// What the suite needs of a vendor beyond its description: the table the
/// checks call through, and how to ask a real backend about its devices.
/// Written once here; each vendor states only its facts (`impl Suite for
/// vendor::Acl` in `acl/ctx.rs`, ...).
pub trait Suite: Backed + Sized {
    /// The calls of the vendor's table, one method per C function ([`crate::calls`]).
    type Table: Table<Api = Self::Api>;

    /// The table of `backend` (the emulator's, or the real library's).
    ///
    /// # Errors
    /// Why the backend cannot run this vendor's rules.
    fn table(backend: BackendKind, library: Option<&Path>) -> Result<Self::Table, String> {
        Self::api(backend, library).map(Self::Table::new)
    }

    /// Whether a real library can run anything here (a device, not a stub).
    ///
    /// # Errors
    /// Why not: the check is not-supported with this.
    fn probe(table: &Self::Table) -> Result<(), String>;

    /// The number of devices, for [`Need::Devices`].
    ///
    /// # Errors
    /// A setup failure of the counting call.
    fn devices(cx: &Ctx<Self>) -> Result<u32, Failure>;

    /// The vendor version profile the backend reports (HIP: `"6"`, `"7"`),
    /// whose expectations the checks judge by (`Rule::expect_in`); `None`:
    /// the default expectations.
    fn profile(_table: &Self::Table) -> Option<&'static str> {
        None
    }
}

/// The context of one check of vendor `V`.
#[derive(Debug)]
pub struct Ctx<V: Suite> {
    table: V::Table,
    rule: &'static Record,
    env: Env,
    exe: PathBuf,
    launcher: Launcher,
    notes: Vec<String>,
    profile: Option<&'static str>,
}

impl<V: Suite> Ctx<V> {
    /// A context for `rule` over `table`; peers run this executable on `env`.
    pub fn new(table: V::Table, rule: &'static Record, env: Env) -> Self {
        // A peer is this executable run again; should it be unknowable (it
        // never is on Linux), the peer's spawn fails with the empty path.
        let exe = std::env::current_exe().unwrap_or_default();
        let launcher = Launcher::new(exe.clone(), env.backend, env.library.clone());
        let profile = V::profile(&table);
        Self { table, rule, env, exe, launcher, notes: Vec::new(), profile }
    }

    /// The table.
    pub fn table(&self) -> V::Table {
        self.table
    }

    /// The version profile the backend reports, whose expectations judge.
    pub fn profile(&self) -> Option<&'static str> {
        self.profile
    }

    /// Whether the backend reports the version profile `profile`.
    pub fn is_profile(&self, profile: &str) -> bool {
        self.profile == Some(profile)
    }

    /// The rule being checked.
    pub fn rule(&self) -> &'static Record {
        self.rule
    }

    /// Where the check runs.
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// How peers are started.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// The executable peers run.
    pub fn exe(&self) -> &Path {
        &self.exe
    }

    /// Records an observation for the report (observed rules, partial checks).
    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// The observations recorded so far, joined.
    pub fn notes(&self) -> Option<String> {
        (!self.notes.is_empty()).then(|| self.notes.join("; "))
    }

    /// Decides the rule's `requires` against this backend.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] naming what is missing.
    pub fn check_needs(&self) -> Result<(), Failure> {
        for need in self.rule.requires {
            match *need {
                Need::Symbol(sym) => {
                    if self.table.missing_optional().contains(&sym) {
                        return Err(Failure::NotSupported(format!("the backend lacks the optional symbol {sym}")));
                    }
                }
                Need::Devices(n) => {
                    let count = V::devices(self)?;
                    if count < n {
                        return Err(Failure::NotSupported(format!("needs {n} devices, the backend has {count}")));
                    }
                }
                Need::PidSteering => crate::peer::steer::available().map_err(Failure::NotSupported)?,
                Need::Profile(p) => {
                    if self.profile != Some(p) {
                        let has = self.profile.unwrap_or("no known profile");
                        return Err(Failure::NotSupported(format!("needs the {p} profile, the backend plays {has}")));
                    }
                }
                Need::Peers | Need::DeviceMemory(_) => {}
            }
        }
        Ok(())
    }

    // ---- judging --------------------------------------------------------

    /// `got` must be the rule's main code.
    pub fn expect_code(&self, step: &str, got: impl Into<V::Code>) -> Result<(), Failure> {
        match self.rule.code_in(self.profile).map(V::Code::try_from) {
            Some(Ok(want)) => self.expect(step, want, got),
            _ => Err(self.defect(&format!("expect_code on a rule without a {} code", V::DIALECT.label()))),
        }
    }

    /// `got` must be `want`, which must be one of the rule's codes (or
    /// success). A check that expects a code its record does not list is a
    /// defect of the suite, reported as such.
    pub fn expect(&self, step: &str, want: impl Into<V::Code>, got: impl Into<V::Code>) -> Result<(), Failure> {
        let (want, got) = (want.into(), got.into());
        if !want.is_ok() && !self.rule.lists_in(self.profile, want.into()) {
            let profile = self.profile.map(|p| format!(" under profile {p}")).unwrap_or_default();
            return Err(self.defect(&format!("{step} expects {want}, which the catalog does not list{profile}")));
        }
        self.ensure(step, got == want, want, got)
    }

    /// `got` must be success: the state after a rejected call is unchanged,
    /// or the behaviour the rule states works.
    pub fn expect_ok(&self, step: &str, got: impl Into<V::Code>) -> Result<(), Failure> {
        self.expect(step, V::Code::SUCCESS, got)
    }

    /// `got` must be `want`, for a rule without codes of its own (the
    /// reference's "–"), where a code is evidence of the behaviour.
    pub fn ensure_code(&self, step: &str, want: impl Into<V::Code>, got: impl Into<V::Code>) -> Result<(), Failure> {
        let (want, got) = (want.into(), got.into());
        self.ensure(step, got == want, want, got)
    }

    /// `cond` must hold; otherwise a mismatch with `expected` and `got`.
    pub fn ensure(
        &self,
        step: &str,
        cond: bool,
        expected: impl fmt::Display,
        got: impl fmt::Display,
    ) -> Result<(), Failure> {
        if cond {
            Ok(())
        } else {
            Err(Failure::Mismatch { step: step.into(), expected: expected.to_string(), got: got.to_string() })
        }
    }

    /// `data` must be the pattern `seed` (`crate::pattern`); a mismatch
    /// names the first differing byte.
    pub fn expect_pattern(&self, step: &str, seed: u8, data: &[u8]) -> Result<(), Failure> {
        match crate::pattern::first_mismatch(seed, data) {
            None => Ok(()),
            Some((at, want, got)) => Err(Failure::Mismatch {
                step: step.into(),
                expected: format!("pattern {seed} ({} bytes)", data.len()),
                got: format!("byte {at} is {got:#04x}, not {want:#04x}"),
            }),
        }
    }

    /// A failure that says the check itself is wrong.
    pub fn defect(&self, what: &str) -> Failure {
        Failure::Mismatch {
            step: format!("check of {}", self.rule.id),
            expected: "a check consistent with its catalog entry".into(),
            got: format!("suite defect: {what}"),
        }
    }
}

/// `Ok` for success, else a setup failure for `call`: the one form of every
/// vendor's setup step.
pub fn setup<C: VendorCode>(call: &str, r: impl Into<C>) -> Result<(), Failure> {
    let r = r.into();
    if r.is_ok() { Ok(()) } else { Err(Failure::setup(call, r)) }
}

/// `value` as `call` gave it, after [`setup`]; a setup failure when it is 0
/// (a granularity or size the call must make positive).
pub fn nonzero<C: VendorCode>(call: &str, r: impl Into<C>, value: usize) -> Result<usize, Failure> {
    setup::<C>(call, r)?;
    if value == 0 { Err(Failure::Setup(format!("setup: {call} gave 0"))) } else { Ok(value) }
}
