//! augur's symbolic engine: expressions over positive real parameters (N, P, K, …) kept in a
//! canonical sum-of-monomials form, with parsing and printing (text, LaTeX, sympy),
//! differentiation, minimisation over one variable, fast compiled evaluation and least-squares
//! fitting with model selection. Depends on no augur crate.
//!
//! Text syntax: `+ - * / ^` (or `**`), parentheses, numbers (`3e-6`), identifiers, and the
//! functions `sqrt cbrt log2 ln log log10 max min ceil floor`, `mod(a, b)` (`a - b*floor(a/b)`), and `dims(n, d, k)`, the k-th
//! extent of `MPI_Dims_create(n, d)` (Open MPI's factoring; `smpi_dims(n, d, k)` SimGrid SMPI's). Exponents are rational constants.
//! `ln`/`log10` are normalised to `log2·const`. Example: `N^2/(P*K) + K*log2(P) + 3*sqrt(N/P)`.
//!
//! Assumptions: variables are positive reals, and simplification treats the base of every
//! power as non-negative (`(u^2)^(1/2)` becomes `u`), as a CAS does for positive symbols.
//! Canonical form: a sum of terms `c·∏ atom^q` (see [`Atom`]); equal inputs built through the
//! constructors compare equal for everything the rewrite rules in `canon.rs` cover.
//!
//! Entry points: [`parse`], the [`Expr`] constructors and operators, [`Expr::diff`],
//! [`minimize`], [`Compiled`], [`sum_over`], and [`fit::fit_terms`] / [`fit::search_pmnf`].

mod canon;
mod compile;
mod diff;
mod dims;
mod expr;
mod factored;
pub mod fit;
mod parse;
mod print;
mod print_mod;
mod print_readable;
mod print_step;
mod query;
mod rational;
mod roots;
mod solve;
mod sum;
#[cfg(test)]
mod tests_canon;
mod within;

pub use compile::Compiled;
pub use diff::{Cond, Derivative, Piece};
pub use dims::{dims_create, DimsRule, MAX_DIMS};
pub use expr::{Atom, Expr, Term};
pub use parse::{parse, ParseError};
pub use print_readable::Readable;
pub use query::EvalError;
pub use rational::Rational;
pub use roots::Method;
pub use solve::{minimize, Candidate, Solution, SolveError, SolveOptions};
pub use sum::{sum_geometric, sum_over};
pub use within::Within;
