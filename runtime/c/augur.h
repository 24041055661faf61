/* augur.h: public API of the augur tracer runtime, called by instrumented C programs.
 *
 * The instrumented program (written by `augur codegen`) calls these functions in place of the
 * MPI calls it makes, plus site markers around loops, phases, branches and calls. Every call
 * takes a leading `site` id (the APT site id). The runtime records one event file per rank,
 * `$AUGUR_TRACE_DIR/rank-<r>.augt` (default dir "."), format in docs/trace-format.md.
 *
 * Fortran callers use the same names lower-case with a trailing underscore and every argument
 * by reference (see augur_fortran.c); C callers include this header.
 *
 * Rules for callers:
 *  - call the markers from the thread that calls MPI (MPI_THREAD_SINGLE/FUNNELED use);
 *  - augur_loop_exit/augur_phase_end/augur_call_exit must pair with their enter/begin, also on
 *    early exits (break/return/goto out of the construct);
 *  - markers may run before MPI_Init and after MPI_Finalize: those before init are kept and
 *    written with the rank's file; those after finalize are dropped.
 *
 * Compile with the program's own MPI wrapper: `mpicc -c augur_trace.c` (or `smpicc -c`). Fortran
 * programs additionally need `augur_fortran.c`. Nothing else is required (no PMPI, no LD_PRELOAD).
 */
#ifndef AUGUR_H
#define AUGUR_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- site markers (aggregated per site, except phases which are events) ---- */
void augur_loop_enter(int site);
void augur_loop_exit(int site, long long iterations);
/* `count` exits of loop `site` at once, `sum`/`min`/`max` of their iterations: what `count`
 * calls of augur_loop_exit would record (nothing when count is 0). Loops nested in a computation
 * phase accumulate their exits in locals and the phase flushes them with this at its end. */
void augur_loop_exits(int site, long long count, long long sum, long long min, long long max);
void augur_phase_begin(int site);
void augur_phase_end(int site);
void augur_branch(int site, int arm);
/* `count` evaluations of arm `arm` of branch `site` at once: what `count` calls of augur_branch
 * record (nothing when count is 0). Branches inside a computation phase whose nested loops
 * accumulate count in locals and the phase flushes them with this at its end. */
void augur_branches(int site, int arm, long long count);
void augur_call_enter(int site);
void augur_call_exit(int site);
/* `count` calls of `site` at once: what `count` enter/exit pairs record with AUGUR_CALL_TIMES
 * off (nothing when count is 0). Leaf calls inside an accumulating computation phase count in
 * locals and the phase flushes them with this: they are counted, never timed. */
void augur_calls(int site, long long count);

/* ---- MPI wrappers: same arguments and result as the MPI function, after the site id ---- */
int augur_MPI_Init(int site, int *argc, char ***argv);
int augur_MPI_Init_thread(int site, int *argc, char ***argv, int required, int *provided);
int augur_MPI_Finalize(int site);
int augur_MPI_Comm_size(int site, MPI_Comm comm, int *size);
int augur_MPI_Comm_rank(int site, MPI_Comm comm, int *rank);

int augur_MPI_Send(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int augur_MPI_Ssend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int augur_MPI_Isend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *req);
int augur_MPI_Issend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req);
int augur_MPI_Recv(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Status *status);
int augur_MPI_Irecv(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Request *req);
int augur_MPI_Sendrecv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status);
int augur_MPI_Send_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                        MPI_Request *req);
int augur_MPI_Ssend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req);
int augur_MPI_Bsend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req);
int augur_MPI_Rsend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req);
int augur_MPI_Recv_init(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                        MPI_Request *req);
int augur_MPI_Start(int site, MPI_Request *req);
int augur_MPI_Startall(int site, int count, MPI_Request reqs[]);
int augur_MPI_Request_free(int site, MPI_Request *req);
int augur_MPI_Probe(int site, int source, int tag, MPI_Comm comm, MPI_Status *status);
int augur_MPI_Iprobe(int site, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int augur_MPI_Wait(int site, MPI_Request *req, MPI_Status *status);
int augur_MPI_Waitall(int site, int count, MPI_Request reqs[], MPI_Status statuses[]);
int augur_MPI_Waitany(int site, int count, MPI_Request reqs[], int *index, MPI_Status *status);
int augur_MPI_Test(int site, MPI_Request *req, int *flag, MPI_Status *status);
int augur_MPI_Testall(int site, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]);
int augur_MPI_Testany(int site, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status);
int augur_MPI_Testsome(int site, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]);
int augur_MPI_Waitsome(int site, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]);

int augur_MPI_Barrier(int site, MPI_Comm comm);
int augur_MPI_Comm_split(int site, MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int augur_MPI_Comm_dup(int site, MPI_Comm comm, MPI_Comm *newcomm);
int augur_MPI_Comm_create(int site, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm);
int augur_MPI_Cart_create(int site, MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                          MPI_Comm *newcomm);
int augur_MPI_Cart_sub(int site, MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm);
int augur_MPI_Bcast(int site, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm);
int augur_MPI_Reduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm);
int augur_MPI_Allreduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm);
int augur_MPI_Alltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Gather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int augur_MPI_Neighbor_alltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Neighbor_allgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Neighbor_alltoallv(int site, const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Neighbor_allgatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Allgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Scatter(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);

int augur_MPI_Rsend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int augur_MPI_Bsend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int augur_MPI_Sendrecv_replace(int site, void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                               int recvtag, MPI_Comm comm, MPI_Status *status);
int augur_MPI_Alltoallv(int site, const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Allgatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm);
int augur_MPI_Gatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm);
int augur_MPI_Scatterv(int site, const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm);
int augur_MPI_Reduce_scatter(int site, const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm);
int augur_MPI_Scan(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm);
int augur_MPI_Exscan(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm);
int augur_MPI_Reduce_scatter_block(int site, const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm);

/* Nonblocking collectives: the request is completed by the wrapped Wait/Waitall/Waitany/Test. */
int augur_MPI_Ibarrier(int site, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Ibcast(int site, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Ireduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Iallreduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req);
int augur_MPI_Ialltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Igather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Iallgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Iscatter(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req);
int augur_MPI_Abort(int site, MPI_Comm comm, int errorcode);

#ifdef __cplusplus
}
#endif
#endif /* AUGUR_H */
