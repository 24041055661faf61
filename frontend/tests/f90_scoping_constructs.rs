//! Fortran constructs whose statements were dropped or miscounted (trial 9 items 1-3):
//! ASSOCIATE and BLOCK bodies lowered in place with associate names replaced by their
//! selectors, DO CONCURRENT headers with every index, and a loop closed by an arithmetic IF.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn lower(name: &str, src: &str) -> Lowered {
    load_str(name, src, &Options::default()).unwrap()
}

/// Every statement of the main program, pre-order, as its IR dump line without line numbers.
fn dump_main(l: &Lowered) -> Vec<String> {
    let p = l.program.main_proc().unwrap();
    l.program
        .walk(&p.body)
        .into_iter()
        .map(|id| {
            let s = l.program.stmt(id).unwrap();
            match &s.kind {
                StmtKind::Loop(lp) => {
                    let idx: Vec<String> = lp
                        .indices()
                        .iter()
                        .map(|(v, lo, hi, st)| format!("{v}={lo}:{hi}:{st}"))
                        .collect();
                    let c = if lp.concurrent.is_some() {
                        "concurrent "
                    } else {
                        ""
                    };
                    format!("loop {c}{}", idx.join(", "))
                }
                StmtKind::Assign(a) => format!("{} = {}", a.target, a.value),
                StmtKind::While(w) => format!(
                    "while{} {}",
                    if w.post_test { " post" } else { "" },
                    w.cond.as_ref().map(|c| c.to_string()).unwrap_or_default()
                ),
                StmtKind::Call(c) => format!(
                    "call {}({})",
                    c.name,
                    c.args
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                k => k.name().to_string(),
            }
        })
        .collect()
}

const ASSOC: &str = "\
program assoc
  implicit none
  type grid
    integer :: nx, ny
    real(8), allocatable :: u(:,:)
  end type
  type(grid) :: g
  integer :: n, i, j, it
  real(8), allocatable :: u(:,:), v(:,:)
  read(*, *) n
  g%nx = n
  g%ny = 2*n
  allocate(u(n,n), v(n,n), g%u(0:n+1, 0:2*n+1))
  do it = 1, 10
    associate (a => u, b => v, nx => g%nx, col => u(:, 3), h => n/2)
      do j = 1, nx
        do i = 1, h
          b(i, j) = 2.0d0 * a(i, j) + col(i)
        end do
      end do
      call work(b, nx)
    end associate
    outer: block
      integer :: k
      do k = 1, n
        u(k, 1) = u(k, 1) + 1.0d0
      end do
    end block outer
  end do
end program assoc
";

#[test]
fn associate_and_block_bodies_are_statements_of_the_procedure() {
    let l = lower("assoc.f90", ASSOC);
    let d = dump_main(&l);
    let at = d.iter().position(|x| x == "loop it=1:10:1").unwrap();
    assert_eq!(
        d[at + 1..],
        [
            "loop j=1:g%nx:1",
            "loop i=1:n / 2 /*int*/:1",
            "v[i, j] = 2.0d0 * u[i, j] + u[i, 3]",
            "call work(v, g%nx)",
            "loop k=1:n:1",
            "u[k, 1] = u[k, 1] + 1.0d0",
        ],
        "{d:#?}"
    );
    // the block's local is a local of the program
    let p = l.program.main_proc().unwrap();
    assert!(p.decls.iter().any(|x| x.name == "k"));
    // the loop inside the associate sits under the time loop, and uses the selector's names
    let inner = l
        .program
        .stmts
        .iter()
        .find(|s| matches!(&s.kind, StmtKind::Loop(x) if x.var == "j"))
        .unwrap();
    assert!(inner.uses.contains("g%nx"), "{:?}", inner.uses);
    let parent = l.program.stmt(inner.parent.unwrap()).unwrap();
    assert!(matches!(&parent.kind, StmtKind::Loop(x) if x.var == "it"));
    assert!(!l
        .diagnostics
        .iter()
        .any(|x| x.message.contains("associate")));
}

#[test]
fn associate_names_hide_variables_only_inside_the_construct() {
    let src = "\
program shadow
  integer :: n, m, i
  real(8) :: x(100)
  read(*, *) n
  m = 7
  associate (m => n + 1)
    do i = 1, m
      x(i) = 0
    end do
  end associate
  do i = 1, m
    x(i) = 1
  end do
end program shadow
";
    let d = dump_main(&lower("shadow.f90", src));
    let loops: Vec<&String> = d.iter().filter(|x| x.starts_with("loop")).collect();
    assert_eq!(loops, ["loop i=1:n + 1:1", "loop i=1:m:1"]);
}

#[test]
fn a_selector_calling_a_function_is_bound_once_at_entry() {
    let src = "\
program bind
  integer :: n, i
  real(8) :: x(100)
  read(*, *) n
  associate (k => count_of(n))
    do i = 1, k
      x(i) = 0
    end do
  end associate
end program bind
";
    let d = dump_main(&lower("bind.f90", src));
    let at = d.iter().position(|x| x == "k = count_of(n)").unwrap();
    assert_eq!(d[at + 1], "loop i=1:k:1");
}

#[test]
fn do_concurrent_has_every_index() {
    let src = "\
program dc
  integer :: n, m, i, j
  real(8) :: u(100,100)
  read(*, *) n, m
  do concurrent (j = 1:m, i = 2:n:2, u(i, j) > 0)
    u(i, j) = 0.5d0 * u(i, j)
  end do
  do concurrent (integer :: k = 1:n)
    u(k, 1) = 0
  end do
end program dc
";
    let l = lower("dc.f90", src);
    let d = dump_main(&l);
    assert_eq!(
        d.iter()
            .filter(|x| x.starts_with("loop"))
            .collect::<Vec<_>>(),
        [
            "loop concurrent j=1:m:1, i=2:n:2",
            "loop concurrent k=1:n:1"
        ]
    );
    let first = l
        .program
        .stmts
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Loop(x) if x.var == "j" => Some((x.clone(), s.defs.clone())),
            _ => None,
        })
        .unwrap();
    let mask = first.0.concurrent.unwrap().mask.unwrap();
    assert_eq!(mask.to_string(), "u[i, j] > 0");
    assert!(first.1.contains("i") && first.1.contains("j"));
}

const ARIF: &str = "      PROGRAM ARIF
      INTEGER N, I, K
      DOUBLE PRECISION S
      N = 100
      K = 0
  10  CONTINUE
      K = K + 1
      DO 20 I = 1, N
         S = S + DBLE(I*K)
  20  CONTINUE
      IF (K - N) 10, 30, 30
  30  CONTINUE
      K = 0
  40  K = K + 1
      IF (N - K) 50, 50, 40
  50  CONTINUE
      PRINT *, S
      END
";

#[test]
fn an_arithmetic_if_jumping_back_closes_a_loop() {
    let l = lower("arif.f", ARIF);
    let d = dump_main(&l);
    let whiles: Vec<&String> = d.iter().filter(|x| x.starts_with("while")).collect();
    assert_eq!(whiles, ["while post k < n", "while post n > k"], "{d:#?}");
    // the DO loop is inside the first
    let w = d.iter().position(|x| x.starts_with("while")).unwrap();
    assert!(
        d[w + 1..].iter().position(|x| x.starts_with("loop i"))
            < d[w + 1..].iter().position(|x| x.starts_with("while"))
    );
    assert!(
        !l.diagnostics
            .iter()
            .any(|x| x.message.contains("arithmetic IF")),
        "{:?}",
        l.diagnostics
    );
}

#[test]
fn an_arithmetic_if_that_is_not_a_loop_still_warns() {
    // the forward labels differ: a three-way branch, not a loop
    let src = "      PROGRAM ARIF2
      INTEGER N, K
      K = 0
  10  K = K + 1
      IF (K - N) 10, 30, 40
  30  CONTINUE
  40  CONTINUE
      END
";
    let l = lower("arif2.f", src);
    assert!(dump_main(&l).iter().all(|x| !x.starts_with("while")));
    assert!(l
        .diagnostics
        .iter()
        .any(|x| x.message == "arithmetic IF is not analysed"));
}
