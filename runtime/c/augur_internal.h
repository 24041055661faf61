/* augur_internal.h: what augur_trace.c (core + C wrappers) shares with augur_fortran.c.
 * Not for instrumented programs: they include augur.h only. Format constants mirror
 * trace/src/format.rs and docs/trace-format.md; change all three together. */
#ifndef AUGUR_INTERNAL_H
#define AUGUR_INTERNAL_H

#include <mpi.h>
#include <stdint.h>

/* Under SMPI, smpicc force-includes smpi_helpers.h, which maps malloc/free/clock_gettime to
 * the simulator's versions. The runtime's own bookkeeping must use the host's: its memory is
 * not the program's and its clocks measure the host. MPI_Wtime gives the simulated clock. */
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef clock_gettime
#undef gettimeofday

#ifdef SMPI_H
#define AUGUR_SMPI 1
#else
#define AUGUR_SMPI 0
#endif

/* Simulated time under SMPI is the host CPU time SMPI measures between two MPI calls (its
 * "bench"), so the tracer's own work must run with that bench stopped. Every wrapper and marker
 * opens with AUGUR_ENTRY (stops the bench; nested entries are counted, the outermost one
 * restarts it when the function returns, via the cleanup attribute) and runs the real MPI call
 * through AUGUR_MPI (restarts the bench before the call, because SMPI's MPI functions end it on
 * entry and begin it on exit, and stops it again after). Details in augur_trace.c, "SMPI bench".
 * Natively all of this compiles to nothing. */
#if AUGUR_SMPI
void augur_hold(void);
void augur_release(void);
/* AUGUR_MPI's two halves: the release also closes SMPI's compute interval (see augur_trace.c). */
void augur_release_for_call(void);
void augur_hold_after_call(void);
static inline int augur_enter_(void) {
  augur_hold();
  return 0;
}
static inline void augur_leave_(int *unused) {
  (void)unused;
  augur_release();
}
#define AUGUR_ENTRY int augur_scope_ __attribute__((cleanup(augur_leave_), unused)) = augur_enter_()
#define AUGUR_MPI(stmt)       \
  do {                        \
    augur_release_for_call(); \
    stmt;                     \
    augur_hold_after_call();  \
  } while (0)
#else
#define AUGUR_ENTRY ((void)0)
#define AUGUR_MPI(stmt) \
  do {                  \
    stmt;               \
  } while (0)
#endif

/* Fortran INTEGER status length (Open MPI 6, SMPI 5); both equal sizeof(MPI_Status)/sizeof(int). */
#ifdef MPI_STATUS_SIZE
#define AUGUR_F_STATUS_SIZE MPI_STATUS_SIZE
#else
#define AUGUR_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

/* Operation codes (record byte 1). */
enum augur_op {
  AUGUR_OP_INIT = 1, AUGUR_OP_FINALIZE = 2, AUGUR_OP_SEND = 3, AUGUR_OP_SSEND = 4,
  AUGUR_OP_ISEND = 5, AUGUR_OP_RECV = 6, AUGUR_OP_IRECV = 7, AUGUR_OP_SENDRECV = 8,
  AUGUR_OP_WAIT = 9, AUGUR_OP_WAITALL = 10, AUGUR_OP_TEST = 11, AUGUR_OP_BARRIER = 12,
  AUGUR_OP_BCAST = 13, AUGUR_OP_REDUCE = 14, AUGUR_OP_ALLREDUCE = 15, AUGUR_OP_ALLTOALL = 16,
  AUGUR_OP_GATHER = 17, AUGUR_OP_ALLGATHER = 18, AUGUR_OP_SCATTER = 19, AUGUR_OP_WAITANY = 20,
  AUGUR_OP_ISSEND = 21, AUGUR_OP_RSEND = 22, AUGUR_OP_BSEND = 23, AUGUR_OP_SENDRECV_REPLACE = 24,
  AUGUR_OP_ALLTOALLV = 25, AUGUR_OP_ALLGATHERV = 26, AUGUR_OP_GATHERV = 27, AUGUR_OP_SCATTERV = 28,
  AUGUR_OP_REDUCE_SCATTER = 29, AUGUR_OP_SCAN = 30, AUGUR_OP_ABORT = 31,
  /* persistent requests: the inits and the free record no message; each start of a request is
   * recorded as the Isend/Issend/Irecv it starts (flag AUGUR_F_STARTED, the Start's site) */
  AUGUR_OP_SEND_INIT = 32, AUGUR_OP_SSEND_INIT = 33, AUGUR_OP_BSEND_INIT = 34, AUGUR_OP_RSEND_INIT = 35,
  AUGUR_OP_RECV_INIT = 36, AUGUR_OP_START = 37, AUGUR_OP_STARTALL = 38, AUGUR_OP_REQUEST_FREE = 39,
  AUGUR_OP_PROBE = 40, AUGUR_OP_IPROBE = 41,
  AUGUR_OP_EXSCAN = 42, AUGUR_OP_REDUCE_SCATTER_BLOCK = 43,
  /* nonblocking collectives: the record is the start (request id, collective's bytes and
   * communicator size); the Part of the wait that completes the request carries the same op */
  AUGUR_OP_IBARRIER = 44, AUGUR_OP_IBCAST = 45, AUGUR_OP_IREDUCE = 46, AUGUR_OP_IALLREDUCE = 47,
  AUGUR_OP_IALLTOALL = 48, AUGUR_OP_IGATHER = 49, AUGUR_OP_IALLGATHER = 50, AUGUR_OP_ISCATTER = 51,
  /* collectives that make a communicator: no bytes, the old communicator's size */
  AUGUR_OP_COMM_SPLIT = 52, AUGUR_OP_COMM_DUP = 53, AUGUR_OP_COMM_CREATE = 54, AUGUR_OP_CART_CREATE = 55,
  AUGUR_OP_CART_SUB = 56,
  /* completions of several requests at once, recorded like Waitall/Waitany (count in bytes, a
   * Part per request completed); a test that completes none counts as TestPending */
  AUGUR_OP_TESTALL = 57, AUGUR_OP_TESTANY = 58, AUGUR_OP_TESTSOME = 59, AUGUR_OP_WAITSOME = 60,
  /* neighbourhood collectives: bytes = the block sent to each neighbour (the v forms: the
   * mean of the blocks), tag = the messages posted each way (augur_neighbours) */
  AUGUR_OP_NEIGHBOR_ALLTOALL = 61, AUGUR_OP_NEIGHBOR_ALLGATHER = 62,
  AUGUR_OP_NEIGHBOR_ALLTOALLV = 63, AUGUR_OP_NEIGHBOR_ALLGATHERV = 64
};

/* Peer encodings besides world ranks >= 0. */
#define AUGUR_PEER_NONE (-1)
#define AUGUR_PEER_PROC_NULL (-2)
#define AUGUR_PEER_ANY (-3)
#define AUGUR_PEER_UNKNOWN (-4)
#define AUGUR_TAG_ANY (-1)

/* MPI record flags. */
#define AUGUR_F_ACTUAL 1u   /* peer/tag/bytes come from a completed status */
#define AUGUR_F_ERROR 2u    /* the MPI call returned an error code */
#define AUGUR_F_FORTRAN 4u  /* called through the Fortran wrappers */
#define AUGUR_F_STARTED 8u  /* an Isend/Issend/Irecv record written by MPI_Start(all) for a persistent request */

typedef struct {
  uint64_t mono_ns; /* host CLOCK_MONOTONIC */
  double wtime;     /* MPI_Wtime (simulated under SMPI); NaN outside init..finalize */
} augur_stamp;

typedef struct {
  uint8_t op;
  uint16_t flags;
  uint32_t site;
  int32_t peer;
  int32_t tag;
  int64_t bytes;
  int32_t comm_size;
  uint32_t nparts;
  uint64_t req_id;
  augur_stamp t0, t1;
} augur_mpi_rec;

/* A pending nonblocking request, keyed by its C handle value. A persistent request (from a
 * *_init call) stays in the table until MPI_Request_free; `active` while a start of it is
 * pending, `id` and `site` then being those of the start. `op` is the message kind a start
 * makes (ISEND, ISSEND or IRECV), so completions read it like any nonblocking request. */
#if AUGUR_SMPI
/* How a persistent send SMPI detaches is made again before each start after its first (see
 * "SMPI persistent sends" in augur_trace.c): the arguments of its *_init call. */
typedef struct {
  uint8_t lang;    /* 0: not remade; 1: made by a C wrapper; 2: by a Fortran wrapper */
  uint8_t init_op; /* AUGUR_OP_SEND_INIT, BSEND_INIT or RSEND_INIT */
  uint8_t started; /* started since it was made: the next start makes it again */
  void *buf;
  int count, dest, tag; /* as given (Fortran: the INTEGER values) */
  MPI_Datatype dt;      /* C */
  MPI_Comm comm;        /* C */
  MPI_Fint fdt, fcomm;  /* Fortran */
} augur_remake;
#endif

typedef struct {
  uint64_t id;
  uint32_t site;
  /* `instant`: complete when posted (to MPI_PROC_NULL, or a collective over one process), so
   * the MPI library may hand out its handle again while this request is live (see "Shared
   * handles" in augur_trace.c) */
  uint8_t op, persistent, active, instant;
  int32_t peer, tag;
  int64_t bytes;
  MPI_Comm comm;
#if AUGUR_SMPI
  augur_remake remake;
#endif
} augur_req;

augur_stamp augur_now(void);
void augur_after_init(augur_stamp t0, int site, int fortran);
void augur_before_finalize(augur_stamp t0, int site, int fortran);
void augur_finalize_barrier(void);
void augur_emit_mpi(const augur_mpi_rec *r);
void augur_emit_part(uint8_t op, uint32_t site, int32_t peer, int32_t tag, int64_t bytes, uint64_t req_id);
int32_t augur_world_peer(MPI_Comm comm, int rank);
int32_t augur_tag(int tag);
int32_t augur_comm_size(MPI_Comm comm);
int64_t augur_type_bytes(int count, MPI_Datatype dt);
/* The messages a neighbourhood collective on `comm` posts each way: 2 x ndims on a Cartesian
 * topology (MPI_PROC_NULL neighbours included), the rank's neighbours on a graph, the larger of
 * its in- and out-degree on a distributed graph; 0 without a topology. */
int augur_neighbours(MPI_Comm comm);
/* The messages a neighbourhood collective on `comm` sends (its out-degree; 0 without a
 * topology). */
int augur_out_neighbours(MPI_Comm comm);
/* The mean block of `counts` over a rank's `n` out-neighbours, bytes (0 when n is 0; -1 when
 * the type's size is unknown). */
int64_t augur_mean_block(const int *counts, int n, MPI_Datatype dt);
uint64_t augur_req_add(MPI_Request handle, uint8_t op, uint32_t site, int32_t peer, int32_t tag, int64_t bytes,
                       MPI_Comm comm);
/* Registers the request of a nonblocking collective (`op` IBARRIER..ISCATTER) started at
 * `site`; its id, or 0 when not recorded. The completion's Part carries `op`, `peer` (root or
 * none) and `bytes`. */
uint64_t augur_req_add_coll(MPI_Request handle, uint8_t op, uint32_t site, int32_t peer, int64_t bytes,
                            MPI_Comm comm);
/* Completes `handle`: 1 and its entry if it was pending. A non-persistent entry leaves the
 * table; a persistent one stays, inactive. An inactive persistent request is no anomaly (0). */
int augur_req_take(MPI_Request handle, augur_req *out);
/* Registers a persistent request; `op` is the kind of message each start makes. */
void augur_req_add_persistent(MPI_Request handle, uint8_t op, int32_t peer, int32_t tag, int64_t bytes,
                              MPI_Comm comm);
#if AUGUR_SMPI
/* Whether SMPI detaches a send of `bytes` made by the *_init `init_op` (and so whether it is
 * remade before each start after its first). */
int augur_detached_send(uint8_t init_op, int64_t bytes);
/* The remake arguments of the persistent request `handle` (lang 0 until set), NULL if it is not
 * a known persistent request; valid until the next change to the request table. */
augur_remake *augur_req_remake(MPI_Request handle);
/* The persistent request `old` was freed and made again as `new`: its entry moves. */
void augur_req_rekey(MPI_Request old, MPI_Request new_handle);
#endif
/* Starts a persistent request at `site`: 1 and the entry (with a fresh id) if it is known. */
int augur_req_start(MPI_Request handle, uint32_t site, augur_req *out);
/* Forgets `handle` (MPI_Request_free): its pending id if a start or nonblocking call was
 * pending, else 0. Never an anomaly. */
uint64_t augur_req_free(MPI_Request handle);
/* Records MPI_Start (`op` START, count 1) or MPI_Startall (STARTALL) of the C handles `h`
 * after the call returned `rc` (MPI_Start leaves the handles as they were): one Isend/Issend/
 * Irecv record per known request started (the first spans the call, the others are empty at
 * its end), or one START/STARTALL record when none was known or the call failed. */
void augur_after_start(uint8_t op, int site, int count, const MPI_Request *h, augur_stamp t0, int rc, int fortran);
/* The kind of message a start of a request made by the *_init `op` makes. */
uint8_t augur_start_kind(uint8_t init_op);
/* Emits the completion part of `r` given the status the MPI library filled in (receives). */
void augur_complete(const augur_req *r, const MPI_Status *st);
void augur_count_test_pending(int site);
/* Writes what is buffered (no aggregates, no trailer) before the job dies in MPI_Abort. */
void augur_flush_for_abort(void);
/* Sum of counts[0..n) times the type size; -1 if the type is invalid. */
int64_t augur_sum_bytes(const int *counts, int n, MPI_Datatype dt);

#endif /* AUGUR_INTERNAL_H */
