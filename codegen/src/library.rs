//! The work of a computing library call ([`frontend::library`]) as source text, for the
//! counter of its implicit loop: the routine's law over the size arguments as written, so the
//! runs count the same work the APT derives (and measure it where the APT cannot resolve it).
//! The arguments are evaluated once more before the call: only side-effect-free arguments on
//! one line are repeated; otherwise `None` (the caller counts 1 per call and says so).
use frontend::{Language, Law, LibraryCall, Program, Sources, SrcExpr, SrcExprKind};

/// `a0 * log2(a0)`, `log2(a0 + 1)` or the product of the sizes, as an expression of the
/// counter's type (C `long long`, Fortran `integer*8`). `None` when an argument may not be
/// repeated (module doc).
pub(crate) fn work_text(
    prog: &Program,
    sources: &Sources,
    call: &LibraryCall<'_>,
) -> Option<String> {
    let mut args = Vec::new();
    for e in &call.sizes {
        args.push(repeatable(prog, sources, (*e)?)?);
    }
    let first = args.first()?.clone();
    Some(match (prog.language, call.routine.law) {
        (Language::C, Law::Product) => args
            .iter()
            .map(|a| format!("(long long)({a})"))
            .collect::<Vec<_>>()
            .join(" * "),
        // average comparisons of a sort; 0 for 0 or 1 element (log2 of 0 is not a count)
        (Language::C, Law::NLogN) => format!(
            "(({first}) > 1 ? (long long)((double)({first}) * __builtin_log2((double)({first})) + 0.5) : 0)"
        ),
        (Language::C, Law::Log) => {
            format!("(long long)(__builtin_log2((double)({first}) + 1.0) + 0.5)")
        }
        (Language::Fortran, Law::Product) => args
            .iter()
            .map(|a| format!("int({a}, 8)"))
            .collect::<Vec<_>>()
            .join(" * "),
        (Language::Fortran, Law::NLogN) => {
            format!("nint(dble({first}) * log(max(dble({first}), 1d0)) / log(2d0), 8)")
        }
        (Language::Fortran, Law::Log) => {
            format!("nint(log(dble({first}) + 1d0) / log(2d0), 8)")
        }
    })
}

/// The text of `e` when evaluating it again has no effect and it sits on one line: no calls
/// other than intrinsics and `sizeof`, no run-time input, nothing opaque.
fn repeatable(prog: &Program, sources: &Sources, e: &SrcExpr) -> Option<String> {
    for sub in e.walk() {
        match &sub.kind {
            SrcExprKind::Call { name, .. }
                if frontend::intrinsics::lookup(name, prog.language).is_none() =>
            {
                return None
            }
            SrcExprKind::Opaque { .. } | SrcExprKind::Input(_) => return None,
            _ => {}
        }
    }
    let t = sources.text(e.span).trim();
    let bad = t.is_empty() || t.contains(['\n', '\r', '!', '&', ';', '\'', '"', '=']);
    (!bad).then(|| t.to_string())
}
