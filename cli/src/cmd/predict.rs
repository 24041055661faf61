//! `augur predict MODEL --at N=…,P=…`: evaluate a saved model (from `augur analyze`) at new
//! parameter values, with its min/max band. Values are checked against the model first: unknown
//! names, P < 1, non-finite numbers and negative counts are input errors; a value for a parameter
//! the runs never varied is answered with a warning (T cannot depend on it); a T or band that is
//! not a finite number is said so (exit 1), never printed as NaN or a zero-width band.

use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use model::ModelFile;

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// model.json written by `augur analyze`
    pub model: PathBuf,
    /// Parameter values, e.g. `N=4096,K=8,P=256`; repeat for several points
    #[arg(long, required = true, value_name = "NAME=VALUE,…")]
    pub at: Vec<String>,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// One evaluated point. `None`: not a finite number there.
#[derive(Debug)]
struct Point {
    at: String,
    values: BTreeMap<String, f64>,
    t: Option<f64>,
    band: Option<(f64, f64)>,
    warnings: Vec<String>,
    /// What to know that is no fault: P beyond the traced ones (the point of predicting).
    notes: Vec<String>,
    /// Where the source calls MPI_Abort at this point (`file:line` of each).
    aborts: Vec<String>,
    /// T by phase there.
    breakdown: model::analysis::Breakdown,
}

/// T by communication phase at one point, as the phase table of `analyze` lists them, and
/// the rest of T outside them: where the time goes at a scale not run.
fn write_breakdown(out: &mut impl Write, b: &model::analysis::Breakdown) -> Result<()> {
    let Some(t) = b.t.filter(|t| *t > 0.0) else {
        return Ok(());
    };
    if b.phases.is_empty() && b.compute.is_empty() {
        return Ok(());
    }
    let pct = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{:.1}%", 100.0 * s / t));
    let secs = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{s:.4e}"));
    writeln!(
        out,
        "  {:<6} {:<16} {:>5} {:>11} {:>7}",
        "phase", "kind", "line", "seconds", "of T"
    )?;
    for p in &b.phases {
        let mut said = Vec::new();
        if let Some(f) = p.fill {
            said.push(format!("fill {f:.4e}"));
        }
        if let Some(o) = p.overlaps_with {
            said.push(format!("overlaps phase {o}: T takes the longer"));
        }
        writeln!(
            out,
            "  {:<6} {:<16} {:>5} {:>11} {:>7}{}",
            p.id,
            p.kind,
            p.line,
            secs(p.seconds),
            pct(p.seconds),
            if said.is_empty() {
                String::new()
            } else {
                format!("  ({})", said.join("; "))
            }
        )?;
    }
    // the computations outside the phases, largest first, those under 1% of T together
    let mut compute: Vec<&model::analysis::ComputeTime> = b.compute.iter().collect();
    compute.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    let (shown, small): (Vec<_>, Vec<_>) = compute.into_iter().partition(|c| c.seconds >= 0.01 * t);
    for c in shown {
        writeln!(
            out,
            "  {:<6} {:<16} {:>5} {:>11} {:>7}",
            format!("site {}", c.site),
            "computation",
            c.line,
            secs(Some(c.seconds)),
            pct(Some(c.seconds))
        )?;
    }
    if !small.is_empty() {
        let sum: f64 = small.iter().map(|c| c.seconds).sum();
        writeln!(
            out,
            "  {:<6} {:<16} {:>5} {:>11} {:>7}  ({} computations under 1% of T each)",
            "",
            "computation",
            "",
            secs(Some(sum)),
            pct(Some(sum)),
            small.len()
        )?;
    }
    // what rounding leaves of T minus its parts is no time (trial 28: "rest 1.7347e-18")
    let rest = b.rest.map(|r| if r.abs() <= 1e-9 * t { 0.0 } else { r });
    writeln!(
        out,
        "  {:<6} {:<16} {:>5} {:>11} {:>7}  (the overhead fit and what the composition charges besides)",
        "rest",
        "",
        "",
        secs(rest),
        pct(rest)
    )?;
    Ok(())
}

pub fn run(args: PredictArgs) -> Result<ExitCode> {
    // its errors name the file
    let m = ModelFile::load(&args.model)?;
    let traced = traced_values(&m, &args.model);
    let mut points = Vec::new();
    for at in &args.at {
        let values = super::analyze::parse_at(at)?;
        check_values(&m, &traced, &values).with_context(|| format!("--at {at}"))?;
        points.push(evaluate(&m, &traced, at, values)?);
    }
    let mut failed = false;
    for p in &points {
        for w in &p.warnings {
            eprintln!("warning: at {}: {w}", p.at);
        }
        for n in &p.notes {
            eprintln!("note: at {}: {n}", p.at);
        }
        if p.t.is_some_and(|t| t <= 0.0) {
            // the warning above named the terms that take it below zero
            eprintln!(
                "error: at {}: T is not positive here: the model does not hold at these values",
                p.at
            );
            failed = true;
        } else if p.t.is_none() {
            // the warning above named the term
            eprintln!("error: at {}: T is not a finite number here: the model is not defined at these values", p.at);
            failed = true;
        } else if p.band.is_none() {
            eprintln!("error: at {}: the min/max band is not a finite number here (a fitted coefficient has no error estimate, e.g. one fitted from a single run): the band is unknown", p.at);
            failed = true;
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let v: Vec<serde_json::Value> = points
            .iter()
            .map(|p| {
                serde_json::json!({
                    "at": p.values,
                    "t": p.t,
                    "min": p.band.map(|b| b.0),
                    "max": p.band.map(|b| b.1),
                    "warnings": p.warnings,
                    "notes": p.notes,
                    "aborts": p.aborts,
                    "phases": p.breakdown.phases,
                    "compute": p.breakdown.compute,
                    "outside_phases": p.breakdown.rest,
                })
            })
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        super::analyze::write_t(&mut out, &m, super::analyze::shown_t(&m))?;
        for p in &points {
            match (p.t, p.band) {
                (Some(t), _) if t <= 0.0 => writeln!(
                    out,
                    "{}: T = {t:.4e} s is not a time: the model does not hold here",
                    p.at
                )?,
                (Some(t), Some((lo, hi))) if !p.aborts.is_empty() => writeln!(
                    out,
                    "{}: T = {t:.4e} s  [{lo:.4e}, {hi:.4e}]  (no run: the program calls MPI_Abort here, {})",
                    p.at,
                    p.aborts.join(", ")
                )?,
                (Some(t), Some((lo, hi))) => {
                    writeln!(out, "{}: T = {t:.4e} s  [{lo:.4e}, {hi:.4e}]", p.at)?
                }
                (Some(t), None) => writeln!(out, "{}: T = {t:.4e} s  [band unknown]", p.at)?,
                (None, _) => writeln!(out, "{}: T is not a finite number here", p.at)?,
            }
            if p.t.is_some_and(|t| t > 0.0) {
                write_breakdown(&mut out, &p.breakdown)?;
            }
        }
    }
    Ok(if failed {
        ExitCode::from(super::EXIT_FINDINGS)
    } else {
        ExitCode::SUCCESS
    })
}

/// The values each parameter took in the runs the model was built from: the validation rows of
/// the model file (one per run), or else the ok runs of the `manifest.json` beside it.
fn traced_values(m: &ModelFile, model_path: &Path) -> BTreeMap<String, BTreeSet<u64>> {
    let mut out: BTreeMap<String, BTreeSet<u64>> = BTreeMap::new();
    let mut add = |k: &str, v: f64| {
        out.entry(k.to_string()).or_default().insert(v.to_bits());
    };
    if !m.validation.is_empty() {
        for v in &m.validation {
            for (k, x) in &v.params {
                add(k, *x);
            }
        }
    } else if let Some(dir) = model_path.parent() {
        if let Ok(Some(manifest)) = trace::RunDir::at(dir).load_manifest() {
            for r in manifest.runs.iter().filter(|r| r.status.is_ok()) {
                for (k, x) in &r.params {
                    add(k, *x);
                }
                add("P", f64::from(r.np));
            }
        }
    }
    out
}

fn values_of(set: &BTreeSet<u64>) -> Vec<f64> {
    set.iter().map(|b| f64::from_bits(*b)).collect()
}

/// A count: P, or a parameter every run gave a non-negative whole number.
fn is_count(name: &str, traced: &BTreeMap<String, BTreeSet<u64>>) -> bool {
    name == "P"
        || traced
            .get(name)
            .is_some_and(|s| values_of(s).iter().all(|v| *v >= 0.0 && v.fract() == 0.0))
}

fn fmt_values(vs: &[f64]) -> String {
    vs.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Input errors in `values`: names the model does not have, P < 1, non-finite numbers, negative
/// counts.
fn check_values(
    m: &ModelFile,
    traced: &BTreeMap<String, BTreeSet<u64>>,
    values: &BTreeMap<String, f64>,
) -> Result<()> {
    let mut known: Vec<String> = m.params.clone();
    for v in
        m.t.vars()
            .into_iter()
            .chain(m.t_min.vars())
            .chain(m.t_max.vars())
    {
        if !known.contains(&v) {
            known.push(v);
        }
    }
    let unknown: Vec<&String> = values.keys().filter(|k| !known.contains(k)).collect();
    if !unknown.is_empty() {
        let quoted = |v: &[&String]| {
            v.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hints: Vec<&String> = unknown
            .iter()
            .filter_map(|k| known.iter().find(|p| p.eq_ignore_ascii_case(k)))
            .collect();
        // what analyze said of a name T does not have (held at its traced value, or left
        // out because nothing carried it): trial 12 got a bare "unknown" for STEPS
        let said: Vec<&str> = unknown
            .iter()
            .filter_map(|k| {
                m.warnings.iter().map(String::as_str).find(|w| {
                    w.contains(&format!("no run set {k}"))
                        || w.starts_with(&format!("{k} is left out of T"))
                })
            })
            .collect();
        bail!(
            "{} {} unknown{} (the model's parameters: {}){}",
            quoted(&unknown),
            if unknown.len() == 1 { "is" } else { "are" },
            if hints.is_empty() {
                String::new()
            } else {
                format!(
                    "; names are case-sensitive; did you mean {}?",
                    quoted(&hints)
                )
            },
            known.join(", "),
            if said.is_empty() {
                String::new()
            } else {
                format!("; the model says: {}", said.join("; "))
            }
        );
    }
    for (k, v) in values {
        if !v.is_finite() {
            bail!("`{k}={v}`: not a finite number");
        }
        if k == "P" && *v < 1.0 {
            bail!("`P={v}`: the rank count P is at least 1");
        }
        if k == "P" && v.fract() != 0.0 {
            bail!("`P={v}`: the rank count P is a whole number");
        }
        if *v < 0.0 && is_count(k, traced) {
            let seen = traced.get(k).map(values_of).unwrap_or_default();
            bail!(
                "`{k}={v}`: {k} is a count (the runs had {}) and cannot be negative",
                fmt_values(&seen)
            );
        }
    }
    Ok(())
}

/// T and its band at `values`, with warnings for parameters the runs never varied.
fn evaluate(
    m: &ModelFile,
    traced: &BTreeMap<String, BTreeSet<u64>>,
    at: &str,
    values: BTreeMap<String, f64>,
) -> Result<Point> {
    let mut warnings = Vec::new();
    // a parameter T mentions has a law from the source (a trip count): T does depend on it
    let in_t = m.t.vars();
    for (k, v) in &values {
        if in_t.contains(k) {
            continue;
        }
        let Some(seen) = traced.get(k).map(values_of) else {
            continue;
        };
        if let [only] = seen[..] {
            if only != *v {
                warnings.push(format!(
                    "{k} took one value in the runs ({only}): T cannot depend on it, so this is the time at {k}={only}; profile with several values of {k} to model it"
                ));
            }
        }
    }
    // a count asked at a fraction (trial, stop 32: N=1024.5 said nothing): the program
    // runs whole iterations and sizes, T takes the value as it is
    for (k, v) in &values {
        if k != "P" && v.fract() != 0.0 && is_count(k, traced) {
            warnings.push(format!(
                "{k}={v} is not a whole number, where every run had a whole {k} (a count): the program's loops and sizes in {k} are whole, and T here takes {v} as it is"
            ));
        }
    }
    // the computations no run reached, as analyze warned of them
    let untraced: Vec<String> = m
        .unreached
        .iter()
        .map(model::build::Unreached::at)
        .collect();
    // beyond the traced values of a parameter other than P (predicting at larger P is the
    // point; a law fitted to two or three values of N or NLEVELS is a guess beyond them)
    for (k, v) in &values {
        let Some(seen) = traced.get(k).map(values_of) else {
            continue;
        };
        let (lo, hi) = (
            seen.iter().copied().fold(f64::INFINITY, f64::min),
            seen.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        // one traced value and another asked for: T's terms in it come from the source, and
        // what runs only at other values (an arm the runs never took) is charged nothing
        // (trial 28: METHOD=1 of a `select case` traced at METHOD=2 said nothing)
        // (a parameter a branch tests: an iteration count changes how often, not what, runs)
        let tested = m.quantities.iter().any(|q| {
            q["what"] == "branch"
                && q["expr"]
                    .as_str()
                    .and_then(|e| symbolic::parse(e).ok())
                    .is_some_and(|e| e.contains_var(k))
        });
        if k != "P" && tested && seen.len() == 1 && seen[0] != *v && !untraced.is_empty() {
            warnings.push(format!(
                "{k}={v} is not a value the runs had (only {k}={}): T's terms in {k} come from the source, but code no run reached ({}) is charged nothing, and an arm taken only at other values of {k} may run it; profile at {k}={v} to time it",
                seen[0],
                untraced.join(", ")
            ));
        }
        // one traced value, another asked for, and T mentions it: its terms in it come from
        // the source, while what the runs measured (a regressed size, count or share) was
        // measured at that one value (trial, stop 32: a row communicator of P/PC ranks traced at
        // PC = 1 had its rows' length and messages regressed in N/P, and PC = 2 said nothing)
        if k != "P" && in_t.contains(k) && seen.len() == 1 && seen[0] != *v {
            let measured: Vec<String> = m
                .quantities
                .iter()
                .filter(|q| q["origin"] == "regression")
                .filter_map(|q| {
                    let at = match q["file"].as_str() {
                        Some(f) => format!("{f}:{}", q["line"]),
                        None => format!("line {}", q["line"]),
                    };
                    Some(format!("{} at {at}", q["what"].as_str()?))
                })
                .collect();
            if !measured.is_empty() {
                let shown = measured
                    .iter()
                    .take(4)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ");
                let more = measured.len().saturating_sub(4);
                warnings.push(format!(
                    "{k}={v} is not a value the runs had (only {k}={}): T's terms in {k} come from the source, but what was fitted to the runs ({shown}{}) was measured at {k}={} alone and may change with {k}; profile at several values of {k} to model it",
                    seen[0],
                    if more > 0 { format!(" and {more} more") } else { String::new() },
                    seen[0],
                ));
            }
        }
        // varied in the runs, no law found in it, and asked for beyond them
        if k != "P" && seen.len() >= 2 && !in_t.contains(k) && (*v < lo || *v > hi) {
            warnings.push(format!(
                "{k}={v} is outside the values the runs had ({lo} to {hi}): T did not depend on {k} over the runs, which says nothing of {k} beyond them"
            ));
        }
        if k != "P" && seen.len() >= 2 && in_t.contains(k) && (*v < lo || *v > hi) {
            warnings.push(format!(
                "{k}={v} is outside the values the runs had ({lo} to {hi}): T's laws in {k} are extrapolated, and the band covers the fit's spread, not a law that changes beyond the runs"
            ));
        }
    }
    // P beyond the traced ones is what predicting is for, but by how far is worth a line
    // (trial 12: P = 64 from runs at 2..16 said nothing, and missed by 20-60% under SMPI)
    let mut notes = Vec::new();
    if let (Some(p), Some(most)) = (
        values.get("P"),
        traced
            .get("P")
            .map(values_of)
            .and_then(|s| s.into_iter().reduce(f64::max)),
    ) {
        if *p > most {
            let r = p / most;
            let times = if r == r.round() {
                format!("{r}")
            } else {
                format!("{r:.2}")
            };
            match m.scaling.as_ref().zip(m.extrapolation_error(&values)) {
                Some((c, e)) => {
                    notes.push(format!(
                        "P={p} is {times}x the largest traced P ({most}): T extrapolates its laws in P there. The model from the runs at P <= {} predicted the runs at P = {} by {:.1}% on average ({:.1}% at most); that error compounded over the steps of P from {most} to {p} widens the band to ±{:.0}% of T (check one run at a larger P, e.g. under SMPI)",
                        c.trained_up_to,
                        c.held_at,
                        100.0 * c.mean_abs_error,
                        100.0 * c.max_abs_error,
                        100.0 * e
                    ));
                }
                None => notes.push(format!(
                    "P={p} is {times}x the largest traced P ({most}): T extrapolates its laws in P there; the band is the fit's spread over the runs, not the error of the extrapolation (check one run at a larger P, e.g. under SMPI)"
                )),
            }
        }
    }
    // below the traced P: one rank has no neighbours to exchange with, which laws fitted at
    // P >= 2 still charge (trial 29: a halo's sendrecvs costed 2.0e-4 s each at P = 1)
    if let (Some(p), Some(least)) = (
        values.get("P"),
        traced
            .get("P")
            .map(values_of)
            .and_then(|s| s.into_iter().reduce(f64::min)),
    ) {
        if *p < least {
            notes.push(format!(
                "P={p} is below the smallest traced P ({least}): T's laws in P are extrapolated down{}; profile at P={p} to model it",
                if *p == 1.0 {
                    ", and at P = 1 a rank's messages go to MPI_PROC_NULL or itself, which the costs fitted with several ranks still charge"
                } else {
                    ""
                }
            ));
        }
    }
    // the source stops the program here (Cannon's P not a square: trial 14 got a time)
    let mut aborts = Vec::new();
    for a in &m.aborts {
        if model::analysis::eval(&a.guard, &values).is_ok_and(|g| g >= 0.5) {
            aborts.push(a.at());
            warnings.push(format!(
                "the program calls MPI_Abort here ({} when {}): no run has this time",
                a.at(),
                a.when
            ));
        }
    }
    // the source truncates a quotient T takes whole (trial 15: N/KB = 0.5 blocks at KB > N)
    for d in &m.divisions {
        if let Some((q, t)) = model::analysis::truncation(d, &values) {
            warnings.push(format!(
                "{}: the program truncates {} to {t} here, where T takes {}",
                d.at(),
                d.text(),
                symbolic::Expr::num(q)
            ));
        }
    }
    let eval = |e| model::analysis::eval(e, &values).with_context(|| format!("at {at}"));
    let t = eval(&m.t)?;
    // beyond the traced P, the band is widened by the scaling check's error compounded
    let (a, _, b) = m.predict(&values).with_context(|| format!("at {at}"))?;
    if !t.is_finite() {
        warnings.push(non_finite_cause(&m.t, &values));
    } else if t <= 0.0 {
        warnings.push(negative_cause(&m.t, &values, t));
    }
    if let Some(w) = t
        .is_finite()
        .then(|| beyond_the_sheet(m, &values, t))
        .flatten()
    {
        warnings.push(w);
    }
    if let Some(w) = t
        .is_finite()
        .then(|| weak_residual(m, &values, t))
        .flatten()
    {
        warnings.push(w);
    }
    // what holds wherever T is evaluated (trial 21: T of the instrumented program, 13x the
    // program as written, predicted without a word)
    warnings.extend(m.cautions.iter().cloned());
    let t = t.is_finite().then_some(t);
    let band = match t {
        Some(t) if a.is_finite() && b.is_finite() => Some((a.min(b).min(t), a.max(b).max(t))),
        _ => None,
    };
    let breakdown = m.breakdown(&values);
    Ok(Point {
        at: at.to_string(),
        breakdown,
        values,
        t,
        band,
        warnings,
        notes,
        aborts,
    })
}

/// A collective's cost comes from the machine sheet's fitted form (`c + s·p² + k·d·p`), measured
/// at a few group sizes: at P beyond the largest the form is extrapolated, which the traced runs
/// cannot check (this machine's sheet: 2..8 ranks; trial 19 read `p²` laws at P = 64 unflagged).
/// Said where the collective phases are 1% of T or more.
fn beyond_the_sheet(m: &ModelFile, values: &BTreeMap<String, f64>, t: f64) -> Option<String> {
    let (most, p) = (m.sheet_ranks?, *values.get("P")?);
    if p <= f64::from(most) || t <= 0.0 {
        return None;
    }
    let mut parts = Vec::new();
    let mut sum = 0.0;
    for ph in m.phases.iter().filter(|ph| ph["kind"] == "collective") {
        let Some(total) = ph["total"].as_str().and_then(|e| symbolic::parse(e).ok()) else {
            continue;
        };
        let Ok(v) = model::analysis::eval(&total, values) else {
            continue;
        };
        if v > 0.0 {
            sum += v;
            parts.push(format!("line {}: {v:.3e} s", ph["ancestor_line"]));
        }
    }
    (sum >= 0.01 * t).then(|| {
        format!(
            "P={p} is beyond the {most} ranks the machine sheet ({}) measured its collectives at: the collective phases ({}; {:.0}% of T) cost its fitted forms extrapolated, with whatever the measured launches had in them (on a host with fewer cores than ranks, time-sharing: terms in p^2); for the machine you will run on, measure its sheet there (`augur characterize`) and analyze with --machine",
            m.machine,
            parts.join(", "),
            100.0 * sum / t
        )
    })
}

/// The time outside computation phases and phase formulas is fitted by regression to what the
/// rest of T leaves of each run: where that law follows the residuals poorly (R² under 0.5) and
/// is a large part of T (a quarter or more) here, T is mostly a guess (trial 21: `0.1508*P` at
/// R² −30.9, 51% of T at P = 2 and all of it beyond).
fn weak_residual(m: &ModelFile, values: &BTreeMap<String, f64>, t: f64) -> Option<String> {
    if t <= 0.0 {
        return None;
    }
    let q = m.quantities.iter().find(|q| q["what"] == "overhead")?;
    let r2 = q["r2"].as_f64()?;
    let law = symbolic::parse(q["expr"].as_str()?).ok()?;
    let v = model::analysis::eval(&law, values).ok()?;
    (r2 < 0.5 && v >= 0.25 * t).then(|| {
        format!(
            "{:.0}% of T here ({v:.3e} s) is the time outside computation phases and the phase formulas, fitted by regression as {law} at R² {r2:.2} over the runs' residuals: that part of T is a guess here, not a law of the program",
            100.0 * v / t
        )
    })
}

/// Which part of `t` is not a finite number at `values`: the first term of its sum that is not,
/// and inside it the innermost subexpression that is not while its arguments are (a `log2` of a
/// negative number, a power of 0 with a negative exponent), the one to blame.
/// T's terms, each with its coefficient.
fn terms_of(t: &symbolic::Expr) -> impl Iterator<Item = symbolic::Expr> + '_ {
    t.terms()
        .iter()
        .map(|term| term.monomial() * symbolic::Expr::num(term.coef()))
}

/// Why T is not positive at `values` (trial 17's sample sort: a fitted −2.3 ms constant and a
/// −1.4e-4·log2(P) term took T to −0.64 ms at 1024 keys per rank, printed as a time): the
/// terms that subtract most there, and what the rest adds.
fn negative_cause(t: &symbolic::Expr, values: &BTreeMap<String, f64>, total: f64) -> String {
    let mut terms: Vec<(f64, symbolic::Expr)> = terms_of(t)
        .filter_map(|e| model::analysis::eval(&e, values).ok().map(|v| (v, e)))
        .collect();
    terms.sort_by(|a, b| a.0.total_cmp(&b.0));
    let adds: f64 = terms.iter().map(|(v, _)| v.max(0.0)).sum();
    let worst: Vec<String> = terms
        .iter()
        .take_while(|(v, _)| *v < 0.0)
        .take(3)
        .map(|(v, e)| match e.as_const() {
            Some(_) => format!("the constant {e}"),
            None => format!("{e} = {}", symbolic::Expr::num(*v)),
        })
        .collect();
    format!(
        "T is {} s here, not a time: its fitted terms cancel beyond the traced runs; the terms that subtract most: {} (what the others add: {} s); do not use this point",
        symbolic::Expr::num(total),
        worst.join(", "),
        symbolic::Expr::num(adds)
    )
}

fn non_finite_cause(t: &symbolic::Expr, values: &BTreeMap<String, f64>) -> String {
    let bad =
        |e: &symbolic::Expr| model::analysis::eval(e, values).map_or(true, |v| !v.is_finite());
    let Some(term) = terms_of(t).find(|e| bad(e)) else {
        return "T is not a finite number here, though each of its terms is (their sum overflows)"
            .into();
    };
    // descend while some argument is itself not finite
    let mut origin = term.clone();
    loop {
        let next = origin.terms().iter().find_map(|tm| {
            tm.factors().iter().find_map(|(atom, _)| {
                let a = symbolic::Expr::from_atom(atom);
                if !bad(&a) {
                    return None;
                }
                // an argument that is itself not finite is closer to the cause
                Some(
                    atom.args()
                        .into_iter()
                        .find(|x| bad(x))
                        .cloned()
                        .unwrap_or(a),
                )
            })
        });
        match next {
            Some(n) if n != origin => origin = n,
            _ => break,
        }
    }
    let value =
        model::analysis::eval(&origin, values).map_or("undefined".to_string(), |v| v.to_string());
    if origin == term {
        format!("T is not a finite number here: its term {term} is {value}")
    } else {
        format!("T is not a finite number here: in its term {term}, {origin} is {value}")
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn model(t: &str, t_min: &str, params: &[&str], runs: &[&[(&str, f64)]]) -> ModelFile {
        let validation: Vec<serde_json::Value> = runs
            .iter()
            .map(|r| {
                let params: BTreeMap<&str, f64> = r.iter().copied().collect();
                serde_json::json!({"config": "", "params": params, "measured": 1.0,
                    "fitted": 1.0, "predicted": 1.0, "loo_error": 0.0})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "schema": 1, "program": "p", "source": "p.c", "machine": "m", "simulated": true,
            "params": params, "t": t, "t_min": t_min, "t_max": t, "largest": {},
            "phases": [], "compute": [], "quantities": [], "validation": validation,
            "warnings": []
        }))
        .unwrap()
    }

    fn at(s: &str) -> BTreeMap<String, f64> {
        super::super::analyze::parse_at(s).unwrap()
    }

    fn check(m: &ModelFile, s: &str) -> Result<()> {
        let traced = traced_values(m, Path::new("/nonexistent/model.json"));
        check_values(m, &traced, &at(s))
    }

    /// Trial 12: `--at …,STEPS=100` on a model that held STEPS at its traced value said only
    /// "unknown"; it says what analyze said of it.
    #[test]
    fn an_unknown_name_the_model_held_says_so() {
        let mut m = model("N/P", "N/P", &["N", "P"], &[&[("N", 64.0), ("P", 2.0)]]);
        m.warnings.push(
            "trip count at line 68 is STEPS in the source, but no run set STEPS: T holds it at the traced 10; profile with --param STEPS=… to have it in T".into(),
        );
        let err = format!("{:#}", check(&m, "N=64,P=2,STEPS=100").unwrap_err());
        assert!(err.contains("`STEPS` is unknown"), "{err}");
        assert!(err.contains("T holds it at the traced 10"), "{err}");
    }

    #[test]
    fn inputs_checked_against_the_model() {
        let runs: &[&[(&str, f64)]] = &[&[("N", 64.0), ("P", 2.0)], &[("N", 128.0), ("P", 4.0)]];
        let m = model("N/P", "0.9*N/P", &["N", "P"], runs);
        assert!(check(&m, "N=256,P=64").is_ok());
        let cases = [
            (
                "n=256,P=64",
                "`n` is unknown; names are case-sensitive; did you mean `N`?",
            ),
            (
                "N=256,P=64,Q=3",
                "`Q` is unknown (the model's parameters: N, P)",
            ),
            (
                "n=256,p=64",
                "`n`, `p` are unknown; names are case-sensitive; did you mean `N`, `P`?",
            ),
            ("N=256,P=0", "`P=0`: the rank count P is at least 1"),
            ("N=256,P=2.5", "`P=2.5`: the rank count P is a whole number"),
            ("N=inf,P=4", "`N=inf`: not a finite number"),
            ("N=NaN,P=4", "not a finite number"),
            (
                "N=-5,P=4",
                "N is a count (the runs had 64, 128) and cannot be negative",
            ),
        ];
        for (input, msg) in cases {
            let e = format!("{:#}", check(&m, input).unwrap_err());
            assert!(e.contains(msg), "{input}: {e}");
        }
        // a parameter with fractional values is not a count
        let m = model("X + P", "X + P", &["X", "P"], &[&[("X", -0.5), ("P", 2.0)]]);
        assert!(check(&m, "X=-2,P=2").is_ok());
    }

    /// Trial (stop 32): a parameter traced at one value that T mentions through the source
    /// (rows of P/PC ranks, traced at PC = 1) has what the runs measured fitted at that value
    /// alone, and predict says so at another; a parameter the runs varied with no law found
    /// in it, asked for beyond them, is named too.
    #[test]
    fn a_value_the_runs_never_had_is_warned_about() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("PC", 1.0), ("K", 5.0), ("P", 2.0)],
            &[("N", 128.0), ("PC", 1.0), ("K", 20.0), ("P", 4.0)],
        ];
        let mut m = model("N/P*PC", "N/P*PC", &["N", "PC", "K", "P"], runs);
        m.quantities.push(
            serde_json::json!({"what": "bytes", "line": 31, "origin": "regression",
            "expr": "8*N/P", "source": "unresolved"}),
        );
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=64,PC=2,K=10,P=2")).unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].starts_with("PC=2 is not a value the runs had (only PC=1)")
                && p.warnings[0].contains("(bytes at line 31) was measured at PC=1 alone"),
            "{:?}",
            p.warnings
        );
        let p = evaluate(&m, &traced, "", at("N=64.5,PC=1,K=10,P=2")).unwrap();
        assert_eq!(
            p.warnings,
            ["N=64.5 is not a whole number, where every run had a whole N (a count): the program's loops and sizes in N are whole, and T here takes 64.5 as it is"]
        );
        let p = evaluate(&m, &traced, "", at("N=64,PC=1,K=1,P=2")).unwrap();
        assert_eq!(
            p.warnings,
            ["K=1 is outside the values the runs had (5 to 20): T did not depend on K over the runs, which says nothing of K beyond them"]
        );
        // at the traced value, and with nothing fitted to the runs, nothing to say
        let p = evaluate(&m, &traced, "", at("N=64,PC=1,K=10,P=2")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        m.quantities.clear();
        let p = evaluate(&m, &traced, "", at("N=64,PC=2,K=10,P=2")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    /// Where the source aborts (trial 14's Cannon at a P that is not a square), the time is
    /// no run's, and predict says so with the line and the condition.
    #[test]
    fn a_point_where_the_program_aborts_is_warned_about() {
        let runs: &[&[(&str, f64)]] = &[&[("N", 64.0), ("P", 4.0)], &[("N", 64.0), ("P", 16.0)]];
        let mut m = model("N/P", "N/P", &["N", "P"], runs);
        m.aborts = vec![model::analysis::AbortOut {
            line: 42,
            file: None,
            when: "floor(sqrt(P) + 0.5)^2 != P".into(),
            guard: symbolic::parse(
                "min(max(P - floor(sqrt(P) + 0.5)^2, floor(sqrt(P) + 0.5)^2 - P), 1)",
            )
            .unwrap(),
        }];
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=64,P=8")).unwrap();
        assert_eq!(p.aborts, vec!["line 42".to_string()]);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].starts_with("the program calls MPI_Abort here (line 42 when"),
            "{:?}",
            p.warnings
        );
        let p = evaluate(&m, &traced, "", at("N=64,P=64")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    /// Where the source truncates a quotient T takes whole (trial 15: `predict` at K > N gave
    /// a time for N/K = 0.5 blocks, which the program runs 0 of), predict says so.
    #[test]
    fn a_point_where_the_program_truncates_a_quotient_is_warned_about() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("K", 4.0), ("P", 4.0)],
            &[("N", 128.0), ("K", 8.0), ("P", 4.0)],
        ];
        let mut m = model("N/K + K", "N/K + K", &["K", "N", "P"], runs);
        m.divisions = vec![apt::divisions::IntegerDivision {
            line: 73,
            file: None,
            num: symbolic::parse("N").unwrap(),
            den: symbolic::parse("K").unwrap(),
        }];
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=128,K=8,P=4")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        let p = evaluate(&m, &traced, "", at("N=64,K=128,P=4")).unwrap();
        assert!(
            p.warnings
                .iter()
                .any(|w| w == "line 73: the program truncates N/K to 0 here, where T takes 0.5"),
            "{:?}",
            p.warnings
        );
        // 1000/24 = 41.67 is cut to 41 (1.6%): said; 1000/8 = 125 whole: not
        let p = evaluate(&m, &traced, "", at("N=1000,K=24,P=4")).unwrap();
        assert!(
            p.warnings.iter().any(|w| w.contains("to 41 here")),
            "{:?}",
            p.warnings
        );
    }

    /// A collective phase past the ranks the sheet measured its collectives at costs the sheet's
    /// form extrapolated: said with its share, within the sheet's ranks and for a share under 1%
    /// not.
    #[test]
    fn collectives_beyond_the_sheets_ranks_are_named() {
        let runs: &[&[(&str, f64)]] = &[&[("N", 64.0), ("P", 2.0)], &[("N", 128.0), ("P", 4.0)]];
        let mut m = model("1e-6*N/P + 1e-7*P^2", "1e-6*N/P", &["N", "P"], runs);
        m.phases = vec![
            serde_json::json!({"kind": "collective", "ancestor_line": 63,
            "total": "1e-7*P^2"}),
        ];
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let beyond = |p: &Point| {
            p.warnings
                .iter()
                .filter(|w| w.contains("beyond the 8 ranks the machine sheet (m)"))
                .count()
        };
        let p = evaluate(&m, &traced, "", at("N=4096,P=64")).unwrap();
        assert_eq!(
            beyond(&p),
            0,
            "no sheet ranks, nothing said: {:?}",
            p.warnings
        );
        m.sheet_ranks = Some(8);
        let p = evaluate(&m, &traced, "", at("N=4096,P=64")).unwrap();
        assert_eq!(beyond(&p), 1, "{:?}", p.warnings);
        let w = p
            .warnings
            .iter()
            .find(|w| w.contains("machine sheet"))
            .unwrap();
        // 1e-7*64^2 = 4.096e-4 of 4.096e-4 + 6.4e-5
        assert!(w.contains("(line 63: 4.096e-4 s; 86% of T)"), "{w}");
        let p = evaluate(&m, &traced, "", at("N=4096,P=8")).unwrap();
        assert_eq!(beyond(&p), 0, "{:?}", p.warnings);
        let p = evaluate(&m, &traced, "", at("N=1e9,P=16")).unwrap();
        assert_eq!(beyond(&p), 0, "a share under 1%: {:?}", p.warnings);
    }

    /// A residual law that follows its residuals poorly is named where it is a quarter of T or
    /// more; what holds everywhere (T of a much slower instrumented program) at every point.
    #[test]
    fn a_weak_residual_and_the_models_cautions_are_said_at_the_point() {
        let runs: &[&[(&str, f64)]] = &[&[("N", 64.0), ("P", 1.0)], &[("N", 128.0), ("P", 2.0)]];
        let mut m = model("1e-6*N/P + 0.15*P", "1e-6*N/P", &["N", "P"], runs);
        m.quantities = vec![serde_json::json!({"what": "overhead", "expr": "0.15*P",
            "r2": -30.9, "site": 0, "line": 0})];
        m.cautions = vec!["augur's markers add 96% to the traced time".into()];
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=128,P=2")).unwrap();
        let weak: Vec<&String> = p
            .warnings
            .iter()
            .filter(|w| w.contains("a guess here"))
            .collect();
        assert_eq!(weak.len(), 1, "{:?}", p.warnings);
        assert!(
            weak[0].starts_with("100% of T here (3.000e-1 s)"),
            "{}",
            weak[0]
        );
        assert!(weak[0].contains("0.15*P at R² -30.90"), "{}", weak[0]);
        assert!(
            p.warnings
                .iter()
                .any(|w| w.starts_with("augur's markers add 96%")),
            "{:?}",
            p.warnings
        );
        // a small share, or a law that follows its residuals: nothing
        let p = evaluate(&m, &traced, "", at("N=1e7,P=2")).unwrap();
        assert!(
            !p.warnings.iter().any(|w| w.contains("a guess here")),
            "{:?}",
            p.warnings
        );
        m.quantities[0]["r2"] = serde_json::json!(0.9);
        let p = evaluate(&m, &traced, "", at("N=128,P=2")).unwrap();
        assert!(
            !p.warnings.iter().any(|w| w.contains("a guess here")),
            "{:?}",
            p.warnings
        );
    }

    /// Trial 17: a model whose fitted terms cancel below zero beyond its runs gives no time.
    #[test]
    fn a_negative_t_is_named_with_its_subtracting_terms() {
        let runs: &[&[(&str, f64)]] =
            &[&[("N", 4096.0), ("P", 4.0)], &[("N", 65536.0), ("P", 4.0)]];
        let mut m = model("N/P - 0.002", "N/P - 0.002", &["N", "P"], runs);
        m.t = symbolic::parse("1e-7*N/P - 0.002").unwrap();
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=16384,P=16")).unwrap();
        assert!(p.t.is_some_and(|t| t < 0.0), "{:?}", p.t);
        assert!(
            p.warnings.iter().any(|w| w.contains("not a time")
                && w.contains("the terms that subtract most: the constant -0.002")),
            "{:?}",
            p.warnings
        );
    }

    /// Trial 28's CG traced at METHOD = 2 only: asked at METHOD = 1, predict says that code
    /// no run reached (the METHOD = 1 arm's) is charged nothing; an iteration count held at one
    /// value, which no branch tests, and a model with no such code say nothing.
    #[test]
    fn a_value_a_branch_tests_the_runs_did_not_have_names_the_code_no_run_reached() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("METHOD", 2.0), ("NITER", 40.0), ("P", 2.0)],
            &[("N", 128.0), ("METHOD", 2.0), ("NITER", 40.0), ("P", 4.0)],
        ];
        let t = "NITER*N/P*(1 + max(min(METHOD - 1, -METHOD + 3), 0))";
        let mut m = model(t, t, &["METHOD", "N", "NITER", "P"], runs);
        m.quantities = vec![serde_json::json!({"what": "branch", "site": 3, "line": 48,
            "source": "METHOD == 1", "expr": "max(min(-METHOD + 2, METHOD), 0)"})];
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let quiet = evaluate(&m, &traced, "", at("N=100,METHOD=1,NITER=500,P=4")).unwrap();
        assert!(quiet.warnings.is_empty(), "{:?}", quiet.warnings);
        m.unreached.push(model::build::Unreached {
            site: 14,
            line: 50,
            file: None,
            work: "N/P".into(),
        });
        let p = evaluate(&m, &traced, "", at("N=100,METHOD=1,NITER=500,P=4")).unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].starts_with("METHOD=1 is not a value the runs had (only METHOD=2): T's terms in METHOD come from the source, but code no run reached (line 50) is charged nothing"),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn a_parameter_beyond_its_traced_values_warns_but_p_does_not() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("L", 3.0), ("P", 2.0)],
            &[("N", 128.0), ("L", 5.0), ("P", 4.0)],
        ];
        let m = model("N*L/P", "N*L/P", &["L", "N", "P"], runs);
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=100,L=4,P=4096")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].starts_with("P=4096 is 1024x the largest traced P (4)"),
            "{:?}",
            p.notes
        );
        let p = evaluate(&m, &traced, "", at("N=100,L=4,P=4")).unwrap();
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        // below the traced P (trial 29: P = 1 from runs at 2..16 said nothing)
        let p = evaluate(&m, &traced, "", at("N=100,L=4,P=1")).unwrap();
        assert_eq!(p.notes.len(), 1, "{:?}", p.notes);
        assert!(
            p.notes[0].starts_with("P=1 is below the smallest traced P (2): T's laws in P are extrapolated down, and at P = 1 a rank's messages go to MPI_PROC_NULL or itself"),
            "{:?}",
            p.notes
        );
        let p = evaluate(&m, &traced, "", at("N=100,L=7,P=16")).unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(
            p.warnings[0].starts_with("L=7 is outside the values the runs had (3 to 5)"),
            "{:?}",
            p.warnings
        );
    }

    /// Beyond the traced P the band is the scaling check's mean error compounded per step of
    /// P as large as the check's (8 → 16 missed by 10% on average: ±21% at 64, two doublings
    /// beyond 16), with a note saying so; within the traced P it is the fit's spread alone.
    #[test]
    fn beyond_the_traced_p_the_band_is_the_scaling_checks_error_compounded() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("P", 2.0)],
            &[("N", 64.0), ("P", 8.0)],
            &[("N", 64.0), ("P", 16.0)],
        ];
        let mut m = model("N/P", "N/P", &["N", "P"], runs);
        m.scaling = Some(
            serde_json::from_value(serde_json::json!({
                "trained_up_to": 8.0, "held_at": 16.0, "mean_abs_error": 0.1,
                "max_abs_error": 0.2,
                "runs": [{"config": "N=64,P=16", "measured": 4.0, "predicted": 4.4, "error": 0.1}]
            }))
            .unwrap(),
        );
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=64,P=64")).unwrap();
        let (lo, hi) = p.band.unwrap();
        assert!(
            (lo - 0.79).abs() < 1e-9 && (hi - 1.21).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert!(
            p.notes[0].contains("by 10.0% on average (20.0% at most)")
                && p.notes[0].contains("±21% of T"),
            "{:?}",
            p.notes
        );
        let p = evaluate(&m, &traced, "", at("N=64,P=16")).unwrap();
        assert_eq!(p.band, Some((4.0, 4.0)));
        assert!(p.notes.is_empty(), "{:?}", p.notes);
        // without a check (an older model.json, too few rank counts) the band stays the fit's
        m.scaling = None;
        let p = evaluate(&m, &traced, "", at("N=64,P=64")).unwrap();
        assert_eq!(p.band, Some((1.0, 1.0)));
    }

    #[test]
    fn unvaried_parameter_warns_and_nan_band_is_unknown() {
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("STEPS", 20.0), ("P", 2.0)],
            &[("N", 64.0), ("STEPS", 20.0), ("P", 4.0)],
        ];
        let m = model("0.001*P", "nan*N/P", &["N", "P", "STEPS"], runs);
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=4096,STEPS=20,P=4")).unwrap();
        assert_eq!(p.t, Some(0.004));
        assert_eq!(p.band, None, "NaN bound: no zero-width band");
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].starts_with("N took one value in the runs (64)"));
        let p = evaluate(&m, &traced, "", at("N=64,STEPS=20,P=8")).unwrap();
        assert!(
            p.warnings.is_empty(),
            "the traced value itself: {:?}",
            p.warnings
        );
        let m = model("N/(P - 2)", "N/(P - 2)", &["N", "P"], runs);
        let p = evaluate(&m, &traced, "", at("N=0,P=2")).unwrap();
        assert_eq!((p.t, p.band), (None, None));
    }

    /// Trial 8 item 6: `"t": null, "warnings": []` at P=1 for a sub-communicator size fitted as
    /// P^3 - 4.081; the warning names the term and the log2 whose argument went negative.
    #[test]
    fn a_non_finite_t_names_its_term() {
        let runs: &[&[(&str, f64)]] = &[&[("M", 1000.0), ("P", 2.0)], &[("M", 8000.0), ("P", 4.0)]];
        let m = model(
            "0.001*M/P + 2e-6*M*log2(P^3 - 4.081)",
            "0.001*M/P",
            &["M", "P"],
            runs,
        );
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("M=1000,P=1")).unwrap();
        assert_eq!(p.t, None);
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        let w = &p.warnings[0];
        assert!(
            w.starts_with("T is not a finite number here: in its term ")
                && w.contains("log2(P^3 - 4.081) is NaN"),
            "{w}"
        );
        // a term that is itself the cause
        let m = model("M/(P - 1)", "M/(P - 1)", &["M", "P"], runs);
        let p = evaluate(&m, &traced, "", at("M=1000,P=1")).unwrap();
        assert_eq!(
            p.warnings,
            ["T is not a finite number here: its term M/(P - 1) is inf"]
        );
        // finite T: no such warning
        let p = evaluate(&m, &traced, "", at("M=1000,P=2")).unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn unvaried_parameter_t_mentions_does_not_warn() {
        // STEPS took one value, but T has it from a source law (a trip count)
        let runs: &[&[(&str, f64)]] = &[
            &[("N", 64.0), ("STEPS", 20.0), ("P", 2.0)],
            &[("N", 128.0), ("STEPS", 20.0), ("P", 4.0)],
        ];
        let m = model("STEPS*N/P", "STEPS*N/P", &["N", "P", "STEPS"], runs);
        let traced = traced_values(&m, Path::new("/nonexistent/model.json"));
        let p = evaluate(&m, &traced, "", at("N=64,STEPS=40,P=2")).unwrap();
        assert_eq!(p.t, Some(1280.0));
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }
}
