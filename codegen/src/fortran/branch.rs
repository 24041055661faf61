//! Fortran branches: logical IFs turned into block IFs when they need room, branch markers in
//! every arm of IF / ELSE IF / ELSE and SELECT CASE, an ELSE or CASE DEFAULT added when missing.
use std::collections::BTreeMap;

use frontend::{Stmt, StmtKind};

use super::in_files;
use super::{code_of, guarded, is_comment, F};
use crate::accum::f_branch;
use crate::edit::Key;
use crate::{CodegenError, FortranForm};

impl F<'_, '_> {
    /// Logical IFs that need room: the gap between `)` and the body becomes ` THEN` + newline.
    pub(super) fn convert_logical_ifs(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        let only = self.only;
        let skip = |s: &Stmt| !in_files(prog, only, s.proc) || Self::in_concurrent(prog, s);
        for s in prog.stmts.iter().filter(|s| !skip(s)) {
            let StmtKind::If(i) = &s.kind else { continue };
            let logical =
                i.end_span.start == s.span.start && i.arms.len() == 1 && i.else_body.is_none();
            let Some(arm) = i.arms.first() else { continue };
            if !logical {
                continue;
            }
            let needs = !self.ctx.plan.branches_of(s.id).is_empty()
                || arm
                    .body
                    .iter()
                    .any(|b| self.lines.before.contains_key(b) || self.lines.after.contains_key(b));
            if !needs {
                continue;
            }
            let f = self.file(s.span.file)?;
            let cond_end = arm.cond.span.end as usize;
            let Some(close) = f
                .text
                .get(cond_end..)
                .and_then(|t| t.find(')'))
                .map(|i| cond_end + i + 1)
            else {
                continue;
            };
            let Some(body_start) = arm
                .body
                .iter()
                .filter_map(|b| self.stmt(*b))
                .map(|b| b.span.start as usize)
                .min()
            else {
                continue;
            };
            if body_start < close {
                continue;
            }
            let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            let d = self.ctx.depth(s.id);
            let body_indent = self.inner_indent(&first);
            let last = self.ctx.sources.last_line(s.span);
            let at = match self.split_after(s.span)? {
                Some(next) => next,
                None => f.line_start(last + 1) as usize,
            };
            let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
                "\n"
            } else {
                ""
            };
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
    pub(super) fn branches(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        let only = self.only;
        let skip = |s: &Stmt| !in_files(prog, only, s.proc) || Self::in_concurrent(prog, s);
        for s in prog.stmts.iter().filter(|s| !skip(s)) {
            let StmtKind::If(i) = &s.kind else { continue };
            let marks = self.ctx.plan.branches_of(s.id);
            if marks.is_empty() {
                continue;
            }
            let file = s.span.file;
            let d = self.ctx.depth(s.id);
            // a converted logical IF followed by another statement on its line: ELSE before it
            let split = if self.converted.contains_key(&s.id) {
                self.split_after(s.span)?
            } else {
                None
            };
            let f = self.file(file)?;
            let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
            let inner = self.inner_indent(&first);
            let threads = self.ctx.in_threads(s.id);
            let acc = &self.ctx.accum.clone(); // the edits below borrow the context
            let code_for = |j: u32| -> Vec<String> {
                let mut c: Vec<String> = marks
                    .range(..j)
                    .map(|(_, site)| f_branch(acc, *site, 1))
                    .collect();
                if let Some(site) = marks.get(&j) {
                    c.push(f_branch(acc, *site, 0));
                }
                guarded(c, threads)
            };
            let rest: Vec<String> = guarded(
                marks.values().map(|site| f_branch(acc, *site, 1)).collect(),
                threads,
            );
            let lines = |v: &[String]| -> String {
                v.iter()
                    .map(|c| {
                        if c.starts_with("!$omp") {
                            format!("{c}\n")
                        } else {
                            super::line(self.form, &inner, c)
                        }
                    })
                    .collect()
            };
            if let Some((_, body_start)) = self.converted.get(&s.id).copied() {
                // the converted logical IF: markers after THEN, ELSE before END IF
                let e = self.ctx.edits(file);
                e.insert(body_start, lines(&code_for(0)), Key::before(2 * d + 1));
                let last = self.ctx.sources.last_line(s.span);
                let f = self.file(file)?;
                let at = split.unwrap_or(f.line_start(last + 1) as usize);
                let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
                    "\n"
                } else {
                    ""
                };
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
                    self.ctx
                        .note(Some(s.span), "THEN not found: branch markers left out");
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
                    self.ctx
                        .edits(file)
                        .insert(at, text, Key::before(2 * d + 1));
                }
            }
            let f = self.file(file)?;
            let end_line = self.ctx.sources.last_line(i.end_span);
            let else_line = (after_line + 1..end_line).find(|&l| {
                if is_comment(f.line_text(l), self.form) {
                    return false;
                }
                let c = code_of(f.line_text(l), self.form)
                    .trim_start()
                    .to_ascii_lowercase();
                let is_else = c.starts_with("else")
                    && !c[4..].starts_with(|ch: char| ch.is_ascii_alphanumeric() || ch == '_');
                is_else && !c[4..].trim_start().starts_with("if") && !c.starts_with("elseif")
            });
            let text = lines(&rest);
            match (else_line, &i.else_body) {
                (Some(l), Some(_)) => {
                    let at = f.line_start(l + 1) as usize;
                    self.ctx
                        .edits(file)
                        .insert(at, text, Key::before(2 * d + 1));
                }
                (None, None) => {
                    let at = f.line_start(end_line) as usize;
                    let text = format!("{}{text}", self.render(&first, "else"));
                    self.ctx.edits(file).insert(at, text, Key::after(2 * d + 1));
                }
                _ => self.ctx.note(
                    Some(s.span),
                    "ELSE not found: its branch marker is left out",
                ),
            }
        }
        Ok(())
    }

    /// SELECT CASE: markers after each CASE line (CASE DEFAULT is the else), a CASE DEFAULT
    /// added when there is none.
    fn select_case(
        &mut self,
        s: &Stmt,
        i: &frontend::If,
        marks: &BTreeMap<u32, u32>,
        d: i64,
    ) -> Result<(), CodegenError> {
        let file = s.span.file;
        let f = self.file(file)?;
        let first = f.line_text(self.ctx.sources.first_line(s.span)).to_string();
        let inner = self.inner_indent(&first);
        let line_of = |codes: Vec<String>| -> String {
            codes
                .iter()
                .map(|c| super::line(self.form, &inner, c))
                .collect()
        };
        let mut has_default = false;
        let mut edits = Vec::new();
        for (j, arm) in i.arms.iter().enumerate() {
            let head = self.ctx.sources.first_line(arm.cond.span);
            let text = f.line_text(head);
            let continued = match self.form {
                FortranForm::Free => text
                    .split('!')
                    .next()
                    .unwrap_or("")
                    .trim_end()
                    .ends_with('&'),
                FortranForm::Fixed => {
                    let next = f.line_text(head + 1);
                    next.len() > 5
                        && !next.starts_with(['c', 'C', '*', '!'])
                        && !matches!(next.as_bytes()[5], b' ' | b'0')
                }
            };
            if continued {
                self.ctx.note(
                    Some(s.span),
                    "CASE selector on several lines: branch markers left out",
                );
                return Ok(());
            }
            let lower = code_of(text, self.form).to_ascii_lowercase();
            has_default |= lower.contains("default");
            let j = u32::try_from(j).unwrap_or(u32::MAX);
            let acc = &self.ctx.accum;
            let mut codes: Vec<String> = marks
                .range(..j)
                .map(|(_, site)| f_branch(acc, *site, 1))
                .collect();
            if let Some(site) = marks.get(&j) {
                codes.push(f_branch(acc, *site, 0));
            }
            if !codes.is_empty() {
                edits.push((
                    f.line_start(head + 1) as usize,
                    line_of(codes),
                    Key::before(2 * d + 1),
                ));
            }
        }
        if let Some(head) = i.switch.as_ref().and_then(|w| w.default) {
            // the else: every arm's marker not taken, after the CASE DEFAULT line
            has_default = true;
            let rest: Vec<String> = marks
                .values()
                .map(|site| f_branch(&self.ctx.accum, *site, 1))
                .collect();
            if !rest.is_empty() {
                let line = self.ctx.sources.first_line(head);
                edits.push((
                    f.line_start(line + 1) as usize,
                    line_of(rest),
                    Key::before(2 * d + 1),
                ));
            }
        }
        if !has_default {
            let end = f.line_start(self.ctx.sources.last_line(i.end_span)) as usize;
            let rest: Vec<String> = marks
                .values()
                .map(|site| f_branch(&self.ctx.accum, *site, 1))
                .collect();
            let case_indent = self.render(&first, "case default");
            edits.push((
                end,
                format!("{case_indent}{}", line_of(rest)),
                Key::after(2 * d + 1),
            ));
        }
        for (at, text, key) in edits {
            self.ctx.edits(file).insert(at, text, key);
        }
        Ok(())
    }
}
