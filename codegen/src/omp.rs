//! OpenMP loop directives: where a loop's markers go when directives precede it (outside
//! them: a directive must be followed by its loop), and which loops run their iterations on
//! several threads (a counter they share needs a reduction; markers inside must not race).
//!
//! Found in the original text, not in the IR: the front end reads `#pragma` lines and `!$omp`
//! comments as trivia. Scans are bounded by the text and never panic.
use frontend::SourceFile;

use crate::FortranForm;

/// What the directives before a loop say about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Directives {
    /// C: byte offset of the first directive's line start (the loop's opening markers go
    /// there). Fortran: 1-based line of the first directive.
    pub start: usize,
    /// Where a clause is added to each OpenMP loop directive: C byte offsets (end of the
    /// directive's text, before a trailing comment); Fortran: last line of each directive.
    pub clause_at: Vec<usize>,
    /// The loop's iterations run on several threads (`parallel for`, `taskloop`, …).
    pub threads: bool,
    /// `collapse(n)`: the loops nested inside belong to the directive too.
    pub collapse: bool,
    /// A worksharing loop (`omp for` / `omp do`) with no `parallel` of its own: inside a
    /// parallel region its markers would run on every thread.
    pub worksharing: bool,
    /// `parallel` with no loop construct: every thread runs the whole loop.
    pub region: bool,
    /// The first construct word of each directive (`parallel`, `do`, …), nearest the loop first.
    pub names: Vec<String>,
    loop_at: Vec<usize>,
    region_at: Vec<usize>,
    parallel: bool,
    ws_loop: bool,
}

/// The words of an OpenMP directive after its sentinel (`parallel`, `for`, `private`, …).
fn words(d: &str) -> Vec<String> {
    d.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect()
}

/// Directive names (before the first clause) of an OpenMP directive's text after `omp`.
fn construct(d: &str) -> Vec<String> {
    const NAMES: &[&str] = &[
        "parallel",
        "for",
        "do",
        "simd",
        "taskloop",
        "loop",
        "distribute",
        "teams",
        "target",
        "masked",
        "master",
    ];
    words(d)
        .into_iter()
        .take_while(|w| NAMES.contains(&w.as_str()))
        .collect()
}

/// Adds one OpenMP directive (its text after the sentinel; clauses go at `at`) to `out`.
fn classify(d: &str, at: usize, out: &mut Directives, fortran: bool) {
    let names = construct(d);
    let has = |n: &str| names.iter().any(|w| w == n);
    let ws = has(if fortran { "do" } else { "for" });
    let looped = ws || has("simd") || has("taskloop") || has("loop") || has("distribute");
    out.names.extend(names.first().cloned());
    out.parallel |= has("parallel");
    if looped {
        out.threads |= has("parallel") || ws || has("taskloop") || has("distribute") || has("loop");
        out.ws_loop |= ws;
        out.collapse |= words(d).iter().any(|w| w == "collapse");
        out.loop_at.push(at);
    } else if has("parallel") {
        out.threads = true;
        out.region_at.push(at);
    }
}

impl Directives {
    fn empty(start: usize) -> Directives {
        Directives {
            start,
            clause_at: Vec::new(),
            threads: false,
            collapse: false,
            worksharing: false,
            region: false,
            names: Vec::new(),
            loop_at: Vec::new(),
            region_at: Vec::new(),
            parallel: false,
            ws_loop: false,
        }
    }

    /// The summary once every directive is read: a `parallel` above a worksharing loop
    /// directive makes one construct with it (clauses go to the loop directive: a reduction on
    /// both would privatise the counter twice).
    fn finish(mut self) -> Directives {
        self.worksharing = self.ws_loop && !self.parallel;
        self.region = self.loop_at.is_empty() && !self.region_at.is_empty();
        self.clause_at = if self.loop_at.is_empty() {
            std::mem::take(&mut self.region_at)
        } else {
            std::mem::take(&mut self.loop_at)
        };
        self
    }
}

/// Byte offset of the start of the line holding `pos`.
fn line_start(text: &str, pos: usize) -> usize {
    text.get(..pos)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1)
}

/// Where a clause goes on a C directive's last physical line `[ls, le)`: before a trailing
/// `//` or `/*` comment, after the last non-blank character.
fn c_clause_at(text: &str, ls: usize, le: usize) -> usize {
    let line = text.get(ls..le).unwrap_or("");
    let mut cut = line.len();
    let b = line.as_bytes();
    let mut quote = None;
    let mut i = 0;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), b'\\') => i += 1,
            (None, b'"' | b'\'') => quote = Some(b[i]),
            (None, b'/') if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                cut = i;
                break;
            }
            _ => {}
        }
        i += 1;
    }
    ls + line.get(..cut).unwrap_or("").trim_end().len()
}

/// `_Pragma("…")` operators filling `seg` (blank text around them allowed): for each, the
/// offset (in `seg`) of its `_Pragma`, of its string's closing quote, and the string's text.
/// `None` when `seg` holds anything else.
fn pragma_ops(seg: &str) -> Option<Vec<(usize, usize, &str)>> {
    let mut out = Vec::new();
    let mut pos = 0;
    loop {
        let rest = seg.get(pos..)?;
        let t = rest.trim_start();
        if t.is_empty() {
            return (!out.is_empty()).then_some(out);
        }
        let at = pos + rest.len() - t.len();
        let after = t.strip_prefix("_Pragma")?.trim_start().strip_prefix('(')?;
        let after_t = after.trim_start().strip_prefix('"')?;
        let open = seg.len() - after_t.len();
        let close = open + after_t.find('"')?;
        let tail = seg.get(close + 1..)?.trim_start().strip_prefix(')')?;
        out.push((at, close, seg.get(open..close)?));
        pos = seg.len() - tail.len();
    }
}

/// Adds the `_Pragma` operators of `seg` (at byte `base` of the text) to `out`.
fn add_pragma_ops(ops: &[(usize, usize, &str)], base: usize, out: &mut Directives) {
    for &(_, close, body) in ops {
        if let Some(omp) = body.trim_start().strip_prefix("omp") {
            if omp.starts_with(|c: char| c.is_ascii_whitespace()) {
                classify(omp, base + close, out, false);
            }
        }
    }
}

/// The directives on the lines before a C loop starting at byte `loop_start`: consecutive
/// `#pragma` lines (with `\` continuations), balanced `#if`/`#endif` around them, blank and
/// `//` lines between. `None` when no `#pragma` precedes the loop.
pub(crate) fn c_directives(text: &str, loop_start: usize) -> Option<Directives> {
    let ls = line_start(text, loop_start);
    let mut out = Directives::empty(ls);
    let mut found = false;
    let mut balanced_start = None;
    let pre = text.get(ls..loop_start)?;
    if !pre.trim().is_empty() {
        // `_Pragma("omp …") for (…)` on one line
        let ops = pragma_ops(pre)?;
        add_pragma_ops(&ops, ls, &mut out);
        found = true;
        balanced_start = ops.first().map(|o| ls + o.0);
    }
    let mut cur = ls;
    // `#endif`s seen minus `#if`s: a start is only taken where the conditionals balance
    let mut depth = 0i32;
    while cur > 0 {
        let le = cur - 1;
        let pls = line_start(text, le);
        let line = text.get(pls..le)?.trim_end_matches('\r');
        let t = line.trim();
        if t.is_empty() || t.starts_with("//") {
            cur = pls;
            continue;
        }
        // the logical line: earlier physical lines ending with `\` belong to it
        let mut s = pls;
        while s > 0 {
            let p = line_start(text, s - 1);
            if text.get(p..s - 1)?.trim_end().ends_with('\\') {
                s = p;
            } else {
                break;
            }
        }
        let logical = text.get(s..le)?.trim_start();
        let Some(d) = logical.strip_prefix('#') else {
            match pragma_ops(line) {
                Some(ops) => {
                    add_pragma_ops(&ops, pls, &mut out);
                    found = true;
                    cur = pls;
                    if depth == 0 {
                        balanced_start = Some(pls);
                    }
                    continue;
                }
                None => break,
            }
        };
        let d = d.trim_start();
        let word: String = d
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        match word.as_str() {
            "pragma" => {
                found = true;
                let body = d.get(6..).unwrap_or("").trim_start();
                if let Some(omp) = body.strip_prefix("omp") {
                    if omp.starts_with(|c: char| c.is_ascii_whitespace()) {
                        classify(omp, c_clause_at(text, pls, le), &mut out, false);
                    }
                }
            }
            "endif" => depth += 1,
            "if" | "ifdef" | "ifndef" => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            "else" | "elif" | "elifdef" | "elifndef" if depth > 0 => {}
            _ => break,
        }
        cur = s;
        if depth == 0 && found {
            balanced_start = Some(s);
        }
    }
    out.start = balanced_start?;
    Some(out.finish())
}

/// An OpenMP directive line of Fortran (`!$omp …`; fixed form also `c$omp`, `*$omp` in
/// column 1): its text after the sentinel, and whether it is a continuation line.
fn f_directive(line: &str, form: FortranForm) -> Option<(&str, bool)> {
    let t = match form {
        FortranForm::Fixed => line,
        FortranForm::Free => line.trim_start(),
    };
    let head = t.get(..5)?;
    let sentinel = match form {
        FortranForm::Fixed => matches!(
            head.to_ascii_lowercase().as_str(),
            "!$omp" | "c$omp" | "*$omp"
        ),
        FortranForm::Free => head.eq_ignore_ascii_case("!$omp"),
    };
    if !sentinel {
        return None;
    }
    let rest = t.get(5..).unwrap_or("");
    match form {
        FortranForm::Fixed => {
            let cont = rest.starts_with(|c: char| !c.is_ascii_whitespace() && c != '0');
            Some((rest.get(1..).unwrap_or(""), cont))
        }
        FortranForm::Free => {
            let r = rest.trim_start();
            match r.strip_prefix('&') {
                Some(r) => Some((r, true)),
                None => Some((rest, false)),
            }
        }
    }
}

/// A Fortran comment line that is not a directive (`!$` conditional lines are code).
fn f_plain_comment(line: &str, form: FortranForm) -> bool {
    let t = line.trim_start();
    if t.is_empty() {
        return true;
    }
    if t.starts_with("!$") {
        return false;
    }
    let fixed = form == FortranForm::Fixed
        && line.starts_with(['c', 'C', '*', 'd', 'D'])
        && line.get(1..2) != Some("$");
    fixed || t.starts_with('!')
}

/// Whether a free-form directive line continues on the next (`… &`).
fn f_continues(line: &str, form: FortranForm) -> bool {
    form == FortranForm::Free && line.trim_end().ends_with('&')
}

/// The `!$omp` directives on the lines before a Fortran DO on line `do_line` (comment lines
/// between skipped). Lines are 1-based; `start` and `clause_at` are lines.
pub(crate) fn fortran_directives(
    f: &SourceFile,
    do_line: u32,
    form: FortranForm,
) -> Option<Directives> {
    let mut out = Directives::empty(0);
    let mut line = do_line;
    let mut found = None;
    // the last line of the directive being read upwards, and its text so far
    let mut last: Option<u32> = None;
    let mut body = String::new();
    while line > 1 {
        line -= 1;
        let text = f.line_text(line);
        match f_directive(text, form) {
            Some((rest, cont)) => {
                if last.is_none() {
                    last = Some(line);
                }
                body.insert_str(0, &format!("{} ", rest.trim_end().trim_end_matches('&')));
                // a continuation (fixed: column 6; free: the previous line ends with `&`)
                let first = match form {
                    FortranForm::Fixed => !cont,
                    FortranForm::Free => !f_continues(f.line_text(line.saturating_sub(1)), form),
                };
                if first {
                    let d = body.trim_start().to_ascii_lowercase();
                    if d.starts_with("end") {
                        break;
                    }
                    classify(&d, last.unwrap_or(line) as usize, &mut out, true);
                    found = Some(line);
                    last = None;
                    body.clear();
                }
            }
            None if last.is_none() && f_plain_comment(text, form) => {}
            None => break,
        }
    }
    out.start = found? as usize;
    Some(out.finish())
}

/// The last of the `!$omp end …` lines right after a DO ending on `end_line` that close the
/// loop's directives (`names`: [`Directives::names`], each closed once), if any.
pub(crate) fn fortran_end(
    f: &SourceFile,
    end_line: u32,
    form: FortranForm,
    names: &[String],
) -> Option<u32> {
    let mut open: Vec<&String> = names.iter().collect();
    let mut line = end_line;
    let mut last = None;
    while line < f.line_count() {
        line += 1;
        let text = f.line_text(line);
        if let Some((rest, false)) = f_directive(text, form) {
            let w = words(rest);
            if w.first().map(String::as_str) != Some("end") {
                break;
            }
            let Some(k) = w.get(1).and_then(|n| open.iter().position(|o| *o == n)) else {
                break;
            };
            open.remove(k);
            last = Some(line);
            continue;
        }
        if !f_plain_comment(text, form) {
            break;
        }
    }
    last
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn c(text: &str) -> Option<Directives> {
        let at = text.find("for (").unwrap();
        c_directives(text, at)
    }

    #[test]
    fn c_parallel_for_with_continuation_and_comment() {
        let t = "x = 1;\n  #pragma omp parallel for \\\n     private(j) /* c */\n  for (i = 0; i < n; i++) ;\n";
        let d = c(t).unwrap();
        assert_eq!(d.start, 7);
        assert!(d.threads && !d.worksharing && !d.collapse);
        assert_eq!(d.clause_at.len(), 1);
        assert_eq!(
            &t[..d.clause_at[0]],
            "x = 1;\n  #pragma omp parallel for \\\n     private(j)"
        );
    }

    #[test]
    fn c_kinds() {
        let simd = c("#pragma omp simd reduction(+:s)\nfor (;;) ;\n").unwrap();
        assert!(!simd.threads && simd.clause_at.len() == 1);
        let ws = c("#pragma omp for collapse(2)\nfor (;;) ;\n").unwrap();
        assert!(ws.worksharing && ws.collapse && ws.threads);
        let other = c("y();\n#pragma GCC ivdep\n\nfor (;;) ;\n").unwrap();
        assert_eq!(
            (other.start, other.clause_at.len(), other.threads),
            (5, 0, false)
        );
        let region = c("#pragma omp parallel\nfor (;;) ;\n").unwrap();
        assert!(region.region && region.clause_at.len() == 1);
        assert_eq!(c("y();\nfor (;;) ;\n"), None);
        assert_eq!(c("y(); for (;;) ;\n"), None);
        // `#pragma ompx` is not OpenMP
        assert!(c("#pragma ompx parallel for\nfor (;;) ;\n")
            .unwrap()
            .clause_at
            .is_empty());
    }

    #[test]
    fn c_pragma_operators() {
        let t = "x();\n  _Pragma(\"omp parallel for\") for (i = 0; i < n; i++) ;\n";
        let d = c(t).unwrap();
        assert_eq!(d.start, t.find("_Pragma").unwrap());
        assert!(d.threads);
        assert_eq!(&t[d.clause_at[0]..d.clause_at[0] + 2], "\")");
        let t = "x();\n_Pragma(\"omp simd\")\nfor (;;) ;\n";
        let d = c(t).unwrap();
        assert_eq!((d.start, d.threads, d.clause_at.len()), (5, false, 1));
        assert_eq!(c("x(); f(1) for (;;) ;\n"), None);
    }

    #[test]
    fn c_conditionals_must_balance() {
        let t = "#ifdef _OPENMP\n#pragma omp parallel for\n#endif\nfor (;;) ;\n";
        assert_eq!(c(t).unwrap().start, 0);
        // an `#endif` closing code that is not a directive: markers stay after it
        assert_eq!(c("#ifdef X\n  f();\n#endif\nfor (;;) ;\n"), None);
        let t = "#ifdef X\n  f();\n#endif\n#pragma omp simd\nfor (;;) ;\n";
        assert_eq!(c(t).unwrap().start, t.find("#pragma").unwrap());
    }

    fn file(text: &str) -> SourceFile {
        SourceFile::new("a.f90".into(), text.to_string())
    }

    #[test]
    fn fortran_parallel_do() {
        let f = file("x = 1\n!$omp parallel do &\n!$omp& private(j)\n! note\ndo i = 1, n\nend do\n!$OMP END PARALLEL DO\n");
        let d = fortran_directives(&f, 5, FortranForm::Free).unwrap();
        assert_eq!(
            (d.start, d.clause_at.clone(), d.threads),
            (2, vec![3], true)
        );
        assert_eq!(fortran_end(&f, 6, FortranForm::Free, &d.names), Some(7));
        // a region around a worksharing DO closes after both ends; a region begun earlier
        // (code between) is not the loop's
        let r = file("!$omp parallel\n!$omp do\ndo i = 1, n\nend do\n!$omp end do nowait\n!$omp end parallel\n");
        let d = fortran_directives(&r, 3, FortranForm::Free).unwrap();
        assert_eq!(
            (d.start, d.clause_at.clone(), d.worksharing, d.threads),
            (1, vec![2], false, true)
        );
        assert_eq!(fortran_end(&r, 4, FortranForm::Free, &d.names), Some(6));
        let w = file("!$omp parallel\nx = 1\n!$omp do\ndo i = 1, n\nend do\n!$omp end do\n!$omp end parallel\n");
        let d = fortran_directives(&w, 4, FortranForm::Free).unwrap();
        assert_eq!((d.start, d.worksharing), (3, true));
        assert_eq!(fortran_end(&w, 5, FortranForm::Free, &d.names), Some(6));
        let g = file(
            "c$omp parallel do\nc$omp& private(j)\n      do i = 1, n\n      end do\n      x = 1\n",
        );
        let d = fortran_directives(&g, 3, FortranForm::Fixed).unwrap();
        assert_eq!((d.start, d.clause_at.clone()), (1, vec![2]));
        assert_eq!(fortran_end(&g, 4, FortranForm::Fixed, &d.names), None);
        let h = file("!$omp end parallel do\ndo i = 1, n\nend do\n");
        assert_eq!(fortran_directives(&h, 2, FortranForm::Free), None);
    }
}
