//! Binary search (trial 7 item 10): a while loop over an integer interval `[lo, hi]` whose
//! every iteration moves one end to the midpoint (`while (lo < hi) { mid = (lo + hi) / 2;
//! if (key < a[mid]) hi = mid; else lo = mid + 1; }`, `lo <= hi` with `hi = mid - 1`,
//! `mid = lo + (hi - lo) / 2`, `hi - lo > 1` with `lo = mid`, Fortran `do while`) runs
//! at most ⌈log2(n + 2 − k)⌉ times, n = hi − lo at entry and the loop running while
//! hi − lo ≥ k.
//!
//! The source is read, and then its arithmetic is checked rather than matched: the test,
//! the midpoint and each move are evaluated with C/Fortran integer semantics on intervals
//! of every length up to a few hundred (the rounding repeats with the parity, so that
//! covers all lengths), and the loop is taken for a binary search only when every move
//! leaves at most half of what remained: with `S = hi − lo + 1 − k` (the loop runs while
//! `S ≥ 1`), every move gives `S' ≤ ⌊S/2⌋`, hence at most ⌊log2 S⌋ + 1 = ⌈log2(S + 1)⌉
//! iterations. When every move also leaves at least `⌊(S − 1)/2⌋`, the data can make the
//! loop at most one iteration shorter than that.
use frontend::{BaseType, BinOp, Program, SrcExpr, SrcExprKind, StmtId, StmtKind, UnOp, While};

use crate::cap;
use crate::procs::ProcFacts;

/// A recognised binary search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Halving {
    /// The interval's ends, as the source names them.
    pub lo: String,
    pub hi: String,
    /// The loop runs while `hi - lo >= k` (1 for `lo < hi`, 0 for `lo <= hi`, 2 for
    /// `hi - lo > 1`).
    pub k: i64,
    /// Every move keeps at least `⌊(S − 1)/2⌋` of `S`: the trip is the bound or one fewer.
    pub within_one: bool,
    /// The condition has other conjuncts than the interval test (they may end it early).
    pub more_conjuncts: bool,
}

impl Halving {
    /// The most iterations from an interval of `n = hi - lo` at entry: `⌈log2(n + 2 − k)⌉`.
    pub fn bound(&self, n: &symbolic::Expr) -> symbolic::Expr {
        (n + symbolic::Expr::int(2 - self.k)).log2().ceil()
    }
}

/// Lengths `hi - lo` the checks run over, from each of these `lo`.
const LENGTHS: i64 = 260;
const BASES: [i64; 4] = [0, 1, 7, 1000];

/// `w` as a binary search, when it is one (see the module doc). `is_int`: whether a name is
/// an integer scalar of the procedure.
pub fn recognise(
    prog: &Program,
    procs: &ProcFacts,
    w: &While,
    is_int: &dyn Fn(&str) -> bool,
) -> Option<Halving> {
    let cond = w.cond.as_ref()?;
    let parts = cap::conjuncts(cond);
    let (lo, hi, k) = parts.iter().find_map(|c| interval_test(c, is_int))?;
    // every write of the ends: a plain assignment among the body's own statements
    let own = cap::own_stmts(prog, &w.body);
    let mut writers: Vec<(StmtId, bool, &SrcExpr)> = Vec::new();
    let mut mids: Vec<(StmtId, String, &SrcExpr)> = Vec::new();
    for id in prog.walk(&w.body).into_iter().chain(prog.walk(&w.update)) {
        let s = prog.stmt(id)?;
        let mut defs = procs.stmt_defs(prog, s);
        if let StmtKind::Loop(l) = &s.kind {
            defs.insert(l.var.clone());
        }
        if !defs.contains(&lo) && !defs.contains(&hi) {
            if let StmtKind::Assign(a) = &s.kind {
                if let SrcExprKind::Var(m) = &a.target.kind {
                    if w.body.contains(&id) && is_int(m) {
                        mids.push((id, m.clone(), &a.value));
                    }
                }
            }
            continue;
        }
        let StmtKind::Assign(a) = &s.kind else {
            return None;
        };
        let SrcExprKind::Var(t) = &a.target.kind else {
            return None;
        };
        if !own.contains(&id) || defs.len() != 1 {
            return None;
        }
        writers.push((id, *t == hi, &a.value));
    }
    if !writers.iter().any(|w| w.1) || !writers.iter().any(|w| !w.1) {
        return None;
    }
    // the midpoint: one variable the moves read besides the ends, assigned once at the top
    // of the body before the statements holding the moves
    let mut others: Vec<String> = writers
        .iter()
        .flat_map(|(_, _, v)| v.vars())
        .filter(|v| *v != lo && *v != hi)
        .collect();
    others.sort();
    others.dedup();
    let mid = match others.as_slice() {
        [] => None,
        [m] => {
            let body_writes = prog
                .walk(&w.body)
                .into_iter()
                .chain(prog.walk(&w.update))
                .filter(|id| {
                    prog.stmt(*id)
                        .is_some_and(|s| procs.stmt_defs(prog, s).contains(m))
                })
                .count();
            let &(at, _, value) = mids.iter().find(|(_, name, _)| name == m)?;
            let pos = w.body.iter().position(|id| *id == at)?;
            let first_move = writers
                .iter()
                .filter_map(|(id, _, _)| top_of(prog, &w.body, *id))
                .min()?;
            if body_writes != 1
                || pos >= first_move
                || !value.vars().iter().all(|v| *v == lo || *v == hi)
            {
                return None;
            }
            Some((m.clone(), value))
        }
        _ => return None,
    };
    // every iteration makes exactly one move or leaves the loop
    if cut(prog, &w.body, &|id| writers.iter().any(|w| w.0 == id))? != Cut::One {
        return None;
    }
    let within_one = check_moves(
        &lo,
        &hi,
        k,
        mid.as_ref().map(|(m, v)| (m.as_str(), *v)),
        &writers,
    )?;
    Some(Halving {
        lo,
        hi,
        k,
        within_one,
        more_conjuncts: parts.len() > 1,
    })
}

/// The index in `body` of the top-level statement holding `id`.
fn top_of(prog: &Program, body: &[StmtId], id: StmtId) -> Option<usize> {
    body.iter()
        .position(|top| *top == id || prog.walk(&[*top]).contains(&id))
}

/// A conjunct comparing two integer variables that holds exactly while `hi - lo >= k`
/// (`k` in 0..=4): `(lo, hi, k)`.
fn interval_test(c: &SrcExpr, is_int: &dyn Fn(&str) -> bool) -> Option<(String, String, i64)> {
    let SrcExprKind::Binary { op, .. } = &c.kind else {
        return None;
    };
    if !matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
        return None;
    }
    let vars: Vec<String> = c.vars().into_iter().collect();
    let [a, b] = vars.as_slice() else {
        return None;
    };
    if !is_int(a) || !is_int(b) {
        return None;
    }
    for (lo, hi) in [(a, b), (b, a)] {
        let holds = |base: i64, len: i64| {
            truth(c, &|v| {
                if v == lo {
                    Some(base)
                } else if v == hi {
                    Some(base + len)
                } else {
                    None
                }
            })
        };
        let Some(k) = (0..=4).find(|len| holds(0, *len) == Some(true)) else {
            continue;
        };
        let exact = BASES
            .iter()
            .all(|b| (-3..=LENGTHS).all(|len| holds(*b, len) == Some(len >= k)));
        if exact {
            return Some((lo.clone(), hi.clone(), k));
        }
    }
    None
}

/// Every move leaves at most half (see the module doc); `Some(within_one)` when so.
fn check_moves(
    lo: &str,
    hi: &str,
    k: i64,
    mid: Option<(&str, &SrcExpr)>,
    writers: &[(StmtId, bool, &SrcExpr)],
) -> Option<bool> {
    let mut within_one = true;
    for base in BASES {
        for len in k..=k + LENGTHS {
            let (l, h) = (base, base + len);
            let ends = |v: &str| {
                if v == lo {
                    Some(l)
                } else if v == hi {
                    Some(h)
                } else {
                    None
                }
            };
            let m = match mid {
                Some((_, e)) => Some(int_value(e, &ends)?),
                None => None,
            };
            let look = |v: &str| match (ends(v), mid) {
                (Some(x), _) => Some(x),
                (None, Some((name, _))) if name == v => m,
                _ => None,
            };
            let s = len + 1 - k;
            for (_, is_hi, value) in writers {
                let x = int_value(value, &look)?;
                let after = if *is_hi { x - l } else { h - x };
                let s2 = after + 1 - k;
                if s2 > s.div_euclid(2) {
                    return None;
                }
                within_one &= s2 >= (s - 1).div_euclid(2);
            }
        }
    }
    Some(within_one)
}

/// What every path through a block does to the interval, for the paths that reach its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cut {
    /// No move.
    Zero,
    /// Exactly one move.
    One,
    /// Every path leaves the loop.
    Exit,
}

/// [`Cut`] of `block` (the body's own statements: inner loops hold no move); `None` when
/// paths disagree (a move on some paths only, two moves, a `continue` before the move, a
/// `goto`).
fn cut(prog: &Program, block: &[StmtId], is_move: &dyn Fn(StmtId) -> bool) -> Option<Cut> {
    let mut state = Cut::Zero;
    for &id in block {
        let s = prog.stmt(id)?;
        let step = if is_move(id) {
            Cut::One
        } else {
            match &s.kind {
                StmtKind::Break | StmtKind::Return { .. } => Cut::Exit,
                StmtKind::Mpi(m) if m.op == frontend::MpiOp::Abort => Cut::Exit,
                StmtKind::Call(c)
                    if matches!(
                        c.name.to_ascii_lowercase().as_str(),
                        "exit" | "abort" | "_exit"
                    ) =>
                {
                    Cut::Exit
                }
                StmtKind::Opaque(o) => {
                    let t = o.text.trim_start().to_ascii_lowercase();
                    if t.starts_with("stop") {
                        Cut::Exit
                    } else if o.reason == "goto" {
                        return None;
                    } else {
                        Cut::Zero
                    }
                }
                StmtKind::Continue => {
                    return (state == Cut::One).then_some(Cut::One);
                }
                StmtKind::If(i) => {
                    let mut arms: Vec<Cut> = Vec::new();
                    for b in i.arms.iter().map(|a| &a.body).chain(i.else_body.as_ref()) {
                        arms.push(cut(prog, b, is_move)?);
                    }
                    if i.else_body.is_none() {
                        arms.push(Cut::Zero);
                    }
                    let through: Vec<Cut> = arms.into_iter().filter(|c| *c != Cut::Exit).collect();
                    match through.first() {
                        None => Cut::Exit,
                        Some(first) if through.iter().all(|c| c == first) => *first,
                        Some(_) => return None,
                    }
                }
                _ => Cut::Zero,
            }
        };
        state = match (state, step) {
            (_, Cut::Exit) => return Some(Cut::Exit),
            (Cut::One, Cut::One) => return None,
            (Cut::Zero, x) => x,
            (s, Cut::Zero) => s,
            (Cut::Exit, _) => Cut::Exit,
        };
    }
    Some(state)
}

/// The truth of a comparison (`<`, `<=`, `>`, `>=`, `==`, `/=`) of integer expressions.
fn truth(e: &SrcExpr, look: &dyn Fn(&str) -> Option<i64>) -> Option<bool> {
    let SrcExprKind::Binary { op, lhs, rhs } = &e.kind else {
        return None;
    };
    let (a, b) = (int_value(lhs, look)?, int_value(rhs, look)?);
    Some(match op {
        BinOp::Lt => a < b,
        BinOp::Le => a <= b,
        BinOp::Gt => a > b,
        BinOp::Ge => a >= b,
        BinOp::Eq => a == b,
        BinOp::Ne => a != b,
        _ => return None,
    })
}

/// The value of integer arithmetic (`+ - * /` truncating, `>>`, `<<`, Fortran `ishft`,
/// casts to integer types) with the variables `look` gives; `None` for anything else or on
/// overflow.
fn int_value(e: &SrcExpr, look: &dyn Fn(&str) -> Option<i64>) -> Option<i64> {
    match &e.kind {
        SrcExprKind::Int(v) => Some(*v),
        SrcExprKind::Var(v) => look(v),
        SrcExprKind::Unary { op, operand } => {
            let x = int_value(operand, look)?;
            match op {
                UnOp::Neg => x.checked_neg(),
                UnOp::Plus => Some(x),
                _ => None,
            }
        }
        SrcExprKind::Cast { ty, expr } if ty.base == BaseType::Integer && ty.pointer == 0 => {
            int_value(expr, look)
        }
        SrcExprKind::Binary { op, lhs, rhs } => {
            let (a, b) = (int_value(lhs, look)?, int_value(rhs, look)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::Shr => u32::try_from(b).ok().and_then(|s| a.checked_shr(s)),
                BinOp::Shl => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)),
                _ => None,
            }
        }
        SrcExprKind::Call { name, args } if name.eq_ignore_ascii_case("ishft") => {
            let [x, s] = args.as_slice() else {
                return None;
            };
            let (x, s) = (int_value(x, look)?, int_value(s, look)?);
            if s >= 0 {
                u32::try_from(s).ok().and_then(|s| x.checked_shl(s))
            } else {
                u32::try_from(-s).ok().and_then(|s| x.checked_shr(s))
            }
        }
        _ => None,
    }
}
