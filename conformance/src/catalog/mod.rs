//! The catalogs: the suite (every vendor's rules) and the self-test set.
#![forbid(unsafe_code)]

pub mod acl;
pub mod cuda;
pub mod hip;
pub mod selftest;

use globset::{Glob, GlobMatcher};

use crate::rule::Rule;

/// Which catalog a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Catalog {
    /// Every vendor's rules (ACL and HIP now; CUDA joins with its issue).
    Suite,
    /// Synthetic rules that pass, fail, crash, hang or are not-supported on
    /// purpose, to test the runner and the reports without a backend.
    Selftest,
}

impl Catalog {
    /// The name as on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Suite => "suite",
            Self::Selftest => "selftest",
        }
    }

    /// The rules, in catalog order.
    pub fn rules(self) -> Vec<&'static Rule> {
        match self {
            Self::Suite => acl::ACL_RULES.iter().chain(hip::HIP_RULES).chain(cuda::CUDA_RULES).copied().collect(),
            Self::Selftest => selftest::SELFTEST_RULES.to_vec(),
        }
    }

    /// The rule with id `id`.
    pub fn find(self, id: &str) -> Option<&'static Rule> {
        self.rules().into_iter().find(|r| r.id.as_str() == id)
    }
}

/// The rules whose id matches `glob` (`ACL-MAP-*`, `*-IMP-01?`), or all.
///
/// # Errors
/// A glob that does not parse.
pub fn filter(rules: Vec<&'static Rule>, glob: Option<&str>) -> Result<Vec<&'static Rule>, globset::Error> {
    let Some(glob) = glob else { return Ok(rules) };
    let m: GlobMatcher = Glob::new(glob)?.compile_matcher();
    Ok(rules.into_iter().filter(|r| m.is_match(r.id.as_str())).collect())
}
