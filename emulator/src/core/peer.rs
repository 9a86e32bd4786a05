//! Peer access that this process enabled between devices.

use super::Emulator;

impl Emulator {
    /// Enables access from `device` to `peer`; false if it was enabled already.
    pub fn enable_peer(&self, device: u32, peer: u32) -> bool {
        self.lock().peers.insert((device, peer))
    }

    /// Disables access from `device` to `peer`; false if it was not enabled.
    pub fn disable_peer(&self, device: u32, peer: u32) -> bool {
        let mut t = self.lock();
        let removed = t.peers.remove(&(device, peer));
        if removed {
            // Cached repeated imports enable theirs again (ACL-IMP-016).
            self.import_cache.peers_changed();
        }
        removed
    }

    /// Whether access from `device` to `peer` is enabled.
    pub fn peer_enabled(&self, device: u32, peer: u32) -> bool {
        self.lock().peers.contains(&(device, peer))
    }
}
