//! Calls to routines the given sources do not define (and that are neither MPI nor the C or
//! Fortran run-time library): the APT has no node for them, so communication or loops inside
//! them are invisible to the model. `apt` and `analyze` say so once, naming them and their call
//! lines, so that a user who gave one file of a program of several learns to give the others.

use std::collections::BTreeMap;

use frontend::{BaseType, DeclKind, Language, Lowered, ProcId, Program, SrcExprKind, StmtKind};

/// One routine called but not defined, with where it is called (`file:line`, in source order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    pub name: String,
    pub calls: Vec<String>,
}

/// Every routine the program calls but does not define, by name; C statement macros used
/// like calls are no routines (trial 26: `CHECK(MPI_Send(…));` named `CHECK` a routine not
/// defined), nor are they listed here ([`macro_uses`]).
pub fn unknown_calls(lowered: &Lowered) -> Vec<External> {
    calls_not_defined(lowered)
        .into_iter()
        .filter(|e| !lowered.program.c_statement_macros.contains_key(&e.name))
        .collect()
}

/// The C statement macros used like calls whose body does what the model would time (a loop,
/// an MPI call): those uses are not expanded, so that part of the body is not analysed.
/// Each with its uses and what its body holds.
pub fn macro_uses(lowered: &Lowered) -> Vec<(External, String)> {
    calls_not_defined(lowered)
        .into_iter()
        .filter_map(|e| {
            let what = lowered.program.c_statement_macros.get(&e.name)?.clone()?;
            Some((e, what))
        })
        .collect()
}

fn calls_not_defined(lowered: &Lowered) -> Vec<External> {
    let prog = &lowered.program;
    let names = crate::procs::ProcNames::new(prog);
    let mut found: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    let mut stack = Vec::new();
    for s in &prog.stmts {
        let mut called: Vec<&str> = Vec::new();
        if let StmtKind::Call(c) = &s.kind {
            called.push(&c.name);
        }
        for top in s.exprs() {
            crate::procs::for_each_expr(top, &mut stack, &mut |e| {
                if let SrcExprKind::Call { name, .. } = &e.kind {
                    called.push(name);
                }
            });
        }
        for name in called {
            if names.get(name).is_some() || is_library(prog.language, name) {
                continue;
            }
            if !callable(prog, s.proc, name) {
                continue;
            }
            // `u(i)` under a `use` of a module no source defines: likely its array
            if !missing_in_scope(prog, s.proc).is_empty() {
                continue;
            }
            let file = lowered
                .sources
                .path(s.span.file)
                .map(|p| {
                    p.file_name()
                        .map_or(p.display().to_string(), |n| n.to_string_lossy().into())
                })
                .unwrap_or_default();
            let line = lowered.sources.first_line(s.span);
            let key = match prog.language {
                Language::C => name.to_string(),
                Language::Fortran => name.to_ascii_lowercase(),
            };
            let sites = found.entry(key).or_default();
            let site = (file, line);
            if !sites.contains(&site) {
                sites.push(site);
            }
        }
    }
    found
        .into_iter()
        .map(|(name, mut sites)| {
            sites.sort();
            External {
                name,
                calls: sites.into_iter().map(|(f, l)| format!("{f}:{l}")).collect(),
            }
        })
        .collect()
}

/// One Fortran module used but defined by none of the given sources.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingModule {
    pub name: String,
    /// Where it is used (`file:line`, in source order).
    pub uses: Vec<String>,
    /// Names called or indexed under its `use` that nothing defines (its arrays or routines).
    pub names: Vec<String>,
}

/// Modules used but not defined, by name.
pub fn missing_modules(lowered: &Lowered) -> Vec<MissingModule> {
    let prog = &lowered.program;
    let mut found: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for u in &prog.module_uses {
        if prog.modules.contains(&u.module) {
            continue;
        }
        let at = format!(
            "{}:{}",
            file_name(lowered, u.span.file),
            lowered.sources.first_line(u.span)
        );
        let e = found.entry(u.module.clone()).or_default();
        if !e.0.contains(&at) {
            e.0.push(at);
        }
    }
    if found.is_empty() {
        return Vec::new();
    }
    // the names those scopes call or index that nothing declares or defines
    let names = crate::procs::ProcNames::new(prog);
    let mut stack = Vec::new();
    for s in &prog.stmts {
        let missing = missing_in_scope(prog, s.proc);
        let Some(first) = missing.first() else {
            continue;
        };
        let mut called: Vec<String> = Vec::new();
        if let StmtKind::Call(c) = &s.kind {
            called.push(c.name.clone());
        }
        for top in s.exprs() {
            crate::procs::for_each_expr(top, &mut stack, &mut |e| match &e.kind {
                SrcExprKind::Call { name, .. } | SrcExprKind::Index { array: name, .. } => {
                    called.push(name.clone())
                }
                SrcExprKind::Var(v) if prog.decl(s.proc, v).is_none() => called.push(v.clone()),
                _ => {}
            });
        }
        for name in called {
            if names.get(&name).is_some()
                || is_library(prog.language, &name)
                || prog.decl(s.proc, &name).is_some()
            {
                continue;
            }
            if let Some(e) = found.get_mut(first) {
                if !e.1.contains(&name) {
                    e.1.push(name);
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(name, (uses, mut names))| {
            names.sort();
            MissingModule { name, uses, names }
        })
        .collect()
}

/// The modules used in `proc`'s scope (its own `use`s, its module's, its host's) that no
/// given source defines.
fn missing_in_scope(prog: &Program, proc: ProcId) -> Vec<String> {
    let Some(p) = prog.proc(proc) else {
        return Vec::new();
    };
    let mut out: Vec<String> = prog
        .module_uses
        .iter()
        .filter(|u| {
            u.proc == Some(proc)
                || (u.proc.is_none() && u.in_module.is_some() && u.in_module == p.module)
                // a host's `use` reaches its contained procedures
                || u.proc.and_then(|q| prog.proc(q)).is_some_and(|q| {
                    q.span.file == p.span.file
                        && q.span.start < p.span.start
                        && p.span.end <= q.span.end
                })
        })
        .filter(|u| !prog.modules.contains(&u.module))
        .map(|u| u.module.clone())
        .collect();
    out.dedup();
    out
}

fn file_name(lowered: &Lowered, file: frontend::FileId) -> String {
    lowered
        .sources
        .path(file)
        .map(|p| {
            p.file_name()
                .map_or(p.display().to_string(), |n| n.to_string_lossy().into())
        })
        .unwrap_or_default()
}

/// The warnings about modules no given source defines ([`missing_modules`]) and routines
/// called but not defined ([`unknown_calls`]), one each.
pub fn warnings(lowered: &Lowered) -> Vec<String> {
    let mut out: Vec<String> = missing_modules(lowered)
        .into_iter()
        .map(|m| {
            let uses = match m.uses.as_slice() {
                [one] => one.clone(),
                [init @ .., last] => format!("{} and {last}", init.join(", ")),
                [] => String::new(),
            };
            let names = if m.names.is_empty() {
                String::new()
            } else {
                let mut listed = m.names.clone();
                if listed.len() > 6 {
                    listed.truncate(5);
                    listed.push("…".into());
                }
                format!(" ({})", listed.join(", "))
            };
            format!(
                "module {} (used at {uses}) is not in the given sources: its variables{names} and routines are unknown to the analysis; give the file that defines it too",
                m.name
            )
        })
        .collect();
    out.extend(warning(lowered));
    out.extend(macro_uses(lowered).into_iter().map(|(e, what)| {
        format!(
            "macro {} ({}) is used like a routine, so it is not expanded there, and its body holds {what}: that is not in the model (only the calls in its arguments are)",
            e.name,
            listed_calls(&e.calls)
        )
    }));
    out
}

/// The one warning about [`unknown_calls`], if there are any.
fn warning(lowered: &Lowered) -> Option<String> {
    let ext = unknown_calls(lowered);
    if ext.is_empty() {
        return None;
    }
    let list: Vec<String> = ext
        .iter()
        .map(|e| format!("{} ({})", e.name, listed_calls(&e.calls)))
        .collect();
    Some(format!(
        "{} not defined in the given sources: {}; communication or loops inside {} are invisible to the model: give the source files that define {} too",
        if ext.len() == 1 { "a routine called is" } else { "routines called are" },
        list.join(", "),
        if ext.len() == 1 { "it" } else { "them" },
        if ext.len() == 1 { "it" } else { "them" },
    ))
}

/// Call sites, at most four named (`a.c:3, a.c:9, a.c:12, 5 more`).
fn listed_calls(calls: &[String]) -> String {
    let mut calls = calls.to_vec();
    if calls.len() > 4 {
        let more = calls.len() - 3;
        calls.truncate(3);
        calls.push(format!("{more} more"));
    }
    calls.join(", ")
}

/// Whether `name` in `proc` is a routine rather than a variable: a C function pointer or a
/// Fortran character substring (`arg(1:3)`) lowers as a call too.
fn callable(prog: &Program, proc: ProcId, name: &str) -> bool {
    let decl = match prog.language {
        Language::C => prog.decl(proc, name),
        Language::Fortran => prog.decl(proc, &name.to_ascii_lowercase()),
    };
    match decl {
        None => true,
        Some(d) => match prog.language {
            // a declared C variable that is called holds a function pointer: its target is
            // unknown here, not missing
            Language::C => false,
            Language::Fortran => {
                matches!(d.kind, DeclKind::Scalar { .. }) && d.ty.base != BaseType::Character
            }
        },
    }
}

/// MPI (and its profiling and SMPI interfaces), and the C and Fortran run-time libraries.
pub(crate) fn is_library(lang: Language, name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    if [
        "mpi_",
        "pmpi_",
        "smpi_",
        "augur_",
        "omp_",
        "__builtin",
        "__",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
    {
        return true;
    }
    is_computing(lang, name)
        || match lang {
            Language::C => C_LIBRARY.binary_search(&name).is_ok(),
            Language::Fortran => FORTRAN_INTRINSICS.binary_search(&lower.as_str()).is_ok(),
        }
}

/// Library routines whose time grows with their arguments: sorts, searches and copies of the C
/// library, BLAS and LAPACK (Fortran names, C's `dgemm_`, `cblas_*`, `LAPACKE_*`), FFTW
/// execution, Fortran's `matmul`. Library routines all the same (no source to give, and they
/// write only what their arguments name), but not harmless like `printf`: the APT has no
/// node for them, so their time is not a computation site's unless they run inside one.
pub fn is_computing(lang: Language, name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    match lang {
        Language::C => {
            C_COMPUTING.binary_search(&name).is_ok()
                || C_COMPUTING_PREFIXES.iter().any(|p| name.starts_with(p))
                || blas_lapack(name.strip_suffix('_').unwrap_or(name))
        }
        Language::Fortran => {
            FORTRAN_COMPUTING.binary_search(&lower.as_str()).is_ok() || blas_lapack(&lower)
        }
    }
}

/// A BLAS or LAPACK routine's name (lower case, no trailing underscore): a precision letter
/// (s, d, c, z) and a routine of [`BLAS_LAPACK`], or `i?amax`.
fn blas_lapack(name: &str) -> bool {
    let mut chars = name.chars();
    match chars.next() {
        Some('s' | 'd' | 'c' | 'z') => BLAS_LAPACK.binary_search(&chars.as_str()).is_ok(),
        Some('i') => matches!(name, "isamax" | "idamax" | "icamax" | "izamax"),
        _ => false,
    }
}

/// C library routines that compute over their arguments (sorted).
const C_COMPUTING: &[&str] = &["bsearch", "memcpy", "memmove", "memset", "qsort"];

/// Name prefixes of C numerical library interfaces.
const C_COMPUTING_PREFIXES: &[&str] = &["LAPACKE_", "cblas_", "fftw_execute", "fftw_mpi_execute"];

/// Fortran intrinsics that compute over whole arrays and are not array assignments by
/// themselves (sorted, lower case).
const FORTRAN_COMPUTING: &[&str] = &["matmul"];

/// BLAS (levels 1 to 3) and common LAPACK drivers and factorisations, without the precision
/// letter (sorted).
const BLAS_LAPACK: &[&str] = &[
    "asum", "axpby", "axpy", "copy", "dot", "dotc", "dotu", "gbmv", "gbsv", "geev", "gels", "gemm",
    "gemv", "geqrf", "ger", "gerc", "geru", "gesdd", "gesv", "gesvd", "getrf", "getri", "getrs",
    "gtsv", "heev", "hemm", "hemv", "her", "her2k", "herk", "nrm2", "orgqr", "posv", "potrf",
    "potri", "potrs", "pttrf", "rot", "rotg", "sbmv", "scal", "spmv", "swap", "syev", "syevd",
    "symm", "symv", "syr", "syr2k", "syrk", "sytrf", "tbsv", "trmm", "trmv", "trsm", "trsv",
    "trtrs", "ungqr",
];

/// C standard library, POSIX and libm functions MPI programs call (sorted).
const C_LIBRARY: &[&str] = &[
    "abort",
    "abs",
    "acos",
    "acosf",
    "alarm",
    "aligned_alloc",
    "asin",
    "asinf",
    "assert",
    "atan",
    "atan2",
    "atan2f",
    "atanf",
    "atexit",
    "atof",
    "atoi",
    "atol",
    "atoll",
    "calloc",
    "cbrt",
    "ceil",
    "ceilf",
    "clock",
    "clock_gettime",
    "close",
    "copysign",
    "cos",
    "cosf",
    "cosh",
    "difftime",
    "div",
    "drand48",
    "erf",
    "erfc",
    "exit",
    "exp",
    "exp2",
    "expf",
    "expm1",
    "fabs",
    "fabsf",
    "fclose",
    "feof",
    "ferror",
    "fflush",
    "fgetc",
    "fgets",
    "floor",
    "floorf",
    "fma",
    "fmax",
    "fmin",
    "fmod",
    "fopen",
    "fprintf",
    "fputc",
    "fputs",
    "fread",
    "free",
    "frexp",
    "fscanf",
    "fseek",
    "ftell",
    "fwrite",
    "getc",
    "getchar",
    "getenv",
    "gethostname",
    "getopt",
    "getpid",
    "gettimeofday",
    "hypot",
    "isalnum",
    "isalpha",
    "isdigit",
    "isfinite",
    "isinf",
    "islower",
    "isnan",
    "isspace",
    "isupper",
    "labs",
    "ldexp",
    "lgamma",
    "llabs",
    "llround",
    "log",
    "log10",
    "log1p",
    "log2",
    "logf",
    "lrint",
    "lround",
    "malloc",
    "memchr",
    "memcmp",
    "modf",
    "nanosleep",
    "nearbyint",
    "open",
    "perror",
    "posix_memalign",
    "pow",
    "powf",
    "printf",
    "putc",
    "putchar",
    "puts",
    "rand",
    "rand_r",
    "random",
    "read",
    "realloc",
    "remove",
    "rename",
    "rewind",
    "rint",
    "round",
    "scanf",
    "setbuf",
    "setvbuf",
    "signbit",
    "sin",
    "sinf",
    "sinh",
    "sleep",
    "snprintf",
    "sprintf",
    "sqrt",
    "sqrtf",
    "srand",
    "srand48",
    "srandom",
    "sscanf",
    "strcat",
    "strchr",
    "strcmp",
    "strcpy",
    "strdup",
    "strerror",
    "strlen",
    "strncat",
    "strncmp",
    "strncpy",
    "strrchr",
    "strstr",
    "strtod",
    "strtof",
    "strtok",
    "strtol",
    "strtoll",
    "strtoul",
    "strtoull",
    "system",
    "tan",
    "tanf",
    "tanh",
    "tgamma",
    "time",
    "tolower",
    "toupper",
    "trunc",
    "usleep",
    "va_arg",
    "va_end",
    "va_start",
    "vfprintf",
    "vprintf",
    "vsnprintf",
    "vsprintf",
    "write",
];

/// Fortran intrinsic procedures, generic and specific, F77 to F2008 (sorted, lower case).
const FORTRAN_INTRINSICS: &[&str] = &[
    "abort",
    "abs",
    "achar",
    "acos",
    "acosh",
    "adjustl",
    "adjustr",
    "aimag",
    "aint",
    "all",
    "allocated",
    "alog",
    "alog10",
    "amax0",
    "amax1",
    "amin0",
    "amin1",
    "amod",
    "anint",
    "any",
    "asin",
    "asinh",
    "associated",
    "atan",
    "atan2",
    "atanh",
    "bessel_j0",
    "bessel_j1",
    "bessel_jn",
    "bessel_y0",
    "bessel_y1",
    "bessel_yn",
    "bit_size",
    "btest",
    "c_associated",
    "c_f_pointer",
    "c_funloc",
    "c_loc",
    "cabs",
    "ccos",
    "ceiling",
    "cexp",
    "char",
    "clog",
    "cmplx",
    "command_argument_count",
    "conjg",
    "cos",
    "cosh",
    "count",
    "cpu_time",
    "cshift",
    "csin",
    "csqrt",
    "dabs",
    "dacos",
    "dasin",
    "datan",
    "datan2",
    "date_and_time",
    "dble",
    "dcmplx",
    "dcos",
    "dcosh",
    "ddim",
    "dexp",
    "digits",
    "dim",
    "dint",
    "dlog",
    "dlog10",
    "dmax1",
    "dmin1",
    "dmod",
    "dnint",
    "dot_product",
    "dprod",
    "dsign",
    "dsin",
    "dsinh",
    "dsqrt",
    "dtan",
    "dtanh",
    "eoshift",
    "epsilon",
    "erf",
    "erfc",
    "etime",
    "execute_command_line",
    "exit",
    "exp",
    "exponent",
    "findloc",
    "float",
    "floor",
    "flush",
    "fraction",
    "gamma",
    "get_command",
    "get_command_argument",
    "get_environment_variable",
    "getarg",
    "getenv",
    "huge",
    "hypot",
    "iabs",
    "iachar",
    "iall",
    "iand",
    "iany",
    "iargc",
    "ibclr",
    "ibits",
    "ibset",
    "ichar",
    "idim",
    "idint",
    "idnint",
    "ieor",
    "ifix",
    "index",
    "int",
    "ior",
    "iparity",
    "ishft",
    "ishftc",
    "isign",
    "kind",
    "lbound",
    "leadz",
    "len",
    "len_trim",
    "lge",
    "lgt",
    "lle",
    "llt",
    "loc",
    "log",
    "log10",
    "log_gamma",
    "logical",
    "max",
    "max0",
    "max1",
    "maxloc",
    "maxval",
    "merge",
    "min",
    "min0",
    "min1",
    "minloc",
    "minval",
    "mod",
    "modulo",
    "move_alloc",
    "mvbits",
    "nearest",
    "new_line",
    "nint",
    "norm2",
    "not",
    "null",
    "pack",
    "parity",
    "popcnt",
    "poppar",
    "precision",
    "present",
    "product",
    "radix",
    "random_number",
    "random_seed",
    "range",
    "real",
    "repeat",
    "reshape",
    "rrspacing",
    "scale",
    "scan",
    "selected_int_kind",
    "selected_real_kind",
    "set_exponent",
    "shape",
    "sign",
    "sin",
    "sinh",
    "size",
    "sizeof",
    "sngl",
    "spacing",
    "spread",
    "sqrt",
    "storage_size",
    "sum",
    "system_clock",
    "tan",
    "tanh",
    "tiny",
    "trailz",
    "transfer",
    "transpose",
    "trim",
    "ubound",
    "unpack",
    "verify",
];

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn load(name: &str, text: &str) -> Lowered {
        frontend::load_str(name, text, &frontend::Options::default()).unwrap()
    }

    #[test]
    fn tables_are_sorted() {
        for t in [
            C_LIBRARY,
            FORTRAN_INTRINSICS,
            C_COMPUTING,
            FORTRAN_COMPUTING,
            BLAS_LAPACK,
        ] {
            assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        }
    }

    /// trial7 #2: sorts, copies and BLAS are library routines that compute, not harmless ones
    #[test]
    fn computing_library_routines_are_told_from_harmless_ones() {
        let c = |n| is_computing(Language::C, n);
        let f = |n| is_computing(Language::Fortran, n);
        for n in [
            "qsort",
            "memcpy",
            "memmove",
            "memset",
            "bsearch",
            "dgemm_",
            "dgemm",
            "cblas_dgemm",
            "LAPACKE_dgesv",
            "zgemv_",
            "idamax_",
            "fftw_execute",
        ] {
            assert!(c(n) && is_library(Language::C, n), "{n}");
        }
        for n in [
            "printf", "malloc", "sqrt", "strlen", "dot", "dsolve", "gemm", "d",
        ] {
            assert!(!c(n), "{n}");
        }
        for n in ["DGEMM", "daxpy", "ddot", "matmul", "zheev"] {
            assert!(f(n) && is_library(Language::Fortran, n), "{n}");
        }
        for n in ["sum", "sqrt", "step", "dsweep"] {
            assert!(!f(n), "{n}");
        }
    }

    #[test]
    fn c_calls_outside_the_program_are_named_with_their_lines() {
        let l = load(
            "cg.c",
            "#include <mpi.h>\n#include <math.h>\ndouble dot(int n);\nvoid local(void) {}\n\
             int main(int argc, char **argv) {\n  double r;\n  int n = 3;\n\
             MPI_Init(&argc, &argv);\n  r = sqrt(dot(4));\n  local();\n  n = abs(n);\n\
             matvec(r);\n  r += dot(8);\n  MPI_Finalize();\n  return 0;\n}\n",
        );
        let ext = unknown_calls(&l);
        assert_eq!(
            ext,
            vec![
                External {
                    name: "dot".into(),
                    calls: vec!["cg.c:9".into(), "cg.c:13".into()]
                },
                External {
                    name: "matvec".into(),
                    calls: vec!["cg.c:12".into()]
                },
            ]
        );
        let w = warning(&l).unwrap();
        assert!(w.contains("dot (cg.c:9, cg.c:13), matvec (cg.c:12)"), "{w}");
    }

    #[test]
    fn fortran_intrinsics_arrays_and_substrings_are_not_routines() {
        let l = load(
            "m.f90",
            "program m\n  implicit none\n  integer :: n, a(10)\n  character(len=8) :: arg\n\
             double precision :: s\n  external ring_step\n\
             call get_command_argument(1, arg)\n  call getarg(2, arg)\n  read (arg(1:4), *) n\n\
             s = sqrt(dble(n)) + a(2)\n  call ring_step(a, n)\n  s = s + f(n)\nend program m\n",
        );
        let names: Vec<String> = unknown_calls(&l).into_iter().map(|e| e.name).collect();
        assert_eq!(names, vec!["f", "ring_step"]);
        let none = load("p.f90", "program p\n  call sub()\ncontains\n  subroutine sub()\n  end subroutine sub\nend program p\n");
        assert_eq!(warning(&none), None);
    }

    /// Trial (new-user run of a task farm): `t = task_t(k, lo, hi)` was named a routine the
    /// sources do not define; it builds a value of the derived type `task_t`.
    #[test]
    fn a_structure_constructor_is_not_a_routine() {
        let l = load(
            "mw.f90",
            "module work_mod\n  implicit none\n  type task_t\n    integer :: id\n    \
             double precision :: lo, hi\n  end type task_t\nend module work_mod\n\
             program mw\n  use work_mod\n  implicit none\n  type(task_t) :: t\n  integer :: k\n  \
             type point\n    double precision :: x, y\n  end type point\n  type(point) :: q\n  \
             do k = 1, 4\n    t = task_t(k, dble(k - 1) / 4, dble(k) / 4)\n    \
             q = point(t%lo, g(t%hi))\n  end do\nend program mw\n",
        );
        let names: Vec<String> = unknown_calls(&l).into_iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            vec!["g"],
            "a call inside a constructor is still seen"
        );
    }

    /// Trial 26: `CHECK(MPI_Sendrecv(…));` under an error-check macro named `CHECK` a
    /// routine not defined. A statement macro used like a call is no routine; one whose body
    /// holds a loop or an MPI call is told apart, as that part of it is not in the model.
    #[test]
    fn statement_macros_used_like_calls_are_not_routines() {
        let l = load(
            "m.c",
            "#include <mpi.h>\n#include <stdio.h>\n\
             #define CHECK(call) \\\n  do { int rc_ = (call); if (rc_ != MPI_SUCCESS) { \\\n\
             fprintf(stderr, \"%d\\n\", rc_); MPI_Abort(MPI_COMM_WORLD, rc_); } } while (0)\n\
             #define SYNC(c) do { MPI_Barrier(c); } while (0)\n\
             #define ZERO(a, n) do { int i_; for (i_ = 0; i_ < (n); i_++) (a)[i_] = 0; } while (0)\n\
             int main(int argc, char **argv) {\n    double a[8];\n    int r;\n\
             CHECK(MPI_Init(&argc, &argv));\n    CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &r));\n\
             SYNC(MPI_COMM_WORLD);\n    ZERO(a, 8);\n    CHECK(step(r));\n\
             MPI_Finalize();\n    return 0;\n}\n",
        );
        let names: Vec<String> = unknown_calls(&l).into_iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            vec!["step"],
            "a call inside a macro's arguments is still seen"
        );
        let uses: Vec<(String, Vec<String>, String)> = macro_uses(&l)
            .into_iter()
            .map(|(e, what)| (e.name, e.calls, what))
            .collect();
        assert_eq!(
            uses,
            vec![
                (
                    "SYNC".into(),
                    vec!["m.c:13".into()],
                    "a call of MPI_Barrier".into()
                ),
                ("ZERO".into(), vec!["m.c:14".into()], "a loop".into()),
            ]
        );
        let w = warnings(&l);
        assert!(
            w.iter()
                .any(|x| x.starts_with("macro SYNC (m.c:13) is used like a routine")),
            "{w:?}"
        );
    }

    const MAIN: &str = "program main\n  use mpi\n  use, intrinsic :: iso_fortran_env\n  \
        use params_mod\n  implicit none\n  integer :: i, ierr\n  call MPI_Init(ierr)\n  \
        do i = 1, nsteps\n     call step()\n  end do\n  call MPI_Finalize(ierr)\n\
        end program main\n";
    const SOLVER: &str = "module solver_mod\n  use params_mod, only: u, f\ncontains\n  \
        subroutine step()\n    integer :: j\n    do j = 1, nx\n       u(j) = u(j) + f(j)\n    \
        end do\n  end subroutine step\nend module solver_mod\n";
    const PARAMS: &str = "module params_mod\n  implicit none\n  integer, parameter :: nx = 8\n  \
        integer :: nsteps = 3\n  double precision :: u(nx), f(nx)\nend module params_mod\n";

    /// trial3 #9: a module left out of the given sources is named with its uses, and its
    /// arrays are not taken for routines no source defines
    #[test]
    fn a_module_no_source_defines_is_named_with_its_uses() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        let (solver, main, params) = (
            write("solver.f90", SOLVER),
            write("main.f90", MAIN),
            write("params_mod.f90", PARAMS),
        );
        let opts = frontend::Options::default();
        let l = frontend::load_files(&[solver.clone(), main.clone()], &opts).unwrap();
        assert_eq!(
            missing_modules(&l),
            vec![MissingModule {
                name: "params_mod".into(),
                uses: vec!["solver.f90:2".into(), "main.f90:4".into()],
                names: vec!["f".into(), "nsteps".into(), "nx".into(), "u".into()],
            }]
        );
        assert!(unknown_calls(&l).is_empty(), "{:?}", unknown_calls(&l));
        assert_eq!(
            warnings(&l),
            vec![
                "module params_mod (used at solver.f90:2 and main.f90:4) is not in the given \
                  sources: its variables (f, nsteps, nx, u) and routines are unknown to the \
                  analysis; give the file that defines it too"
                    .to_string()
            ]
        );
        let all = frontend::load_files(&[params, solver, main], &opts).unwrap();
        assert!(warnings(&all).is_empty(), "{:?}", warnings(&all));
    }
}
