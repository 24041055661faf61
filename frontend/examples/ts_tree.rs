//! Developer aid: prints the raw tree-sitter tree of a C or Fortran file (`--fortran` to force).
#![allow(clippy::print_stdout, clippy::print_stderr)]
use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.iter().find(|a| !a.starts_with("--")) else {
        eprintln!("usage: ts_tree FILE [--fortran]");
        return ExitCode::from(2);
    };
    let Ok(bytes) = std::fs::read(path) else {
        eprintln!("cannot read {path}");
        return ExitCode::from(2);
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let fortran =
        args.iter().any(|a| a == "--fortran") || !path.ends_with(".c") && !path.ends_with(".h");
    let lang: tree_sitter::Language = if fortran {
        tree_sitter_fortran::LANGUAGE.into()
    } else {
        tree_sitter_c::LANGUAGE.into()
    };
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&lang).is_err() {
        eprintln!("grammar ABI mismatch");
        return ExitCode::from(2);
    }
    let Some(tree) = parser.parse(&text, None) else {
        return ExitCode::from(1);
    };
    let mut out = std::io::stdout().lock();
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let node = cursor.node();
        let field = cursor
            .field_name()
            .map(|f| format!("{f}: "))
            .unwrap_or_default();
        let snippet: String = text
            .get(node.byte_range())
            .unwrap_or("")
            .chars()
            .take(40)
            .collect::<String>()
            .replace('\n', "⏎");
        if node.is_named() || node.is_missing() {
            let _ = writeln!(
                out,
                "{}{}{}{} [{}..{}] {:?}",
                "  ".repeat(depth),
                field,
                node.kind(),
                if node.is_missing() { " MISSING" } else { "" },
                node.start_byte(),
                node.end_byte(),
                snippet
            );
        }
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return ExitCode::SUCCESS;
            }
            depth -= 1;
        }
    }
}
