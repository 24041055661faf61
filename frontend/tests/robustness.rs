//! Broken and extreme inputs: diagnostics, never a panic, hang or stack overflow.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use std::fmt::Write as _;
use std::time::Instant;

use frontend::diagnostic::codes;
use frontend::*;

fn codes_of(l: &Lowered) -> Vec<&'static str> {
    l.diagnostics.iter().map(|d| d.code).collect()
}

#[test]
fn unbalanced_parentheses_give_syntax_errors_with_location() {
    for (name, src, line) in [
        (
            "a.c",
            "int main(void) {\n  int x = (1 + 2;\n  return x;\n}\n",
            2,
        ),
        (
            "a.f90",
            "program p\n  integer x\n  x = (1 + 2\n  print *, x\nend program\n",
            3,
        ),
        ("a.f", "      PROGRAM P\n      X = (1 + 2))\n      END\n", 2),
    ] {
        let l = load_str(name, src, &Options::default()).unwrap();
        assert!(l.has_errors(), "{name}: {:?}", l.diagnostics);
        let d = l
            .diagnostics
            .iter()
            .find(|d| d.severity == Severity::Error)
            .unwrap();
        let span = d.primary_span().unwrap();
        assert_eq!(l.sources.first_line(span), line, "{name}");
        let text = diagnostic::render_human(d, &l.sources);
        assert!(text.contains(&format!("{name}:{line}:")), "{text}");
        // the rest of the file is still lowered
        assert!(!l.program.procs.is_empty(), "{name}");
    }
}

#[test]
fn truncated_files() {
    let c = "#include <mpi.h>\nint main(int argc, char **argv) {\n  int i;\n  for (i = 0; i < 10; i++) {\n    MPI_Barrier(MPI_COMM_WORLD);\n";
    let l = load_str("t.c", c, &Options::default()).unwrap();
    assert!(l.has_errors());
    assert!(codes_of(&l).contains(&codes::MISSING) || codes_of(&l).contains(&codes::SYNTAX));
    let f =
        "      PROGRAM P\n      DO 10 I = 1, N\n         CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)\n";
    let l = load_str("t.f", f, &Options::default()).unwrap();
    assert!(l.has_errors(), "{:?}", l.diagnostics);
}

#[test]
fn binary_garbage_is_read_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("garbage.c");
    let mut bytes: Vec<u8> = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..20000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        bytes.push((x >> 16) as u8);
    }
    std::fs::write(&path, &bytes).unwrap();
    let l = load(&path, &Options::default()).unwrap();
    assert!(codes_of(&l).contains(&codes::NON_UTF8));
    assert!(l.has_errors());
    for d in &l.diagnostics {
        let _ = diagnostic::render_human(d, &l.sources);
    }
    let f = dir.path().join("garbage.f");
    std::fs::write(&f, &bytes).unwrap();
    let l = load(&f, &Options::default()).unwrap();
    assert!(codes_of(&l).contains(&codes::NON_UTF8));
}

#[test]
fn empty_files() {
    for name in ["e.c", "e.f", "e.f90"] {
        let l = load_str(name, "", &Options::default()).unwrap();
        assert_eq!(codes_of(&l), vec![codes::EMPTY_FILE], "{name}");
        assert!(l.has_errors(), "an empty input is an error (non-zero exit)");
        assert!(l.program.procs.is_empty());
    }
}

#[test]
fn missing_file_is_a_typed_error() {
    let e = load(
        std::path::Path::new("/nonexistent/x.c"),
        &Options::default(),
    );
    assert!(matches!(e, Err(LoadError::Io { .. })));
}

fn nest_c(depth: usize) -> String {
    let mut s = String::from("int main(void) {\n  int n = 2, s = 0;\n");
    for i in 0..depth {
        let _ = writeln!(s, "for (int i{i} = 0; i{i} < n; i{i}++) {{");
    }
    s.push_str("s = s + 1;\n");
    for _ in 0..depth {
        s.push_str("}\n");
    }
    s.push_str("return s;\n}\n");
    s
}

fn nest_f(depth: usize) -> String {
    let mut s = String::from("program p\n  integer :: n, s\n");
    for i in 0..depth {
        let _ = writeln!(s, "do i{i} = 1, n");
    }
    s.push_str("s = s + 1\n");
    for _ in 0..depth {
        s.push_str("end do\n");
    }
    s.push_str("end program\n");
    s
}

fn max_loop_depth(l: &Lowered) -> usize {
    let p = l.program.main_proc().unwrap();
    let mut best = 0;
    for id in l.program.walk(&p.body) {
        let mut d = 0;
        let mut cur = l.program.stmt(id).and_then(|s| s.parent);
        while let Some(c) = cur {
            d += 1;
            cur = l.program.stmt(c).and_then(|s| s.parent);
        }
        best = best.max(d);
    }
    best
}

#[test]
fn loop_nest_200_deep_is_lowered_fully() {
    let c = load_str("deep.c", &nest_c(200), &Options::default()).unwrap();
    assert!(!c.has_errors(), "{:?}", c.diagnostics.first());
    assert_eq!(max_loop_depth(&c), 200);
    let f = load_str("deep.f90", &nest_f(200), &Options::default()).unwrap();
    assert!(!f.has_errors(), "{:?}", f.diagnostics.first());
    assert_eq!(max_loop_depth(&f), 200);
    let _ = dump::dump(&f.program, &f.sources);
}

#[test]
fn absurd_nesting_is_cut_with_a_diagnostic() {
    let c = load_str("deeper.c", &nest_c(2000), &Options::default()).unwrap();
    assert!(codes_of(&c).contains(&codes::TOO_DEEP));
    let mut e = String::from("int main(void) { int x = ");
    e.push_str(&"(".repeat(5000));
    e.push('1');
    e.push_str(&")".repeat(5000));
    e.push_str("; return x; }\n");
    let l = load_str("paren.c", &e, &Options::default()).unwrap();
    assert!(!l.program.procs.is_empty());
    let mut chain = String::from("int main(void) { int x = 0");
    for _ in 0..20000 {
        chain.push_str(" + 1");
    }
    chain.push_str("; return x; }\n");
    let l = load_str("chain.c", &chain, &Options::default()).unwrap();
    assert!(codes_of(&l).contains(&codes::TOO_DEEP));
}

#[test]
fn ten_megabyte_file() {
    let mut s = String::new();
    let mut k = 0;
    while s.len() < 10 * 1024 * 1024 {
        let _ = write!(
            s,
            "void f{k}(double *a, int n) {{\n  int i;\n  for (i = 0; i < n; i++) {{\n    a[i] = a[i] * 0.5 + {k};\n  }}\n  MPI_Barrier(MPI_COMM_WORLD);\n}}\n"
        );
        k += 1;
    }
    let t = Instant::now();
    let l = load_str("big.c", &s, &Options::default()).unwrap();
    assert!(!l.has_errors());
    assert_eq!(l.program.procs.len(), k);
    // generous bound: catches accidental quadratic behaviour, not a benchmark
    assert!(t.elapsed().as_secs() < 120, "took {:?}", t.elapsed());
}

#[test]
fn include_cycle_and_missing_include() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.h"),
        "      INCLUDE 'b.h'\n      INTEGER X\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("b.h"), "      INCLUDE 'a.h'\n").unwrap();
    let main = dir.path().join("m.f");
    std::fs::write(
        &main,
        "      PROGRAM M\n      INCLUDE 'a.h'\n      INCLUDE 'nothere.h'\n      X = 1\n      END\n",
    )
    .unwrap();
    let l = load(&main, &Options::default()).unwrap();
    let c = codes_of(&l);
    assert!(c.contains(&codes::INCLUDE_CYCLE), "{c:?}");
    assert!(c.contains(&codes::INCLUDE_NOT_FOUND), "{c:?}");
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == codes::INCLUDE_NOT_FOUND)
        .unwrap();
    let span = d.primary_span().unwrap();
    assert_eq!(l.sources.first_line(span), 3);
    assert_eq!(l.sources.path(span.file), Some(main.as_path()));
}

#[test]
fn includes_are_inlined_with_a_line_map_and_i_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let inc = dir.path().join("inc");
    std::fs::create_dir(&inc).unwrap();
    std::fs::write(inc.join("params.h"), "C     problem size\n      INTEGER NMAX\n      PARAMETER (NMAX = 128)\n      COMMON /SIZES/ NX, NY\n").unwrap();
    let main = dir.path().join("m.f");
    std::fs::write(&main, "      PROGRAM M\n      INCLUDE 'params.h'\n      DO 10 I = 1, NMAX\n         NX = I\n   10 CONTINUE\n      END\n").unwrap();
    let missing = load(&main, &Options::default()).unwrap();
    assert!(codes_of(&missing).contains(&codes::INCLUDE_NOT_FOUND));
    let opts = Options {
        include_dirs: vec![inc.clone()],
        ..Options::default()
    };
    let l = load(&main, &opts).unwrap();
    assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
    let p = l.program.main_proc().unwrap();
    let nmax = p.decls.iter().find(|d| d.name == "nmax").unwrap();
    assert!(matches!(nmax.kind, DeclKind::Constant { .. }));
    assert_eq!(
        l.sources.path(nmax.span.file),
        Some(inc.join("params.h").as_path())
    );
    assert_eq!(l.sources.first_line(nmax.span), 3);
    let lp = l.program.stmt(p.body[0]).unwrap();
    assert_eq!(l.sources.path(lp.span.file), Some(main.as_path()));
    assert_eq!(
        (l.sources.first_line(lp.span), l.sources.last_line(lp.span)),
        (3, 5)
    );
    assert_eq!(
        p.decls
            .iter()
            .find(|d| d.name == "nx")
            .and_then(|d| d.common.clone())
            .as_deref(),
        Some("sizes")
    );
}

#[test]
fn c_local_headers_are_inlined() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("k.h"),
        "#ifndef K_H\n#define K_H\n#define NB 32\n#define RESTRICT\n#endif\n",
    )
    .unwrap();
    let main = dir.path().join("m.c");
    std::fs::write(&main, "#include \"k.h\"\n#include \"k.h\"\nvoid f(double *RESTRICT a) { int i; for (i = 0; i < NB; i++) a[i] = 0; }\n").unwrap();
    let l = load(&main, &Options::default()).unwrap();
    assert!(!l.has_errors(), "{:?}", l.diagnostics);
    let nb = l.program.globals.iter().find(|d| d.name == "NB").unwrap();
    assert_eq!(l.sources.first_line(nb.span), 3);
    assert_eq!(
        l.sources.path(nb.span.file),
        Some(dir.path().join("k.h").as_path())
    );
}

/// Deterministic mutation fuzzing of real programs: truncation, deleted and duplicated
/// ranges, injected bytes. Loading must return a program (with diagnostics), never panic.
#[test]
fn mutated_programs_never_panic() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<std::path::PathBuf> = vec![
        root.join("tests/data/ugly.f"),
        root.join("tests/data/kernel.c"),
    ];
    for dir in [
        "shift", "pge1", "pge2", "atm2d", "sweep", "stencil", "pipeline",
    ] {
        for ext in ["c", "f", "f90"] {
            let p = root.join(format!("../testdata/{dir}/{dir}.{ext}"));
            if p.is_file() {
                files.push(p);
            }
        }
    }
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % (n.max(1) as u64)) as usize
    };
    let junk = [
        "(",
        ")",
        "&",
        "\n",
        "'",
        "\"",
        "{",
        "}",
        "#if X\n",
        "      DO 10 I=1,N\n",
        "\u{0}",
        "é",
        "\t1",
    ];
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        for _ in 0..25 {
            let mut t = text.clone();
            for _ in 0..1 + next(4) {
                let mut at = next(t.len());
                while !t.is_char_boundary(at) {
                    at -= 1;
                }
                match next(4) {
                    0 => t.truncate(at),
                    1 => {
                        let mut end = (at + next(200)).min(t.len());
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        t.replace_range(at..end, "");
                    }
                    2 => t.insert_str(at, junk[next(junk.len())]),
                    _ => {
                        let mut end = (at + next(300)).min(t.len());
                        while !t.is_char_boundary(end) {
                            end -= 1;
                        }
                        let dup = t[at..end].to_string();
                        t.insert_str(at, &dup);
                    }
                }
            }
            let l = load_str(&name, &t, &Options::default()).unwrap();
            for d in &l.diagnostics {
                let _ = diagnostic::render_human(d, &l.sources);
            }
            let _ = dump::dump(&l.program, &l.sources);
        }
    }
}

#[test]
fn crlf_line_endings() {
    let c = "int main(void) {\r\n  int i, s = 0;\r\n  for (i = 0; i < 4; i++)\r\n    s += i;\r\n  return s;\r\n}\r\n";
    let l = load_str("crlf.c", c, &Options::default()).unwrap();
    assert!(!l.has_errors(), "{:?}", l.diagnostics);
    let f =
        "      PROGRAM P\r\n      DO 10 I = 1,\r\n     &   4\r\n   10 CONTINUE\r\n      END\r\n";
    let l = load_str("crlf.f", f, &Options::default()).unwrap();
    assert!(!l.has_errors(), "{:?}", l.diagnostics);
    let lp = l
        .program
        .stmts
        .iter()
        .find(|s| matches!(s.kind, StmtKind::Loop(_)))
        .unwrap();
    assert_eq!(
        (l.sources.first_line(lp.span), l.sources.last_line(lp.span)),
        (2, 4)
    );
}

/// Project-macro idioms from real C code bases: attribute macros, macro chains, declaration
/// macros, function-like macros with comments inside multi-line bodies, headers found
/// through an includer's directory.
#[test]
fn project_macro_idioms() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("unicode")).unwrap();
    std::fs::write(
        dir.path().join("unicode/machine.h"),
        "#ifdef __cplusplus\n#  define U_CFUNC extern \"C\"\n#else\n#  define U_CFUNC extern\n#endif\n#define U_CAPI U_CFUNC U_EXPORT\n#define U_STABLE U_CAPI\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("unicode/utf8.h"), "#include \"unicode/machine.h\"\nU_STABLE int U_EXPORT2\nnext_char(const char *s, int *i);\n#define NEXT(s, i, c) do { \\\n    /* comment (inside) the body */ \\\n    (c) = (s)[(i)++]; \\\n  } while (0)\n").unwrap();
    std::fs::write(
        dir.path().join("defs.h"),
        "#define U_EXPORT\n#define U_EXPORT2\n#include \"unicode/utf8.h\"\n#define TS_PUBLIC __attribute__((visibility(\"default\")))\n#define FIELDS \\\n  int a; \\\n  int b;\n#define forceinline static inline __attribute__((always_inline))\n",
    )
    .unwrap();
    let main = dir.path().join("m.c");
    std::fs::write(&main, "#include \"defs.h\"\nstruct S { FIELDS };\nTS_PUBLIC int f(void);\nforceinline int g(int x) { return x; }\nint main(void) { int i = 0, c; NEXT(\"ab\", i, c); return g(c); }\n").unwrap();
    let l = load(&main, &Options::default()).unwrap();
    let errors: Vec<String> = l
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| diagnostic::render_human(d, &l.sources))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(l.program.proc_by_name("g").is_some());
    assert!(l.program.main_proc().is_some());
    assert!(
        !l.program.globals.iter().any(|g| g.name == "U_STABLE"),
        "qualifier macros are not constants"
    );
}

/// Nesting just below and above the depth where lowering moves to its big-stack worker,
/// on this test thread's small stack.
#[test]
fn nesting_around_the_worker_threshold() {
    for depth in [10, 20, 30, 40, 60, 80] {
        let c = load_str("n.c", &nest_c(depth), &Options::default()).unwrap();
        assert!(!c.has_errors(), "{depth}");
        assert_eq!(max_loop_depth(&c), depth);
        let f = load_str("n.f90", &nest_f(depth), &Options::default()).unwrap();
        assert!(!f.has_errors(), "{depth}");
        assert_eq!(max_loop_depth(&f), depth);
        let mut e = String::from("int main(void) { int x = ");
        e.push_str(&"(".repeat(depth * 2));
        e.push('1');
        e.push_str(&")".repeat(depth * 2));
        e.push_str("; return x; }\n");
        let l = load_str("p.c", &e, &Options::default()).unwrap();
        assert!(!l.has_errors(), "{depth}");
    }
}

/// Syntax errors at the offending line (trial-f #10): tree-sitter's recovery spread them over
/// several lines and they were reported at `PROGRAM SYN` (fixed form) or at the `end if` two
/// lines after `if (n > 3 then` (free form).
#[test]
fn syntax_errors_at_the_line_with_unbalanced_parentheses() {
    let lines = |name: &str, src: &str| -> (Vec<u32>, Vec<String>) {
        let l = load_str(name, src, &Options::default()).unwrap();
        let syntax = l
            .diagnostics
            .iter()
            .filter(|d| d.code == diagnostic::codes::SYNTAX)
            .filter_map(|d| d.primary_span().map(|s| l.sources.start(s).line))
            .collect();
        let notes = l.diagnostics.iter().flat_map(|d| d.notes.clone()).collect();
        (syntax, notes)
    };
    let fixed = "      PROGRAM SYN\n      INCLUDE 'mpif.h'\n      INTEGER IERR, I\n      \
                 CALL MPI_INIT(IERR)\n      DO 10 I = 1, 10\n         X = (I +\n   \
                 10 CONTINUE\n      CALL MPI_FINALIZE(IERR)\n      END\n";
    let (at, notes) = lines("syn.f", fixed);
    assert_eq!(at, [6]);
    assert!(
        notes.iter().all(|n| !n.contains("--form")),
        "the language is not the culprit: {notes:?}"
    );
    let free = "program syn\n  use mpi\n  implicit none\n  integer :: ierr, n, i\n  \
                call MPI_Init(ierr)\n  n = 10\n  do i = 1, n\n    x = (i + \n  end do\n  \
                if (n > 3 then\n    call MPI_Barrier(MPI_COMM_WORLD, ierr)\n  end if\n  \
                call MPI_Finalize(ierr)\nend program syn\n";
    let (at, _) = lines("syn.f90", free);
    assert_eq!(at[..2], [8, 10], "{at:?}");
    // parentheses balanced over a continuation are not an error
    let ok = "program ok\n  integer :: n\n  n = (1 + &\n       2)\n  if (n > 3 then\n  end if\nend program ok\n";
    let (at, _) = lines("ok.f90", ok);
    assert!(!at.contains(&3) && !at.contains(&4), "{at:?}");
}

/// Trial 21 D25: one unbalanced parenthesis in a fixed-form block IF (twice here: trial 21's
/// pipelined Thomas solver) made the file's reading as free form look better by its count of
/// ERROR nodes, and that reading lost the unit (its `C` comments and continuations errors
/// spanning it, eleven diagnostics on lines that were right). Readings are compared by how
/// much text their errors cover: the fixed-form reading keeps the loops and the calls around
/// the broken lines, and reports those lines alone.
#[test]
fn one_unbalanced_parenthesis_in_fixed_form_keeps_its_unit() {
    let src = "C     Pipelined Thomas solver: NSYS independent tridiagonal systems of
C     N unknowns each, the unknowns split by rows over the ranks; the
C     forward sweep streams blocks of NB systems down the ranks, the
C     backward sweep streams them back up.
      PROGRAM TRIPIP
      INCLUDE 'mpif.h'
      INTEGER NMAX, SMAX
      PARAMETER (NMAX=4096, SMAX=512)
      DOUBLE PRECISION A(SMAX,NMAX), B(SMAX,NMAX), C(SMAX,NMAX)
      DOUBLE PRECISION D(SMAX,NMAX), X(SMAX,NMAX)
      COMMON /SYS/ A, B, C, D, X
      DOUBLE PRECISION BUF(2*SMAX)
      INTEGER N, NB, NSYS, NLOC, RANK, NP, IERR, IB, I, J, K, NIT
      INTEGER STAT(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      IF (RANK .EQ. 0) READ(*,*) N, NB
      CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL MPI_BCAST(NB, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      NSYS = 512
      NLOC = N / NP
      DO 10 I = 1, NLOC
        DO 10 J = 1, NSYS
          A(J,I) = -1.0D0
          B(J,I) = 4.0D0
          C(J,I) = -1.0D0
          D(J,I) = DBLE(I + RANK*NLOC) / DBLE(J)
 10   CONTINUE
      DO 100 NIT = 1, 5
C     forward elimination, block by block
      IB = 1
 20   CONTINUE
      IF ((RANK .GT. 0) THEN
        CALL MPI_RECV(BUF, 2*NB, MPI_DOUBLE_PRECISION, RANK-1, 1,
     &                MPI_COMM_WORLD, STAT, IERR)
        DO 25 J = IB, IB+NB-1
          K = J - IB + 1
          B(J,1) = B(J,1) - A(J,1)*BUF(K)
          D(J,1) = D(J,1) - A(J,1)*BUF(NB+K)
 25     CONTINUE
      END IF
      DO 30 I = 2, NLOC
        DO 30 J = IB, IB+NB-1
          B(J,I) = B(J,I) - A(J,I)*C(J,I-1)/B(J,I-1)
          D(J,I) = D(J,I) - A(J,I)*D(J,I-1)/B(J,I-1)
 30   CONTINUE
      IF (RANK .LT. NP-1) THEN
        DO 35 J = IB, IB+NB-1
          K = J - IB + 1
          BUF(K) = C(J,NLOC)/B(J,NLOC)
          BUF(NB+K) = D(J,NLOC)/B(J,NLOC)
 35     CONTINUE
        CALL MPI_SEND(BUF, 2*NB, MPI_DOUBLE_PRECISION, RANK+1, 1,
     &                MPI_COMM_WORLD, IERR)
      END IF
      IB = IB + NB
      IF (IB .LE. NSYS) GOTO 20
C     back substitution, blocks streamed up
      DO 60 IB = 1, NSYS, NB
        IF (RANK .LT. NP-1) THEN
          CALL MPI_RECV(BUF, NB, MPI_DOUBLE_PRECISION, RANK+1, 2,
     &                  MPI_COMM_WORLD, STAT, IERR)
          DO 45 J = IB, IB+NB-1
            X(J,NLOC) = (D(J,NLOC) - C(J,NLOC)*BUF(J-IB+1))/B(J,NLOC)
 45       CONTINUE
        ELSE
          DO 46 J = IB, IB+NB-1
            X(J,NLOC) = D(J,NLOC)/B(J,NLOC)
 46       CONTINUE
        END IF
        DO 50 I = NLOC-1, 1, -1
          DO 50 J = IB, IB+NB-1
            X(J,I) = (D(J,I) - C(J,I)*X(J,I+1))/B(J,I)
 50     CONTINUE
        IF ((RANK .GT. 0) THEN
          CALL MPI_SEND(X(IB,1), NB, MPI_DOUBLE_PRECISION, RANK-1, 2,
     &                  MPI_COMM_WORLD, IERR)
        END IF
 60   CONTINUE
 100  CONTINUE
      IF (RANK .EQ. 0) PRINT *, 'X(1,1) =', X(1,1)
      CALL MPI_FINALIZE(IERR)
      END
";
    let l = load_str("one.f", src, &Options::default()).unwrap();
    assert!(l.has_errors());
    let lines: Vec<u32> = l
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| d.primary_span().map(|s| l.sources.start(s).line))
        .collect();
    assert_eq!(lines, [34, 76], "{:?}", l.diagnostics);
    let p = &l.program;
    let stmts: Vec<&Stmt> = p
        .procs
        .iter()
        .flat_map(|pr| p.walk(&pr.body))
        .filter_map(|id| p.stmt(id))
        .collect();
    assert!(
        stmts.iter().any(|s| matches!(s.kind, StmtKind::Loop(_))),
        "{stmts:#?}"
    );
    let mpi = stmts
        .iter()
        .filter(|s| matches!(s.kind, StmtKind::Mpi(_)))
        .count();
    assert!(mpi >= 4, "{stmts:#?}");
}
