//! Statement labels of Fortran program units, checked before parsing: a `DO 20` with no
//! statement labelled 20 after it in its unit swallows the rest of the file into its body
//! (the parser error then surfaces at the next SUBROUTINE, or the whole program is lost), so
//! it is reported at the DO and the DO statement is blanked to a `continue` of the same
//! length (its body stays as straight-line code); a label defined twice is reported at its
//! second definition. Works on the assembled text (fixed form arrives normalised, with `&`
//! continuations), so offsets map back through [`Assembled`].
use std::collections::BTreeMap;

use crate::diagnostic::{codes, Diagnostic};
use crate::ir::{FileId, Sources};
use crate::source_map::Assembled;

/// One statement: byte ranges of its code on each of its lines, its label and its text
/// (first line, after the label, lower-cased).
struct Statement {
    /// (start, end) of the code on each line, first line from after the label.
    parts: Vec<(usize, usize)>,
    label: Option<u32>,
    text: String,
}

/// End of the code of `line` (before a `!` comment outside quotes), trailing blanks cut.
pub(crate) fn code_len(line: &str) -> usize {
    let mut quote: Option<char> = None;
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '!') => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    line[..end].trim_end().len()
}

fn statements(text: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    let mut at = 0usize;
    let mut open = false;
    for raw in text.split_inclusive('\n') {
        let line_start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let len = code_len(line);
        let code = &line[..len];
        if code.trim().is_empty() || code.trim_start().starts_with('#') {
            continue;
        }
        let lead = len - code.trim_start().len();
        let continued = code.ends_with('&');
        if open {
            if let Some(s) = out.last_mut() {
                s.parts.push((line_start + lead, line_start + len));
            }
            open = continued;
            continue;
        }
        open = continued;
        let body = code.trim_start();
        let digits = body.bytes().take_while(u8::is_ascii_digit).count();
        let after = &body[digits..];
        let (label, rest, skip) = if digits > 0 && digits <= 5 && after.starts_with([' ', '\t']) {
            let rest = after.trim_start();
            (
                body[..digits].parse().ok(),
                rest,
                lead + digits + after.len() - rest.len(),
            )
        } else {
            (None, body, lead)
        };
        out.push(Statement {
            parts: vec![(line_start + skip, line_start + len)],
            label,
            text: rest.to_ascii_lowercase(),
        });
    }
    out
}

/// Whether a statement ends a program unit (`end`, `end subroutine x`, `endprogram`).
fn ends_unit(text: &str) -> bool {
    let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let Some(rest) = squeezed.strip_prefix("end") else {
        return false;
    };
    rest.is_empty()
        || [
            "program",
            "subroutine",
            "function",
            "module",
            "submodule",
            "blockdata",
        ]
        .iter()
        .any(|k| rest.starts_with(k))
}

/// Whether a statement starts a program unit or subprogram, whose labels are its own:
/// `program p`, `module m` (not `module procedure`), `subroutine s`, `block data`,
/// `recursive subroutine s`, `integer function f(x)`, `real*8 function f`,
/// `type(t) function f()`, `module function f`.
fn starts_unit(text: &str) -> bool {
    const PREFIXES: [&str; 6] = [
        "recursive",
        "pure",
        "impure",
        "elemental",
        "non_recursive",
        "module",
    ];
    const TYPES: [&str; 8] = [
        "integer",
        "real",
        "logical",
        "complex",
        "character",
        "doubleprecision",
        "doublecomplex",
        "type",
    ];
    let word = |t: &str| {
        let t = t.trim_start();
        let end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(t.len());
        (t[..end].to_string(), t[end..].to_string())
    };
    let named = |rest: &str| {
        rest.starts_with([' ', '\t']) && word(rest).0.starts_with(|c: char| c.is_ascii_alphabetic())
    };
    let mut t = text.trim_start().to_string();
    let mut typed = false;
    loop {
        let (mut w, mut rest) = word(&t);
        if w == "double" || w == "block" {
            let (w2, r2) = word(&rest);
            w.push_str(&w2);
            rest = r2;
        }
        match w.as_str() {
            "program" | "subroutine" | "submodule" if !typed => {
                return named(&rest) || (w == "submodule" && rest.trim_start().starts_with('('))
            }
            "blockdata" if !typed => return true,
            "function" => return named(&rest),
            "module" if !typed => {
                let (next, _) = word(&rest);
                if next == "procedure" {
                    return false;
                }
                if !PREFIXES.contains(&next.as_str())
                    && !TYPES.contains(&next.as_str())
                    && !["subroutine", "function", "double", "class"].contains(&next.as_str())
                {
                    return named(&rest);
                }
                t = rest;
            }
            p if PREFIXES.contains(&p) => t = rest,
            ty if !typed && (TYPES.contains(&ty) || ty == "class") => {
                typed = true;
                let r = rest.trim_start();
                // a kind or length: `*8`, `(kind=8)`, `(t)`
                t = if let Some(r) = r.strip_prefix('*') {
                    let r = r.trim_start();
                    r.trim_start_matches(|c: char| c.is_ascii_digit())
                        .to_string()
                } else if r.starts_with('(') {
                    let mut depth = 0usize;
                    let mut cut = r.len();
                    for (i, c) in r.char_indices() {
                        match c {
                            '(' => depth += 1,
                            ')' => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    cut = i + 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    r[cut..].to_string()
                } else if ty == "type" || ty == "class" {
                    return false;
                } else {
                    format!(" {r}")
                };
            }
            _ => return false,
        }
    }
}

/// The label a `DO` statement ends on: `do 20 i = …`, `do20i=…`, `do 20, i = …`,
/// `name: do 20 while (…)`.
fn do_label(text: &str) -> Option<u32> {
    let t = match text.split_once(':') {
        Some((name, rest))
            if !name.is_empty()
                && name
                    .trim()
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            rest.trim_start()
        }
        _ => text,
    };
    let t = t.strip_prefix("do")?.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 5 {
        return None;
    }
    let after = t[digits..].trim_start();
    let after = after.strip_prefix(',').unwrap_or(after).trim_start();
    after
        .starts_with(|c: char| c.is_ascii_alphabetic())
        .then(|| t[..digits].parse().ok())
        .flatten()
}

/// The statements (indices) of each scoping unit of `stmts`, in the order they close. A
/// subprogram's statements are its own, not its host's: a unit opens at its first statement
/// (`subroutine s`, after a host's `contains` or in an interface block) and closes at its
/// `end`, after which its host's statements go on (the host's `end` is the host's).
fn units(stmts: &[Statement]) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut open: Vec<Vec<usize>> = vec![Vec::new()];
    for (k, s) in stmts.iter().enumerate() {
        if starts_unit(&s.text) {
            open.push(Vec::new());
        }
        if let Some(u) = open.last_mut() {
            u.push(k);
        }
        if ends_unit(&s.text) {
            out.extend(open.pop());
            if open.is_empty() {
                open.push(Vec::new());
            }
        }
    }
    out.extend(open.into_iter().rev().filter(|u| !u.is_empty()));
    out
}

/// Checks the labels of each program unit of `asm` (the text of `file`), blanking DO
/// statements with no terminating label so the parse keeps what follows them.
pub fn check(asm: &mut Assembled, file: FileId, sources: &Sources) -> Vec<Diagnostic> {
    let stmts = statements(&asm.text);
    let mut diags = Vec::new();
    let mut blank: Vec<usize> = Vec::new();
    for u in units(&stmts) {
        unit(&stmts, &u, asm, file, sources, &mut diags, &mut blank);
    }
    if blank.is_empty() {
        return diags;
    }
    let mut bytes = std::mem::take(&mut asm.text).into_bytes();
    for k in blank {
        for (n, &(a, b)) in stmts[k].parts.iter().enumerate() {
            for x in &mut bytes[a..b] {
                *x = b' ';
            }
            if n == 0 && b - a >= "continue".len() {
                bytes[a..a + "continue".len()].copy_from_slice(b"continue");
            }
        }
    }
    asm.text = String::from_utf8(bytes).unwrap_or_default();
    diags
}

/// Checks one unit: `idx` are its statements' indices in `stmts`.
fn unit(
    all: &[Statement],
    idx: &[usize],
    asm: &Assembled,
    file: FileId,
    sources: &Sources,
    diags: &mut Vec<Diagnostic>,
    blank: &mut Vec<usize>,
) {
    let where_ = |s: &Statement| {
        let (a, b) = s.parts[0];
        let span = asm.span(a, b, file);
        let name = sources
            .path(span.file)
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let line = sources.get(span.file).map_or(0, |f| f.line_of(span.start));
        (span, name, line)
    };
    let stmts: Vec<&Statement> = idx.iter().map(|&k| &all[k]).collect();
    for (k, s) in stmts.iter().enumerate() {
        let Some(l) = do_label(&s.text) else { continue };
        let ends = stmts[k + 1..].iter().any(|t| t.label == Some(l));
        if ends {
            continue;
        }
        let (span, name, line) = where_(s);
        diags.push(
            Diagnostic::error(
                codes::LABEL,
                format!("DO {l} at {name}:{line} has no terminating statement labelled {l}"),
            )
            .with_primary(span, format!("no statement labelled {l} follows in this program unit"))
            .with_note(format!(
                "label the loop's last statement {l} (`{l} CONTINUE`); until then the loop is dropped and its body read once"
            )),
        );
        blank.push(idx[k]);
    }
    // label → index of its first definition
    let mut defined: BTreeMap<u32, usize> = BTreeMap::new();
    for (k, s) in stmts.iter().enumerate() {
        let Some(l) = s.label else { continue };
        if let Some(&first) = defined.get(&l) {
            let (_, _, first_line) = where_(stmts[first]);
            let (span, _, line) = where_(s);
            diags.push(
                Diagnostic::error(
                    codes::LABEL,
                    format!("label {l} defined twice, at lines {first_line} and {line}"),
                )
                .with_primary(span, "defined again here")
                .with_note(
                    "a DO or GOTO to it is read as going to the first one; renumber one of them",
                ),
            );
        } else {
            defined.insert(l, k);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn do_labels_are_read_in_their_spellings() {
        assert_eq!(do_label("do 20 i = 1, n"), Some(20));
        assert_eq!(do_label("do20i=1,n"), Some(20));
        assert_eq!(do_label("do 20, i = 1, n"), Some(20));
        assert_eq!(do_label("outer: do 20 while (x)"), Some(20));
        assert_eq!(do_label("do i = 1, n"), None);
        assert_eq!(do_label("double precision x"), None);
        assert_eq!(do_label("do 20"), None);
    }

    #[test]
    fn unit_starts() {
        for t in [
            "program host",
            "subroutine inner(m)",
            "recursive subroutine r",
            "module ops",
            "module subroutine s(x)",
            "integer function f(x)",
            "real*8 function f(x)",
            "real(kind=8) function b(n)",
            "double precision function d(x)",
            "type(grid) function g()",
            "pure elemental real function e(x)",
            "block data init",
            "submodule (ops) impl",
        ] {
            assert!(starts_unit(t), "{t}");
        }
        for t in [
            "module procedure s",
            "integer function_count",
            "real functions(10)",
            "type grid",
            "type, extends(a) :: b",
            "program = 3",
            "contains",
            "call subroutine(x)",
        ] {
            assert!(!starts_unit(t), "{t}");
        }
    }

    #[test]
    fn unit_ends() {
        assert!(ends_unit("end"));
        assert!(ends_unit("end subroutine halo"));
        assert!(ends_unit("endprogram"));
        assert!(!ends_unit("end do"));
        assert!(!ends_unit("endif"));
        assert!(!ends_unit("end = 3"));
    }
}
