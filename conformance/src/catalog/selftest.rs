//! The self-test catalog: rules whose outcome is known in advance, to test
//! the runner (child processes, crashes, timeouts, peers) and the reports
//! (table, JSON, JUnit, baseline) with no backend at all. Run with
//! `vmmkit conformance --catalog selftest`.
#![forbid(unsafe_code)]

use crate::outcome::Failure;
use crate::peer::{Launcher, Peer};
use crate::vendors::BackendKind;

/// The self-test records: the suite's own rule table.
pub mod records {
    use vmmkit_sys::rule::{Confidence, Dialect, Source};

    const BASIC: &str = "selftest.basic";
    const PROCESS: &str = "selftest.process";
    const SOURCES: &[Source] = &[Source::Reference("conformance/src/catalog/selftest.rs")];
    const CONFIDENCE: &[Confidence] = &[Confidence::Source];

    vmmkit_sys::rules! {
        prefix: "SELF", dialect: Dialect::Selftest;
        PASS_001 {
            group: BASIC,
            text: "A check that passes.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        PASS_002 {
            group: BASIC,
            text: "A check that passes, with <markup> & \"quotes\" in its text.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        FAIL_001 {
            group: BASIC,
            text: "A check whose call returns the wrong code.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        FAIL_002 {
            group: BASIC,
            text: "A check whose setup fails.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        XML_001 {
            group: BASIC,
            text: "A failure whose message needs escaping: <tag attr=\"x\"> & 'y'.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        NS_001 {
            group: BASIC,
            text: "A check that finds its feature absent.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        CRASH_001 {
            group: PROCESS,
            text: "A check whose process dies of SIGSEGV.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        EXIT_001 {
            group: PROCESS,
            text: "A check whose process exits without reporting.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        HANG_001 {
            group: PROCESS,
            text: "A check that never ends (run with a short --timeout).",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        PEER_001 {
            group: PROCESS,
            text: "A peer that exits with status 3 while handling a request.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
        PEER_002 {
            group: PROCESS,
            text: "A peer killed by SIGKILL before it answers.",
            sources: SOURCES,
            confidence: CONFIDENCE,
        }
    }
}

fn mismatch(got: &str) -> Failure {
    Failure::Mismatch { step: "selftest".into(), expected: "0 ACL_SUCCESS".into(), got: got.into() }
}

/// A peer whose backend has no ACL table: it exits with status 3 when asked
/// to start.
fn doomed_peer() -> Result<Peer, Failure> {
    let exe = std::env::current_exe().map_err(|e| Failure::Setup(format!("setup: current_exe: {e}")))?;
    Peer::spawn(&Launcher::new(exe, BackendKind::Hip, None), "doomed")
}

crate::bind! {
    SELFTEST_RULES: plain, records;
    PASS_001 => || Ok(()),
    PASS_002 => || Ok(()),
    FAIL_001 => || Err(mismatch("107000 ACL_ERROR_RT_PARAM_INVALID")),
    FAIL_002 => || {
            Err(Failure::Setup("setup: aclrtMallocPhysical returned 207001 ACL_ERROR_RT_MEMORY_ALLOCATION".into()))
        },
    XML_001 => || Err(mismatch("<b>&amp; \"q\" 'a' \u{1}\u{7f} ]]> end")),
    NS_001 => || Err(Failure::NotSupported("the feature is absent here".into())),
    CRASH_001 => || {
            // Rust's runtime handles the first SIGSEGV (its stack-overflow
            // handler), restores the default action and returns; the second kills.
            for _ in 0..2 {
                let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::SEGV);
            }
            Err(Failure::Setup("setup: SIGSEGV was not delivered".into()))
        },
    EXIT_001 => || std::process::exit(7),
    HANG_001 => || {
            std::thread::sleep(std::time::Duration::from_secs(3600));
            Ok(())
        },
    PEER_001 => || doomed_peer()?.start(Some(0)),
    PEER_002 => || {
            let mut p = doomed_peer()?;
            let pid =
                rustix::process::Pid::from_raw(p.pid() as i32).ok_or_else(|| Failure::Setup("setup: pid 0".into()))?;
            rustix::process::kill_process(pid, rustix::process::Signal::KILL)
                .map_err(|e| Failure::Setup(format!("setup: kill: {e}")))?;
            p.start(Some(0))
        },
}
