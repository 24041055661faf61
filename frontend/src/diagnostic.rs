//! The one diagnostic type (data), its builder, and renderers to text and JSON; never prints.
use std::fmt::Write as _;

use serde::Serialize;

use crate::ir::{Sources, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// Stable diagnostic codes (the strings are part of the JSON output).
pub mod codes {
    /// tree-sitter ERROR node.
    pub const SYNTAX: &str = "syntax-error";
    /// tree-sitter MISSING node.
    pub const MISSING: &str = "missing-token";
    /// A Fortran DO with no terminating label, or a label defined twice in a program unit.
    pub const LABEL: &str = "label";
    /// A construct the lowering keeps opaque and that may hide control flow (GOTO, ...).
    pub const UNSUPPORTED: &str = "unsupported";
    pub const INCLUDE_NOT_FOUND: &str = "include-not-found";
    pub const INCLUDE_CYCLE: &str = "include-cycle";
    pub const NON_UTF8: &str = "non-utf8";
    pub const EMPTY_FILE: &str = "empty-file";
    pub const TOO_DEEP: &str = "nesting-too-deep";
    pub const NONDETERMINISTIC: &str = "nondeterministic";
    pub const UNKNOWN_MPI: &str = "unknown-mpi-function";
    pub const MPI_ARITY: &str = "mpi-argument-count";
    pub const NO_PROCEDURE: &str = "no-procedure";
    pub const PARSE_FAILED: &str = "parse-failed";
    pub const IO: &str = "io-error";
    /// A multi-file program mixing C and Fortran.
    pub const MIXED_LANGUAGES: &str = "mixed-languages";
}

/// A span with a message; the primary label is where the problem is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
    pub primary: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    /// What went wrong: lowercase, no trailing period.
    pub message: String,
    pub labels: Vec<Label>,
    /// How to fix it, or context.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }
    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, code, message)
    }
    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Warning, code, message)
    }
    pub fn note(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Note, code, message)
    }
    /// Adds the primary label (the first one added with this is the headline location).
    pub fn with_primary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: true,
        });
        self
    }
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            message: message.into(),
            primary: false,
        });
        self
    }
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
    /// The headline span: the first primary label, else the first label.
    pub fn primary_span(&self) -> Option<Span> {
        self.labels
            .iter()
            .find(|l| l.primary)
            .or_else(|| self.labels.first())
            .map(|l| l.span)
    }
}

/// Renders `diag` as a human snippet:
///
/// ```text
/// error[syntax-error]: unexpected `)`
///   --> prog.f:12:7
///    |
/// 12 |       x = (a + b))
///    |       ^ here
///    = note: ...
/// ```
pub fn render_human(diag: &Diagnostic, sources: &Sources) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}[{}]: {}",
        diag.severity.as_str(),
        diag.code,
        diag.message
    );
    for label in &diag.labels {
        let Some(file) = sources.get(label.span.file) else {
            continue;
        };
        let lc = file.line_col(label.span.start);
        let gutter = lc.line.to_string().len();
        let pad = " ".repeat(gutter);
        let _ = writeln!(
            out,
            "{pad}--> {}:{}:{}",
            file.path.display(),
            lc.line,
            lc.col
        );
        let _ = writeln!(out, "{pad} |");
        let text = file.line_text(lc.line);
        let shown: String = text
            .chars()
            .take(200)
            .collect::<String>()
            .replace('\t', " ");
        let _ = writeln!(out, "{} | {}", lc.line, shown);
        let last = sources.last_line(label.span);
        let width = if last == lc.line {
            let end = file.line_col(label.span.end.max(label.span.start + 1));
            end.col.saturating_sub(lc.col).max(1)
        } else {
            u32::try_from(shown.chars().count())
                .unwrap_or(1)
                .saturating_sub(lc.col - 1)
                .max(1)
        };
        let marker = if label.primary { "^" } else { "-" };
        let _ = writeln!(
            out,
            "{pad} | {}{} {}",
            " ".repeat(lc.col.saturating_sub(1).min(200) as usize),
            marker.repeat(width.min(200) as usize),
            label.message
        );
    }
    for note in &diag.notes {
        let _ = writeln!(out, "  = note: {note}");
    }
    out
}

/// One label with its location resolved, for JSON output.
#[derive(Debug, Clone, Serialize)]
pub struct JsonLabel {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub message: String,
    pub primary: bool,
}

/// A diagnostic with resolved locations; `serde_json::to_string` it.
#[derive(Debug, Clone, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub labels: Vec<JsonLabel>,
    pub notes: Vec<String>,
}

pub fn to_json(diag: &Diagnostic, sources: &Sources) -> JsonDiagnostic {
    let labels = diag
        .labels
        .iter()
        .map(|l| {
            let lc = sources.start(l.span);
            JsonLabel {
                file: sources
                    .path(l.span.file)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
                line: lc.line,
                col: lc.col,
                end_line: sources.last_line(l.span),
                message: l.message.clone(),
                primary: l.primary,
            }
        })
        .collect();
    JsonDiagnostic {
        code: diag.code,
        severity: diag.severity,
        message: diag.message.clone(),
        labels,
        notes: diag.notes.clone(),
    }
}

/// Concise one-line form: `file:line:col: severity[code]: message`.
pub fn render_concise(diag: &Diagnostic, sources: &Sources) -> String {
    match diag.primary_span() {
        Some(span) => {
            let lc = sources.start(span);
            let path = sources
                .path(span.file)
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            format!(
                "{path}:{}:{}: {}[{}]: {}",
                lc.line,
                lc.col,
                diag.severity.as_str(),
                diag.code,
                diag.message
            )
        }
        None => format!(
            "{}[{}]: {}",
            diag.severity.as_str(),
            diag.code,
            diag.message
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::FileId;

    fn sources() -> Sources {
        let mut s = Sources::new();
        s.add(
            "prog.f".into(),
            "      program p\n      x = (a + b))\n      end\n".into(),
        );
        s
    }

    #[test]
    fn human_snippet_points_at_the_span() {
        let s = sources();
        let d = Diagnostic::error(codes::SYNTAX, "unexpected `)`")
            .with_primary(Span::new(FileId(0), 33, 34), "here")
            .with_note("check the parentheses");
        let text = render_human(&d, &s);
        assert_eq!(
            text,
            "error[syntax-error]: unexpected `)`\n --> prog.f:2:18\n  |\n2 |       x = (a + b))\n  |                  ^ here\n  = note: check the parentheses\n"
        );
    }

    #[test]
    fn json_resolves_lines() {
        let s = sources();
        let d = Diagnostic::warning(codes::NONDETERMINISTIC, "x")
            .with_primary(Span::new(FileId(0), 16, 20), "");
        let j = to_json(&d, &s);
        assert_eq!((j.labels[0].line, j.labels[0].col), (2, 1));
        let text = serde_json::to_string(&j).unwrap_or_default();
        assert!(text.contains("\"severity\":\"warning\""), "{text}");
        assert_eq!(
            render_concise(&d, &s),
            "prog.f:2:1: warning[nondeterministic]: x"
        );
    }
}
