//! Drop-in `libamdhip64.so` (linked from this staticlib with a version script).
