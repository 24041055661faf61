//! Upper bounds the source proves for loops that may end early: a while loop one of whose
//! conjuncts counts iterations (`while (it < maxit && rnorm > tol)` with `it++` run in every
//! iteration; Fortran `do while (it < maxit .and. …)`), and a counted loop left by `break`
//! or `return` (`for (it = 0; it < maxit; it++) { … if (done) break; }`, Fortran `do it =
//! 1, maxit … exit`; a `return` in an inner loop, `exit outer` or `cycle outer` naming it or
//! a loop around it, or a `goto` to a label outside it, leaves it too).
//! The trip count stays unresolved (the runs measure it); the cap is
//! what the model may bound it by: trip ≤ cap.
use frontend::{
    BinOp, Language, Program, Sources, Span, SrcExpr, SrcExprKind, StmtId, StmtKind, While,
};

use crate::procs::ProcFacts;

/// A conjunct of a while condition that tests a counter: `var < limit` (`inclusive`: `<=`).
#[derive(Debug, Clone, Copy)]
pub struct CounterTest<'e> {
    pub var: &'e str,
    pub limit: &'e SrcExpr,
    pub inclusive: bool,
}

/// The conjuncts of `cond`: `a && (b && c)` → `[a, b, c]`.
pub fn conjuncts(cond: &SrcExpr) -> Vec<&SrcExpr> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(e) = stack.pop() {
        match &e.kind {
            SrcExprKind::Binary {
                op: BinOp::And,
                lhs,
                rhs,
            } => {
                stack.push(rhs);
                stack.push(lhs);
            }
            _ => out.push(e),
        }
    }
    out
}

/// `v < e`, `v <= e`, `e > v`, `e >= v` with `v` a variable.
pub fn counter_test(e: &SrcExpr) -> Option<CounterTest<'_>> {
    let SrcExprKind::Binary { op, lhs, rhs } = &e.kind else {
        return None;
    };
    let (var, limit, inclusive) = match (op, &lhs.kind, &rhs.kind) {
        (BinOp::Lt, SrcExprKind::Var(v), _) => (v, &**rhs, false),
        (BinOp::Le, SrcExprKind::Var(v), _) => (v, &**rhs, true),
        (BinOp::Gt, _, SrcExprKind::Var(v)) => (v, &**lhs, false),
        (BinOp::Ge, _, SrcExprKind::Var(v)) => (v, &**lhs, true),
        _ => return None,
    };
    Some(CounterTest {
        var,
        limit,
        inclusive,
    })
}

/// Statements of `block` that belong to the loop owning it: nested bodies of IFs, not of
/// inner loops (whose `break`/`continue` are their own).
pub fn own_stmts(prog: &Program, block: &[StmtId]) -> Vec<StmtId> {
    let mut out = Vec::new();
    let mut stack: Vec<StmtId> = block.iter().rev().copied().collect();
    while let Some(id) = stack.pop() {
        out.push(id);
        if let Some(StmtKind::If(i)) = prog.stmt(id).map(|s| &s.kind) {
            let mut nested: Vec<StmtId> = i.arms.iter().flat_map(|a| a.body.clone()).collect();
            nested.extend(i.else_body.iter().flatten().copied());
            stack.extend(nested.into_iter().rev());
        }
    }
    out
}

/// The first statement that leaves the loop spanning `span` with body `body`
/// before its test ends it, with its keyword: a `break`/`exit` among its own statements, a
/// `return` anywhere in it (inner loops included), a Fortran `exit NAME` or `cycle NAME` in
/// an inner loop whose `NAME` is not one of the inner loops (`cycle NAME` also not this
/// loop: so a loop around it), and a `goto` whose label is not in the loop (or cannot be
/// read; the label ending this loop or an inner Fortran DO, `end_label`, is a jump to the next
/// iteration). A `Break` lowered from a jump to the statement after a loop built from GOTO
/// reads `goto`.
pub fn early_exit(
    prog: &Program,
    sources: &Sources,
    span: Span,
    body: &[StmtId],
    end_label: Option<u32>,
) -> Option<(StmtId, &'static str)> {
    let brk = match prog.language {
        Language::C => "break",
        Language::Fortran => "exit",
    };
    let own = loop_name(prog, sources, span);
    let inner_names: Vec<String> = prog
        .walk(body)
        .into_iter()
        .filter_map(|id| match &prog.stmt(id)?.kind {
            StmtKind::Loop(l) => loop_name(prog, sources, l.header_span),
            StmtKind::While(w) => loop_name(prog, sources, w.header_span),
            _ => None,
        })
        .collect();
    // (statement, inside an inner loop), in source order
    let mut stack: Vec<(StmtId, bool)> = body.iter().rev().map(|id| (*id, false)).collect();
    while let Some((id, inner)) = stack.pop() {
        let Some(s) = prog.stmt(id) else {
            continue;
        };
        let nested: Vec<(StmtId, bool)> = match &s.kind {
            StmtKind::Break => {
                let leaves = !inner
                    || jump_name(sources, s.span, "exit")
                        .is_some_and(|n| !inner_names.contains(&n));
                if leaves {
                    let goto = sources.text(s.span).trim_start().to_ascii_lowercase();
                    return Some((id, if goto.starts_with("go") { "goto" } else { brk }));
                }
                continue;
            }
            StmtKind::Continue => {
                let around = jump_name(sources, s.span, "cycle")
                    .is_some_and(|n| !inner_names.contains(&n) && own.as_ref() != Some(&n));
                if around {
                    return Some((id, "cycle"));
                }
                continue;
            }
            StmtKind::Opaque(o) if o.reason == "goto" => {
                if !label_inside(prog, sources, span, body, end_label, &o.text) {
                    return Some((id, "goto"));
                }
                continue;
            }
            StmtKind::Return { .. } => return Some((id, "return")),
            StmtKind::Loop(_) | StmtKind::While(_) => s
                .kind
                .blocks()
                .into_iter()
                .flatten()
                .map(|c| (*c, true))
                .collect(),
            k => k
                .blocks()
                .into_iter()
                .flatten()
                .map(|c| (*c, inner))
                .collect(),
        };
        stack.extend(nested.into_iter().rev());
    }
    None
}

/// Whether every label a `goto` (text `jump`; Fortran: also a computed or assigned GOTO's
/// list) names is defined in the loop: a statement of `body` carrying it or the label ending the loop (`end_label`) or an inner DO
/// (Fortran: `DO 100 … GOTO 100 … 100 CONTINUE` is a `cycle`), or `name:` in the loop's text
/// (C).
fn label_inside(
    prog: &Program,
    sources: &Sources,
    span: Span,
    body: &[StmtId],
    end_label: Option<u32>,
    jump: &str,
) -> bool {
    let compact: String = jump
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '&')
        .collect::<String>()
        .to_ascii_lowercase();
    let Some(target) = compact
        .strip_prefix("goto")
        .map(|t| t.trim_end_matches(';'))
    else {
        return false;
    };
    match prog.language {
        Language::Fortran => {
            let Some(labels) = fortran_targets(target) else {
                return false;
            };
            labels.into_iter().all(|label| {
                end_label == Some(label)
                    || prog.walk(body).into_iter().any(|id| {
                        prog.stmt(id).is_some_and(|s| {
                            let ends = match &s.kind {
                                StmtKind::Loop(l) => l.end_label,
                                StmtKind::While(w) => w.end_label,
                                _ => None,
                            };
                            s.label == Some(label) || ends == Some(label)
                        })
                    })
            })
        }
        Language::C => c_defines_label(sources.text(span), target),
    }
}

/// The labels a Fortran GOTO (its compact lower-case text after `goto`) may jump to: `20`
/// → `[20]`; a computed `(15,17)k` / `(15,17),k` or an assigned `l(15,17)` / `l,(15,17)`
/// → its list (a computed GOTO whose index is out of range falls through to the next
/// statement, inside the loop). `None` when the targets cannot be read (an assigned GOTO
/// without a list).
fn fortran_targets(target: &str) -> Option<Vec<u32>> {
    if let Ok(label) = target.parse::<u32>() {
        return Some(vec![label]);
    }
    let open = target.find('(')?;
    let close = open + target[open..].find(')')?;
    let labels = target[open + 1..close]
        .split(',')
        .map(|l| l.parse::<u32>().ok())
        .collect::<Option<Vec<u32>>>()?;
    (!labels.is_empty()).then_some(labels)
}

/// Whether C text holds `name :` (not `::`) at a statement start.
fn c_defines_label(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(ident) {
        return false;
    }
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].trim_end();
        let starts = before.is_empty() || before.ends_with([';', '{', '}', ':', ')']);
        let left = text[..at].chars().next_back().is_none_or(|c| !ident(c));
        let rest = text[at + name.len()..].trim_start();
        left && starts && rest.starts_with(':') && !rest.starts_with("::")
    })
}

/// The construct name (lower case) of a Fortran loop whose header is `header` (`outer: do i = 1, n`).
fn loop_name(prog: &Program, sources: &Sources, header: Span) -> Option<String> {
    if prog.language != Language::Fortran {
        return None;
    }
    let file = sources.get(header.file)?;
    let line = file.line_text(file.line_of(header.start));
    let code = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let code = code.trim_start();
    let end = code
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(code.len());
    let (word, rest) = code.split_at(end);
    let rest = rest.trim_start();
    let named = !word.is_empty() && rest.starts_with(':') && !rest.starts_with("::");
    named.then(|| word.to_ascii_lowercase())
}

/// `NAME` of a Fortran `exit NAME` / `cycle NAME` (`keyword`); `None` for a plain one or C.
fn jump_name(sources: &Sources, span: Span, keyword: &str) -> Option<String> {
    let text = sources.text(span).trim().to_ascii_lowercase();
    let rest = text.strip_prefix(keyword)?.trim();
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    let word = &rest[..end];
    (!word.is_empty()).then(|| word.to_string())
}

/// The one statement of `w`'s body and update that writes `var`, when it runs on every
/// iteration (at their top level, and no `continue` can skip it in the body) and is an
/// assignment `var = …`: a loop counter's update.
pub fn sole_update<'p>(
    prog: &'p Program,
    procs: &ProcFacts,
    w: &While,
    var: &str,
) -> Option<&'p frontend::Assign> {
    let mut writers = Vec::new();
    // an update on the way out (`if (done) { it++; break; }`) changes no iteration's count
    let leaving = exiting_arms(prog, &w.body);
    for id in prog.walk(&w.body).into_iter().chain(prog.walk(&w.update)) {
        if leaving.contains(&id) {
            continue;
        }
        let s = prog.stmt(id)?;
        let loop_var = matches!(&s.kind, StmtKind::Loop(l) if l.var == var);
        if loop_var || procs.stmt_defs(prog, s).contains(var) {
            writers.push(id);
        }
    }
    let [id] = writers.as_slice() else {
        return None;
    };
    let in_body = w.body.contains(id);
    if !in_body && !w.update.contains(id) {
        return None;
    }
    if in_body
        && own_stmts(prog, &w.body)
            .into_iter()
            .any(|c| matches!(prog.stmt(c).map(|s| &s.kind), Some(StmtKind::Continue)))
    {
        return None;
    }
    let StmtKind::Assign(a) = &prog.stmt(*id)?.kind else {
        return None;
    };
    if !matches!(&a.target.kind, SrcExprKind::Var(v) if v == var) {
        return None;
    }
    Some(a)
}

/// The statements of the IF arms among `body`'s own statements (not in inner loops) that end
/// by leaving the loop (`break`, `return`): they run only on the iteration that leaves, so a
/// counter they update counts no iteration (trial 12: `{ it++; break; }` made a counted loop
/// unresolved).
fn exiting_arms(prog: &Program, body: &[StmtId]) -> std::collections::BTreeSet<StmtId> {
    let mut out = std::collections::BTreeSet::new();
    for id in own_stmts(prog, body) {
        let Some(StmtKind::If(i)) = prog.stmt(id).map(|s| &s.kind) else {
            continue;
        };
        if i.switch.is_some() {
            continue;
        }
        let blocks = i.arms.iter().map(|a| &a.body).chain(i.else_body.as_ref());
        for b in blocks {
            let leaves = b
                .last()
                .and_then(|&l| prog.stmt(l))
                .is_some_and(|l| matches!(l.kind, StmtKind::Break | StmtKind::Return { .. }));
            if leaves {
                out.extend(prog.walk(b));
            }
        }
    }
    out
}

/// What every iteration of `w` adds to `var`: exactly one statement of the body and update
/// writes `var`, it is `var = var + c` at their top level (run on every iteration), and when
/// it is in the body no `continue` can skip it. `c` is a positive constant or an expression
/// of other variables (`IB = IB + NB`, trial 21's blocks): whether the loop leaves those
/// unchanged is the caller's to check, and a step read from the input is taken as positive,
/// as a counted loop's step is.
pub fn counter_step<'p>(
    prog: &'p Program,
    procs: &ProcFacts,
    w: &While,
    var: &str,
) -> Option<&'p SrcExpr> {
    let a = sole_update(prog, procs, w, var)?;
    let SrcExprKind::Binary {
        op: BinOp::Add,
        lhs,
        rhs,
    } = &a.value.kind
    else {
        return None;
    };
    let step: &SrcExpr = match (&lhs.kind, &rhs.kind) {
        (SrcExprKind::Var(v), _) if v == var => rhs,
        (_, SrcExprKind::Var(v)) if v == var => lhs,
        _ => return None,
    };
    if step.vars().iter().any(|v| v == var) {
        return None;
    }
    match step.as_int() {
        Some(c) if c <= 0 => None,
        _ => Some(step),
    }
}
