//! Where a core error becomes an example-vendor code and a rule (feature
//! `example-vendor`): the only place its core errors get numbers.

use vmmkit_sys::example::{ExResult, rules};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Example;

use crate::core::CoreError;
use crate::dialect::{Dialect, by_rule};

/// The example operations that reach the core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Alloc,
    Free,
}

impl Dialect for Example {
    type Op = Op;
    const PANIC: ExResult = ExResult::UNKNOWN;
    const NULL: ExResult = ExResult::NULL_POINTER;

    fn code_for(op: Op, err: &CoreError) -> (ExResult, Option<&'static Rule>) {
        use CoreError::*;
        match (op, err) {
            (_, Injected(c)) => (ExResult(*c as i32), None),
            (_, Unavailable(_)) => (ExResult::NOT_INITIALIZED, None),
            (Op::Alloc, SizeNotAligned { .. }) => by_rule(&rules::MEM_001),
            (Op::Alloc, OutOfMemory { .. } | HostExhausted(_)) => (ExResult::OUT_OF_MEMORY, None),
            (Op::Free, NotReservationStart(_) | NotMapped(_) | UnknownHandle(_)) => by_rule(&rules::MEM_003),
            _ => (ExResult::UNKNOWN, None),
        }
    }

    // A forked child ([`crate::fork`]).
    const FORK_RULE: &'static Rule = &rules::FORK_001;
    const STATELESS: &'static [&'static str] = &[];
}

crate::dialect::code_table_test!(
    Example,
    (Op::Alloc, CoreError::SizeNotAligned { size: 1, granule: 2 }, Both(ExResult::INVALID_VALUE, &rules::MEM_001)),
    (Op::Alloc, out_of_memory(), Code(ExResult::OUT_OF_MEMORY)),
    (Op::Free, CoreError::NotReservationStart(0x1000), Both(ExResult::INVALID_HANDLE, &rules::MEM_003)),
);
