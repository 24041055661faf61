//! The machine data sheet (seeds 000 ch. 3, 002 §3): what one MPI message and one collective
//! cost on a machine, as fitted closed forms in the group size `p` and the message size `d`
//! (bytes). The phase formulas of seed 004 §4.1 read τ(m), s, r and o from here.
//!
//! Invariants:
//! - In a [`Form`] the `terms` (term text, coefficient, standard error) are authoritative; the
//!   `expr`, `expr_min`, `expr_max` strings written beside them are derived on save and ignored
//!   on load. Every term is checked to parse and to use only `p` and `d` when a file is read.
//! - A [`CostModel`]'s regimes are sorted by their upper size bound and only the last one is
//!   unbounded, so every message size falls in exactly one regime.
//! - Evaluated costs are clamped at zero (a fitted line may dip below zero outside the data)
//!   and never step down from one size regime to the next; the symbolic expressions of each
//!   regime are returned as fitted.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;
use symbolic::{Compiled, Expr};

pub use crate::machine_analytic::{paragon, tree_machine, TreeMachineSpec};
pub use crate::machine_fit::{
    fit_machine, one_way_misses, FitMachineError, OneWayMiss, FORM_NAMES, ONE_WAY_TOLERANCE,
};

/// The file format version this code reads and writes.
pub const SCHEMA_VERSION: u32 = 1;
/// The two variables every form is written in, in evaluation order.
pub const VARS: [&str; 2] = ["p", "d"];

#[derive(Debug, thiserror::Error)]
pub enum MachineError {
    #[error("cannot read machine file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot write machine file {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("machine file {path} is not a valid data sheet: {source}")]
    Json {
        path: String,
        source: serde_json::Error,
    },
    #[error("machine file {path} has schema {found}; this augur reads schema {SCHEMA_VERSION}")]
    Schema { path: String, found: u32 },
    #[error("machine file {path}: {message}")]
    Invalid { path: String, message: String },
}

/// Where the numbers came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Fitted from `augur characterize` microbenchmark runs.
    Measured,
    /// Written from published figures (e.g. a paper's latency and bandwidth).
    HandBuilt,
}

/// How the data sheet was measured (or built).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub source: Source,
    /// MPI library version string (first line of `MPI_Get_library_version`).
    pub mpi: String,
    /// `mpirun`, `smpirun`, or empty when hand-built.
    pub launcher: String,
    pub host: String,
    /// UTC date of the measurement, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// Ranks in the launch.
    pub launch_np: u32,
    /// Group sizes the collectives were measured at.
    pub group_sizes: Vec<u32>,
    /// Message sizes (bytes) of the point-to-point and collective measurements.
    pub p2p_sizes: Vec<u64>,
    pub coll_sizes: Vec<u64>,
    /// Timed repetitions per point (fewer for large messages), after 2 warm-up calls.
    pub reps: u32,
    /// SMPI platform file, when simulated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<String>,
    /// More ranks than cores: timings include time-slicing noise.
    pub oversubscribed: bool,
    /// The command line that produced the measurements.
    #[serde(default)]
    pub command: Vec<String>,
}

/// One fitted coefficient.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Coef {
    /// A term in `p` and `d`, e.g. `log2(p)` or `d*p`; `1` for the constant.
    pub term: String,
    pub value: f64,
    /// Standard error of `value` (0 when hand-built).
    pub stderr: f64,
}

/// How well a form fits its data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitQuality {
    pub points: usize,
    /// Σ ((y − ŷ)/σ)² with σ the measurement spread (median − min, at least 2% of y).
    pub chi2: f64,
    pub r2: f64,
    pub max_rel_error: f64,
    /// Candidate forms fitted to choose this one.
    pub forms_tried: usize,
}

/// On-disk shape of a [`Form`].
#[derive(Debug, Clone, Serialize, Deserialize)]
struct FormFile {
    form: String,
    #[serde(default)]
    expr: String,
    #[serde(default)]
    expr_min: String,
    #[serde(default)]
    expr_max: String,
    terms: Vec<Coef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fit: Option<FitQuality>,
}

/// Which value of a band to evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// Every coefficient minus its standard error.
    Min,
    Avg,
    /// Every coefficient plus its standard error.
    Max,
}

/// A cost `Σ value_j · term_j(p, d)` in seconds, with its ± standard-error band.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "FormFile", into = "FormFile")]
pub struct Form {
    /// The form's name, e.g. `c + s*log2(p) + k*d*p`, or `hand-built`.
    pub form: String,
    pub terms: Vec<Coef>,
    pub fit: Option<FitQuality>,
    exprs: [Expr; 3],
    compiled: Vec<Compiled>,
}

fn parse_term(t: &str) -> Result<(Expr, Compiled), String> {
    let e = symbolic::parse(t).map_err(|e| format!("term `{t}` does not parse: {}", e.message))?;
    let c = Compiled::new(&e, &VARS)
        .map_err(|e| format!("term `{t}` uses something other than p and d: {e}"))?;
    Ok((e, c))
}

impl Form {
    /// Builds a form from its coefficients; fails when a term does not parse or uses a
    /// variable other than `p` and `d`.
    pub fn new(
        form: impl Into<String>,
        terms: Vec<Coef>,
        fit: Option<FitQuality>,
    ) -> Result<Form, String> {
        let mut parsed = Vec::with_capacity(terms.len());
        let mut compiled = Vec::with_capacity(terms.len());
        for c in &terms {
            if !c.value.is_finite() || !c.stderr.is_finite() {
                return Err(format!(
                    "coefficient of `{}` is not a finite number",
                    c.term
                ));
            }
            let (e, comp) = parse_term(&c.term)?;
            parsed.push(e);
            compiled.push(comp);
        }
        let band = |sign: f64| -> Expr {
            parsed
                .iter()
                .zip(&terms)
                .map(|(e, c)| e * Expr::num(c.value + sign * c.stderr))
                .sum()
        };
        let exprs = [band(-1.0), band(0.0), band(1.0)];
        Ok(Form {
            form: form.into(),
            terms,
            fit,
            exprs,
            compiled,
        })
    }

    /// The cost expression in `p` and `d` (unclamped).
    pub fn expr(&self) -> &Expr {
        &self.exprs[1]
    }

    pub fn expr_bound(&self, b: Bound) -> &Expr {
        &self.exprs[match b {
            Bound::Min => 0,
            Bound::Avg => 1,
            Bound::Max => 2,
        }]
    }

    /// Cost in seconds at group size `p` and `d` bytes, clamped at zero.
    pub fn eval_bound(&self, p: f64, d: f64, b: Bound) -> f64 {
        let sign = match b {
            Bound::Min => -1.0,
            Bound::Avg => 0.0,
            Bound::Max => 1.0,
        };
        let v: f64 = self
            .compiled
            .iter()
            .zip(&self.terms)
            .map(|(c, t)| c.eval(&[p, d]) * (t.value + sign * t.stderr))
            .sum();
        if v.is_nan() {
            v
        } else {
            v.max(0.0)
        }
    }

    pub fn eval(&self, p: f64, d: f64) -> f64 {
        self.eval_bound(p, d, Bound::Avg)
    }
}

impl TryFrom<FormFile> for Form {
    type Error = String;
    fn try_from(f: FormFile) -> Result<Form, String> {
        Form::new(f.form, f.terms, f.fit)
    }
}

impl From<Form> for FormFile {
    fn from(f: Form) -> FormFile {
        FormFile {
            // Exact text: the short printer rounds coefficients below 1e-9 s to 0.
            expr: f.exprs[1].to_text_exact(),
            expr_min: f.exprs[0].to_text_exact(),
            expr_max: f.exprs[2].to_text_exact(),
            form: f.form,
            terms: f.terms,
            fit: f.fit,
        }
    }
}

/// One message-size regime (seed 002: small and large messages fit separately).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Regime {
    /// Largest message size (bytes) this regime covers; `None` for the last, unbounded one.
    pub up_to_bytes: Option<u64>,
    #[serde(flatten)]
    pub cost: Form,
}

/// A cost over message-size regimes. For point-to-point quantities `p` is 2.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(try_from = "Vec<Regime>", into = "Vec<Regime>")]
pub struct CostModel {
    regimes: Vec<Regime>,
}

/// What the brief's API calls a collective's cost: one [`CostModel`] in `p` and `d`.
pub type CollectiveCost = CostModel;

impl TryFrom<Vec<Regime>> for CostModel {
    type Error = String;
    fn try_from(regimes: Vec<Regime>) -> Result<CostModel, String> {
        CostModel::new(regimes)
    }
}

impl From<CostModel> for Vec<Regime> {
    fn from(c: CostModel) -> Vec<Regime> {
        c.regimes
    }
}

impl CostModel {
    /// Checks the regime invariant (sorted bounds, only the last unbounded, at least one).
    pub fn new(regimes: Vec<Regime>) -> Result<CostModel, String> {
        let n = regimes.len();
        if n == 0 {
            return Err("a cost needs at least one regime".into());
        }
        let mut prev: Option<u64> = None;
        for (i, r) in regimes.iter().enumerate() {
            match (r.up_to_bytes, i + 1 == n) {
                (None, true) => {}
                (None, false) => {
                    return Err("only the last regime may have no `up_to_bytes`".into())
                }
                (Some(_), true) => return Err(
                    "the last regime must have no `up_to_bytes` (it covers all larger messages)"
                        .into(),
                ),
                (Some(b), false) => {
                    if prev.is_some_and(|p| p >= b) {
                        return Err("regimes must be sorted by increasing `up_to_bytes`".into());
                    }
                    prev = Some(b);
                }
            }
        }
        Ok(CostModel { regimes })
    }

    /// A single-regime cost.
    pub fn single(cost: Form) -> CostModel {
        CostModel {
            regimes: vec![Regime {
                up_to_bytes: None,
                cost,
            }],
        }
    }

    pub fn regimes(&self) -> &[Regime] {
        &self.regimes
    }

    /// The regime covering messages of `d` bytes.
    pub fn regime_at(&self, d: f64) -> &Form {
        for r in &self.regimes {
            match r.up_to_bytes {
                Some(b) if d <= b as f64 => return &r.cost,
                Some(_) => {}
                None => return &r.cost,
            }
        }
        // Unreachable by the invariant (the last regime is unbounded); keep a total answer.
        &self.regimes[self.regimes.len() - 1].cost
    }

    /// The cost as one expression in `d` (a message size expression) and `p`, bound `b`, over
    /// the regimes that sizes from `lo` to `hi` bytes reach (the sizes the runs measured; the
    /// outer regimes extend past them): the first regime, plus at each boundary `u` the step
    /// `[d > u] = min(1, floor(d/(u+1)))` (sizes are whole bytes) times the next regime's
    /// difference from the one before. A model whose message sizes cross a protocol boundary
    /// between runs stays right on both sides; one whose sizes stay in one regime reads as that
    /// regime's formula.
    pub fn piecewise(&self, b: Bound, d: &Expr, p: &Expr, lo: f64, hi: f64) -> Expr {
        let index = |x: f64| {
            self.regimes
                .iter()
                .position(|r| r.up_to_bytes.is_none_or(|u| x <= u as f64))
                .unwrap_or(self.regimes.len() - 1)
        };
        let (first, last) = (index(lo.min(hi)), index(lo.max(hi)));
        let used = &self.regimes[first..=last];
        let at = |r: &Regime| r.cost.expr_bound(b).subs("d", d).subs("p", p);
        let mut out = at(&used[0]);
        for w in used.windows(2) {
            let Some(u) = w[0].up_to_bytes else { break };
            let step = Expr::min(Expr::one(), (d / Expr::num(u as f64 + 1.0)).floor());
            out = out + step * (at(&w[1]) - at(&w[0]));
        }
        out
    }

    /// The expression of the regime covering `d` bytes.
    pub fn expr_at(&self, d: f64) -> &Expr {
        self.regime_at(d).expr()
    }

    /// The expression of the last (large-message, unbounded) regime; use [`Self::expr_at`]
    /// when the message size is known.
    pub fn expr(&self) -> &Expr {
        self.regimes[self.regimes.len() - 1].cost.expr()
    }

    /// Cost at `p` and `d` bytes: the covering regime's value, but never below what an earlier
    /// regime gives at its upper bound (a larger message never costs less than the largest
    /// message of the previous regime; noisy fits can otherwise step down at a boundary).
    pub fn eval_bound(&self, p: f64, d: f64, b: Bound) -> f64 {
        let mut floor = 0.0f64;
        for r in &self.regimes {
            match r.up_to_bytes {
                Some(up) if d > up as f64 => floor = floor.max(r.cost.eval_bound(p, up as f64, b)),
                _ => return r.cost.eval_bound(p, d, b).max(floor),
            }
        }
        floor
    }

    pub fn eval(&self, p: f64, d: f64) -> f64 {
        self.eval_bound(p, d, Bound::Avg)
    }
    pub fn eval_min(&self, p: f64, d: f64) -> f64 {
        self.eval_bound(p, d, Bound::Min)
    }
    pub fn eval_max(&self, p: f64, d: f64) -> f64 {
        self.eval_bound(p, d, Bound::Max)
    }
}

/// Point-to-point costs between two ranks, all in seconds as functions of `d` bytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PointToPoint {
    /// Half round trip of the smallest measured message (what is usually quoted as latency).
    pub latency: f64,
    /// Bytes per second: largest measured size / (its half round trip − latency).
    pub bandwidth: f64,
    /// Extra per-message cost in a steady stream beyond s + r (seed 004's o), seconds.
    pub o: f64,
    /// Half round trip of a ping-pong on buffers both sides keep in cache.
    pub pingpong: CostModel,
    /// τ(d): the part of a message's cost that computation can overlap (seed 004 §4.1).
    /// τ + s + r is the one-way cost of a message in a program: the larger of the half round
    /// trip and the fresh-data stream period (`raw["stream_fresh"]`, data the sender has just
    /// updated and the receiver then reads) where the sheet measured one, else the half
    /// round trip.
    pub tau: CostModel,
    /// s(d): time in MPI_Send with the receive already posted.
    pub send_overhead: CostModel,
    /// r(d): time in MPI_Recv for a message that has already arrived.
    pub recv_overhead: CostModel,
    /// Largest message (bytes) whose blocking send completes without the receiver entering
    /// MPI (eager protocol); larger sends wait for the receive (rendezvous), so a send posted
    /// before the receiver's computation costs that computation too. Measured (where the
    /// send with a late receive starts to wait); absent when unknown, and then every send is
    /// taken as eager.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eager_limit: Option<u64>,
    /// The time a sender's loop takes, at least, to update in place a buffer of `d` bytes it
    /// has just sent and its receiver has read: the cache lines come back from the receiver's
    /// core (`rewrite_sent`, the sender's update per message in the fresh-data stream). On
    /// this host 2–3× the update of data only the sender touches at 64–128 KiB, less at
    /// 256 KiB: interpolated between the measured sizes, not fitted, as no smooth law follows
    /// that. Absent where the sheet has no such measurement (a simulator, a hand-built sheet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewrite: Option<CostModel>,
    /// A nonblocking exchange's costs (MPI_Irecv and MPI_Isend, then one MPI_Waitall), where
    /// the sheet measured them; absent in older and hand-built sheets, whose exchanges are
    /// then costed as blocking sends and receives.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonblocking: Option<Nonblocking>,
    /// Raw measurements not used by the phase formulas (send with the receive posted late,
    /// stream periods, overheads before they were reconciled), keyed by name.
    #[serde(default)]
    pub raw: BTreeMap<String, CostModel>,
}

/// A nonblocking exchange with one peer, `k` messages of `d` bytes each way: both sides post
/// their receives and sends, then wait for all of them. Measured at k = 1 and k = 8
/// (`augur_bench`'s `nb_*` rows); a part at `k` is `first + (k − 1)·each`, and the exchange
/// costs `max(wire, W) + k·post + wait` where `W` is the computation between the posts and
/// the wait. Natively the copies happen in the wait (the processor's time: no overlap);
/// under SMPI the transfers run in the simulated network while the processor computes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Nonblocking {
    /// Time in one MPI_Irecv and one MPI_Isend.
    pub post: CostModel,
    /// Time in the wait after a computation long enough for every transfer: what completing
    /// the requests costs the processor whatever ran between post and wait.
    pub wait_first: CostModel,
    pub wait_each: CostModel,
    /// The rest of the exchange (its time less the posts and that wait, at least 0): what a
    /// computation between the posts and the wait hides.
    pub wire_first: CostModel,
    pub wire_each: CostModel,
}

/// An exchange of `k` messages of `d` bytes each way by posted receives and sends completed
/// by one wait, in the sheet's three parts at bound `b` (sizes from `lo` to `hi`, as
/// [`CostModel::piecewise`] reads them).
#[derive(Debug, Clone)]
pub struct NbExchange {
    /// The transfers: what a computation between the posts and the wait hides.
    pub wire: Expr,
    /// The `k` posts of a receive and a send.
    pub posts: Expr,
    /// The wait the processor pays whatever ran between posts and wait.
    pub wait: Expr,
}

impl Nonblocking {
    /// The exchange of `k` messages of `d` bytes each way, in its parts ([`NbExchange`]).
    pub fn exchange(&self, k: &Expr, b: Bound, d: &Expr, lo: f64, hi: f64) -> NbExchange {
        let at = |first, each| Nonblocking::at_k(first, each, k, b, d, lo, hi);
        NbExchange {
            wire: at(&self.wire_first, &self.wire_each),
            posts: k * self.post.piecewise(b, d, &Expr::int(2), lo, hi),
            wait: at(&self.wait_first, &self.wait_each),
        }
    }

    /// The part `first + (k − 1)·each` at bound `b`, as [`CostModel::piecewise`] does.
    pub fn at_k(
        first: &CostModel,
        each: &CostModel,
        k: &Expr,
        b: Bound,
        d: &Expr,
        lo: f64,
        hi: f64,
    ) -> Expr {
        let p = Expr::int(2);
        first.piecewise(b, d, &p, lo, hi) + (k - &Expr::one()) * each.piecewise(b, d, &p, lo, hi)
    }
}

/// The collectives a data sheet covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CollectiveOp {
    Barrier,
    Bcast,
    Reduce,
    Allreduce,
    Gather,
    Scatter,
    Allgather,
    Alltoall,
    /// The v-forms, measured with every rank's count the same: MPI libraries run other
    /// algorithms for them than for the regular forms (SMPI's alltoall switches algorithm with
    /// the size, its alltoallv does not). A sheet without them costs them as the regular form.
    Gatherv,
    Scatterv,
    Allgatherv,
    Alltoallv,
}

impl CollectiveOp {
    pub const ALL: [CollectiveOp; 12] = [
        CollectiveOp::Barrier,
        CollectiveOp::Bcast,
        CollectiveOp::Reduce,
        CollectiveOp::Allreduce,
        CollectiveOp::Gather,
        CollectiveOp::Scatter,
        CollectiveOp::Allgather,
        CollectiveOp::Alltoall,
        CollectiveOp::Gatherv,
        CollectiveOp::Scatterv,
        CollectiveOp::Allgatherv,
        CollectiveOp::Alltoallv,
    ];

    /// The regular form a v-form is costed as where a sheet lacks it; itself otherwise.
    pub fn regular(self) -> CollectiveOp {
        match self {
            CollectiveOp::Gatherv => CollectiveOp::Gather,
            CollectiveOp::Scatterv => CollectiveOp::Scatter,
            CollectiveOp::Allgatherv => CollectiveOp::Allgather,
            CollectiveOp::Alltoallv => CollectiveOp::Alltoall,
            op => op,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            CollectiveOp::Barrier => "barrier",
            CollectiveOp::Bcast => "bcast",
            CollectiveOp::Reduce => "reduce",
            CollectiveOp::Allreduce => "allreduce",
            CollectiveOp::Gather => "gather",
            CollectiveOp::Scatter => "scatter",
            CollectiveOp::Allgather => "allgather",
            CollectiveOp::Alltoall => "alltoall",
            CollectiveOp::Gatherv => "gatherv",
            CollectiveOp::Scatterv => "scatterv",
            CollectiveOp::Allgatherv => "allgatherv",
            CollectiveOp::Alltoallv => "alltoallv",
        }
    }

    /// Whether the cost depends on a message size.
    pub fn has_data(self) -> bool {
        self != CollectiveOp::Barrier
    }
}

impl fmt::Display for CollectiveOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CollectiveOp {
    type Err = String;
    /// Accepts `allreduce`, `MPI_Allreduce`, `mpi_allreduce` (any case).
    fn from_str(s: &str) -> Result<Self, String> {
        let l = s.to_ascii_lowercase();
        let l = l.strip_prefix("mpi_").unwrap_or(&l);
        CollectiveOp::ALL
            .into_iter()
            .find(|o| o.name() == l)
            .ok_or_else(|| format!("unknown collective `{s}`"))
    }
}

/// The data sheets shipped in `machines/`, embedded: (name, JSON text).
pub const BUILTIN: [(&str, &str); 3] = [
    (
        "this-openmpi-shm",
        include_str!("../../machines/this-openmpi-shm.json"),
    ),
    (
        "smpi-reference",
        include_str!("../../machines/smpi-reference.json"),
    ),
    ("paragon", include_str!("../../machines/paragon.json")),
];

/// A machine's MPI data sheet.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Machine {
    pub schema: u32,
    pub name: String,
    pub description: String,
    pub measured: Provenance,
    pub point_to_point: PointToPoint,
    /// Per collective, `c + s·f(p) + k·g(p,d)`; `d` is the per-process block in bytes
    /// (bcast: the buffer; reduce/allreduce: the vector; gather/scatter/allgather: one
    /// process's block; alltoall: one pair's block; the v-forms as their regular forms, every
    /// rank the same count).
    pub collectives: BTreeMap<CollectiveOp, CollectiveCost>,
    /// Seconds: a computation burst (the time between two MPI calls of a rank) shorter than
    /// this is not charged at all. SMPI's `smpi/cpu-threshold` (1 µs by default), read from the
    /// simulator by the benchmark; none on a real machine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_threshold: Option<f64>,
    /// The host's detours (`augur_bench -m noise`; [`crate::noise`]): what a step that
    /// synchronises P ranks waits for beyond their computation. None where not measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise: Option<crate::noise::HostNoise>,
}

impl Machine {
    /// Reads and validates a data sheet.
    pub fn load(path: &Path) -> Result<Machine, MachineError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| MachineError::Read {
            path: shown.clone(),
            source,
        })?;
        Machine::from_json(&text, &shown)
    }

    /// A shipped data sheet by name (`this-openmpi-shm`, `smpi-reference`, `paragon`); `None`
    /// for an unknown name.
    pub fn builtin(name: &str) -> Option<Result<Machine, MachineError>> {
        BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, text)| Machine::from_json(text, &format!("builtin:{n}")))
    }

    /// Parses a data sheet; `origin` names it in errors.
    pub fn from_json(text: &str, origin: &str) -> Result<Machine, MachineError> {
        #[derive(Deserialize)]
        struct Version {
            schema: u32,
        }
        let v: Version = serde_json::from_str(text).map_err(|source| MachineError::Json {
            path: origin.into(),
            source,
        })?;
        if v.schema != SCHEMA_VERSION {
            return Err(MachineError::Schema {
                path: origin.into(),
                found: v.schema,
            });
        }
        let m: Machine = serde_json::from_str(text).map_err(|source| MachineError::Json {
            path: origin.into(),
            source,
        })?;
        m.validate().map_err(|message| MachineError::Invalid {
            path: origin.into(),
            message,
        })?;
        Ok(m)
    }

    fn validate(&self) -> Result<(), String> {
        if let Some(n) = &self.noise {
            n.validate()?;
        }
        let pp = &self.point_to_point;
        for (what, v) in [
            ("latency", pp.latency),
            ("bandwidth", pp.bandwidth),
            ("o", pp.o),
        ] {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "point_to_point.{what} must be a finite non-negative number, found {v}"
                ));
            }
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        // Serialising plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Writes the data sheet whole or not at all (temporary file + rename).
    pub fn save(&self, path: &Path) -> Result<(), MachineError> {
        let shown = path.display().to_string();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "machine.json".into());
        let tmp = path.with_file_name(format!(".{name}.tmp{}", std::process::id()));
        let write = std::fs::write(&tmp, self.to_json()).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(source) = write {
            let _ = std::fs::remove_file(&tmp);
            return Err(MachineError::Write {
                path: shown,
                source,
            });
        }
        Ok(())
    }

    /// τ(m): transfer time of an m-byte message that computation can overlap, seconds.
    pub fn tau(&self, bytes: f64) -> f64 {
        self.point_to_point.tau.eval(2.0, bytes)
    }
    /// s(m): send overhead, seconds.
    pub fn send_overhead(&self, bytes: f64) -> f64 {
        self.point_to_point.send_overhead.eval(2.0, bytes)
    }
    /// r(m): receive overhead, seconds.
    pub fn recv_overhead(&self, bytes: f64) -> f64 {
        self.point_to_point.recv_overhead.eval(2.0, bytes)
    }
    /// Whether a blocking send of `bytes` waits for its receive (above the eager limit).
    pub fn rendezvous(&self, bytes: f64) -> bool {
        self.point_to_point
            .eager_limit
            .is_some_and(|e| bytes > e as f64)
    }
    /// o: other per-message overhead in a pipeline's steady state, seconds.
    pub fn other_overhead(&self) -> f64 {
        self.point_to_point.o
    }
    /// Half round trip of the cached ping-pong (τ + s + r is at least this).
    pub fn pingpong(&self, bytes: f64) -> f64 {
        self.point_to_point.pingpong.eval(2.0, bytes)
    }

    pub fn collective(&self, op: CollectiveOp) -> Option<&CollectiveCost> {
        self.collectives.get(&op)
    }
}
