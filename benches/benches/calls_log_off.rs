//! Bench target `calls_log_off`: the `calls` bench with `VMMKIT_LOG=off`
//! (see `vmmkit_benches::cases::calls`).

mod common;

fn main() {
    // SAFETY: the first thing this process does; no other thread exists.
    unsafe { std::env::set_var(vmmkit_benches::cases::calls::LOG_ENV, "off") };
    common::main("calls_log_off", vmmkit_benches::cases::calls::entries);
}
