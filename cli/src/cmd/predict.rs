//! `augur predict MODEL --at N=…,P=…`: evaluate a saved model (from `augur analyze`) at new
//! parameter values, with its min/max band.

use anyhow::{Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
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

pub fn run(args: PredictArgs) -> Result<ExitCode> {
    let m = ModelFile::load(&args.model)
        .with_context(|| format!("cannot load {}", args.model.display()))?;
    let mut rows = Vec::new();
    for at in &args.at {
        let values = super::analyze::parse_at(at)?;
        let (lo, t, hi) = m.predict(&values).with_context(|| format!("at {at}"))?;
        rows.push((at.clone(), values, lo, t, hi));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let v: Vec<serde_json::Value> = rows
            .iter()
            .map(|(_, values, lo, t, hi)| serde_json::json!({ "at": values, "t": t, "min": lo, "max": hi }))
            .collect();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(out, "T({}) = {}", m.params.join(", "), m.t)?;
        for (at, _, lo, t, hi) in rows {
            writeln!(out, "{at}: T = {t:.4e} s  [{lo:.4e}, {hi:.4e}]")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
