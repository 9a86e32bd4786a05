//! How a rule's check runs, written once for every vendor: the backend's
//! table, the context, the rule's needs decided first (Vulkan CTS's
//! `checkSupport`), then the check, and what happened as an [`Outcome`].
#![forbid(unsafe_code)]

use crate::ctx::{Ctx, Suite};
use crate::outcome::{Failure, Outcome};
use crate::rule::{Check, Record};
use crate::vendors::{BackendKind, Env};

/// A check written against vendor `V`'s table.
#[derive(Debug)]
pub struct Checked<V: Suite>(pub fn(&mut Ctx<V>) -> Result<(), Failure>);

impl<V: Suite> Check for Checked<V> {
    fn run(&self, rule: &'static Record, env: &Env) -> (Outcome, Option<String>) {
        let table = match V::table(env.backend, env.library.as_deref()) {
            Ok(t) => t,
            Err(reason) => return (Outcome::NotSupported(reason), None),
        };
        let mut cx = Ctx::<V>::new(table, rule, env.clone());
        let ready = if env.backend == BackendKind::Emulator {
            Ok(())
        } else {
            V::probe(&cx.table()).map_err(Failure::NotSupported)
        };
        if let Err(f) = ready.and_then(|()| cx.check_needs()) {
            return f.into_outcome(rule);
        }
        match (self.0)(&mut cx) {
            Ok(()) => (Outcome::Pass, cx.notes()),
            Err(f) => {
                let (outcome, step) = f.into_outcome(rule);
                let detail = match (step, cx.notes()) {
                    (Some(s), Some(n)) => Some(format!("{s}; {n}")),
                    (s, n) => s.or(n),
                };
                (outcome, detail)
            }
        }
    }
}

/// A check that needs no table (the self-test catalog).
#[derive(Debug)]
pub struct Plain(pub fn() -> Result<(), Failure>);

impl Check for Plain {
    fn run(&self, rule: &'static Record, _: &Env) -> (Outcome, Option<String>) {
        match (self.0)() {
            Ok(()) => (Outcome::Pass, None),
            Err(f) => f.into_outcome(rule),
        }
    }
}
