//! Unit tests of a communicator handed to a routine as an argument (trial 16): where every call
//! hands in MPI_COMM_WORLD, `MPI_Comm_size`/`_rank` of the formal are P and the rank; of another
//! communicator they stay unknown, saying so.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, loops};

const F90: &str = r#"
module dec
  use mpi
  implicit none
  type grid_t
     integer :: n, rank, nprocs, nloc
  end type grid_t
contains
  subroutine grid_init(g, n, comm)
    type(grid_t), intent(out) :: g
    integer, intent(in) :: n, comm
    integer :: ierr
    g%n = n
    call MPI_Comm_rank(comm, g%rank, ierr)
    call MPI_Comm_size(comm, g%nprocs, ierr)
    g%nloc = n / g%nprocs
  end subroutine grid_init
end module dec

program cw
  use mpi
  use dec
  implicit none
  type(grid_t) :: g, h
  integer :: n, ierr, i, half
  double precision :: a(100000), s
  character(len=16) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call grid_init(g, n, MPI_COMM_WORLD)
  s = 0
  do i = 1, g%nloc
     s = s + a(i)
  end do
  call MPI_Comm_split(MPI_COMM_WORLD, 0, 0, half, ierr)
  call grid_init(h, n, half)
  do i = 1, h%nloc
     s = s + a(i)
  end do
  call MPI_Finalize(ierr)
end program cw
"#;

#[test]
fn a_world_communicator_handed_to_a_routine_gives_p() {
    let apt = apt_of("cw.f90", F90);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/P"), "{:?}", l[0].trip);
    let r = l[1].trip.unresolved().unwrap();
    assert!(
        r.contains("MPI_Comm_size of a communicator other than MPI_COMM_WORLD"),
        "{r}"
    );
}

const C: &str = r#"
#include <mpi.h>
#include <stdlib.h>
double a[100000];
static void local_rows(int n, MPI_Comm comm, int *rows) {
    int p;
    MPI_Comm_size(comm, &p);
    *rows = n / p;
}
static void sweep(int n, MPI_Comm comm) {
    int i, rows;
    local_rows(n, comm, &rows);
    for (i = 0; i < rows; i++) a[i] += 1.0;
    MPI_Barrier(comm);
}
int main(int argc, char **argv) {
    int n;
    MPI_Init(&argc, &argv);
    n = atoi(argv[1]);
    sweep(n, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn c_world_communicator_handed_down_two_calls_gives_p() {
    let apt = apt_of("cw.c", C);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N/P"), "{:?}", l[0].trip);
}
