//! Reading source files and inlining local includes (Fortran `include 'x'`, C/cpp
//! `#include "x"`) into the parse buffer, with the per-file offset map kept in [`Assembled`].
//! Search order: the including file's directory, its includers' directories, then `-I` dirs. Missing files and cycles are
//! diagnostics; the directive is then left in place (both grammars parse it).
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::diagnostic::{codes, Diagnostic};
use crate::ir::{FileId, Sources, Span};
use crate::macros::{self, MacroTable};
use crate::normalize;
use crate::source_map::Assembled;

/// How a file's text is prepared before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prep {
    C,
    FortranFixed { cut: bool },
    FortranFree,
}

/// Headers provided by the MPI/OpenMP installation: skipped silently when not found locally.
const SYSTEM_HEADERS: &[&str] = &["mpif.h", "mpi.h", "omp_lib.h", "mpiof.h", "mpif-sizeof.h"];

const MAX_INCLUDE_DEPTH: usize = 64;

/// Reads `path`; non-UTF-8 bytes are replaced (with a warning in `diags`).
pub fn read_source(
    path: &Path,
    diags: &mut Vec<Diagnostic>,
    file_hint: FileId,
) -> std::io::Result<String> {
    let bytes = std::fs::read(path)?;
    match String::from_utf8(bytes) {
        Ok(s) => Ok(s),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let at = u32::try_from(valid).unwrap_or(0);
            diags.push(
                Diagnostic::warning(
                    codes::NON_UTF8,
                    format!("{} is not valid UTF-8", path.display()),
                )
                .with_primary(Span::new(file_hint, at, at), "first invalid byte here")
                .with_note("invalid bytes were replaced by U+FFFD; is this a source file?"),
            );
            Ok(text)
        }
    }
}

/// The file named by an include directive on this line, if any.
fn include_target(line: &str, prep: Prep) -> Option<String> {
    let t = line.trim_start();
    if let Some(rest) = t.strip_prefix('#') {
        let rest = rest.trim_start().strip_prefix("include")?.trim_start();
        let rest = rest.strip_prefix('"')?;
        return rest.find('"').map(|e| rest[..e].to_string());
    }
    if prep == Prep::C {
        return None;
    }
    let t = t
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start();
    let head = t.get(..7)?;
    if !head.eq_ignore_ascii_case("include") {
        return None;
    }
    let rest = t.get(7..)?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let rest = &rest[1..];
    rest.find(quote).map(|e| rest[..e].to_string())
}

fn fortran_prep_for(path: &Path, parent: Prep) -> Prep {
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "f90" | "F90" | "f95" | "F95" | "f03" | "F03" | "f08" | "F08" => Prep::FortranFree,
        "f" | "F" | "for" | "FOR" | "f77" | "F77" => match parent {
            Prep::FortranFixed { cut } => Prep::FortranFixed { cut },
            _ => Prep::FortranFixed { cut: true },
        },
        _ => parent,
    }
}

#[derive(Debug)]
pub struct Expander<'a> {
    pub sources: &'a mut Sources,
    pub diags: Vec<Diagnostic>,
    include_dirs: &'a [PathBuf],
    macros: &'a MacroTable,
    stack: Vec<PathBuf>,
    seen_c_headers: BTreeSet<PathBuf>,
}

impl<'a> Expander<'a> {
    pub fn new(
        sources: &'a mut Sources,
        include_dirs: &'a [PathBuf],
        macros: &'a MacroTable,
    ) -> Self {
        Expander {
            sources,
            diags: Vec::new(),
            include_dirs,
            macros,
            stack: Vec::new(),
            seen_c_headers: BTreeSet::new(),
        }
    }

    fn prepare(&self, file: FileId, text: &str, prep: Prep) -> Assembled {
        if prep == Prep::C {
            return macros::prepare_c(file, text, self.macros);
        }
        // `.F`/`.F90` files may use cpp conditionals: resolve them with the `-D` table
        let has_cpp = text.starts_with('#') || text.contains("\n#");
        let live;
        let text = if has_cpp {
            let mut defined = self.macros.command_line.clone();
            live = crate::cpp::strip_dead_branches(text, &mut defined);
            live.as_str()
        } else {
            text
        };
        let renamed = normalize::rename_class_variables(text);
        let text = renamed.as_deref().unwrap_or(text);
        match prep {
            Prep::FortranFixed { cut } => normalize::fixed_form(file, text, cut),
            _ => {
                let mut a = Assembled::new();
                a.push_orig(file, 0, text);
                a
            }
        }
    }

    /// Search order: the including file's directory, the directories of the files that
    /// included it (innermost first, as MSVC and most build setups with `-I src` behave),
    /// then `-I` dirs.
    fn resolve(&self, name: &str, from: &Path) -> Option<PathBuf> {
        let dir = from.parent().map(Path::to_path_buf).unwrap_or_default();
        let includers = self
            .stack
            .iter()
            .rev()
            .filter_map(|p| p.parent().map(Path::to_path_buf));
        std::iter::once(dir)
            .chain(includers)
            .chain(self.include_dirs.iter().cloned())
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    }

    /// Loads (or reuses) the file at `path`, included by `from`, into `sources`.
    fn load(&mut self, path: &Path, from: FileId) -> Option<FileId> {
        if let Some(id) = self.sources.find(path) {
            return Some(id);
        }
        let hint = FileId(u32::try_from(self.sources.files().count()).unwrap_or(u32::MAX));
        let mut diags = Vec::new();
        let text = read_source(path, &mut diags, hint).ok()?;
        self.diags.extend(diags);
        Some(self.sources.add_included(path.to_path_buf(), text, from))
    }

    /// Appends `file`, prepared and with its includes inlined, to `out`.
    pub fn expand(&mut self, file: FileId, prep: Prep, out: &mut Assembled) {
        let Some(src) = self.sources.get(file) else {
            return;
        };
        let path = src.path.clone();
        let text = src.text.clone();
        let canon = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        self.stack.push(canon);
        let prepared = self.prepare(file, &text, prep);
        let ptext = prepared.text.as_str();
        let mut pos = 0usize;
        let mut copied = 0usize;
        for raw in ptext.split_inclusive('\n') {
            let line_start = pos;
            pos += raw.len();
            let content = raw.trim_end_matches(['\n', '\r']);
            let Some(name) = include_target(content, prep) else {
                continue;
            };
            let span = prepared.span(line_start, line_start + content.len(), file);
            let Some(found) = self.resolve(&name, &path) else {
                let base = Path::new(&name)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or("");
                if !SYSTEM_HEADERS.iter().any(|h| h.eq_ignore_ascii_case(base)) {
                    self.diags.push(
                        Diagnostic::warning(codes::INCLUDE_NOT_FOUND, format!("cannot find include file `{name}`"))
                            .with_primary(span, "included here")
                            .with_note("searched the including file's directory and the -I directories; add -I DIR"),
                    );
                }
                continue;
            };
            let canon = std::fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
            if self.stack.contains(&canon) || self.stack.len() >= MAX_INCLUDE_DEPTH {
                self.diags.push(
                    Diagnostic::error(
                        codes::INCLUDE_CYCLE,
                        format!("`{name}` includes itself (directly or indirectly)"),
                    )
                    .with_primary(span, "cyclic include here")
                    .with_note("the directive is ignored"),
                );
                continue;
            }
            if prep == Prep::C && !self.seen_c_headers.insert(canon) {
                // included before: a second copy only repeats declarations
                out.append_from(&prepared, copied, line_start);
                copied = line_start + content.len();
                continue;
            }
            let Some(inc) = self.load(&found, file) else {
                self.diags.push(
                    Diagnostic::error(
                        codes::IO,
                        format!("cannot read include file `{}`", found.display()),
                    )
                    .with_primary(span, "included here"),
                );
                continue;
            };
            out.append_from(&prepared, copied, line_start);
            let child_prep = if prep == Prep::C {
                Prep::C
            } else {
                fortran_prep_for(&found, prep)
            };
            self.expand(inc, child_prep, out);
            if !out.text.ends_with('\n') {
                out.push_synth(span.file, span.end, 0, "\n");
            }
            copied = line_start + content.len();
        }
        out.append_from(&prepared, copied, ptext.len());
        self.stack.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_directives() {
        assert_eq!(
            include_target("      include 'pge2.h'", Prep::FortranFixed { cut: true }),
            Some("pge2.h".into())
        );
        assert_eq!(
            include_target("      INCLUDE \"a.h\" ! x", Prep::FortranFree),
            Some("a.h".into())
        );
        assert_eq!(
            include_target("#include \"k.h\"", Prep::C),
            Some("k.h".into())
        );
        assert_eq!(include_target("#include <mpi.h>", Prep::C), None);
        assert_eq!(
            include_target("      includes = 1", Prep::FortranFree),
            None
        );
        assert_eq!(include_target("include 'x'", Prep::C), None);
    }
}
