//! The catalogs: the suite (every vendor's rules) and the self-test set.
#![forbid(unsafe_code)]

/// Binds each rule of a vendor's table to its check, in the table's order:
/// `bind! { ACL_RULES: Acl, vmmkit_sys::acl::rules; MAP_003 => mapping::nonzero_flags, }`
/// defines `ACL_RULES`, whose checks run against `Ctx<vendor::Acl>`. With
/// `plain` for the vendor, checks take no table (the self-test catalog).
#[macro_export]
macro_rules! bind {
    ($list:ident : plain, $rules:path; $($name:ident => $check:expr,)*) => {
        /// Every rule of the table, bound to its check.
        pub static $list: &[$crate::rule::Rule] = {
            use $rules as rules;
            &[$($crate::rule::Rule { record: &rules::$name, check: &$crate::checked::Plain($check) },)*]
        };
    };
    ($list:ident : $vendor:ident, $rules:path; $($name:ident => $check:expr,)*) => {
        /// Every rule of the table, bound to its check.
        pub static $list: &[$crate::rule::Rule] = {
            use $rules as rules;
            &[$(
                $crate::rule::Rule {
                    record: &rules::$name,
                    check: &$crate::checked::Checked::<::vmmkit_sys::vendor::$vendor>($check),
                },
            )*]
        };
    };
}

pub mod acl;
pub mod cuda;
#[cfg(feature = "example-vendor")]
pub mod example;
pub mod hip;
pub mod selftest;

use globset::{Glob, GlobMatcher};

use crate::rule::Rule;

/// Which catalog a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Catalog {
    /// Every vendor's rules.
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
            Self::Suite => {
                let rules = acl::ACL_RULES.iter().chain(hip::HIP_RULES).chain(cuda::CUDA_RULES);
                #[cfg(feature = "example-vendor")]
                let rules = rules.chain(example::EXAMPLE_RULES);
                rules.collect()
            }
            Self::Selftest => selftest::SELFTEST_RULES.iter().collect(),
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

/// The `VENDOR-GROUP-` prefixes of `rules` (`ACL-MAP-*`), each once, in
/// catalog order: what a `--filter` can start with.
pub fn prefixes(rules: &[&'static Rule]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rules {
        let id = r.id.as_str();
        let prefix = match id.rfind('-') {
            Some(i) => format!("{}*", &id[..=i]),
            None => id.to_string(),
        };
        if !out.contains(&prefix) {
            out.push(prefix);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use vmmkit_sys::Vendor;
    use vmmkit_sys::vendor::{Acl, Cuda, Hip};

    use super::*;

    /// Each vendor's binding list holds every rule of its table once, in the
    /// table's order: a record without a check, or a check bound twice, is
    /// a defect of the suite.
    #[test]
    fn every_record_is_bound_once_in_order() {
        fn ids(rules: impl Iterator<Item = &'static vmmkit_sys::rule::Rule>) -> Vec<&'static str> {
            rules.map(|r| r.id.as_str()).collect()
        }
        assert_eq!(ids(acl::ACL_RULES.iter().map(|r| r.record)), ids(Acl::rules().iter().copied()));
        assert_eq!(ids(hip::HIP_RULES.iter().map(|r| r.record)), ids(Hip::rules().iter().copied()));
        assert_eq!(ids(cuda::CUDA_RULES.iter().map(|r| r.record)), ids(Cuda::rules().iter().copied()));
        #[cfg(feature = "example-vendor")]
        assert_eq!(
            ids(example::EXAMPLE_RULES.iter().map(|r| r.record)),
            ids(<vmmkit_sys::vendor::Example as Vendor>::rules().iter().copied())
        );
        let own = selftest::records::ALL.iter().copied();
        assert_eq!(ids(selftest::SELFTEST_RULES.iter().map(|r| r.record)), ids(own));
    }
}
