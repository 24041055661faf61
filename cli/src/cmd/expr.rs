//! `augur expr`: a formula calculator over the symbolic engine (simplify, eval, diff, solve, fit),
//! in the spirit of seed 000's `timecalc`. Human output by default, `--json` everywhere.

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, Subcommand};
use serde_json::json;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use symbolic::fit::{self, FitOptions, FitResult};
use symbolic::{Derivative, Expr, SolveOptions};

#[derive(Debug, Args)]
pub struct ExprArgs {
    #[command(subcommand)]
    pub command: ExprCommand,
}

#[derive(Debug, Args)]
pub struct Format {
    /// Machine-readable output
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct Alt {
    /// Print LaTeX
    #[arg(long, conflicts_with = "python")]
    pub latex: bool,
    /// Print a sympy expression (after `from sympy import *`, the symbols and the definition of
    /// `dims` when an MPI_Dims_create extent occurs, so the output runs as is)
    #[arg(long)]
    pub python: bool,
}

#[derive(Debug, Subcommand)]
pub enum ExprCommand {
    /// Print the canonical form of an expression
    Simplify {
        /// The expression (may start with `-`)
        #[arg(allow_hyphen_values = true)]
        expr: String,
        #[command(flatten)]
        alt: Alt,
        /// Full-precision coefficients (the form that parses back exactly)
        #[arg(long)]
        exact: bool,
        #[command(flatten)]
        fmt: Format,
    },
    /// Evaluate an expression at a point
    Eval {
        /// The expression (may start with `-`)
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Values, e.g. N=1024,P=16
        #[arg(long, default_value = "")]
        at: String,
        #[command(flatten)]
        fmt: Format,
    },
    /// Differentiate (piecewise through max/min, relaxed through ceil/floor)
    Diff {
        /// The expression (may start with `-`)
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Variable to differentiate with respect to
        #[arg(long)]
        wrt: String,
        #[command(flatten)]
        alt: Alt,
        #[command(flatten)]
        fmt: Format,
    },
    /// Minimise over one variable (dT/dK = 0), reporting the method and closed form of K*
    Solve {
        /// The expression (may start with `-`), or a model.json to take its T
        #[arg(allow_hyphen_values = true)]
        expr: String,
        /// Variable to optimise
        #[arg(long = "for")]
        var: String,
        /// Values of the other variables, e.g. N=1024,P=16
        #[arg(long, default_value = "")]
        at: String,
        /// Search range LO..HI
        #[arg(long)]
        range: Option<String>,
        /// The variable must be an integer
        #[arg(long)]
        integer: bool,
        #[command(flatten)]
        alt: Alt,
        #[command(flatten)]
        fmt: Format,
    },
    /// Fit measured values onto candidate terms (or search PMNF terms)
    Fit {
        /// CSV with a header row: parameter columns and a value column
        #[arg(long)]
        data: PathBuf,
        /// Parameter columns, e.g. N,P
        #[arg(long)]
        params: String,
        /// Candidate terms, e.g. "N^2/P, P, 1" (default: PMNF search)
        #[arg(long)]
        terms: Option<String>,
        /// Value column (default: the only, or last, non-parameter column)
        #[arg(long)]
        value: Option<String>,
        /// Ordinary instead of relative least squares
        #[arg(long)]
        absolute: bool,
        /// PMNF: parameters that may also appear with negative exponents (e.g. P for N^2/P)
        #[arg(long, value_delimiter = ',')]
        inverse: Vec<String>,
        #[command(flatten)]
        fmt: Format,
    },
}

/// An expression, or the T of a saved model when `src` names a `model.json` file (trial 15:
/// the optimal block size meant copying T out of the file, the printed T's `s1…` steps
/// undefined on their own).
fn parse_expr(src: &str) -> Result<Expr> {
    Ok(parse_source(src)?.0)
}

/// [`parse_expr`], with the model when `src` names one.
fn parse_source(src: &str) -> Result<(Expr, Option<model::analysis::ModelFile>)> {
    let path = std::path::Path::new(src);
    if src.ends_with(".json") && path.is_file() {
        let m = model::analysis::ModelFile::load(path)?;
        return Ok((m.t.clone(), Some(m)));
    }
    let e = symbolic::parse(src).map_err(|e| {
        anyhow!(
            "invalid expression {src:?}: column {}: {}",
            e.column,
            e.message
        )
    })?;
    Ok((e, None))
}

/// A quotient by the solved-for variable that the model's source truncates (`nblk = n / kb`)
/// and that the chosen value does not divide (trial 15: `--integer` gave K = 24 for N = 2048,
/// and the program skipped rows): the values nearest it, below and above, that divide it,
/// with T there.
struct Divisors {
    at: String,
    text: String,
    num_text: String,
    num: f64,
    k: f64,
    near: Vec<(f64, f64)>,
}

fn divisors_near(
    m: &model::analysis::ModelFile,
    t: &Expr,
    var: &str,
    at: &BTreeMap<String, f64>,
    k: f64,
    range: Option<(f64, f64)>,
) -> Vec<Divisors> {
    let mut out = Vec::new();
    let (lo, hi) = range.unwrap_or((1.0, f64::INFINITY));
    for d in &m.divisions {
        if !d.den.contains_var(var) || d.num.contains_var(var) {
            continue;
        }
        let Ok(num) = d.num.eval_map(at) else {
            continue;
        };
        if !((1.0..=1e12).contains(&num) && num.fract() == 0.0) {
            continue;
        }
        let divides = |k: f64| {
            let mut v = at.clone();
            v.insert(var.to_string(), k);
            d.den
                .eval_map(&v)
                .is_ok_and(|den| den >= 1.0 && den.fract() == 0.0 && num % den == 0.0)
        };
        let k0 = k.round().max(1.0);
        if k == k0 && divides(k0) {
            continue;
        }
        // the nearest below and above, within the range (a bounded scan: divisors of a
        // problem size are dense enough near any sensible block size)
        const SCAN: u32 = 1_000_000;
        let below = (0..SCAN)
            .map(|i| k.floor() - f64::from(i))
            .take_while(|&c| c >= lo.max(1.0))
            .find(|&c| divides(c));
        let above = (0..SCAN)
            .map(|i| k.ceil() + f64::from(i))
            .take_while(|&c| c <= hi && c <= num)
            .find(|&c| divides(c));
        let near: Vec<(f64, f64)> = below
            .into_iter()
            .chain(above)
            .filter_map(|c| {
                let mut v = at.clone();
                v.insert(var.to_string(), c);
                t.eval_map(&v).ok().map(|tv| (c, tv))
            })
            .collect();
        out.push(Divisors {
            at: d.at(),
            text: d.text(),
            num_text: match d.num.as_const() {
                Some(_) => String::new(),
                None => format!("{} = ", d.num),
            },
            num,
            k,
            near,
        });
    }
    out
}

/// What a user should know before trusting a model's optimum `var` = `k` (trial 18: a
/// wavefront's model that missed its own runs by 28% on average gave KB* = 13 with no word,
/// and the program ran 1.8x slower there than at the best KB): the model's leave-one-out error
/// where it is above 15%, `k` outside the traced values of `var`, and fitted laws in `var`
/// that explain their data worse than its mean (R² < 0).
/// The program's `MPI_Abort`s whose guards hold with `var` = `k` at `at` (trial 29: SUMMA's
/// optimum KP = 23 for N = 4096, where the program aborts since 23 does not divide N).
fn aborts_at(
    m: &model::analysis::ModelFile,
    at: &BTreeMap<String, f64>,
    var: &str,
    k: f64,
) -> Vec<String> {
    let mut values = at.clone();
    values.insert(var.to_string(), k);
    m.aborts
        .iter()
        .filter(|a| model::analysis::eval(&a.guard, &values).is_ok_and(|g| g >= 0.5))
        .map(|a| {
            format!(
                "the program calls MPI_Abort at {var} = {} ({} when {}): no run has this time; choose a {var} the program accepts",
                short(k),
                a.at(),
                a.when
            )
        })
        .collect()
}

fn caveats(m: &model::analysis::ModelFile, var: &str, k: f64) -> Vec<String> {
    let mut out = Vec::new();
    let v = &m.validation;
    if !v.is_empty() {
        let mean = v.iter().map(|r| r.loo_error.abs()).sum::<f64>() / v.len() as f64;
        if mean > 0.15 {
            let worst = v
                .iter()
                .max_by(|a, b| a.loo_error.abs().total_cmp(&b.loo_error.abs()))
                .map(|r| format!(", worst {:+.0}% at {}", 100.0 * r.loo_error, r.config))
                .unwrap_or_default();
            out.push(format!(
                "the model misses its own runs by {:.0}% on average (leave one out{worst}): {var}* is the model's optimum, not a measured one; run the program at {var}* and on both sides before relying on it",
                100.0 * mean
            ));
        }
    }
    let traced: Vec<f64> = v
        .iter()
        .filter_map(|r| r.params.get(var).copied())
        .collect();
    let lo = traced.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = traced.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && (k < lo || k > hi) {
        out.push(format!(
            "{var}* = {} lies outside the traced {var} = {}..{}: T's laws in {var} are extrapolated there",
            short(k),
            short(lo),
            short(hi)
        ));
    }
    let weak: Vec<String> = m
        .quantities
        .iter()
        .filter_map(|q| {
            let r2 = q["r2"].as_f64().filter(|r| *r < 0.0)?;
            let law = q["expr"]
                .as_str()
                .and_then(|e| symbolic::parse(e).ok())
                .filter(|e| e.contains_var(var))?;
            Some(format!(
                "{} at line {} (R² {r2:.2}): {law}",
                q["what"].as_str().unwrap_or("?"),
                q["line"],
            ))
        })
        .collect();
    if !weak.is_empty() {
        out.push(format!(
            "fitted laws in {var} that follow their data worse than its mean (R² < 0) enter T: {}",
            weak.join("; ")
        ));
    }
    out
}

/// `N=1024,P=16` (values may be constant expressions such as `2^10`).
fn parse_at(s: &str) -> Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    let mut col = 0;
    for part in s.split(',') {
        let trimmed = part.trim();
        if !trimmed.is_empty() {
            let Some((k, v)) = trimmed.split_once('=') else {
                bail!("invalid --at {s:?}: column {col}: expected NAME=VALUE, found {trimmed:?}");
            };
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || !k.chars().all(|c| c.is_alphanumeric() || c == '_') {
                bail!("invalid --at {s:?}: column {col}: {k:?} is not a variable name");
            }
            let val = symbolic::parse(v).ok().and_then(|e| e.as_const());
            match val {
                Some(x) if x.is_finite() => {
                    out.insert(k.to_string(), x);
                }
                _ => bail!(
                    "invalid --at {s:?}: column {}: value {v:?} of {k} is not a number",
                    col + part.find('=').unwrap_or(0) + 1
                ),
            }
        }
        col += part.chars().count() + 1;
    }
    Ok(out)
}

fn parse_range(s: &str) -> Result<(f64, f64)> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| anyhow!("invalid --range {s:?}: expected LO..HI, e.g. 1..4096"))?;
    let num = |x: &str, col: usize| -> Result<f64> {
        x.trim().parse::<f64>().map_err(|_| {
            anyhow!(
                "invalid --range {s:?}: column {col}: {:?} is not a number",
                x.trim()
            )
        })
    };
    let (lo, hi) = (num(a, 0)?, num(b, a.len() + 2)?);
    if !(lo > 0.0 && lo <= hi) {
        bail!("invalid --range {s:?}: need 0 < LO <= HI");
    }
    Ok((lo, hi))
}

/// The Python preamble `exprs` need (see [`python_preamble`]), if any.
fn print_preamble(exprs: &[&Expr]) -> Result<()> {
    let p = python_preamble(exprs, &[], false);
    if !p.is_empty() {
        std::io::stdout().lock().write_all(p.as_bytes())?;
    }
    Ok(())
}

fn out(s: &str) -> Result<()> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{s}")?;
    Ok(())
}

/// What Python output of `exprs` needs before them to run as is: nothing when no `dims(n, d, k)`
/// occurs (the one-line form, for a session that has `from sympy import *` and the symbols);
/// else `from sympy import *`, the definition of `dims` once, and the symbols. `always` gives
/// the preamble without `dims` too (a script such as `analyze --python`); names in `defined`
/// are assigned by the script and are not symbols.
pub fn python_preamble(exprs: &[&Expr], defined: &[&str], always: bool) -> String {
    let helper = exprs
        .iter()
        .map(|e| e.python_helpers())
        .find(|h| !h.is_empty());
    if helper.is_none() && !always {
        return String::new();
    }
    let mut text = String::from("from sympy import *\n");
    if let Some(h) = helper {
        text.push_str(h);
    }
    let names: Vec<String> = exprs
        .iter()
        .flat_map(|e| e.vars())
        .filter(|v| !defined.contains(&v.as_str()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    match names.as_slice() {
        [] => {}
        [one] => text.push_str(&format!("{one} = Symbol(\"{one}\")\n")),
        many => text.push_str(&format!(
            "{} = symbols(\"{}\")\n",
            many.join(", "),
            many.join(" ")
        )),
    }
    text
}

fn alt_text(e: &Expr, alt: &Alt) -> String {
    if alt.latex {
        e.to_latex()
    } else if alt.python {
        e.to_python()
    } else {
        e.to_string()
    }
}

pub fn run(args: ExprArgs) -> Result<ExitCode> {
    match args.command {
        ExprCommand::Simplify {
            expr,
            alt,
            exact,
            fmt,
        } => {
            let e = parse_expr(&expr)?;
            if fmt.json {
                out(&json!({"input": expr, "expr": e, "display": e.to_string(), "latex": e.to_latex(), "python": e.to_python(), "python_helpers": e.python_helpers()}).to_string())?;
            } else if exact && !alt.latex && !alt.python {
                out(&e.to_text_exact())?;
            } else {
                if alt.python {
                    print_preamble(&[&e])?;
                }
                out(&alt_text(&e, &alt))?;
            }
        }
        ExprCommand::Eval { expr, at, fmt } => {
            let e = parse_expr(&expr)?;
            let at = parse_at(&at)?;
            let v = e.eval_map(&at).map_err(|err| unknown_var(&expr, err))?;
            if fmt.json {
                out(&json!({"expr": e, "at": at, "value": v}).to_string())?;
            } else {
                out(&format!("{v}"))?;
            }
        }
        ExprCommand::Diff {
            expr,
            wrt,
            alt,
            fmt,
        } => {
            let e = parse_expr(&expr)?;
            let d = e.diff(&wrt);
            if fmt.json {
                out(
                    &json!({"expr": e, "wrt": wrt, "pieces": d.pieces, "relaxed": d.relaxed})
                        .to_string(),
                )?;
            } else {
                if alt.python {
                    let mut all: Vec<&Expr> = Vec::new();
                    for p in &d.pieces {
                        all.push(&p.expr);
                        for c in &p.conds {
                            all.extend([&c.lhs, &c.rhs]);
                        }
                    }
                    print_preamble(&all)?;
                }
                out(&render_derivative(&d, &alt))?;
                if d.relaxed {
                    out("note: ceil/floor were differentiated through their relaxed form (ceil(u) ≈ u)")?;
                }
            }
        }
        ExprCommand::Solve {
            expr,
            var,
            at,
            range,
            integer,
            alt,
            fmt,
        } => {
            let (e, model) = parse_source(&expr)?;
            let at = parse_at(&at)?;
            let range = range.as_deref().map(parse_range).transpose()?;
            let s = symbolic::minimize(&e, &var, &at, &SolveOptions { range, integer }).map_err(
                |err| match err {
                    symbolic::SolveError::Eval(e) => unknown_var(&expr, e),
                    other => anyhow!("cannot minimise {expr:?} over {var}: {other}"),
                },
            )?;
            let chosen = s.integer.map_or(s.k_star, |(k, _)| k);
            let divisors = model
                .as_ref()
                .map(|m| divisors_near(m, &e, &var, &at, chosen, range))
                .unwrap_or_default();
            let mut caveats = model
                .as_ref()
                .map(|m| caveats(m, &var, chosen))
                .unwrap_or_default();
            if let Some(m) = &model {
                caveats.splice(0..0, aborts_at(m, &at, &var, chosen));
            }
            if fmt.json {
                let mut v = serde_json::to_value(&s)?;
                v["expr"] = json!(e);
                v["method_description"] = json!(s.method.to_string());
                if s.method == symbolic::Method::Breakpoint {
                    v["note"] = json!(format!(
                        "{var}* is where a max/min or step of T changes branch: a balance of two costs, or a threshold of the machine sheet (look at T on both sides)"
                    ));
                }
                if !divisors.is_empty() {
                    v["truncated_divisions"] = divisors
                        .iter()
                        .map(|d| {
                            json!({"at": d.at, "quotient": d.text, "numerator": d.num, var.clone(): d.k,
                                   "divisors": d.near.iter().map(|(k, t)| json!({var.clone(): k, "t": t})).collect::<Vec<_>>()})
                        })
                        .collect();
                }
                if !caveats.is_empty() {
                    v["caveats"] = json!(caveats);
                }
                out(&v.to_string())?;
            } else {
                out(&format!("{var}* = {}", short(s.k_star)))?;
                out(&format!("T({var}*) = {}", short(s.t_star)))?;
                out(&format!("method: {}", s.method))?;
                if let Some(cf) = &s.closed_form {
                    if alt.python {
                        print_preamble(&[cf])?;
                    }
                    out(&format!("closed form: {var}* = {}", alt_text(cf, &alt)))?;
                }
                if !s.branch.is_empty() {
                    let b: Vec<String> = s.branch.iter().map(|c| c.to_string()).collect();
                    out(&format!("branch: {}", b.join(", ")))?;
                }
                if let Some(d2) = s.second_derivative {
                    out(&format!(
                        "d2T/d{var}2 = {} ({})",
                        short(d2),
                        if d2 > 0.0 { "minimum" } else { "flat" }
                    ))?;
                }
                if let Some((k, t)) = s.integer {
                    out(&format!("integer: {var} = {k}, T = {}", short(t)))?;
                }
                for d in &divisors {
                    let near: Vec<String> = d
                        .near
                        .iter()
                        .map(|(k, t)| format!("{var} = {k} (T = {})", short(*t)))
                        .collect();
                    out(&format!(
                        "note: the program truncates {} ({}): {var} = {} does not divide {}{}; the nearest that do: {}",
                        d.text,
                        d.at,
                        short(d.k),
                        d.num_text,
                        short(d.num),
                        if near.is_empty() { "none in range".to_string() } else { near.join(", ") }
                    ))?;
                }
                if s.relaxed {
                    out("note: ceil/floor were relaxed (ceil(u) ≈ u) to find stationary points; T is evaluated exactly")?;
                }
                if s.method == symbolic::Method::Breakpoint {
                    out(&format!("note: {var}* is where a max/min or step of T changes branch: where two costs balance (max(a, b)), or, for a step, a threshold such as a machine sheet's message-size regime boundary, which is a property of the sheet rather than a tuned {var}: look at T on both sides"))?;
                }
                for c in &caveats {
                    out(&format!("caution: {c}"))?;
                }
            }
        }
        ExprCommand::Fit {
            data,
            params,
            terms,
            value,
            absolute,
            inverse,
            fmt,
        } => {
            let params: Vec<String> = params
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
            if params.is_empty() {
                bail!("--params is empty: name the parameter columns, e.g. --params N,P");
            }
            let table = read_csv(&data, &params, value.as_deref())?;
            let names: Vec<&str> = params.iter().map(String::as_str).collect();
            let opts = FitOptions {
                weighting: if absolute {
                    fit::Weighting::Absolute
                } else {
                    fit::Weighting::Relative
                },
                inverse_params: inverse.iter().map(|s| s.trim().to_string()).collect(),
                ..FitOptions::default()
            };
            let result = match &terms {
                Some(t) => {
                    let list = split_terms(t)?;
                    fit::fit_terms(&list, &names, &table.points, &table.values, &opts)
                }
                None => fit::search_pmnf(&names, &table.points, &table.values, &opts),
            }
            .with_context(|| format!("cannot fit {}", data.display()))?;
            if fmt.json {
                let mut v = serde_json::to_value(&result)?;
                v["value_column"] = json!(table.value_name);
                v["params"] = json!(params);
                out(&v.to_string())?;
            } else {
                render_fit(&result, &table.value_name)?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Name the column where the unknown variable first occurs in the expression text.
fn unknown_var(src: &str, err: symbolic::EvalError) -> anyhow::Error {
    let symbolic::EvalError::UnknownVariable(name) = &err;
    let chars: Vec<char> = src.chars().collect();
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    let n: Vec<char> = name.chars().collect();
    let col = (0..chars.len()).find(|&i| {
        chars[i..].starts_with(&n)
            && (i == 0 || !is_ident(chars[i - 1]))
            && chars.get(i + n.len()).is_none_or(|c| !is_ident(*c))
    });
    match col {
        Some(c) => anyhow!("{src:?}: column {c}: unknown variable `{name}`: give it a value with --at {name}=VALUE"),
        None => anyhow!("{src:?}: {err}"),
    }
}

fn short(x: f64) -> String {
    Expr::num(x).to_string()
}

fn render_derivative(d: &Derivative, alt: &Alt) -> String {
    if alt.latex {
        if let Some(e) = d.as_expr() {
            return e.to_latex();
        }
        let rows: Vec<String> = d
            .pieces
            .iter()
            .map(|p| {
                let c: Vec<String> = p
                    .conds
                    .iter()
                    .map(|c| format!("{} \\geq {}", c.lhs.to_latex(), c.rhs.to_latex()))
                    .collect();
                format!("{} & {}", p.expr.to_latex(), c.join(",\\ "))
            })
            .collect();
        return format!("\\begin{{cases}} {} \\end{{cases}}", rows.join(" \\\\ "));
    }
    if alt.python {
        if let Some(e) = d.as_expr() {
            return e.to_python();
        }
        let rows: Vec<String> = d
            .pieces
            .iter()
            .map(|p| {
                let c: Vec<String> = p
                    .conds
                    .iter()
                    .map(|c| format!("({} >= {})", c.lhs.to_python(), c.rhs.to_python()))
                    .collect();
                format!(
                    "({}, {})",
                    p.expr.to_python(),
                    if c.is_empty() {
                        "True".to_string()
                    } else {
                        c.join(" & ")
                    }
                )
            })
            .collect();
        return format!("Piecewise({})", rows.join(", "));
    }
    d.to_string()
}

fn split_terms(s: &str) -> Result<Vec<Expr>> {
    // Split on commas outside parentheses (max(a, b) is one term).
    let mut terms = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                terms.push((start, &s[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    terms.push((start, &s[start..]));
    terms
        .into_iter()
        .map(|(off, t)| {
            symbolic::parse(t).map_err(|e| {
                let col = s[..off].chars().count() + e.column;
                anyhow!("invalid --terms {s:?}: column {col}: {}", e.message)
            })
        })
        .collect()
}

struct Table {
    points: Vec<Vec<f64>>,
    values: Vec<f64>,
    value_name: String,
}

fn read_csv(path: &Path, params: &[String], value: Option<&str>) -> Result<Table> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let shown = path.display();
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((_, header)) = lines.next() else {
        bail!("{shown}: empty CSV: need a header row (e.g. N,P,time) and data rows");
    };
    let cols: Vec<String> = header.split(',').map(|c| c.trim().to_string()).collect();
    let find = |name: &str| cols.iter().position(|c| c == name);
    let mut idx = Vec::with_capacity(params.len());
    for p in params {
        idx.push(find(p).ok_or_else(|| {
            anyhow!(
                "{shown}:1: no column named {p:?} (columns: {})",
                cols.join(", ")
            )
        })?);
    }
    let vcol = match value {
        Some(v) => find(v).ok_or_else(|| {
            anyhow!(
                "{shown}:1: no value column named {v:?} (columns: {})",
                cols.join(", ")
            )
        })?,
        None => (0..cols.len())
            .rev()
            .find(|i| !idx.contains(i))
            .ok_or_else(|| anyhow!("{shown}:1: no value column: every column is a parameter"))?,
    };
    let (mut points, mut values) = (Vec::new(), Vec::new());
    for (lineno, line) in lines {
        let cells: Vec<&str> = line.split(',').collect();
        let mut starts = Vec::with_capacity(cells.len());
        let mut c = 1;
        for cell in &cells {
            starts.push(c);
            c += cell.chars().count() + 1;
        }
        let get = |i: usize| -> Result<f64> {
            let raw = cells.get(i).ok_or_else(|| {
                anyhow!(
                    "{shown}:{}: missing column {:?} ({} cells, header has {})",
                    lineno + 1,
                    cols[i],
                    cells.len(),
                    cols.len()
                )
            })?;
            raw.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    anyhow!(
                        "{shown}:{}:{}: cell {:?} in column {:?} is not a number",
                        lineno + 1,
                        starts[i],
                        raw.trim(),
                        cols[i]
                    )
                })
        };
        let mut p = Vec::with_capacity(idx.len());
        for &i in &idx {
            p.push(get(i)?);
        }
        values.push(get(vcol)?);
        points.push(p);
    }
    if points.is_empty() {
        bail!("{shown}: no data rows after the header");
    }
    Ok(Table {
        points,
        values,
        value_name: cols[vcol].clone(),
    })
}

fn render_fit(r: &FitResult, value_name: &str) -> Result<()> {
    out(&format!("{value_name} = {}", r.expr))?;
    out(&format!(
        "R² = {:.6}, LOO relative error = {:.2}% ({} points, {} {})",
        r.r2,
        100.0 * r.loo_rel_error,
        r.residuals.len(),
        r.hypotheses,
        if r.hypotheses == 1 {
            "hypothesis"
        } else {
            "hypotheses"
        }
    ))?;
    let w = r
        .coeffs
        .iter()
        .map(|c| c.term.to_string().len())
        .max()
        .unwrap_or(4)
        .max(4);
    out(&format!("{:<w$}  {:>12}  {:>12}", "term", "coef", "stderr"))?;
    for c in &r.coeffs {
        out(&format!(
            "{:<w$}  {:>12.4e}  {:>12.3e}",
            c.term.to_string(),
            c.coef,
            c.stderr
        ))?;
    }
    let worst = r
        .rel_residuals
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0f64, |a, b| a.max(b.abs()));
    out(&format!("max |relative residual| = {:.2}%", 100.0 * worst))?;
    Ok(())
}
