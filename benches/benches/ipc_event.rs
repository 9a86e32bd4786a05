//! Bench target `ipc_event`: see `vmmkit_benches::cases::ipc_event`.

mod common;

fn main() {
    common::main("ipc_event", vmmkit_benches::cases::ipc_event::entries);
}
