//! Drop-in `libascendcl.so`.
