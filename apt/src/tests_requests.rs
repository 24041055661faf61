//! Regression tests (trial 6, item 11): `req[nreq++]` in straight-line code steps a known
//! count (`MPI_Waitall(nreq, …)` after eight of them has count 8); under a condition the count
//! differs between branches and says so. `MPI_STATUS_IGNORE` / `MPI_STATUSES_IGNORE` name no
//! storage: a call passing them writes only the buffers.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, calls, comms, e, set};

const WAITALL_C: &str = r#"
#include <mpi.h>
double u[64], v[64];
MPI_Request req[8];
static void exchange(int north, int south) {
  int nreq = 0;
  MPI_Irecv(&u[0], 8, MPI_DOUBLE, north, 1, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Irecv(&u[8], 8, MPI_DOUBLE, south, 2, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Irecv(&u[16], 8, MPI_DOUBLE, north, 3, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Irecv(&u[24], 8, MPI_DOUBLE, south, 4, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Isend(&v[0], 8, MPI_DOUBLE, north, 2, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Isend(&v[8], 8, MPI_DOUBLE, south, 1, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Isend(&v[16], 8, MPI_DOUBLE, north, 4, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Isend(&v[24], 8, MPI_DOUBLE, south, 3, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
}
static void swap(double *a, int peer) {
  MPI_Sendrecv_replace(a, 8, MPI_DOUBLE, peer, 0, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}
int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  exchange(rank - 1, rank + 1);
  swap(u, rank ^ 1);
  MPI_Finalize();
  return 0;
}
"#;

fn waitall_count(src: &str) -> crate::Attr {
    let apt = apt_of("waitall.c", src);
    let c = comms(&apt);
    c.iter()
        .find(|c| c.op == frontend::MpiOp::Waitall)
        .and_then(|c| c.count.clone())
        .unwrap()
}

#[test]
fn post_increments_in_straight_line_code_count_the_requests() {
    assert_eq!(waitall_count(WAITALL_C), e("8"));
    // two posts under a condition: the count is not one number
    let guarded = WAITALL_C
        .replace("  MPI_Irecv(&u[0],", "  if (north >= 0) MPI_Irecv(&u[0],")
        .replace("  MPI_Isend(&v[0],", "  if (north >= 0) MPI_Isend(&v[0],");
    let c = waitall_count(&guarded);
    let r = c.unresolved().unwrap_or_default();
    assert!(r.contains("differs between branches at line"), "{c:?}");
    // a step that is not a constant leaves it unknown
    let scaled = WAITALL_C.replace(
        "&req[nreq++]);\n  MPI_Waitall",
        "&req[nreq *= 2]);\n  MPI_Waitall",
    );
    let c = waitall_count(&scaled);
    assert!(
        c.unresolved()
            .is_some_and(|r| r.contains("modified inside an expression")),
        "{c:?}"
    );
}

#[test]
fn status_ignore_is_not_a_written_variable() {
    let apt = apt_of("waitall.c", WAITALL_C);
    let swap = calls(&apt, "swap")[0];
    assert_eq!(apt.call_writes[&swap], Ok(set(&["u"])));
    let ex = calls(&apt, "exchange")[0];
    let w = apt.call_writes[&ex].clone().unwrap();
    assert!(!w.iter().any(|n| n.starts_with("MPI_")), "{w:?}");
}

const STATUS_F90: &str = r#"
subroutine get(buf, n)
  use mpi
  integer :: n, ierr
  double precision :: buf(n)
  call MPI_RECV(buf, n, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
end subroutine get

program t
  use mpi
  integer :: ierr
  double precision :: x(10)
  call MPI_INIT(ierr)
  call get(x, 10)
  call MPI_FINALIZE(ierr)
end program t
"#;

#[test]
fn fortran_status_ignore_is_not_a_written_variable() {
    let apt = apt_of("status.f90", STATUS_F90);
    let get = calls(&apt, "get")[0];
    assert_eq!(apt.call_writes[&get], Ok(set(&["x"])));
}
