//! The Fortran emitter (fixed and free form) of the instrumented program.
//!
//! Markers are whole statements on their own lines (`call augur_loop_enter(S)`):
//! - RETURN, and a GOTO out of marked loops, first run the exit markers of the loops left;
//! - a statement's opening lines go before its first line (its label moves onto the first of
//!   them, so a GOTO to it still runs them), its closing lines after its last line;
//! - a logical IF whose body needs lines around it (or whose branch is marked) becomes a block
//!   IF: `IF (c) stmt` → `IF (c) THEN / markers / stmt / ELSE / marker / END IF`;
//! - loops count iterations in a fresh `integer*8 augur_n_S` (declared before the procedure's
//!   first executable statement): a counted DO without early exits gets its trip count computed
//!   before the DO from its bounds, like Fortran itself (no per-iteration work); other loops
//!   increment it first in the body. It is reported after the loop as
//!   `call augur_loop_exit8(S, (augur_n_S))` (parenthesised: its address never escapes);
//! - labelled DO nests sharing one terminator (`DO 20 ... DO 20 ... 20 CONTINUE`): the inner
//!   loop keeps the label, each outer loop gets a fresh one closed by its own `CONTINUE` after
//!   the inner loop's exit marker, so every loop's exit marker runs once per loop execution,
//!   innermost first; a terminator that is not `CONTINUE` gets fresh labels for every loop;
//! - `call mpi_send(` → `call augur_mpi_send(S, `, split onto a continuation line when the line
//!   would pass column 72 (fixed) or 132 (free).
use std::collections::{BTreeMap, BTreeSet};

use frontend::{FileId, ProcId, SourceFile, Stmt, StmtId, StmtKind};

use crate::edit::Key;
use crate::plan::{callees, is_comm, user_proc, Role};

/// Intrinsics without side effects that may appear in DO bounds evaluated twice.
const PURE_INTRINSICS: &[&str] = &[
    "min", "max", "mod", "modulo", "abs", "int", "nint", "dble", "real", "float", "ifix", "idint", "size", "lbound",
    "ubound", "len", "len_trim", "iand", "ior", "ieor", "ishft", "sign", "dim", "min0", "max0", "sqrt", "floor",
    "ceiling", "merge", "kind", "huge", "tiny",
];
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
    lines: Lines,
    /// Logical IFs turned into block IFs: if statement → (gap start, body start).
    converted: BTreeMap<StmtId, (usize, usize)>,
    fresh: BTreeMap<FileId, u64>,
    used: BTreeMap<FileId, BTreeSet<u64>>,
}

pub(crate) fn instrument(ctx: &mut Ctx<'_>, form: FortranForm) -> Result<(), CodegenError> {
    let mut f = F { ctx, form, lines: Lines::default(), converted: BTreeMap::new(), fresh: BTreeMap::new(), used: BTreeMap::new() };
    f.collect()?;
    f.loop_ends()?;
    f.convert_logical_ifs()?;
    f.branches()?;
    f.materialize()?;
    f.declarations()?;
    Ok(())
}

fn exit_lines(site: u32, phase: bool) -> Vec<String> {
    let mut v = vec![format!("call augur_loop_exit8({site}, (augur_n_{site}))")];
    if phase {
        v.push(format!("call augur_phase_end({site})"));
    }
    v
}

/// The statement text of a line without its label: fixed form from column 7 (column 6 is the
/// continuation mark), free form after leading digits.
fn code_of(line: &str, form: FortranForm) -> &str {
    match form {
        FortranForm::Fixed => line.get(6..).unwrap_or(""),
        FortranForm::Free => line.trim_start().trim_start_matches(|c: char| c.is_ascii_digit()),
    }
}

/// A whole-line comment (fixed form: `c C * ! d D` in column 1; both forms: first non-blank `!`).
fn is_comment(line: &str, form: FortranForm) -> bool {
    let fixed = form == FortranForm::Fixed && line.starts_with(['c', 'C', '*', 'd', 'D']);
    fixed || line.trim_start().starts_with('!') || line.trim().is_empty()
}

/// The label of a DO header (`DO 20 I = ...`, `do 20, i = ...`) and its byte range in `header`.
fn do_label(header: &str) -> Option<(u32, usize, usize)> {
    let lower = header.to_ascii_lowercase();
    let t = lower.trim_start();
    let off = lower.len() - t.len();
    let rest = t.strip_prefix("do")?;
    let skip = rest.len() - rest.trim_start().len();
    let start = off + 2 + skip;
    let n = lower.get(start..)?.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 {
        return None;
    }
    let v = lower.get(start..start + n)?.parse().ok()?;
    Some((v, start, start + n))
}

impl<'a> F<'_, 'a> {
    fn file(&self, id: FileId) -> Result<&'a SourceFile, CodegenError> {
        let sources: &'a frontend::Sources = self.ctx.sources;
        sources.get(id).ok_or(CodegenError::MissingFile(id.0))
    }

    fn stmt(&self, id: StmtId) -> Option<&'a Stmt> {
        let prog: &'a frontend::Program = self.ctx.prog;
        prog.stmt(id)
    }

    /// An inserted line: indented like `like` (a line of original text).
    fn render(&self, like: &str, code: &str) -> String {
        match self.form {
            FortranForm::Fixed => {
                let body = like.get(6..).unwrap_or("");
                let extra = (body.len() - body.trim_start().len()).min(40);
                format!("      {}{code}\n", " ".repeat(extra))
            }
            FortranForm::Free => {
                let ws = like.len() - like.trim_start().len();
                let label = like.trim_start().bytes().take_while(u8::is_ascii_digit).count();
                let extra = if label > 0 { label + 1 } else { 0 };
                format!("{}{code}\n", " ".repeat((ws + extra).min(60)))
            }
        }
    }

    /// Indentation of a line one level inside the statement on line `like`.
    fn inner_indent(&self, like: &str) -> String {
        let step = match self.form {
            FortranForm::Fixed => "   X",
            FortranForm::Free => "  X",
        };
        self.render(like, step).trim_end_matches(['X', '\n']).to_string()
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
        for s in &prog.stmts {
            let marks = self.ctx.plan.of_stmt(s.id).to_vec();
            let compound = matches!(s.kind, StmtKind::Loop(_) | StmtKind::While(_) | StmtKind::If(_));
            for m in &marks {
                match &m.role {
                    Role::Comm | Role::MpiInit | Role::MpiFinalize | Role::MpiAbort | Role::CommSizeRank => self.mpi(s, m.site)?,
                    Role::Loop { compute_phase } => {
                        let site = m.site;
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
                            b.push(format!("call augur_phase_begin({site})"));
                        }
                        if !self.ctx.in_phase(s.id) {
                            b.push(format!("call augur_loop_enter({site})"));
                        }
                        self.lines.counters.entry(s.proc).or_default().insert(site);
                        if trip.is_none() {
                            self.increment(s, site)?;
                        }
                    }
                    Role::Call { callee } => {
                        let (enter, exit) = (format!("call augur_call_enter({})", m.site), format!("call augur_call_exit({})", m.site));
                        if callees(prog, s).is_empty() {
                            self.ctx.note(Some(s.span), format!("call of `{callee}` not found in the statement: not counted"));
                            continue;
                        }
                        // a call in a loop header or condition runs before the construct's body
                        let b = self.lines.before.entry(s.id).or_default();
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
                    let exits: Vec<String> =
                        self.ctx.enclosing_loops(s.id).into_iter().flat_map(|(site, ph)| exit_lines(site, ph)).collect();
                    self.lines.before.entry(s.id).or_default().extend(exits);
                }
                StmtKind::Opaque(o) if o.reason == "goto" && !self.ctx.enclosing_loops(s.id).is_empty() => {
                    match self.ctx.goto_leaves(s) {
                        Some(left) => {
                            let exits: Vec<String> = left.into_iter().flat_map(|(site, ph)| exit_lines(site, ph)).collect();
                            self.lines.before.entry(s.id).or_default().extend(exits);
                        }
                        None => self.ctx.note(
                            Some(s.span),
                            "GOTO target not found: if it leaves a marked loop, the loop's exit marker is skipped",
                        ),
                    }
                }
                _ => {}
            }
        }
        self.lines.before.retain(|_, v| !v.is_empty());
        Ok(())
    }

    /// The trip count of a counted DO as Fortran fixes it at entry, `(hi - lo + step) / step`
    /// (negative means 0), as source text evaluated just before the DO — when that is exact
    /// and harmless: bounds without side effects (no user function calls) written on one line,
    /// and no EXIT, RETURN, GOTO or STOP anywhere in the nest. Otherwise `None` (count in the
    /// body). Measured: an INTEGER*8 increment in an inner loop costs gfortran -O2 up to 40%.
    fn entry_trip(&self, s: &Stmt) -> Option<String> {
        let StmtKind::Loop(l) = &s.kind else { return None };
        let prog = self.ctx.prog;
        for id in prog.walk(&l.body) {
            match &prog.stmt(id)?.kind {
                StmtKind::Break | StmtKind::Return { .. } => return None,
                StmtKind::Opaque(o) if !matches!(o.reason.as_str(), "continue" | "print statement" | "write statement") => {
                    let r = o.reason.to_ascii_lowercase();
                    if r.contains("goto") || r.contains("stop") || r.contains("if") || r.contains("error") || r.contains("return") {
                        return None;
                    }
                }
                _ => {}
            }
        }
        let text = |e: &frontend::SrcExpr| -> Option<String> {
            for sub in e.walk() {
                match &sub.kind {
                    frontend::SrcExprKind::Call { name, .. } if !PURE_INTRINSICS.contains(&name.as_str()) => return None,
                    frontend::SrcExprKind::Index { array, .. } if user_proc(prog, s.proc, array).is_some() => return None,
                    frontend::SrcExprKind::Opaque { .. } | frontend::SrcExprKind::Input(_) => return None,
                    _ => {}
                }
            }
            let t = self.ctx.sources.text(e.span).trim();
            let bad = t.is_empty() || t.contains(['\n', '\r', '!', '&', ';', '\'', '"']);
            (!bad).then(|| t.to_string())
        };
        let lo = text(&l.lo)?;
        let hi = text(&l.hi)?;
        let trip = if l.step.as_int() == Some(1) {
            format!("({hi}) - ({lo}) + 1")
        } else {
            let st = text(&l.step)?;
            format!("(({hi}) - ({lo}) + ({st})) / ({st})")
        };
        // the assignment must fit in the line (fixed form: column 72)
        let limit = match self.form {
            FortranForm::Fixed => 72 - 6 - 20,
            FortranForm::Free => 100,
        };
        (trip.len() <= limit).then_some(trip)
    }

    /// `augur_n_S = augur_n_S + 1` as the first line of the loop body.
    fn increment(&mut self, s: &Stmt, site: u32) -> Result<(), CodegenError> {
        let header = match &s.kind {
            StmtKind::Loop(l) => l.header_span,
            StmtKind::While(w) => w.header_span,
            _ => return Ok(()),
        };
        let f = self.file(header.file)?;
        let line = self.ctx.sources.last_line(header) + 1;
        let at = f.line_start(line) as usize;
        let like = f.line_text(self.ctx.sources.first_line(header));
        let text = format!("{}augur_n_{site} = augur_n_{site} + 1\n", self.inner_indent(like));
        let prefix = if at >= f.text.len() && !f.text.ends_with('\n') { "\n" } else { "" };
        let d = self.ctx.depth(s.id);
        self.ctx.edits(header.file).insert(at, format!("{prefix}{text}"), Key::before(2 * d + 1));
        Ok(())
    }

    /// `call mpi_xxx(` → `call augur_mpi_xxx(S, `.
    fn mpi(&mut self, s: &Stmt, site: u32) -> Result<(), CodegenError> {
        let StmtKind::Mpi(m) = &s.kind else { return Ok(()) };
        if !self.ctx.wrapped.fortran(&m.name) {
            if is_comm(m.op) {
                self.ctx.note(Some(s.span), format!("`{}` has no runtime wrapper: not traced", m.name));
            }
            return Ok(());
        }
        let f = self.file(s.span.file)?;
        let Some((name_at, paren)) = find_call(&f.text, s.span.start as usize, s.span.end as usize, &m.name, true) else {
            self.ctx.note(Some(s.span), format!("`{}` not found in the statement's text: not traced", m.name));
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
        let args = if cols + "augur_".len() + add.len() > limit { split } else { add };
        let e = self.ctx.edits(s.span.file);
        e.insert(name_at, "augur_", Key::inline(0));
        e.insert(paren + 1, args, Key::inline(0));
        Ok(())
    }

    /// Exit markers after each loop's end; labelled-DO groups restructured (module doc).
    fn loop_ends(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        // (file, terminator line, label) → loops, outermost first (ascending start)
        let mut groups: BTreeMap<(FileId, u32, u32), Vec<StmtId>> = BTreeMap::new();
        for s in &prog.stmts {
            let Some((site, phase)) = self.ctx.plan.loop_of(s.id) else { continue };
            let (header, end) = match &s.kind {
                StmtKind::Loop(l) => (l.header_span, l.end_span),
                StmtKind::While(w) => (w.header_span, w.end_span),
                _ => continue,
            };
            let htext = self.ctx.sources.text(header);
            if let Some((label, _, _)) = do_label(htext) {
                let line = self.ctx.sources.last_line(end);
                groups.entry((end.file, line, label)).or_default().push(s.id);
            } else {
                self.lines.after.entry(s.id).or_default().extend(exit_lines(site, phase));
            }
        }
        for ((file, line, _label), mut loops) in groups {
            loops.sort_by_key(|id| self.stmt(*id).map_or(0, |s| s.span.start));
            let f = self.file(file)?;
            let term = code_of(f.line_text(line), self.form).trim().to_ascii_lowercase();
            let keeps_label = term == "continue" || term == "enddo" || term == "end do";
            let at = f.line_start(line + 1) as usize;
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') { "\n" } else { "" };
            let like = f.line_text(line).to_string();
            let n = loops.len();
            for (k, id) in loops.iter().enumerate().rev() {
                let Some(s) = self.stmt(*id) else { continue };
                let Some((site, phase)) = self.ctx.plan.loop_of(*id) else { continue };
                let d = self.ctx.depth(*id);
                let innermost = k + 1 == n;
                let mut text = String::from(prefix);
                if !(innermost && keeps_label) {
                    let fresh = self.fresh_label(file)?;
                    let header = match &s.kind {
                        StmtKind::Loop(l) => l.header_span,
                        StmtKind::While(w) => w.header_span,
                        _ => continue,
                    };
                    let Some((_, a, b)) = do_label(self.ctx.sources.text(header)) else { continue };
                    let h = header.start as usize;
                    self.ctx.edits(file).replace(h + a, h + b, fresh.to_string(), Key::replace());
                    text.push_str(&match self.form {
                        FortranForm::Fixed => format!("{fresh:>5} continue\n"),
                        FortranForm::Free => self.render(&like, &format!("{fresh} continue")),
                    });
                }
                for l in exit_lines(site, phase) {
                    text.push_str(&self.render(&like, &l));
                }
                self.ctx.edits(file).insert(at, text, Key::after(2 * d));
            }
        }
        Ok(())
    }

    /// Logical IFs that need room: the gap between `)` and the body becomes ` THEN` + newline.
    fn convert_logical_ifs(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        for s in &prog.stmts {
            let StmtKind::If(i) = &s.kind else { continue };
            let logical = i.end_span.start == s.span.start && i.arms.len() == 1 && i.else_body.is_none();
            let Some(arm) = i.arms.first() else { continue };
            if !logical {
                continue;
            }
            let needs = !self.ctx.plan.branches_of(s.id).is_empty()
                || arm.body.iter().any(|b| self.lines.before.contains_key(b) || self.lines.after.contains_key(b));
            if !needs {
                continue;
            }
            let f = self.file(s.span.file)?;
            let cond_end = arm.cond.span.end as usize;
            let Some(close) = f.text.get(cond_end..).and_then(|t| t.find(')')).map(|i| cond_end + i + 1) else { continue };
            let Some(body_start) = arm.body.iter().filter_map(|b| self.stmt(*b)).map(|b| b.span.start as usize).min() else {
                continue;
            };
            if body_start < close {
                continue;
            }
            let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            let d = self.ctx.depth(s.id);
            let body_indent = self.inner_indent(&first);
            let last = self.ctx.sources.last_line(s.span);
            let at = f.line_start(last + 1) as usize;
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') { "\n" } else { "" };
            let end_if = format!("{prefix}{}", self.render(&first, "end if"));
            let e = self.ctx.edits(s.span.file);
            e.replace(close, body_start, " then\n", Key::replace());
            e.insert(body_start, body_indent, Key::inline(-5));
            e.insert(at, end_if, Key::after(2 * d - 1));
            self.converted.insert(s.id, (close, body_start));
        }
        Ok(())
    }

    /// Branch markers first in each arm, an ELSE added where there is none.
    fn branches(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        for s in &prog.stmts {
            let StmtKind::If(i) = &s.kind else { continue };
            let marks = self.ctx.plan.branches_of(s.id);
            if marks.is_empty() {
                continue;
            }
            let file = s.span.file;
            let d = self.ctx.depth(s.id);
            let f = self.file(file)?;
            let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            let inner = self.inner_indent(&first);
            let code_for = |j: u32| -> Vec<String> {
                let mut c: Vec<String> = marks.range(..j).map(|(_, site)| format!("call augur_branch({site}, 1)")).collect();
                if let Some(site) = marks.get(&j) {
                    c.push(format!("call augur_branch({site}, 0)"));
                }
                c
            };
            let rest: Vec<String> = marks.values().map(|site| format!("call augur_branch({site}, 1)")).collect();
            let lines = |v: &[String]| -> String { v.iter().map(|c| format!("{inner}{c}\n")).collect() };
            if let Some((_, body_start)) = self.converted.get(&s.id).copied() {
                // the converted logical IF: markers after THEN, ELSE before END IF
                let e = self.ctx.edits(file);
                e.insert(body_start, lines(&code_for(0)), Key::before(2 * d + 1));
                let last = self.ctx.sources.last_line(s.span);
                let f = self.file(file)?;
                let at = f.line_start(last + 1) as usize;
                let prefix = if at >= f.text.len() && !f.text.ends_with('\n') { "\n" } else { "" };
                let text = format!("{prefix}{}{}", self.render(&first, "else"), lines(&rest));
                self.ctx.edits(file).insert(at, text, Key::after(2 * d));
                continue;
            }
            if self.ctx.is_switch(i) {
                self.select_case(s, i, &marks, d)?;
                continue;
            }
            let mut after_line = 0;
            for (j, arm) in i.arms.iter().enumerate() {
                let cond_end = arm.cond.span.end as usize;
                let then = f
                    .text
                    .get(cond_end..(s.span.end as usize).max(cond_end))
                    .and_then(|t| t.to_ascii_lowercase().find("then"))
                    .map(|k| cond_end + k);
                let Some(then) = then else {
                    self.ctx.note(Some(s.span), "THEN not found: branch markers left out");
                    break;
                };
                let line = f.line_of(u32::try_from(then).unwrap_or(u32::MAX));
                after_line = arm
                    .body
                    .last()
                    .and_then(|b| self.stmt(*b))
                    .map_or(line, |b| self.ctx.sources.last_line(b.span).max(line));
                let code = code_for(u32::try_from(j).unwrap_or(u32::MAX));
                if !code.is_empty() {
                    let at = f.line_start(line + 1) as usize;
                    let text = lines(&code);
                    self.ctx.edits(file).insert(at, text, Key::before(2 * d + 1));
                }
            }
            let f = self.file(file)?;
            let end_line = self.ctx.sources.last_line(i.end_span);
            let else_line = (after_line + 1..end_line).find(|&l| {
                if is_comment(f.line_text(l), self.form) {
                    return false;
                }
                let c = code_of(f.line_text(l), self.form).trim_start().to_ascii_lowercase();
                let is_else = c.starts_with("else") && !c[4..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_');
                is_else && !c[4..].trim_start().starts_with("if") && !c.starts_with("elseif")
            });
            let text = lines(&rest);
            match (else_line, &i.else_body) {
                (Some(l), Some(_)) => {
                    let at = f.line_start(l + 1) as usize;
                    self.ctx.edits(file).insert(at, text, Key::before(2 * d + 1));
                }
                (None, None) => {
                    let at = f.line_start(end_line) as usize;
                    let text = format!("{}{text}", self.render(&first, "else"));
                    self.ctx.edits(file).insert(at, text, Key::after(2 * d + 1));
                }
                _ => self.ctx.note(Some(s.span), "ELSE not found: its branch marker is left out"),
            }
        }
        Ok(())
    }

    /// SELECT CASE: markers after each CASE line, a CASE DEFAULT added when there is none.
    fn select_case(&mut self, s: &Stmt, i: &frontend::If, marks: &BTreeMap<u32, u32>, d: i64) -> Result<(), CodegenError> {
        let file = s.span.file;
        let f = self.file(file)?;
        let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
        let inner = self.inner_indent(&first);
        let line_of = |codes: Vec<String>| -> String { codes.iter().map(|c| format!("{inner}{c}\n")).collect() };
        let mut has_default = false;
        let mut edits = Vec::new();
        for (j, arm) in i.arms.iter().enumerate() {
            let head = self.ctx.sources.first_line(arm.cond.span);
            let text = f.line_text(head);
            let continued = match self.form {
                FortranForm::Free => text.split('!').next().unwrap_or("").trim_end().ends_with('&'),
                FortranForm::Fixed => {
                    let next = f.line_text(head + 1);
                    next.len() > 5 && !next.starts_with(['c', 'C', '*', '!']) && !matches!(next.as_bytes()[5], b' ' | b'0')
                }
            };
            if continued {
                self.ctx.note(Some(s.span), "CASE selector on several lines: branch markers left out");
                return Ok(());
            }
            let lower = code_of(text, self.form).to_ascii_lowercase();
            has_default |= lower.contains("default");
            let j = u32::try_from(j).unwrap_or(u32::MAX);
            let mut codes: Vec<String> = marks.range(..j).map(|(_, site)| format!("call augur_branch({site}, 1)")).collect();
            if let Some(site) = marks.get(&j) {
                codes.push(format!("call augur_branch({site}, 0)"));
            }
            if !codes.is_empty() {
                edits.push((f.line_start(head + 1) as usize, line_of(codes), Key::before(2 * d + 1)));
            }
        }
        if !has_default {
            let end = f.line_start(self.ctx.sources.last_line(i.end_span)) as usize;
            let rest: Vec<String> = marks.values().map(|site| format!("call augur_branch({site}, 1)")).collect();
            let case_indent = self.render(&first, "case default");
            edits.push((end, format!("{case_indent}{}", line_of(rest)), Key::after(2 * d + 1)));
        }
        for (at, text, key) in edits {
            self.ctx.edits(file).insert(at, text, key);
        }
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
                StmtKind::If(i) => i.arms.iter().flat_map(|a| a.body.iter().map(|b| (*b, s.id))).collect::<Vec<_>>(),
                _ => Vec::new(),
            })
            .collect();
        let before = std::mem::take(&mut self.lines.before);
        for (id, codes) in before {
            let Some(s) = self.stmt(id) else { continue };
            let d = self.ctx.depth(id);
            let file = s.span.file;
            let f = self.file(file)?;
            let first = self.ctx.sources.first_line(s.span);
            let like = f.line_text(first).to_string();
            if let Some(ifs) = body_of.get(&id) {
                let (_, body_start) = self.converted.get(ifs).copied().unwrap_or_default();
                let inner = self.inner_indent(&like);
                let text: String = codes.iter().map(|c| format!("{inner}{c}\n")).collect();
                self.ctx.edits(file).insert(body_start, text, Key::before(2 * d + 2));
                continue;
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
                let n = line.trim_start().bytes().take_while(u8::is_ascii_digit).count();
                if n > 0 {
                    self.ctx.edits(file).replace(ls + ws, ls + ws + n, " ".repeat(n), Key::replace());
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
            let last = self.ctx.sources.last_line(s.span);
            let at = f.line_start(last + 1) as usize;
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') { "\n" } else { "" };
            let inner = if body_of.contains_key(&id) { self.inner_indent(&like) } else { String::new() };
            let text: String = std::iter::once(prefix.to_string())
                .chain(codes.iter().map(|c| {
                    if inner.is_empty() {
                        self.render(&like, c)
                    } else {
                        format!("{inner}{c}\n")
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
            let Some(p) = self.ctx.prog.proc(proc) else { continue };
            let Some(first) = p.body.first().and_then(|b| self.stmt(*b)) else { continue };
            if first.span.file != p.span.file {
                self.ctx.note(Some(first.span), "the procedure's first statement is in an included file: counters declared there");
            }
            let file = first.span.file;
            let f = self.file(file)?;
            let line = self.ctx.sources.first_line(first.span);
            let like = f.line_text(line).to_string();
            let at = f.line_start(line) as usize;
            let text: String = sites.iter().map(|s| self.render(&like, &format!("integer*8 augur_n_{s}"))).collect();
            self.ctx.edits(file).insert(at, text, Key::before(-4));
        }
        Ok(())
    }
}
