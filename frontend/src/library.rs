//! Library routines that compute (sorts, searches, copies, BLAS): which calls they are, which
//! arguments carry their size, and the law their work follows in those sizes. A call to one of
//! them is an implicit loop ([`crate::array::array_op`]) whose trip is the law evaluated on the
//! resolved arguments; `apt` evaluates the law, codegen repeats it as source text to count it.
//! This table is the one place that names them.
//!
//! Rules:
//! - a name defined by the program (a procedure, or in C any declared variable, such as a
//!   function pointer) is never a library routine;
//! - C Fortran-style BLAS (`dgemm_`, `dgemm`) take pointers: a size argument `&n` is read
//!   through its address-of, as `n`;
//! - a copy or fill (`memcpy`, `memmove`, `memset`) whose size has no variable in it
//!   (`sizeof(double)`) costs nothing worth a site, and is not one.
use crate::ir::{DeclKind, Language, ProcId, Program, Span, SrcExpr, SrcExprKind, UnOp};

/// How a routine's work grows with its size arguments `a0, a1, …` (in the order of
/// [`Routine::fortran`] / [`Routine::cblas`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Law {
    /// `a0 * log2(a0)`: comparisons of a sort (the average order; a quicksort's worst case
    /// is quadratic).
    NLogN,
    /// `log2(a0 + 1)`: probes of a binary search.
    Log,
    /// The product of the size arguments: bytes copied, `M*N*K` multiply-adds of a gemm,
    /// `M*N` of a gemv, `n` of a level-1 routine.
    Product,
}

/// One routine (or family with the same argument roles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Routine {
    /// Base names, lower case, without a trailing `_` or the `cblas_` prefix.
    pub names: &'static [&'static str],
    pub law: Law,
    /// 0-based positions of the size arguments in the Fortran (and C `dgemm_`) form, or of
    /// the C library routine.
    pub fortran: &'static [usize],
    /// The same in the `cblas_` form (a leading layout argument); `None`: no such form.
    pub cblas: Option<&'static [usize]>,
    /// C library routines (`qsort`): no Fortran or cblas spelling.
    pub c_only: bool,
}

/// The routines (kept as data: one row per family).
pub const ROUTINES: &[Routine] = &[
    Routine {
        names: &["qsort"],
        law: Law::NLogN,
        fortran: &[1],
        cblas: None,
        c_only: true,
    },
    Routine {
        names: &["bsearch"],
        law: Law::Log,
        fortran: &[2],
        cblas: None,
        c_only: true,
    },
    Routine {
        names: &["memcpy", "memmove", "memset"],
        law: Law::Product,
        fortran: &[2],
        cblas: None,
        c_only: true,
    },
    // gemm(transa, transb, m, n, k, …); cblas_gemm(layout, transa, transb, m, n, k, …)
    Routine {
        names: &["sgemm", "dgemm"],
        law: Law::Product,
        fortran: &[2, 3, 4],
        cblas: Some(&[3, 4, 5]),
        c_only: false,
    },
    // gemv(trans, m, n, …); cblas_gemv(layout, trans, m, n, …)
    Routine {
        names: &["sgemv", "dgemv"],
        law: Law::Product,
        fortran: &[1, 2],
        cblas: Some(&[2, 3]),
        c_only: false,
    },
    // level 1: axpy(n, alpha, x, incx, y, incy), dot(n, x, incx, y, incy), scal(n, alpha, x,
    // incx), copy(n, x, incx, y, incy); the cblas forms have n first too
    Routine {
        names: &[
            "saxpy", "daxpy", "sdot", "ddot", "sscal", "dscal", "scopy", "dcopy",
        ],
        law: Law::Product,
        fortran: &[0],
        cblas: Some(&[0]),
        c_only: false,
    },
];

/// The routine `name` names in `lang`, and the positions of its size arguments in that
/// spelling (C: `qsort`, `dgemm_`, `dgemm`, `cblas_dgemm`; Fortran: `dgemm`, any case).
pub fn lookup(lang: Language, name: &str) -> Option<(&'static Routine, &'static [usize])> {
    let lower = name.to_ascii_lowercase();
    let (base, cblas) = match lang {
        Language::C => match name.strip_prefix("cblas_") {
            Some(rest) => (rest, true),
            None => (name.strip_suffix('_').unwrap_or(name), false),
        },
        Language::Fortran => (lower.as_str(), false),
    };
    let r = ROUTINES.iter().find(|r| r.names.contains(&base))?;
    match (lang, cblas) {
        (Language::C, true) => r.cblas.map(|args| (r, args)),
        (Language::C, false) if r.c_only && name.ends_with('_') => None,
        (Language::Fortran, _) if r.c_only => None,
        _ => Some((r, r.fortran)),
    }
}

/// One call of a computing library routine: the routine and its size arguments (read through
/// `&` in C), in the law's order.
#[derive(Debug, Clone, PartialEq)]
pub struct LibraryCall<'a> {
    pub routine: &'static Routine,
    /// The name as written.
    pub name: &'a str,
    /// The size arguments, `None` where the call has too few arguments.
    pub sizes: Vec<Option<&'a SrcExpr>>,
}

impl LibraryCall<'_> {
    /// The argument text a diagnostic names for size `k` (`n`, `m`).
    pub fn role(&self, k: usize) -> &'static str {
        match (self.routine.law, self.routine.fortran.len(), k) {
            (Law::NLogN | Law::Log, _, _) => "number of elements",
            (Law::Product, 1, _) if self.routine.c_only => "size in bytes",
            (Law::Product, 1, _) => "n",
            (_, _, 0) => "m",
            (_, _, 1) => "n",
            _ => "k",
        }
    }
}

/// Whether `name`, called in `proc`, is a routine outside the program: no procedure of the
/// program has that name and (C) no variable is declared with it, (Fortran) no array or
/// character variable (a numeric scalar is a function's type: `double precision ddot`).
fn external(prog: &Program, proc: ProcId, name: &str) -> bool {
    if prog.proc_by_name(name).is_some() {
        return false;
    }
    match prog.language {
        Language::C => prog.decl(proc, name).is_none(),
        Language::Fortran => prog.decl(proc, &name.to_ascii_lowercase()).is_none_or(|d| {
            matches!(d.kind, DeclKind::Scalar { .. }) && d.ty.base != crate::ir::BaseType::Character
        }),
    }
}

/// `&n` → `n` (C passes Fortran-style BLAS sizes by address).
fn through_address(e: &SrcExpr) -> &SrcExpr {
    match &e.kind {
        SrcExprKind::Unary {
            op: UnOp::AddrOf,
            operand,
        } => operand,
        _ => e,
    }
}

/// Whether `e` holds no variable (literals, `sizeof`, arithmetic over them).
fn constant(e: &SrcExpr) -> bool {
    match &e.kind {
        SrcExprKind::Int(_) | SrcExprKind::Real { .. } | SrcExprKind::SizeOf { .. } => true,
        SrcExprKind::Unary { operand, .. } => constant(operand),
        SrcExprKind::Binary { lhs, rhs, .. } => constant(lhs) && constant(rhs),
        SrcExprKind::Cast { expr, .. } => constant(expr),
        _ => false,
    }
}

/// A `memcpy`/`memmove`/`memset` whose size has no variable in it (module doc).
pub fn constant_copy(name: &str, args: &[SrcExpr]) -> bool {
    matches!(name, "memcpy" | "memmove" | "memset") && args.get(2).is_some_and(constant)
}

/// The computing library call `name(args)` made in `proc`, if it is one (module doc).
pub fn library_call<'a>(
    prog: &Program,
    proc: ProcId,
    name: &'a str,
    args: &'a [SrcExpr],
) -> Option<LibraryCall<'a>> {
    let (routine, positions) = lookup(prog.language, name)?;
    if !external(prog, proc, name) || constant_copy(name, args) {
        return None;
    }
    let sizes = positions
        .iter()
        .map(|&k| args.get(k).map(through_address))
        .collect();
    Some(LibraryCall {
        routine,
        name,
        sizes,
    })
}

/// The computing library calls among `exprs` (pre-order), outermost only: a library call in
/// the arguments of another is part of the outer call's statement all the same.
pub fn library_calls_in<'a>(
    prog: &Program,
    proc: ProcId,
    exprs: &[&'a SrcExpr],
) -> Vec<LibraryCall<'a>> {
    let mut out = Vec::new();
    for top in exprs {
        for e in top.walk() {
            if let SrcExprKind::Call { name, args } = &e.kind {
                if let Some(c) = library_call(prog, proc, name, args) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The span a diagnostic about call `c` points at: its first size argument, else `at`.
pub fn span_of(c: &LibraryCall<'_>, at: Span) -> Span {
    c.sizes.iter().flatten().next().map_or(at, |e| e.span)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_pick_their_argument_positions() {
        let pos = |l, n| lookup(l, n).map(|(_, p)| p.to_vec());
        assert_eq!(pos(Language::C, "qsort"), Some(vec![1]));
        assert_eq!(pos(Language::C, "qsort_"), None);
        assert_eq!(pos(Language::C, "memset"), Some(vec![2]));
        assert_eq!(pos(Language::C, "dgemm_"), Some(vec![2, 3, 4]));
        assert_eq!(pos(Language::C, "dgemm"), Some(vec![2, 3, 4]));
        assert_eq!(pos(Language::C, "cblas_dgemm"), Some(vec![3, 4, 5]));
        assert_eq!(pos(Language::C, "cblas_dgemv"), Some(vec![2, 3]));
        assert_eq!(pos(Language::C, "cblas_daxpy"), Some(vec![0]));
        assert_eq!(pos(Language::C, "cblas_qsort"), None);
        assert_eq!(pos(Language::Fortran, "DGEMM"), Some(vec![2, 3, 4]));
        assert_eq!(pos(Language::Fortran, "ddot"), Some(vec![0]));
        assert_eq!(pos(Language::Fortran, "qsort"), None);
        assert_eq!(pos(Language::Fortran, "dgesv"), None);
        assert_eq!(pos(Language::C, "printf"), None);
    }
}
