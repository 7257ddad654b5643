//! End-to-end tests, one binary with a module per subject: the binaries
//! driven as a user drives them, checked by independent oracles.

mod external_engines;
mod main_job;
mod texel;
