//! The core's checks by name, and the mutation switch that can turn one off.
//!
//! With the `mutation` feature, `VMMKIT_MUTATE=<RULE-ID>` names a rule whose
//! enforcement is switched off; each dialect says which core [`Check`] (or
//! which of its own argument checks) implements that rule. The conformance
//! suite uses this to prove that each of its checks notices a broken rule.
//! Without the feature, every check is always on and this costs nothing.

/// A check made by the core, on behalf of whichever rule a dialect maps to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Check {
    /// The handle is live in this process.
    HandleLive,
    /// A free must not take away mapping references.
    FreeBeyondMapRefs,
    /// Physical size is a multiple of the granularity.
    SizeGranular,
    /// Device capacity.
    Capacity,
    /// A map lies inside a reservation.
    MapInReservation,
    /// Map address and size are aligned to the handle's granularity.
    MapAligned,
    /// A map ends inside its reservation.
    MapWithinEnd,
    /// A map does not overlap another.
    MapNoOverlap,
    /// Map size equals the physical size (where the dialect asks for it).
    MapSizeExact,
    /// A reservation holds memory of one device only.
    MapDeviceBinding,
    /// Unmap at the start of a live mapping.
    UnmapStart,
    /// Release at the start of a reservation.
    ReleaseStart,
    /// Access is set on mapped ranges.
    AccessMapped,
    /// Access grants do not contradict each other.
    AccessConsistent,
    /// Only locally allocated memory is exported.
    ExportLocalOnly,
    /// An allocation is exported once.
    ExportOnce,
    /// Set-pid only by the exporter.
    TrustExporterOnly,
    /// No set-pid when the trustlist is off.
    TrustEnabled,
    /// Not every pid may be zero.
    TrustSomePid,
    /// The trustlist has room.
    TrustCapacity,
    /// The shareable handle exists.
    ShareableExists,
    /// The exporter does not import onto the memory's own device.
    NoSelfImport,
    /// The importer is on the trustlist, with an entry newer than itself.
    Trusted,
    /// The importer's trustlist entry was set after it started.
    TrustedAfterStart,
    /// Retain on a mapped address.
    RetainMapped,
}

#[cfg(feature = "mutation")]
mod imp {
    use super::Check;
    use std::sync::OnceLock;

    /// The mutated rule id and the core checks that implement it, set by the dialect.
    static MUTATED: OnceLock<(Option<String>, Vec<Check>)> = OnceLock::new();

    pub fn mutated_rule() -> Option<&'static str> {
        init().0.as_deref()
    }

    fn init() -> &'static (Option<String>, Vec<Check>) {
        MUTATED.get_or_init(|| (std::env::var("VMMKIT_MUTATE").ok().filter(|s| !s.is_empty()), Vec::new()))
    }

    pub fn register(map: impl Fn(&str) -> Vec<Check>) {
        let rule = std::env::var("VMMKIT_MUTATE").ok().filter(|s| !s.is_empty());
        let checks = rule.as_deref().map(&map).unwrap_or_default();
        let _ = MUTATED.set((rule, checks));
    }

    pub fn on(c: Check) -> bool {
        !init().1.contains(&c)
    }
}

#[cfg(not(feature = "mutation"))]
mod imp {
    use super::Check;
    pub fn mutated_rule() -> Option<&'static str> {
        None
    }
    pub fn register(_map: impl Fn(&str) -> Vec<Check>) {}
    #[inline(always)]
    pub fn on(_c: Check) -> bool {
        true
    }
}

/// Whether the core check `c` is enforced (always, unless mutated).
#[inline]
pub fn on(c: Check) -> bool {
    imp::on(c)
}

/// Whether the rule `id` is enforced: false only for the one rule named by
/// `VMMKIT_MUTATE` in a `mutation` build.
#[inline]
pub fn rule_on(id: &str) -> bool {
    imp::mutated_rule() != Some(id)
}

/// Lets a dialect say which core checks implement the mutated rule. Called
/// once, before the first check; later calls are ignored.
pub fn register_mutation(map: impl Fn(&str) -> Vec<Check>) {
    imp::register(map)
}
