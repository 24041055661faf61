C     ring.f: fixed-form Fortran 77 caller of the augur wrappers (mpif.h).
C     Exercises MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE, MPI_IN_PLACE and
C     MPI_ANY_SOURCE through the Fortran entry points. Prints a checksum.
      program ring
      implicit none
      include 'mpif.h'
      integer ierr, rank, nprocs, left, right, i, step, n, it
      parameter (n = 500)
      double precision a(n), b(n), s, v
      integer req(2), st(MPI_STATUS_SIZE), flag
      call augur_mpi_init(1, ierr)
      call augur_mpi_comm_rank(2, MPI_COMM_WORLD, rank, ierr)
      call augur_mpi_comm_size(3, MPI_COMM_WORLD, nprocs, ierr)
      right = mod(rank + 1, nprocs)
      left = mod(rank + nprocs - 1, nprocs)
      do 5 i = 1, n
         a(i) = rank * 1000 + i
    5 continue
      s = 0.0d0
      it = 0
      call augur_loop_enter(20)
      do 20 step = 1, 3
         it = it + 1
         call augur_phase_begin(21)
         call augur_loop_enter(10)
         do 10 i = 1, 300000
            s = s + dble(i) * 1.0d-9
   10    continue
         call augur_loop_exit(10, 300000)
         call augur_phase_end(21)
         call augur_branch(23, mod(step, 2))
         call augur_mpi_irecv(24, b, n, MPI_DOUBLE_PRECISION, left, 7,
     &        MPI_COMM_WORLD, req(1), ierr)
         call augur_mpi_isend(25, a, n, MPI_DOUBLE_PRECISION, right, 7,
     &        MPI_COMM_WORLD, req(2), ierr)
         call augur_mpi_waitall(26, 2, req, MPI_STATUSES_IGNORE, ierr)
         s = s + b(n)
   20 continue
      call augur_loop_exit(20, it)
      if (mod(rank, 2) .eq. 0) then
         call augur_mpi_send(30, a, n / 2, MPI_DOUBLE_PRECISION, right,
     &        8, MPI_COMM_WORLD, ierr)
         call augur_mpi_recv(31, b, n, MPI_DOUBLE_PRECISION,
     &        MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, ierr)
      else
         call augur_mpi_recv(31, b, n, MPI_DOUBLE_PRECISION,
     &        MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, ierr)
         call augur_mpi_ssend(32, a, n / 2, MPI_DOUBLE_PRECISION, right,
     &        8, MPI_COMM_WORLD, ierr)
      endif
      s = s + b(1)
      call augur_mpi_sendrecv(33, a, 5, MPI_DOUBLE_PRECISION, right, 9,
     &     b, n, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 9,
     &     MPI_COMM_WORLD, st, ierr)
      left = rank - 1
      right = rank + 1
      if (rank .eq. 0) left = MPI_PROC_NULL
      if (rank .eq. nprocs - 1) right = MPI_PROC_NULL
      call augur_mpi_sendrecv(38, a, 4, MPI_DOUBLE_PRECISION, right,
     &     12, b, n, MPI_DOUBLE_PRECISION, left, 12, MPI_COMM_WORLD,
     &     st, ierr)
      if (rank .gt. 0) s = s + b(4)
      right = mod(rank + 1, nprocs)
      left = mod(rank + nprocs - 1, nprocs)
      call augur_mpi_irecv(34, b, n, MPI_DOUBLE_PRECISION,
     &     MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, req(1), ierr)
      call augur_mpi_issend(35, a, 3, MPI_DOUBLE_PRECISION, right, 10,
     &     MPI_COMM_WORLD, req(2), ierr)
      call augur_mpi_wait(36, req(1), MPI_STATUS_IGNORE, ierr)
      flag = 0
   40 call augur_mpi_test(37, req(2), flag, MPI_STATUS_IGNORE, ierr)
      if (flag .eq. 0) goto 40
      s = s + b(3)
      v = rank + 1
      call augur_mpi_barrier(50, MPI_COMM_WORLD, ierr)
      call augur_mpi_bcast(51, v, 1, MPI_DOUBLE_PRECISION, 0,
     &     MPI_COMM_WORLD, ierr)
      call augur_mpi_allreduce(53, MPI_IN_PLACE, v, 1,
     &     MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
      s = s + v
      write (*, '(A,I3,A,F16.4)') 'rank', rank, ' checksum', s
      call augur_mpi_finalize(99, ierr)
      end
