//! Where the program divides integers whose quotient need not be whole: `nblk = n / kb`.
//! The model takes N/KB; the program takes ⌊N/KB⌋, which is 0 at KB > N and skips work where
//! KB does not divide N. `predict` says so at a point where the two differ, and `expr solve
//! --integer` on a model names the divisors nearest its optimum.

use std::collections::BTreeMap;

use frontend::{Program, Sources, Span};
use serde::{Deserialize, Serialize};
use symbolic::Expr;

use crate::params::{ParamOrigin, Params, RANK};

/// A truncating division of two values in the program's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntegerDivision {
    pub line: u32,
    /// The file, when not the main one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub num: Expr,
    pub den: Expr,
}

impl IntegerDivision {
    /// `file:line`, or the line in the main file.
    pub fn at(&self) -> String {
        crate::source_at(self.line, self.file.as_deref())
    }

    /// The quotient as the source divides it, `N/KB`, `(N - 2)/(2*K)`.
    pub fn text(&self) -> String {
        let whole = |e: &Expr| {
            e.terms().len() == 1 && e.terms()[0].factors().iter().all(|(_, q)| !q.is_negative())
        };
        let num = if whole(&self.num) {
            self.num.to_string()
        } else {
            format!("({})", self.num)
        };
        let den = match (self.den.as_const(), self.den.as_var()) {
            (Some(_), _) | (_, Some(_)) => self.den.to_string(),
            _ => format!("({})", self.den),
        };
        format!("{num}/{den}")
    }
}

/// The divisions [`crate::value::Scope::integer_division`] reported, by (file, line, num,
/// den) so that a routine analysed more than once gives each once.
pub(crate) type Seen = BTreeMap<(u32, u32, String, String), (Span, Expr, Expr)>;

/// The divisions whose operands are in the program's run parameters and P (named constants
/// at their values; none at a rank), in source order.
pub(crate) fn divisions(
    seen: &Seen,
    prog: &Program,
    sources: &Sources,
    params: &Params,
) -> Vec<IntegerDivision> {
    let consts: BTreeMap<String, Expr> = params
        .list()
        .iter()
        .filter_map(|p| match p.origin {
            ParamOrigin::Constant { default } => Some((p.name.clone(), Expr::num(default))),
            _ => None,
        })
        .collect();
    let mut out: Vec<IntegerDivision> = Vec::new();
    for (span, num, den) in seen.values() {
        let (num, den) = (num.subs_all(&consts), den.subs_all(&consts));
        let vars: Vec<String> = num.vars().into_iter().chain(den.vars()).collect();
        if vars.is_empty() || vars.iter().any(|v| v == RANK || !params.is_param(v)) {
            continue;
        }
        let file = (span.file != prog.main_file)
            .then(|| sources.path(span.file))
            .flatten()
            .and_then(|p| p.file_name())
            .map(|f| f.to_string_lossy().into_owned());
        let d = IntegerDivision {
            line: sources.first_line(*span),
            file,
            num,
            den,
        };
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}
