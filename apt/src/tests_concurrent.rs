//! Trial 9 items 1-3: loops inside ASSOCIATE and BLOCK are LOOP nodes with their trips (the
//! associate names read as their selectors), a DO CONCURRENT's trip is the product of its
//! index ranges (its work sums a body depending on the indices over all of them), and an
//! F77 loop closed by an arithmetic IF is a LOOP.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::tests::{apt_of, e, eval, loops};
use crate::Attr;

const JACOBI: &str = "program jac
  use mpi
  implicit none
  type grid
    integer :: nx, ny
    real(8), allocatable :: u(:,:), unew(:,:)
  end type
  type(grid) :: g
  integer :: n, iters, it, i, j, nprocs, ierr
  real(8) :: lres, gres
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call get_command_argument(1, arg); read(arg, *) n
  call get_command_argument(2, arg); read(arg, *) iters
  g%nx = n / nprocs
  g%ny = n
  allocate(g%u(0:g%nx+1, 0:g%ny+1), g%unew(0:g%nx+1, 0:g%ny+1))
  do it = 1, iters
    associate (u => g%u, un => g%unew, nx => g%nx, ny => g%ny)
      do concurrent (j = 1:ny, i = 1:nx)
        un(i, j) = 0.25d0 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1))
      end do
      lres = 0.0d0
      do j = 1, ny
        do i = 1, nx
          lres = lres + (un(i, j) - u(i, j))**2
        end do
      end do
    end associate
    block
      integer :: k
      do k = 1, 2*n
        lres = lres + 1.0d0
      end do
    end block
    call MPI_Allreduce(lres, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
end program jac
";

#[test]
fn loops_inside_associate_and_block_are_nodes_with_trips() {
    let apt = apt_of("jac.f90", JACOBI);
    let l = loops(&apt);
    let trips: Vec<&Attr> = l.iter().map(|x| &x.trip).collect();
    // time loop, DO CONCURRENT (nx * ny), the residual nest, the block's loop
    assert_eq!(
        trips,
        [&e("ITERS"), &e("N^2/P"), &e("N"), &e("N/P"), &e("2*N"),],
        "{trips:?}"
    );
    // each is a computation phase of its own (the Allreduce is in the time loop)
    let concurrent = l[1];
    assert!(concurrent.compute);
    assert_eq!(concurrent.work, Some(e("N^2/P")));
    assert!(l[2].compute);
    assert_eq!(l[2].work, Some(e("N^2/P")));
}

#[test]
fn do_concurrent_work_sums_a_body_over_every_index() {
    let src = "program tri
  integer :: n, i, j, k
  real(8) :: a(100, 100)
  read(*, *) n
  do concurrent (j = 1:n, i = 1:n)
    do k = 1, i
      a(i, j) = a(i, j) + 1.0d0
    end do
  end do
end program tri
";
    let apt = apt_of("tri.f90", src);
    let l = loops(&apt);
    assert_eq!(l[0].trip, e("N^2"));
    // Σ_j Σ_i i = n * n(n+1)/2
    let w = l[0].work.as_ref().unwrap();
    assert_eq!(eval(w, &[("N", 10.0)]), 550.0, "{w:?}");
}

#[test]
fn a_loop_closed_by_an_arithmetic_if_is_a_loop() {
    let src = "      PROGRAM ARIF
      INTEGER N, I, K
      DOUBLE PRECISION S
      READ (5, *) N
      K = 0
  10  CONTINUE
      K = K + 1
      DO 20 I = 1, N
         S = S + DBLE(I*K)
  20  CONTINUE
      IF (K - N) 10, 30, 30
  30  CONTINUE
      PRINT *, S
      END
";
    let apt = apt_of("arif.f", src);
    let l = loops(&apt);
    assert_eq!(l.len(), 2);
    let outer = l[0].trip.expr().map(ToString::to_string);
    // a post-test loop runs at least once
    assert!(
        outer.as_deref().is_some_and(|t| t.contains('N')),
        "{:?}",
        l[0].trip
    );
    assert_eq!(eval(&l[0].trip, &[("N", 30.0)]), 30.0);
    assert_eq!(l[1].trip, e("N"));
}
