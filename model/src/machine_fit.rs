//! Fitting a data sheet from microbenchmark measurements (seed 002 §3, seed 000 §3.5): every
//! collective is fitted to the 12 forms `c + s·f(p) + k·g(p,d)`, f ∈ {log2 p, p, p²},
//! g ∈ {d, d·log2 p, d·p, d·p²}, keeping the one with the least χ²; message sizes are split
//! into as many regimes as lower χ² + k·ln n (BIC with known σ): protocol switches and
//! network-factor steps each start a regime where the sizes bracket them.
//!
//! Invariants:
//! - Medians are fitted (robust to the heavy tails of oversubscribed runs); σ of a point is its
//!   spread (median − min), at least 2% of the median. Every fit minimises χ² = Σ((y − ŷ)/σ)²,
//!   the same quantity the form selection compares.
//! - Forms whose coefficients are all non-negative are preferred: a negative startup or
//!   per-byte cost is an artefact of noise and would make costs fall as messages grow (a
//!   negative constant is accepted while the fit stays positive at every measured point).
//! - Point-to-point: h(d) = τ(d) + s(d) + r(d) holds at every measured size, h being a
//!   message's one-way cost in a program: the larger of the half round trip and the period of
//!   a stream of freshly updated data (`stream_fresh`), so the phase formulas of seed 004
//!   reproduce it (see [`reconcile`]). The ping-pong stays in the sheet for reference.

use crate::machine::{
    Coef, CollectiveOp, CostModel, FitQuality, Form, Machine, Nonblocking, PointToPoint,
    Provenance, Regime, SCHEMA_VERSION,
};
use crate::machine_bench::{BenchData, BenchRow, Kind};
use crate::noise::{DetourBin, HostNoise};
use std::collections::BTreeMap;
use symbolic::fit::{fit_terms, FitOptions, Weighting};
use symbolic::Expr;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FitMachineError {
    #[error("the measurements have no `{0}` points (was the benchmark cut short?)")]
    Missing(String),
    #[error("cannot fit {what}: {message}")]
    Fit { what: String, message: String },
}

/// The startup functions f(p) and data functions g(p, d) of seed 002 §3, as term text.
const STARTUP: [&str; 3] = ["log2(p)", "p", "p^2"];
const DATA: [&str; 4] = ["d", "d*log2(p)", "d*p", "d*p^2"];

/// Names of the 12 collective forms, in the order they are tried.
pub const FORM_NAMES: [&str; 12] = [
    "c + s*log2(p) + k*d",
    "c + s*log2(p) + k*d*log2(p)",
    "c + s*log2(p) + k*d*p",
    "c + s*log2(p) + k*d*p^2",
    "c + s*p + k*d",
    "c + s*p + k*d*log2(p)",
    "c + s*p + k*d*p",
    "c + s*p + k*d*p^2",
    "c + s*p^2 + k*d",
    "c + s*p^2 + k*d*log2(p)",
    "c + s*p^2 + k*d*p",
    "c + s*p^2 + k*d*p^2",
];

/// Relative floor of a point's σ.
const SIGMA_FLOOR: f64 = 0.02;
/// Distinct message sizes each regime needs before a split is considered.
const MIN_SIZES_PER_REGIME: usize = 3;

/// One observation to fit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Obs {
    pub p: f64,
    pub d: f64,
    pub y: f64,
    pub sigma: f64,
}

impl Obs {
    fn from_row(r: &BenchRow) -> Obs {
        Obs {
            p: f64::from(r.p),
            d: r.bytes as f64,
            y: r.median,
            sigma: sigma(r.median, r.min),
        }
    }
}

fn sigma(median: f64, min: f64) -> f64 {
    (median - min)
        .max(SIGMA_FLOOR * median.abs())
        .max(f64::MIN_POSITIVE)
}

fn distinct(xs: impl Iterator<Item = f64>) -> Vec<f64> {
    let mut v: Vec<f64> = xs.collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// A candidate form: its name and its terms.
type Hypothesis = (String, Vec<String>);

/// Candidate forms for data varying as in `obs`: the full three-coefficient forms, and the
/// reduced ones tried only when no full form has non-negative coefficients.
fn hypotheses(obs: &[Obs], has_data: bool) -> (Vec<Hypothesis>, Vec<Hypothesis>) {
    let vary_p = distinct(obs.iter().map(|o| o.p)).len() >= 2;
    let vary_d = has_data && distinct(obs.iter().map(|o| o.d)).len() >= 2;
    let h = |name: &str, terms: &[&str]| {
        (
            name.to_string(),
            terms.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        )
    };
    let mut full = Vec::new();
    let mut reduced = Vec::new();
    match (vary_p, vary_d) {
        (true, true) => {
            let mut i = 0;
            for f in STARTUP {
                for g in DATA {
                    full.push(h(FORM_NAMES[i], &["1", f, g]));
                    i += 1;
                }
            }
            for g in DATA {
                reduced.push(h(&format!("c + k*{g}"), &["1", g]));
            }
            for f in STARTUP {
                reduced.push(h(&format!("c + s*{f}"), &["1", f]));
            }
        }
        (true, false) => {
            for f in STARTUP {
                full.push(h(&format!("c + s*{f}"), &["1", f]));
            }
        }
        (false, true) => {
            full.push(h("c + k*d", &["1", "d"]));
            reduced.push(h("k*d", &["d"]));
        }
        (false, false) => {}
    }
    reduced.push(h("c", &["1"]));
    (full, reduced)
}

struct Fitted {
    name: String,
    terms: Vec<Coef>,
    chi2: f64,
    r2: f64,
    max_rel: f64,
    nonneg: bool,
}

fn fit_one(obs: &[Obs], name: &str, terms: &[String]) -> Option<Fitted> {
    // χ² fit: every term is multiplied by w = 1/σ and fitted to y/σ with unit weights, so
    // least squares minimises Σ ((y − ŷ)/σ)² exactly (the weighting `symbolic::fit` lacks).
    let w = Expr::var("w");
    let exprs: Vec<Expr> = terms
        .iter()
        .map(|t| symbolic::parse(t).map(|e| &e * w.clone()))
        .collect::<Result<_, _>>()
        .ok()?;
    let points: Vec<Vec<f64>> = obs.iter().map(|o| vec![o.p, o.d, 1.0 / o.sigma]).collect();
    let values: Vec<f64> = obs.iter().map(|o| o.y / o.sigma).collect();
    let opts = FitOptions {
        weighting: Weighting::Absolute,
        ..FitOptions::default()
    };
    let r = fit_terms(&exprs, &["p", "d", "w"], &points, &values, &opts).ok()?;
    // Residuals are in units of σ.
    let chi2: f64 = r.residuals.iter().map(|res| res * res).sum();
    let raw: Vec<f64> = r
        .residuals
        .iter()
        .zip(obs)
        .map(|(res, o)| res * o.sigma)
        .collect();
    let max_rel = raw
        .iter()
        .zip(obs)
        .filter(|(_, o)| o.y != 0.0)
        .fold(0.0f64, |a, (res, o)| a.max((res / o.y).abs()));
    let mean = obs.iter().map(|o| o.y).sum::<f64>() / obs.len() as f64;
    let ss_tot: f64 = obs.iter().map(|o| (o.y - mean).powi(2)).sum();
    let ss_res: f64 = raw.iter().map(|x| x * x).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    let coefs: Vec<Coef> = terms
        .iter()
        .zip(&r.coeffs)
        .map(|(t, c)| Coef {
            term: t.clone(),
            value: c.coef,
            stderr: if c.stderr.is_finite() { c.stderr } else { 0.0 },
        })
        .collect();
    if coefs.iter().any(|c| !c.value.is_finite()) {
        return None;
    }
    // A slightly negative constant is noise around zero (costs are clamped at 0); a negative
    // p- or d-dependent coefficient would make costs fall as p or d grow.
    // A negative constant is fine while the fitted cost stays positive at every measured point
    // (beyond them the other terms only grow; costs are clamped at 0 below them). A negative
    // p- or d-dependent coefficient would make costs fall as p or d grow.
    let positive_at_data = raw.iter().zip(obs).all(|(res, o)| o.y - res > 0.0);
    let nonneg = positive_at_data && coefs.iter().all(|c| c.value >= 0.0 || c.term == "1");
    Some(Fitted {
        name: name.to_string(),
        terms: coefs,
        chi2,
        r2,
        max_rel,
        nonneg,
    })
}

/// The least-χ² form for `obs`, preferring non-negative coefficients, then the full
/// three-coefficient forms.
pub(crate) fn select_form(obs: &[Obs], has_data: bool) -> Result<Form, String> {
    if obs.is_empty() {
        return Err("no data points".into());
    }
    let (full, reduced) = hypotheses(obs, has_data);
    let mut tried = 0;
    // a form with as many terms as points fits them exactly: never a choice among several
    // such forms (chance), but a lone candidate interpolates (a line through two sizes)
    let fit_all = |hs: &[Hypothesis], tried: &mut usize| -> Vec<Fitted> {
        let lone = hs.len() == 1;
        hs.iter()
            .filter(|(_, t)| obs.len() > t.len() || t.len() == 1 || (lone && obs.len() == t.len()))
            .filter_map(|(n, t)| {
                *tried += 1;
                fit_one(obs, n, t)
            })
            .collect()
    };
    let best = |fs: Vec<Fitted>, need_nonneg: bool| {
        fs.into_iter()
            .filter(|f| f.nonneg || !need_nonneg)
            .min_by(|a, b| a.chi2.total_cmp(&b.chi2))
    };
    let full_fits = fit_all(&full, &mut tried);
    let any_full = full_fits
        .iter()
        .min_by(|a, b| a.chi2.total_cmp(&b.chi2))
        .map(|f| (f.name.clone(), f.terms.clone(), f.chi2, f.r2, f.max_rel));
    let chosen = match best(full_fits, true) {
        Some(f) => Some(f),
        None => {
            let red = fit_all(&reduced, &mut tried);
            best(red, true)
        }
    };
    let (name, terms, chi2, r2, max_rel) = match (chosen, any_full) {
        (Some(f), _) => (f.name, f.terms, f.chi2, f.r2, f.max_rel),
        (None, Some(f)) => f,
        (None, None) => {
            return Err("no candidate form could be fitted (too few or degenerate points)".into())
        }
    };
    let q = FitQuality {
        points: obs.len(),
        chi2,
        r2,
        max_rel_error: max_rel,
        forms_tried: tried,
    };
    Form::new(name, terms, Some(q))
}

/// Fits `obs` with the message-size regimes that minimise χ² + k·ln n (BIC with known σ; k
/// counts every regime's coefficients and one per boundary): an optimal segmentation of the
/// distinct sizes by dynamic programming, every regime spanning at least
/// [`MIN_SIZES_PER_REGIME`] sizes. A protocol or network-factor step between two measured
/// sizes becomes a boundary at the lower one.
pub(crate) fn fit_regimes(obs: &[Obs], has_data: bool) -> Result<CostModel, String> {
    let single = select_form(obs, has_data)?;
    let sizes = distinct(obs.iter().map(|o| o.d));
    if !has_data || sizes.len() < 2 * MIN_SIZES_PER_REGIME {
        return Ok(CostModel::single(single));
    }
    let ln_n = (obs.len() as f64).ln();
    let score = |f: &Form| -> f64 {
        let chi2 = f.fit.as_ref().map_or(f64::INFINITY, |q| q.chi2);
        chi2 + f.terms.len() as f64 * ln_n
    };
    let s = sizes.len();
    // best[j]: least score of regimes covering sizes[..j], with the start of its last regime.
    let mut best: Vec<(f64, usize)> = vec![(f64::INFINITY, 0); s + 1];
    best[0] = (0.0, 0);
    let mut forms: BTreeMap<(usize, usize), Form> = BTreeMap::new();
    forms.insert((0, s), single.clone());
    for j in MIN_SIZES_PER_REGIME..=s {
        for i in 0..=j - MIN_SIZES_PER_REGIME {
            if !best[i].0.is_finite() {
                continue;
            }
            let f = match forms.get(&(i, j)) {
                Some(f) => f.clone(),
                None => {
                    let (lo, hi) = (sizes[i], sizes[j - 1]);
                    let seg: Vec<Obs> = obs
                        .iter()
                        .copied()
                        .filter(|o| o.d >= lo && o.d <= hi)
                        .collect();
                    let Ok(f) = select_form(&seg, has_data) else {
                        continue;
                    };
                    forms.insert((i, j), f.clone());
                    f
                }
            };
            let boundary = if i > 0 { ln_n } else { 0.0 };
            let cand = best[i].0 + score(&f) + boundary;
            if cand < best[j].0 {
                best[j] = (cand, i);
            }
        }
    }
    if !best[s].0.is_finite() || best[s].0 >= score(&single) {
        return Ok(CostModel::single(single));
    }
    let mut cuts = vec![s];
    let mut j = s;
    while j > 0 {
        j = best[j].1;
        cuts.push(j);
    }
    cuts.reverse();
    let mut regimes = Vec::with_capacity(cuts.len() - 1);
    for w in cuts.windows(2) {
        let (i, j) = (w[0], w[1]);
        let cost = forms
            .remove(&(i, j))
            .ok_or_else(|| format!("internal: no fit kept for sizes {i}..{j}"))?;
        regimes.push(Regime {
            up_to_bytes: (j < s).then(|| sizes[j - 1] as u64),
            cost,
        });
    }
    CostModel::new(regimes)
}

/// Fits a point-to-point quantity with the protocol's regimes: messages up to the measured
/// eager limit and larger ones apart (the limit is where a blocking send starts waiting for
/// its receive, and the copy path changes with it: on Open MPI's vader a 1 KiB message cost 4×
/// an 8 B one while 64 KiB lay near the line from 8 B), each side then segmented by
/// [`fit_regimes`]. Without a limit inside the measured sizes, [`fit_regimes`] alone.
pub(crate) fn fit_protocol(obs: &[Obs], eager: Option<u64>) -> Result<CostModel, String> {
    let Some(limit) = eager else {
        return fit_regimes(obs, true);
    };
    let (small, large): (Vec<Obs>, Vec<Obs>) = obs.iter().partition(|o| o.d <= limit as f64);
    if small.is_empty() || large.is_empty() {
        return fit_regimes(obs, true);
    }
    let mut regimes = fit_regimes(&small, true)?.regimes().to_vec();
    if let Some(last) = regimes.last_mut() {
        last.up_to_bytes = Some(limit);
    }
    regimes.extend(fit_regimes(&large, true)?.regimes().iter().cloned());
    CostModel::new(regimes)
}

fn pt2pt_rows<'a>(
    data: &'a BenchData,
    op: &'a str,
) -> Result<BTreeMap<u64, &'a BenchRow>, FitMachineError> {
    let m: BTreeMap<u64, &BenchRow> = data.op(Kind::Pt2pt, op).map(|r| (r.bytes, r)).collect();
    if m.is_empty() {
        return Err(FitMachineError::Missing(format!("pt2pt {op}")));
    }
    Ok(m)
}

fn fit_err(what: &str) -> impl FnOnce(String) -> FitMachineError + '_ {
    move |message| FitMachineError::Fit {
        what: what.to_string(),
        message,
    }
}

/// Per size: (τ, s, r) with τ + s + r = h. τ keeps at least 10% of h; where the measured
/// overheads add up to more than the rest (a blocking send also waits for the protocol's
/// handshake, which the round trip overlaps), s and r are scaled down in proportion.
pub(crate) fn reconcile(h: f64, s: f64, r: f64) -> (f64, f64, f64) {
    let tau = (h - s - r).max(0.1 * h);
    let room = h - tau;
    if s + r > room && s + r > 0.0 {
        let k = room / (s + r);
        (tau, s * k, r * k)
    } else {
        (tau, s, r)
    }
}

/// Seconds by which a send with a late receive must exceed a send with the receive posted to
/// count as waiting for it: half the fixed part of the late receiver's delay
/// (`WAIT_MARGIN` in runtime/c/augur_bench.c, which bisects with the same rule).
pub(crate) const WAIT_MARGIN: f64 = 10e-6;

/// The eager limit: the largest `send_unposted` size below the smallest one that waited for
/// the late receive (see [`WAIT_MARGIN`]; the reference is the `send_posted` median at the
/// nearest size at or below, else the smallest). `None` when no send waited or there is no
/// such data; `Some(0)` when even the smallest waited.
pub(crate) fn eager_limit(data: &BenchData) -> Option<u64> {
    let posted: BTreeMap<u64, f64> = data
        .op(Kind::Pt2pt, "send_posted")
        .map(|r| (r.bytes, r.median))
        .collect();
    let reference = |b: u64| {
        posted
            .range(..=b)
            .next_back()
            .or_else(|| posted.iter().next())
            .map(|(_, m)| *m)
    };
    let mut unposted: Vec<(u64, f64)> = data
        .op(Kind::Pt2pt, "send_unposted")
        .map(|r| (r.bytes, r.median))
        .collect();
    unposted.sort_by_key(|u| u.0);
    let first_wait = unposted
        .iter()
        .find(|(b, m)| reference(*b).is_some_and(|p| *m > p + WAIT_MARGIN))?
        .0;
    Some(
        unposted
            .iter()
            .map(|u| u.0)
            .filter(|&b| b < first_wait)
            .max()
            .unwrap_or(0),
    )
}

/// A message's one-way cost in a program, per size: the ping-pong row (a half round trip) or,
/// where it is slower, the fresh-data stream's (fresh data costs at least the cached round
/// trip).
fn one_way_rows(data: &BenchData) -> BTreeMap<u64, &BenchRow> {
    let fresh: BTreeMap<u64, &BenchRow> = data
        .op(Kind::Pt2pt, "stream_fresh")
        .map(|r| (r.bytes, r))
        .collect();
    data.op(Kind::Pt2pt, "pingpong")
        .map(|row| match fresh.get(&row.bytes) {
            Some(f) if f.median > row.median => (row.bytes, *f),
            _ => (row.bytes, row),
        })
        .collect()
}

fn point_to_point(data: &BenchData) -> Result<PointToPoint, FitMachineError> {
    let pp = pt2pt_rows(data, "pingpong")?;
    let sp = pt2pt_rows(data, "send_posted")?;
    let rm = pt2pt_rows(data, "recv_min")?;
    let one_way_at = one_way_rows(data);
    let (mut h, mut tau, mut s, mut r) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (&b, row) in &pp {
        let (Some(srow), Some(rrow)) = (sp.get(&b), rm.get(&b)) else {
            continue;
        };
        let d = b as f64;
        let one_way = one_way_at.get(&b).copied().unwrap_or(*row);
        let rel = sigma(one_way.median, one_way.min) / one_way.median.max(f64::MIN_POSITIVE);
        let (t, s1, r1) = reconcile(one_way.median, srow.median, rrow.median);
        let o = |y: f64, rel: f64| Obs {
            p: 2.0,
            d,
            y,
            sigma: (rel * y).max(f64::MIN_POSITIVE),
        };
        h.push(Obs::from_row(row));
        tau.push(o(t, rel));
        s.push(o(
            s1,
            (sigma(srow.median, srow.min) / srow.median.max(f64::MIN_POSITIVE)).max(SIGMA_FLOOR),
        ));
        r.push(o(
            r1,
            (sigma(rrow.median, rrow.min) / rrow.median.max(f64::MIN_POSITIVE)).max(SIGMA_FLOOR),
        ));
    }
    if h.is_empty() {
        return Err(FitMachineError::Missing(
            "pt2pt points with pingpong, send_posted and recv_min at the same size".into(),
        ));
    }
    let (first, last) = (h[0], h[h.len() - 1]);
    let latency = first.y;
    let gap = last.y - latency;
    let bandwidth = if gap > 0.0 {
        last.d / gap
    } else {
        last.d / last.y.max(f64::MIN_POSITIVE)
    };
    let eager = eager_limit(data);
    let mut raw = BTreeMap::new();
    for op in [
        "send_posted",
        "send_unposted",
        "recv_min",
        "stream",
        "stream_fresh",
    ] {
        if let Ok(rows) = pt2pt_rows(data, op) {
            let obs: Vec<Obs> = rows.values().map(|r| Obs::from_row(r)).collect();
            raw.insert(
                op.to_string(),
                fit_protocol(&obs, eager).map_err(fit_err(op))?,
            );
        }
    }
    let o = match pt2pt_rows(data, "stream")
        .ok()
        .and_then(|m| m.values().next().map(|r| r.median))
    {
        Some(g) => (g - s[0].y - r[0].y).max(0.0),
        None => 0.0,
    };
    Ok(PointToPoint {
        latency,
        bandwidth,
        o,
        pingpong: fit_protocol(&h, eager).map_err(fit_err("pingpong"))?,
        tau: fit_protocol(&tau, eager).map_err(fit_err("tau"))?,
        send_overhead: fit_protocol(&s, eager).map_err(fit_err("send overhead"))?,
        recv_overhead: fit_protocol(&r, eager).map_err(fit_err("receive overhead"))?,
        eager_limit: eager,
        rewrite: pt2pt_rows(data, "rewrite_sent")
            .ok()
            .map(|rows| interpolated(rows.values().map(|r| Obs::from_row(r))))
            .transpose()
            .map_err(fit_err("rewrite_sent"))?,
        nonblocking: nonblocking(data)?,
        raw,
    })
}

/// The nonblocking exchange's parts ([`Nonblocking`]) from the `nb_*` rows at k = 1 and
/// [`NB_K`], at the sizes that have all five; None where the sheet has none of them (a sheet
/// measured before they were).
fn nonblocking(data: &BenchData) -> Result<Option<Nonblocking>, FitMachineError> {
    let rows = |op: String| -> BTreeMap<u64, &BenchRow> {
        data.rows
            .iter()
            .filter(|r| r.kind == Kind::Pt2pt && r.op == op)
            .map(|r| (r.bytes, r))
            .collect()
    };
    let post = rows("nb_post".into());
    let (ex1, exk) = (
        rows("nb_exchange_1".into()),
        rows(format!("nb_exchange_{NB_K}")),
    );
    let (w1, wk) = (rows("nb_wait_1".into()), rows(format!("nb_wait_{NB_K}")));
    if post.is_empty() && ex1.is_empty() && w1.is_empty() {
        return Ok(None);
    }
    let k = NB_K as f64;
    let mut parts: [Vec<Obs>; 5] = Default::default();
    for (&b, p) in &post {
        let (Some(e1), Some(ek), Some(a1), Some(ak)) =
            (ex1.get(&b), exk.get(&b), w1.get(&b), wk.get(&b))
        else {
            continue;
        };
        // a derived part's σ: its terms' spreads summed, at least a clock tick's worth
        let obs = |y: f64, rows: &[&BenchRow]| Obs {
            p: 2.0,
            d: b as f64,
            y,
            sigma: rows
                .iter()
                .map(|r| sigma(r.median, r.min))
                .sum::<f64>()
                .max(NB_SIGMA_FLOOR),
        };
        let wire1 = (e1.median - p.median - a1.median).max(0.0);
        let wirek = (ek.median - k * p.median - ak.median).max(0.0);
        parts[0].push(obs(p.median, &[p]));
        parts[1].push(obs(a1.median, &[a1]));
        parts[2].push(obs(
            ((ak.median - a1.median) / (k - 1.0)).max(0.0),
            &[a1, ak],
        ));
        parts[3].push(obs(wire1, &[e1, p, a1]));
        parts[4].push(obs(
            ((wirek - wire1) / (k - 1.0)).max(0.0),
            &[e1, ek, a1, ak],
        ));
    }
    if parts[0].is_empty() {
        return Err(FitMachineError::Missing(format!(
            "pt2pt nb_post, nb_exchange_1, nb_exchange_{NB_K}, nb_wait_1 and nb_wait_{NB_K} at one size"
        )));
    }
    let eager = eager_limit(data);
    let fit = |i: usize, what: &str| fit_protocol(&parts[i], eager).map_err(fit_err(what));
    Ok(Some(Nonblocking {
        post: fit(0, "nonblocking post")?,
        wait_first: fit(1, "nonblocking wait")?,
        wait_each: fit(2, "nonblocking wait per further message")?,
        wire_first: fit(3, "nonblocking exchange")?,
        wire_each: fit(4, "nonblocking exchange per further message")?,
    }))
}

/// The most messages each way of the benchmark's nonblocking exchange (`NB_K` in
/// runtime/c/augur_bench.c).
const NB_K: u32 = 8;
/// The least σ of a nonblocking part derived from several rows, seconds (about the clock's
/// tick): a part that is zero at every size (SMPI's wait) still has a scale.
const NB_SIGMA_FLOOR: f64 = 1e-9;

/// The measured points joined by straight lines: one regime per interval between consecutive
/// kept sizes, the first size's value below it, the last interval's line past the last size.
/// A size is dropped when the line joining its kept neighbours passes within
/// [`interpolation_slack`] of it, so that a cost linear over a range of sizes is one regime,
/// and so are the smallest sizes while they cost less than [`MIN_SLACK`].
/// For an effect of the host's caches that rises and falls with the size, where a fitted law
/// would smooth away what a program at a measured size pays. The band is interpolated alike,
/// between each end's spread.
/// The host's detours from the selfish-detour rows: None without a `span` row. Several loops'
/// rows (measurements appended to one CSV) add up: their seconds, and their detours bin by bin
/// (`bytes`: a bin's upper edge in ns, `reps`: its detours), which must share one threshold.
fn noise(data: &BenchData) -> Result<Option<HostNoise>, FitMachineError> {
    let err = |message: String| FitMachineError::Fit {
        what: "the host's detours".into(),
        message,
    };
    let spans: Vec<&BenchRow> = data.op(Kind::Noise, "span").collect();
    let Some(first) = spans.first() else {
        return Ok(None);
    };
    if let Some(other) = spans.iter().find(|r| r.bytes != first.bytes) {
        return Err(err(format!(
            "the loops' thresholds differ ({} and {} ns)",
            first.bytes, other.bytes
        )));
    }
    // bin edge (ns) → (detours, their summed length)
    let mut bins: BTreeMap<u64, (u64, f64)> = BTreeMap::new();
    for r in data.op(Kind::Noise, "detour") {
        let b = bins.entry(r.bytes).or_insert((0, 0.0));
        b.0 += u64::from(r.reps);
        b.1 += f64::from(r.reps) * r.mean;
    }
    let noise = HostNoise {
        seconds: spans.iter().map(|r| r.median).sum(),
        threshold: first.bytes as f64 / 1e9,
        detours: bins
            .into_iter()
            .map(|(up_to, (count, sum))| DetourBin {
                up_to: up_to as f64 / 1e9,
                count,
                mean: sum / count.max(1) as f64,
            })
            .collect(),
    };
    noise.validate().map_err(err)?;
    Ok(Some(noise))
}

fn interpolated(obs: impl Iterator<Item = Obs>) -> Result<CostModel, String> {
    let mut all: Vec<Obs> = obs.collect();
    all.sort_by(|a, b| a.d.total_cmp(&b.d));
    all.dedup_by(|a, b| a.d == b.d);
    // the sizes below the last that costs no more than the least slack are one regime
    let small = all.iter().take_while(|o| o.y <= MIN_SLACK).count();
    all.drain(..small.saturating_sub(1));
    // greedy: from each kept point, the farthest next point whose line passes near every
    // point between
    let mut pts: Vec<Obs> = Vec::with_capacity(all.len());
    let mut i = 0;
    while i < all.len() {
        pts.push(all[i]);
        let a = all[i];
        let mut j = i + 1;
        while j + 1 < all.len() {
            let c = all[j + 1];
            let near = all[i + 1..=j].iter().all(|b| {
                let line = a.y + (c.y - a.y) * (b.d - a.d) / (c.d - a.d);
                (line - b.y).abs() <= interpolation_slack(b)
            });
            if !near {
                break;
            }
            j += 1;
        }
        i = if j < all.len() { j } else { all.len() };
    }
    let coef = |term: &str, value: f64, stderr: f64| Coef {
        term: term.into(),
        value,
        stderr,
    };
    let constant = |o: &Obs| Form::new("measured", vec![coef("1", o.y, o.sigma)], None);
    let Some(first) = pts.first() else {
        return Err("no measured sizes".into());
    };
    let mut regimes = Vec::with_capacity(pts.len());
    for (i, w) in pts.windows(2).enumerate() {
        let (a, b) = (&w[0], &w[1]);
        if i == 0 {
            regimes.push(Regime {
                up_to_bytes: Some(a.d as u64),
                cost: constant(a)?,
            });
        }
        // the band's ends are lines too, through each end's spread (the "standard errors"
        // of the two coefficients may then be negative: their sum at each end is its spread)
        let slope = (b.y - a.y) / (b.d - a.d);
        let spread = (b.sigma - a.sigma) / (b.d - a.d);
        let line = Form::new(
            "interpolated",
            vec![
                coef("1", a.y - slope * a.d, a.sigma - spread * a.d),
                coef("d", slope, spread),
            ],
            None,
        )?;
        regimes.push(Regime {
            up_to_bytes: (i + 2 < pts.len()).then_some(b.d as u64),
            cost: line,
        });
    }
    if regimes.is_empty() {
        return Ok(CostModel::single(constant(first)?));
    }
    CostModel::new(regimes)
}

/// How far a measured point may be from an interpolation line that leaves it out: twice its
/// spread, 10% of it, or 100 ns, whichever is largest (below that a cost per message is lost in
/// any computation around it).
fn interpolation_slack(o: &Obs) -> f64 {
    (2.0 * o.sigma).max(0.1 * o.y.abs()).max(MIN_SLACK)
}

/// The least [`interpolation_slack`], seconds.
const MIN_SLACK: f64 = 1e-7;

/// Fits a whole data sheet from benchmark output. `prov` says how it was measured.
/// A measured size whose one-way message cost the fitted sheet misses (see [`one_way_misses`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OneWayMiss {
    pub bytes: u64,
    /// τ + s + r of the sheet at this size, seconds.
    pub fitted: f64,
    /// The measured one-way cost: the larger of the half round trip and the fresh-data stream
    /// period (medians), seconds.
    pub measured: f64,
    /// Its spread (median − min), seconds.
    pub spread: f64,
}

/// Relative miss of a sheet's one-way cost beyond which [`one_way_misses`] names a size.
pub const ONE_WAY_TOLERANCE: f64 = 0.5;

/// The point-to-point sizes of `data` at which `m`'s τ + s + r misses the measured one-way
/// cost by more than [`ONE_WAY_TOLERANCE`] of it and more than three spreads: where the sizes
/// measured are too few for the fit to follow the machine (a protocol step between two of
/// them), or a slow spell lifted one size's every repetition.
pub fn one_way_misses(data: &BenchData, m: &Machine) -> Vec<OneWayMiss> {
    let mut out = Vec::new();
    for (&bytes, one_way) in &one_way_rows(data) {
        let d = bytes as f64;
        let fitted = m.tau(d) + m.send_overhead(d) + m.recv_overhead(d);
        let (measured, spread) = (one_way.median, one_way.median - one_way.min);
        if (fitted - measured).abs() > (ONE_WAY_TOLERANCE * measured).max(3.0 * spread) {
            out.push(OneWayMiss {
                bytes,
                fitted,
                measured,
                spread,
            });
        }
    }
    out
}

pub fn fit_machine(
    data: &BenchData,
    name: &str,
    description: &str,
    prov: Provenance,
) -> Result<Machine, FitMachineError> {
    let point_to_point = point_to_point(data)?;
    let mut collectives = BTreeMap::new();
    for op in CollectiveOp::ALL {
        let obs: Vec<Obs> = data.op(Kind::Coll, op.name()).map(Obs::from_row).collect();
        if obs.is_empty() {
            continue;
        }
        let cost = fit_regimes(&obs, op.has_data()).map_err(fit_err(op.name()))?;
        collectives.insert(op, cost);
    }
    if collectives.is_empty() {
        return Err(FitMachineError::Missing("collective".into()));
    }
    Ok(Machine {
        schema: SCHEMA_VERSION,
        name: name.into(),
        description: description.into(),
        measured: prov,
        point_to_point,
        collectives,
        noise: noise(data)?,
        compute_threshold: match data.meta.get("cpu_threshold") {
            None => None,
            Some(v) => Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|t| t.is_finite() && *t >= 0.0)
                    .ok_or_else(|| FitMachineError::Fit {
                        what: "the compute threshold".into(),
                        message: format!("`# cpu_threshold {v}` is not a non-negative number"),
                    })?,
            ),
        },
    })
}
