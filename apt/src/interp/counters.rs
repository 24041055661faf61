//! Counters a loop nest steps by constants (`req[nr++]` in a loop over dimensions and sides,
//! `nr` then handed to `MPI_Waitall`; trial 19's 3-D stencil): after the nest the counter is
//! its value before plus the steps summed over the iterations, when every step the nest
//! takes is a constant one that runs on every iteration of loops with known trip counts. A
//! step under a condition, or one a `continue` or a `goto` may skip, is not weighed: the
//! counter stays unknown and says why.
use frontend::{BinOp, Block, SrcExprKind, StmtId, StmtKind};
use symbolic::Expr;

use crate::Attr;

use super::{ActiveLoop, Analysis};

/// What a loop nest does to one variable.
pub(super) enum Counted {
    /// It writes the variable otherwise than by constant steps: not a counter.
    NotCounter,
    /// The total of its steps, over the whole nest.
    Total(Expr),
    /// A counter whose total the source does not fix, and why.
    Unresolved(String),
}

impl Analysis<'_> {
    /// What the counted loop `id` (its body just interpreted, its facts recorded) does to the
    /// scalar `v` over all its iterations ([`Counted`]).
    pub(super) fn counted_by_loop(&self, id: StmtId, v: &str) -> Counted {
        match self.loop_steps(id, v) {
            Ok(Some(total)) => Counted::Total(total),
            Ok(None) => Counted::NotCounter,
            Err(Some(why)) => Counted::Unresolved(why),
            Err(None) => Counted::NotCounter,
        }
    }

    /// Σ of the steps of `v` over every iteration of loop `id`: `Ok(None)` when the loop
    /// does not touch `v`, `Err(None)` when it writes `v` other than by a constant step,
    /// `Err(Some(why))` when the steps are constant but their count is not fixed.
    fn loop_steps(&self, id: StmtId, v: &str) -> Result<Option<Expr>, Option<String>> {
        let prog = self.prog;
        let Some(s) = prog.stmt(id) else {
            return Err(None);
        };
        // a while loop's body and update (`while (m > 4 && nlev < MAXLEV) { m /= 2; nlev++; }`
        // leaves nlev at its trip): its counter of a geometric test is not a step
        let (body, update): (&frontend::Block, Option<&frontend::Block>) = match &s.kind {
            StmtKind::Loop(l) => {
                if l.indices().iter().any(|x| x.0 == v) {
                    return Err(None);
                }
                (&l.body, None)
            }
            StmtKind::While(w) => {
                let geometric = self.facts.loops.get(&id).and_then(|f| f.var.as_deref());
                if geometric == Some(v) {
                    return Err(None);
                }
                (&w.body, Some(&w.update))
            }
            _ => return Err(None),
        };
        let per = match (self.block_steps(body, v)?, update) {
            (a, Some(u)) => match (a, self.block_steps(u, v)?) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            },
            (a, None) => a,
        };
        let Some(per) = per else {
            return Ok(None);
        };
        let line = self.line(s.span);
        // a `continue` may skip the steps after it, a `goto` any of them
        let cont = crate::cap::own_stmts(prog, body)
            .into_iter()
            .filter_map(|c| prog.stmt(c))
            .find(|x| matches!(x.kind, StmtKind::Continue));
        if let Some(c) = cont {
            return Err(Some(format!(
                "counted in the loop at line {line}, where a `continue` at line {} may skip it",
                self.line(c.span)
            )));
        }
        let jump = prog
            .walk(body)
            .into_iter()
            .filter_map(|c| prog.stmt(c))
            .find(|x| matches!(&x.kind, StmtKind::Opaque(o) if o.reason == "goto"));
        if let Some(g) = jump {
            return Err(Some(format!(
                "counted in the loop at line {line}, where a `goto` at line {} may skip it",
                self.line(g.span)
            )));
        }
        let Some(f) = self.facts.loops.get(&id) else {
            return Err(None);
        };
        let (Attr::Expr(trip), true) = (&f.trip, f.more.is_empty()) else {
            return Err(Some(match &f.trip {
                Attr::Unresolved(r) => {
                    format!("counted in the loop at line {line}, whose trip is unresolved ({r})")
                }
                Attr::Expr(_) => format!("counted in the loop at line {line} over several indices"),
                _ => format!("counted in the loop at line {line}, whose trip is not a number"),
            }));
        };
        let Some(sym) = f.sym.as_ref().filter(|s| per.contains_var(s)) else {
            return Ok(Some(trip * &per));
        };
        let al = ActiveLoop {
            sym: sym.clone(),
            lo: f.lo.clone(),
            hi: f.hi.clone(),
            step: f.step.clone(),
            geo: f.geo.clone(),
            trip: None,
        };
        self.sum_over_loop(&per, &al)
            .map(Some)
            .map_err(|why| Some(format!("counted in the loop at line {line}: {why}")))
    }

    /// Σ of the steps of `v` over one run of `block` (see [`Self::loop_steps`]).
    fn block_steps(&self, block: &Block, v: &str) -> Result<Option<Expr>, Option<String>> {
        let prog = self.prog;
        let mut total: Option<Expr> = None;
        let mut add = |e: Expr| total = Some(total.take().unwrap_or_else(Expr::zero) + e);
        for &id in block {
            let Some(s) = prog.stmt(id) else { continue };
            match &s.kind {
                StmtKind::Loop(_) => {
                    if self.procs.stmt_defs(prog, s).contains(v) {
                        return Err(None);
                    }
                    if let Some(t) = self.loop_steps(id, v)? {
                        add(t);
                    }
                }
                StmtKind::If(i) => {
                    if self.procs.stmt_defs(prog, s).contains(v) {
                        return Err(None);
                    }
                    let arms = i.arms.iter().map(|a| &a.body).chain(i.else_body.as_ref());
                    for b in arms {
                        if self.block_steps(b, v)?.is_some() {
                            let line = self.line(s.span);
                            return Err(Some(format!("counted under a condition at line {line}")));
                        }
                    }
                }
                StmtKind::While(w) => {
                    let touches = [&w.init, &w.update, &w.body]
                        .into_iter()
                        .flat_map(|b| prog.walk(b))
                        .filter_map(|x| prog.stmt(x))
                        .chain(std::iter::once(s))
                        .any(|x| self.procs.stmt_defs(prog, x).contains(v));
                    if touches {
                        return Err(None);
                    }
                }
                _ => {
                    if !self.procs.stmt_defs(prog, s).contains(v) {
                        continue;
                    }
                    add(Expr::int(stmt_step(s, v).ok_or(None)?));
                }
            }
        }
        Ok(total)
    }
}

/// The constant step a plain statement gives `v`: `v = v ± c` (C `v++`, `v += c`), or the
/// steps inside its expressions (`req[v++]`); `None` for any other write.
fn stmt_step(s: &frontend::Stmt, v: &str) -> Option<i64> {
    let inside = crate::procs::increments(s);
    if let StmtKind::Assign(a) = &s.kind {
        if matches!(&a.target.kind, SrcExprKind::Var(x) if x == v) {
            if inside.contains_key(v) {
                return None;
            }
            let SrcExprKind::Binary { op, lhs, rhs } = &a.value.kind else {
                return None;
            };
            let k = match (op, &lhs.kind, &rhs.kind) {
                (BinOp::Add, SrcExprKind::Var(x), _) if x == v => rhs.as_int(),
                (BinOp::Add, _, SrcExprKind::Var(x)) if x == v => lhs.as_int(),
                (BinOp::Sub, SrcExprKind::Var(x), _) if x == v => rhs.as_int().map(|c| -c),
                _ => None,
            }?;
            return Some(k);
        }
    }
    match inside.get(v) {
        Some(Some(k)) => Some(*k),
        _ => None,
    }
}
