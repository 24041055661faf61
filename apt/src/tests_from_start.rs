//! Unit tests of `CommFacts::buffer_from_start`: a send whose buffer argument is its variable
//! or the variable's first element, against a row, an element further in or an offset, in C
//! (0-based subscripts, pointer arithmetic, members) and Fortran (declared lower bounds).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, comms};

const C_SENDS: &str = r#"
#include <mpi.h>
struct grid { double *u; int n; };
int main(int argc, char **argv) {
    int k = 3, off = 2, n = 10;
    double a[100], u[10][10];
    struct grid g, *p = &g;
    MPI_Init(&argc, &argv);
    MPI_Send(a, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&a[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(a + 0, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(g.u, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&g.u[0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(p->u, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&u[0][0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send((void *)a, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&u[1][0], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(a + off, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&a[k], n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Send(&g.u[g.n], 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(a, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
"#;

#[test]
fn c_sends_from_the_start_of_their_variable_or_further_in() {
    let apt = apt_of("from_start.c", C_SENDS);
    let got: Vec<bool> = comms(&apt).iter().map(|c| c.buffer_from_start).collect();
    let want = [
        true, true, true, true, true, true, true, true, // a .. (void *)a
        false, false, false, false, // &u[1][0], a + off, &a[k], &g.u[g.n]
        false, // a receive sends nothing
    ];
    assert_eq!(got, want);
    let text = crate::render::to_text(&apt);
    assert_eq!(text.matches("(from an offset)").count(), 4, "{text}");
}

const F_SENDS: &str = r#"
module fields
  type field
    double precision :: u(100)
  end type
end module

program main
  use mpi
  use fields
  implicit none
  type(field) :: t
  double precision :: a(100), b(10, 10), z(0:99)
  integer :: j, ierr
  call mpi_init(ierr)
  j = 2
  call mpi_send(a, 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(a(1), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(b(1, 1), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(t%u, 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(t%u(1), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(z(0), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(b(:, 1), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(b(1, j), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(z(1), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(a(j), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_send(b(:, 2), 10, mpi_double_precision, 1, 0, mpi_comm_world, ierr)
  call mpi_finalize(ierr)
end program
"#;

#[test]
fn fortran_sends_from_the_declared_lower_bound_or_further_in() {
    let apt = apt_of("from_start.f90", F_SENDS);
    let got: Vec<bool> = comms(&apt).iter().map(|c| c.buffer_from_start).collect();
    let want = [
        true, true, true, true, true, true, true, // a .. b(:, 1)
        false, false, false, false, // b(1, j), z(1) of z(0:99), a(j), b(:, 2)
    ];
    assert_eq!(got, want);
}
