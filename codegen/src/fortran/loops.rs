//! Fortran loops: trip counts at entry or counted in the body, exit markers after each loop's
//! end, and labelled-DO nests sharing one terminator split so every loop closes on its own.
use std::collections::BTreeMap;

use frontend::{FileId, ProcId, Stmt, StmtId, StmtKind};

use super::in_files;
use super::{code_of, guarded, F};
use crate::edit::Key;
use crate::plan::user_proc;
use crate::{CodegenError, FortranForm};

/// The label of a DO header (`DO 20 I = ...`, `do 20, i = ...`) and its byte range in `header`.
fn do_label(header: &str) -> Option<(u32, usize, usize)> {
    let lower = header.to_ascii_lowercase();
    let t = lower.trim_start();
    let off = lower.len() - t.len();
    let rest = t.strip_prefix("do")?;
    let skip = rest.len() - rest.trim_start().len();
    let start = off + 2 + skip;
    let n = lower
        .get(start..)?
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    if n == 0 {
        return None;
    }
    let v = lower.get(start..start + n)?.parse().ok()?;
    Some((v, start, start + n))
}

impl F<'_, '_> {
    /// The trip count of a counted DO as Fortran fixes it at entry, `(hi - lo + step) / step`
    /// (negative means 0), as source text evaluated just before the DO — when that is exact
    /// and harmless: bounds without side effects (no user function calls) written on one line,
    /// and no EXIT, RETURN, GOTO or STOP anywhere in the nest. Otherwise `None` (count in the
    /// body). Measured: an INTEGER*8 increment in an inner loop costs gfortran -O2 up to 40%.
    pub(super) fn entry_trip(&self, s: &Stmt) -> Option<String> {
        let StmtKind::Loop(l) = &s.kind else {
            return None;
        };
        let prog = self.ctx.prog;
        // nothing may leave a DO CONCURRENT early (the standard forbids it)
        let body = if l.concurrent.is_some() {
            Vec::new()
        } else {
            prog.walk(&l.body)
        };
        for id in body {
            match &prog.stmt(id)?.kind {
                StmtKind::Break | StmtKind::Return { .. } => return None,
                // `cycle outer` in this loop ends it early
                StmtKind::Continue if self.jump_name(id).is_some() => return None,
                StmtKind::Opaque(o)
                    if !matches!(
                        o.reason.as_str(),
                        "continue" | "print statement" | "write statement"
                    ) =>
                {
                    let r = o.reason.to_ascii_lowercase();
                    if r.contains("goto")
                        || r.contains("stop")
                        || r.contains("if")
                        || r.contains("error")
                        || r.contains("return")
                    {
                        return None;
                    }
                }
                _ => {}
            }
        }
        let text = |e: &frontend::SrcExpr| -> Option<String> {
            for sub in e.walk() {
                match &sub.kind {
                    // intrinsics have no side effects: the bounds may be evaluated twice
                    frontend::SrcExprKind::Call { name, .. }
                        if frontend::intrinsics::lookup(name, frontend::Language::Fortran)
                            .is_none() =>
                    {
                        return None
                    }
                    frontend::SrcExprKind::Index { array, .. }
                        if user_proc(prog, s.proc, array).is_some() =>
                    {
                        return None
                    }
                    frontend::SrcExprKind::Opaque { .. } | frontend::SrcExprKind::Input(_) => {
                        return None
                    }
                    _ => {}
                }
            }
            let t = self.ctx.sources.text(e.span).trim();
            let bad = t.is_empty() || t.contains(['\n', '\r', '!', '&', ';', '\'', '"']);
            (!bad).then(|| t.to_string())
        };
        let mut factors = Vec::new();
        for (_, lo, hi, step) in l.indices() {
            let (lo, hi) = (text(lo)?, text(hi)?);
            factors.push(if step.as_int() == Some(1) {
                format!("({hi}) - ({lo}) + 1")
            } else {
                let st = text(step)?;
                format!("(({hi}) - ({lo}) + ({st})) / ({st})")
            });
        }
        // DO CONCURRENT: every combination of its indices (each range empty below zero)
        let trip = if factors.len() > 1 {
            let f: Vec<String> = factors
                .iter()
                .map(|f| format!("int(max(0, {f}), 8)"))
                .collect();
            f.join(" * ")
        } else {
            factors.concat()
        };
        // the assignment must fit in the line (fixed form: column 72)
        let limit = match self.form {
            FortranForm::Fixed => 72 - 6 - 20,
            FortranForm::Free => 100,
        };
        (trip.len() <= limit).then_some(trip)
    }

    /// Markers of an array-syntax statement or library call marked as a loop: the loop's entry
    /// (and phase) markers before it, the element count (the call's work) and exit markers
    /// after it.
    pub(super) fn array_loop(&mut self, s: &Stmt, site: u32, phase: bool) {
        let Some(op) = frontend::array_op(self.ctx.prog, s) else {
            self.ctx.note(
                Some(s.span),
                "a loop mark on a statement that is neither a loop nor array syntax: not instrumented",
            );
            return;
        };
        let count = self.element_count(&op, s.proc);
        if count.is_none() {
            self.ctx.note(
                Some(s.span),
                if op.kind == frontend::ArrayOpKind::Library {
                    "library call whose sizes are written over several lines, have side effects or are too long to repeat: its work is not counted (1 per call)"
                } else {
                    "array section written over several lines or too long to repeat: its elements are not counted (1 per execution)"
                },
            );
        }
        let set = format!("augur_n_{site} = {}", count.as_deref().unwrap_or("1"));
        let mut before = Vec::new();
        let mut after = Vec::new();
        if op.whole_target() {
            after.push(set);
        } else {
            before.push(set);
        }
        if phase {
            before.push(format!("call augur_phase_begin({site})"));
        }
        if !self.ctx.in_phase(s.id) {
            before.push(format!("call augur_loop_enter({site})"));
        }
        after.extend(self.exit_lines(site, phase));
        self.lines.before.entry(s.id).or_default().extend(before);
        self.lines.after.entry(s.id).or_default().extend(after);
        self.lines.counters.entry(s.proc).or_default().insert(site);
    }

    /// `size(a) + size(b(1:n, j))`: the elements an array operation visits, or the work of its
    /// library calls ([`crate::library::work_text`]) or of its `matmul` (`size(a) * size(b,
    /// 2)`), as source text (`None` when a section or size is not on one line or the
    /// statement would be too long).
    fn element_count(&self, op: &frontend::ArrayOp<'_>, proc: ProcId) -> Option<String> {
        let one_line = |e: &frontend::SrcExpr| {
            let t = self.ctx.sources.text(e.span).trim();
            let bad = t.is_empty() || t.contains(['\n', '\r', '!', '&', ';', '\'', '"']);
            (!bad).then(|| t.to_string())
        };
        let mut parts = Vec::new();
        if let Some((x, y)) = op.product {
            let (tx, ty) = (one_line(x)?, one_line(y)?);
            parts.push(match frontend::array::rank(self.ctx.prog, proc, y) {
                Some(2) => format!("size({tx}) * size({ty}, 2)"),
                _ => format!("size({tx})"),
            });
        } else {
            for c in &op.calls {
                parts.push(crate::library::work_text(
                    self.ctx.prog,
                    self.ctx.sources,
                    c,
                )?);
            }
            for e in &op.shapes {
                parts.push(format!("size({})", one_line(e)?));
            }
        }
        let text = parts.join(" + ");
        let limit = match self.form {
            FortranForm::Fixed => 72 - 6 - 20,
            FortranForm::Free => 100,
        };
        (text.len() <= limit).then_some(text)
    }

    /// Whether `s` is inside a DO CONCURRENT: no marker, counter or call may go there (the
    /// construct's markers go around it; its inner loops and calls are its time).
    pub(super) fn in_concurrent(prog: &frontend::Program, s: &Stmt) -> bool {
        let mut cur = s.parent;
        while let Some(p) = cur.and_then(|p| prog.stmt(p)) {
            if matches!(&p.kind, StmtKind::Loop(l) if l.concurrent.is_some()) {
                return true;
            }
            cur = p.parent;
        }
        false
    }

    /// `augur_n_S = augur_n_S + 1` as the first line of the loop body.
    pub(super) fn increment(&mut self, s: &Stmt, site: u32) -> Result<(), CodegenError> {
        let header = match &s.kind {
            StmtKind::Loop(l) => l.header_span,
            StmtKind::While(w) => w.header_span,
            _ => return Ok(()),
        };
        let split = self.split_after(header)?;
        let f = self.file(header.file)?;
        let line = self.ctx.sources.last_line(header) + 1;
        let at = split.unwrap_or(f.line_start(line) as usize);
        let like = f.line_text(self.ctx.sources.first_line(header));
        let text = format!(
            "{}augur_n_{site} = augur_n_{site} + 1\n",
            self.inner_indent(like)
        );
        let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
            "\n"
        } else {
            ""
        };
        let d = self.ctx.depth(s.id);
        self.ctx
            .edits(header.file)
            .insert(at, format!("{prefix}{text}"), Key::before(2 * d + 1));
        Ok(())
    }

    /// Exit markers after each loop's end; labelled-DO groups restructured (module doc).
    pub(super) fn loop_ends(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        // (file, terminator line, label) → loops, outermost first (ascending start)
        let mut groups: BTreeMap<(FileId, u32, u32), Vec<StmtId>> = BTreeMap::new();
        let only = self.only;
        let skip = |s: &Stmt| !in_files(prog, only, s.proc) || Self::in_concurrent(prog, s);
        for s in prog.stmts.iter().filter(|s| !skip(s)) {
            let Some((site, phase)) = self.ctx.plan.loop_of(s.id) else {
                continue;
            };
            let (header, end) = match &s.kind {
                StmtKind::Loop(l) => (l.header_span, l.end_span),
                StmtKind::While(w) => (w.header_span, w.end_span),
                _ => continue,
            };
            let htext = self.ctx.sources.text(header);
            if let Some((label, _, _)) = do_label(htext) {
                let line = self.ctx.sources.last_line(end);
                groups
                    .entry((end.file, line, label))
                    .or_default()
                    .push(s.id);
            } else if let Some(target) = self.goto_exit(s) {
                // a GOTO loop left by jumps to the next statement's label: the exit markers
                // take that label (only the loop jumps there)
                let exits = self.exit_lines(site, phase);
                let b = self.lines.before.entry(target).or_default();
                b.splice(0..0, exits);
            } else {
                let guard = self.ctx.in_threads(s.id);
                let exits = guarded(self.exit_lines(site, phase), guard);
                self.lines.after.entry(s.id).or_default().extend(exits);
            }
        }
        for ((file, line, _label), mut loops) in groups {
            loops.sort_by_key(|id| self.stmt(*id).map_or(0, |s| s.span.start));
            let f = self.file(file)?;
            let term = code_of(f.line_text(line), self.form)
                .trim()
                .to_ascii_lowercase();
            let keeps_label = term == "continue" || term == "enddo" || term == "end do";
            let at = f.line_start(line + 1) as usize;
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
                "\n"
            } else {
                ""
            };
            let like = f.line_text(line).to_string();
            let n = loops.len();
            for (k, id) in loops.iter().enumerate().rev() {
                let Some(s) = self.stmt(*id) else { continue };
                let Some((site, phase)) = self.ctx.plan.loop_of(*id) else {
                    continue;
                };
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
                    let Some((_, a, b)) = do_label(self.ctx.sources.text(header)) else {
                        continue;
                    };
                    let h = header.start as usize;
                    self.ctx
                        .edits(file)
                        .replace(h + a, h + b, fresh.to_string(), Key::replace());
                    text.push_str(&match self.form {
                        FortranForm::Fixed => format!("{fresh:>5} continue\n"),
                        FortranForm::Free => self.render(&like, &format!("{fresh} continue")),
                    });
                }
                for l in guarded(self.exit_lines(site, phase), self.ctx.in_threads(*id)) {
                    text.push_str(&self.render(&like, &l));
                }
                self.ctx.edits(file).insert(at, text, Key::after(2 * d));
            }
        }
        Ok(())
    }
}

/// The three labels of an arithmetic IF (`IF (e) 10, 60, 60`; case, blanks and continuation
/// ampersands ignored).
fn arith_if_labels(text: &str) -> Option<[u32; 3]> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '&')
        .collect::<String>()
        .to_ascii_lowercase();
    let rest = compact.strip_prefix("if(")?;
    let mut depth = 1;
    let close = rest.char_indices().find_map(|(i, c)| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(i)
    })?;
    let labels: Vec<u32> = rest
        .get(close + 1..)?
        .split(',')
        .map(|l| l.parse().ok())
        .collect::<Option<_>>()?;
    labels.try_into().ok()
}

/// `goto 20` / `go to 20` → 20 (case and blanks ignored).
fn goto_label(text: &str) -> Option<u32> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let at = compact.rfind("goto")?;
    let digits = compact.get(at + 4..)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// The construct name of a Fortran loop header line (`outer: do i = 1, n` → `outer`).
pub(super) fn construct_name(line: &str) -> Option<String> {
    let code = line
        .trim_start()
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let end = code
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(code.len());
    let (word, rest) = code.split_at(end);
    let rest = rest.trim_start();
    let named = !word.is_empty() && rest.starts_with(':') && !rest.starts_with("::");
    named.then(|| word.to_ascii_lowercase())
}

impl F<'_, '_> {
    /// `NAME` of `exit NAME` / `cycle NAME`.
    pub(super) fn jump_name(&self, id: StmtId) -> Option<String> {
        let s = self.stmt(id)?;
        let text = self.ctx.sources.text(s.span).trim().to_ascii_lowercase();
        let rest = text
            .strip_prefix("exit")
            .or_else(|| text.strip_prefix("cycle"))?
            .trim();
        let end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        (!word.is_empty()).then(|| word.to_string())
    }

    /// The construct name of loop `id`, if it has one.
    fn loop_name(&self, id: StmtId) -> Option<String> {
        let header = match &self.stmt(id)?.kind {
            StmtKind::Loop(l) => l.header_span,
            StmtKind::While(w) => w.header_span,
            _ => return None,
        };
        let f = self.ctx.sources.get(header.file)?;
        construct_name(f.line_text(f.line_of(header.start)))
    }

    /// For `exit NAME` / `cycle NAME` in loops inside loop NAME: the exit markers of the
    /// marked loops it leaves, innermost first (NAME's own run after its END DO, or not at all
    /// for `cycle`).
    pub(super) fn named_jump_exits(&self, s: &Stmt) -> Vec<String> {
        let Some(name) = self.jump_name(s.id) else {
            return Vec::new();
        };
        let mut left = Vec::new();
        let mut cur = s.parent;
        while let Some(p) = cur {
            let Some(ps) = self.stmt(p) else { break };
            if matches!(ps.kind, StmtKind::Loop(_) | StmtKind::While(_)) {
                if self.loop_name(p).as_deref() == Some(name.as_str()) {
                    return left;
                }
                if let Some((site, phase)) = self.ctx.plan.loop_of(p) {
                    left.extend(self.exit_lines(site, phase));
                }
            }
            cur = ps.parent;
        }
        // no enclosing loop has that name: leave the markers alone
        Vec::new()
    }

    /// The exit markers of the marked loops GOTO `s` leaves, written before it (the jump
    /// skips those after the loops); a note where its target is not found.
    pub(super) fn exits_before_goto(&mut self, s: &Stmt) {
        match self.ctx.goto_leaves(s) {
            Some(left) => {
                let exits: Vec<String> = left
                    .into_iter()
                    .flat_map(|(site, ph)| self.exit_lines(site, ph))
                    .collect();
                self.lines.before.entry(s.id).or_default().extend(exits);
            }
            None => self.ctx.note(
                Some(s.span),
                "GOTO target not found: if it leaves a marked loop, the loop's exit marker is skipped",
            ),
        }
    }

    /// Whether `s` is a GOTO the front end reads as the `break` of a DO loop (a jump to the
    /// statement after it), not of a loop built from GOTO, whose exit markers sit at the
    /// statement it jumps to.
    pub(super) fn do_break_by_goto(&self, s: &Stmt) -> bool {
        let text = self
            .ctx
            .sources
            .text(s.span)
            .trim_start()
            .to_ascii_lowercase();
        if !text.starts_with("go") {
            return false;
        }
        let mut cur = s.parent;
        while let Some(p) = cur {
            let Some(ps) = self.stmt(p) else { return false };
            match ps.kind {
                StmtKind::Loop(_) => return true,
                StmtKind::While(_) => return self.goto_exit(ps).is_none(),
                _ => cur = ps.parent,
            }
        }
        false
    }

    /// For a loop built from GOTO (its end is `GOTO L` / `IF (c) GOTO L`) that jumps to the
    /// label of the statement after it: that statement.
    pub(super) fn goto_exit(&self, s: &Stmt) -> Option<StmtId> {
        let StmtKind::While(w) = &s.kind else {
            return None;
        };
        let end = self.ctx.sources.text(w.end_span);
        // `IF (e) 10, 60, 60` closing the loop always jumps: to its head or past it
        let arith = arith_if_labels(end);
        if arith.is_none() {
            goto_label(end)?;
        }
        let prog = self.ctx.prog;
        let block: &[StmtId] = match s.parent {
            Some(p) => {
                let ps = self.stmt(p)?;
                ps.kind.blocks().into_iter().find(|b| b.contains(&s.id))?
            }
            None => &prog.proc(s.proc)?.body,
        };
        let at = block.iter().position(|b| *b == s.id)?;
        let next = self.stmt(*block.get(at + 1)?)?;
        let label = next.label?;
        let compact: String = self
            .ctx
            .sources
            .text(s.span)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(labels) = arith {
            return labels.contains(&label).then_some(next.id);
        }
        let want = format!("goto{label}");
        let jumps = compact
            .match_indices(&want)
            .any(|(i, _)| !compact[i + want.len()..].starts_with(|c: char| c.is_ascii_digit()));
        jumps.then_some(next.id)
    }
}

impl F<'_, '_> {
    /// A loop built from GOTO (its end is `GOTO L`, `IF (c) GOTO L` or an arithmetic IF).
    fn goto_built(&self, s: &Stmt) -> bool {
        let StmtKind::While(w) = &s.kind else {
            return false;
        };
        let end = self.ctx.sources.text(w.end_span);
        goto_label(end).is_some() || arith_if_labels(end).is_some()
    }
}

/// The Fortran answers of [`crate::accum::Accum::build`].
impl crate::accum::Rules for F<'_, '_> {
    fn phase(&self, _ctx: &crate::Ctx<'_>, s: &Stmt) -> bool {
        !self.omp.contains_key(&s.id) && !self.goto_built(s)
    }

    fn nested(&self, ctx: &crate::Ctx<'_>, t: &Stmt) -> bool {
        if Self::in_concurrent(ctx.prog, t) {
            return false;
        }
        match &t.kind {
            StmtKind::Loop(_) | StmtKind::While(_) => !self.goto_built(t),
            StmtKind::If(_) => false,
            // array syntax (its count is a `size`, never negative), not a library call
            _ => frontend::array_op(ctx.prog, t)
                .is_some_and(|op| op.kind != frontend::ArrayOpKind::Library),
        }
    }

    fn branch(&self, ctx: &crate::Ctx<'_>, t: &Stmt) -> bool {
        // the IFs of a DO CONCURRENT get no branch markers
        !Self::in_concurrent(ctx.prog, t)
    }

    fn call(&self, ctx: &crate::Ctx<'_>, t: &Stmt) -> bool {
        // a DO CONCURRENT's iterations may run in any order: no shared local updated in them
        !Self::in_concurrent(ctx.prog, t)
    }

    fn escapes(&self, _ctx: &crate::Ctx<'_>, t: &Stmt) -> bool {
        // `exit NAME` / `cycle NAME` naming no enclosing loop: its markers are left alone
        if !matches!(t.kind, StmtKind::Break | StmtKind::Continue) {
            return false;
        }
        let Some(name) = self.jump_name(t.id) else {
            return false;
        };
        let mut cur = t.parent;
        while let Some(p) = cur {
            if self.loop_name(p).as_deref() == Some(name.as_str()) {
                return false;
            }
            cur = self.stmt(p).and_then(|ps| ps.parent);
        }
        true
    }
}
