/* augur_trace.c: the augur tracer core (per-rank buffered binary event log) and its C MPI wrappers.
 *
 * Invariants:
 *  - All state lives in one `augur_state` per rank. Under Open MPI that is a process global;
 *    under SMPI all ranks share one process (and, with -no-privatize, its globals), so the state
 *    hangs off smpi_process_{get,set}_user_data(), which SMPI keeps per rank.
 *  - Events are appended to an in-memory buffer and written with one write() when it fills and at
 *    finalize: no syscall per event. Loop/branch/call markers only update per-site counters.
 *  - The runtime never aborts the program: if the trace file cannot be written it warns once on
 *    stderr and stops recording.
 * Format: docs/trace-format.md (mirrored by trace/src/format.rs).
 */
#include "augur.h"
#include "augur_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#if AUGUR_SMPI
#include <simgrid/engine.h> /* simgrid_get_clock */
#include <xbt/config.h>     /* sg_cfg_get_double, sg_cfg_get_boolean, sg_cfg_get_int */
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "augur trace files are little-endian; this runtime writes native byte order"
#endif

#define AUGUR_VERSION 1
#define HEADER_LEN 64
#define REC_MPI 1
#define REC_PART 2
#define REC_PHASE 3
#define REC_PHASE_RUN 4
#define REC_AGG 16
#define REC_TRAILER 127
#define LEN_MPI 72
#define LEN_PART 32
#define LEN_PHASE 48
#define LEN_PHASE_RUN 56
#define LEN_AGG 48
#define LEN_TRAILER 40
#define AGG_LOOP 1
#define AGG_BRANCH 2
#define AGG_CALL 3
#define AGG_TEST_PENDING 4
#define BUF_INIT (1u << 16) /* grows to BUF_CAP: SMPI runs hold one buffer per rank in one process */
#define BUF_CAP (1u << 20)
#define PHASE_STACK 256
#define CALL_STACK 1024

typedef struct {
  uint32_t site;
  int32_t arm;
  uint8_t kind, used;
  uint64_t count, sum, min, max;
} agg_slot;

typedef struct {
  uint64_t key; /* request handle bits; 0 = empty slot */
  augur_req r;
} req_slot;

typedef struct {
  uint32_t site;
  int cpu_read; /* the entry's start read the thread-CPU clock (see "phase clocks") */
  uint64_t mono, cpu;
  double wtime;
} phase_frame;

#define BRIEF_SITES 4096 /* sites hashed into the brief-phase table (a collision only costs clock reads) */

typedef struct {
  uint32_t site;
  uint64_t mono;
} call_frame;

typedef struct {
  int rank, size, live, done, broken, fd, fortran, keyval, time_calls;
  unsigned char *buf;
  size_t len, cap;
  uint64_t n_events, next_req, anomalies;
  agg_slot *agg;
  size_t agg_cap, agg_len;
  req_slot *req;
  size_t req_cap, req_len;
  /* pending requests whose handle may be live more than once (see "requests"), in posting
   * order: queue[q_head..q_len); the handle values known to be shared */
  req_slot *queue;
  size_t q_cap, q_head, q_len;
  uint64_t shared[8];
  int n_shared;
  phase_frame phases[PHASE_STACK];
  int n_phases;
  call_frame calls[CALL_STACK];
  int n_calls;
  /* SMPI bench control: nesting depth of AUGUR_ENTRY, whether this rank stopped SMPI's bench,
   * the monotonic time and simulated clock when it last restarted it (0: unknown), and the accounting
   * described at augur_hold(). */
  int holds, stopped, bench_cfg, simulate, detach_thresh;
  uint64_t resume_mono;
  double threshold, interval, pend, owed, resume_clock;
  /* SMPI: the monotonic time a piece gains from the markers around it (see "SMPI bench"),
   * measured once; calibrating: the pieces being measured are not charged. */
  int calibrated, calibrating;
  double piece_cost, last_piece;
  /* Phase clocks: the brief-phase table, the last (monotonic, thread-CPU) reading pair, and the
   * cost of one read of each clock, measured once (see "phase clocks"). */
  unsigned char brief[BRIEF_SITES];
  /* Run-length phase records (see "phase runs"): entries seen per site (saturating), the open
   * run's offset in the buffer, and what must not have changed since it was written. */
  unsigned char seen[BRIEF_SITES];
  int run_open;
  size_t run_off;
  uint64_t run_events, run_flushes;
  uint32_t run_site;
  uint16_t run_depth;
  uint64_t flushes;
  int clocks_cal;
  uint64_t ck_mono, ck_cpu, mono_zero, cpu_zero;
  /* Natively: one (monotonic, MPI_Wtime) pair read as the rank goes live (see stamp_phase). */
  uint64_t wt_mono0;
  double wt0;
} augur_state;

/* ---------------------------------------------------------------- state and clocks */

static augur_state *state_new(void) {
  augur_state *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->fd = -1;
  s->rank = -1;
  s->keyval = MPI_KEYVAL_INVALID;
  s->next_req = 1;
  /* Call timing costs two clock reads per call (~90 ns each on a VM): opt-in. */
  const char *tc = getenv("AUGUR_CALL_TIMES");
  s->time_calls = tc && *tc && *tc != '0';
  s->buf = malloc(BUF_INIT);
  s->cap = s->buf ? BUF_INIT : 0;
  if (!s->buf) s->broken = 1;
  return s;
}

#if AUGUR_SMPI
static augur_state *st(void) {
  augur_state *s = smpi_process_get_user_data();
  if (!s) {
    s = state_new();
    smpi_process_set_user_data(s);
  }
  return s;
}
#else
static augur_state *g_state;
static augur_state *st(void) {
  if (!g_state) g_state = state_new();
  return g_state;
}
#endif

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  if (clock_gettime(id, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ensure_live(augur_state *s);

/* MPI_Wtime under SMPI ends and restarts the bench itself (and sleeps smpi/wtime, 10 ns): with
 * the bench stopped by augur_hold() that would charge the interval twice, so the simulated clock
 * is read directly; it is the value MPI_Wtime would return. */
static double sim_clock(augur_state *s) {
#if AUGUR_SMPI
  if (s->stopped) return simgrid_get_clock();
#endif
  (void)s;
  return MPI_Wtime();
}

static augur_stamp stamp_of(augur_state *s) {
  augur_stamp t;
  if (s && !s->live) ensure_live(s);
  t.mono_ns = clock_ns(CLOCK_MONOTONIC);
  t.wtime = (s && s->live && !s->done) ? sim_clock(s) : NAN;
  return t;
}

/* A phase marker's stamp. Natively MPI_Wtime is the monotonic clock from an origin (Open MPI,
 * MPICH): the stamp derives it from the monotonic read and the pair read as the rank went live,
 * which saves a clock read at every entry and exit of a phase (a routine called once per point
 * enters its phase millions of times). Under SMPI the simulated clock is its own. */
static augur_stamp stamp_phase(augur_state *s) {
#if !AUGUR_SMPI
  if (s->live && !s->done && s->wt_mono0) {
    augur_stamp t;
    t.mono_ns = clock_ns(CLOCK_MONOTONIC);
    t.wtime = s->wt0 + (double)(int64_t)(t.mono_ns - s->wt_mono0) * 1e-9;
    return t;
  }
#endif
  return stamp_of(s);
}

/* ---------------------------------------------------------------- SMPI bench
 *
 * SMPI (3.32, smpi_bench.cpp) keeps one thread-CPU timer per rank: smpi_bench_begin() starts it,
 * smpi_bench_end() stops it and charges elapsed = stop - last start to simulated time, unless
 * the burst is shorter than smpi/cpu-threshold (default 1 us), which is dropped. Every MPI
 * function ends the bench on entry and begins it on exit. The tracer's work therefore runs
 * inside augur_hold()/augur_release() and never calls MPI_Wtime or another benching function
 * there (a second end without a begin would charge the interval twice).
 *
 * Each thread-CPU read is a syscall (~500 ns on the test VM) and SMPI's timer takes one at both
 * ends of its window, so ending the bench at every marker would itself be charged. A hold
 * therefore first times the program's piece since the last release with the monotonic clock
 * (vDSO, ~40 ns). A short piece (< SHORT_PIECE) is not handed to SMPI: its timer is left
 * running and the release restarts it, which discards it together with the tracer's work, and
 * the runtime charges the piece itself through smpi_execute(). A long piece, or one whose start
 * is unknown or during which the simulated clock moved (an unwrapped MPI call of the program
 * restarted SMPI's timer), goes through smpi_bench_end(): SMPI measures it in thread CPU time,
 * which stays right when the host preempts the process.
 *
 * Cutting the program's compute at markers must not change what is charged: SMPI drops each
 * burst below the threshold, while the uninstrumented program would have charged the whole
 * interval between two MPI calls. Pieces nobody charged are kept in `pend`; once the interval
 * since the last MPI call reaches the threshold they are owed and charged as soon as they add
 * up to it; an interval still below it at the next MPI call is forgotten, as SMPI forgets it
 * without the tracer. Bench calls happen only between MPI_Init and the tracer's finalize:
 * before MPI_Init SMPI's timer was never started. */
#if AUGUR_SMPI
#define SHORT_PIECE 20e-6

static void bench_config(augur_state *s) {
  if (s->bench_cfg) return;
  s->bench_cfg = 1;
  s->threshold = sg_cfg_get_double("smpi/cpu-threshold");
  s->simulate = sg_cfg_get_boolean("smpi/simulate-computation");
  s->detach_thresh = sg_cfg_get_int("smpi/send-is-detached-thresh");
}

/* Adds one piece of the current interval; `charged`: SMPI already charged it. */
static void account(augur_state *s, double piece, int charged) {
  s->interval += piece;
  if (!charged) s->pend += piece;
  if (s->interval >= s->threshold) {
    s->owed += s->pend;
    s->pend = 0;
  }
  if (s->owed > 0 && s->owed >= s->threshold) {
    smpi_execute(s->owed); /* same duration -> flops conversion and threshold as SMPI's own */
    s->owed = 0;
  }
}

static void bench_stop(augur_state *s) {
  uint64_t now = clock_ns(CLOCK_MONOTONIC);
  double clk = simgrid_get_clock();
  bench_config(s);
  int known = s->resume_mono != 0 && now >= s->resume_mono && clk == s->resume_clock;
  double piece = known ? (double)(now - s->resume_mono) * 1e-9 : 0;
  s->stopped = 1;
  if (s->calibrating) { /* SMPI's timer left running: the release discards it */
    s->last_piece = known ? piece : -1;
    return;
  }
  if (known && piece < SHORT_PIECE) {
    /* less the markers' own share of the piece: the program between two markers ran less */
    if (s->simulate) account(s, piece > s->piece_cost ? piece - s->piece_cost : 0, 0);
    return;
  }
  smpi_bench_end();
  if (known && s->simulate) account(s, piece, simgrid_get_clock() > clk);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A short piece between two markers holds, besides the program's work, the end of one marker
 * after its monotonic read (the release's return) and the start of the next before its read
 * (call, state lookup): ~30-50 ns, which a routine called once per point pays several times per
 * call (trial 19's k-means ran 4x longer instrumented). Measured once, with the bench stopped, as
 * the mean of undisturbed empty pieces, and taken off every short piece charged. */
#define CAL_PIECES 256
/* What a marker runs in the program's piece: its call, entry and state lookup, and on leaving
 * the release's return. */
static __attribute__((noinline)) void empty_marker(void) {
  AUGUR_ENTRY;
  augur_state *s = st();
  __asm__ volatile("" : : "r"(s) : "memory");
}

static void calibrate_pieces(augur_state *s) {
  double p[CAL_PIECES];
  int n = 0;
  s->calibrated = 1;
  s->calibrating = 1;
  augur_release(); /* held since the caller's hold: pieces run from one marker to the next */
  for (int i = 0; i <= CAL_PIECES; i++) {
    empty_marker();
    if (i > 0 && s->last_piece >= 0) p[n++] = s->last_piece; /* the first starts at the release */
  }
  augur_hold();
  s->calibrating = 0;
  if (n == 0) return;
  qsort(p, (size_t)n, sizeof p[0], cmp_double);
  /* the clock ticks in ~10 ns steps here: the mean of the undisturbed pieces (up to twice the
   * median; an interrupt takes microseconds), not one quantized order statistic */
  double sum = 0;
  int m = 0;
  for (int i = 0; i < n && p[i] <= 2 * p[n / 2]; i++, m++) sum += p[i];
  s->piece_cost = sum / m;
}

void augur_hold(void) {
  augur_state *s = st();
  if (!s || s->holds++ > 0 || s->done) return;
  int init = s->live;
  if (!init && (MPI_Initialized(&init) != MPI_SUCCESS || !init)) return;
  bench_stop(s);
  if (!s->calibrated && s->stopped) calibrate_pieces(s);
}

void augur_release(void) {
  augur_state *s = st();
  if (!s || s->holds <= 0 || --s->holds > 0 || !s->stopped) return;
  s->stopped = 0;
  smpi_bench_begin();
  s->resume_clock = simgrid_get_clock();
  s->resume_mono = clock_ns(CLOCK_MONOTONIC);
}

/* The MPI call ends SMPI's compute interval: one still below the threshold is dropped whole. */
void augur_release_for_call(void) {
  augur_state *s = st();
  if (s) {
    s->interval = 0;
    s->pend = 0;
  }
  augur_release();
}

/* SMPI restarted its timer as the call returned; what ran since is the call's exit path. */
void augur_hold_after_call(void) {
  augur_state *s = st();
  if (s) {
    s->resume_clock = simgrid_get_clock();
    s->resume_mono = clock_ns(CLOCK_MONOTONIC);
  }
  augur_hold();
}
#endif

augur_stamp augur_now(void) { return stamp_of(st()); }

/* ---------------------------------------------------------------- output buffer */

static void warn_broken(augur_state *s, const char *what, const char *path) {
  if (s->broken) return;
  s->broken = 1;
  fprintf(stderr, "augur: tracing disabled on rank %d: %s %s: %s\n", s->rank, what, path, strerror(errno));
}

static void flush_buf(augur_state *s) {
  if (s->fd < 0 || s->broken) return;
  s->flushes++; /* records written before are no longer in the buffer */
  size_t off = 0;
  while (off < s->len) {
    ssize_t n = write(s->fd, s->buf + off, s->len - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      warn_broken(s, "cannot write", "trace file");
      break;
    }
    off += (size_t)n;
  }
  s->len = 0;
}

/* Returns space for `n` bytes at the end of the buffer, or NULL when recording is off. Before
 * init there is no file yet, so the buffer grows instead of flushing. */
static unsigned char *reserve(augur_state *s, size_t n) {
  if (!s || s->broken || s->done) return NULL;
  if (s->len + n > s->cap) {
    if (s->fd >= 0 && s->cap >= BUF_CAP) flush_buf(s);
    if (s->len + n > s->cap) {
      size_t cap = s->cap * 2 + n;
      unsigned char *b = realloc(s->buf, cap);
      if (!b) {
        s->broken = 1;
        return NULL;
      }
      s->buf = b;
      s->cap = cap;
    }
  }
  unsigned char *p = s->buf + s->len;
  memset(p, 0, n);
  s->len += n;
  return p;
}

#define PUT(p, off, v)                      \
  do {                                      \
    __typeof__(v) put_tmp_ = (v);           \
    memcpy((p) + (off), &put_tmp_, sizeof put_tmp_); \
  } while (0)

/* ---------------------------------------------------------------- aggregates */

static size_t agg_hash(uint8_t kind, uint32_t site, int32_t arm) {
  uint64_t h = ((uint64_t)site << 32) ^ (uint32_t)arm ^ ((uint64_t)kind << 59);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return (size_t)h;
}

static agg_slot *agg_get(augur_state *s, uint8_t kind, uint32_t site, int32_t arm) {
  if (!s || s->broken) return NULL;
  if (2 * (s->agg_len + 1) > s->agg_cap) {
    size_t cap = s->agg_cap ? 2 * s->agg_cap : 256;
    agg_slot *t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < s->agg_cap; i++) {
      agg_slot *o = &s->agg[i];
      if (!o->used) continue;
      size_t j = agg_hash(o->kind, o->site, o->arm) & (cap - 1);
      while (t[j].used) j = (j + 1) & (cap - 1);
      t[j] = *o;
    }
    free(s->agg);
    s->agg = t;
    s->agg_cap = cap;
  }
  size_t j = agg_hash(kind, site, arm) & (s->agg_cap - 1);
  for (;;) {
    agg_slot *a = &s->agg[j];
    if (!a->used) {
      a->used = 1;
      a->kind = kind;
      a->site = site;
      a->arm = arm;
      a->min = UINT64_MAX;
      s->agg_len++;
      return a;
    }
    if (a->kind == kind && a->site == site && a->arm == arm) return a;
    j = (j + 1) & (s->agg_cap - 1);
  }
}

static void agg_add(augur_state *s, uint8_t kind, uint32_t site, int32_t arm, uint64_t v) {
  agg_slot *a = agg_get(s, kind, site, arm);
  if (!a) return;
  a->count++;
  a->sum += v;
  if (v < a->min) a->min = v;
  if (v > a->max) a->max = v;
}

/* ---------------------------------------------------------------- markers */

void augur_loop_enter(int site) { (void)site; }

void augur_loop_exit(int site, long long iterations) {
  augur_state *s = st();
  if (s && !s->done) agg_add(s, AGG_LOOP, (uint32_t)site, 0, iterations < 0 ? 0 : (uint64_t)iterations);
}

void augur_loop_exits(int site, long long count, long long sum, long long min, long long max) {
  augur_state *s = st();
  if (count <= 0 || !s || s->done) return;
  agg_slot *a = agg_get(s, AGG_LOOP, (uint32_t)site, 0);
  if (!a) return;
  uint64_t lo = min < 0 ? 0 : (uint64_t)min, hi = max < 0 ? 0 : (uint64_t)max;
  a->count += (uint64_t)count;
  a->sum += (uint64_t)sum;
  if (lo < a->min) a->min = lo;
  if (hi > a->max) a->max = hi;
}

void augur_branch(int site, int arm) {
  augur_state *s = st();
  if (s && !s->done) agg_add(s, AGG_BRANCH, (uint32_t)site, arm, 1);
}

void augur_branches(int site, int arm, long long count) {
  augur_state *s = st();
  if (count <= 0 || !s || s->done) return;
  agg_slot *a = agg_get(s, AGG_BRANCH, (uint32_t)site, arm);
  if (!a) return;
  /* what `count` calls of agg_add(..., 1) record */
  a->count += (uint64_t)count;
  a->sum += (uint64_t)count;
  if (a->min > 1) a->min = 1;
  if (a->max < 1) a->max = 1;
}

void augur_call_enter(int site) {
  augur_state *s = st();
  if (!s || s->done) return;
  if (s->n_calls >= CALL_STACK) {
    s->n_calls++; /* depth still tracked so exits stay paired; the frame is not timed */
    s->anomalies++;
    return;
  }
  s->calls[s->n_calls].site = (uint32_t)site;
  s->calls[s->n_calls].mono = s->time_calls ? clock_ns(CLOCK_MONOTONIC) : 0;
  s->n_calls++;
}

void augur_call_exit(int site) {
  augur_state *s = st();
  if (!s || s->done) return;
  if (s->n_calls <= 0) {
    s->anomalies++;
    return;
  }
  s->n_calls--;
  if (s->n_calls >= CALL_STACK) return;
  call_frame *f = &s->calls[s->n_calls];
  if (f->site != (uint32_t)site) s->anomalies++;
  agg_add(s, AGG_CALL, f->site, 0, s->time_calls ? clock_ns(CLOCK_MONOTONIC) - f->mono : 0);
}

/* `count` calls of `site` at once: what `count` augur_call_enter/augur_call_exit pairs record
 * with AUGUR_CALL_TIMES off (count += count, sum += 0, min = 0), whatever AUGUR_CALL_TIMES says;
 * nothing when count is 0 (no slot). */
void augur_calls(int site, long long count) {
  augur_state *s = st();
  if (count <= 0 || !s || s->done) return;
  agg_slot *a = agg_get(s, AGG_CALL, (uint32_t)site, 0);
  if (!a) return;
  a->count += (uint64_t)count;
  if (a->min > 0) a->min = 0;
}

/* ---------------------------------------------------------------- phase clocks
 *
 * A phase's cost natively is its thread-CPU time, right when ranks are oversubscribed and the
 * host preempts them. But a thread-CPU read is a syscall (~650 ns on the test VM): two per entry
 * made a routine called once per point (trial 19's k-means, ~200 ns per call) run 16x longer
 * instrumented. So a site whose last entry was brief (< BRIEF_NS) is timed with the monotonic
 * clock (vDSO, ~25 ns): an entry that stays under TRUST_NS is its monotonic time (a preemption
 * inside it would have taken longer); a longer one reads the thread-CPU clock at its end and
 * takes off the time the thread did not run since the last pair of readings (`ck_*`), which a
 * brief entry's start renews when it is older than CHECK_NS: the time lost lies in the entry
 * when the entry is what grew. Every other entry reads the thread-CPU clock at both ends. One
 * read of each clock, measured once (mean of undisturbed back-to-back reads), is taken off each
 * entry: the part of the two reads that falls inside the phase. */
#define BRIEF_NS 10000u
#define RUN_SINGLE 8
#define TRUST_NS 20000u
#define CHECK_NS 100000u
#define CAL_READS 256

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static uint64_t read_cost(clockid_t id) {
  uint64_t d[CAL_READS];
  uint64_t prev = clock_ns(id);
  for (int i = 0; i < CAL_READS; i++) {
    uint64_t now = clock_ns(id);
    d[i] = now >= prev ? now - prev : 0;
    prev = now;
  }
  qsort(d, CAL_READS, sizeof d[0], cmp_u64);
  /* as calibrate_pieces: the mean of the undisturbed reads, not one quantized order statistic */
  uint64_t sum = 0, m = 0;
  for (int i = 0; i < CAL_READS && d[i] <= 2 * d[CAL_READS / 2]; i++, m++) sum += d[i];
  return m ? sum / m : 0;
}

static void checkpoint(augur_state *s, uint64_t mono, uint64_t cpu) {
  s->ck_mono = mono;
  s->ck_cpu = cpu;
}

void augur_phase_begin(int site) {
  AUGUR_ENTRY;
  augur_state *s = st();
  if (!s || s->done) return;
  if (!s->clocks_cal) {
    s->clocks_cal = 1;
    s->mono_zero = read_cost(CLOCK_MONOTONIC);
    s->cpu_zero = read_cost(CLOCK_THREAD_CPUTIME_ID);
  }
  if (s->n_phases >= PHASE_STACK) {
    s->n_phases++;
    s->anomalies++;
    return;
  }
  phase_frame *f = &s->phases[s->n_phases++];
  f->site = (uint32_t)site;
  f->cpu_read = !s->brief[(uint32_t)site % BRIEF_SITES];
  augur_stamp t = stamp_phase(s);
  f->wtime = t.wtime;
  f->mono = t.mono_ns;
  f->cpu = 0;
  if (f->cpu_read) {
    f->cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID); /* last: excludes the runtime's own work above */
    checkpoint(s, t.mono_ns, f->cpu);
  } else if (t.mono_ns - s->ck_mono > CHECK_NS) {
    checkpoint(s, t.mono_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID));
    f->mono = clock_ns(CLOCK_MONOTONIC); /* after the read, as a timed entry's start */
  }
}

void augur_phase_end(int site) {
  AUGUR_ENTRY;
  augur_state *s = st();
  if (!s || s->done) return;
  phase_frame *top = s->n_phases > 0 && s->n_phases <= PHASE_STACK ? &s->phases[s->n_phases - 1] : NULL;
  /* first: symmetric with phase_begin */
  uint64_t cpu = top && top->cpu_read ? clock_ns(CLOCK_THREAD_CPUTIME_ID) : 0;
  augur_stamp t = stamp_phase(s);
  if (s->n_phases <= 0) {
    s->anomalies++;
    return;
  }
  s->n_phases--;
  if (s->n_phases >= PHASE_STACK) return;
  phase_frame *f = &s->phases[s->n_phases];
  if (f->site != (uint32_t)site) s->anomalies++;
  uint64_t cost;
  if (f->cpu_read) {
    cost = cpu >= f->cpu + s->cpu_zero ? cpu - f->cpu - s->cpu_zero : 0;
    checkpoint(s, t.mono_ns, cpu);
  } else {
    uint64_t d = t.mono_ns >= f->mono + s->mono_zero ? t.mono_ns - f->mono - s->mono_zero : 0;
    cost = d;
    if (d >= TRUST_NS) {
      uint64_t now_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
      uint64_t wall = t.mono_ns - s->ck_mono, ran = now_cpu - s->ck_cpu;
      uint64_t lost = wall > ran ? wall - ran : 0;
      cost = d > lost ? d - lost : 0;
      checkpoint(s, t.mono_ns, now_cpu);
    }
  }
  uint32_t idx = f->site % BRIEF_SITES;
  int brief = cost < BRIEF_NS;
  s->brief[idx] = (unsigned char)brief;
  /* phase runs: a brief entry of the site whose run was the last record written, nothing
   * recorded since (no MPI call, no other phase), joins that run: one record for the entries a
   * routine called once per point or row runs back to back (trial 21's CG: 48 bytes per row,
   * 3.8 GB per rank). A site's first RUN_SINGLE entries are records of their own (a cold first
   * entry stays apart). */
  if (brief && s->run_open && s->run_site == f->site && s->run_depth == (uint16_t)s->n_phases &&
      s->run_events == s->n_events && s->run_flushes == s->flushes && s->run_off + LEN_PHASE_RUN <= s->len) {
    unsigned char *r = s->buf + s->run_off;
    uint64_t sum;
    uint32_t count;
    memcpy(&sum, r + 24, sizeof sum);
    memcpy(&count, r + 48, sizeof count);
    PUT(r, 16, t.mono_ns);
    PUT(r, 24, sum + cost);
    PUT(r, 40, t.wtime);
    PUT(r, 48, count + 1);
    return;
  }
  int run = brief && s->seen[idx] >= RUN_SINGLE;
  if (s->seen[idx] < 255) s->seen[idx]++;
  unsigned char *p = reserve(s, run ? LEN_PHASE_RUN : LEN_PHASE);
  if (!p) return;
  p[0] = run ? REC_PHASE_RUN : REC_PHASE;
  PUT(p, 2, (uint16_t)s->n_phases);
  PUT(p, 4, f->site);
  PUT(p, 8, f->mono);
  PUT(p, 16, t.mono_ns);
  PUT(p, 24, cost);
  PUT(p, 32, f->wtime);
  PUT(p, 40, t.wtime);
  if (run) PUT(p, 48, (uint32_t)1);
  s->n_events++;
  s->run_open = run;
  if (run) {
    s->run_off = (size_t)(p - s->buf);
    s->run_events = s->n_events;
    s->run_flushes = s->flushes;
    s->run_site = f->site;
    s->run_depth = (uint16_t)s->n_phases;
  }
}

void augur_count_test_pending(int site) {
  augur_state *s = st();
  if (s && !s->done) agg_add(s, AGG_TEST_PENDING, (uint32_t)site, 0, 1);
}

/* ---------------------------------------------------------------- MPI records */

void augur_emit_mpi(const augur_mpi_rec *r) {
  augur_state *s = st();
  unsigned char *p = reserve(s, LEN_MPI);
  if (!p) return;
  p[0] = REC_MPI;
  p[1] = r->op;
  PUT(p, 2, r->flags);
  PUT(p, 4, r->site);
  PUT(p, 8, r->peer);
  PUT(p, 12, r->tag);
  PUT(p, 16, r->bytes);
  PUT(p, 24, r->comm_size);
  PUT(p, 28, r->nparts);
  PUT(p, 32, r->req_id);
  PUT(p, 40, r->t0.mono_ns);
  PUT(p, 48, r->t1.mono_ns);
  PUT(p, 56, r->t0.wtime);
  PUT(p, 64, r->t1.wtime);
  s->n_events++;
}

void augur_emit_part(uint8_t op, uint32_t site, int32_t peer, int32_t tag, int64_t bytes, uint64_t req_id) {
  augur_state *s = st();
  unsigned char *p = reserve(s, LEN_PART);
  if (!p) return;
  p[0] = REC_PART;
  p[1] = op;
  PUT(p, 2, (uint16_t)AUGUR_F_ACTUAL);
  PUT(p, 4, site);
  PUT(p, 8, peer);
  PUT(p, 12, tag);
  PUT(p, 16, bytes);
  PUT(p, 24, req_id);
  s->n_events++;
}

/* ---------------------------------------------------------------- communicators */

typedef struct {
  int size;
  int32_t world[];
} comm_map;

static int comm_map_delete(MPI_Comm comm, int keyval, void *attr, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  free(attr);
  return MPI_SUCCESS;
}

static comm_map *comm_map_build(MPI_Comm comm) {
  int n = 0, inter = 0;
  if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return NULL;
  if (MPI_Comm_size(comm, &n) != MPI_SUCCESS || n <= 0) return NULL;
  comm_map *m = malloc(sizeof *m + (size_t)n * sizeof(int32_t));
  int *ranks = malloc((size_t)n * sizeof(int));
  int *out = malloc((size_t)n * sizeof(int));
  MPI_Group g = MPI_GROUP_NULL, wg = MPI_GROUP_NULL;
  int ok = m && ranks && out && MPI_Comm_group(comm, &g) == MPI_SUCCESS &&
           MPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS;
  if (ok) {
    for (int i = 0; i < n; i++) ranks[i] = i;
    ok = MPI_Group_translate_ranks(g, n, ranks, wg, out) == MPI_SUCCESS;
  }
  if (ok) {
    m->size = n;
    for (int i = 0; i < n; i++) m->world[i] = out[i] == MPI_UNDEFINED ? AUGUR_PEER_UNKNOWN : out[i];
  }
  if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
  if (wg != MPI_GROUP_NULL) MPI_Group_free(&wg);
  free(ranks);
  free(out);
  if (!ok) {
    free(m);
    return NULL;
  }
  return m;
}

int32_t augur_world_peer(MPI_Comm comm, int rank) {
  if (rank == MPI_PROC_NULL) return AUGUR_PEER_PROC_NULL;
  if (rank == MPI_ANY_SOURCE) return AUGUR_PEER_ANY;
  if (rank < 0) return AUGUR_PEER_UNKNOWN;
  if (comm == MPI_COMM_WORLD) return rank;
  augur_state *s = st();
  if (!s || !s->live || s->done) return AUGUR_PEER_UNKNOWN;
  /* The translation is cached as an attribute of the communicator, so MPI frees it together
   * with the communicator and a recycled handle can never hit a stale map. */
  if (s->keyval == MPI_KEYVAL_INVALID &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_map_delete, &s->keyval, NULL) != MPI_SUCCESS)
    s->keyval = MPI_KEYVAL_INVALID;
  comm_map *m = NULL;
  int found = 0;
  if (s->keyval != MPI_KEYVAL_INVALID) MPI_Comm_get_attr(comm, s->keyval, &m, &found);
  if (!found || !m) {
    m = comm_map_build(comm);
    if (!m) return AUGUR_PEER_UNKNOWN;
    if (s->keyval == MPI_KEYVAL_INVALID || MPI_Comm_set_attr(comm, s->keyval, m) != MPI_SUCCESS) {
      int32_t w = rank < m->size ? m->world[rank] : AUGUR_PEER_UNKNOWN;
      free(m);
      return w;
    }
  }
  return rank < m->size ? m->world[rank] : AUGUR_PEER_UNKNOWN;
}

int32_t augur_tag(int tag) { return tag == MPI_ANY_TAG ? AUGUR_TAG_ANY : tag; }

int32_t augur_comm_size(MPI_Comm comm) {
  int n = 0;
  if (MPI_Comm_size(comm, &n) != MPI_SUCCESS) return -1;
  return n;
}

int64_t augur_type_bytes(int count, MPI_Datatype dt) {
  int sz = 0;
  if (MPI_Type_size(dt, &sz) != MPI_SUCCESS) return -1;
  return (int64_t)count * sz;
}

/* ---------------------------------------------------------------- requests */

static uint64_t handle_key(MPI_Request h) {
  uint64_t k = 0;
  memcpy(&k, &h, sizeof h < sizeof k ? sizeof h : sizeof k);
  return k;
}

static size_t req_hash(uint64_t k) {
  k ^= k >> 31;
  k *= 0x9e3779b97f4a7c15ULL;
  return (size_t)(k ^ (k >> 29));
}

/* The slot of `key` (or the empty slot where it would go), growing the table first when
 * `grow`; NULL when there is no table or it cannot grow. */
static req_slot *req_slot_of(augur_state *s, uint64_t key, int grow) {
  if (grow && 2 * (s->req_len + 1) > s->req_cap) {
    size_t cap = s->req_cap ? 2 * s->req_cap : 64;
    req_slot *t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (size_t i = 0; i < s->req_cap; i++) {
      if (!s->req[i].key) continue;
      size_t j = req_hash(s->req[i].key) & (cap - 1);
      while (t[j].key) j = (j + 1) & (cap - 1);
      t[j] = s->req[i];
    }
    free(s->req);
    s->req = t;
    s->req_cap = cap;
  }
  if (!s->req_cap) return NULL;
  size_t mask = s->req_cap - 1, j = req_hash(key) & mask;
  while (s->req[j].key && s->req[j].key != key) j = (j + 1) & mask;
  return &s->req[j];
}

/* Removes the entry in slot `e` (backward-shift deletion keeps probe chains intact without
 * tombstones). */
static void req_remove(augur_state *s, req_slot *e) {
  size_t mask = s->req_cap - 1, hole = (size_t)(e - s->req);
  for (size_t k = (hole + 1) & mask; s->req[k].key; k = (k + 1) & mask) {
    size_t home = req_hash(s->req[k].key) & mask;
    if (((k - home) & mask) >= ((k - hole) & mask)) {
      s->req[hole] = s->req[k];
      hole = k;
    }
  }
  memset(&s->req[hole], 0, sizeof s->req[hole]);
  s->req_len--;
}

/* Whether a new request with this handle is recorded at all. */
static int req_recording(const augur_state *s, MPI_Request handle) {
  return s && !s->broken && !s->done && handle != MPI_REQUEST_NULL && handle_key(handle) != 0;
}

/* A new entry for `handle` in the table, or NULL when recording is off. An entry already there
 * was never completed or freed through a wrapper (shared handles never come here): it is
 * overwritten and counted. */
static augur_req *req_insert(augur_state *s, MPI_Request handle) {
  uint64_t key = handle_key(handle);
  if (!req_recording(s, handle)) return NULL;
  req_slot *e = req_slot_of(s, key, 1);
  if (!e) return NULL;
  if (!e->key) s->req_len++;
  else s->anomalies++;
  memset(e, 0, sizeof *e);
  e->key = key;
  return &e->r;
}

/* Shared handles. A request complete when posted may be given a handle the MPI library hands
 * out again while it is live: Open MPI 4.1 returns its one predefined &ompi_request_empty
 * (Fortran index 1) for every Isend/Issend/Irecv to MPI_PROC_NULL and for every Isend it
 * completed at once (a small message sent inline), so a halo's Waitall may hold that handle
 * several times. Such requests are not kept in the table but queued in posting order, and
 * completing a handle takes the oldest queued request with that value (the table first, which
 * never holds a shared value's entry once it is known). When several share a value, which one
 * a wait reports is the posting order's guess, harmless because they are interchangeable: all
 * completed when posted, so only which wait reports a send differs. Queued: every request to
 * MPI_PROC_NULL, and any request whose handle value is known to be shared: found by posting
 * two of each kind to MPI_PROC_NULL at MPI_Init (natively; SMPI's handles are all distinct),
 * or seen live twice with one of them to MPI_PROC_NULL. A handle found nowhere is still an
 * unknown request, and a real handle returned twice still an overwritten entry. */
static int is_shared(const augur_state *s, uint64_t key) {
  for (int i = 0; i < s->n_shared; i++)
    if (s->shared[i] == key) return 1;
  return 0;
}

static void add_shared(augur_state *s, uint64_t key) {
  if (key && !is_shared(s, key) && s->n_shared < (int)(sizeof s->shared / sizeof s->shared[0]))
    s->shared[s->n_shared++] = key;
}

/* The queued entry with `key` nearest the front, or NULL. */
static req_slot *queue_find(const augur_state *s, uint64_t key) {
  for (size_t i = s->q_head; i < s->q_len; i++)
    if (s->queue[i].key == key) return &s->queue[i];
  return NULL;
}

static augur_req *queue_insert(augur_state *s, MPI_Request handle) {
  if (s->q_len == s->q_cap) {
    if (s->q_head > 0) { /* reuse the taken front */
      memmove(s->queue, s->queue + s->q_head, (s->q_len - s->q_head) * sizeof *s->queue);
      s->q_len -= s->q_head;
      s->q_head = 0;
    } else {
      size_t cap = s->q_cap ? 2 * s->q_cap : 16;
      req_slot *t = realloc(s->queue, cap * sizeof *t);
      if (!t) return NULL;
      s->queue = t;
      s->q_cap = cap;
    }
  }
  req_slot *e = &s->queue[s->q_len++];
  memset(e, 0, sizeof *e);
  e->key = handle_key(handle);
  return &e->r;
}

/* Takes the oldest queued request with `handle` into `out`: 1 if there was one. The front
 * matches at once when completions follow posting order. */
static int queue_take(augur_state *s, MPI_Request handle, augur_req *out) {
  uint64_t key = handle_key(handle);
  if (!s || handle == MPI_REQUEST_NULL || key == 0) return 0;
  req_slot *e = queue_find(s, key);
  if (!e) return 0;
  *out = e->r;
  size_t i = (size_t)(e - s->queue);
  if (i == s->q_head) {
    s->q_head++;
  } else {
    memmove(e, e + 1, (s->q_len - i - 1) * sizeof *s->queue);
    s->q_len--;
  }
  if (s->q_head == s->q_len) s->q_head = s->q_len = 0;
  return 1;
}

/* The entry for a new nonblocking request, `instant` when it completes as it is posted (to
 * MPI_PROC_NULL, or a collective over one process: Open MPI's libnbc then returns the same
 * &ompi_request_empty): queued or in the table (see above). */
static augur_req *req_new(augur_state *s, MPI_Request handle, int instant) {
  if (!req_recording(s, handle)) return NULL;
  uint64_t key = handle_key(handle);
  req_slot *q = s->q_head < s->q_len ? queue_find(s, key) : NULL;
  if (instant && (q || (s->req_cap && req_slot_of(s, key, 0)->key))) add_shared(s, key);
  if (!instant && q && q->r.instant) add_shared(s, key);
  augur_req *r = instant || is_shared(s, key) ? queue_insert(s, handle) : req_insert(s, handle);
  if (r) r->instant = (uint8_t)(instant != 0);
  return r;
}

/* Learns the shared handle values (see above): natively, two requests of each kind posted to
 * MPI_PROC_NULL; one value returned twice is shared. Under SMPI no handle is, and calls here
 * would be simulated. */
static void learn_shared(augur_state *s) {
#if !AUGUR_SMPI
  char c = 0;
  for (int kind = 0; kind < 2; kind++) {
    MPI_Request r[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int i = 0; i < 2; i++)
      if ((kind == 0 ? MPI_Isend(&c, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[i])
                     : MPI_Irecv(&c, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[i])) != MPI_SUCCESS)
        r[i] = MPI_REQUEST_NULL;
    if (r[0] != MPI_REQUEST_NULL && r[0] == r[1]) add_shared(s, handle_key(r[0]));
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
#else
  (void)s;
#endif
}

uint64_t augur_req_add(MPI_Request handle, uint8_t op, uint32_t site, int32_t peer, int32_t tag, int64_t bytes,
                       MPI_Comm comm) {
  augur_state *s = st();
  augur_req *r = req_new(s, handle, peer == AUGUR_PEER_PROC_NULL);
  if (!r) return 0;
  r->id = s->next_req++;
  r->site = site;
  r->op = op;
  r->peer = peer;
  r->tag = tag;
  r->bytes = bytes;
  r->comm = comm;
  return r->id;
}

uint64_t augur_req_add_coll(MPI_Request handle, uint8_t op, uint32_t site, int32_t peer, int64_t bytes,
                            MPI_Comm comm) {
  augur_state *s = st();
  augur_req *r = req_new(s, handle, augur_comm_size(comm) == 1);
  if (!r) return 0;
  r->id = s->next_req++;
  r->site = site;
  r->op = op;
  r->peer = peer;
  r->tag = 0;
  r->bytes = bytes;
  r->comm = comm;
  return r->id;
}

void augur_req_add_persistent(MPI_Request handle, uint8_t op, int32_t peer, int32_t tag, int64_t bytes,
                              MPI_Comm comm) {
  augur_state *s = st();
  augur_req *r = req_insert(s, handle);
  if (!r) return;
  r->op = op;
  r->persistent = 1;
  r->peer = peer;
  r->tag = tag;
  r->bytes = bytes;
  r->comm = comm;
}

/* The entry of `handle`, NULL if it has none. */
static req_slot *req_find(augur_state *s, MPI_Request handle) {
  uint64_t key = handle_key(handle);
  if (!s || !s->req_cap || handle == MPI_REQUEST_NULL || key == 0) return NULL;
  req_slot *e = req_slot_of(s, key, 0);
  return e && e->key ? e : NULL;
}

#if AUGUR_SMPI
/* SMPI persistent sends. SMPI 3.32 detaches a standard, buffered or ready send smaller than
 * smpi/send-is-detached-thresh (64 KiB by default): the sender goes on at once while the
 * message travels, and the transfer keeps a reference to the request. Starting that persistent
 * request again before the receiver has taken the previous message loses both: the receiver
 * waits forever and SMPI stops the run as deadlocked, with exit status 0 (measured: rank 0
 * Send_init to rank 1 and Start+Wait twice while rank 1 computes 1 ms before its two Recvs;
 * an Isend per message, or a fresh request per start, delivers them). Halo exchanges with
 * persistent requests do exactly this whenever a neighbour lags, so the runtime makes such a
 * request again (MPI_Request_free, then the same *_init) before each start after its first,
 * and writes the new handle where the program passed the old one. Only the handle's value
 * changes: a copy of it kept elsewhere by the program goes stale (MPI lets Start keep the
 * value; no program seen relies on a copy). Synchronous sends and receives are never
 * detached and stay as made. */
int augur_detached_send(uint8_t init_op, int64_t bytes) {
  augur_state *s = st();
  if (!s || init_op == AUGUR_OP_SSEND_INIT || init_op == AUGUR_OP_RECV_INIT) return 0;
  bench_config(s);
  return init_op == AUGUR_OP_BSEND_INIT || (bytes >= 0 && bytes < s->detach_thresh);
}

augur_remake *augur_req_remake(MPI_Request handle) {
  req_slot *e = req_find(st(), handle);
  return e && e->r.persistent ? &e->r.remake : NULL;
}

void augur_req_rekey(MPI_Request old, MPI_Request new_handle) {
  augur_state *s = st();
  req_slot *e = req_find(s, old);
  if (!e) return;
  augur_req r = e->r;
  req_remove(s, e);
  augur_req *n = req_insert(s, new_handle);
  if (n) *n = r;
}

/* Before MPI_Start(all) of the C handle `*h`: makes it again if it is a detached persistent
 * send started before (see above). An error leaves `*h` freed (MPI_REQUEST_NULL) and forgotten. */
static int remake_for_start(MPI_Request *h) {
  augur_remake *m = augur_req_remake(*h);
  if (!m || m->lang != 1) return MPI_SUCCESS; /* not a detached send, or unknown */
  if (!m->started) {
    m->started = 1;
    return MPI_SUCCESS;
  }
  augur_remake k = *m;
  MPI_Request old = *h;
  int rc = MPI_Request_free(h);
  if (rc == MPI_SUCCESS) {
    switch (k.init_op) {
    case AUGUR_OP_BSEND_INIT: rc = MPI_Bsend_init(k.buf, k.count, k.dt, k.dest, k.tag, k.comm, h); break;
    case AUGUR_OP_RSEND_INIT: rc = MPI_Rsend_init(k.buf, k.count, k.dt, k.dest, k.tag, k.comm, h); break;
    default: rc = MPI_Send_init(k.buf, k.count, k.dt, k.dest, k.tag, k.comm, h); break;
    }
  }
  if (rc == MPI_SUCCESS) augur_req_rekey(old, *h);
  else augur_req_free(old);
  return rc;
}
#endif

int augur_req_take(MPI_Request handle, augur_req *out) {
  augur_state *s = st();
  if (!s || (!s->req_cap && !s->q_cap) || handle == MPI_REQUEST_NULL || handle_key(handle) == 0) return 0;
  req_slot *e = req_find(s, handle);
  if (!e) {
    if (queue_take(s, handle, out)) return 1;
    s->anomalies++;
    return 0;
  }
  if (e->r.persistent) { /* completing an inactive persistent request returns at once */
    if (!e->r.active) return 0;
    e->r.active = 0;
    *out = e->r;
    return 1;
  }
  *out = e->r;
  req_remove(s, e);
  return 1;
}

int augur_req_start(MPI_Request handle, uint32_t site, augur_req *out) {
  augur_state *s = st();
  req_slot *e = req_find(s, handle);
  if (!e || !e->r.persistent || s->done) {
    if (s && !s->done && handle != MPI_REQUEST_NULL) s->anomalies++;
    return 0;
  }
  e->r.active = 1;
  e->r.id = s->next_req++;
  e->r.site = site;
  *out = e->r;
  return 1;
}

uint64_t augur_req_free(MPI_Request handle) {
  augur_state *s = st();
  req_slot *e = req_find(s, handle);
  augur_req q;
  if (!e) return queue_take(s, handle, &q) ? q.id : 0;
  uint64_t id = !e->r.persistent || e->r.active ? e->r.id : 0;
  req_remove(s, e);
  return id;
}

/* Requests still pending at finalize: nonblocking ones and started persistent ones. */
static uint64_t req_pending(const augur_state *s) {
  uint64_t n = s->q_len - s->q_head;
  for (size_t i = 0; i < s->req_cap; i++)
    if (s->req[i].key && (!s->req[i].r.persistent || s->req[i].r.active)) n++;
  return n;
}

void augur_complete(const augur_req *r, const MPI_Status *stt) {
  int32_t peer = r->peer, tag = r->tag;
  int64_t bytes = r->bytes;
  if (r->op == AUGUR_OP_IRECV && r->peer == AUGUR_PEER_PROC_NULL) {
    /* what MPI defines a receive from MPI_PROC_NULL to complete with (source MPI_PROC_NULL,
     * tag MPI_ANY_TAG, count 0), not the status: SimGrid 3.32 gives a persistent one's
     * source as MPI_ANY_SOURCE */
    tag = AUGUR_TAG_ANY;
    bytes = 0;
  } else if (r->op == AUGUR_OP_IRECV && stt) {
    int n = 0;
    peer = augur_world_peer(r->comm, stt->MPI_SOURCE);
    tag = augur_tag(stt->MPI_TAG);
    if (MPI_Get_count(stt, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) bytes = n;
  }
  augur_emit_part(r->op, r->site, peer, tag, bytes, r->id);
}

/* ---------------------------------------------------------------- init / finalize */

static void open_trace(augur_state *s, augur_stamp t) {
  const char *dir = getenv("AUGUR_TRACE_DIR");
  char path[4096];
  if (!dir || !*dir) dir = ".";
  mkdir(dir, 0777); /* one level, best effort: an existing directory is the common case */
  snprintf(path, sizeof path, "%s/rank-%d.augt", dir, s->rank);
  s->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (s->fd < 0) {
    warn_broken(s, "cannot create", path);
    return;
  }
  unsigned char h[HEADER_LEN];
  memset(h, 0, sizeof h);
  memcpy(h, "AUGURTRC", 8);
  PUT(h, 8, (uint16_t)AUGUR_VERSION);
  PUT(h, 10, (uint16_t)HEADER_LEN);
  PUT(h, 12, (uint32_t)((AUGUR_SMPI ? 1u : 0u) | (s->fortran ? 2u : 0u)));
  PUT(h, 16, (int32_t)s->rank);
  PUT(h, 20, (int32_t)s->size);
  PUT(h, 24, (uint32_t)getpid());
  PUT(h, 32, t.mono_ns);
  PUT(h, 40, t.wtime);
  PUT(h, 48, clock_ns(CLOCK_REALTIME));
  /* The header goes before everything buffered since process start (pre-init phases). */
  size_t off = 0;
  while (off < sizeof h) {
    ssize_t n = write(s->fd, h + off, sizeof h - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      warn_broken(s, "cannot write", path);
      return;
    }
    off += (size_t)n;
  }
}

static void augur_redirect_stdin(int rank);

/* Learns rank and size and opens the file; from then on MPI_Wtime may be called. Runs once per
 * rank (it sets `live`), whether from the MPI_Init wrapper or from ensure_live. */
static void go_live(augur_state *s) {
  s->live = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &s->size);
  learn_shared(s);
#if !AUGUR_SMPI
  s->wt0 = MPI_Wtime();
  s->wt_mono0 = clock_ns(CLOCK_MONOTONIC);
#endif
  if (s->fd < 0 && !s->broken) open_trace(s, stamp_of(s));
  augur_redirect_stdin(s->rank);
}

/* A program that called MPI_Init itself (not through a wrapper) still gets a trace: the first
 * marker or wrapper after MPI_Init notices and sets up the rank. */
static void ensure_live(augur_state *s) {
  int flag = 0;
  if (s->live || s->done) return;
  if (MPI_Initialized(&flag) == MPI_SUCCESS && flag) go_live(s);
}

/* `augur profile --stdin FILE`: every rank reads FILE as its standard input. mpirun forwards
   its own standard input (FILE) to rank 0 only and gives the others /dev/null, so those open
   FILE themselves here, before the program reads anything after MPI_Init. Under SMPI all ranks
   are threads of one process sharing the launcher's standard input: nothing to do. A failure
   is said on stderr (the rank then reads /dev/null, which would otherwise look like a short
   input file). */
static void augur_redirect_stdin(int rank) {
#if !AUGUR_SMPI
  const char *path = getenv("AUGUR_STDIN");
  if (rank == 0 || !path || !*path) return;
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fprintf(stderr, "augur: warning: rank %d cannot open its standard input %s: %s (it reads nothing)\n",
            rank, path, strerror(errno));
    return;
  }
  if (fd != 0) {
    if (dup2(fd, 0) < 0)
      fprintf(stderr, "augur: warning: rank %d cannot make %s its standard input: %s (it reads nothing)\n",
              rank, path, strerror(errno));
    close(fd);
  }
  clearerr(stdin);
#else
  (void)rank;
#endif
}

void augur_after_init(augur_stamp t0, int site, int fortran) {
  AUGUR_ENTRY;
  augur_state *s = st();
  if (!s) return;
  s->fortran = fortran;
  if (!s->live) go_live(s);
  augur_stamp t1 = stamp_of(s);
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_INIT;
  r.flags = fortran ? AUGUR_F_FORTRAN : 0;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.comm_size = s->size;
  r.t0 = t0;
  r.t1 = t1;
  augur_emit_mpi(&r);
}

static void write_agg(augur_state *s) {
  /* Deterministic order: by (kind, site, arm), whatever the hash table layout. */
  agg_slot *v = malloc((s->agg_len ? s->agg_len : 1) * sizeof *v);
  size_t n = 0;
  if (!v) return;
  for (size_t i = 0; i < s->agg_cap; i++)
    if (s->agg[i].used) v[n++] = s->agg[i];
  for (size_t i = 1; i < n; i++) { /* insertion sort: few hundred sites */
    agg_slot x = v[i];
    size_t j = i;
    while (j > 0 && (v[j - 1].kind > x.kind || (v[j - 1].kind == x.kind && (v[j - 1].site > x.site ||
                     (v[j - 1].site == x.site && v[j - 1].arm > x.arm))))) {
      v[j] = v[j - 1];
      j--;
    }
    v[j] = x;
  }
  for (size_t i = 0; i < n; i++) {
    unsigned char *p = reserve(s, LEN_AGG);
    if (!p) break;
    p[0] = REC_AGG;
    p[1] = v[i].kind;
    PUT(p, 4, v[i].site);
    PUT(p, 8, v[i].arm);
    PUT(p, 16, v[i].count);
    PUT(p, 24, v[i].sum);
    PUT(p, 32, v[i].count ? v[i].min : (uint64_t)0);
    PUT(p, 40, v[i].max);
  }
  free(v);
}

void augur_flush_for_abort(void) {
  AUGUR_ENTRY;
  augur_state *s = st();
  if (!s || s->done) return;
  flush_buf(s);
}

void augur_before_finalize(augur_stamp t0, int site, int fortran) {
  AUGUR_ENTRY;
  augur_state *s = st();
  if (!s || s->done) return;
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_FINALIZE;
  r.flags = fortran ? AUGUR_F_FORTRAN : 0;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.comm_size = s->size;
  r.t0 = t0;
  r.t1 = stamp_of(s);
  augur_emit_mpi(&r);
  if (s->n_phases != 0 || s->n_calls != 0) s->anomalies++;
  s->anomalies += req_pending(s); /* requests never completed through a wrapper */
  uint64_t n_events = s->n_events, n_agg = s->agg_len;
  write_agg(s);
  unsigned char *p = reserve(s, LEN_TRAILER);
  if (p) {
    p[0] = REC_TRAILER;
    PUT(p, 8, n_events);
    PUT(p, 16, n_agg);
    PUT(p, 24, clock_ns(CLOCK_MONOTONIC));
    PUT(p, 32, (uint32_t)(s->anomalies > UINT32_MAX ? UINT32_MAX : s->anomalies));
  }
  flush_buf(s);
  if (s->fd >= 0) close(s->fd);
  s->fd = -1;
  s->done = 1;
}

/* Under SMPI every rank is an actor of one process: the first to call exit() after
 * MPI_Finalize (a Fortran STOP, C exit(0)) ends the simulation, and the ranks not yet in
 * MPI_Finalize then leave no trailer (trial 27: an F77 code's STOP failed every run). The
 * finalize wrappers call this after augur_before_finalize, at the wrapper's own level of hold
 * (so the bench restarts before the barrier and the trace's writing is charged to no one): no
 * rank leaves MPI_Finalize before every rank's trace is written; the barrier is in no trace. */
void augur_finalize_barrier(void) {
#if AUGUR_SMPI
  AUGUR_MPI(MPI_Barrier(MPI_COMM_WORLD));
#endif
}

/* ---------------------------------------------------------------- C wrappers */

int augur_MPI_Init(int site, int *argc, char ***argv) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Init(argc, argv));
  if (rc == MPI_SUCCESS) augur_after_init(t0, site, 0);
  return rc;
}

int augur_MPI_Init_thread(int site, int *argc, char ***argv, int required, int *provided) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Init_thread(argc, argv, required, provided));
  if (rc == MPI_SUCCESS) augur_after_init(t0, site, 0);
  return rc;
}

int augur_MPI_Finalize(int site) {
  AUGUR_ENTRY;
  augur_before_finalize(augur_now(), site, 0);
  augur_finalize_barrier();
  int rc;
  AUGUR_MPI(rc = MPI_Finalize());
  return rc;
}

/* After an MPI_Init the instrumentation did not see, a program's first calls are usually these:
 * going live here (rather than at the first traced event) gives its ranks their --stdin input
 * before they read it. Not under SMPI, where there is no redirect and each entry into the
 * runtime costs simulated time. */
static void live_if_initialized(void) {
#if !AUGUR_SMPI
  augur_state *s = st();
  if (s && !s->live) ensure_live(s);
#endif
}

int augur_MPI_Comm_size(int site, MPI_Comm comm, int *size) {
  (void)site;
  live_if_initialized();
  return MPI_Comm_size(comm, size);
}

int augur_MPI_Comm_rank(int site, MPI_Comm comm, int *rank) {
  (void)site;
  live_if_initialized();
  return MPI_Comm_rank(comm, rank);
}

static augur_mpi_rec rec(uint8_t op, int site, int32_t peer, int32_t tag, int64_t bytes, MPI_Comm comm) {
  augur_mpi_rec r = {0};
  r.op = op;
  r.site = (uint32_t)site;
  r.peer = peer;
  r.tag = tag;
  r.bytes = bytes;
  r.comm_size = augur_comm_size(comm);
  return r;
}

static int finish(augur_mpi_rec *r, augur_stamp t0, int rc) {
  r->t0 = t0;
  r->t1 = augur_now();
  if (rc != MPI_SUCCESS) r->flags |= AUGUR_F_ERROR;
  augur_emit_mpi(r);
  return rc;
}

static int p2p_send(uint8_t op, int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  switch (op) {
  case AUGUR_OP_SSEND: AUGUR_MPI(rc = MPI_Ssend(buf, count, dt, dest, tag, comm)); break;
  case AUGUR_OP_RSEND: AUGUR_MPI(rc = MPI_Rsend(buf, count, dt, dest, tag, comm)); break;
  case AUGUR_OP_BSEND: AUGUR_MPI(rc = MPI_Bsend(buf, count, dt, dest, tag, comm)); break;
  default: AUGUR_MPI(rc = MPI_Send(buf, count, dt, dest, tag, comm)); break;
  }
  augur_mpi_rec r = rec(op, site, augur_world_peer(comm, dest), tag, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Send(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p_send(AUGUR_OP_SEND, site, buf, count, dt, dest, tag, comm);
}

int augur_MPI_Ssend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p_send(AUGUR_OP_SSEND, site, buf, count, dt, dest, tag, comm);
}

int augur_MPI_Rsend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p_send(AUGUR_OP_RSEND, site, buf, count, dt, dest, tag, comm);
}

int augur_MPI_Bsend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return p2p_send(AUGUR_OP_BSEND, site, buf, count, dt, dest, tag, comm);
}

static int p2p_isend(uint8_t op, int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = op == AUGUR_OP_ISSEND ? MPI_Issend(buf, count, dt, dest, tag, comm, req)
                                 : MPI_Isend(buf, count, dt, dest, tag, comm, req));
  augur_mpi_rec r = rec(op, site, augur_world_peer(comm, dest), tag, augur_type_bytes(count, dt), comm);
  if (rc == MPI_SUCCESS) r.req_id = augur_req_add(*req, op, r.site, r.peer, r.tag, r.bytes, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Isend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *req) {
  return p2p_isend(AUGUR_OP_ISEND, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Issend(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                     MPI_Request *req) {
  return p2p_isend(AUGUR_OP_ISSEND, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Recv(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Recv(buf, count, dt, source, tag, comm, sp));
  augur_mpi_rec r = rec(AUGUR_OP_RECV, site, augur_world_peer(comm, source), augur_tag(tag),
                        augur_type_bytes(count, dt), comm);
  if (rc == MPI_SUCCESS) {
    int n = 0;
    r.flags |= AUGUR_F_ACTUAL;
    r.peer = augur_world_peer(comm, sp->MPI_SOURCE);
    r.tag = augur_tag(sp->MPI_TAG);
    if (MPI_Get_count(sp, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) r.bytes = n;
  }
  return finish(&r, t0, rc);
}

int augur_MPI_Irecv(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                    MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Irecv(buf, count, dt, source, tag, comm, req));
  augur_mpi_rec r = rec(AUGUR_OP_IRECV, site, augur_world_peer(comm, source), augur_tag(tag),
                        augur_type_bytes(count, dt), comm);
  if (rc == MPI_SUCCESS) r.req_id = augur_req_add(*req, AUGUR_OP_IRECV, r.site, r.peer, r.tag, r.bytes, comm);
  return finish(&r, t0, rc);
}

/* ---------------------------------------------------------------- persistent requests */

uint8_t augur_start_kind(uint8_t init_op) {
  switch (init_op) {
  case AUGUR_OP_RECV_INIT: return AUGUR_OP_IRECV;
  case AUGUR_OP_SSEND_INIT: return AUGUR_OP_ISSEND;
  default: return AUGUR_OP_ISEND;
  }
}

static int p2p_init(uint8_t op, int site, const void *buf, int count, MPI_Datatype dt, int peer, int tag,
                    MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  switch (op) {
  case AUGUR_OP_SSEND_INIT: AUGUR_MPI(rc = MPI_Ssend_init(buf, count, dt, peer, tag, comm, req)); break;
  case AUGUR_OP_BSEND_INIT: AUGUR_MPI(rc = MPI_Bsend_init(buf, count, dt, peer, tag, comm, req)); break;
  case AUGUR_OP_RSEND_INIT: AUGUR_MPI(rc = MPI_Rsend_init(buf, count, dt, peer, tag, comm, req)); break;
  case AUGUR_OP_RECV_INIT: AUGUR_MPI(rc = MPI_Recv_init((void *)buf, count, dt, peer, tag, comm, req)); break;
  default: AUGUR_MPI(rc = MPI_Send_init(buf, count, dt, peer, tag, comm, req)); break;
  }
  augur_mpi_rec r = rec(op, site, augur_world_peer(comm, peer), augur_tag(tag), augur_type_bytes(count, dt), comm);
  if (rc == MPI_SUCCESS) augur_req_add_persistent(*req, augur_start_kind(op), r.peer, r.tag, r.bytes, comm);
#if AUGUR_SMPI
  augur_remake *m = rc == MPI_SUCCESS && augur_detached_send(op, r.bytes) ? augur_req_remake(*req) : NULL;
  if (m) *m = (augur_remake){.lang = 1, .init_op = op, .buf = (void *)buf, .count = count, .dest = peer,
                             .tag = tag, .dt = dt, .comm = comm};
#endif
  return finish(&r, t0, rc);
}

int augur_MPI_Send_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                        MPI_Request *req) {
  return p2p_init(AUGUR_OP_SEND_INIT, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Ssend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req) {
  return p2p_init(AUGUR_OP_SSEND_INIT, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Bsend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req) {
  return p2p_init(AUGUR_OP_BSEND_INIT, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Rsend_init(int site, const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                         MPI_Request *req) {
  return p2p_init(AUGUR_OP_RSEND_INIT, site, buf, count, dt, dest, tag, comm, req);
}

int augur_MPI_Recv_init(int site, void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                        MPI_Request *req) {
  return p2p_init(AUGUR_OP_RECV_INIT, site, buf, count, dt, source, tag, comm, req);
}

void augur_after_start(uint8_t op, int site, int count, const MPI_Request *h, augur_stamp t0, int rc, int fortran) {
  augur_stamp t1 = augur_now();
  uint16_t ff = fortran ? AUGUR_F_FORTRAN : 0;
  int n = 0;
  for (int i = 0; rc == MPI_SUCCESS && i < count; i++) {
    augur_req q;
    if (!augur_req_start(h[i], (uint32_t)site, &q)) continue;
    augur_mpi_rec r = {0};
    r.op = q.op;
    r.flags = (uint16_t)(AUGUR_F_STARTED | ff);
    r.site = q.site;
    r.peer = q.peer;
    r.tag = q.tag;
    r.bytes = q.bytes;
    r.comm_size = augur_comm_size(q.comm);
    r.req_id = q.id;
    r.t0 = n == 0 ? t0 : t1;
    r.t1 = t1;
    augur_emit_mpi(&r);
    n++;
  }
  if (n > 0) return;
  augur_mpi_rec r = {0};
  r.op = op;
  r.flags = (uint16_t)(ff | (rc != MPI_SUCCESS ? AUGUR_F_ERROR : 0));
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.bytes = count;
  r.t0 = t0;
  r.t1 = t1;
  augur_emit_mpi(&r);
}

int augur_MPI_Start(int site, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
#if AUGUR_SMPI
  AUGUR_MPI(rc = remake_for_start(req); if (rc == MPI_SUCCESS) rc = MPI_Start(req));
#else
  AUGUR_MPI(rc = MPI_Start(req));
#endif
  augur_after_start(AUGUR_OP_START, site, 1, req, t0, rc, 0);
  return rc;
}

int augur_MPI_Startall(int site, int count, MPI_Request reqs[]) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
#if AUGUR_SMPI
  rc = MPI_SUCCESS;
  AUGUR_MPI(for (int i = 0; i < count && rc == MPI_SUCCESS; i++) rc = remake_for_start(&reqs[i]);
            if (rc == MPI_SUCCESS) rc = MPI_Startall(count, reqs));
#else
  AUGUR_MPI(rc = MPI_Startall(count, reqs));
#endif
  augur_after_start(AUGUR_OP_STARTALL, site, count, reqs, t0, rc, 0);
  return rc;
}

/* A freed request is forgotten; the record names the pending id it abandoned, if any. */
int augur_MPI_Request_free(int site, MPI_Request *req) {
  AUGUR_ENTRY;
  MPI_Request h = *req;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Request_free(req));
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_REQUEST_FREE;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.req_id = rc == MPI_SUCCESS ? augur_req_free(h) : 0;
  return finish(&r, t0, rc);
}

/* Probe/Iprobe: the message found (actual source, tag and bytes); an Iprobe that found nothing
 * is only counted at its site, like an MPI_Test of a pending request. */
static void probe_record(uint8_t op, int site, int source, int tag, MPI_Comm comm, const MPI_Status *sp,
                         augur_stamp t0, int rc) {
  augur_mpi_rec r = rec(op, site, augur_world_peer(comm, source), augur_tag(tag), 0, comm);
  if (rc == MPI_SUCCESS) {
    int n = 0;
    r.flags |= AUGUR_F_ACTUAL;
    r.peer = augur_world_peer(comm, sp->MPI_SOURCE);
    r.tag = augur_tag(sp->MPI_TAG);
    if (MPI_Get_count(sp, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) r.bytes = n;
  }
  finish(&r, t0, rc);
}

int augur_MPI_Probe(int site, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Probe(source, tag, comm, sp));
  probe_record(AUGUR_OP_PROBE, site, source, tag, comm, sp, t0, rc);
  return rc;
}

int augur_MPI_Iprobe(int site, int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Iprobe(source, tag, comm, flag, sp));
  if (rc == MPI_SUCCESS && !*flag) {
    augur_count_test_pending(site);
    return rc;
  }
  probe_record(AUGUR_OP_IPROBE, site, source, tag, comm, sp, t0, rc);
  return rc;
}

int augur_MPI_Sendrecv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                        comm, sp));
  augur_mpi_rec r = rec(AUGUR_OP_SENDRECV, site, augur_world_peer(comm, dest), sendtag,
                        augur_type_bytes(sendcount, sendtype), comm);
  r.nparts = 1;
  finish(&r, t0, rc);
  int32_t peer = augur_world_peer(comm, source), tag = augur_tag(recvtag);
  int64_t bytes = augur_type_bytes(recvcount, recvtype);
  if (rc == MPI_SUCCESS) {
    int n = 0;
    peer = augur_world_peer(comm, sp->MPI_SOURCE);
    tag = augur_tag(sp->MPI_TAG);
    if (MPI_Get_count(sp, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) bytes = n;
  }
  augur_emit_part(AUGUR_OP_RECV, (uint32_t)site, peer, tag, bytes, 0);
  return rc;
}

int augur_MPI_Sendrecv_replace(int site, void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                               int recvtag, MPI_Comm comm, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Sendrecv_replace(buf, count, dt, dest, sendtag, source, recvtag, comm, sp));
  int64_t bytes = augur_type_bytes(count, dt);
  augur_mpi_rec r = rec(AUGUR_OP_SENDRECV_REPLACE, site, augur_world_peer(comm, dest), sendtag, bytes, comm);
  r.nparts = 1;
  finish(&r, t0, rc);
  int32_t peer = augur_world_peer(comm, source), tag = augur_tag(recvtag);
  if (rc == MPI_SUCCESS) {
    int n = 0;
    peer = augur_world_peer(comm, sp->MPI_SOURCE);
    tag = augur_tag(sp->MPI_TAG);
    if (MPI_Get_count(sp, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED) bytes = n;
  }
  augur_emit_part(AUGUR_OP_RECV, (uint32_t)site, peer, tag, bytes, 0);
  return rc;
}

int augur_MPI_Wait(int site, MPI_Request *req, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  augur_req pending;
  int known = augur_req_take(*req, &pending);
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Wait(req, sp));
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_WAIT;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  finish(&r, t0, rc);
  if (known) augur_complete(&pending, rc == MPI_SUCCESS ? sp : NULL);
  return rc;
}

/* Waitall/Waitany need the statuses even when the caller ignores them, and the request
 * handles from before the call (MPI resets them to MPI_REQUEST_NULL). */
int augur_MPI_Waitall(int site, int count, MPI_Request reqs[], MPI_Status statuses[]) {
  AUGUR_ENTRY;
  augur_req stack_p[64];
  MPI_Status stack_s[64];
  int heap = count > 64;
  augur_req *pend = heap ? malloc((size_t)count * sizeof *pend) : stack_p;
  MPI_Status *sts = statuses;
  if (statuses == MPI_STATUSES_IGNORE) sts = heap ? malloc((size_t)count * sizeof *sts) : stack_s;
  if (!pend || !sts) { /* out of memory: run the call unrecorded */
    if (heap) free(pend);
    if (sts != statuses && heap) free(sts);
    int rc;
    AUGUR_MPI(rc = MPI_Waitall(count, reqs, statuses));
    return rc;
  }
  unsigned known = 0;
  for (int i = 0; i < count; i++) {
    if (augur_req_take(reqs[i], &pend[i])) known++;
    else pend[i].id = 0;
  }
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Waitall(count, reqs, sts));
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_WAITALL;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.bytes = count;
  r.nparts = known;
  finish(&r, t0, rc);
  for (int i = 0; i < count; i++)
    if (pend[i].id) augur_complete(&pend[i], rc == MPI_SUCCESS ? &sts[i] : NULL);
  if (heap) free(pend);
  if (sts != statuses && heap) free(sts);
  return rc;
}

int augur_MPI_Waitany(int site, int count, MPI_Request reqs[], int *index, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request stack_h[64] = {0};
  MPI_Request *before = count > 64 ? malloc((size_t)count * sizeof *before) : stack_h;
  if (!before) {
    int rc;
    AUGUR_MPI(rc = MPI_Waitany(count, reqs, index, status));
    return rc;
  }
  for (int i = 0; i < count; i++) before[i] = reqs[i];
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Waitany(count, reqs, index, sp));
  augur_req pending;
  int known = rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < count &&
              augur_req_take(before[*index], &pending);
  if (count > 64) free(before);
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_WAITANY;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.bytes = count;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  finish(&r, t0, rc);
  if (known) augur_complete(&pending, sp);
  return rc;
}

int augur_MPI_Test(int site, MPI_Request *req, int *flag, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request before = *req;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Test(req, flag, sp));
  if (rc != MPI_SUCCESS || !*flag) {
    augur_count_test_pending(site);
    return rc;
  }
  augur_req pending;
  int known = augur_req_take(before, &pending);
  augur_mpi_rec r = {0};
  r.op = AUGUR_OP_TEST;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.req_id = known ? pending.id : 0;
  r.nparts = known ? 1 : 0;
  finish(&r, t0, rc);
  if (known) augur_complete(&pending, sp);
  return rc;
}

/* Whether request i is among the `n` a completion call reports (`idx` NULL: the first `n`). */
static int reported(const int *idx, int n, int i) {
  if (!idx) return i < n;
  for (int k = 0; k < n; k++)
    if (idx[k] == i) return 1;
  return 0;
}

/* Testall/Testany/Testsome/Waitsome: the requests the call completed, recorded as one completion
 * record of `op` and a Part for each the runtime knows, as Waitall's are. Completed: the `n` the
 * call reports, `before[idx[k]]` (`idx` NULL: the first `n`; the handles from before the call,
 * as MPI resets completed ones to MPI_REQUEST_NULL), and any other request whose handle the call
 * reset (`after[i]` null where `before[i]` was not): MPI forbids a call to free a request it
 * does not report, but SimGrid 3.32's MPI_Testall frees every request it finds done even when it
 * returns flag = 0, and a request freed unseen would never be completed in the trace. A status is
 * `sts[i]` for request i when `by_request` (Testall's statuses), else `sts[k]` for the k-th
 * reported one; none for the others. A call that completed none (a test that found nothing done)
 * counts as a pending test of its site. */
static int record_completed(int op, int site, int count, const MPI_Request *before, const MPI_Request *after,
                            const int *idx, int n, MPI_Status *sts, int by_request, augur_stamp t0, int rc) {
  if (rc != MPI_SUCCESS) return rc;
  if (n < 0) n = 0;
  int extra = 0;
  for (int i = 0; i < count; i++)
    if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL) extra++;
  int cap = n + extra; /* a reported request may also be a reset one: room for both */
  if (cap == 0) {
    if (op != AUGUR_OP_WAITSOME) augur_count_test_pending(site);
    return rc;
  }
  augur_req stack_p[64];
  const MPI_Status *stack_s[64];
  augur_req *pend = cap > 64 ? malloc((size_t)cap * sizeof *pend) : stack_p;
  const MPI_Status **pst = cap > 64 ? malloc((size_t)cap * sizeof *pst) : stack_s;
  if (!pend || !pst) {
    if (pend != stack_p) free(pend);
    if (pst != stack_s) free((void *)pst);
    return rc;
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    int i = idx ? idx[k] : k;
    if (i >= 0 && i < count && augur_req_take(before[i], &pend[m])) {
      pst[m++] = by_request ? &sts[i] : &sts[k];
    }
  }
  for (int i = 0; i < count; i++)
    if (before[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL && !reported(idx, n, i) &&
        augur_req_take(before[i], &pend[m]))
      pst[m++] = by_request ? &sts[i] : NULL;
  augur_mpi_rec r = {0};
  r.op = (uint8_t)op;
  r.site = (uint32_t)site;
  r.peer = AUGUR_PEER_NONE;
  r.bytes = count;
  r.nparts = (uint32_t)m;
  finish(&r, t0, rc);
  for (int k = 0; k < m; k++) augur_complete(&pend[k], pst[k]);
  if (pend != stack_p) free(pend);
  if (pst != stack_s) free((void *)pst);
  return rc;
}

/* The handles of `reqs` before a call that may reset them, in `stack` when they fit. */
static MPI_Request *handles_before(int count, MPI_Request reqs[], MPI_Request *stack) {
  MPI_Request *before = count > 64 ? malloc((size_t)count * sizeof *before) : stack;
  if (before)
    for (int i = 0; i < count; i++) before[i] = reqs[i];
  return before;
}

int augur_MPI_Testall(int site, int count, MPI_Request reqs[], int *flag, MPI_Status statuses[]) {
  AUGUR_ENTRY;
  MPI_Request stack_h[64] = {0};
  MPI_Status stack_s[64];
  MPI_Request *before = handles_before(count, reqs, stack_h);
  MPI_Status *sts = statuses;
  if (statuses == MPI_STATUSES_IGNORE) sts = count > 64 ? malloc((size_t)count * sizeof *sts) : stack_s;
  if (!before || !sts) {
    if (count > 64) free(before);
    if (sts != statuses && count > 64) free(sts);
    int rc;
    AUGUR_MPI(rc = MPI_Testall(count, reqs, flag, statuses));
    return rc;
  }
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Testall(count, reqs, flag, sts));
  record_completed(AUGUR_OP_TESTALL, site, count, before, reqs, NULL, rc == MPI_SUCCESS && *flag ? count : 0, sts, 1,
                   t0, rc);
  if (count > 64) free(before);
  if (sts != statuses && count > 64) free(sts);
  return rc;
}

int augur_MPI_Testany(int site, int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status) {
  AUGUR_ENTRY;
  MPI_Status own;
  MPI_Status *sp = status == MPI_STATUS_IGNORE ? &own : status;
  MPI_Request stack_h[64] = {0};
  MPI_Request *before = handles_before(count, reqs, stack_h);
  if (!before) {
    int rc;
    AUGUR_MPI(rc = MPI_Testany(count, reqs, index, flag, status));
    return rc;
  }
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Testany(count, reqs, index, flag, sp));
  int done = rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED;
  record_completed(AUGUR_OP_TESTANY, site, count, before, reqs, index, done ? 1 : 0, sp, 0, t0, rc);
  if (count > 64) free(before);
  return rc;
}

/* Testsome/Waitsome: `outcount` requests completed, `indices` say which. */
static int some(int op, int site, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[]) {
  MPI_Request stack_h[64] = {0};
  MPI_Status stack_s[64];
  MPI_Request *before = handles_before(incount, reqs, stack_h);
  MPI_Status *sts = statuses;
  if (statuses == MPI_STATUSES_IGNORE) sts = incount > 64 ? malloc((size_t)incount * sizeof *sts) : stack_s;
  int rc;
  if (!before || !sts) {
    if (incount > 64) free(before);
    if (sts != statuses && incount > 64) free(sts);
    if (op == AUGUR_OP_WAITSOME) AUGUR_MPI(rc = MPI_Waitsome(incount, reqs, outcount, indices, statuses));
    else AUGUR_MPI(rc = MPI_Testsome(incount, reqs, outcount, indices, statuses));
    return rc;
  }
  augur_stamp t0 = augur_now();
  if (op == AUGUR_OP_WAITSOME) AUGUR_MPI(rc = MPI_Waitsome(incount, reqs, outcount, indices, sts));
  else AUGUR_MPI(rc = MPI_Testsome(incount, reqs, outcount, indices, sts));
  int n = rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED ? *outcount : 0;
  record_completed(op, site, incount, before, reqs, indices, n, sts, 0, t0, rc);
  if (incount > 64) free(before);
  if (sts != statuses && incount > 64) free(sts);
  return rc;
}

int augur_MPI_Testsome(int site, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]) {
  AUGUR_ENTRY;
  return some(AUGUR_OP_TESTSOME, site, incount, reqs, outcount, indices, statuses);
}

int augur_MPI_Waitsome(int site, int incount, MPI_Request reqs[], int *outcount, int indices[],
                       MPI_Status statuses[]) {
  AUGUR_ENTRY;
  return some(AUGUR_OP_WAITSOME, site, incount, reqs, outcount, indices, statuses);
}

/* ---------------------------------------------------------------- collectives */

static int32_t root_peer(MPI_Comm comm, int root) { return augur_world_peer(comm, root); }

int augur_MPI_Barrier(int site, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Barrier(comm));
  augur_mpi_rec r = rec(AUGUR_OP_BARRIER, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

/* Communicator constructors: collective over `comm`, recorded with its size and no bytes. */
int augur_MPI_Comm_split(int site, MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Comm_split(comm, color, key, newcomm));
  augur_mpi_rec r = rec(AUGUR_OP_COMM_SPLIT, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Comm_dup(int site, MPI_Comm comm, MPI_Comm *newcomm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Comm_dup(comm, newcomm));
  augur_mpi_rec r = rec(AUGUR_OP_COMM_DUP, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Comm_create(int site, MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Comm_create(comm, group, newcomm));
  augur_mpi_rec r = rec(AUGUR_OP_COMM_CREATE, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Cart_create(int site, MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                          MPI_Comm *newcomm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  /* SMPI 3.32 and Open MPI 4.1 declare dims and periods without const */
  AUGUR_MPI(rc = MPI_Cart_create(comm, ndims, (int *)dims, (int *)periods, reorder, newcomm));
  augur_mpi_rec r = rec(AUGUR_OP_CART_CREATE, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Cart_sub(int site, MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Cart_sub(comm, (int *)remain_dims, newcomm));
  augur_mpi_rec r = rec(AUGUR_OP_CART_SUB, site, AUGUR_PEER_NONE, 0, 0, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Bcast(int site, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Bcast(buf, count, dt, root, comm));
  augur_mpi_rec r = rec(AUGUR_OP_BCAST, site, root_peer(comm, root), 0, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Reduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Reduce(sendbuf, recvbuf, count, dt, op, root, comm));
  augur_mpi_rec r = rec(AUGUR_OP_REDUCE, site, root_peer(comm, root), 0, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Allreduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Allreduce(sendbuf, recvbuf, count, dt, op, comm));
  augur_mpi_rec r = rec(AUGUR_OP_ALLREDUCE, site, AUGUR_PEER_NONE, 0, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

/* For the all-to-all family `bytes` is the per-peer block this rank contributes; when the send
 * side is MPI_IN_PLACE its count/type are not significant and the receive block is used. */
int augur_MPI_Alltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_ALLTOALL, site, AUGUR_PEER_NONE, 0, b, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Gather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_GATHER, site, root_peer(comm, root), 0, b, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Allgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_ALLGATHER, site, AUGUR_PEER_NONE, 0, b, comm);
  return finish(&r, t0, rc);
}

/* A rank's in- and out-degree in the topology of `comm` (a Cartesian grid's 2 x ndims, its
 * MPI_PROC_NULL neighbours included); both 0 without a topology. */
static void degrees(MPI_Comm comm, int *in, int *out) {
  int kind = MPI_UNDEFINED, n = 0;
  *in = *out = 0;
  if (MPI_Topo_test(comm, &kind) != MPI_SUCCESS) return;
  if (kind == MPI_CART) {
    if (MPI_Cartdim_get(comm, &n) == MPI_SUCCESS) *in = *out = 2 * n;
  } else if (kind == MPI_GRAPH) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    if (MPI_Graph_neighbors_count(comm, me, &n) == MPI_SUCCESS) *in = *out = n;
  } else if (kind == MPI_DIST_GRAPH) {
    int weighted = 0;
    if (MPI_Dist_graph_neighbors_count(comm, in, out, &weighted) != MPI_SUCCESS) *in = *out = 0;
  }
}

int augur_neighbours(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return in > out ? in : out;
}

int augur_out_neighbours(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return out;
}

int64_t augur_mean_block(const int *counts, int n, MPI_Datatype dt) {
  if (n <= 0) return 0;
  int64_t total = augur_sum_bytes(counts, n, dt);
  return total < 0 ? -1 : total / n;
}

/* Neighbourhood collectives on a process topology: bytes = the block sent to each neighbour,
 * tag = the messages posted each way (augur_neighbours), communicator size as for any
 * collective. (SimGrid 3.32 does not implement them.) */
int augur_MPI_Neighbor_alltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
  augur_mpi_rec r =
      rec(AUGUR_OP_NEIGHBOR_ALLTOALL, site, AUGUR_PEER_NONE, augur_neighbours(comm),
          augur_type_bytes(sendcount, sendtype), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Neighbor_allgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
  augur_mpi_rec r =
      rec(AUGUR_OP_NEIGHBOR_ALLGATHER, site, AUGUR_PEER_NONE, augur_neighbours(comm),
          augur_type_bytes(sendcount, sendtype), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Neighbor_alltoallv(int site, const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                                 MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm));
  augur_mpi_rec r = rec(AUGUR_OP_NEIGHBOR_ALLTOALLV, site, AUGUR_PEER_NONE, augur_neighbours(comm),
                        augur_mean_block(sendcounts, augur_out_neighbours(comm), sendtype), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Neighbor_allgatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
  augur_mpi_rec r = rec(AUGUR_OP_NEIGHBOR_ALLGATHERV, site, AUGUR_PEER_NONE, augur_neighbours(comm),
                        augur_type_bytes(sendcount, sendtype), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Scatter(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
  int64_t b = recvbuf == MPI_IN_PLACE ? augur_type_bytes(sendcount, sendtype) : augur_type_bytes(recvcount, recvtype);
  augur_mpi_rec r = rec(AUGUR_OP_SCATTER, site, root_peer(comm, root), 0, b, comm);
  return finish(&r, t0, rc);
}

/* ---------------------------------------------------------------- vector collectives */

int64_t augur_sum_bytes(const int *counts, int n, MPI_Datatype dt) {
  int sz = 0;
  int64_t total = 0;
  if (!counts || MPI_Type_size(dt, &sz) != MPI_SUCCESS) return -1;
  for (int i = 0; i < n; i++) total += (int64_t)counts[i];
  return total * sz;
}

static int comm_rank_of(MPI_Comm comm) {
  int r = 0;
  if (MPI_Comm_rank(comm, &r) != MPI_SUCCESS) return 0;
  return r;
}

/* Alltoallv: bytes = everything this rank sends (sum of sendcounts); with MPI_IN_PLACE the
 * receive counts describe the exchange. */
int augur_MPI_Alltoallv(int site, const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm));
  int n = augur_comm_size(comm);
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_sum_bytes(recvcounts, n, recvtype) : augur_sum_bytes(sendcounts, n, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_ALLTOALLV, site, AUGUR_PEER_NONE, 0, b, comm);
  return finish(&r, t0, rc);
}

/* Allgatherv / Gatherv: bytes = this rank's contribution; at Gatherv's root the mean block it
 * receives (the sum of recvcounts over the group size), so that every rank records a per-rank
 * block as Gather does and the root's own count (often 0) does not skew the size. */
int augur_MPI_Allgatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcounts[comm_rank_of(comm)], recvtype)
                                      : augur_type_bytes(sendcount, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_ALLGATHERV, site, AUGUR_PEER_NONE, 0, b, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Gatherv(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm));
  int64_t b = comm_rank_of(comm) == root
                  ? augur_sum_bytes(recvcounts, augur_comm_size(comm), recvtype) / augur_comm_size(comm)
                  : augur_type_bytes(sendcount, sendtype);
  augur_mpi_rec r = rec(AUGUR_OP_GATHERV, site, augur_world_peer(comm, root), 0, b, comm);
  return finish(&r, t0, rc);
}

/* Scatterv: bytes = the block this rank receives; at the root the mean block it sends (the sum
 * of sendcounts over the group size), a per-rank block as Scatter records. Only the root's send
 * arguments are significant: other ranks may pass NULL. */
int augur_MPI_Scatterv(int site, const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm));
  int64_t b = comm_rank_of(comm) == root
                  ? augur_sum_bytes(sendcounts, augur_comm_size(comm), sendtype) / augur_comm_size(comm)
                  : augur_type_bytes(recvcount, recvtype);
  augur_mpi_rec r = rec(AUGUR_OP_SCATTERV, site, augur_world_peer(comm, root), 0, b, comm);
  return finish(&r, t0, rc);
}

/* Reduce_scatter: bytes = the whole input vector (sum of recvcounts). */
int augur_MPI_Reduce_scatter(int site, const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, dt, op, comm));
  augur_mpi_rec r =
      rec(AUGUR_OP_REDUCE_SCATTER, site, AUGUR_PEER_NONE, 0, augur_sum_bytes(recvcounts, augur_comm_size(comm), dt), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Scan(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Scan(sendbuf, recvbuf, count, dt, op, comm));
  augur_mpi_rec r = rec(AUGUR_OP_SCAN, site, AUGUR_PEER_NONE, 0, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Exscan(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Exscan(sendbuf, recvbuf, count, dt, op, comm));
  augur_mpi_rec r = rec(AUGUR_OP_EXSCAN, site, AUGUR_PEER_NONE, 0, augur_type_bytes(count, dt), comm);
  return finish(&r, t0, rc);
}

/* Reduce_scatter_block: bytes = the whole input vector (recvcount × group size), as
 * Reduce_scatter records. */
int augur_MPI_Reduce_scatter_block(int site, const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, dt, op, comm));
  int64_t b = augur_type_bytes(recvcount, dt);
  int32_t n = augur_comm_size(comm);
  augur_mpi_rec r = rec(AUGUR_OP_REDUCE_SCATTER_BLOCK, site, AUGUR_PEER_NONE, 0, b < 0 || n < 0 ? -1 : b * n, comm);
  return finish(&r, t0, rc);
}

/* ---------------------------------------------------------------- nonblocking collectives
 * The record is the start: peer (root), bytes as the blocking counterpart records them, the
 * communicator size and a fresh request id; the wait that completes the request writes a Part
 * with the same op, site, peer and bytes. The collective's time is the start's plus what the
 * completing wait blocks for; the computation between them overlaps it. */

static int icoll_finish(uint8_t op, int site, int32_t peer, int64_t bytes, MPI_Comm comm, MPI_Request *req,
                        augur_stamp t0, int rc) {
  augur_mpi_rec r = rec(op, site, peer, 0, bytes, comm);
  if (rc == MPI_SUCCESS) r.req_id = augur_req_add_coll(*req, op, r.site, peer, bytes, comm);
  return finish(&r, t0, rc);
}

int augur_MPI_Ibarrier(int site, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Ibarrier(comm, req));
  return icoll_finish(AUGUR_OP_IBARRIER, site, AUGUR_PEER_NONE, 0, comm, req, t0, rc);
}

int augur_MPI_Ibcast(int site, void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Ibcast(buf, count, dt, root, comm, req));
  return icoll_finish(AUGUR_OP_IBCAST, site, root_peer(comm, root), augur_type_bytes(count, dt), comm, req, t0, rc);
}

int augur_MPI_Ireduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      int root, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Ireduce(sendbuf, recvbuf, count, dt, op, root, comm, req));
  return icoll_finish(AUGUR_OP_IREDUCE, site, root_peer(comm, root), augur_type_bytes(count, dt), comm, req, t0, rc);
}

int augur_MPI_Iallreduce(int site, const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                         MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Iallreduce(sendbuf, recvbuf, count, dt, op, comm, req));
  return icoll_finish(AUGUR_OP_IALLREDUCE, site, AUGUR_PEER_NONE, augur_type_bytes(count, dt), comm, req, t0, rc);
}

int augur_MPI_Ialltoall(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  return icoll_finish(AUGUR_OP_IALLTOALL, site, AUGUR_PEER_NONE, b, comm, req, t0, rc);
}

int augur_MPI_Igather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  return icoll_finish(AUGUR_OP_IGATHER, site, root_peer(comm, root), b, comm, req, t0, rc);
}

int augur_MPI_Iallgather(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, req));
  int64_t b = sendbuf == MPI_IN_PLACE ? augur_type_bytes(recvcount, recvtype) : augur_type_bytes(sendcount, sendtype);
  return icoll_finish(AUGUR_OP_IALLGATHER, site, AUGUR_PEER_NONE, b, comm, req, t0, rc);
}

int augur_MPI_Iscatter(int site, const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *req) {
  AUGUR_ENTRY;
  augur_stamp t0 = augur_now();
  int rc;
  AUGUR_MPI(rc = MPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, req));
  int64_t b = recvbuf == MPI_IN_PLACE ? augur_type_bytes(sendcount, sendtype) : augur_type_bytes(recvcount, recvtype);
  return icoll_finish(AUGUR_OP_ISCATTER, site, root_peer(comm, root), b, comm, req, t0, rc);
}

/* Abort: the event and everything buffered are written (no trailer: the run did not finish). */
int augur_MPI_Abort(int site, MPI_Comm comm, int errorcode) {
  AUGUR_ENTRY;
  augur_mpi_rec r = rec(AUGUR_OP_ABORT, site, AUGUR_PEER_NONE, errorcode, 0, comm);
  r.t0 = r.t1 = augur_now();
  augur_emit_mpi(&r);
  augur_flush_for_abort();
  int rc;
  AUGUR_MPI(rc = MPI_Abort(comm, errorcode));
  return rc;
}
