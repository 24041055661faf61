//! augur's performance model: the machine data sheet (`machine`: τ(m), s, r, o and collective
//! costs), what the traced runs measured per site (`observe`), communication phases across runs
//! (`phases`), per-site fits (`quantity`), the bottom-up T(V) of seed 004 §4 (`build`), and the
//! validated model file that `augur predict` evaluates (`analysis`).

pub mod analysis;
pub mod build;
pub mod error;
pub mod machine;
mod machine_analytic;
pub mod machine_bench;
mod machine_fit;
#[cfg(test)]
mod machine_tests;
pub mod noise;
pub mod observe;
pub mod phases;
pub mod quantity;
mod recursion;
mod residual;
mod share;
pub mod stragglers;

pub use analysis::{analyze, analyze_dir, AnalyzeOptions, ModelFile, Validation};
pub use error::ModelError;
