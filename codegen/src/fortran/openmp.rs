//! Fortran DO loops under `!$omp` directives: markers outside the directives (before the
//! first, after `!$omp end …`), and counters that several threads touch given data-sharing
//! clauses: a loop counted in its body by the directive's threads is a `reduction`, the
//! counters of loops nested in a parallel loop are `private` to its threads; a worksharing
//! `!$omp do` has its markers run by one thread (`!$omp single`).
use frontend::{Stmt, StmtKind};

use super::{in_files, F};
use crate::edit::Key;
use crate::{omp, CodegenError, FortranForm};

/// The directives of one loop.
pub(super) struct Omp {
    /// First line of the first directive.
    pub first: u32,
    /// The `!$omp end …` line after the loop, if any.
    pub end: Option<u32>,
    /// Last line of each OpenMP loop directive (clauses are added after it).
    clause_lines: Vec<u32>,
    worksharing: bool,
    /// Clauses to add (`reduction(+:augur_n_S)`, `private(augur_n_T)`).
    clauses: Vec<String>,
}

impl F<'_, '_> {
    /// Finds the directives before every loop of this pass; loops run by several threads go
    /// into `ctx.threaded`.
    pub(super) fn find_directives(&mut self) -> Result<(), CodegenError> {
        let prog = self.ctx.prog;
        let only = self.only;
        for s in prog.stmts.iter().filter(|s| in_files(prog, only, s.proc)) {
            let (header, end) = match &s.kind {
                StmtKind::Loop(l) => (l.header_span, l.end_span),
                StmtKind::While(w) => (w.header_span, w.end_span),
                _ => continue,
            };
            let f = self.file(header.file)?;
            let line = self.ctx.sources.first_line(header);
            let Some(d) = omp::fortran_directives(f, line, self.form) else {
                continue;
            };
            let end = omp::fortran_end(f, self.ctx.sources.last_line(end), self.form, &d.names);
            if d.threads {
                self.ctx.threaded.insert(s.id);
            }
            if d.collapse {
                self.ctx.note(Some(s.span), "OpenMP `collapse`: the markers of the collapsed inner loops break the loop nest the directive needs; remove `collapse` to profile");
            }
            if d.region {
                self.ctx.note(Some(s.span), "a loop that is a whole OpenMP `parallel` region runs once per thread: its iterations are counted once per thread");
            }
            self.omp.insert(
                s.id,
                Omp {
                    first: u32::try_from(d.start).unwrap_or(line),
                    end,
                    clause_lines: d
                        .clause_at
                        .iter()
                        .filter_map(|l| u32::try_from(*l).ok())
                        .collect(),
                    worksharing: d.worksharing,
                    clauses: Vec::new(),
                },
            );
        }
        Ok(())
    }

    /// Data sharing of loop `s`'s counter `augur_n_<site>`: a reduction of its own parallel
    /// directive when counted in the body (`in_body`), private to the innermost enclosing
    /// parallel loop (each of its threads runs the loop on its own).
    pub(super) fn counter_sharing(&mut self, s: &Stmt, site: u32, in_body: bool) {
        if in_body && self.ctx.threaded.contains(&s.id) {
            if let Some(o) = self.omp.get_mut(&s.id) {
                o.clauses.push(format!("reduction(+:augur_n_{site})"));
            }
        }
        let mut cur = s.parent;
        while let Some(p) = cur {
            if self.ctx.threaded.contains(&p) {
                if let Some(o) = self.omp.get_mut(&p) {
                    o.clauses.push(format!("private(augur_n_{site})"));
                }
                return;
            }
            cur = self.stmt(p).and_then(|ps| ps.parent);
        }
    }

    /// A worksharing `!$omp do` (no `parallel` of its own): every thread of the enclosing
    /// region runs the lines around it, so one thread runs the opening lines and, after a
    /// barrier (the loop's `nowait` skips its own), the closing lines; the counter is shared
    /// in the region (a variable of the procedure the region is written in).
    pub(super) fn single_worksharing(&mut self) {
        for (id, o) in &self.omp {
            if !o.worksharing {
                continue;
            }
            if let Some(b) = self.lines.before.get_mut(id).filter(|b| !b.is_empty()) {
                b.insert(0, "!$omp single".into());
                b.push("!$omp end single".into());
            }
            if let Some(a) = self.lines.after.get_mut(id).filter(|a| !a.is_empty()) {
                a.splice(
                    0..0,
                    ["!$omp barrier".to_string(), "!$omp single".to_string()],
                );
                a.push("!$omp end single".into());
            }
        }
    }

    /// Adds the collected clauses to each loop directive as continuation lines.
    pub(super) fn clauses(&mut self) -> Result<(), CodegenError> {
        let omp = std::mem::take(&mut self.omp);
        for (id, o) in &omp {
            if o.clauses.is_empty() {
                continue;
            }
            let Some(s) = self.stmt(*id) else { continue };
            let file = s.span.file;
            let f = self.file(file)?;
            for &line in &o.clause_lines {
                let text = f.line_text(line);
                let ls = f.line_start(line) as usize;
                match self.form {
                    FortranForm::Free => {
                        // before a trailing comment (a `!` past the sentinel)
                        let lead = text.len() - text.trim_start().len();
                        let cut = text
                            .get(lead + 5..)
                            .and_then(|t| t.find('!'))
                            .map_or(text.len(), |k| lead + 5 + k);
                        let at = ls + text.get(..cut).unwrap_or(text).trim_end().len();
                        let more: String = o
                            .clauses
                            .iter()
                            .map(|c| format!(" &\n!$omp& {c}"))
                            .collect();
                        self.ctx.edits(file).insert(at, more, Key::inline(0));
                    }
                    FortranForm::Fixed => {
                        let at = f.line_start(line + 1) as usize;
                        let prefix = if at >= f.text.len() && !f.text.ends_with('\n') {
                            "\n"
                        } else {
                            ""
                        };
                        let more: String =
                            o.clauses.iter().map(|c| format!("!$omp& {c}\n")).collect();
                        self.ctx.edits(file).insert(
                            at,
                            format!("{prefix}{more}"),
                            Key::after(-1000),
                        );
                    }
                }
            }
        }
        self.omp = omp;
        Ok(())
    }
}
