//! How a process ended, in the words every report uses.

use std::fmt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

/// A child's exit status, shown as "exited with status 3" or "killed by signal 11".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(pub ExitStatus);

impl Exit {
    /// Whether it exited with status 0.
    pub fn success(self) -> bool {
        self.0.success()
    }

    /// The exit status, when it exited.
    pub fn code(self) -> Option<i32> {
        self.0.code()
    }

    /// The signal that killed it, when one did.
    pub fn signal(self) -> Option<i32> {
        self.0.signal()
    }
}

impl From<ExitStatus> for Exit {
    fn from(s: ExitStatus) -> Self {
        Self(s)
    }
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.code(), self.0.signal()) {
            (Some(c), _) => write!(f, "exited with status {c}"),
            (None, Some(sig)) => write!(f, "killed by signal {sig}"),
            (None, None) => write!(f, "ended ({})", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words() {
        assert_eq!(Exit(ExitStatus::from_raw(3 << 8)).to_string(), "exited with status 3");
        assert_eq!(Exit(ExitStatus::from_raw(9)).to_string(), "killed by signal 9");
    }
}
