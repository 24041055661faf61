/* augur_fortran.c: Fortran entry points of the augur tracer (gfortran mangling: lower case + `_`,
 * every argument by reference, INTEGER = MPI_Fint).
 *
 * Each wrapper calls the MPI library's own Fortran binding (mpi_send_, ...), not the C function,
 * so the library keeps handling its Fortran sentinels (MPI_STATUS_IGNORE, MPI_IN_PLACE,
 * MPI_BOTTOM) exactly as for an uninstrumented program; the runtime only converts handles to C
 * (MPI_*_f2c) to look at them. Link this file only into Fortran programs: it references the
 * Fortran MPI library (libmpi_mpifh under Open MPI, libsimgrid under SMPI), which `mpicc` does
 * not link.
 */
#include "augur.h"
#include "augur_internal.h"

#include <stdlib.h>
#include <string.h>

typedef MPI_Fint F;

/* The MPI library's Fortran bindings. */
void mpi_init_(F *ierr);
void mpi_init_thread_(F *required, F *provided, F *ierr);
void mpi_finalize_(F *ierr);
void mpi_comm_size_(F *comm, F *size, F *ierr);
void mpi_comm_rank_(F *comm, F *rank, F *ierr);
void mpi_send_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr);
void mpi_ssend_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr);
void mpi_isend_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_issend_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_recv_(void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *status, F *ierr);
void mpi_irecv_(void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *req, F *ierr);
void mpi_sendrecv_(void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount, F *rtype, F *source,
                   F *rtag, F *comm, F *status, F *ierr);
void mpi_send_init_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_ssend_init_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_bsend_init_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_rsend_init_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr);
void mpi_recv_init_(void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *req, F *ierr);
void mpi_start_(F *req, F *ierr);
void mpi_startall_(F *count, F *reqs, F *ierr);
void mpi_request_free_(F *req, F *ierr);
void mpi_probe_(F *source, F *tag, F *comm, F *status, F *ierr);
void mpi_iprobe_(F *source, F *tag, F *comm, F *flag, F *status, F *ierr);
void mpi_wait_(F *req, F *status, F *ierr);
void mpi_waitall_(F *count, F *reqs, F *statuses, F *ierr);
void mpi_waitany_(F *count, F *reqs, F *index, F *status, F *ierr);
void mpi_test_(F *req, F *flag, F *status, F *ierr);
void mpi_testall_(F *count, F *reqs, F *flag, F *statuses, F *ierr);
void mpi_testany_(F *count, F *reqs, F *index, F *flag, F *status, F *ierr);
void mpi_testsome_(F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr);
void mpi_waitsome_(F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr);
void mpi_barrier_(F *comm, F *ierr);
void mpi_comm_split_(F *comm, F *color, F *key, F *newcomm, F *ierr);
void mpi_comm_dup_(F *comm, F *newcomm, F *ierr);
void mpi_comm_create_(F *comm, F *group, F *newcomm, F *ierr);
void mpi_cart_create_(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr);
void mpi_cart_sub_(F *comm, F *remain, F *newcomm, F *ierr);
void mpi_bcast_(void *buf, F *count, F *dt, F *root, F *comm, F *ierr);
void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr);
void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr);
void mpi_alltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr);
void mpi_gather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr);
void mpi_allgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *ierr);
void mpi_scatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *ierr);
void mpi_rsend_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr);
void mpi_bsend_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr);
void mpi_sendrecv_replace_(void *buf, F *count, F *dt, F *dest, F *stag, F *source, F *rtag, F *comm, F *status,
                           F *ierr);
void mpi_alltoallv_(void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts, F *rdispls, F *rtype,
                    F *comm, F *ierr);
void mpi_allgatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *comm, F *ierr);
void mpi_gatherv_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype, F *root, F *comm,
                  F *ierr);
void mpi_scatterv_(void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                   F *ierr);
void mpi_reduce_scatter_(void *sbuf, void *rbuf, F *rcounts, F *dt, F *op, F *comm, F *ierr);
void mpi_scan_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr);
void mpi_abort_(F *comm, F *errorcode, F *ierr);
void mpi_exscan_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr);
void mpi_reduce_scatter_block_(void *sbuf, void *rbuf, F *rcount, F *dt, F *op, F *comm, F *ierr);
void mpi_ibarrier_(F *comm, F *req, F *ierr);
void mpi_ibcast_(void *buf, F *count, F *dt, F *root, F *comm, F *req, F *ierr);
void mpi_ireduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *req, F *ierr);
void mpi_iallreduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *req, F *ierr);
void mpi_ialltoall_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr);
void mpi_igather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req,
                  F *ierr);
void mpi_iallgather_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm, F *req, F *ierr);
void mpi_iscatter_(void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm, F *req,
                   F *ierr);

/* Addresses the Fortran constants MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE and MPI_IN_PLACE have
 * in the caller. Open MPI exports them to C (MPI_F_STATUS_IGNORE, MPI-3) or as common blocks;
 * SMPI's Fortran constants are `external` symbols and its C MPI_F_STATUS_IGNORE is a plain 0. */
#if AUGUR_SMPI
extern F mpi_status_ignore_, mpi_statuses_ignore_, mpi_in_place_;
#define F_STATUS_IGNORE (&mpi_status_ignore_)
#define F_STATUSES_IGNORE (&mpi_statuses_ignore_)
#define F_IN_PLACE ((void *)&mpi_in_place_)
#else
extern F mpi_fortran_in_place_;
#define F_STATUS_IGNORE (MPI_F_STATUS_IGNORE)
#define F_STATUSES_IGNORE (MPI_F_STATUSES_IGNORE)
#define F_IN_PLACE ((void *)&mpi_fortran_in_place_)
#endif

/* Room for one Fortran status of any supported MPI (Open MPI 6, SMPI 5 INTEGERs). */
#define F_STATUS_ROOM 16

/* ---------------------------------------------------------------- markers */

void augur_loop_enter_(F *site) { augur_loop_enter(*site); }
void augur_loop_exit_(F *site, F *iterations) { augur_loop_exit(*site, *iterations); }
void augur_loop_exit8_(F *site, long long *iterations) { augur_loop_exit(*site, *iterations); }
void augur_loop_exits8_(F *site, long long *count, long long *sum, long long *min, long long *max) {
  augur_loop_exits(*site, *count, *sum, *min, *max);
}
void augur_phase_begin_(F *site) { augur_phase_begin(*site); }
void augur_phase_end_(F *site) { augur_phase_end(*site); }
void augur_branch_(F *site, F *arm) { augur_branch(*site, *arm); }
void augur_branches8_(F *site, F *arm, long long *count) { augur_branches(*site, *arm, *count); }
void augur_call_enter_(F *site) { augur_call_enter(*site); }
void augur_call_exit_(F *site) { augur_call_exit(*site); }
void augur_calls8_(F *site, long long *count) { augur_calls(*site, *count); }

/* ---------------------------------------------------------------- helpers */

static augur_mpi_rec frec(uint8_t op, F *site, int32_t peer, int32_t tag, int64_t bytes, MPI_Comm comm) {
  augur_mpi_rec r = {0};
  r.op = op;
  r.flags = AUGUR_F_FORTRAN;
  r.site = (uint32_t)*site;
  r.peer = peer;
  r.tag = tag;
  r.bytes = bytes;
  r.comm_size = augur_comm_size(comm);
  return r;
}

static void ffinish(augur_mpi_rec *r, augur_stamp t0, F *ierr) {
  r->t0 = t0;
  r->t1 = augur_now();
  if (*ierr != MPI_SUCCESS) r->flags |= AUGUR_F_ERROR;
  augur_emit_mpi(r);
}

static int64_t fbytes(F *count, F *dt) { return augur_type_bytes(*count, MPI_Type_f2c(*dt)); }

/* SMPI 3.32 aborts in MPI_Status_f2c ("not yet implemented"); its Fortran bindings use the C
 * struct layout as the Fortran status (5 INTEGERs), so a copy is the conversion. */
static int status_f2c(F *fst, MPI_Status *cs) {
#if AUGUR_SMPI
  memcpy(cs, fst, sizeof *cs);
  return MPI_SUCCESS;
#else
  return MPI_Status_f2c(fst, cs);
#endif
}

/* Reads source/tag/byte count out of a Fortran status. */
static void fstatus_actual(MPI_Comm comm, F *fst, int32_t *peer, int32_t *tag, int64_t *bytes) {
  MPI_Status cs;
  int n = 0;
  if (status_f2c(fst, &cs) != MPI_SUCCESS) return;
  *peer = augur_world_peer(comm, cs.MPI_SOURCE);
  *tag = augur_tag(cs.MPI_TAG);
  if (MPI_Get_count(&cs, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) *bytes = n;
}

static void fcomplete(const augur_req *r, F *fst) {
  if (r->op == AUGUR_OP_IRECV && fst) {
    MPI_Status cs;
    if (status_f2c(fst, &cs) == MPI_SUCCESS) {
      augur_complete(r, &cs);
      return;
    }
  }
  augur_complete(r, NULL);
}

/* ---------------------------------------------------------------- init / finalize / queries */

void augur_mpi_init_(F *site, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_init_(ierr));
  if (*ierr == MPI_SUCCESS) augur_after_init(t0, *site, 1);
}

void augur_mpi_init_thread_(F *site, F *required, F *provided, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_init_thread_(required, provided, ierr));
  if (*ierr == MPI_SUCCESS) augur_after_init(t0, *site, 1);
}

void augur_mpi_finalize_(F *site, F *ierr) {
  AUGUR_ENTRY;
  augur_before_finalize(augur_now(), *site, 1);
  augur_finalize_barrier();
  AUGUR_MPI(mpi_finalize_(ierr));
}

void augur_mpi_comm_size_(F *site, F *comm, F *size, F *ierr) {
  (void)site;
  mpi_comm_size_(comm, size, ierr);
}

void augur_mpi_comm_rank_(F *site, F *comm, F *rank, F *ierr) {
  (void)site;
  mpi_comm_rank_(comm, rank, ierr);
}

/* ---------------------------------------------------------------- point to point */

void augur_mpi_send_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_send_(buf, count, dt, dest, tag, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_SEND, site, augur_world_peer(c, *dest), *tag, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_ssend_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_ssend_(buf, count, dt, dest, tag, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_SSEND, site, augur_world_peer(c, *dest), *tag, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_rsend_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_rsend_(buf, count, dt, dest, tag, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_RSEND, site, augur_world_peer(c, *dest), *tag, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_bsend_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_bsend_(buf, count, dt, dest, tag, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_BSEND, site, augur_world_peer(c, *dest), *tag, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

static void fisend(uint8_t op, F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  if (op == AUGUR_OP_ISSEND) AUGUR_MPI(mpi_issend_(buf, count, dt, dest, tag, comm, req, ierr));
  else AUGUR_MPI(mpi_isend_(buf, count, dt, dest, tag, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(op, site, augur_world_peer(c, *dest), *tag, fbytes(count, dt), c);
  if (*ierr == MPI_SUCCESS) r.req_id = augur_req_add(MPI_Request_f2c(*req), op, r.site, r.peer, r.tag, r.bytes, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_isend_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  fisend(AUGUR_OP_ISEND, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_issend_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  fisend(AUGUR_OP_ISSEND, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_recv_(F *site, void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_recv_(buf, count, dt, source, tag, comm, sp, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_RECV, site, augur_world_peer(c, *source), augur_tag(*tag), fbytes(count, dt), c);
  if (*ierr == MPI_SUCCESS) {
    r.flags |= AUGUR_F_ACTUAL;
    fstatus_actual(c, sp, &r.peer, &r.tag, &r.bytes);
  }
  ffinish(&r, t0, ierr);
}

void augur_mpi_irecv_(F *site, void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_irecv_(buf, count, dt, source, tag, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_IRECV, site, augur_world_peer(c, *source), augur_tag(*tag), fbytes(count, dt), c);
  if (*ierr == MPI_SUCCESS)
    r.req_id = augur_req_add(MPI_Request_f2c(*req), AUGUR_OP_IRECV, r.site, r.peer, r.tag, r.bytes, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_sendrecv_(F *site, void *sbuf, F *scount, F *stype, F *dest, F *stag, void *rbuf, F *rcount,
                         F *rtype, F *source, F *rtag, F *comm, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, sp, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_SENDRECV, site, augur_world_peer(c, *dest), *stag, fbytes(scount, stype), c);
  r.nparts = 1;
  ffinish(&r, t0, ierr);
  int32_t peer = augur_world_peer(c, *source), tag = augur_tag(*rtag);
  int64_t bytes = fbytes(rcount, rtype);
  if (*ierr == MPI_SUCCESS) fstatus_actual(c, sp, &peer, &tag, &bytes);
  augur_emit_part(AUGUR_OP_RECV, (uint32_t)*site, peer, tag, bytes, 0);
}

void augur_mpi_sendrecv_replace_(F *site, void *buf, F *count, F *dt, F *dest, F *stag, F *source, F *rtag, F *comm,
                                 F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_sendrecv_replace_(buf, count, dt, dest, stag, source, rtag, comm, sp, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t bytes = fbytes(count, dt);
  augur_mpi_rec r = frec(AUGUR_OP_SENDRECV_REPLACE, site, augur_world_peer(c, *dest), *stag, bytes, c);
  r.nparts = 1;
  ffinish(&r, t0, ierr);
  int32_t peer = augur_world_peer(c, *source), tag = augur_tag(*rtag);
  if (*ierr == MPI_SUCCESS) fstatus_actual(c, sp, &peer, &tag, &bytes);
  augur_emit_part(AUGUR_OP_RECV, (uint32_t)*site, peer, tag, bytes, 0);
}

/* ---------------------------------------------------------------- persistent requests */

static void finit(uint8_t op, F *site, void *buf, F *count, F *dt, F *peer, F *tag, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  switch (op) {
  case AUGUR_OP_SSEND_INIT: AUGUR_MPI(mpi_ssend_init_(buf, count, dt, peer, tag, comm, req, ierr)); break;
  case AUGUR_OP_BSEND_INIT: AUGUR_MPI(mpi_bsend_init_(buf, count, dt, peer, tag, comm, req, ierr)); break;
  case AUGUR_OP_RSEND_INIT: AUGUR_MPI(mpi_rsend_init_(buf, count, dt, peer, tag, comm, req, ierr)); break;
  case AUGUR_OP_RECV_INIT: AUGUR_MPI(mpi_recv_init_(buf, count, dt, peer, tag, comm, req, ierr)); break;
  default: AUGUR_MPI(mpi_send_init_(buf, count, dt, peer, tag, comm, req, ierr)); break;
  }
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(op, site, augur_world_peer(c, *peer), augur_tag(*tag), fbytes(count, dt), c);
  if (*ierr == MPI_SUCCESS)
    augur_req_add_persistent(MPI_Request_f2c(*req), augur_start_kind(op), r.peer, r.tag, r.bytes, c);
#if AUGUR_SMPI
  augur_remake *m = *ierr == MPI_SUCCESS && augur_detached_send(op, r.bytes) ? augur_req_remake(MPI_Request_f2c(*req))
                                                                             : NULL;
  if (m)
    *m = (augur_remake){.lang = 2, .init_op = op, .buf = buf, .count = *count, .dest = *peer, .tag = *tag,
                        .fdt = *dt, .fcomm = *comm};
#endif
  ffinish(&r, t0, ierr);
}

#if AUGUR_SMPI
/* Before a start of the Fortran handle `*req`: makes it again if it is a detached persistent
 * send started before ("SMPI persistent sends" in augur_trace.c), through SMPI's Fortran
 * bindings, which keep their handle table right. An error leaves `*req` freed and forgotten. */
static void fremake_for_start(F *req, F *ierr) {
  MPI_Request old = MPI_Request_f2c(*req);
  augur_remake *m = augur_req_remake(old);
  *ierr = MPI_SUCCESS;
  if (!m || m->lang != 2) return;
  if (!m->started) {
    m->started = 1;
    return;
  }
  augur_remake k = *m;
  mpi_request_free_(req, ierr);
  if (*ierr == MPI_SUCCESS) {
    switch (k.init_op) {
    case AUGUR_OP_BSEND_INIT: mpi_bsend_init_(k.buf, &k.count, &k.fdt, &k.dest, &k.tag, &k.fcomm, req, ierr); break;
    case AUGUR_OP_RSEND_INIT: mpi_rsend_init_(k.buf, &k.count, &k.fdt, &k.dest, &k.tag, &k.fcomm, req, ierr); break;
    default: mpi_send_init_(k.buf, &k.count, &k.fdt, &k.dest, &k.tag, &k.fcomm, req, ierr); break;
    }
  }
  if (*ierr == MPI_SUCCESS) augur_req_rekey(old, MPI_Request_f2c(*req));
  else augur_req_free(old);
}
#endif

void augur_mpi_send_init_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  finit(AUGUR_OP_SEND_INIT, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_ssend_init_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  finit(AUGUR_OP_SSEND_INIT, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_bsend_init_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  finit(AUGUR_OP_BSEND_INIT, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_rsend_init_(F *site, void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr) {
  finit(AUGUR_OP_RSEND_INIT, site, buf, count, dt, dest, tag, comm, req, ierr);
}

void augur_mpi_recv_init_(F *site, void *buf, F *count, F *dt, F *source, F *tag, F *comm, F *req, F *ierr) {
  finit(AUGUR_OP_RECV_INIT, site, buf, count, dt, source, tag, comm, req, ierr);
}

void augur_mpi_start_(F *site, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
#if AUGUR_SMPI
  AUGUR_MPI(fremake_for_start(req, ierr); if (*ierr == MPI_SUCCESS) mpi_start_(req, ierr));
#else
  AUGUR_MPI(mpi_start_(req, ierr));
#endif
  MPI_Request h = MPI_Request_f2c(*req);
  augur_after_start(AUGUR_OP_START, *site, 1, &h, t0, *ierr, 1);
}

void augur_mpi_startall_(F *site, F *count, F *reqs, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
#if AUGUR_SMPI
  *ierr = MPI_SUCCESS;
  AUGUR_MPI(for (F i = 0; i < *count && *ierr == MPI_SUCCESS; i++) fremake_for_start(&reqs[i], ierr);
            if (*ierr == MPI_SUCCESS) mpi_startall_(count, reqs, ierr));
#else
  AUGUR_MPI(mpi_startall_(count, reqs, ierr));
#endif
  int n = *count > 0 ? *count : 0;
  MPI_Request *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  if (!h) n = 0;
  for (int i = 0; i < n; i++) h[i] = MPI_Request_f2c(reqs[i]);
  augur_after_start(AUGUR_OP_STARTALL, *site, n, h, t0, *ierr, 1);
  free(h);
}

void augur_mpi_request_free_(F *site, F *req, F *ierr) {
  AUGUR_ENTRY;
  MPI_Request h = MPI_Request_f2c(*req);
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_request_free_(req, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_REQUEST_FREE, site, AUGUR_PEER_NONE, 0, 0, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.req_id = *ierr == MPI_SUCCESS ? augur_req_free(h) : 0;
  ffinish(&r, t0, ierr);
}

static void fprobe(uint8_t op, F *site, F *source, F *tag, F *comm, F *sp, augur_stamp t0, F *ierr) {
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(op, site, augur_world_peer(c, *source), augur_tag(*tag), 0, c);
  if (*ierr == MPI_SUCCESS) {
    r.flags |= AUGUR_F_ACTUAL;
    fstatus_actual(c, sp, &r.peer, &r.tag, &r.bytes);
  }
  ffinish(&r, t0, ierr);
}

void augur_mpi_probe_(F *site, F *source, F *tag, F *comm, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_probe_(source, tag, comm, sp, ierr));
  fprobe(AUGUR_OP_PROBE, site, source, tag, comm, sp, t0, ierr);
}

void augur_mpi_iprobe_(F *site, F *source, F *tag, F *comm, F *flag, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_iprobe_(source, tag, comm, flag, sp, ierr));
  if (*ierr == MPI_SUCCESS && !*flag) {
    augur_count_test_pending(*site);
    return;
  }
  fprobe(AUGUR_OP_IPROBE, site, source, tag, comm, sp, t0, ierr);
}

/* ---------------------------------------------------------------- completion */

void augur_mpi_wait_(F *site, F *req, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  augur_req pending;
  int known = augur_req_take(MPI_Request_f2c(*req), &pending);
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_wait_(req, sp, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_WAIT, site, AUGUR_PEER_NONE, 0, 0, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  ffinish(&r, t0, ierr);
  if (known) fcomplete(&pending, *ierr == MPI_SUCCESS ? sp : NULL);
}

void augur_mpi_waitall_(F *site, F *count, F *reqs, F *statuses, F *ierr) {
  AUGUR_ENTRY;
  int n = *count > 0 ? *count : 0;
  augur_req *pend = malloc((size_t)(n ? n : 1) * sizeof *pend);
  F *sts = statuses == F_STATUSES_IGNORE ? malloc((size_t)(n ? n : 1) * F_STATUS_ROOM * sizeof(F)) : statuses;
  if (!pend || !sts) { /* out of memory: run the call unrecorded */
    free(pend);
    if (sts != statuses) free(sts);
    AUGUR_MPI(mpi_waitall_(count, reqs, statuses, ierr));
    return;
  }
  unsigned known = 0;
  for (int i = 0; i < n; i++) {
    if (augur_req_take(MPI_Request_f2c(reqs[i]), &pend[i])) known++;
    else pend[i].id = 0;
  }
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_waitall_(count, reqs, sts, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_WAITALL, site, AUGUR_PEER_NONE, 0, n, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.nparts = known;
  ffinish(&r, t0, ierr);
  /* Fortran statuses are INTEGER(MPI_STATUS_SIZE, count): stride is the library's status size. */
  for (int i = 0; i < n; i++)
    if (pend[i].id) fcomplete(&pend[i], *ierr == MPI_SUCCESS ? sts + (size_t)i * AUGUR_F_STATUS_SIZE : NULL);
  free(pend);
  if (sts != statuses) free(sts);
}

void augur_mpi_waitany_(F *site, F *count, F *reqs, F *index, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  int n = *count > 0 ? *count : 0;
  MPI_Request *before = malloc((size_t)(n ? n : 1) * sizeof *before);
  if (!before) {
    AUGUR_MPI(mpi_waitany_(count, reqs, index, status, ierr));
    return;
  }
  for (int i = 0; i < n; i++) before[i] = MPI_Request_f2c(reqs[i]);
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_waitany_(count, reqs, index, sp, ierr));
  augur_req pending;
  int i = *index - 1; /* Fortran index is 1-based */
  int known = *ierr == MPI_SUCCESS && i >= 0 && i < n && augur_req_take(before[i], &pending);
  free(before);
  augur_mpi_rec r = frec(AUGUR_OP_WAITANY, site, AUGUR_PEER_NONE, 0, n, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  ffinish(&r, t0, ierr);
  if (known) fcomplete(&pending, sp);
}

void augur_mpi_test_(F *site, F *req, F *flag, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  MPI_Request before = MPI_Request_f2c(*req);
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_test_(req, flag, sp, ierr));
  if (*ierr != MPI_SUCCESS || !*flag) {
    augur_count_test_pending(*site);
    return;
  }
  augur_req pending;
  int known = augur_req_take(before, &pending);
  augur_mpi_rec r = frec(AUGUR_OP_TEST, site, AUGUR_PEER_NONE, 0, 0, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  ffinish(&r, t0, ierr);
  if (known) fcomplete(&pending, sp);
}

/* Whether request i (0-based) is among the `n` a completion call reports, by 1-based `idx`. */
static int freported(const F *idx, int n, int i) {
  if (!idx) return i < n;
  for (int k = 0; k < n; k++)
    if ((int)idx[k] - 1 == i) return 1;
  return 0;
}

/* Testall/Testany/Testsome/Waitsome (the C wrappers' record_completed): one completion record of
 * `op` and a Part for each request the runtime knows that the call completed: the `n` it reports,
 * `before[idx[k] - 1]` (Fortran indices are 1-based; `idx` NULL: the first `n`), and any other
 * whose handle it reset (`after[i]` now null; SimGrid 3.32's MPI_Testall frees requests it finds
 * done while returning flag = 0). A status is the i-th of `sts` for request i when `by_request`
 * (Testall's), else the k-th for the k-th reported; none for the others. */
static void frecord_completed(int op, F *site, int count, const MPI_Request *before, const F *after, const F *idx,
                              int n, F *sts, int by_request, augur_stamp t0, F *ierr) {
  if (*ierr != MPI_SUCCESS) return;
  if (n < 0) n = 0;
  int extra = 0;
  for (int i = 0; i < count; i++)
    if (before[i] != MPI_REQUEST_NULL && MPI_Request_f2c(after[i]) == MPI_REQUEST_NULL) extra++;
  int cap = n + extra;
  if (cap == 0) {
    if (op != AUGUR_OP_WAITSOME) augur_count_test_pending(*site);
    return;
  }
  augur_req *pend = malloc((size_t)cap * sizeof *pend);
  F **pst = malloc((size_t)cap * sizeof *pst);
  if (!pend || !pst) {
    free(pend);
    free(pst);
    return;
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    int i = idx ? (int)idx[k] - 1 : k;
    if (i >= 0 && i < count && augur_req_take(before[i], &pend[m]))
      pst[m++] = sts + (size_t)(by_request ? i : k) * AUGUR_F_STATUS_SIZE;
  }
  for (int i = 0; i < count; i++)
    if (before[i] != MPI_REQUEST_NULL && MPI_Request_f2c(after[i]) == MPI_REQUEST_NULL && !freported(idx, n, i) &&
        augur_req_take(before[i], &pend[m]))
      pst[m++] = by_request ? sts + (size_t)i * AUGUR_F_STATUS_SIZE : NULL;
  augur_mpi_rec r = frec((uint8_t)op, site, AUGUR_PEER_NONE, 0, count, MPI_COMM_WORLD);
  r.comm_size = 0;
  r.nparts = (uint32_t)m;
  ffinish(&r, t0, ierr);
  for (int k = 0; k < m; k++) fcomplete(&pend[k], pst[k]);
  free(pend);
  free(pst);
}

static MPI_Request *fhandles_before(int n, const F *reqs) {
  MPI_Request *before = malloc((size_t)(n ? n : 1) * sizeof *before);
  if (before)
    for (int i = 0; i < n; i++) before[i] = MPI_Request_f2c(reqs[i]);
  return before;
}

void augur_mpi_testall_(F *site, F *count, F *reqs, F *flag, F *statuses, F *ierr) {
  AUGUR_ENTRY;
  int n = *count > 0 ? *count : 0;
  MPI_Request *before = fhandles_before(n, reqs);
  F *sts = statuses == F_STATUSES_IGNORE ? malloc((size_t)(n ? n : 1) * F_STATUS_ROOM * sizeof(F)) : statuses;
  if (!before || !sts) {
    free(before);
    if (sts != statuses) free(sts);
    AUGUR_MPI(mpi_testall_(count, reqs, flag, statuses, ierr));
    return;
  }
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_testall_(count, reqs, flag, sts, ierr));
  frecord_completed(AUGUR_OP_TESTALL, site, n, before, reqs, NULL, *ierr == MPI_SUCCESS && *flag ? n : 0, sts, 1, t0,
                    ierr);
  free(before);
  if (sts != statuses) free(sts);
}

void augur_mpi_testany_(F *site, F *count, F *reqs, F *index, F *flag, F *status, F *ierr) {
  AUGUR_ENTRY;
  F own[F_STATUS_ROOM];
  F *sp = status == F_STATUS_IGNORE ? own : status;
  int n = *count > 0 ? *count : 0;
  MPI_Request *before = fhandles_before(n, reqs);
  if (!before) {
    AUGUR_MPI(mpi_testany_(count, reqs, index, flag, status, ierr));
    return;
  }
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_testany_(count, reqs, index, flag, sp, ierr));
  int done = *ierr == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED;
  frecord_completed(AUGUR_OP_TESTANY, site, n, before, reqs, index, done ? 1 : 0, sp, 0, t0, ierr);
  free(before);
}

static void fsome(int op, F *site, F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr) {
  int n = *incount > 0 ? *incount : 0;
  MPI_Request *before = fhandles_before(n, reqs);
  F *sts = statuses == F_STATUSES_IGNORE ? malloc((size_t)(n ? n : 1) * F_STATUS_ROOM * sizeof(F)) : statuses;
  if (!before || !sts) {
    free(before);
    if (sts != statuses) free(sts);
    if (op == AUGUR_OP_WAITSOME) AUGUR_MPI(mpi_waitsome_(incount, reqs, outcount, indices, statuses, ierr));
    else AUGUR_MPI(mpi_testsome_(incount, reqs, outcount, indices, statuses, ierr));
    return;
  }
  augur_stamp t0 = augur_now();
  if (op == AUGUR_OP_WAITSOME) AUGUR_MPI(mpi_waitsome_(incount, reqs, outcount, indices, sts, ierr));
  else AUGUR_MPI(mpi_testsome_(incount, reqs, outcount, indices, sts, ierr));
  int done = *ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? (int)*outcount : 0;
  frecord_completed(op, site, n, before, reqs, indices, done, sts, 0, t0, ierr);
  free(before);
  if (sts != statuses) free(sts);
}

void augur_mpi_testsome_(F *site, F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr) {
  AUGUR_ENTRY;
  fsome(AUGUR_OP_TESTSOME, site, incount, reqs, outcount, indices, statuses, ierr);
}

void augur_mpi_waitsome_(F *site, F *incount, F *reqs, F *outcount, F *indices, F *statuses, F *ierr) {
  AUGUR_ENTRY;
  fsome(AUGUR_OP_WAITSOME, site, incount, reqs, outcount, indices, statuses, ierr);
}

/* ---------------------------------------------------------------- collectives */

void augur_mpi_barrier_(F *site, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_barrier_(comm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_BARRIER, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

/* Communicator constructors: collective over `comm`, recorded with its size and no bytes. */
void augur_mpi_comm_split_(F *site, F *comm, F *color, F *key, F *newcomm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_comm_split_(comm, color, key, newcomm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_COMM_SPLIT, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

void augur_mpi_comm_dup_(F *site, F *comm, F *newcomm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_comm_dup_(comm, newcomm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_COMM_DUP, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

void augur_mpi_comm_create_(F *site, F *comm, F *group, F *newcomm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_comm_create_(comm, group, newcomm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_COMM_CREATE, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

void augur_mpi_cart_create_(F *site, F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_cart_create_(comm, ndims, dims, periods, reorder, newcomm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_CART_CREATE, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

void augur_mpi_cart_sub_(F *site, F *comm, F *remain, F *newcomm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_cart_sub_(comm, remain, newcomm, ierr));
  augur_mpi_rec r = frec(AUGUR_OP_CART_SUB, site, AUGUR_PEER_NONE, 0, 0, MPI_Comm_f2c(*comm));
  ffinish(&r, t0, ierr);
}

void augur_mpi_bcast_(F *site, void *buf, F *count, F *dt, F *root, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_bcast_(buf, count, dt, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_BCAST, site, augur_world_peer(c, *root), 0, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_reduce_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_reduce_(sbuf, rbuf, count, dt, op, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_REDUCE, site, augur_world_peer(c, *root), 0, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_allreduce_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_allreduce_(sbuf, rbuf, count, dt, op, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_ALLREDUCE, site, AUGUR_PEER_NONE, 0, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_alltoall_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm,
                         F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_alltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  augur_mpi_rec r = frec(AUGUR_OP_ALLTOALL, site, AUGUR_PEER_NONE, 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_gather_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root, F *comm,
                       F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_gather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  augur_mpi_rec r = frec(AUGUR_OP_GATHER, site, augur_world_peer(c, *root), 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_allgather_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm,
                          F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_allgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  augur_mpi_rec r = frec(AUGUR_OP_ALLGATHER, site, AUGUR_PEER_NONE, 0, b, c);
  ffinish(&r, t0, ierr);
}

/* Neighbourhood collectives: through the C bindings (SimGrid 3.32 has no Fortran ones, and an
 * undefined mpi_neighbor_*_ would keep every Fortran program from linking under smpif90). */
static void fneighbor(uint8_t op, F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,
                      F *comm, F *ierr) {
  MPI_Datatype st = MPI_Type_f2c(*stype), rt = MPI_Type_f2c(*rtype);
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_stamp t0 = augur_now();
  int rc;
  if (op == AUGUR_OP_NEIGHBOR_ALLTOALL)
    AUGUR_MPI(rc = MPI_Neighbor_alltoall(sbuf, (int)*scount, st, rbuf, (int)*rcount, rt, c));
  else
    AUGUR_MPI(rc = MPI_Neighbor_allgather(sbuf, (int)*scount, st, rbuf, (int)*rcount, rt, c));
  *ierr = (F)rc;
  augur_mpi_rec r = frec(op, site, AUGUR_PEER_NONE, augur_neighbours(c), fbytes(scount, stype), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_neighbor_alltoall_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,
                                  F *comm, F *ierr) {
  AUGUR_ENTRY;
  fneighbor(AUGUR_OP_NEIGHBOR_ALLTOALL, site, sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);
}

void augur_mpi_neighbor_allgather_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype,
                                   F *comm, F *ierr) {
  AUGUR_ENTRY;
  fneighbor(AUGUR_OP_NEIGHBOR_ALLGATHER, site, sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr);
}

/* their v forms, through the C bindings too (F is MPI_Fint, an int: the count arrays pass) */
void augur_mpi_neighbor_alltoallv_(F *site, void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
                                   F *rdispls, F *rtype, F *comm, F *ierr) {
  AUGUR_ENTRY;
  MPI_Datatype st = MPI_Type_f2c(*stype), rt = MPI_Type_f2c(*rtype);
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_alltoallv(sbuf, (const int *)scounts, (const int *)sdispls, st, rbuf,
                                        (const int *)rcounts, (const int *)rdispls, rt, c));
  *ierr = (F)rc;
  augur_mpi_rec r = frec(AUGUR_OP_NEIGHBOR_ALLTOALLV, site, AUGUR_PEER_NONE, augur_neighbours(c),
                         augur_mean_block((const int *)scounts, augur_out_neighbours(c), st), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_neighbor_allgatherv_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs,
                                    F *rtype, F *comm, F *ierr) {
  AUGUR_ENTRY;
  MPI_Datatype st = MPI_Type_f2c(*stype), rt = MPI_Type_f2c(*rtype);
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_allgatherv(sbuf, (int)*scount, st, rbuf, (const int *)rcounts, (const int *)displs,
                                         rt, c));
  *ierr = (F)rc;
  augur_mpi_rec r = frec(AUGUR_OP_NEIGHBOR_ALLGATHERV, site, AUGUR_PEER_NONE, augur_neighbours(c),
                         fbytes(scount, stype), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_scatter_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
                        F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_scatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = rbuf == F_IN_PLACE ? fbytes(scount, stype) : fbytes(rcount, rtype);
  augur_mpi_rec r = frec(AUGUR_OP_SCATTER, site, augur_world_peer(c, *root), 0, b, c);
  ffinish(&r, t0, ierr);
}

/* ---------------------------------------------------------------- vector collectives, scan, abort
 * Same byte conventions as the C wrappers (docs/trace-format.md). */

static int fcomm_rank(MPI_Comm c) {
  int r = 0;
  if (MPI_Comm_rank(c, &r) != MPI_SUCCESS) return 0;
  return r;
}

void augur_mpi_alltoallv_(F *site, void *sbuf, F *scounts, F *sdispls, F *stype, void *rbuf, F *rcounts,
                          F *rdispls, F *rtype, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_alltoallv_(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int n = augur_comm_size(c);
  int64_t b = sbuf == F_IN_PLACE ? augur_sum_bytes(rcounts, n, MPI_Type_f2c(*rtype))
                                 : augur_sum_bytes(scounts, n, MPI_Type_f2c(*stype));
  augur_mpi_rec r = frec(AUGUR_OP_ALLTOALLV, site, AUGUR_PEER_NONE, 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_allgatherv_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype,
                           F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_allgatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = sbuf == F_IN_PLACE ? fbytes(&rcounts[fcomm_rank(c)], rtype) : fbytes(scount, stype);
  augur_mpi_rec r = frec(AUGUR_OP_ALLGATHERV, site, AUGUR_PEER_NONE, 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_gatherv_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcounts, F *displs, F *rtype,
                        F *root, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_gatherv_(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = fcomm_rank(c) == *root
                  ? augur_sum_bytes(rcounts, augur_comm_size(c), MPI_Type_f2c(*rtype)) / augur_comm_size(c)
                  : fbytes(scount, stype);
  augur_mpi_rec r = frec(AUGUR_OP_GATHERV, site, augur_world_peer(c, *root), 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_scatterv_(F *site, void *sbuf, F *scounts, F *displs, F *stype, void *rbuf, F *rcount, F *rtype,
                         F *root, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_scatterv_(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = fcomm_rank(c) == *root
                  ? augur_sum_bytes(scounts, augur_comm_size(c), MPI_Type_f2c(*stype)) / augur_comm_size(c)
                  : fbytes(rcount, rtype);
  augur_mpi_rec r = frec(AUGUR_OP_SCATTERV, site, augur_world_peer(c, *root), 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_reduce_scatter_(F *site, void *sbuf, void *rbuf, F *rcounts, F *dt, F *op, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_reduce_scatter_(sbuf, rbuf, rcounts, dt, op, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = augur_sum_bytes(rcounts, augur_comm_size(c), MPI_Type_f2c(*dt));
  augur_mpi_rec r = frec(AUGUR_OP_REDUCE_SCATTER, site, AUGUR_PEER_NONE, 0, b, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_scan_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_scan_(sbuf, rbuf, count, dt, op, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_SCAN, site, AUGUR_PEER_NONE, 0, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_exscan_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_exscan_(sbuf, rbuf, count, dt, op, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_EXSCAN, site, AUGUR_PEER_NONE, 0, fbytes(count, dt), c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_reduce_scatter_block_(F *site, void *sbuf, void *rbuf, F *rcount, F *dt, F *op, F *comm, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_reduce_scatter_block_(sbuf, rbuf, rcount, dt, op, comm, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = fbytes(rcount, dt);
  int32_t n = augur_comm_size(c);
  augur_mpi_rec r = frec(AUGUR_OP_REDUCE_SCATTER_BLOCK, site, AUGUR_PEER_NONE, 0, b < 0 || n < 0 ? -1 : b * n, c);
  ffinish(&r, t0, ierr);
}

/* Nonblocking collectives: the start record and the request as the C wrappers make them. */
static void ficoll(uint8_t op, F *site, int32_t peer, int64_t bytes, MPI_Comm c, F *req, augur_stamp t0, F *ierr) {
  augur_mpi_rec r = frec(op, site, peer, 0, bytes, c);
  if (*ierr == MPI_SUCCESS) r.req_id = augur_req_add_coll(MPI_Request_f2c(*req), op, r.site, peer, bytes, c);
  ffinish(&r, t0, ierr);
}

void augur_mpi_ibarrier_(F *site, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_ibarrier_(comm, req, ierr));
  ficoll(AUGUR_OP_IBARRIER, site, AUGUR_PEER_NONE, 0, MPI_Comm_f2c(*comm), req, t0, ierr);
}

void augur_mpi_ibcast_(F *site, void *buf, F *count, F *dt, F *root, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_ibcast_(buf, count, dt, root, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  ficoll(AUGUR_OP_IBCAST, site, augur_world_peer(c, *root), fbytes(count, dt), c, req, t0, ierr);
}

void augur_mpi_ireduce_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *req,
                        F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_ireduce_(sbuf, rbuf, count, dt, op, root, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  ficoll(AUGUR_OP_IREDUCE, site, augur_world_peer(c, *root), fbytes(count, dt), c, req, t0, ierr);
}

void augur_mpi_iallreduce_(F *site, void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_iallreduce_(sbuf, rbuf, count, dt, op, comm, req, ierr));
  ficoll(AUGUR_OP_IALLREDUCE, site, AUGUR_PEER_NONE, fbytes(count, dt), MPI_Comm_f2c(*comm), req, t0, ierr);
}

void augur_mpi_ialltoall_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm,
                          F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_ialltoall_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr));
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  ficoll(AUGUR_OP_IALLTOALL, site, AUGUR_PEER_NONE, b, MPI_Comm_f2c(*comm), req, t0, ierr);
}

void augur_mpi_igather_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
                        F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_igather_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  ficoll(AUGUR_OP_IGATHER, site, augur_world_peer(c, *root), b, c, req, t0, ierr);
}

void augur_mpi_iallgather_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *comm,
                           F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_iallgather_(sbuf, scount, stype, rbuf, rcount, rtype, comm, req, ierr));
  int64_t b = sbuf == F_IN_PLACE ? fbytes(rcount, rtype) : fbytes(scount, stype);
  ficoll(AUGUR_OP_IALLGATHER, site, AUGUR_PEER_NONE, b, MPI_Comm_f2c(*comm), req, t0, ierr);
}

void augur_mpi_iscatter_(F *site, void *sbuf, F *scount, F *stype, void *rbuf, F *rcount, F *rtype, F *root,
                         F *comm, F *req, F *ierr) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  AUGUR_MPI(mpi_iscatter_(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, req, ierr));
  MPI_Comm c = MPI_Comm_f2c(*comm);
  int64_t b = rbuf == F_IN_PLACE ? fbytes(scount, stype) : fbytes(rcount, rtype);
  ficoll(AUGUR_OP_ISCATTER, site, augur_world_peer(c, *root), b, c, req, t0, ierr);
}

void augur_mpi_abort_(F *site, F *comm, F *errorcode, F *ierr) {
  AUGUR_ENTRY;
  MPI_Comm c = MPI_Comm_f2c(*comm);
  augur_mpi_rec r = frec(AUGUR_OP_ABORT, site, AUGUR_PEER_NONE, *errorcode, 0, c);
  r.t0 = r.t1 = augur_now();
  augur_emit_mpi(&r);
  augur_flush_for_abort();
  AUGUR_MPI(mpi_abort_(comm, errorcode, ierr));
}
