//! Exit markers of the loops nested in a computation phase, accumulated without a call.
//!
//! A loop's exit marker runs once per execution of the loop: for a loop nested in a phase,
//! once per iteration of the loops around it. A call to `augur_loop_exit` costs ~15 ns (call,
//! per-rank state, hash), which inside a phase is charged to the program's compute (a
//! hand-written DGEMM with an inner trip of 144 measured ~15% more). So inside a phase a nested
//! loop's exit only updates four locals of the phase — exits, and the sum, min and max of the
//! iterations (`augur_nk_S`, `augur_ns_S`, `augur_nlo_S`, `augur_nhi_S`) — and every exit of
//! the phase first flushes them with one `augur_loop_exits(S, k, s, lo, hi)` per nested site,
//! which merges them into the same aggregate that as many `augur_loop_exit` calls would have
//! built: the trace is unchanged.
//!
//! The branch markers of such a phase (its IFs, `switch`/SELECT CASE arms, the `else` and
//! `default` arms the emitters add, a call through a pointer) likewise only increment one
//! local per (site, arm), `augur_bk_S_A`, flushed on the same paths with one
//! `augur_branches(S, A, count)` each, which merges `count` evaluations into the aggregate
//! `augur_branch` builds (a count of 0 records nothing).
//!
//! The calls of leaf procedures in such a phase (user procedures that, directly or through
//! calls, run no loop, no MPI call and no jump the front end does not follow:
//! [`crate::plan::not_leaves`]) likewise only increment one local per call site,
//! `augur_ck_S`, flushed on the same paths with one `augur_calls(S, count)` each, which adds
//! `count` to the call aggregate as many untimed enter/exit pairs would (so these calls are
//! counted, never timed, even with `AUGUR_CALL_TIMES`). A call that is not a leaf's, a call
//! through a function pointer (its markers dispatch on the pointer) and a call in a DO
//! CONCURRENT keep their enter/exit pair; a call in the phase loop's own header is outside
//! the phase.
//!
//! A phase accumulates only when every path out of it provably runs its exit markers (the
//! emitters already put the exit markers of the loops left, innermost first, before a
//! `return`, a `goto` out of loops and a Fortran `exit NAME`/`cycle NAME`); it keeps one call
//! per exit when anything in it may leave another way or run on several threads:
//! - a jump whose target is not found or that the front end does not follow (computed or
//!   assigned GOTO, arithmetic IF, I/O `err=`/`end=`/`eor=` labels, alternate returns, a
//!   `goto` read as the `break` of a loop built from goto, `longjmp`), a syntax error;
//! - a loop built from goto (the phase or a nested one: their exit markers sit at labels),
//!   library calls (their count may be any expression) — these keep their call;
//! - OpenMP directives anywhere in the nest or before the phase, or a phase inside a loop run
//!   by several threads (the locals would be shared);
//! - C: a `goto` from outside into the nest (it would skip the locals' initialisation; Fortran
//!   forbids jumping into a DO).
//!
//! Recursion cannot re-enter a phase while it runs: a phase calls no procedure that runs loops.
use std::collections::{BTreeMap, BTreeSet};

use frontend::{Language, Stmt, StmtKind};

use crate::plan::{pointer_call, user_proc, Role};
use crate::Ctx;

/// Which loop sites accumulate their exits, by phase.
#[derive(Debug, Clone, Default)]
pub(crate) struct Accum {
    /// Phase loop site → the nested sites whose exits it flushes (ascending).
    phases: BTreeMap<u32, Vec<u32>>,
    /// Every nested site that accumulates.
    nested: BTreeSet<u32>,
    /// Phase loop site → the branch sites nested in it whose arms it flushes (ascending).
    phase_branches: BTreeMap<u32, Vec<u32>>,
    /// Every branch site that accumulates.
    branches: BTreeSet<u32>,
    /// Phase loop site → the leaf call sites nested in it that it flushes (ascending).
    phase_calls: BTreeMap<u32, Vec<u32>>,
    /// Every call site that accumulates.
    calls: BTreeSet<u32>,
}

/// Language-specific answers [`Accum::build`] needs from an emitter.
pub(crate) trait Rules {
    /// The phase loop `s` may accumulate: a loop of its own syntax (not built from goto),
    /// without directives.
    fn phase(&self, ctx: &Ctx<'_>, s: &Stmt) -> bool;
    /// The marked statement `t` nested in an accumulating phase may accumulate its exits.
    fn nested(&self, ctx: &Ctx<'_>, t: &Stmt) -> bool;
    /// `t`, inside a phase, may leave it by a path whose exit markers are not written.
    fn escapes(&self, ctx: &Ctx<'_>, t: &Stmt) -> bool;
    /// The branch markers of `t`, nested in an accumulating phase, are written by the emitter
    /// (and so may accumulate).
    fn branch(&self, _ctx: &Ctx<'_>, _t: &Stmt) -> bool {
        true
    }
    /// The call markers of `t`, nested in an accumulating phase, may accumulate (their callees
    /// being leaves).
    fn call(&self, _ctx: &Ctx<'_>, _t: &Stmt) -> bool {
        true
    }
}

impl Accum {
    pub fn build(ctx: &Ctx<'_>, rules: &dyn Rules) -> Accum {
        let mut acc = Accum::default();
        let not_leaves = crate::plan::not_leaves(ctx.prog);
        for s in &ctx.prog.stmts {
            let Some((site, true)) = ctx.plan.loop_of(s.id) else {
                continue;
            };
            if !matches!(s.kind, StmtKind::Loop(_) | StmtKind::While(_)) {
                continue;
            }
            if !rules.phase(ctx, s) || ctx.in_threads(s.id) || ctx.threaded.contains(&s.id) {
                continue;
            }
            if has_directive(ctx.sources.text(s.span)) {
                continue;
            }
            let blocks: Vec<frontend::StmtId> =
                s.kind.blocks().into_iter().flatten().copied().collect();
            let nest = ctx.prog.walk(&blocks);
            let nest: Vec<&Stmt> = nest.iter().filter_map(|id| ctx.prog.stmt(*id)).collect();
            if nest
                .iter()
                .any(|t| rules.escapes(ctx, t) || common_escape(ctx, t))
            {
                continue;
            }
            let sites: Vec<u32> = nest
                .iter()
                .filter(|t| rules.nested(ctx, t))
                .filter_map(|t| ctx.plan.loop_of(t.id).map(|(site, _)| site))
                .collect::<BTreeSet<u32>>()
                .into_iter()
                .collect();
            let branches: Vec<u32> = nest
                .iter()
                .filter(|t| rules.branch(ctx, t))
                .flat_map(|t| ctx.plan.branches_of(t.id).into_values())
                .collect::<BTreeSet<u32>>()
                .into_iter()
                .collect();
            let calls: Vec<u32> = nest
                .iter()
                .filter(|t| rules.call(ctx, t) && pointer_call(ctx.prog, t).is_none())
                .flat_map(|t| {
                    ctx.plan.of_stmt(t.id).iter().filter_map(|m| match &m.role {
                        Role::Call { callee } => user_proc(ctx.prog, t.proc, callee)
                            .filter(|p| !not_leaves.contains(p))
                            .map(|_| m.site),
                        _ => None,
                    })
                })
                .collect::<BTreeSet<u32>>()
                .into_iter()
                .collect();
            // a single loop whose body branches (an IF around a call, every iteration) or
            // calls a leaf accumulates its branch and call markers too
            if sites.is_empty() && branches.is_empty() && calls.is_empty() {
                continue;
            }
            acc.nested.extend(sites.iter().copied());
            if !sites.is_empty() {
                acc.phases.insert(site, sites);
            }
            acc.branches.extend(branches.iter().copied());
            if !branches.is_empty() {
                acc.phase_branches.insert(site, branches);
            }
            acc.calls.extend(calls.iter().copied());
            if !calls.is_empty() {
                acc.phase_calls.insert(site, calls);
            }
        }
        acc
    }

    /// Whether loop `site` accumulates its exits in its phase's locals.
    pub fn is_nested(&self, site: u32) -> bool {
        self.nested.contains(&site)
    }

    /// The nested sites phase `site` flushes (empty when it flushes none).
    pub fn of_phase(&self, site: u32) -> &[u32] {
        self.phases.get(&site).map_or(&[], Vec::as_slice)
    }

    /// Whether branch `site` counts its arms in its phase's locals.
    pub fn is_branch(&self, site: u32) -> bool {
        self.branches.contains(&site)
    }

    /// The branch sites phase `site` flushes (empty when it flushes none).
    pub fn branches_of_phase(&self, site: u32) -> &[u32] {
        self.phase_branches.get(&site).map_or(&[], Vec::as_slice)
    }

    /// Whether call site `site` counts its calls in its phase's local.
    pub fn is_call(&self, site: u32) -> bool {
        self.calls.contains(&site)
    }

    /// The call sites phase `site` flushes (empty when it flushes none).
    pub fn calls_of_phase(&self, site: u32) -> &[u32] {
        self.phase_calls.get(&site).map_or(&[], Vec::as_slice)
    }
}

/// The arms a branch marker records: 0 taken, 1 not taken ([`crate::plan`]).
const ARMS: [u32; 2] = [0, 1];

/// An OpenMP (or any `#pragma`) directive in the text of a loop nest.
fn has_directive(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("pragma") || t.contains("$omp")
}

/// Ways out of a nest the front end does not follow, in either language.
fn common_escape(ctx: &Ctx<'_>, t: &Stmt) -> bool {
    let text = ctx.sources.text(t.span);
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    match &t.kind {
        StmtKind::Opaque(o) if o.reason == "goto" => ctx.goto_leaves(t).is_none(),
        StmtKind::Opaque(o) if o.reason == "arithmetic if" || o.reason == "syntax error" => true,
        // a `goto` the front end reads as the `break` of a loop built from goto
        StmtKind::Break | StmtKind::Continue => compact.starts_with("goto"),
        StmtKind::Loop(_) | StmtKind::While(_) | StmtKind::If(_) => false,
        StmtKind::Opaque(_) | StmtKind::Input(_) if ctx.prog.language == Language::Fortran => {
            ["err=", "end=", "eor="].iter().any(|k| compact.contains(k))
        }
        StmtKind::Call(_) if ctx.prog.language == Language::Fortran => alternate_return(&compact),
        _ => ctx.prog.language == Language::C && compact.contains("longjmp("),
    }
}

/// A Fortran call with an alternate-return label argument (`call f(x, *10)`).
fn alternate_return(compact: &str) -> bool {
    let b = compact.as_bytes();
    b.windows(3)
        .any(|w| matches!(w[0], b'(' | b',') && w[1] == b'*' && w[2].is_ascii_digit())
}

/// C: the declarations of a phase's accumulators, first in its opening block.
pub(crate) fn c_decls(acc: &Accum, phase: u32) -> String {
    let (sites, branches) = (acc.of_phase(phase), acc.branches_of_phase(phase));
    let mut c: String = sites
        .iter()
        .map(|s| {
            format!(
                "long long augur_nk_{s} = 0, augur_ns_{s} = 0, augur_nlo_{s} = 0x7fffffffffffffffLL, augur_nhi_{s} = 0; "
            )
        })
        .collect();
    for b in branches {
        c.push_str(&format!(
            "long long augur_bk_{b}_0 = 0, augur_bk_{b}_1 = 0; "
        ));
    }
    for k in acc.calls_of_phase(phase) {
        c.push_str(&format!("long long augur_ck_{k} = 0; "));
    }
    c
}

/// C: branch marker (site, arm) — a call, or an increment of its phase's local when the site
/// accumulates (no trailing space).
pub(crate) fn c_branch(acc: &Accum, site: u32, arm: u32) -> String {
    if acc.is_branch(site) {
        format!("augur_bk_{site}_{arm}++;")
    } else {
        format!("augur_branch({site}, {arm});")
    }
}

/// C: a nested loop's exit marker, accumulated.
pub(crate) fn c_add(site: u32) -> String {
    let s = site;
    format!("augur_nk_{s}++; augur_ns_{s} += augur_n_{s}; if (augur_n_{s} < augur_nlo_{s}) augur_nlo_{s} = augur_n_{s}; if (augur_n_{s} > augur_nhi_{s}) augur_nhi_{s} = augur_n_{s};")
}

/// C: a phase's flush of its nested sites and branches, before its own exit marker.
pub(crate) fn c_flush(acc: &Accum, phase: u32) -> String {
    let (sites, branches) = (acc.of_phase(phase), acc.branches_of_phase(phase));
    let mut c: String = sites
        .iter()
        .map(|s| {
            format!(
                "augur_loop_exits({s}, augur_nk_{s}, augur_ns_{s}, augur_nlo_{s}, augur_nhi_{s}); "
            )
        })
        .collect();
    for b in branches {
        for a in ARMS {
            c.push_str(&format!("augur_branches({b}, {a}, augur_bk_{b}_{a}); "));
        }
    }
    for k in acc.calls_of_phase(phase) {
        c.push_str(&format!("augur_calls({k}, augur_ck_{k}); "));
    }
    c
}

/// Fortran: the accumulator names of a nested site (declared `integer*8`).
pub(crate) fn f_names(site: u32) -> [String; 4] {
    ["nk", "ns", "nlo", "nhi"].map(|k| format!("augur_{k}_{site}"))
}

/// Fortran: the arm counters of an accumulating branch site (declared `integer*8`).
pub(crate) fn f_branch_names(site: u32) -> [String; 2] {
    ARMS.map(|a| format!("augur_bk_{site}_{a}"))
}

/// Fortran: the call counter of an accumulating call site (declared `integer*8`).
pub(crate) fn f_call_name(site: u32) -> String {
    format!("augur_ck_{site}")
}

/// Fortran: branch marker (site, arm) — a call, or an increment of its phase's local when the
/// site accumulates.
pub(crate) fn f_branch(acc: &Accum, site: u32, arm: u32) -> String {
    if acc.is_branch(site) {
        format!("augur_bk_{site}_{arm} = augur_bk_{site}_{arm} + 1")
    } else {
        format!("call augur_branch({site}, {arm})")
    }
}

/// Fortran: a phase's initialisation of its accumulators, just before it begins (the least
/// starts at the largest INTEGER*8).
pub(crate) fn f_init(acc: &Accum, phase: u32) -> Vec<String> {
    let (sites, branches) = (acc.of_phase(phase), acc.branches_of_phase(phase));
    let mut v: Vec<String> = sites
        .iter()
        .flat_map(|s| {
            [
                format!("augur_nk_{s} = 0"),
                format!("augur_ns_{s} = 0"),
                format!("augur_nlo_{s} = 9223372036854775807_8"),
                format!("augur_nhi_{s} = 0"),
            ]
        })
        .collect();
    v.extend(
        branches
            .iter()
            .flat_map(|&b| f_branch_names(b).map(|n| format!("{n} = 0"))),
    );
    v.extend(
        acc.calls_of_phase(phase)
            .iter()
            .map(|&k| format!("{} = 0", f_call_name(k))),
    );
    v
}

/// Fortran: a nested loop's exit marker, accumulated (IFs, not `min`/`max`: a program may
/// have variables of those names).
pub(crate) fn f_add(site: u32) -> Vec<String> {
    let s = site;
    vec![
        format!("augur_nk_{s} = augur_nk_{s} + 1"),
        format!("augur_ns_{s} = augur_ns_{s} + augur_n_{s}"),
        format!("if (augur_n_{s} .lt. augur_nlo_{s}) augur_nlo_{s} = augur_n_{s}"),
        format!("if (augur_n_{s} .gt. augur_nhi_{s}) augur_nhi_{s} = augur_n_{s}"),
    ]
}

/// Fortran: a phase's flush of its nested sites (arguments parenthesised: the locals'
/// addresses never escape, so they stay in registers in the nest).
pub(crate) fn f_flush(acc: &Accum, phase: u32) -> Vec<String> {
    let (sites, branches) = (acc.of_phase(phase), acc.branches_of_phase(phase));
    let mut v: Vec<String> = sites
        .iter()
        .map(|s| {
            format!("call augur_loop_exits8({s}, (augur_nk_{s}), (augur_ns_{s}), (augur_nlo_{s}), (augur_nhi_{s}))")
        })
        .collect();
    for &b in branches {
        for a in ARMS {
            v.push(format!(
                "call augur_branches8({b}, {a}, (augur_bk_{b}_{a}))"
            ));
        }
    }
    for &k in acc.calls_of_phase(phase) {
        v.push(format!("call augur_calls8({k}, (augur_ck_{k}))"));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternate_returns_are_label_arguments() {
        assert!(alternate_return("callf(x,*10)"));
        assert!(alternate_return("callf(*10,x)"));
        assert!(!alternate_return("a=b*2"));
        assert!(!alternate_return("callf(x,2*n)"));
    }

    #[test]
    fn directives_in_a_nest() {
        assert!(has_directive("for (;;) {\n#pragma omp simd\n for"));
        assert!(has_directive("do i = 1, n\n!$OMP PARALLEL\n"));
        assert!(!has_directive("do i = 1, n\n  a(i) = 0\nend do"));
    }
}
