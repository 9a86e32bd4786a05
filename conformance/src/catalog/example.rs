//! The example vendor's catalog (feature `example-vendor`): each rule of
//! [`vmmkit_sys::example::rules`] bound to the check that provokes it, in
//! the table's order.
#![forbid(unsafe_code)]

use vmmkit_sys::example::rules;

use crate::checks::example::*;

crate::bind! {
    EXAMPLE_RULES: Example, rules;
    MEM_001 => mem::alloc_size,
    MEM_002 => mem::alloc_null,
    MEM_003 => mem::free_unknown,
    FORK_001 => fork::forked_child,
}
