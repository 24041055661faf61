//! The C emitter of the instrumented program.
//!
//! Shapes (S = site id; every inserted statement sits in braces so that a single-statement
//! body stays a single statement):
//! - loop: `{ long long augur_n_S = 0; [augur_phase_begin(S);] augur_loop_enter(S); for (...)
//!   { augur_n_S++; body } augur_loop_exit(S, augur_n_S); [augur_phase_end(S);] }` — the
//!   counter is a register increment, no call per iteration; inside a computation phase the
//!   (empty) `augur_loop_enter` call is left out, and the exit marker of a nested loop is no
//!   call either but updates the phase's locals, declared in the phase's opening block and
//!   flushed before its exit marker on every path out of it ([`crate::accum`]);
//! - branch: `augur_branch(S, 0);` first in the taken arm, `augur_branch(S, 1);` first in every
//!   later arm and in the `else` (an `else { ... }` is added when there is none); a `switch`
//!   lowered to an IF chain gets the same markers after each case's colon and `default:`
//!   (a `default: … break;` is added when there is none); inside a phase whose nested loops
//!   accumulate, each marker is `augur_bk_S_A++;` instead, flushed with the loops'
//!   ([`crate::accum`]);
//! - call through a function pointer: `{ if (p == f) { <branch markers> augur_call_enter(S); }
//!   else … p(x); if (p == f) augur_call_exit(S); else … }`;
//! - computing library call statement (an implicit loop, [`frontend::array_op`]): `{ long long
//!   augur_n_S = <its work>; [augur_phase_begin(S);] augur_loop_enter(S); qsort(...);
//!   augur_loop_exit(S, augur_n_S); [augur_phase_end(S);] }`;
//! - call statement: `{ augur_call_enter(S); f(x); augur_call_exit(S); }`; a call inside an
//!   expression: `(augur_call_enter(S), augur_call_exit(S), f(x))` (counted, not timed);
//!   inside a phase that accumulates, a call of a leaf procedure (no loop, no MPI) is `{
//!   augur_ck_S++; f(x); }` / `(augur_ck_S++, f(x))` instead, flushed with the loops'
//!   ([`crate::accum`]);
//! - MPI: `MPI_Send(` → `augur_MPI_Send(S, ` wherever the call stands;
//! - loop built from goto (`L: … if (c) goto L;`, `L: if (c) goto M; … goto L; M: …`): no
//!   braces (the label stays in its list): `long long augur_n_S = 0; [augur_phase_begin(S);]
//!   augur_loop_enter(S); L: augur_n_S++; …` (after the exit test for a pre-test loop), and
//!   the exit markers after the closing jump, or after `M:` when the loop jumps there;
//! - `return` inside marked loops, and `goto` out of them: `{ <exit markers of the loops left,
//!   innermost first> return ...; }`.
//!
//! - loop under directives (`#pragma` / `_Pragma("…")` right before it, [`crate::omp`]): the
//!   opening markers go before the first directive, which must stay next to its loop (`{ long
//!   long augur_n_S = 0; … ⏎#pragma omp parallel for … reduction(+:augur_n_S)⏎for …`); each
//!   OpenMP loop directive sums the counter as a reduction; exit and branch markers inside a
//!   loop run by several threads are `#pragma omp critical (augur)` blocks (the runtime's
//!   per-rank record is not thread-safe); a bare worksharing `#pragma omp for` (every thread of
//!   the enclosing region runs what is around it) gets `{ static long long augur_s_S; #pragma
//!   omp single { augur_s_S = 0; <enter> } long long augur_n_S = 0; <directives> for …;
//!   #pragma omp atomic augur_s_S += augur_n_S; #pragma omp barrier #pragma omp single {
//!   <exit with augur_s_S> } }` (one thread opens and closes; each counts its share).
//!
//! Key depths: a construct at nesting depth d wraps itself at 2d and its bodies at 2d+1.
use frontend::{FileId, Span, Stmt, StmtId, StmtKind};

use crate::accum::{self, Accum};
use crate::edit::Key;
use crate::omp;
use crate::plan::{callees, expr_calls, pointer_call, Role};
use crate::scan::{
    c_find_keyword, c_label_at, c_stmt_end, find_call, next_non_blank, skip_c_trivia,
    skip_c_trivia_parens,
};
use crate::{CodegenError, Ctx};

pub(crate) fn instrument(ctx: &mut Ctx<'_>) -> Result<(), CodegenError> {
    let prog = ctx.prog;
    for s in &prog.stmts {
        if matches!(s.kind, StmtKind::Loop(_) | StmtKind::While(_)) {
            let text = ctx.text(s.span.file)?;
            if omp::c_directives(text, s.span.start as usize).is_some_and(|d| d.threads) {
                ctx.threaded.insert(s.id);
            }
        }
    }
    ctx.accum = Accum::build(ctx, &Rules);
    for s in &prog.stmts {
        let d = ctx.depth(s.id);
        let marks = ctx.plan.of_stmt(s.id).to_vec();
        for m in &marks {
            match &m.role {
                Role::Comm
                | Role::MpiInit
                | Role::MpiFinalize
                | Role::MpiAbort
                | Role::CommSizeRank
                | Role::Request => mpi(ctx, s, m.site)?,
                Role::Loop { compute_phase } => loop_marks(ctx, s, m.site, *compute_phase, d)?,
                Role::Branch { .. } | Role::Call { .. } => {}
            }
        }
        if !ctx.plan.branches_of(s.id).is_empty() {
            branches(ctx, s, d)?;
        }
        calls(ctx, s, d)?;
        if matches!(s.kind, StmtKind::Return { .. }) {
            early_return(ctx, s, d)?;
        }
        if let StmtKind::Opaque(o) = &s.kind {
            if o.reason == "goto" && !ctx.enclosing_loops(s.id).is_empty() {
                match ctx.goto_leaves(s) {
                    Some(left) => exits_before(ctx, s, d, &left)?,
                    None => ctx.note(Some(s.span), "goto target not found: if it leaves a marked loop, the loop's exit marker is skipped"),
                }
            }
        }
    }
    include_header(ctx)
}

/// `MPI_Xxx(` → `augur_MPI_Xxx(S, ` (or `augur_MPI_Xxx(S)` for an empty argument list).
fn mpi(ctx: &mut Ctx<'_>, s: &Stmt, site: u32) -> Result<(), CodegenError> {
    let StmtKind::Mpi(m) = &s.kind else {
        return Ok(());
    };
    if !ctx.wrapped.c(&m.name) {
        if m.op.is_comm() {
            ctx.note(
                Some(s.span),
                format!("`{}` has no runtime wrapper: not traced", m.name),
            );
        }
        return Ok(());
    }
    let text = ctx.text(s.span.file)?;
    let Some((name_at, paren)) = find_call(
        text,
        s.span.start as usize,
        s.span.end as usize,
        &m.name,
        false,
    ) else {
        ctx.note(
            Some(s.span),
            format!(
                "`{}` not found in the statement's text (macro?): not traced",
                m.name
            ),
        );
        return Ok(());
    };
    let args = if next_non_blank(text, paren + 1) == Some(b')') {
        format!("{site}")
    } else {
        format!("{site}, ")
    };
    if ctx.in_threads(s.id) {
        ctx.note(
            Some(s.span),
            format!("`{}` inside an OpenMP parallel loop: the tracer's per-rank record is not thread-safe", m.name),
        );
    }
    let e = ctx.edits(s.span.file);
    e.insert(name_at, "augur_", Key::inline(0));
    e.insert(paren + 1, args, Key::inline(0));
    Ok(())
}

/// `code` (marker calls) made safe to run from several threads of a parallel loop at once:
/// one thread at a time records into the runtime's per-rank aggregates.
fn guarded(code: &str) -> String {
    format!("\n#pragma omp critical (augur)\n{{ {} }}\n", code.trim())
}

/// Where the body of a loop starts: `{`, `;` (empty body) or the single statement.
fn loop_body_start(text: &str, s: &Stmt) -> usize {
    match &s.kind {
        StmtKind::Loop(l) => skip_c_trivia_parens(text, l.header_span.end as usize),
        StmtKind::While(w) if w.post_test => skip_c_trivia(text, s.span.start as usize + 2),
        StmtKind::While(w) => skip_c_trivia_parens(text, w.header_span.end as usize),
        _ => s.span.start as usize,
    }
}

fn loop_marks(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    site: u32,
    phase: bool,
    d: i64,
) -> Result<(), CodegenError> {
    let file = s.span.file;
    let text = ctx.text(file)?;
    let start = s.span.start as usize;
    let end = c_stmt_end(text, s.span.end as usize);
    let body = loop_body_start(text, s);
    let body_char = text.as_bytes().get(body).copied();
    let enter = if ctx.in_phase(s.id) {
        String::new()
    } else {
        format!("augur_loop_enter({site}); ")
    };
    let (pb, pe) = if phase {
        (
            format!("augur_phase_begin({site}); "),
            format!(" augur_phase_end({site});"),
        )
    } else {
        Default::default()
    };
    if let StmtKind::Call(_) = &s.kind {
        return library_marks(ctx, s, site, (enter, pb, pe), d);
    }
    if let Some(head) = goto_head(text, s) {
        return goto_loop_marks(ctx, s, site, (enter, pb, pe), head, d);
    }
    let body_end = match &s.kind {
        // do { ... } while (c); — the body ends before `while`
        StmtKind::While(w) if w.post_test => w.end_span.end as usize,
        _ => end,
    };
    let dirs = omp::c_directives(text, start);
    let nested = ctx.in_threads(s.id);
    if let Some(dirs) = &dirs {
        omp_notes(ctx, s, dirs);
    }
    if nested && phase {
        ctx.note(
            Some(s.span),
            "a computation phase inside an OpenMP parallel loop: its timer is not thread-safe",
        );
    }
    let exit = exit_marker(ctx, site, phase);
    let decls = accum::c_decls(&ctx.accum, site);
    let e = ctx.edits(file);
    let (open, exit) = match &dirs {
        // a worksharing loop: every thread of the enclosing region runs what is around it; one
        // of them opens and closes, the counter is shared (static) and summed by a reduction
        Some(dirs) if dirs.worksharing => (
            format!("{{ static long long augur_s_{site};\n#pragma omp single\n{{ augur_s_{site} = 0; {pb}{enter}}}\nlong long augur_n_{site} = 0;\n"),
            format!("\n#pragma omp atomic\naugur_s_{site} += augur_n_{site};\n#pragma omp barrier\n#pragma omp single\n{{ {} }}\n", exit.replace(&format!(", augur_n_{site})"), &format!(", augur_s_{site})"))),
        ),
        // the markers go before the directives, which must stay right before their loop
        Some(_) => (
            format!("{{ long long augur_n_{site} = 0; {pb}{enter}\n"),
            if nested { guarded(&exit) } else { format!(" {exit}") },
        ),
        None => (
            format!("{{ long long augur_n_{site} = 0; {decls}{pb}{enter}"),
            if nested { guarded(&exit) } else { format!(" {exit}") },
        ),
    };
    e.insert(
        dirs.as_ref().map_or(start, |d| d.start),
        open,
        Key::before(2 * d),
    );
    // a counter the loop's threads share is summed by a reduction (a worksharing loop's is
    // each thread's own, added up after it)
    let clauses = dirs.as_ref().filter(|d| !d.worksharing);
    for &at in clauses.map_or(&[][..], |d| &d.clause_at[..]) {
        e.insert(at, format!(" reduction(+:augur_n_{site})"), Key::inline(0));
    }
    e.insert(end, format!("{exit} }}"), Key::after(2 * d));
    let inc = format!("augur_n_{site}++;");
    match body_char {
        Some(b'{') => e.insert(body + 1, format!(" {inc} "), Key::before(2 * d + 1)),
        Some(b';') => e.replace(body, body + 1, format!("{{ {inc} }}"), Key::replace()),
        Some(_) => {
            e.insert(body, format!("{{ {inc} "), Key::before(2 * d + 1));
            e.insert(body_end, " }", Key::after(2 * d + 1));
        }
        None => ctx.note(Some(s.span), "loop body not found: iterations not counted"),
    }
    Ok(())
}

/// The exit marker of loop `site` (and of its phase): a call, or in a phase whose nested
/// loops accumulate ([`accum`]), the phase's flush first and a nested loop's local updates.
fn exit_marker(ctx: &Ctx<'_>, site: u32, phase: bool) -> String {
    if ctx.accum.is_nested(site) {
        return accum::c_add(site);
    }
    let mut c = accum::c_flush(&ctx.accum, site);
    c.push_str(&format!("augur_loop_exit({site}, augur_n_{site});"));
    if phase {
        c.push_str(&format!(" augur_phase_end({site});"));
    }
    c
}

/// The C answers of [`Accum::build`].
struct Rules;

impl accum::Rules for Rules {
    fn phase(&self, ctx: &Ctx<'_>, s: &Stmt) -> bool {
        let Ok(text) = ctx.text(s.span.file) else {
            return false;
        };
        goto_head(text, s).is_none()
            && omp::c_directives(text, s.span.start as usize).is_none()
            && !jumped_into(ctx, s)
    }

    fn nested(&self, ctx: &Ctx<'_>, t: &Stmt) -> bool {
        let loop_ = matches!(t.kind, StmtKind::Loop(_) | StmtKind::While(_));
        loop_
            && ctx
                .text(t.span.file)
                .is_ok_and(|text| goto_head(text, t).is_none())
    }

    fn escapes(&self, _ctx: &Ctx<'_>, _t: &Stmt) -> bool {
        false
    }
}

/// Whether a `goto` from outside loop `s` may jump into it (past the declarations of its
/// opening block, which would leave its locals unset).
fn jumped_into(ctx: &Ctx<'_>, s: &Stmt) -> bool {
    let inside = |t: &Stmt| {
        t.span.file == s.span.file && t.span.start >= s.span.start && t.span.end <= s.span.end
    };
    ctx.prog.stmts.iter().any(|g| {
        let goto = match &g.kind {
            StmtKind::Opaque(o) => o.reason == "goto",
            StmtKind::Break | StmtKind::Continue => {
                ctx.sources.text(g.span).trim_start().starts_with("goto")
            }
            _ => false,
        };
        goto && g.proc == s.proc
            && !inside(g)
            && ctx.goto_target(g).is_none_or(|at| {
                g.span.file == s.span.file && (s.span.start..s.span.end).contains(&at)
            })
    })
}

/// What the instrumented program cannot count exactly under some OpenMP directives.
fn omp_notes(ctx: &mut Ctx<'_>, s: &Stmt, dirs: &omp::Directives) {
    if dirs.collapse {
        ctx.note(
            Some(s.span),
            "OpenMP `collapse`: the markers of the collapsed inner loops break the loop nest the directive needs; remove `collapse` to profile",
        );
    }
    if dirs.region {
        ctx.note(
            Some(s.span),
            "a loop that is a whole OpenMP `parallel` region runs once per thread: its iterations are counted once per thread",
        );
    }
}

/// The markers of a computing library call statement (an implicit loop): its work, from the
/// arguments as they are before the call, is the loop's count.
fn library_marks(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    site: u32,
    (enter, pb, pe): (String, String, String),
    d: i64,
) -> Result<(), CodegenError> {
    let file = s.span.file;
    let text = ctx.text(file)?;
    let end = c_stmt_end(text, s.span.end as usize);
    let work = frontend::array_op(ctx.prog, s)
        .filter(|op| op.kind == frontend::ArrayOpKind::Library)
        .and_then(|op| {
            op.calls
                .iter()
                .map(|c| crate::library::work_text(ctx.prog, ctx.sources, c))
                .collect::<Option<Vec<String>>>()
        })
        .map(|w| w.join(" + "));
    if work.is_none() {
        ctx.note(
            Some(s.span),
            "library call whose sizes have side effects or span lines: its work is not counted (1 per call)",
        );
    }
    let work = work.unwrap_or_else(|| "1".into());
    let e = ctx.edits(file);
    e.insert(
        s.span.start as usize,
        format!("{{ long long augur_n_{site} = {work}; {pb}{enter}"),
        Key::before(2 * d),
    );
    e.insert(
        end,
        format!(" augur_loop_exit({site}, augur_n_{site});{pe} }}"),
        Key::after(2 * d),
    );
    Ok(())
}

/// For a `While` built from goto (its span starts with its label): where an iteration
/// starts (past the label of a post-test loop, past the exit test of a pre-test one).
fn goto_head(text: &str, s: &Stmt) -> Option<usize> {
    let StmtKind::While(w) = &s.kind else {
        return None;
    };
    let (_, past) = c_label_at(text, s.span.start as usize)?;
    if skip_c_trivia(text, s.span.start as usize) != s.span.start as usize {
        return None;
    }
    Some(if w.post_test {
        past
    } else {
        w.header_span.end as usize
    })
}

/// The markers of a loop built from goto (see the module doc).
fn goto_loop_marks(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    site: u32,
    (enter, pb, pe): (String, String, String),
    head: usize,
    d: i64,
) -> Result<(), CodegenError> {
    let file = s.span.file;
    let text = ctx.text(file)?;
    let end = c_stmt_end(text, s.span.end as usize);
    let body = text.get(s.span.start as usize..end).unwrap_or("");
    // the statement after the loop, when the loop jumps to its label
    let exit_at = c_label_at(text, end)
        .filter(|(name, _)| jumps_to(body, name))
        .map(|(_, past)| past);
    let e = ctx.edits(file);
    e.insert(
        s.span.start as usize,
        format!("long long augur_n_{site} = 0; {pb}{enter}"),
        Key::before(2 * d),
    );
    e.insert(head, format!(" augur_n_{site}++;"), Key::before(2 * d + 1));
    let exit = format!(" augur_loop_exit({site}, augur_n_{site});{pe}");
    match exit_at {
        Some(at) => e.insert(at, exit, Key::after(2 * d)),
        None => e.insert(end, exit, Key::after(2 * d)),
    }
    Ok(())
}

/// Whether C text holds `goto name` (as tokens).
fn jumps_to(text: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices("goto").any(|(i, _)| {
        let left = text[..i].chars().next_back().is_none_or(|c| !ident(c));
        let rest = text[i + 4..].trim_start();
        left && rest.starts_with(name) && !rest[name.len()..].starts_with(ident)
    })
}

/// Puts `code` first in a body starting at `pos` (`{`, `;` or a single statement ending at
/// `end`), bracing a single statement.
fn into_body(
    ctx: &mut Ctx<'_>,
    file: FileId,
    pos: usize,
    end: Option<usize>,
    code: &str,
    key: i64,
) -> Result<(), CodegenError> {
    let text = ctx.text(file)?;
    let c = text.as_bytes().get(pos).copied();
    let e = ctx.edits(file);
    match (c, end) {
        (Some(b'{'), _) => e.insert(pos + 1, format!(" {code}"), Key::before(key)),
        (Some(b';'), _) => e.replace(pos, pos + 1, format!("{{ {code}}}"), Key::replace()),
        (Some(_), Some(end)) => {
            e.insert(pos, format!("{{ {code}"), Key::before(key));
            e.insert(end, " }", Key::after(key));
        }
        _ => ctx.note(
            None,
            format!("branch body not found at byte {pos}: `{code}` left out"),
        ),
    }
    Ok(())
}

/// End of the last statement of a block (past its `;`).
fn block_end(ctx: &Ctx<'_>, text: &str, block: &[StmtId]) -> Option<usize> {
    let last = ctx.prog.stmt(*block.last()?)?;
    Some(c_stmt_end(text, last.span.end as usize))
}

fn branches(ctx: &mut Ctx<'_>, s: &Stmt, d: i64) -> Result<(), CodegenError> {
    let StmtKind::If(i) = &s.kind else {
        return Ok(());
    };
    if ctx.is_switch(i) {
        let opaque = i.arms.iter().any(|a| {
            matches!(&a.cond.kind, frontend::SrcExprKind::Opaque { text, .. } if text.starts_with("switch"))
        });
        if opaque {
            ctx.note(
                Some(s.span),
                "switch: which case runs is not recorded (not every case ends with break: no branch markers in its body)",
            );
            return Ok(());
        }
        return switch_branches(ctx, s, i, d);
    }
    let marks = ctx.plan.branches_of(s.id);
    let file = s.span.file;
    let key = 2 * d + 1;
    let text = ctx.text(file)?;
    let threads = ctx.in_threads(s.id);
    let guard = |c: String| {
        if threads && !c.is_empty() {
            guarded(&c)
        } else {
            c
        }
    };
    let acc = &ctx.accum;
    let code_for = |j: u32| -> String {
        let mut c: String = marks
            .range(..j)
            .map(|(_, site)| format!("{} ", accum::c_branch(acc, *site, 1)))
            .collect();
        if let Some(site) = marks.get(&j) {
            c.push_str(&format!("{} ", accum::c_branch(acc, *site, 0)));
        }
        guard(c)
    };
    let mut plan_edits = Vec::new();
    for (j, arm) in i.arms.iter().enumerate() {
        let code = code_for(u32::try_from(j).unwrap_or(u32::MAX));
        if code.is_empty() {
            continue;
        }
        let pos = skip_c_trivia_parens(text, arm.cond.span.end as usize);
        plan_edits.push((pos, block_end(ctx, text, &arm.body), code));
    }
    let rest: String = guard(
        marks
            .values()
            .map(|site| format!("{} ", accum::c_branch(acc, *site, 1)))
            .collect(),
    );
    let last_end = i.arms.last().map(|a| {
        block_end(ctx, text, &a.body)
            .unwrap_or_else(|| skip_c_trivia_parens(text, a.cond.span.end as usize))
    });
    let if_end = c_stmt_end(text, s.span.end as usize);
    match (&i.else_body, last_end) {
        (Some(body), Some(from)) => match c_find_keyword(text, from, if_end, "else") {
            Some(at) => {
                let pos = skip_c_trivia(text, at + 4);
                plan_edits.push((pos, block_end(ctx, text, body), rest));
            }
            None => ctx.note(
                Some(s.span),
                "`else` not found: its branch marker is left out",
            ),
        },
        _ => {
            let e = ctx.edits(file);
            e.insert(if_end, format!(" else {{ {rest}}}"), Key::after(2 * d));
        }
    }
    for (pos, end, code) in plan_edits {
        into_body(ctx, file, pos, end, &code, key)?;
    }
    Ok(())
}

/// A `switch` lowered to an IF chain (every case ends with `break`): each case's markers
/// right after its label's colon, as an `if` arm's (`case 2: augur_branch(A, 1);
/// augur_branch(B, 0); …`), `default:` gets every arm's not-taken marker, and a switch
/// without one gets `default: <those> break;` before its closing brace.
fn switch_branches(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    i: &frontend::If,
    d: i64,
) -> Result<(), CodegenError> {
    let marks = ctx.plan.branches_of(s.id);
    if marks.is_empty() {
        return Ok(());
    }
    let file = s.span.file;
    let text = ctx.text(file)?;
    let threads = ctx.in_threads(s.id);
    let guard = |c: String| {
        if threads && !c.is_empty() {
            guarded(&c)
        } else {
            c
        }
    };
    let acc = &ctx.accum;
    let code_for = |j: u32| -> String {
        let mut c: String = marks
            .range(..j)
            .map(|(_, site)| format!(" {}", accum::c_branch(acc, *site, 1)))
            .collect();
        if let Some(site) = marks.get(&j) {
            c.push_str(&format!(" {}", accum::c_branch(acc, *site, 0)));
        }
        guard(c)
    };
    let rest: String = guard(
        marks
            .values()
            .map(|site| format!(" {}", accum::c_branch(acc, *site, 1)))
            .collect(),
    );
    let colon = |end: u32| {
        let at = skip_c_trivia(text, end as usize);
        (text.as_bytes().get(at) == Some(&b':')).then_some(at + 1)
    };
    let mut edits = Vec::new();
    let mut missing = false;
    for (j, arm) in i.arms.iter().enumerate() {
        let code = code_for(u32::try_from(j).unwrap_or(u32::MAX));
        match colon(arm.cond.span.end) {
            Some(at) => edits.push((at, code)),
            None => missing = true,
        }
    }
    // only a `default:` (lowered as an always-true arm) leaves no path past the cases
    let only_default = i.arms.len() == 1
        && matches!(i.arms[0].cond.kind, frontend::SrcExprKind::Int(1))
        && i.else_body.is_none();
    match i.switch.as_ref().and_then(|w| w.default) {
        Some(head) => match colon(head.end) {
            Some(at) => edits.push((at, rest)),
            None => missing = true,
        },
        None if !only_default => {
            let close = i.end_span.start as usize;
            if text.as_bytes().get(close) == Some(&b'}') {
                edits.push((close, format!("default:{rest} break; ")));
            } else {
                missing = true;
            }
        }
        None => {}
    }
    if missing {
        ctx.note(
            Some(s.span),
            "switch: a case label's colon not found (macro?): which case runs is not recorded",
        );
        return Ok(());
    }
    let e = ctx.edits(file);
    for (at, code) in edits {
        e.insert(at, code, Key::before(2 * d + 1));
    }
    Ok(())
}

fn calls(ctx: &mut Ctx<'_>, s: &Stmt, d: i64) -> Result<(), CodegenError> {
    let sites: Vec<(u32, String)> = ctx
        .plan
        .of_stmt(s.id)
        .iter()
        .filter_map(|m| match &m.role {
            Role::Call { callee } => Some((m.site, callee.clone())),
            _ => None,
        })
        .collect();
    if sites.is_empty() {
        return Ok(());
    }
    if ctx.in_threads(s.id) {
        ctx.note(
            Some(s.span),
            "a call inside an OpenMP parallel loop: its timer is not thread-safe",
        );
    }
    if let Some(pc) = pointer_call(ctx.prog, s) {
        return pointer_marks(ctx, s, d, &pc.var, &sites);
    }
    // the call statement's own callee first, then calls inside expressions (plan order)
    let stmt_call = matches!(&s.kind, StmtKind::Call(_))
        && callees(ctx.prog, s).len() > expr_calls(ctx.prog, s).len();
    let mut exprs: Vec<Span> = expr_calls(ctx.prog, s)
        .into_iter()
        .map(|(_, e)| e.span)
        .collect();
    exprs.reverse();
    let file = s.span.file;
    let text = ctx.text(file)?;
    let end = c_stmt_end(text, s.span.end as usize);
    for (k, (site, callee)) in sites.into_iter().enumerate() {
        // a leaf's call in an accumulating phase only counts in the phase's local
        let counted = ctx.accum.is_call(site);
        if k == 0 && stmt_call {
            let (enter, exit) = if counted {
                (format!("{{ augur_ck_{site}++; "), " }".to_string())
            } else {
                (
                    format!("{{ augur_call_enter({site}); "),
                    format!(" augur_call_exit({site}); }}"),
                )
            };
            let e = ctx.edits(file);
            e.insert(s.span.start as usize, enter, Key::before(2 * d));
            e.insert(end, exit, Key::after(2 * d));
        } else if let Some(sp) = exprs.pop() {
            let enter = if counted {
                format!("(augur_ck_{site}++, ")
            } else {
                format!("(augur_call_enter({site}), augur_call_exit({site}), ")
            };
            let e = ctx.edits(sp.file);
            e.insert(sp.start as usize, enter, Key::inline(-1));
            e.insert(sp.end as usize, ")", Key::inline(1));
        } else {
            ctx.note(
                Some(s.span),
                format!("call of `{callee}` not found in the statement: not counted"),
            );
        }
    }
    Ok(())
}

/// A call through a pointer `p` with targets `f0 … fk` (call sites in that order, branch
/// arms 0 … k-1): `{ if (p == f0) { augur_branch(B0, 0); augur_call_enter(C0); } else …
/// else { augur_branch(B0, 1); … augur_call_enter(Ck); } p(x); if (p == f0)
/// augur_call_exit(C0); else … augur_call_exit(Ck); }`.
fn pointer_marks(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    d: i64,
    var: &str,
    calls: &[(u32, String)],
) -> Result<(), CodegenError> {
    let branches = ctx.plan.branches_of(s.id);
    let mut enter = String::from("{ ");
    let mut exit = String::from(" ");
    for (k, (site, callee)) in calls.iter().enumerate() {
        let k = u32::try_from(k).unwrap_or(u32::MAX);
        let mut code: String = branches
            .range(..k)
            .map(|(_, b)| format!("{} ", accum::c_branch(&ctx.accum, *b, 1)))
            .collect();
        if let Some(b) = branches.get(&k) {
            code.push_str(&format!("{} ", accum::c_branch(&ctx.accum, *b, 0)));
        }
        if k + 1 < calls.len() as u32 {
            enter.push_str(&format!(
                "if ({var} == {callee}) {{ {code}augur_call_enter({site}); }} else "
            ));
            exit.push_str(&format!(
                "if ({var} == {callee}) augur_call_exit({site}); else "
            ));
        } else {
            enter.push_str(&format!("{{ {code}augur_call_enter({site}); }} "));
            exit.push_str(&format!("augur_call_exit({site}); }}"));
        }
    }
    let file = s.span.file;
    let text = ctx.text(file)?;
    let end = c_stmt_end(text, s.span.end as usize);
    let e = ctx.edits(file);
    e.insert(s.span.start as usize, enter, Key::before(2 * d));
    e.insert(end, exit, Key::after(2 * d));
    Ok(())
}

/// Exit markers of every enclosing marked loop before a `return`.
fn early_return(ctx: &mut Ctx<'_>, s: &Stmt, d: i64) -> Result<(), CodegenError> {
    let loops = ctx.enclosing_loops(s.id);
    exits_before(ctx, s, d, &loops)
}

/// `{ <exit markers of loops, innermost first> stmt }`.
fn exits_before(
    ctx: &mut Ctx<'_>,
    s: &Stmt,
    d: i64,
    loops: &[(u32, bool)],
) -> Result<(), CodegenError> {
    if loops.is_empty() {
        return Ok(());
    }
    let mut code = String::new();
    for &(site, phase) in loops {
        code.push_str(&exit_marker(ctx, site, phase));
        code.push(' ');
    }
    let text = ctx.text(s.span.file)?;
    let end = c_stmt_end(text, s.span.end as usize);
    let e = ctx.edits(s.span.file);
    e.insert(
        s.span.start as usize,
        format!("{{ {code}"),
        Key::before(2 * d),
    );
    e.insert(end, " }", Key::after(2 * d));
    Ok(())
}

/// `#include "augur.h"` after the main file's last leading `#include`, and first in every other
/// edited file.
fn include_header(ctx: &mut Ctx<'_>) -> Result<(), CodegenError> {
    let main = ctx.prog.main_file;
    let first_proc = ctx
        .prog
        .procs
        .iter()
        .filter(|p| p.span.file == main)
        .map(|p| p.span.start as usize)
        .min();
    let text = ctx.text(main)?;
    let limit = first_proc.unwrap_or(text.len());
    let mut at = 0;
    let mut off = 0;
    for line in text.split_inclusive('\n') {
        if off >= limit {
            break;
        }
        let t = line.trim_start();
        if t.starts_with('#') && t[1..].trim_start().starts_with("include") {
            at = off + line.len();
        }
        off += line.len();
    }
    let prefix = if at > 0 && !text[..at].ends_with('\n') {
        "\n"
    } else {
        ""
    };
    ctx.edits(main).insert(
        at,
        format!("{prefix}#include \"augur.h\"\n"),
        Key::before(-10),
    );
    let others: Vec<FileId> = ctx.edits.keys().copied().filter(|f| *f != main).collect();
    for f in others {
        ctx.edits(f)
            .insert(0, "#include \"augur.h\"\n", Key::before(-10));
    }
    Ok(())
}
