//! Branch conditions as symbolic text, or the source text and why not (a neighbour's
//! `!= MPI_PROC_NULL` is its edge's condition).
use std::collections::BTreeSet;

use frontend::{BinOp, SrcExpr, SrcExprKind, UnOp};

use crate::rules::source_text;
use crate::value::{Special, Val};

use super::{Analysis, Cond, Env};

/// One side of a comparison as text.
pub(super) fn side(v: Val, vars: &mut BTreeSet<String>) -> Result<String, String> {
    match v {
        Val::Known(e) => {
            vars.extend(e.vars());
            Ok(e.to_string())
        }
        Val::Special(Special::ProcNull) => Ok("MPI_PROC_NULL".into()),
        Val::Special(Special::Wildcard) => Ok("MPI_ANY".into()),
        Val::Special(Special::CommWorld) => Ok("MPI_COMM_WORLD".into()),
        Val::Unknown(r) => Err(r),
        Val::OrNull(o) => Err(format!("compared with a peer: {}", o.text())),
    }
}

impl Analysis<'_> {
    /// `v != MPI_PROC_NULL` (either order) where `v` is a neighbour with an edge.
    pub(super) fn not_null(
        &self,
        cond: &SrcExpr,
        env: &Env,
    ) -> Option<(String, Box<crate::value::OrNull>)> {
        let SrcExprKind::Binary {
            op: BinOp::Ne,
            lhs,
            rhs,
        } = &cond.kind
        else {
            return None;
        };
        let null = |e: &SrcExpr| matches!(&e.kind, SrcExprKind::Var(n) if n.eq_ignore_ascii_case("MPI_PROC_NULL"));
        let v = match (&lhs.kind, &rhs.kind) {
            (SrcExprKind::Var(v), _) if null(rhs) => v,
            (_, SrcExprKind::Var(v)) if null(lhs) => v,
            _ => return None,
        };
        match env.get(v) {
            Some(Val::OrNull(o)) => Some((v.clone(), o.clone())),
            _ => None,
        }
    }

    /// A condition as `lhs op rhs` with symbolic sides, or its source text with the reason.
    pub(super) fn cond(&mut self, e: &SrcExpr, env: &Env) -> Cond {
        let mut vars = BTreeSet::new();
        match self.cond_text(e, env, &mut vars) {
            Ok(text) => {
                self.floor_divisions = true;
                let exact = self.cond_text(e, env, &mut BTreeSet::new());
                self.floor_divisions = false;
                Cond {
                    exact: exact.ok().filter(|x| *x != text),
                    text,
                    unresolved: None,
                    vars,
                    sufficient: None,
                }
            }
            Err(reason) => {
                // the disjuncts that resolve, where the condition is a disjunction: any one
                // holding makes it hold
                let mut leaves = Vec::new();
                disjuncts(e, &mut leaves);
                let mut vars = BTreeSet::new();
                self.floor_divisions = true;
                let known: Vec<String> = if leaves.len() > 1 {
                    leaves
                        .iter()
                        .filter_map(|d| self.cond_text(d, env, &mut vars).ok())
                        .collect()
                } else {
                    Vec::new()
                };
                self.floor_divisions = false;
                Cond {
                    text: source_text(self.sources.text(e.span)),
                    exact: None,
                    unresolved: Some(reason),
                    sufficient: (!known.is_empty()).then(|| known.join(" || ")),
                    vars,
                }
            }
        }
    }

    pub(super) fn cond_text(
        &mut self,
        e: &SrcExpr,
        env: &Env,
        vars: &mut BTreeSet<String>,
    ) -> Result<String, String> {
        match &e.kind {
            SrcExprKind::Binary { op, lhs, rhs } if op.is_comparison() => {
                let l = self.ev(lhs, env, None);
                let r = self.ev(rhs, env, None);
                // `left != MPI_PROC_NULL` of a neighbour with an edge: where it is not
                if let (Val::OrNull(o), Val::Special(Special::ProcNull))
                | (Val::Special(Special::ProcNull), Val::OrNull(o)) = (&l, &r)
                {
                    let live = match op {
                        BinOp::Ne => Some(o.live.clone()),
                        BinOp::Eq => o.live.negate(),
                        _ => None,
                    };
                    if let Some(t) = live {
                        vars.extend(t.vars());
                        return Ok(t.text());
                    }
                }
                let l = side(l, vars)?;
                let r = side(r, vars)?;
                Ok(format!("{l} {} {r}", op.symbol()))
            }
            SrcExprKind::Binary {
                op: op @ (BinOp::And | BinOp::Or),
                lhs,
                rhs,
            } => {
                let l = self.cond_text(lhs, env, vars);
                let r = self.cond_text(rhs, env, vars);
                let (l, r) = (l?, r?);
                let wrap = |s: String, inner: &SrcExpr| match &inner.kind {
                    SrcExprKind::Binary { op: o, .. }
                        if matches!(o, BinOp::And | BinOp::Or) && o != op =>
                    {
                        format!("({s})")
                    }
                    _ => s,
                };
                Ok(format!("{} {} {}", wrap(l, lhs), op.symbol(), wrap(r, rhs)))
            }
            SrcExprKind::Unary {
                op: UnOp::Not,
                operand,
            } => Ok(format!("!({})", self.cond_text(operand, env, vars)?)),
            _ => {
                let v = self.ev(e, env, None);
                match v {
                    Val::Unknown(r) => Err(r),
                    _ => Err("not a comparison".into()),
                }
            }
        }
    }
}

/// The leaves of the `||` tree at the top of `e` (`e` itself where it is no disjunction).
fn disjuncts<'e>(e: &'e SrcExpr, out: &mut Vec<&'e SrcExpr>) {
    match &e.kind {
        SrcExprKind::Binary {
            op: BinOp::Or,
            lhs,
            rhs,
        } => {
            disjuncts(lhs, out);
            disjuncts(rhs, out);
        }
        _ => out.push(e),
    }
}
