//! Bench target `handoff`: see `vmmkit_benches::cases::handoff`.

mod common;

fn main() {
    common::main("handoff", vmmkit_benches::cases::handoff::entries);
}
