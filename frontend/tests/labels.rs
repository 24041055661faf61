//! Fixed-form label errors are reported where they are and keep the rest of the file
//! (trial2 #4, #5): a DO with no terminating label, a label defined twice, a `)` missing at
//! the end of a continued statement followed by a comment line.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
use frontend::*;

fn load(name: &str, src: &str) -> Lowered {
    load_str(name, src, &Options::default()).unwrap()
}

/// (code, line, message) of the errors.
fn errors(l: &Lowered) -> Vec<(&'static str, u32, String)> {
    l.diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let line = d
                .labels
                .first()
                .map_or(0, |lab| l.sources.start(lab.span).line);
            (d.code, line, d.message.clone())
        })
        .collect()
}

fn procs(l: &Lowered) -> Vec<String> {
    l.program.procs.iter().map(|p| p.name.clone()).collect()
}

const NO_LABEL: &str = "      PROGRAM MAIN
      INTEGER I, J, N
      DOUBLE PRECISION A(10, 10)
      N = 10
C     the terminator of DO 20 lost its label
      DO 20 J = 1, N
      DO 20 I = 1, N
         A(I, J) = 0.0D0
      CONTINUE
      CALL WORK(N)
      END
C
      SUBROUTINE WORK(N)
      INTEGER N, K
      DO 30 K = 1, N
         CALL OTHER(K)
   30 CONTINUE
      END
C
      SUBROUTINE OTHER(K)
      INTEGER K
      K = K + 1
      END
";

#[test]
fn do_without_its_label_is_reported_at_the_do_and_later_procedures_kept() {
    let l = load("nolabel.f", NO_LABEL);
    let e = errors(&l);
    assert_eq!(
        e,
        [
            (
                "label",
                6,
                "DO 20 at nolabel.f:6 has no terminating statement labelled 20".to_string()
            ),
            (
                "label",
                7,
                "DO 20 at nolabel.f:7 has no terminating statement labelled 20".to_string()
            ),
        ],
        "{e:?}"
    );
    assert_eq!(procs(&l), ["main", "work", "other"]);
}

#[test]
fn duplicate_label_does_not_lose_the_program() {
    let src = "      PROGRAM MAIN
      INTEGER I, J, N
      DOUBLE PRECISION A(10, 10)
      N = 10
      DO 40 J = 1, N
         DO 30 I = 1, N
            A(I, J) = 0.0D0
   40    CONTINUE
   40 CONTINUE
      CALL WORK(N)
      END
      SUBROUTINE WORK(N)
      INTEGER N
      N = N + 1
      END
";
    let l = load("duplabel.f", src);
    let e = errors(&l);
    assert_eq!(
        e,
        [
            (
                "label",
                6,
                "DO 30 at duplabel.f:6 has no terminating statement labelled 30".to_string()
            ),
            (
                "label",
                9,
                "label 40 defined twice, at lines 8 and 9".to_string()
            ),
        ],
        "{e:?}"
    );
    assert_eq!(procs(&l), ["main", "work"]);
}

#[test]
fn labels_in_different_units_and_shared_terminators_are_fine() {
    let src = "      PROGRAM MAIN
      INTEGER I, J
      DO 10 J = 1, 3
      DO 10 I = 1, 3
   10 CONTINUE
      END
      SUBROUTINE S
      INTEGER I
      DO 10, I = 1, 3
   10 CONTINUE
      END
";
    let l = load("ok.f", src);
    assert!(errors(&l).is_empty(), "{:?}", errors(&l));
}

#[test]
fn missing_paren_on_a_continued_line_is_reported_on_that_line() {
    let src = "      PROGRAM MAIN
      INCLUDE 'mpif.h'
      INTEGER IERR, N
      CALL MPI_BCAST(N, 1, MPI_INTEGER, 0,
     &               MPI_COMM_WORLD, IERR
C     a comment after the statement
      N = N + 1
      END
";
    let l = load("paren.f", src);
    let e = errors(&l);
    assert!(!e.is_empty());
    assert!(e.iter().all(|(_, line, _)| *line == 5), "{e:?}");
}

/// review8 H2: an internal procedure after CONTAINS, and each module procedure, has its own
/// labels: `10 continue` in the host and in `inner` is legal.
#[test]
fn a_host_and_its_internal_procedure_each_have_their_own_labels() {
    let src = "program host
  use mpi
  integer :: i, n, ierr
  real :: s
  call MPI_Init(ierr)
  read (*, *) n
  s = 0
  do 10 i = 1, n
    s = s + i
10 continue
  call inner(n)
  call MPI_Finalize(ierr)
contains
  subroutine inner(m)
    integer :: m, j
    do 10 j = 1, m
      s = s + j
10  continue
  end subroutine inner
  recursive integer function twice(m) result(r)
    integer :: m
    r = 0
    do 10 j = 1, m
      r = r + 2
10  continue
  end function twice
end program host
";
    let l = load("internal.f90", src);
    assert!(errors(&l).is_empty(), "{:?}", errors(&l));
    assert_eq!(procs(&l), ["host", "inner", "twice"]);

    let module = "module ops
  implicit none
contains
  subroutine a(n)
    integer :: n, i
    do 20 i = 1, n
20  continue
  end subroutine a
  real(kind=8) function b(n)
    integer :: n, i
    b = 0
    do 20 i = 1, n
      b = b + 1
20  continue
  end function b
end module ops
";
    let l = load("ops.f90", module);
    assert!(errors(&l).is_empty(), "{:?}", errors(&l));

    // within one internal procedure a label twice is still an error, and a host's DO does not
    // find its terminator in the procedure it contains
    let bad = "program host
  integer :: i
  do 30 i = 1, 3
  i = i + 1
  call inner
contains
  subroutine inner
    integer :: j
    do 30 j = 1, 2
30  continue
30  continue
  end subroutine inner
end program host
";
    let l = load("bad.f90", bad);
    let e = errors(&l);
    assert_eq!(
        e,
        [
            (
                "label",
                11,
                "label 30 defined twice, at lines 10 and 11".to_string()
            ),
            (
                "label",
                3,
                "DO 30 at bad.f90:3 has no terminating statement labelled 30".to_string()
            ),
        ],
        "{e:?}"
    );
}
