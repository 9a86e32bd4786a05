//! Bench target `cuda_streams`: see `vmmkit_benches::cases::cuda_streams`.

mod common;

fn main() {
    common::main("cuda_streams", vmmkit_benches::cases::cuda_streams::entries);
}
