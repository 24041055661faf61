//! augur's performance model. So far: the machine data sheet (`machine`), which gives the
//! communication parameters τ(m), s, r, o and the collective costs the phase formulas use.

pub mod machine;
mod machine_analytic;
pub mod machine_bench;
mod machine_fit;
#[cfg(test)]
mod machine_tests;
