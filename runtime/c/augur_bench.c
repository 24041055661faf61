/* augur_bench.c: MPI microbenchmarks behind `augur characterize` (the machine data sheet of
 * seeds 000 ch. 3 / 002 §3): point-to-point half round trip, send/receive overheads, stream
 * period, and every collective over message sizes and group sizes.
 *
 * Invariants:
 *  - Only rank 0 writes the output file; every line is one data point with
 *    min/median/mean/stddev over the repetitions (seconds).
 *  - Every timed repetition starts from a barrier on the communicator being measured, after
 *    WARMUP untimed calls. A collective's time is the maximum over its group (from the sync
 *    point until the last process returns), obtained with an Allreduce so that all ranks agree
 *    on when to stop repeating. Below 1 MiB a repetition times a few consecutive calls
 *    (bytes_trips) and reports the mean per call, so the barrier's exit skew (a late rank
 *    finding its data already there) is amortised.
 *  - Collectives over group size g use a sub-communicator of world ranks 0..g-1 (MPI_Comm_split);
 *    the other ranks wait at a world barrier (sleeping between polls, natively), so one launch
 *    covers several group sizes and only one group is active at a time.
 *  - Message buffers are allocated once and reused (cached data; seed 000 used fresh memory).
 *  - Arguments are parsed strictly; a bad value prints a message and exits with status 2.
 *
 * Usage: augur_bench -o FILE [-s P2P_SIZES] [-c COLL_SIZES] [-g GROUPS] [-r REPS] [-t SECONDS]
 *                    [-m all|pt2pt|coll|nb|noise] [-O OPS]
 *   sizes/groups are comma lists of positive integers (bytes / ranks); -t caps the time spent on
 *   one data point (repetitions stop early once it is exceeded, keeping at least 3); -m runs
 *   only the point-to-point or only the collective part, or only the nonblocking exchange (nb:
 *   rows to add to an earlier sheet's CSV; natively the point-to-point part is
 *   best measured in a launch of 2 ranks: idle ranks of an oversubscribed launch disturb the
 *   two that measure, and the fresh-data stream is sensitive to where they run); noise
 *   runs only the selfish-detour loop, which all and pt2pt also run first (bench_noise()). -O
 *   names the collectives to run (comma list of the names below; all by default): rows to add
 *   to an earlier sheet's CSV for collectives it lacks.
 *
 * Output (CSV, '#' lines are metadata):
 *   kind,op,p,bytes,reps,min,median,mean,stddev
 *   pt2pt ops: pingpong (half round trip, mean over a few consecutive round trips), send_posted (time in MPI_Send with the receive
 *   already posted), send_unposted (receive posted late), recv_min (time in MPI_Recv for a
 *   message sent well before), stream (per-message period of back-to-back sends),
 *   stream_fresh (one-way stream where the sender writes its whole buffer before every send
 *   and the receiver reads every message it gets, as programs do: per-message period minus
 *   the larger of the write and read times, i.e. what the messages add to the computation),
 *   rewrite_sent (in that stream, the sender's time per message to update in place the
 *   buffer it has just sent and the receiver has read), and the nonblocking exchange's
 *   nb_post, nb_exchange_1, nb_exchange_8, nb_wait_1, nb_wait_8 (nonblocking()).
 *   After the listed sizes, send_unposted is also measured at sizes bisecting the gap between
 *   the largest listed size whose send does not wait for the late receive and the next one
 *   that does, down to one byte: the eager limit. A send "waits" when its median exceeds the
 *   send_posted median at the nearest listed size at or below it by WAIT_MARGIN seconds (half
 *   the fixed part of the late receiver's delay); model/src/machine_fit.rs applies the same rule.
 *   coll ops: barrier bcast reduce allreduce gather scatter allgather alltoall gatherv scatterv
 *   allgatherv alltoallv; bytes is the per-process block (bcast: the buffer; reduce/allreduce:
 *   the vector of doubles; gather, scatter, allgather and their v-forms: each process's block;
 *   alltoall, alltoallv: each pair's block). The v-forms pass every rank the same count.
 *   noise ops (bench_noise()): span (bytes: the threshold in ns; min = median = mean: the
 *   seconds the loop ran) and one detour row per power-of-two bin of detour lengths that
 *   holds any (bytes: the bin's upper edge in ns; reps: how many; the statistics: theirs).
 */
#include <mpi.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef SMPI_H
#include <time.h>
#else
#include <xbt/config.h> /* sg_cfg_get_double */
#endif

#define WARMUP 2
#define STREAM_LEN 16
/* the most messages each way of the nonblocking exchange (nonblocking()) */
#define NB_K 8
#define MAX_LIST 64
#define TAG 7
/* A send waited for the late receive when it took this much longer than a posted one. */
#define WAIT_MARGIN 10e-6

typedef struct {
    long v[MAX_LIST];
    int n;
} list_t;

static int parse_list(const char *s, list_t *out, long lo, long hi) {
    out->n = 0;
    while (*s) {
        char *end = NULL;
        errno = 0;
        long x = strtol(s, &end, 10);
        if (end == s || errno != 0 || x < lo || x > hi || out->n >= MAX_LIST) return -1;
        out->v[out->n++] = x;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return out->n > 0 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static FILE *out_file = NULL;

/* Writes one data point (rank 0 only). Sorts `t` in place. */
static void emit(const char *kind, const char *op, int p, long bytes, double *t, int n) {
    if (!out_file || n <= 0) return;
    double mean = 0, var = 0;
    for (int i = 0; i < n; i++) mean += t[i];
    mean /= n;
    for (int i = 0; i < n; i++) var += (t[i] - mean) * (t[i] - mean);
    double sd = n > 1 ? sqrt(var / (n - 1)) : 0.0;
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    double med = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    fprintf(out_file, "%s,%s,%d,%ld,%d,%.9e,%.9e,%.9e,%.9e\n", kind, op, p, bytes, n, t[0], med, mean, sd);
    fflush(out_file);
}

/* Waits `sec` seconds of (simulated, under SMPI) time without entering MPI. */
static void delay(double sec) {
#ifdef SMPI_H
    smpi_execute_benched(sec);
#else
    double t0 = MPI_Wtime();
    while (MPI_Wtime() - t0 < sec) {
    }
#endif
}

static void idle_barrier(void);
static void usage_exit(int rank, const char *msg);

/* The host's clock, also under SMPI (whose smpi_helpers.h turns clock_gettime into the
 * simulated clock; the parentheses keep that function-like macro from expanding). */
static double host_now(void) {
    struct timespec ts;
    (clock_gettime)(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define NOISE_SECONDS 2.0
#define NOISE_THRESHOLD 2e-6
#define NOISE_MAX 1000000

/* The selfish-detour benchmark (Beckman et al., Cluster 2006) on rank 0, the others waiting in
 * the idle barrier: a loop reading the host's clock for NOISE_SECONDS records every gap longer
 * than NOISE_THRESHOLD, a time the core was taken from the program (a detour). Under SMPI
 * this is the host running the simulation, whose detours inside a rank's computation are
 * charged to simulated time. Rows: see the header. */
static void bench_noise(int rank) {
    if (rank == 0) {
        double *d = malloc(sizeof(double) * NOISE_MAX);
        long n = 0;
        if (!d) usage_exit(rank, "out of memory for the detours");
        double t0 = host_now(), last = t0, t = t0;
        while ((t = host_now()) - t0 < NOISE_SECONDS) {
            if (t - last > NOISE_THRESHOLD && n < NOISE_MAX) d[n++] = t - last;
            last = t;
        }
        double span = t - t0;
        qsort(d, (size_t)n, sizeof(double), cmp_double);
        emit("noise", "span", 1, (long)(NOISE_THRESHOLD * 1e9 + 0.5), &span, 1);
        long at = 0;
        for (double up = 2 * NOISE_THRESHOLD; at < n; up *= 2) {
            long from = at;
            while (at < n && d[at] <= up) at++;
            if (at > from) emit("noise", "detour", 1, (long)(up * 1e9 + 0.5), d + from, (int)(at - from));
        }
        free(d);
    }
    idle_barrier();
}

/* A world barrier that ranks with nothing to do wait in while others measure: natively it
 * sleeps between polls, so idle ranks do not steal the cores of an oversubscribed run. */
static void idle_barrier(void) {
#ifdef SMPI_H
    MPI_Barrier(MPI_COMM_WORLD);
#else
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &rq);
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    }
#endif
}

static int reps_for(long bytes, int reps) {
    if (bytes <= 65536) return reps;
    long r = (long)reps * 65536 / bytes;
    return r < 5 ? 5 : (int)r;
}

/* Round trips (collective calls) per timed repetition: 8 for small messages, 1 from 1 MiB. */
static int bytes_trips(long bytes) {
    return bytes >= 1048576 ? 1 : bytes >= 65536 ? 2 : 8;
}

static double *times_buf;
/* stream_fresh's second row (rewrite_sent), filled alongside times_buf */
static double *rewrite_buf;
static char *sbuf, *rbuf;

/* send_unposted: time in MPI_Send when the receiver posts only after `late`. Emits the row
 * (rank 0) and returns on both ranks whether the send waited for the receive (see WAIT_MARGIN;
 * `posted` is the send_posted median it is compared with, meaningful on rank 0). */
static int send_unposted(MPI_Comm pair, int me, long b, int n, double late, double posted) {
    int cnt = (int)b, peer = 1 - me;
    MPI_Status st;
    for (int i = -WARMUP; i < n; i++) {
        MPI_Barrier(pair);
        if (me == 0) {
            double t0 = MPI_Wtime();
            MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
            if (i >= 0) times_buf[i] = MPI_Wtime() - t0;
        } else {
            delay(late);
            MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
        }
    }
    int waited = 0;
    if (me == 0) {
        emit("pt2pt", "send_unposted", 2, b, times_buf, n);
        waited = times_buf[n / 2] > posted + WAIT_MARGIN;
    }
    MPI_Bcast(&waited, 1, MPI_INT, 0, pair);
    return waited;
}

/* Sink for the receiver's reads, so the compiler keeps them. */
static volatile unsigned long fresh_sink;

/* Rewrites the first `b` bytes in place (read-modify-write of every word, as a program's update
 * loop over the data it sends does). */
static void update_all(unsigned char *q, long b, int k) {
    long j = 0;
    for (; j + 8 <= b; j += 8) {
        unsigned long w;
        memcpy(&w, q + j, 8);
        w = w * 3 + (unsigned long)k;
        memcpy(q + j, &w, 8);
    }
    for (; j < b; j++) q[j] = (unsigned char)(q[j] * 3 + k);
}

/* Sum of the first `b` bytes (read as words), so that every cache line is loaded. */
static unsigned long read_all(const unsigned char *q, long b) {
    unsigned long acc = 0;
    long j = 0;
    for (; j + 8 <= b; j += 8) {
        unsigned long w;
        memcpy(&w, q + j, 8);
        acc += w;
    }
    for (; j < b; j++) acc += q[j];
    return acc;
}

/* stream_fresh: STREAM_LEN one-way messages; before each send the sender updates its whole
 * buffer in place, after each receive the receiver reads all of it, as a program's loops
 * around its messages do. The row is the receiver's period per message minus the larger of
 * the two sides' per-message update/read times, each timed inside the stream, at least 0:
 * what a message adds to the computation around it. The loops are timed in place because a
 * program's traced computation is too: the sender's update of data the receiver's copy just
 * read costs more than an update of data only it touches (the cache lines come back from the
 * other core), and the trace already charges that to the computation, not to the message.
 * The sender's update per message is a row of its own, rewrite_sent: the least time a loop that
 * rewrites a buffer its peer has just read takes, whatever else it does (on this host 2-3x the
 * update of data only the sender touches at 64-128 KiB, then less). */
static void stream_fresh(MPI_Comm pair, int me, long b, int n) {
    int cnt = (int)b, peer = 1 - me;
    MPI_Status st;
    for (int i = -WARMUP; i < n; i++) {
        /* this side's loop time over messages 1 .. STREAM_LEN - 1, the receiver's period */
        double busy = 0, period = 0, t0 = 0;
        MPI_Barrier(pair);
        for (int k = 0; k < STREAM_LEN; k++) {
            if (me == 1) {
                double u0 = MPI_Wtime();
                update_all((unsigned char *)sbuf, b, k + i);
                if (k > 0) busy += MPI_Wtime() - u0;
                MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
            } else {
                MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                double r0 = MPI_Wtime();
                fresh_sink = read_all((const unsigned char *)rbuf, b);
                if (k > 0) busy += MPI_Wtime() - r0;
                else t0 = MPI_Wtime();
            }
        }
        if (me == 1) {
            MPI_Send(&busy, 1, MPI_DOUBLE, peer, TAG + 1, pair);
        } else {
            period = MPI_Wtime() - t0;
            double other = 0;
            MPI_Recv(&other, 1, MPI_DOUBLE, peer, TAG + 1, pair, &st);
            if (i >= 0) {
                double most = busy > other ? busy : other;
                double t = (period - most) / (STREAM_LEN - 1);
                times_buf[i] = t > 0 ? t : 0;
                rewrite_buf[i] = other / (STREAM_LEN - 1);
            }
        }
    }
    if (me == 0) emit("pt2pt", "stream_fresh", 2, b, times_buf, n);
    if (me == 0) emit("pt2pt", "rewrite_sent", 2, b, rewrite_buf, n);
}

/* Nonblocking exchange (a halo's Irecv/Isend/Waitall): both sides of the pair post `k`
 * receives, then `k` sends (distinct tags, one receive buffer each), then wait for all 2k
 * requests, symmetrically, for k = 1 and k = NB_K. A repetition times `trips` consecutive
 * exchanges after an untimed one that absorbs the barrier's exit skew (under SMPI the last
 * rank leaves a barrier a message's latency after the first: timed from the barrier, one
 * exchange read 8 µs where a halo's take 4-5 µs). Rows (rank 0's times, per exchange):
 *   nb_post        time in the 2k posts per message each way (k = NB_K);
 *   nb_exchange_K  the whole exchange, posts to the Waitall's return;
 *   nb_wait_K      time in the Waitall when both sides computed for `late` seconds (times k)
 *                  after their posts: what completing the requests costs the processor that
 *                  no computation between post and wait hides (natively the copies; under
 *                  SMPI nothing, the transfers run in the simulated network meanwhile).
 * The exchange less its posts and that wait is the part a computation placed between the posts
 * and the wait overlaps (model/src/machine_fit.rs). */
static void nonblocking(MPI_Comm pair, int me, long b, int n, double late) {
    int cnt = (int)b, peer = 1 - me, trips = bytes_trips(b);
    MPI_Request rq[2 * NB_K];
    int ks[2] = {1, NB_K};
    for (int ki = 0; ki < 2; ki++) {
        int k = ks[ki];
        for (int wait = 0; wait < 2; wait++) {
            for (int i = -WARMUP; i < n; i++) {
                double posts = 0, waits = 0, t0 = 0;
                MPI_Barrier(pair);
                for (int t = -1; t < trips; t++) {
                    if (t == 0) t0 = MPI_Wtime();
                    double p0 = MPI_Wtime();
                    for (int j = 0; j < k; j++)
                        MPI_Irecv(rbuf + (size_t)j * (size_t)b, cnt, MPI_BYTE, peer, TAG + 2 + j, pair, &rq[j]);
                    for (int j = 0; j < k; j++)
                        MPI_Isend(sbuf, cnt, MPI_BYTE, peer, TAG + 2 + j, pair, &rq[k + j]);
                    double p1 = MPI_Wtime();
                    if (wait) delay(late * k);
                    double w0 = MPI_Wtime();
                    MPI_Waitall(2 * k, rq, MPI_STATUSES_IGNORE);
                    if (t < 0) continue;
                    posts += p1 - p0;
                    waits += MPI_Wtime() - w0;
                }
                if (i < 0) continue;
                if (wait) times_buf[i] = waits / trips;
                else {
                    times_buf[i] = (MPI_Wtime() - t0) / trips;
                    rewrite_buf[i] = posts / trips / k;
                }
            }
            if (me != 0) continue;
            char op[32];
            snprintf(op, sizeof op, wait ? "nb_wait_%d" : "nb_exchange_%d", k);
            emit("pt2pt", op, 2, b, times_buf, n);
            if (!wait && k == NB_K) emit("pt2pt", "nb_post", 2, b, rewrite_buf, n);
        }
    }
}

/* Point-to-point between world ranks 0 and 1 over `pair` (NULL on other ranks): every
 * benchmark (`blocking`), or the nonblocking exchange alone with the ping-pong that sets its
 * delay unreported (-m nb), always with the nonblocking exchange. */
static void bench_pt2pt(MPI_Comm pair, const list_t *sizes, int reps, int blocking) {
    if (pair == MPI_COMM_NULL) return;
    /* per listed size: send_posted median (rank 0), half round trip, whether a late receive
     * made the send wait */
    double posted[MAX_LIST] = {0}, half_at[MAX_LIST] = {0};
    int waited[MAX_LIST] = {0};
    int me;
    MPI_Comm_rank(pair, &me);
    int peer = 1 - me;
    MPI_Status st;
    for (int si = 0; si < sizes->n; si++) {
        long b = sizes->v[si];
        int cnt = (int)b, n = reps_for(b, reps);
        /* pingpong: half round trip measured on rank 0, averaged over `trips` round trips
         * that start after one untimed round trip (which absorbs the barrier's exit skew) */
        int trips = bytes_trips(b);
        for (int i = -WARMUP; i < n; i++) {
            MPI_Barrier(pair);
            double t0 = 0;
            for (int k = -1; k < trips; k++) {
                if (k == 0) t0 = MPI_Wtime();
                if (me == 0) {
                    MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
                    MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                } else {
                    MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                    MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
                }
            }
            if (i >= 0) times_buf[i] = (MPI_Wtime() - t0) / (2.0 * trips);
        }
        double half = 0;
        if (me == 0) {
            if (blocking) emit("pt2pt", "pingpong", 2, b, times_buf, n);
            else qsort(times_buf, (size_t)n, sizeof(double), cmp_double);
            half = times_buf[n / 2];
        }
        MPI_Bcast(&half, 1, MPI_DOUBLE, 0, pair);
        /* Long enough for the message to have arrived before the late side acts. */
        double late = 4 * half + 20e-6;
        if (!blocking) {
            nonblocking(pair, me, b, n, late);
            continue;
        }
        /* send_posted: the receive is posted before the barrier */
        for (int i = -WARMUP; i < n; i++) {
            MPI_Request rq = MPI_REQUEST_NULL;
            if (me == 1) MPI_Irecv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &rq);
            MPI_Barrier(pair);
            if (me == 0) {
                double t0 = MPI_Wtime();
                MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
                if (i >= 0) times_buf[i] = MPI_Wtime() - t0;
            } else {
                MPI_Wait(&rq, &st);
            }
        }
        if (me == 0) emit("pt2pt", "send_posted", 2, b, times_buf, n);
        if (me == 0) posted[si] = times_buf[n / 2];
        half_at[si] = half;
        waited[si] = send_unposted(pair, me, b, n, late, posted[si]);
        /* recv_min: rank 0 receives a message rank 1 sent `late` earlier */
        for (int i = -WARMUP; i < n; i++) {
            MPI_Barrier(pair);
            if (me == 1) {
                MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
            } else {
                delay(late);
                double t0 = MPI_Wtime();
                MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                if (i >= 0) times_buf[i] = MPI_Wtime() - t0;
            }
        }
        if (me == 0) emit("pt2pt", "recv_min", 2, b, times_buf, n);
        /* stream: period of STREAM_LEN back-to-back messages, measured at the receiver */
        for (int i = -WARMUP; i < n; i++) {
            MPI_Barrier(pair);
            if (me == 1) {
                for (int k = 0; k < STREAM_LEN; k++) MPI_Send(sbuf, cnt, MPI_BYTE, peer, TAG, pair);
            } else {
                MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                double t0 = MPI_Wtime();
                for (int k = 1; k < STREAM_LEN; k++) MPI_Recv(rbuf, cnt, MPI_BYTE, peer, TAG, pair, &st);
                if (i >= 0) times_buf[i] = (MPI_Wtime() - t0) / (STREAM_LEN - 1);
            }
        }
        if (me == 0) emit("pt2pt", "stream", 2, b, times_buf, n);
        stream_fresh(pair, me, b, n);
        nonblocking(pair, me, b, n, late);
    }
    if (!blocking) return;
    /* eager limit: bisect between the last size that did not wait and the first that did */
    for (int si = 1; si < sizes->n; si++) {
        if (waited[si - 1] || !waited[si]) continue;
        long lo = sizes->v[si - 1], hi = sizes->v[si];
        if (lo >= hi) break; /* the bisection needs the sizes in increasing order */
        /* the late receiver's delay of the larger size covers every size between */
        double late = 4 * half_at[si] + 20e-6;
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            if (send_unposted(pair, me, mid, reps_for(mid, reps), late, posted[si - 1])) hi = mid;
            else lo = mid;
        }
        break;
    }
}

enum { OP_BARRIER, OP_BCAST, OP_REDUCE, OP_ALLREDUCE, OP_GATHER, OP_SCATTER, OP_ALLGATHER, OP_ALLTOALL,
       OP_GATHERV, OP_SCATTERV, OP_ALLGATHERV, OP_ALLTOALLV, N_OPS };
static const char *op_names[N_OPS] = {"barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather", "alltoall",
                                      "gatherv", "scatterv", "allgatherv", "alltoallv"};
/* which collectives bench_coll() runs (-O; all by default) */
static int op_on[N_OPS];
/* the v-collectives' counts and displacements, one per rank of the largest group: every rank
 * the same count (the MPI library's v-algorithm, not the regular one's, at a regular size) */
static int *v_counts, *v_displs;

static void run_op(int op, long bytes, MPI_Comm c) {
    int cnt = (int)bytes;
    int dbl = (int)(bytes / 8 > 0 ? bytes / 8 : 1);
    switch (op) {
    case OP_BARRIER: MPI_Barrier(c); break;
    case OP_BCAST: MPI_Bcast(sbuf, cnt, MPI_BYTE, 0, c); break;
    case OP_REDUCE: MPI_Reduce(sbuf, rbuf, dbl, MPI_DOUBLE, MPI_SUM, 0, c); break;
    case OP_ALLREDUCE: MPI_Allreduce(sbuf, rbuf, dbl, MPI_DOUBLE, MPI_SUM, c); break;
    case OP_GATHER: MPI_Gather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, 0, c); break;
    case OP_SCATTER: MPI_Scatter(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, 0, c); break;
    case OP_ALLGATHER: MPI_Allgather(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, c); break;
    case OP_ALLTOALL: MPI_Alltoall(sbuf, cnt, MPI_BYTE, rbuf, cnt, MPI_BYTE, c); break;
    case OP_GATHERV: MPI_Gatherv(sbuf, cnt, MPI_BYTE, rbuf, v_counts, v_displs, MPI_BYTE, 0, c); break;
    case OP_SCATTERV: MPI_Scatterv(sbuf, v_counts, v_displs, MPI_BYTE, rbuf, cnt, MPI_BYTE, 0, c); break;
    case OP_ALLGATHERV: MPI_Allgatherv(sbuf, cnt, MPI_BYTE, rbuf, v_counts, v_displs, MPI_BYTE, c); break;
    case OP_ALLTOALLV: MPI_Alltoallv(sbuf, v_counts, v_displs, MPI_BYTE, rbuf, v_counts, v_displs, MPI_BYTE, c); break;
    default: break;
    }
}

/* Every rank's count `cnt` at displacement i·cnt, for the `g` ranks of a group. */
static void set_v_counts(int g, long cnt) {
    for (int i = 0; i < g; i++) {
        v_counts[i] = (int)cnt;
        v_displs[i] = (int)(cnt * i);
    }
}

static void bench_coll(MPI_Comm c, int g, const list_t *sizes, int reps, double cap) {
    int me;
    MPI_Comm_rank(c, &me);
    for (int op = 0; op < N_OPS; op++) {
        if (!op_on[op]) continue;
        int nsz = op == OP_BARRIER ? 1 : sizes->n;
        for (int si = 0; si < nsz; si++) {
            long b = op == OP_BARRIER ? 0 : sizes->v[si];
            set_v_counts(g, b);
            /* reduce/allreduce move whole doubles: report the bytes really reduced */
            if ((op == OP_REDUCE || op == OP_ALLREDUCE) && b < 8) b = 8;
            if (op == OP_REDUCE || op == OP_ALLREDUCE) b = b / 8 * 8;
            int n = reps_for(b, reps), done = 0, calls = bytes_trips(b);
            double spent = 0;
            for (int i = -WARMUP; i < n; i++) {
                MPI_Barrier(c);
                double t0 = MPI_Wtime();
                for (int k = 0; k < calls; k++) run_op(op, b, c);
                double dt = (MPI_Wtime() - t0) / calls, worst = 0;
                MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, c);
                if (i < 0) continue;
                times_buf[done++] = worst;
                spent += worst;
                if (done >= 3 && spent > cap) break;
            }
            if (me == 0) emit("coll", op_names[op], g, b, times_buf, done);
        }
    }
}

/* Allocates sbuf and rbuf of `n` bytes each (sbuf set, rbuf cleared); 0 when out of memory.
 * SMPI runs every rank in one process: at 256 ranks the collectives' buffers (the largest size
 * times the largest group, each rank its own) no longer fit in memory (smpirun killed, exit
 * 137), so under SMPI `shared` ones are one buffer for all ranks: their contents are garbage and
 * their timing what the simulated network charges. The point-to-point pair keeps buffers of its
 * own (its streams time the writes and reads of real data). */
static int alloc_buffers(size_t n, int shared) {
#ifdef SMPI_H
    if (shared) {
        sbuf = SMPI_SHARED_MALLOC(n);
        rbuf = SMPI_SHARED_MALLOC(n);
    } else
#endif
    {
        (void)shared;
        sbuf = malloc(n);
        rbuf = malloc(n);
    }
    if (!sbuf || !rbuf) return 0;
    memset(sbuf, 1, n);
    memset(rbuf, 0, n);
    return 1;
}

static void free_buffers(int shared) {
#ifdef SMPI_H
    if (shared) {
        SMPI_SHARED_FREE(sbuf);
        SMPI_SHARED_FREE(rbuf);
        return;
    }
#endif
    (void)shared;
    free(sbuf);
    free(rbuf);
}

/* -O: a comma list of collective names; only those run. 1 on an unknown name. */
static int parse_ops(const char *v) {
    for (int op = 0; op < N_OPS; op++) op_on[op] = 0;
    while (*v) {
        size_t n = strcspn(v, ",");
        int found = 0;
        for (int op = 0; op < N_OPS; op++)
            if (strlen(op_names[op]) == n && !strncmp(v, op_names[op], n)) op_on[op] = found = 1;
        if (!found) return 1;
        v += n;
        if (*v == ',') v++;
    }
    return 0;
}

static void usage_exit(int rank, const char *msg) {
    if (rank == 0) fprintf(stderr, "augur_bench: %s\nusage: augur_bench -o FILE [-s SIZES] [-c SIZES] [-g GROUPS] [-r REPS] [-t SECONDS] [-m all|pt2pt|coll|nb|noise] [-O OPS]\n", msg);
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);

    const char *out = NULL;
    list_t p2p, coll, groups, one;
    parse_list("1,4,16,64,256,1024,4096,16384,65536,262144,1048576,4194304", &p2p, 1, 1L << 30);
    parse_list("8,64,512,4096,32768,262144", &coll, 1, 1L << 30);
    groups.n = 0;
    for (int op = 0; op < N_OPS; op++) op_on[op] = 1;
    int reps = 20, do_p2p = 1, do_coll = 1, blocking = 1, do_noise = 1;
    double cap = 1.0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) usage_exit(rank, "missing value after an option");
        const char *v = argv[++i];
        if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "-s")) { if (parse_list(v, &p2p, 1, 1L << 30)) usage_exit(rank, "bad -s list"); }
        else if (!strcmp(a, "-c")) { if (parse_list(v, &coll, 1, 1L << 30)) usage_exit(rank, "bad -c list"); }
        else if (!strcmp(a, "-g")) { if (parse_list(v, &groups, 2, np)) usage_exit(rank, "bad -g list (group sizes must be 2..np)"); }
        else if (!strcmp(a, "-r")) { if (parse_list(v, &one, 1, 100000) || one.n != 1) usage_exit(rank, "bad -r"); reps = (int)one.v[0]; }
        else if (!strcmp(a, "-m")) {
            if (!strcmp(v, "pt2pt")) do_coll = 0;
            else if (!strcmp(v, "coll")) { do_p2p = 0; do_noise = 0; }
            else if (!strcmp(v, "nb")) { do_coll = 0; blocking = 0; do_noise = 0; }
            else if (!strcmp(v, "noise")) { do_p2p = 0; do_coll = 0; }
            else if (strcmp(v, "all")) usage_exit(rank, "bad -m (all, pt2pt, coll, nb or noise)");
        }
        else if (!strcmp(a, "-t")) { char *e; cap = strtod(v, &e); if (*e || !(cap > 0)) usage_exit(rank, "bad -t"); }
        else if (!strcmp(a, "-O")) { if (parse_ops(v)) usage_exit(rank, "bad -O list (collective names: barrier, bcast, ..., alltoallv)"); }
        else usage_exit(rank, "unknown option");
    }
    if (!out) usage_exit(rank, "-o FILE is required");
    if (np < 2) usage_exit(rank, "needs at least 2 ranks");
    if (groups.n == 0) {
        for (int g = 2; g <= np && groups.n < MAX_LIST; g++) groups.v[groups.n++] = g;
    }

    long maxb = 8, maxg = 2;
    for (int i = 0; i < p2p.n; i++) if (p2p.v[i] > maxb) maxb = p2p.v[i];
    for (int i = 0; i < groups.n; i++) if (groups.v[i] > maxg) maxg = groups.v[i];
    long cbytes = 8;
    for (int i = 0; i < coll.n; i++) if (coll.v[i] > cbytes) cbytes = coll.v[i];
    times_buf = malloc(sizeof(double) * (size_t)(reps > 5 ? reps : 5));
    rewrite_buf = malloc(sizeof(double) * (size_t)(reps > 5 ? reps : 5));
    if (!times_buf || !rewrite_buf) usage_exit(rank, "out of memory");

    if (rank == 0) {
        out_file = fopen(out, "w");
        if (!out_file) fprintf(stderr, "augur_bench: cannot write %s\n", out);
    }
    int ok = out_file != NULL || rank != 0;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        MPI_Finalize();
        return 1;
    }
    if (rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0}, host[MPI_MAX_PROCESSOR_NAME] = {0};
        int len = 0;
        MPI_Get_library_version(lib, &len);
        for (char *q = lib; *q; q++) if (*q == '\n' || *q == '\r') { *q = 0; break; }
        MPI_Get_processor_name(host, &len);
        fprintf(out_file, "# augur_bench 1\n# mpi %s\n# host %s\n# np %d\n# wtick %.3e\n# reps %d\n", lib, host, np, MPI_Wtick(), reps);
#ifdef SMPI_H
        /* SMPI drops compute bursts shorter than this (simulated machines only) */
        fprintf(out_file, "# cpu_threshold %.9e\n", sg_cfg_get_double("smpi/cpu-threshold"));
#endif
        fprintf(out_file, "kind,op,p,bytes,reps,min,median,mean,stddev\n");
    }

    if (do_noise) bench_noise(rank);
    if (do_p2p) {
        MPI_Comm pair;
        MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
        /* the pair's own buffers: the largest message, NB_K of them to receive (nonblocking()) */
        if (pair != MPI_COMM_NULL && !alloc_buffers((size_t)maxb * NB_K, 0)) usage_exit(rank, "out of memory for message buffers");
        bench_pt2pt(pair, &p2p, reps, blocking);
        if (pair != MPI_COMM_NULL) {
            MPI_Comm_free(&pair);
            free_buffers(0);
        }
        idle_barrier();
    }
    /* the largest collective message times the largest group (an alltoall's), shared under
     * SMPI (alloc_buffers) */
    if (do_coll && !alloc_buffers((size_t)(cbytes * maxg), 1)) usage_exit(rank, "out of memory for message buffers");
    v_counts = malloc(sizeof(int) * (size_t)maxg);
    v_displs = malloc(sizeof(int) * (size_t)maxg);
    if (!v_counts || !v_displs) usage_exit(rank, "out of memory");

    for (int gi = 0; do_coll && gi < groups.n; gi++) {
        int g = (int)groups.v[gi];
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, rank < g ? 0 : MPI_UNDEFINED, rank, &c);
        if (c != MPI_COMM_NULL) {
            bench_coll(c, g, &coll, reps, cap);
            MPI_Comm_free(&c);
        }
        idle_barrier();
    }
    if (out_file) fclose(out_file);
    if (do_coll) free_buffers(1);
    free(times_buf);
    free(rewrite_buf);
    free(v_counts);
    free(v_displs);
    MPI_Finalize();
    return 0;
}
