//! The example vendor's rule table (feature `example-vendor`): the rules of
//! its spec, `docs/adding-a-vendor.md` ("The example vendor"), each written
//! once. Their ids are `EX-…`.
#![forbid(unsafe_code)]

use crate::rule::Confidence::Doc;
use crate::rule::Expect::Codes;
use crate::rule::{Dialect, Need, Source};
use crate::{example, rules};

/// The example's spec: the section of the walkthrough that defines it.
const SPEC: Source = Source::Reference("docs/adding-a-vendor.md, \"The example vendor\"");

rules! {
    prefix: "EX", dialect: Dialect::Example;

    MEM_001 {
        group: "example.mem",
        text: "exMemAlloc: `size` must be a non-zero multiple of 2 MiB (EX_MEM_GRANULE); otherwise 1 and nothing is \
               allocated.",
        apis: &["exMemAlloc"],
        sources: &[SPEC],
        confidence: &[Doc],
        expect: Codes(&[example!(INVALID_VALUE)]),
    }

    MEM_002 {
        group: "example.mem",
        text: "exMemAlloc: a NULL `ptr` is 2 (EX_ERROR_NULL_POINTER), before the size is looked at.",
        apis: &["exMemAlloc"],
        sources: &[SPEC],
        confidence: &[Doc],
        expect: Codes(&[example!(NULL_POINTER)]),
    }

    MEM_003 {
        group: "example.mem",
        text: "exMemFree: a pointer exMemAlloc did not return (or already freed) is 5 (EX_ERROR_INVALID_HANDLE).",
        apis: &["exMemFree"],
        sources: &[SPEC],
        confidence: &[Doc],
        expect: Codes(&[example!(INVALID_HANDLE)]),
    }

    FORK_001 {
        group: "example.fork",
        text: "A process forked after the parent called exInit cannot use the device: every call, exInit included, \
               is 3 (EX_ERROR_NOT_INITIALIZED).",
        apis: &["exInit", "exMemAlloc", "exMemFree"],
        sources: &[SPEC],
        confidence: &[Doc],
        expect: Codes(&[example!(NOT_INITIALIZED)]),
        requires: &[Need::Peers],
    }
}
