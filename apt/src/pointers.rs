//! Calls through a C function pointer (`kernel(a, n)` with `kernel` a variable): the pointer's
//! possible values are read from its assignments, so the call becomes a branch over direct
//! calls of known procedures instead of vanishing from the tree.
//!
//! A pointer resolves when it has at least one assignment (in the calling procedure, or
//! anywhere for a global pointer) and every one gives known procedures: a name (`smooth`,
//! `&smooth`, a cast of one), a `c ? f : g` chain of them, or an element of a table of them
//! (`kernel = table[kind]` with `table[0] = smooth; …` or `fn table[] = {smooth, scale}`);
//! `NULL`/`0` give none. The targets are listed in the order their names first appear. When
//! the pointer's one assignment is a chain `c1 ? f1 : c2 ? f2 : f3`, its conditions choose
//! among the targets in that order (`chain`), so the branch is resolved like an `if`.
use frontend::{DeclKind, Language, ProcId, Program, SrcExpr, SrcExprKind, Stmt, StmtId, StmtKind};

use crate::procs::{user_proc, ProcNames};

/// A call statement through a pointer variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PointerCall {
    /// The pointer variable, as written.
    pub var: String,
    /// The procedures it may call, in order (empty: not resolved).
    pub targets: Vec<ProcId>,
    /// The assignment `p = c1 ? f1 : … : fk` whose conditions pick `targets` in order.
    pub chain: Option<StmtId>,
}

impl PointerCall {
    pub fn resolved(&self) -> bool {
        !self.targets.is_empty()
    }
}

/// `s` as a call through a function pointer: a C call statement whose name is a declared
/// variable (not an array) rather than a procedure. `None` for any other statement.
pub fn pointer_call(prog: &Program, names: &ProcNames, s: &Stmt) -> Option<PointerCall> {
    if prog.language != Language::C {
        return None;
    }
    let StmtKind::Call(c) = &s.kind else {
        return None;
    };
    if user_proc(prog, names, s.proc, &c.name).is_some() {
        return None;
    }
    let decl = prog.decl(s.proc, &c.name)?;
    if matches!(decl.kind, DeclKind::Array { .. }) {
        return None;
    }
    let local = prog
        .proc(s.proc)
        .is_some_and(|p| p.decls.iter().any(|d| d.name == c.name))
        || prog
            .proc(s.proc)
            .is_some_and(|p| p.params.iter().any(|f| f.name == c.name));
    let mut out = PointerCall {
        var: c.name.clone(),
        targets: Vec::new(),
        chain: None,
    };
    let assigns: Vec<(&Stmt, &SrcExpr)> = prog
        .stmts
        .iter()
        .filter(|t| !local || t.proc == s.proc)
        .filter_map(|t| match &t.kind {
            StmtKind::Assign(a) if matches!(&a.target.kind, SrcExprKind::Var(v) if *v == c.name) => {
                Some((t, &a.value))
            }
            _ => None,
        })
        .collect();
    let mut targets = Vec::new();
    for (t, value) in &assigns {
        if !values(prog, names, t.proc, value, 0, &mut targets) {
            return Some(out);
        }
    }
    if let [(t, value)] = assigns.as_slice() {
        let mut chain = Vec::new();
        if chain_targets(prog, names, t.proc, value, &mut chain) {
            let mut distinct = chain.clone();
            distinct.sort();
            distinct.dedup();
            if distinct.len() == chain.len() && chain.len() > 1 {
                out.chain = Some(t.id);
                targets = chain;
            }
        }
    }
    let mut seen = Vec::new();
    targets.retain(|p| {
        let new = !seen.contains(p);
        seen.push(*p);
        new
    });
    out.targets = targets;
    Some(out)
}

/// The conditions of a chain `c1 ? f1 : c2 ? f2 : f3` of procedures (one fewer than its
/// targets); empty for any other expression.
pub fn chain_conds<'e>(
    prog: &Program,
    names: &ProcNames,
    proc: ProcId,
    e: &'e SrcExpr,
) -> Vec<&'e SrcExpr> {
    let mut out = Vec::new();
    if !matches!(strip(e).kind, SrcExprKind::Ternary { .. })
        || !chain_targets(prog, names, proc, e, &mut Vec::new())
    {
        return out;
    }
    let mut cur = strip(e);
    while let SrcExprKind::Ternary { cond, other, .. } = &cur.kind {
        out.push(cond.as_ref());
        cur = strip(other);
    }
    out
}

fn strip(e: &SrcExpr) -> &SrcExpr {
    match &e.kind {
        SrcExprKind::Cast { expr, .. } => strip(expr),
        SrcExprKind::Unary {
            op: frontend::UnOp::AddrOf,
            operand,
        } => strip(operand),
        _ => e,
    }
}

fn function(prog: &Program, names: &ProcNames, proc: ProcId, e: &SrcExpr) -> Option<ProcId> {
    match &strip(e).kind {
        SrcExprKind::Var(f) => user_proc(prog, names, proc, f),
        _ => None,
    }
}

/// Targets of a chain whose every `then` and last `other` is one procedure.
fn chain_targets(
    prog: &Program,
    names: &ProcNames,
    proc: ProcId,
    e: &SrcExpr,
    out: &mut Vec<ProcId>,
) -> bool {
    match &strip(e).kind {
        SrcExprKind::Ternary { then, other, .. } => match function(prog, names, proc, then) {
            Some(f) => {
                out.push(f);
                chain_targets(prog, names, proc, other, out)
            }
            None => false,
        },
        _ => match function(prog, names, proc, e) {
            Some(f) => {
                out.push(f);
                true
            }
            None => false,
        },
    }
}

/// Adds the procedures `e` may evaluate to; false when it may be anything else.
fn values(
    prog: &Program,
    names: &ProcNames,
    proc: ProcId,
    e: &SrcExpr,
    depth: u32,
    out: &mut Vec<ProcId>,
) -> bool {
    if depth > 4 {
        return false;
    }
    let e = strip(e);
    if let Some(f) = function(prog, names, proc, e) {
        out.push(f);
        return true;
    }
    match &e.kind {
        SrcExprKind::Int(0) => true,
        SrcExprKind::Var(v) if v == "NULL" => true,
        SrcExprKind::Ternary { then, other, .. } => {
            values(prog, names, proc, then, depth + 1, out)
                && values(prog, names, proc, other, depth + 1, out)
        }
        SrcExprKind::Index { array, .. } => table(prog, names, proc, array, depth, out),
        _ => false,
    }
}

/// The procedures stored in the elements of array `table`: every store to it must be one.
fn table(
    prog: &Program,
    names: &ProcNames,
    proc: ProcId,
    table: &str,
    depth: u32,
    out: &mut Vec<ProcId>,
) -> bool {
    if !matches!(
        prog.decl(proc, table).map(|d| &d.kind),
        Some(DeclKind::Array { .. })
    ) {
        return false;
    }
    let prefix = format!("{table}[");
    let mut any = false;
    for t in &prog.stmts {
        let StmtKind::Assign(a) = &t.kind else {
            continue;
        };
        let into = match &a.target.kind {
            SrcExprKind::Index { array, .. } => array == table,
            SrcExprKind::Var(v) => v.starts_with(&prefix),
            _ => false,
        };
        if into {
            any = true;
            if !values(prog, names, t.proc, &a.value, depth + 1, out) {
                return false;
            }
        }
    }
    any
}
