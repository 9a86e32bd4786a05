//! The self-test catalog: rules whose outcome is known in advance, to test
//! the runner (child processes, crashes, timeouts, peers) and the reports
//! (table, JSON, JUnit, baseline) with no backend at all. Run with
//! `vmmkit conformance --catalog selftest`.
#![forbid(unsafe_code)]

use crate::backend::BackendKind;
use crate::outcome::Failure;
use crate::peer::{Launcher, Peer};
use crate::rule::{Check, Confidence, Dialect, Expect, Rule, Source};
use crate::rule_id;

const BASIC: &str = "selftest.basic";
const PROCESS: &str = "selftest.process";

const SELF: Rule = Rule {
    id: rule_id!("SELF-BASE-000"),
    dialect: Dialect::Selftest,
    group: BASIC,
    text: "",
    apis: &[],
    sources: &[Source::Reference("conformance/src/catalog/selftest.rs")],
    confidence: &[Confidence::Source],
    note: None,
    expect: Expect::Behaviour,
    equivalents: &[],
    requires: &[],
    check: Check::Plain(|| Err(Failure::Setup("setup: no check".into()))),
};

fn mismatch(got: &str) -> Failure {
    Failure::Mismatch { step: "selftest".into(), expected: "0 ACL_SUCCESS".into(), got: got.into() }
}

/// A peer whose backend has no ACL table: it exits with status 3 when asked
/// to start.
fn doomed_peer() -> Result<Peer, Failure> {
    let exe = std::env::current_exe().map_err(|e| Failure::Setup(format!("setup: current_exe: {e}")))?;
    Peer::spawn(&Launcher::new(exe, BackendKind::Hip, None), "doomed")
}

pub const SELF_PASS_001: Rule =
    Rule { id: rule_id!("SELF-PASS-001"), text: "A check that passes.", check: Check::Plain(|| Ok(())), ..SELF };

pub const SELF_PASS_002: Rule = Rule {
    id: rule_id!("SELF-PASS-002"),
    text: "A check that passes, with <markup> & \"quotes\" in its text.",
    check: Check::Plain(|| Ok(())),
    ..SELF
};

pub const SELF_FAIL_001: Rule = Rule {
    id: rule_id!("SELF-FAIL-001"),
    text: "A check whose call returns the wrong code.",
    check: Check::Plain(|| Err(mismatch("107000 ACL_ERROR_RT_PARAM_INVALID"))),
    ..SELF
};

pub const SELF_FAIL_002: Rule = Rule {
    id: rule_id!("SELF-FAIL-002"),
    text: "A check whose setup fails.",
    check: Check::Plain(|| {
        Err(Failure::Setup("setup: aclrtMallocPhysical returned 207001 ACL_ERROR_RT_MEMORY_ALLOCATION".into()))
    }),
    ..SELF
};

pub const SELF_XML_001: Rule = Rule {
    id: rule_id!("SELF-XML-001"),
    text: "A failure whose message needs escaping: <tag attr=\"x\"> & 'y'.",
    check: Check::Plain(|| Err(mismatch("<b>&amp; \"q\" 'a' \u{1}\u{7f} ]]> end"))),
    ..SELF
};

pub const SELF_NS_001: Rule = Rule {
    id: rule_id!("SELF-NS-001"),
    text: "A check that finds its feature absent.",
    check: Check::Plain(|| Err(Failure::NotSupported("the feature is absent here".into()))),
    ..SELF
};

pub const SELF_CRASH_001: Rule = Rule {
    id: rule_id!("SELF-CRASH-001"),
    group: PROCESS,
    text: "A check whose process dies of SIGSEGV.",
    check: Check::Plain(|| {
        // Rust's runtime handles the first SIGSEGV (its stack-overflow
        // handler), restores the default action and returns; the second kills.
        for _ in 0..2 {
            let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::SEGV);
        }
        Err(Failure::Setup("setup: SIGSEGV was not delivered".into()))
    }),
    ..SELF
};

pub const SELF_EXIT_001: Rule = Rule {
    id: rule_id!("SELF-EXIT-001"),
    group: PROCESS,
    text: "A check whose process exits without reporting.",
    check: Check::Plain(|| std::process::exit(7)),
    ..SELF
};

pub const SELF_HANG_001: Rule = Rule {
    id: rule_id!("SELF-HANG-001"),
    group: PROCESS,
    text: "A check that never ends (run with a short --timeout).",
    check: Check::Plain(|| {
        std::thread::sleep(std::time::Duration::from_secs(3600));
        Ok(())
    }),
    ..SELF
};

pub const SELF_PEER_001: Rule = Rule {
    id: rule_id!("SELF-PEER-001"),
    group: PROCESS,
    text: "A peer that exits with status 3 while handling a request.",
    check: Check::Plain(|| doomed_peer()?.start(Some(0))),
    ..SELF
};

pub const SELF_PEER_002: Rule = Rule {
    id: rule_id!("SELF-PEER-002"),
    group: PROCESS,
    text: "A peer killed by SIGKILL before it answers.",
    check: Check::Plain(|| {
        let mut p = doomed_peer()?;
        let pid =
            rustix::process::Pid::from_raw(p.pid() as i32).ok_or_else(|| Failure::Setup("setup: pid 0".into()))?;
        rustix::process::kill_process(pid, rustix::process::Signal::KILL)
            .map_err(|e| Failure::Setup(format!("setup: kill: {e}")))?;
        p.start(Some(0))
    }),
    ..SELF
};

/// Every self-test rule.
pub const SELFTEST_RULES: &[&Rule] = &[
    &SELF_PASS_001,
    &SELF_PASS_002,
    &SELF_FAIL_001,
    &SELF_FAIL_002,
    &SELF_XML_001,
    &SELF_NS_001,
    &SELF_CRASH_001,
    &SELF_EXIT_001,
    &SELF_HANG_001,
    &SELF_PEER_001,
    &SELF_PEER_002,
];

const _: () = assert!(crate::rule::ids_unique(SELFTEST_RULES), "two self-test rules share an id");
