//! The work of a computing library call ([`frontend::library`]): its law evaluated on the
//! resolved size arguments, the trip count the APT gives the call as an implicit loop. An
//! argument that does not resolve leaves the work unresolved, with a reason naming it; the
//! site is timed all the same and the runs' counters measure its work.
use frontend::{Law, LibraryCall, Sources, SrcExpr};
use symbolic::Expr;

use crate::value::{short, Val};
use crate::Attr;

/// Work per execution of `call`: the law of [`frontend::Law`] over its size arguments. `ev`
/// evaluates a source expression at the statement.
pub fn work(
    sources: &Sources,
    call: &LibraryCall<'_>,
    ev: &mut dyn FnMut(&SrcExpr) -> Val,
) -> Attr {
    let mut sizes = Vec::new();
    for (k, e) in call.sizes.iter().enumerate() {
        let role = call.role(k);
        let Some(e) = e else {
            return Attr::Unresolved(format!("`{}` is called without its {role}", call.name));
        };
        let text = short(sources.text(e.span));
        match ev(e) {
            Val::Known(x) => sizes.push(x),
            Val::Unknown(r) => {
                return Attr::Unresolved(format!("{role} `{text}` of `{}`: {r}", call.name))
            }
            Val::Special(_) | Val::OrNull(_) => {
                return Attr::Unresolved(format!(
                    "{role} `{text}` of `{}` is an MPI constant",
                    call.name
                ))
            }
        }
    }
    let first = sizes.first().cloned().unwrap_or_else(Expr::one);
    Attr::Expr(match call.routine.law {
        // n log n of a size that is 0 at one rank (sorting P(P - 1) samples) is 0 there, not
        // 0 * log2(0) (trial 13: T undefined at P = 1)
        Law::NLogN => {
            let at_one = first.eval(&|_| Some(1.0));
            let inner = if at_one.is_ok_and(|v| v < 1.0) {
                Expr::max(first.clone(), Expr::one())
            } else {
                first.clone()
            };
            first.clone() * inner.log2()
        }
        Law::Log => (first + Expr::one()).log2(),
        Law::Product => sizes.into_iter().fold(Expr::one(), |a, x| a * x),
    })
}

/// The routines an implicit loop calls, as written and in source order (`qsort`, `ddot,
/// ddot`): the APT's `library` attribute.
pub fn names(op: &frontend::ArrayOp<'_>) -> String {
    let names: Vec<&str> = op.calls.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// The variables a computing library call statement `s` passes as its sizes (`n` of `&n`),
/// which it only reads; empty for any other statement.
pub fn sizes_read(
    prog: &frontend::Program,
    s: &frontend::Stmt,
) -> std::collections::BTreeSet<String> {
    let Some(op) = frontend::array_op(prog, s) else {
        return Default::default();
    };
    op.calls
        .iter()
        .flat_map(|c| c.sizes.iter().flatten())
        .filter_map(|e| match &e.kind {
            frontend::SrcExprKind::Var(v) => Some(v.clone()),
            _ => None,
        })
        .collect()
}
