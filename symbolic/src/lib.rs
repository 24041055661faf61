//! augur's symbolic engine: expressions over positive real parameters (N, P, K, …) kept in a
//! canonical sum-of-monomials form, with parsing and printing (text, LaTeX, sympy),
//! differentiation, minimisation over one variable, fast compiled evaluation and least-squares
//! fitting with model selection. Depends on no augur crate.
//!
//! Text syntax: `+ - * / ^` (or `**`), parentheses, numbers (`3e-6`), identifiers, and the
//! functions `sqrt cbrt log2 ln log log10 max min ceil floor`. Exponents are rational constants.
//! `ln`/`log10` are normalised to `log2·const`. Example: `N^2/(P*K) + K*log2(P) + 3*sqrt(N/P)`.

mod canon;
mod compile;
mod diff;
mod expr;
pub mod fit;
mod parse;
mod print;
mod query;
mod rational;
mod roots;
mod solve;
mod sum;
#[cfg(test)]
mod tests_canon;

pub use compile::Compiled;
pub use diff::{Cond, Derivative, Piece};
pub use expr::{Atom, Expr, Term};
pub use parse::{parse, ParseError};
pub use query::EvalError;
pub use rational::Rational;
pub use roots::Method;
pub use solve::{minimize, Candidate, Solution, SolveError, SolveOptions};
pub use sum::sum_over;
