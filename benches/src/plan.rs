//! What to measure and for how long: the full run, or the quick one for CI.
//!
//! `VMMKIT_BENCH_QUICK=1` selects the quick plan: fewer sizes, the largest
//! lookup at 10,000 handles instead of 100,000, and short criterion warm-up
//! and measurement times, so that every bench finishes in under two minutes
//! in all. Its figures are a smoke test, not measurements to publish. The
//! smoke plan is the test's: every bench body set up and run once.

use std::time::Duration;

/// The variable that selects the quick plan.
pub const QUICK_ENV: &str = "VMMKIT_BENCH_QUICK";

/// 1 MiB.
pub const MIB: usize = 1 << 20;
/// 1 GiB.
pub const GIB: usize = 1 << 30;

/// Sizes, counts and times of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// Every size, criterion's times: the figures of BENCHMARKS.md.
    Full,
    /// Fewer sizes, short times: a CI smoke run in under two minutes.
    Quick,
    /// The smallest of each, for the test that runs every bench body once.
    Smoke,
}

impl Plan {
    /// [`Plan::Quick`] when `VMMKIT_BENCH_QUICK` is `1` (or `true`), else [`Plan::Full`].
    pub fn from_env() -> Self {
        let quick = std::env::var(QUICK_ENV).is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        if quick { Self::Quick } else { Self::Full }
    }

    fn pick(&self, full: &'static [usize], quick: &'static [usize], smoke: &'static [usize]) -> &'static [usize] {
        match self {
            Self::Full => full,
            Self::Quick => quick,
            Self::Smoke => smoke,
        }
    }

    /// Physical allocation sizes.
    pub fn alloc_sizes(&self) -> &'static [usize] {
        self.pick(&[2 * MIB, 64 * MIB, GIB], &[2 * MIB, 64 * MIB], &[2 * MIB])
    }

    /// Reservation sizes.
    pub fn reserve_sizes(&self) -> &'static [usize] {
        self.pick(&[2 * MIB, GIB], &[2 * MIB], &[2 * MIB])
    }

    /// Map sizes.
    pub fn map_sizes(&self) -> &'static [usize] {
        self.pick(&[2 * MIB, 64 * MIB, GIB], &[2 * MIB, 64 * MIB], &[2 * MIB])
    }

    /// Copy sizes.
    pub fn copy_sizes(&self) -> &'static [usize] {
        self.pick(&[MIB, 16 * MIB, 64 * MIB, 256 * MIB, GIB], &[MIB, 64 * MIB], &[MIB])
    }

    /// Live exported handles for the lookup bench, smallest first.
    pub fn lookup_counts(&self) -> &'static [usize] {
        self.pick(&[10, 1_000, 100_000], &[10, 1_000, 10_000], &[10, 100])
    }

    /// Processes of the all-to-all start-up.
    pub fn all_to_all_counts(&self) -> &'static [usize] {
        self.pick(&[2, 8, 32, 64], &[2, 8, 32, 64], &[2, 3])
    }

    /// Control calls of the program that `vmmkit run`'s overhead is measured on.
    pub fn run_overhead_calls(&self) -> usize {
        match self {
            Self::Full | Self::Quick => 1_000_000,
            Self::Smoke => 1_000,
        }
    }

    /// Criterion's warm-up time.
    pub fn warm_up(&self) -> Duration {
        if *self == Self::Full { Duration::from_secs(2) } else { Duration::from_millis(200) }
    }

    /// Criterion's measurement time.
    pub fn measurement(&self) -> Duration {
        if *self == Self::Full { Duration::from_secs(5) } else { Duration::from_millis(600) }
    }

    /// Criterion's sample count for cheap operations.
    pub fn samples(&self) -> usize {
        if *self == Self::Full { 100 } else { 10 }
    }

    /// Criterion's sample count for operations of 10 ms or more (large copies).
    pub fn samples_slow(&self) -> usize {
        if *self == Self::Full { 20 } else { 10 }
    }

    /// Criterion's measurement time for operations of 10 ms or more: longer,
    /// so that a sample holds several iterations and a passing disturbance
    /// of the machine's memory bandwidth moves the median less.
    pub fn measurement_slow(&self) -> Duration {
        if *self == Self::Full { Duration::from_secs(10) } else { self.measurement() }
    }

    /// The plan's name, as run records show it.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Full => "full",
            Self::Quick => "quick",
            Self::Smoke => "smoke",
        }
    }
}

/// `2MiB`, `1GiB`, `512KiB`, `100B`: how sizes appear in bench ids.
pub fn size_label(bytes: usize) -> String {
    if bytes >= GIB && bytes % GIB == 0 {
        format!("{}GiB", bytes / GIB)
    } else if bytes >= MIB && bytes % MIB == 0 {
        format!("{}MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes % 1024 == 0 {
        format!("{}KiB", bytes / 1024)
    } else {
        format!("{bytes}B")
    }
}

/// The bytes of a label made by [`size_label`].
pub fn parse_size_label(s: &str) -> Option<usize> {
    let (n, unit) = s.find(|c: char| !c.is_ascii_digit()).map(|i| s.split_at(i))?;
    let n: usize = n.parse().ok()?;
    let mul = match unit {
        "B" => 1,
        "KiB" => 1024,
        "MiB" => MIB,
        "GiB" => GIB,
        _ => return None,
    };
    n.checked_mul(mul)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_round_trip() {
        for b in [100, 4096, MIB, 64 * MIB, GIB, 3 * GIB] {
            assert_eq!(parse_size_label(&size_label(b)), Some(b), "{b}");
        }
        assert_eq!(size_label(2 * MIB), "2MiB");
        assert_eq!(parse_size_label("10"), None);
        assert_eq!(parse_size_label("2TiB"), None);
    }
}
