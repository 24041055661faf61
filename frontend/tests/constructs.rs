//! One small program per construct, in C and Fortran, checking the lowered IR.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn lower(name: &str, src: &str) -> Lowered {
    let l = load_str(name, src, &Options::default()).unwrap();
    let errors: Vec<String> = l
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| diagnostic::render_human(d, &l.sources))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    l
}

fn stmts(l: &Lowered) -> Vec<&Stmt> {
    let p = l
        .program
        .main_proc()
        .or_else(|| l.program.procs.first())
        .unwrap();
    l.program
        .walk(&p.body)
        .into_iter()
        .map(|id| l.program.stmt(id).unwrap())
        .collect()
}

fn loops(l: &Lowered) -> Vec<(String, String, String, String)> {
    stmts(l)
        .into_iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Loop(lp) => Some((
                lp.var.clone(),
                lp.lo.to_string(),
                lp.hi.to_string(),
                lp.step.to_string(),
            )),
            _ => None,
        })
        .collect()
}

fn mpi(l: &Lowered) -> Vec<&MpiCall> {
    stmts(l)
        .into_iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Mpi(m) => Some(m),
            _ => None,
        })
        .collect()
}

#[test]
fn c_for_loops_normalise_to_inclusive_bounds() {
    let l = lower(
        "a.c",
        "int main(void) { int i, n = 10, a[100];\n\
         for (i = 0; i < n; i++) a[i] = 0;\n\
         for (i = 1; i <= n; i += 2) a[i] = 0;\n\
         for (int k = n - 1; k >= 0; k--) a[k] = 0;\n\
         for (i = n; i > 0; i -= 3) a[i] = 0;\n\
         for (i = 0; n > i; ++i) a[i] = 0;\n\
         for (i = 0; i != n; i++) a[i] = 0;\n\
         for (i = 0; i < 8; i++) a[i] = 0;\n\
         return 0; }\n",
    );
    let got = loops(&l);
    let want = [
        ("i", "0", "n - 1", "1"),
        ("i", "1", "n", "2"),
        ("k", "n - 1", "0", "-1"),
        ("i", "n", "1", "-3"),
        ("i", "0", "n - 1", "1"),
        ("i", "0", "n - 1", "1"),
        ("i", "0", "7", "1"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1.as_str(), g.2.as_str(), g.3.as_str()), w);
    }
}

#[test]
fn c_non_counted_for_is_a_while_with_init_and_update() {
    let l = lower("a.c", "int main(void) { int i; for (i = 0; i < 10; i *= 2) { i = i + 1; } for (;;) break; return 0; }\n");
    let whiles: Vec<&While> = stmts(&l)
        .into_iter()
        .filter_map(|s| {
            if let StmtKind::While(w) = &s.kind {
                Some(w)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(whiles.len(), 2);
    assert_eq!(whiles[0].init.len(), 1);
    assert_eq!(whiles[0].update.len(), 1);
    assert!(whiles[1].cond.is_none());
}

#[test]
fn loop_that_writes_its_variable_is_not_counted() {
    let l = lower(
        "a.c",
        "int main(void) { int i; for (i = 0; i < 10; i++) { i += 2; } return 0; }\n",
    );
    assert!(loops(&l).is_empty());
}

#[test]
fn fortran_do_loops() {
    let l = lower(
        "a.f90",
        "program p\n integer :: i, n\n real :: a(100)\n n = 10\n do i = 1, n\n a(i) = 0\n end do\n do i = n, 1, -1\n a(i) = 1\n end do\n do while (n > 0)\n n = n - 1\n end do\nend program\n",
    );
    let got = loops(&l);
    assert_eq!(
        got,
        vec![
            ("i".into(), "1".into(), "n".into(), "1".into()),
            ("i".into(), "n".into(), "1".into(), "-1".into()),
        ]
    );
    assert!(stmts(&l).iter().any(|s| matches!(&s.kind, StmtKind::While(w) if w.cond.as_ref().is_some_and(|c| c.to_string() == "n > 0"))));
}

#[test]
fn if_else_chains_both_languages() {
    let c = lower("a.c", "int main(void) { int n = 1, x; if (n > 2) x = 1; else if (n < 0) { x = 2; } else x = 3; return 0; }\n");
    let f = lower("a.f90", "program p\n integer n, x\n if (n > 2) then\n x = 1\n else if (n < 0) then\n x = 2\n else\n x = 3\n end if\nend\n");
    for l in [&c, &f] {
        let ifs: Vec<&If> = stmts(l)
            .into_iter()
            .filter_map(|s| {
                if let StmtKind::If(i) = &s.kind {
                    Some(i)
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(ifs.len(), 1);
        assert_eq!(ifs[0].arms.len(), 2);
        assert_eq!(ifs[0].arms[0].cond.to_string(), "n > 2");
        assert_eq!(ifs[0].arms[1].cond.to_string(), "n < 0");
        assert_eq!(ifs[0].else_body.as_ref().map(Vec::len), Some(1));
    }
}

const C_MPI: &str = r#"#include <mpi.h>
int main(int argc, char **argv) {
  int rank, size, n, ierr;
  double buf[100];
  MPI_Status st;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  n = atoi(argv[1]);
  ierr = MPI_Send(buf, n, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD);
  MPI_Recv(buf, n, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, &st);
  MPI_Allreduce(buf, buf, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"#;

const F_MPI: &str = "      program p
      include 'mpif.h'
      integer rank, size, n, ierr
      integer st(MPI_STATUS_SIZE)
      double precision buf(100)
      character*16 arg
      call MPI_INIT(ierr)
      call mpi_comm_size(MPI_COMM_WORLD, size, ierr)
      call MPI_Comm_Rank(MPI_COMM_WORLD, rank, ierr)
      call get_command_argument(1, arg)
      read (arg, *) n
      call MPI_SEND(buf, n, MPI_DOUBLE_PRECISION, rank + 1, 7,
     &              MPI_COMM_WORLD, ierr)
      call mpi_recv(buf, n, MPI_DOUBLE_PRECISION, rank - 1, 7,
     &              MPI_COMM_WORLD, st, ierr)
      call MPI_ALLREDUCE(buf, buf, 1, MPI_DOUBLE_PRECISION, MPI_SUM,
     &                   MPI_COMM_WORLD, ierr)
      call MPI_FINALIZE(ierr)
      end
";

#[test]
fn mpi_calls_give_the_same_ir_in_c_and_fortran() {
    let c = lower("a.c", C_MPI);
    let f = lower("a.f", F_MPI);
    let ops = |l: &Lowered| mpi(l).iter().map(|m| m.op).collect::<Vec<_>>();
    assert_eq!(ops(&c), ops(&f));
    assert_eq!(
        ops(&c),
        vec![
            MpiOp::Init,
            MpiOp::CommSize,
            MpiOp::CommRank,
            MpiOp::Send,
            MpiOp::Recv,
            MpiOp::Allreduce,
            MpiOp::Finalize
        ]
    );
    // same roles and argument text, apart from datatype names and Fortran's ierr
    let roles = |l: &Lowered, i: usize| {
        mpi(l)[i]
            .args
            .iter()
            .filter(|a| a.role != Role::Ierr && a.role != Role::Datatype && a.role != Role::Status)
            .map(|a| (a.role, a.expr.to_string()))
            .collect::<Vec<_>>()
    };
    for i in 1..6 {
        assert_eq!(roles(&c, i), roles(&f, i), "call {i}");
    }
    let send_c = mpi(&c)[3];
    assert_eq!(
        send_c.arg(Role::Peer).map(|a| a.expr.to_string()),
        Some("rank + 1".into())
    );
    assert_eq!(
        send_c.result.as_ref().map(ToString::to_string),
        Some("ierr".into())
    );
    let send_f = mpi(&f)[3];
    assert_eq!(send_f.args.last().map(|a| a.role), Some(Role::Ierr));
    // comm_rank defines rank in both
    for l in [&c, &f] {
        let s = stmts(l)
            .into_iter()
            .find(|s| matches!(&s.kind, StmtKind::Mpi(m) if m.op == MpiOp::CommRank))
            .unwrap();
        assert!(s.defs.contains("rank"));
    }
}

#[test]
fn inputs_from_argv_and_stdin() {
    let c = lower("a.c", "#include <stdio.h>\nint main(int argc, char **argv) { int n, m; double x; n = atoi(argv[1]); x = atof(argv[2]); scanf(\"%d\", &m); return 0; }\n");
    let s = stmts(&c);
    assert!(
        matches!(&s[0].kind, StmtKind::Assign(a) if a.value.kind == SrcExprKind::Input(InputOrigin::Argv(Some(1))))
    );
    assert!(
        matches!(&s[1].kind, StmtKind::Assign(a) if a.value.kind == SrcExprKind::Input(InputOrigin::Argv(Some(2))))
    );
    assert!(
        matches!(&s[2].kind, StmtKind::Input(i) if i.origin == InputOrigin::Stdin && i.targets[0].to_string() == "m")
    );
    let f = lower("a.f90", "program p\n integer n, m\n character(len=20) :: a\n call get_command_argument(2, a)\n read(a, *) n\n read(*,*) m\n read(10,*) m\nend program\n");
    let inputs: Vec<&Input> = stmts(&f)
        .into_iter()
        .filter_map(|s| {
            if let StmtKind::Input(i) = &s.kind {
                Some(i)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(
        inputs.iter().map(|i| i.origin.clone()).collect::<Vec<_>>(),
        vec![
            InputOrigin::Argv(Some(2)),
            InputOrigin::Stdin,
            InputOrigin::File
        ]
    );
}

#[test]
fn declarations_and_constants() {
    let c = lower("a.c", "#define N 64\nconst int M = N * 2;\nstatic double a[N][M + 1];\nint main(void) { const int k = 3; float b[10]; return 0; }\n");
    let g = &c.program.globals;
    assert!(
        matches!(&g[0].kind, DeclKind::Constant { origin: ConstOrigin::Define, value } if value.to_string() == "64")
    );
    assert!(
        matches!(&g[1].kind, DeclKind::Constant { origin: ConstOrigin::Const, value } if value.to_string() == "N * 2")
    );
    assert!(matches!(&g[2].kind, DeclKind::Array { dims, .. } if dims.len() == 2));
    assert_eq!(g[2].ty.bytes, Some(8));
    let main = c.program.main_proc().unwrap();
    assert!(main
        .decls
        .iter()
        .any(|d| d.name == "k" && matches!(d.kind, DeclKind::Constant { .. })));
    let f = lower("a.f", "      SUBROUTINE S(A, N)\n      IMPLICIT DOUBLE PRECISION (A-H, O-Z)\n      PARAMETER (NX = 10, NY = NX * 2)\n      DIMENSION A(NX, *), B(0:NY)\n      COMMON /GRID/ B, IG\n      X = A(1, 1)\n      END\n");
    let p = &f.program.procs[0];
    let b = p.decls.iter().find(|d| d.name == "b").unwrap();
    assert_eq!(b.common.as_deref(), Some("grid"));
    assert_eq!(b.ty.base, BaseType::Real);
    assert_eq!(b.ty.bytes, Some(8));
    assert!(
        matches!(&b.kind, DeclKind::Array { dims, .. } if matches!(&dims[0], Dim::Bounds { lo, hi } if lo.to_string() == "0" && hi.to_string() == "ny"))
    );
    assert!(
        matches!(&p.decls.iter().find(|d| d.name == "ny").unwrap().kind, DeclKind::Constant { value, .. } if value.to_string() == "nx * 2")
    );
    // A is an array, so A(1, 1) is an element, not a call
    let x = stmts(&f)
        .into_iter()
        .find_map(|s| {
            if let StmtKind::Assign(a) = &s.kind {
                Some(a)
            } else {
                None
            }
        })
        .unwrap();
    assert!(matches!(&x.value.kind, SrcExprKind::Index { array, .. } if array == "a"));
    assert_eq!(
        f.program.var_type(p.id, "x").map(|t| t.bytes),
        Some(Some(8))
    );
    assert_eq!(
        f.program.var_type(p.id, "ig").map(|t| t.base),
        Some(BaseType::Integer)
    );
}

#[test]
fn integer_division_is_typed() {
    let c = lower(
        "a.c",
        "int main(void) { int n = 7, p = 2; double x; x = n / p; x = x / p; return 0; }\n",
    );
    let divs: Vec<Option<BaseType>> = stmts(&c)
        .into_iter()
        .filter_map(|s| {
            if let StmtKind::Assign(a) = &s.kind {
                Some(a.value.ty)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(divs[2], Some(BaseType::Integer));
    assert_eq!(divs[3], Some(BaseType::Real));
}

#[test]
fn calls_breaks_returns_and_goto() {
    let c = lower("a.c", "void work(int n, double *a);\nint main(void) { double a[4]; int i; work(4, a); while (1) { if (i) break; continue; } goto end; end: return 0; }\n");
    let kinds: Vec<&str> = stmts(&c).iter().map(|s| s.kind.name()).collect();
    assert_eq!(
        kinds,
        ["call", "while", "if", "break", "continue", "opaque", "return"]
    );
    let call = stmts(&c)
        .into_iter()
        .find(|s| s.kind.name() == "call")
        .unwrap();
    assert!(call.defs.contains("a"), "array argument may be written");
    assert!(c
        .diagnostics
        .iter()
        .any(|d| d.code == diagnostic::codes::UNSUPPORTED));
    let f = lower("a.f90", "program p\n integer i\n do i = 1, 3\n if (i == 2) cycle\n if (i == 3) exit\n call work(i)\n end do\n stop\nend program\n");
    let kinds: Vec<&str> = stmts(&f).iter().map(|s| s.kind.name()).collect();
    assert_eq!(
        kinds,
        ["loop", "if", "continue", "if", "break", "call", "opaque"]
    );
}

#[test]
fn nested_mpi_calls_are_hoisted() {
    let c = lower("a.c", "int main(void) { double t, b[2]; if (MPI_Send(b, 2, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD) != MPI_SUCCESS) return 1; t = t + MPI_Wtime(); return 0; }\n");
    let kinds: Vec<&str> = stmts(&c).iter().map(|s| s.kind.name()).collect();
    assert_eq!(kinds, ["mpi", "if", "return", "mpi", "assign", "return"]);
}

#[test]
fn nondeterminism_is_warned() {
    let c = lower("a.c", "int main(void) { int b, i; MPI_Request r[2]; MPI_Status s; MPI_Recv(&b, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &s); MPI_Waitany(2, r, &i, &s); MPI_Probe(0, 0, MPI_COMM_WORLD, &s); return 0; }\n");
    let n = c
        .diagnostics
        .iter()
        .filter(|d| d.code == diagnostic::codes::NONDETERMINISTIC)
        .count();
    // the wildcard source and the Waitany; a wildcard tag from a given source is matched in
    // its send order, and the Probe of a given source and tag is deterministic
    assert_eq!(n, 2);
    let f = lower("a.f90", "program p\n use mpi\n integer b, st(MPI_STATUS_SIZE), ierr\n call mpi_recv(b, 1, MPI_INTEGER, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, st, ierr)\nend program\n");
    assert_eq!(
        f.diagnostics
            .iter()
            .filter(|d| d.code == diagnostic::codes::NONDETERMINISTIC)
            .count(),
        1
    );
}

/// trial3 #11: MPI_Probe(left, TAG_LB, …) was flagged although non-overtaking makes it
/// deterministic; only a wildcard source or tag is
#[test]
fn probe_of_a_given_source_and_tag_is_not_nondeterministic() {
    let warned = |l: &Lowered| -> Vec<String> {
        l.diagnostics
            .iter()
            .filter(|d| d.code == diagnostic::codes::NONDETERMINISTIC)
            .map(|d| d.message.clone())
            .collect()
    };
    let c = lower("a.c", "int main(void) { int f, left = 1; MPI_Status s; MPI_Probe(left, 3, MPI_COMM_WORLD, &s); MPI_Iprobe(left, 3, MPI_COMM_WORLD, &f, &s); MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &s); MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &f, &s); return 0; }\n");
    assert_eq!(
        warned(&c),
        ["`MPI_ANY_SOURCE` makes message matching depend on timing"]
    );
    let f = lower("a.f90", "program p\n use mpi\n integer st(MPI_STATUS_SIZE), ierr\n logical fl\n call mpi_probe(1, 3, MPI_COMM_WORLD, st, ierr)\n call mpi_iprobe(1, 3, MPI_COMM_WORLD, fl, st, ierr)\nend program\n");
    assert!(warned(&f).is_empty(), "{:?}", warned(&f));
}

#[test]
fn spans_map_to_original_lines_through_normalisation() {
    let l = lower("a.f", F_MPI);
    let send = stmts(&l)
        .into_iter()
        .find(|s| matches!(&s.kind, StmtKind::Mpi(m) if m.op == MpiOp::Send))
        .unwrap();
    assert_eq!(l.sources.first_line(send.span), 12);
    assert_eq!(l.sources.last_line(send.span), 13);
    let lc = l.sources.start(send.span);
    assert_eq!((lc.line, lc.col), (12, 7));
    assert!(l.sources.text(send.span).starts_with("call MPI_SEND"));
}

#[test]
fn c_macros_from_command_line() {
    let src = "#define BLOCK 16\nstatic void f(double *RESTRICT a, int n) { int i; for (i = 0; i < n; i++) a[i] = BLOCK; }\nint main(void) { return 0; }\n";
    let broken = load_str("a.c", src, &Options::default()).unwrap();
    assert!(broken.has_errors(), "RESTRICT without -D should not parse");
    let opts = Options {
        defines: vec![
            ("RESTRICT".into(), Some(String::new())),
            ("N".into(), Some("512".into())),
        ],
        ..Options::default()
    };
    let ok = load_str("a.c", src, &opts).unwrap();
    assert!(!ok.has_errors(), "{:?}", ok.diagnostics);
    assert!(ok.program.globals.iter().any(|d| d.name == "N"
        && matches!(
            d.kind,
            DeclKind::Constant {
                origin: ConstOrigin::CommandLine,
                ..
            }
        )));
    let f = ok.program.proc_by_name("f").unwrap();
    let lp = ok.program.walk(&f.body).into_iter().find_map(|id| {
        match &ok.program.stmt(id).unwrap().kind {
            StmtKind::Loop(l) => Some(l.clone()),
            _ => None,
        }
    });
    assert!(lp.is_some());
    // the loop's span maps back to the original text, after the substituted RESTRICT
    let lp = lp.unwrap();
    assert_eq!(
        ok.sources.text(lp.header_span).trim_end(),
        "for (i = 0; i < n; i++)"
    );
}

#[test]
fn preprocessor_conditionals_pick_a_branch() {
    let src = "int main(void) { int n;\n#ifdef USE_BIG\n n = 100;\n#else\n n = 1;\n#endif\n return 0; }\n";
    let a = lower("a.c", src);
    let v = |l: &Lowered| {
        stmts(l).into_iter().find_map(|s| {
            if let StmtKind::Assign(a) = &s.kind {
                Some(a.value.to_string())
            } else {
                None
            }
        })
    };
    assert_eq!(v(&a).as_deref(), Some("1"));
    let b = load_str(
        "a.c",
        src,
        &Options {
            defines: vec![("USE_BIG".into(), None)],
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(v(&b).as_deref(), Some("100"));
}

#[test]
fn fortran_program_over_several_files_sees_module_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("data.f90");
    std::fs::write(&m, "module data\n  integer, parameter :: nmax = 64\n  double precision :: buf(5, nmax)\nend module data\n").unwrap();
    let s = dir.path().join("xchg.f90");
    std::fs::write(&s, "subroutine xchg(n, peer)\n  use data\n  use mpi\n  integer :: n, peer, ierr, st(MPI_STATUS_SIZE)\n  call mpi_recv(buf(1, n), 5, MPI_DOUBLE_PRECISION, peer, 0, MPI_COMM_WORLD, st, ierr)\n  buf(1, 1) = buf(2, 2)\nend subroutine\n").unwrap();
    // the module file comes second: it is still lowered first
    let l = load_files(&[s.clone(), m.clone()], &Options::default()).unwrap();
    assert!(!l.has_errors(), "{:?}", l.diagnostics);
    assert!(l
        .program
        .globals
        .iter()
        .any(|g| g.name == "buf" && matches!(g.kind, DeclKind::Array { .. })));
    let p = l.program.proc_by_name("xchg").unwrap();
    let body: Vec<&Stmt> = l
        .program
        .walk(&p.body)
        .into_iter()
        .map(|id| l.program.stmt(id).unwrap())
        .collect();
    let StmtKind::Mpi(recv) = &body[0].kind else {
        panic!("{:?}", body[0].kind)
    };
    assert!(
        matches!(&recv.arg(Role::Buffer).unwrap().expr.kind, SrcExprKind::Index { array, .. } if array == "buf")
    );
    assert!(body[0].defs.contains("buf"));
    let StmtKind::Assign(a) = &body[1].kind else {
        panic!()
    };
    assert!(matches!(&a.value.kind, SrcExprKind::Index { .. }));
    // alone, the subroutine still sees the MPI buffer as an array element
    let alone = load(&s, &Options::default()).unwrap();
    let p = alone.program.proc_by_name("xchg").unwrap();
    let StmtKind::Mpi(recv) = &alone.program.stmt(p.body[0]).unwrap().kind else {
        panic!()
    };
    assert!(matches!(
        &recv.arg(Role::Buffer).unwrap().expr.kind,
        SrcExprKind::Index { .. }
    ));
}

#[test]
fn switch_break_is_not_a_loop_break_and_dead_cpp_branches_are_dropped() {
    let src = "#if 0\nthis is {{ not C\n#endif\nint main(int argc, char **argv) {\n  int r = argc, i;\n  for (i = 0; i < 4; i++) {\n    switch (r) {\n    case 0:\n      MPI_Barrier(MPI_COMM_WORLD);\n      break;\n    default:\n      break;\n    }\n    if (i == 2) break;\n  }\n#ifdef FAST\n  r = 1;\n#else\n  if (r > 0) {\n#endif\n    r = 2;\n#ifndef FAST\n  }\n#endif\n  while (MPI_Iprobe(0, 0, MPI_COMM_WORLD, &i, MPI_STATUS_IGNORE)) r++;\n  return r;\n}\n";
    let l = lower("a.c", src);
    let kinds: Vec<&str> = stmts(&l).iter().map(|s| s.kind.name()).collect();
    assert_eq!(
        kinds,
        [
            "assign", "loop", "if", "mpi", "if", "break", "if", "assign", "mpi", "while", "assign",
            "return"
        ]
    );
    // the hoisted Iprobe sits in the procedure body, right before the while
    let main = l.program.main_proc().unwrap();
    assert_eq!(main.body.len(), 6);
}

#[test]
fn fortran_cpp_conditionals() {
    let src = "      PROGRAM P\n      INTEGER N\n#ifdef BIG\n      N = 100\n#else\n      N = 1\n#endif\n      END\n";
    let l = lower("p.F", src);
    let v = stmts(&l).into_iter().find_map(|s| {
        if let StmtKind::Assign(a) = &s.kind {
            Some(a.value.to_string())
        } else {
            None
        }
    });
    assert_eq!(v.as_deref(), Some("1"));
    let b = load_str(
        "p.F",
        src,
        &Options {
            defines: vec![("BIG".into(), None)],
            ..Options::default()
        },
    )
    .unwrap();
    let v = stmts(&b).into_iter().find_map(|s| {
        if let StmtKind::Assign(a) = &s.kind {
            Some(a.value.to_string())
        } else {
            None
        }
    });
    assert_eq!(v.as_deref(), Some("100"));
}

#[test]
fn labelled_do_nest_ending_on_a_statement() {
    let l = lower("n.f", "      PROGRAM P\n      REAL A(4,4)\n      DO 10 J = 1, 4\n      DO 10 I = 1, 4\n   10 A(I,J) = 0.0\n      END\n");
    let p = l.program.main_proc().unwrap();
    let outer = l.program.stmt(p.body[0]).unwrap();
    let StmtKind::Loop(o) = &outer.kind else {
        panic!()
    };
    assert_eq!(o.body.len(), 1);
    let StmtKind::Loop(inner) = &l.program.stmt(o.body[0]).unwrap().kind else {
        panic!()
    };
    assert_eq!(
        inner.body.len(),
        1,
        "the shared terminator runs in the inner loop"
    );
    assert_eq!(l.sources.first_line(o.end_span), 5);
    assert_eq!(l.sources.first_line(inner.end_span), 5);
}

#[test]
fn c_for_declares_its_variable() {
    let l = lower(
        "a.c",
        "int main(void) { double s = 0; for (long k = 0; k < 9; k++) s += k; return 0; }\n",
    );
    let main = l.program.main_proc().unwrap();
    assert_eq!(
        l.program.var_type(main.id, "k").and_then(|t| t.bytes),
        Some(8)
    );
}

#[test]
fn internal_procedures_see_host_arrays() {
    let l = lower("h.f90", "program p\n  use mpi\n  double precision :: buf(100)\n  integer :: ierr\n  call work()\ncontains\n  subroutine work()\n    buf(1) = 2.0d0\n  end subroutine work\nend program p\n");
    let w = l.program.proc_by_name("work").unwrap();
    let StmtKind::Assign(a) = &l.program.stmt(w.body[0]).unwrap().kind else {
        panic!()
    };
    assert!(matches!(&a.target.kind, SrcExprKind::Index { array, .. } if array == "buf"));
    assert_eq!(a.target.ty, Some(BaseType::Real));
}

#[test]
fn statement_macros_without_semicolon_are_expanded() {
    let src = "#define FOR_ALL(i, n) for ((i) = 0; (i) < (n); (i)++)\n#define CHECK(x) do { if ((x) != 0) return 1; } while (0)\nint main(int argc, char **argv) {\n  int i, n = 8;\n  double a[8];\n  FOR_ALL(i, n) {\n    a[i] = 0;\n  }\n  CHECK(MPI_Barrier(MPI_COMM_WORLD));\n  return 0;\n}\n";
    let l = lower("m.c", src);
    let s = stmts(&l);
    let lp = s
        .iter()
        .find(|s| matches!(s.kind, StmtKind::Loop(_)))
        .expect("FOR_ALL is a counted loop");
    assert_eq!(l.sources.first_line(lp.span), 6);
    let StmtKind::Loop(lp) = &lp.kind else {
        panic!()
    };
    assert_eq!(
        (lp.lo.to_string().as_str(), lp.hi.to_string().as_str()),
        ("0", "n - 1")
    );
    assert!(s
        .iter()
        .any(|s| matches!(&s.kind, StmtKind::Mpi(m) if m.op == MpiOp::Barrier)));
}

#[test]
fn fortran_read_with_implied_do() {
    let l = lower(
        "r.f90",
        "program p\n integer a(10), i, n\n read(*,*) n, (a(i), i=1,n)\nend program\n",
    );
    let s = stmts(&l);
    let StmtKind::Input(inp) = &s[0].kind else {
        panic!("{:?}", s[0].kind)
    };
    let t: Vec<String> = inp.targets.iter().map(ToString::to_string).collect();
    assert_eq!(t, ["n", "a[i]"]);
    assert_eq!(s[0].defs.iter().cloned().collect::<Vec<_>>(), ["a", "n"]);
}

#[test]
fn block_data_is_not_a_main_program() {
    let l = lower("b.f", "      BLOCK DATA INIT\n      COMMON /C/ X\n      DATA X /1.0/\n      END\n      PROGRAM P\n      COMMON /C/ X\n      PRINT *, X\n      END\n");
    assert_eq!(l.program.procs.len(), 1);
    assert_eq!(l.program.main_proc().map(|p| p.name.as_str()), Some("p"));
}

#[test]
fn free_form_code_in_a_dot_f_file() {
    let src = "program p\n  use mpi\n  integer :: ierr, n\ncall mpi_init(ierr)\n  do n = 1, 3\n    call mpi_barrier(MPI_COMM_WORLD, ierr)\n  end do\n  call mpi_finalize(ierr)\nend program p\n";
    let l = lower("free.f", src);
    assert_eq!(
        mpi(&l).len(),
        3,
        "column-1 `call` is a statement in free form"
    );
    // an explicit --form fixed is obeyed: column-1 `c` starts a comment there
    let forced = load_str(
        "free.f",
        src,
        &Options {
            form: Form::Fixed,
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(
        forced
            .program
            .stmts
            .iter()
            .filter(|s| matches!(s.kind, StmtKind::Mpi(_)))
            .count(),
        2
    );
}

#[test]
fn lowered_reports_the_form_used() {
    let l = lower("x.f", "      PROGRAM P\n      END\n");
    assert_eq!(l.forms, vec![(FileId(0), Form::Fixed)]);
    let l = lower("y.f", "program p\nend program p\n");
    assert_eq!(l.forms, vec![(FileId(0), Form::Free)]);
    let l = lower("z.c", "int main(void) { return 0; }\n");
    assert_eq!(l.forms, vec![(FileId(0), Form::C)]);
}

#[test]
fn receive_into_pointer_arithmetic_defines_the_buffer() {
    let l = lower("p.c", "int main(void) { double *u; int n = 4, off = 2; MPI_Recv(u + off, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); return 0; }\n");
    let s = stmts(&l)
        .into_iter()
        .find(|s| matches!(s.kind, StmtKind::Mpi(_)))
        .unwrap();
    assert_eq!(s.defs.iter().cloned().collect::<Vec<_>>(), ["u"]);
    assert!(s.uses.contains("off") && s.uses.contains("n"));
}

#[test]
fn fortran_variable_named_class() {
    let l = lower("c.f", "      PROGRAM P\n      CHARACTER CLASS\n      INTEGER M\n      CLASS = 'S'\n      IF (CLASS .EQ. 'S') M = 1\n      CALL PRINT_RESULTS('LU', CLASS, M)\n      END\n");
    let kinds: Vec<&str> = stmts(&l).iter().map(|s| s.kind.name()).collect();
    assert_eq!(kinds, ["assign", "if", "assign", "call"]);
    assert!(stmts(&l)[0].defs.contains("class"));
}

/// `use mpi_f08` makes the trailing `ierror` optional (trial-f #11: every call without it was
/// an arity warning): both spellings get the same roles, and a missing argument is still
/// reported.
#[test]
fn mpi_f08_ierror_is_optional() {
    let l = lower(
        "f08.f90",
        "program f08\n  use mpi_f08\n  integer :: rank, ierr\n  double precision :: s\n  \
         call MPI_Init()\n  call MPI_Comm_rank(MPI_COMM_WORLD, rank)\n  \
         call MPI_Bcast(s, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)\n  \
         call MPI_Bcast(s, 1, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD, ierr)\n  \
         call MPI_Bcast(s, 1, MPI_DOUBLE_PRECISION, 0)\n  call MPI_Finalize()\nend program f08\n",
    );
    let arity: Vec<u32> = l
        .diagnostics
        .iter()
        .filter(|d| d.code == diagnostic::codes::MPI_ARITY)
        .filter_map(|d| d.primary_span().map(|sp| l.sources.start(sp).line))
        .collect();
    assert_eq!(arity, [9], "only the Bcast missing its communicator");
    // the tracer cannot instrument it: said where it is read (trial 28), not only at profile
    let f08: Vec<&diagnostic::Diagnostic> = l
        .diagnostics
        .iter()
        .filter(|d| d.code == diagnostic::codes::UNSUPPORTED && d.message.contains("mpi_f08"))
        .collect();
    assert_eq!(f08.len(), 1, "{:?}", l.diagnostics);
    let calls = mpi(&l);
    let roles = |m: &MpiCall| m.args.iter().map(|a| a.role).collect::<Vec<_>>();
    assert_eq!(roles(calls[1]), [Role::Comm, Role::Rank]);
    assert_eq!(roles(calls[3])[..5], roles(calls[2])[..]);
    assert_eq!(roles(calls[3])[5], Role::Ierr);
}

#[test]
fn expression_macros_expand_where_they_are_used() {
    let src = "#define IDX(i, j, n) ((i) * (n) + (j))\n\
               #define SQ(x) x * x\n\
               #define U(a, i, j) (a)[(i) * (ny + 2) + (j)]\n\
               #define HALF(x) (IDX(x, 0, 1) / 2)\n\
               #define SELF(x) (SELF(x) + 1)\n\
               #define HIDDEN(x) work(x)\n\
               #define ZERO() 0\n\
               int work(int);\n\
               int main(void) { int i, n = 10, ny = 4; double a[100];\n\
               for (i = IDX(1, 0, n); i < IDX(n + 1, 0, n); i++) a[i] = 0;\n\
               for (i = ZERO(); i < SQ(n + 1); i++) U(a, i, 0) = 1;\n\
               for (i = 0; i < HALF(n); i++) a[i] = 0;\n\
               for (i = 0; i < SELF(n); i++) a[i] = 0;\n\
               for (i = 0; i < HIDDEN(n); i++) a[i] = 0;\n\
               return 0; }\n";
    let l = lower("m.c", src);
    let got: Vec<(String, String)> = loops(&l).into_iter().map(|g| (g.1, g.2)).collect();
    let want = [
        ("1 * n + 0", "(n + 1) * n + 0 - 1"),
        // C's textual rules: SQ(n + 1) is n + 1 * n + 1
        ("0", "n + 1 * n + 1 - 1"),
        ("0", "(n * 1 + 0) / 2 /*int*/ - 1"),
        // a use whose expansion calls a function (itself, not expanded again, or another) stays a call
        ("0", "SELF(n) - 1"),
        ("0", "HIDDEN(n) - 1"),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.0.as_str(), g.1.as_str()), w);
    }
    // `U(a, i, 0) = 1` writes the array through the expansion, with the use's span
    let s = stmts(&l);
    let assign = s
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Assign(a) if a.value.to_string() == "1" => Some(a),
            _ => None,
        })
        .unwrap();
    assert_eq!(assign.target.to_string(), "a[i * (ny + 2) + 0]");
    assert_eq!(l.sources.text(assign.target.span), "U(a, i, 0)");
}

/// A macro whose body calls any math function the analysis knows expands (the one table of
/// intrinsics; `sin` and `tanh` were missing from the macro check's own list).
#[test]
fn expression_macros_calling_math_functions_expand() {
    let src = "#include <math.h>\n#define DAMP(x) ((int) (tanh(x) * sin(x) * 10))\n\
               int main(void) { int i, n = 10; double a[100];\n\
               for (i = 0; i < DAMP(n); i++) a[i] = 0;\n\
               return 0; }\n";
    let l = lower("m.c", src);
    let got: Vec<String> = loops(&l).into_iter().map(|g| g.2).collect();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].contains("tanh(n)") && got[0].contains("sin(n)"),
        "{got:?}"
    );
    assert!(!got[0].contains("DAMP"), "{got:?}");
}

#[test]
fn getopt_arguments_are_inputs_named_by_their_case() {
    let src = "#include <stdlib.h>\n#include <unistd.h>\n\
               int main(int argc, char **argv) { int c, n = 1, k = 2, m = 3;\n\
               while ((c = getopt(argc, argv, \"n:k:m:\")) != -1) {\n\
                 switch (c) {\n\
                 case 'n': n = atoi(optarg); break;\n\
                 case 'k': sscanf(optarg, \"%d\", &k); break;\n\
                 default: break;\n\
                 }\n\
               }\n\
               if (argc > 5) m = atoi(optarg);\n\
               return n + k + m; }\n";
    let l = lower("g.c", src);
    let origins: Vec<InputOrigin> = stmts(&l)
        .into_iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Assign(a) => match &a.value.kind {
                SrcExprKind::Input(o) => Some(o.clone()),
                _ => None,
            },
            StmtKind::Input(i) => Some(i.origin.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        origins,
        [
            InputOrigin::Option(Some("n".into())),
            InputOrigin::Option(Some("k".into())),
            InputOrigin::Option(None)
        ]
    );
}
