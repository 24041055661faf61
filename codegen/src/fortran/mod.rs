//! The Fortran emitter (fixed and free form) of the instrumented program.
//!
//! Markers are whole statements on their own lines (`call augur_loop_enter(S)`):
//! - RETURN, a GOTO out of marked loops, and `exit NAME` / `cycle NAME` leaving inner loops,
//!   first run the exit markers of the loops left;
//! - a loop built from GOTO that is left by jumps to the label of the statement after it
//!   (`20 IF (c) GOTO 30 … GOTO 20` / `30 …`) has its exit markers before that statement,
//!   which take its label;
//! - a statement's opening lines go before its first line (its label moves onto the first of
//!   them, so a GOTO to it still runs them), its closing lines after its last line; a line of
//!   several statements (`u = 0d0; unew = 0d0`) is split at the `;` before or after a statement
//!   that has such lines, so that they wrap that statement alone;
//! - a logical IF whose body needs lines around it (or whose branch is marked) becomes a block
//!   IF: `IF (c) stmt` → `IF (c) THEN / markers / stmt / ELSE / marker / END IF`; in a phase
//!   whose nested loops accumulate, a branch marker is `augur_bk_S_A = augur_bk_S_A + 1`,
//!   flushed with the loops' ([`crate::accum`]);
//! - a call of a user procedure gets `call augur_call_enter(S)` / `call augur_call_exit(S)`
//!   around its statement; inside a phase that accumulates, a call of a leaf procedure (no
//!   loop, no MPI) is one `augur_ck_S = augur_ck_S + 1` before it instead, flushed with the
//!   loops' ([`crate::accum`]);
//! - loops count iterations in a fresh `integer*8 augur_n_S` (declared before the procedure's
//!   first executable statement): a counted DO without early exits gets its trip count computed
//!   before the DO from its bounds, like Fortran itself (no per-iteration work); other loops
//!   increment it first in the body. It is reported after the loop as
//!   `call augur_loop_exit8(S, (augur_n_S))` (parenthesised: its address never escapes);
//!   inside a computation phase a nested loop's exit marker only updates the phase's
//!   `integer*8` locals (declared with the counters, set just before the phase begins), which
//!   the phase's exit markers flush first ([`crate::accum`]);
//! - an inserted line that would pass column 72 (fixed) or 132 (free) continues after a `, `;
//! - labelled DO nests sharing one terminator (`DO 20 ... DO 20 ... 20 CONTINUE`): the inner
//!   loop keeps the label, each outer loop gets a fresh one closed by its own `CONTINUE` after
//!   the inner loop's exit marker, so every loop's exit marker runs once per loop execution,
//!   innermost first; a terminator that is not `CONTINUE` gets fresh labels for every loop;
//! - a Fortran array-syntax statement with a loop mark (an implicit loop) gets the loop's
//!   markers around it, its count being the number of elements it visits, `size(section)`
//!   (taken after the statement when the target is a whole array, which the assignment may
//!   allocate);
//! - a DO under `!$omp` directives: its opening lines go before the first directive, its
//!   closing lines after `!$omp end …`; counters get `reduction`/`private` clauses on
//!   continuation lines and markers inside a parallel loop run in `!$omp critical (augur)`
//!   ([`openmp`]);
//! - `call mpi_send(` → `call augur_mpi_send(S, `, split onto a continuation line when the line
//!   would pass column 72 (fixed) or 132 (free).
mod branch;
mod loops;
mod openmp;

use std::collections::{BTreeMap, BTreeSet};

use frontend::{FileId, ProcId, SourceFile, Stmt, StmtId, StmtKind};

use crate::accum::{self, Accum};
use crate::edit::Key;
use crate::plan::{callees, Role};

use crate::scan::{find_call, numbers};
use crate::{CodegenError, Ctx, FortranForm};

/// Lines to put around statements, collected before any edit is made.
#[derive(Default)]
struct Lines {
    before: BTreeMap<StmtId, Vec<String>>,
    after: BTreeMap<StmtId, Vec<String>>,
    /// Statements whose loop counter body increment is placed (loop → site).
    counters: BTreeMap<ProcId, BTreeSet<u32>>,
}

struct F<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    form: FortranForm,
    /// The source files whose procedures this pass instruments (all when `None`): a program of
    /// fixed- and free-form files takes one pass per form.
    only: Option<&'c BTreeSet<FileId>>,
    lines: Lines,
    /// Logical IFs turned into block IFs: if statement → (gap start, body start).
    converted: BTreeMap<StmtId, (usize, usize)>,
    fresh: BTreeMap<FileId, u64>,
    used: BTreeMap<FileId, BTreeSet<u64>>,
    /// Loops under `!$omp` directives (their markers go outside them).
    omp: BTreeMap<StmtId, openmp::Omp>,
    /// Lines of several statements (`a = 0; b = 0`) split where a statement with lines of its
    /// own starts or ends: file → `;` offset → (next statement's start, its indentation).
    splits: BTreeMap<FileId, BTreeMap<usize, (usize, String)>>,
}

/// Instruments the procedures of the files in `only` (every procedure when `None`), all
/// written in `form`.
pub(crate) fn instrument(
    ctx: &mut Ctx<'_>,
    form: FortranForm,
    only: Option<&BTreeSet<FileId>>,
) -> Result<(), CodegenError> {
    let mut f = F {
        ctx,
        form,
        only,
        lines: Lines::default(),
        converted: BTreeMap::new(),
        fresh: BTreeMap::new(),
        used: BTreeMap::new(),
        omp: BTreeMap::new(),
        splits: BTreeMap::new(),
    };
    f.find_directives()?;
    let acc = Accum::build(&*f.ctx, &f);
    f.ctx.accum = acc;
    f.collect()?;
    f.loop_ends()?;
    f.clauses()?;
    f.single_worksharing();
    f.convert_logical_ifs()?;
    f.branches()?;
    f.materialize()?;
    f.declarations()?;
    f.apply_splits();
    Ok(())
}

/// Whether a pass over the procedures of the files in `only` (all when `None`) instruments
/// the statements of procedure `proc`.
fn in_files(prog: &frontend::Program, only: Option<&BTreeSet<FileId>>, proc: ProcId) -> bool {
    match only {
        None => true,
        Some(files) => prog
            .proc(proc)
            .is_some_and(|p| files.contains(&p.span.file)),
    }
}

/// Marker lines made safe to run from several threads of a parallel loop at once (`threads`):
/// one thread at a time records into the runtime's per-rank aggregates.
fn guarded(lines: Vec<String>, threads: bool) -> Vec<String> {
    if !threads || lines.is_empty() {
        return lines;
    }
    let mut v = vec!["!$omp critical (augur)".to_string()];
    v.extend(lines);
    v.push("!$omp end critical (augur)".to_string());
    v
}

/// The statement text of a line without its label: fixed form from column 7 (column 6 is the
/// continuation mark), free form after leading digits.
fn code_of(line: &str, form: FortranForm) -> &str {
    match form {
        FortranForm::Fixed => line.get(6..).unwrap_or(""),
        FortranForm::Free => line
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit()),
    }
}

/// `indent` + `code` + newline, continued on more lines after a `, ` (else at a blank) where it
/// would pass column 72 (fixed form: `&` in column 6) or 132 (free form: a trailing `&`).
/// `code` is inserted code (no strings, no comments).
fn line(form: FortranForm, indent: &str, code: &str) -> String {
    let (limit, mark) = match form {
        FortranForm::Fixed => (72, 0),
        FortranForm::Free => (132, 2),
    };
    let mut out = String::new();
    let mut line = format!("{indent}{code}");
    while line.len() > limit {
        let head = line.get(..limit - mark).unwrap_or("");
        let cut = head
            .rfind(", ")
            .map(|k| k + 1)
            .filter(|&k| k > indent.len())
            .or_else(|| head.rfind(' ').filter(|&k| k > indent.len()));
        let Some(cut) = cut else { break };
        let (head, tail) = line.split_at(cut);
        let tail = tail.trim_start();
        line = match form {
            FortranForm::Fixed => {
                out.push_str(&format!("{head}\n"));
                format!("     &{}  {tail}", indent.get(6..).unwrap_or(""))
            }
            FortranForm::Free => {
                out.push_str(&format!("{head} &\n"));
                format!("{indent}    {tail}")
            }
        };
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// In `prefix`, a line's text up to where a statement starts: the offset of the `;` ending a
/// statement before it on the line (outside strings; fixed form: past column 6), if any.
fn separator_before(prefix: &str, form: FortranForm) -> Option<usize> {
    let from = match form {
        FortranForm::Fixed => 6,
        FortranForm::Free => 0,
    };
    let mut quote = None;
    let mut last = None;
    for (i, c) in prefix.char_indices().skip_while(|(i, _)| *i < from) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '!') => return None,
            (None, ';') => last = Some(i),
            _ => {}
        }
    }
    last.filter(|&i| {
        prefix
            .get(i..)
            .is_some_and(|t| t.chars().all(|c| c == ';' || c == ' ' || c == '\t'))
    })
}

/// In `rest`, a line's text after where a statement ends: the offset of the `;` after it and
/// of the next statement's start, when another statement follows on the line.
fn separator_after(rest: &str) -> Option<(usize, usize)> {
    let semi = rest.find(|c: char| c != ' ' && c != '\t')?;
    if !rest[semi..].starts_with(';') {
        return None;
    }
    let next = semi + rest[semi..].find(|c: char| !matches!(c, ';' | ' ' | '\t'))?;
    let more = !rest[next..].starts_with(['!', '\n', '\r']);
    more.then_some((semi, next))
}

/// A whole-line comment (fixed form: `c C * ! d D` in column 1; both forms: first non-blank `!`).
fn is_comment(line: &str, form: FortranForm) -> bool {
    let fixed = form == FortranForm::Fixed && line.starts_with(['c', 'C', '*', 'd', 'D']);
    fixed || line.trim_start().starts_with('!') || line.trim().is_empty()
}

impl<'a> F<'_, 'a> {
    /// The exit marker lines of loop `site` (and of its phase): a call, or in a phase whose
    /// nested loops accumulate ([`accum`]), the phase's flush first and a nested loop's
    /// local updates.
    fn exit_lines(&self, site: u32, phase: bool) -> Vec<String> {
        if self.ctx.accum.is_nested(site) {
            return accum::f_add(site);
        }
        let acc = &self.ctx.accum;
        let mut v = accum::f_flush(acc, site);
        v.push(format!("call augur_loop_exit8({site}, (augur_n_{site}))"));
        if phase {
            v.push(format!("call augur_phase_end({site})"));
        }
        v
    }

    /// Where the opening lines of `s` go when another statement ends before it on its first
    /// line (`a = 0; b = 0`): at its own start, on a line of its own once the line is split
    /// there. `None`: `s` starts its line.
    fn split_before(&mut self, s: &Stmt) -> Result<Option<usize>, CodegenError> {
        let f = self.file(s.span.file)?;
        let line = self.ctx.sources.first_line(s.span);
        let ls = f.line_start(line) as usize;
        let start = s.span.start as usize;
        let Some(semi) = f
            .text
            .get(ls..start)
            .and_then(|p| separator_before(p, self.form))
        else {
            return Ok(None);
        };
        let indent = self.indent_of(f.line_text(line));
        self.splits
            .entry(s.span.file)
            .or_default()
            .insert(ls + semi, (start, indent));
        Ok(Some(start))
    }

    /// Where the closing lines of a statement or header spanning `span` go when another
    /// statement follows it on its last line (`a = 0; b = 0`): the next statement's start, on
    /// a line of its own once the line is split there. `None`: `span` ends its line.
    fn split_after(&mut self, span: frontend::Span) -> Result<Option<usize>, CodegenError> {
        let f = self.file(span.file)?;
        let line = self.ctx.sources.last_line(span);
        let end = span.end as usize;
        let line_end = f.line_start(line + 1) as usize;
        let Some((semi, next)) = f.text.get(end..line_end.max(end)).and_then(separator_after)
        else {
            return Ok(None);
        };
        let indent = self.indent_of(f.line_text(line));
        self.splits
            .entry(span.file)
            .or_default()
            .insert(end + semi, (end + next, indent));
        Ok(Some(end + next))
    }

    /// The indentation of a statement on a line like `like` (fixed form: from column 7).
    fn indent_of(&self, like: &str) -> String {
        self.render(like, "X")
            .trim_end_matches(['X', '\n'])
            .to_string()
    }

    /// Splits the lines [`Self::split_before`] and [`Self::split_after`] asked for: the
    /// separator becomes a newline, the next statement gets the line's indentation (after the
    /// lines inserted between them).
    fn apply_splits(&mut self) {
        for (file, at) in std::mem::take(&mut self.splits) {
            let e = self.ctx.edits(file);
            for (semi, (next, indent)) in at {
                e.replace(semi, next, "\n", Key::replace());
                e.insert(next, indent, Key::inline(-6));
            }
        }
    }

    fn file(&self, id: FileId) -> Result<&'a SourceFile, CodegenError> {
        let sources: &'a frontend::Sources = self.ctx.sources;
        sources.get(id).ok_or(CodegenError::MissingFile(id.0))
    }

    fn stmt(&self, id: StmtId) -> Option<&'a Stmt> {
        let prog: &'a frontend::Program = self.ctx.prog;
        prog.stmt(id)
    }

    /// An inserted line: indented like `like` (a line of original text); a directive starts in
    /// column 1 (fixed form needs its sentinel there).
    fn render(&self, like: &str, code: &str) -> String {
        if code.starts_with("!$omp") {
            return format!("{code}\n");
        }
        match self.form {
            FortranForm::Fixed => {
                let body = like.get(6..).unwrap_or("");
                let extra = (body.len() - body.trim_start().len()).min(40);
                self.line(&format!("      {}", " ".repeat(extra)), code)
            }
            FortranForm::Free => {
                let ws = like.len() - like.trim_start().len();
                let label = like
                    .trim_start()
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .count();
                let extra = if label > 0 { label + 1 } else { 0 };
                self.line(&" ".repeat((ws + extra).min(60)), code)
            }
        }
    }

    fn line(&self, indent: &str, code: &str) -> String {
        line(self.form, indent, code)
    }

    /// Indentation of a line one level inside the statement on line `like`.
    fn inner_indent(&self, like: &str) -> String {
        let step = match self.form {
            FortranForm::Fixed => "   X",
            FortranForm::Free => "  X",
        };
        self.render(like, step)
            .trim_end_matches(['X', '\n'])
            .to_string()
    }

    fn fresh_label(&mut self, file: FileId) -> Result<u64, CodegenError> {
        if !self.used.contains_key(&file) {
            let used = numbers(&self.file(file)?.text);
            self.used.insert(file, used);
        }
        let used = self.used.get(&file).cloned().unwrap_or_default();
        let mut next = self.fresh.get(&file).copied().unwrap_or(99999);
        while used.contains(&next) && next > 1 {
            next -= 1;
        }
        self.fresh.insert(file, next.saturating_sub(1));
        Ok(next)
    }

    /// Marker lines of every statement (before/after), MPI renames, counters.
    fn collect(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        let only = self.only;
        let skip = |s: &Stmt| !in_files(prog, only, s.proc) || Self::in_concurrent(prog, s);
        for s in prog.stmts.iter().filter(|s| !skip(s)) {
            let marks = self.ctx.plan.of_stmt(s.id).to_vec();
            if let StmtKind::Loop(l) = &s.kind {
                let marked = l.concurrent.is_some()
                    && prog
                        .walk(&l.body)
                        .iter()
                        .any(|b| !self.ctx.plan.of_stmt(*b).is_empty());
                if marked {
                    self.ctx.note(
                        Some(s.span),
                        "loops and calls inside DO CONCURRENT are not instrumented (no call may run there): their time is the construct's",
                    );
                }
            }
            let compound = matches!(
                s.kind,
                StmtKind::Loop(_) | StmtKind::While(_) | StmtKind::If(_)
            );
            for m in &marks {
                match &m.role {
                    Role::Comm
                    | Role::MpiInit
                    | Role::MpiFinalize
                    | Role::MpiAbort
                    | Role::CommSizeRank
                    | Role::Request => self.mpi(s, m.site)?,
                    Role::Loop { compute_phase } if !compound => {
                        self.array_loop(s, m.site, *compute_phase);
                    }
                    Role::Loop { compute_phase } => {
                        let site = m.site;
                        if *compute_phase && self.ctx.in_threads(s.id) {
                            self.ctx.note(
                                Some(s.span),
                                "a computation phase inside an OpenMP parallel loop: its timer is not thread-safe",
                            );
                        }
                        let trip = self.entry_trip(s);
                        let b = self.lines.before.entry(s.id).or_default();
                        match &trip {
                            Some(t) => {
                                b.push(format!("augur_n_{site} = {t}"));
                                b.push(format!("if (augur_n_{site} .lt. 0) augur_n_{site} = 0"));
                            }
                            None => b.push(format!("augur_n_{site} = 0")),
                        }
                        if *compute_phase {
                            let acc = &self.ctx.accum;
                            b.extend(accum::f_init(acc, site));
                            b.push(format!("call augur_phase_begin({site})"));
                        }
                        if !self.ctx.in_phase(s.id) {
                            b.push(format!("call augur_loop_enter({site})"));
                        }
                        self.lines.counters.entry(s.proc).or_default().insert(site);
                        let concurrent =
                            matches!(&s.kind, StmtKind::Loop(l) if l.concurrent.is_some());
                        if trip.is_none() && concurrent {
                            self.ctx.note(
                                Some(s.span),
                                "DO CONCURRENT bounds written over several lines, calling a function or too long to repeat: its iterations are not counted (0)",
                            );
                        } else if trip.is_none() {
                            self.increment(s, site)?;
                        }
                        self.counter_sharing(s, site, trip.is_none());
                    }
                    Role::Call { callee } => {
                        if self.ctx.in_threads(s.id) {
                            self.ctx.note(
                                Some(s.span),
                                "a call inside an OpenMP parallel loop: its timer is not thread-safe",
                            );
                        }
                        let (enter, exit) = (
                            format!("call augur_call_enter({})", m.site),
                            format!("call augur_call_exit({})", m.site),
                        );
                        // a leaf's call in an accumulating phase only counts in its local
                        let counted = self.ctx.accum.is_call(m.site);
                        if callees(prog, s).is_empty() {
                            self.ctx.note(
                                Some(s.span),
                                format!(
                                    "call of `{callee}` not found in the statement: not counted"
                                ),
                            );
                            continue;
                        }
                        // a call in a loop header or condition runs before the construct's body
                        let b = self.lines.before.entry(s.id).or_default();
                        if counted {
                            let n = accum::f_call_name(m.site);
                            b.push(format!("{n} = {n} + 1"));
                            continue;
                        }
                        b.push(enter);
                        if compound {
                            b.push(exit);
                        } else {
                            self.lines.after.entry(s.id).or_default().insert(0, exit);
                        }
                    }
                    Role::Branch { .. } => {}
                }
            }
            match &s.kind {
                StmtKind::Return { .. } => {
                    let exits: Vec<String> = self
                        .ctx
                        .enclosing_loops(s.id)
                        .into_iter()
                        .flat_map(|(site, ph)| self.exit_lines(site, ph))
                        .collect();
                    self.lines.before.entry(s.id).or_default().extend(exits);
                }
                // `IF (c) GOTO 200` read as the `break` of the DO loop followed by `200`: it
                // jumps past the exit markers written after the loop, so they go before it
                // as for any GOTO leaving marked loops (below)
                StmtKind::Break if self.do_break_by_goto(s) => self.exits_before_goto(s),
                StmtKind::Break | StmtKind::Continue => {
                    let exits = self.named_jump_exits(s);
                    if !exits.is_empty() {
                        self.lines.before.entry(s.id).or_default().extend(exits);
                    }
                }
                StmtKind::Opaque(o)
                    if o.reason == "goto" && !self.ctx.enclosing_loops(s.id).is_empty() =>
                {
                    self.exits_before_goto(s);
                }
                _ => {}
            }
        }
        self.lines.before.retain(|_, v| !v.is_empty());
        Ok(())
    }

    /// `call mpi_xxx(` → `call augur_mpi_xxx(S, `.
    fn mpi(&mut self, s: &Stmt, site: u32) -> Result<(), CodegenError> {
        let StmtKind::Mpi(m) = &s.kind else {
            return Ok(());
        };
        if !self.ctx.wrapped.fortran(&m.name) {
            if m.op.is_comm() {
                self.ctx.note(
                    Some(s.span),
                    format!("`{}` has no runtime wrapper: not traced", m.name),
                );
            }
            return Ok(());
        }
        let f = self.file(s.span.file)?;
        let Some((name_at, paren)) = find_call(
            &f.text,
            s.span.start as usize,
            s.span.end as usize,
            &m.name,
            true,
        ) else {
            self.ctx.note(
                Some(s.span),
                format!("`{}` not found in the statement's text: not traced", m.name),
            );
            return Ok(());
        };
        let line = f.line_of(u32::try_from(paren).unwrap_or(u32::MAX));
        let cols = f.line_text(line).chars().count();
        let add = format!("{site}, ");
        // too long: the site and the rest of the line go on a continuation line
        let (limit, split) = match self.form {
            FortranForm::Fixed => (72, format!("\n     &{add}")),
            FortranForm::Free => {
                let like = f.line_text(line);
                let ws = like.len() - like.trim_start().len();
                (132, format!("&\n{}& {add}", " ".repeat(ws + 4)))
            }
        };
        let args = if cols + "augur_".len() + add.len() > limit {
            split
        } else {
            add
        };
        if self.ctx.in_threads(s.id) {
            self.ctx.note(
                Some(s.span),
                format!("`{}` inside an OpenMP parallel loop: the tracer's per-rank record is not thread-safe", m.name),
            );
        }
        let e = self.ctx.edits(s.span.file);
        e.insert(name_at, "augur_", Key::inline(0));
        e.insert(paren + 1, args, Key::inline(0));
        Ok(())
    }

    /// Turns the collected lines into edits (labels move onto the first opening line).
    fn materialize(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        let body_of: BTreeMap<StmtId, StmtId> = self
            .converted
            .keys()
            .filter_map(|i| prog.stmt(*i))
            .flat_map(|s| match &s.kind {
                StmtKind::If(i) => i
                    .arms
                    .iter()
                    .flat_map(|a| a.body.iter().map(|b| (*b, s.id)))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .collect();
        let before = std::mem::take(&mut self.lines.before);
        for (id, codes) in before {
            let Some(s) = self.stmt(id) else { continue };
            let d = self.ctx.depth(id);
            let file = s.span.file;
            let f = self.file(file)?;
            let like = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            // before the loop's directives, which must stay right before it
            let first = self
                .omp
                .get(&id)
                .map_or(self.ctx.sources.first_line(s.span), |o| o.first);
            if let Some(ifs) = body_of.get(&id) {
                let (_, body_start) = self.converted.get(ifs).copied().unwrap_or_default();
                let inner = self.inner_indent(&like);
                let text: String = codes.iter().map(|c| self.line(&inner, c)).collect();
                self.ctx
                    .edits(file)
                    .insert(body_start, text, Key::before(2 * d + 2));
                continue;
            }
            if !self.omp.contains_key(&id) {
                if let Some(at) = self.split_before(s)? {
                    let text: String = codes.iter().map(|c| self.render(&like, c)).collect();
                    self.ctx.edits(file).insert(at, text, Key::before(2 * d));
                    continue;
                }
            }
            let ls = f.line_start(first) as usize;
            let mut text = String::new();
            let mut rest = codes.as_slice();
            if let (Some(label), Some((c0, tail))) = (s.label, codes.split_first()) {
                // the label moves onto the first inserted line: a GOTO to it runs the markers
                let line = f.line_text(first);
                match self.form {
                    FortranForm::Fixed => {
                        let l = self.render(&like, c0);
                        text.push_str(&format!("{label:>5}{}", l.get(5..).unwrap_or("")));
                    }
                    FortranForm::Free => {
                        let ws = line.len() - line.trim_start().len();
                        text.push_str(&format!("{}{label} {c0}\n", " ".repeat(ws)));
                    }
                }
                // blank the digits where they stand (same length: columns and tab format kept)
                let ws = line.len() - line.trim_start().len();
                let n = line
                    .trim_start()
                    .bytes()
                    .take_while(u8::is_ascii_digit)
                    .count();
                if n > 0 {
                    self.ctx.edits(file).replace(
                        ls + ws,
                        ls + ws + n,
                        " ".repeat(n),
                        Key::replace(),
                    );
                    rest = tail;
                } else {
                    text.clear();
                }
            }
            for c in rest {
                text.push_str(&self.render(&like, c));
            }
            self.ctx.edits(file).insert(ls, text, Key::before(2 * d));
        }
        let after = std::mem::take(&mut self.lines.after);
        for (id, codes) in after {
            let Some(s) = self.stmt(id) else { continue };
            let d = self.ctx.depth(id);
            let file = s.span.file;
            let f = self.file(file)?;
            let like = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            // after the loop's `!$omp end …` directive
            let last = self
                .omp
                .get(&id)
                .and_then(|o| o.end)
                .unwrap_or(self.ctx.sources.last_line(s.span));
            let split = match self.omp.get(&id).and_then(|o| o.end) {
                Some(_) => None,
                None => self.split_after(s.span)?,
            };
            let at = split.unwrap_or(f.line_start(last + 1) as usize);
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            let inner = if body_of.contains_key(&id) {
                self.inner_indent(&like)
            } else {
                String::new()
            };
            let text: String = std::iter::once(prefix.to_string())
                .chain(codes.iter().map(|c| {
                    if inner.is_empty() {
                        self.render(&like, c)
                    } else {
                        self.line(&inner, c)
                    }
                }))
                .collect();
            self.ctx.edits(file).insert(at, text, Key::after(2 * d));
        }
        Ok(())
    }

    /// `integer*8 augur_n_S` before each procedure's first executable statement.
    fn declarations(&mut self) -> Result<(), CodegenError> {
        let counters = std::mem::take(&mut self.lines.counters);
        for (proc, sites) in counters {
            let Some(p) = self.ctx.prog.proc(proc) else {
                continue;
            };
            if !in_files(self.ctx.prog, self.only, proc) {
                continue;
            }
            let Some(first) = p.body.first().and_then(|b| self.stmt(*b)) else {
                continue;
            };
            if first.span.file != p.span.file {
                self.ctx.note(Some(first.span), "the procedure's first statement is in an included file: counters declared there");
            }
            let file = first.span.file;
            let f = self.file(file)?;
            let line = self.ctx.sources.first_line(first.span);
            let like = f.line_text(line).to_string();
            let at = f.line_start(line) as usize;
            let text: String = sites
                .iter()
                .flat_map(|&s| {
                    let mut names = vec![format!("augur_n_{s}")];
                    if self.ctx.accum.is_nested(s) {
                        names.extend(accum::f_names(s));
                    }
                    for &b in self.ctx.accum.branches_of_phase(s) {
                        names.extend(accum::f_branch_names(b));
                    }
                    names.extend(
                        self.ctx
                            .accum
                            .calls_of_phase(s)
                            .iter()
                            .map(|&k| accum::f_call_name(k)),
                    );
                    names
                })
                .map(|n| self.render(&like, &format!("integer*8 {n}")))
                .collect();
            self.ctx.edits(file).insert(at, text, Key::before(-4));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_separators_on_a_line() {
        let free = FortranForm::Free;
        assert_eq!(separator_before("  u = 0d0; ", free), Some(9));
        assert_eq!(separator_before("  u = 0d0 ;; ", free), Some(11));
        assert_eq!(separator_before("  print *, 'a;b'", free), None);
        assert_eq!(separator_before("  print *, \"a;\"; ", free), Some(15));
        assert_eq!(separator_before("  ", free), None);
        // fixed form: columns 1-6 are the label and the continuation mark
        assert_eq!(
            separator_before("     ;U = 0; ", FortranForm::Fixed),
            Some(11)
        );
        assert_eq!(separator_after("; unew = 0d0"), Some((0, 2)));
        assert_eq!(separator_after(" ;unew = 0d0\n"), Some((1, 2)));
        assert_eq!(separator_after(";  ! done\n"), None);
        assert_eq!(separator_after(";\n"), None);
        assert_eq!(separator_after("\n"), None);
        assert_eq!(separator_after(" ! x; y\n"), None);
    }

    #[test]
    fn long_inserted_lines_are_continued() {
        let fixed = line(
            FortranForm::Fixed,
            &" ".repeat(18),
            "if (augur_n_10 .lt. augur_nlo_10) augur_nlo_10 = augur_n_10",
        );
        assert_eq!(
            fixed,
            format!(
                "{}if (augur_n_10 .lt. augur_nlo_10) augur_nlo_10 =\n     &{}  augur_n_10\n",
                " ".repeat(18),
                " ".repeat(12)
            )
        );
        let call = "call augur_loop_exits8(12, (augur_nk_12), (augur_ns_12), (augur_nlo_12), (augur_nhi_12))";
        let free = line(FortranForm::Free, &" ".repeat(60), call);
        assert!(free.lines().all(|l| l.len() <= 132), "{free}");
        assert!(free.contains(", &\n"), "{free}");
        assert_eq!(line(FortranForm::Free, "  ", "x = 1"), "  x = 1\n");
    }
}
