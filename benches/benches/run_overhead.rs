//! Bench target `run_overhead`: see `vmmkit_benches::cases::run_overhead`.

mod common;

fn main() {
    common::main("run_overhead", vmmkit_benches::cases::run_overhead::entries);
}
