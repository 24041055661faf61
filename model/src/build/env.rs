//! What every stage of the build reads (the APT's sites, the runs, the fit parameters and the
//! source's constants) and what they all add to (warnings and fitted quantities, in the order
//! the stages run, which is the order the report shows).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use apt::{Apt, Attr, Node, ParamOrigin};
use symbolic::Expr;

use super::tree::{parent_paths, process_grids, Paths};
use super::{fit_params, QuantityReport};
use crate::machine::Machine;
use crate::observe::RunObs;
use crate::quantity::{QuantityOptions, Samples};

/// The build's inputs, and what it derives from them once.
pub(super) struct Env<'a> {
    pub(super) apt: &'a Apt,
    pub(super) main: &'a str,
    pub(super) runs: &'a [RunObs],
    pub(super) machine: &'a Machine,
    pub(super) qopts: &'a QuantityOptions,
    /// [`fit_params`] of the runs.
    pub(super) params: Vec<String>,
    /// [`process_grids`] of the APT.
    pub(super) grids: BTreeSet<super::tree::ProcGrid>,
    /// [`parent_paths`] of the APT.
    pub(super) paths: Paths,
    /// The source's constants the runs did not set, at their defaults.
    pub(super) consts: BTreeMap<String, Expr>,
    /// Every APT node by site id.
    pub(super) nodes: BTreeMap<u32, &'a Node>,
    /// The law of the machine's detours ([`crate::noise`]), when its sheet measured them.
    pub(super) noise: Option<crate::noise::NoiseLaw>,
    /// Charge each stretch's detours as a symbol `D<site>` in the typical cost instead of the
    /// law's closed form, for T's display ([`super::named_detours`]); band costs keep the law.
    pub(super) detour_symbols: bool,
    /// The main source's directory: other files are reported relative to it.
    main_dir: PathBuf,
    /// The main source's file name.
    main_name: String,
}

/// What the stages report, in the order they add it.
#[derive(Default)]
pub(super) struct Notes {
    pub(super) warnings: Vec<String>,
    pub(super) quantities: Vec<QuantityReport>,
}

impl Notes {
    /// `other`'s notes after these.
    pub(super) fn append(&mut self, other: Notes) {
        self.warnings.extend(other.warnings);
        self.quantities.extend(other.quantities);
    }
}

impl<'a> Env<'a> {
    /// The APT's routines by name.
    pub(super) fn routines(&self) -> BTreeMap<&'a str, &'a Node> {
        self.apt
            .routines
            .iter()
            .filter_map(|r| match &r.data {
                apt::NodeData::Routine { name, .. } => Some((name.as_str(), r)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn new(
        apt: &'a Apt,
        main: &'a str,
        runs: &'a [RunObs],
        machine: &'a Machine,
        qopts: &'a QuantityOptions,
    ) -> Env<'a> {
        let params = fit_params(runs);
        let consts: BTreeMap<String, Expr> = apt
            .params
            .iter()
            .filter_map(|p| match p.origin {
                ParamOrigin::Constant { default } if !params.contains(&p.name) => {
                    Some((p.name.clone(), Expr::num(default)))
                }
                _ => None,
            })
            .collect();
        Env {
            apt,
            main,
            runs,
            machine,
            qopts,
            grids: process_grids(apt),
            paths: parent_paths(apt),
            consts,
            nodes: apt.nodes().into_iter().map(|n| (n.site.0, n)).collect(),
            noise: machine
                .noise
                .as_ref()
                .and_then(crate::noise::HostNoise::law),
            detour_symbols: false,
            main_dir: apt.file.parent().map(Path::to_path_buf).unwrap_or_default(),
            main_name: apt
                .file
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            params,
        }
    }

    /// The file of site `s` when it is not the main source, for reports.
    /// The main source's file name (`heat_main.f`).
    pub(super) fn main_name(&self) -> &str {
        &self.main_name
    }

    pub(super) fn file_of(&self, s: u32) -> Option<String> {
        let f = Path::new(self.nodes.get(&s)?.file.as_ref()?);
        Some(
            f.strip_prefix(&self.main_dir)
                .unwrap_or(f)
                .display()
                .to_string(),
        )
    }

    /// Where site `s` is, for warnings: `line N` or `file:N`.
    pub(super) fn at(&self, s: u32) -> String {
        let line = self.nodes.get(&s).map_or(0, |n| n.line);
        self.file_of(s)
            .map_or_else(|| format!("line {line}"), |f| format!("{f}:{line}"))
    }

    /// One sample per run where `f` gives a finite value.
    pub(super) fn samples_of(&self, f: &dyn Fn(&RunObs) -> Option<f64>) -> Samples {
        let mut s = Samples::new(self.params.clone());
        for r in self.runs {
            if let Some(v) = f(r).filter(|v| v.is_finite()) {
                s.push(row(r, &self.params), v);
            }
        }
        s
    }

    /// [`source_expr`] with the build's constants and parameters.
    pub(super) fn source(&self, a: &Attr) -> Option<Expr> {
        source_expr(a, &self.consts, &self.params)
    }

    /// The source's expression of `a` where it mentions the rank besides the parameters
    /// (`BASE + mod(BASE*rank, 3*BASE)`, a cap `mod(rank, 4) + 1`); None where it does not.
    pub(super) fn source_in_rank(&self, a: &Attr) -> Option<Expr> {
        let mut known = self.params.clone();
        known.push(apt::params::RANK.into());
        source_expr(a, &self.consts, &known).filter(|e| e.contains_var(apt::params::RANK))
    }

    /// `e` (in the rank and the parameters) at its largest over rank = 0..P−1, one sample per
    /// run, and the run where the largest is furthest above the mean (max/mean, its
    /// configuration). None when a run's P is unknown or `e` does not evaluate.
    pub(super) fn most_over_ranks(&self, e: &Expr) -> Option<(Samples, Option<(f64, String)>)> {
        self.over_ranks(e).map(|(most, _, worst)| (most, worst))
    }

    /// `e` (in the rank and the parameters) at its mean over rank = 0..P−1, one sample per run
    /// (a block distribution's count `floor(N/P) + [rank < mod(N, P)]`: N/P). None as for
    /// [`Env::most_over_ranks`].
    pub(super) fn mean_over_ranks(&self, e: &Expr) -> Option<Samples> {
        self.over_ranks(e).map(|(_, mean, _)| mean)
    }

    /// `e`'s largest and mean over the ranks per run, and the worst ratio of the two.
    #[allow(clippy::type_complexity)]
    fn over_ranks(&self, e: &Expr) -> Option<(Samples, Samples, Option<(f64, String)>)> {
        let mut worst: Option<(f64, String)> = None;
        let mut s = Samples::new(self.params.clone());
        let mut means = Samples::new(self.params.clone());
        for r in self.runs {
            let p = r.params.get("P").copied()?;
            let at = |rank: f64| {
                e.eval(&|v| {
                    if v == apt::params::RANK {
                        Some(rank)
                    } else {
                        r.params.get(v).copied()
                    }
                })
                .ok()
            };
            let per_rank: Vec<f64> = (0..p as usize)
                .map(|k| at(k as f64))
                .collect::<Option<_>>()?;
            let max = per_rank.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mean = per_rank.iter().sum::<f64>() / per_rank.len().max(1) as f64;
            if mean > 0.0 && worst.as_ref().is_none_or(|(x, _)| max / mean > *x) {
                worst = Some((max / mean, r.config.clone()));
            }
            s.push(row(r, &self.params), max);
            means.push(row(r, &self.params), mean);
        }
        Some((s, means, worst))
    }
}

/// A run's values of `params` (0 for one it did not set).
pub(super) fn row(r: &RunObs, params: &[String]) -> Vec<f64> {
    params
        .iter()
        .map(|p| r.params.get(p).copied().unwrap_or(0.0))
        .collect()
}

/// The APT attribute as an expression over the fit parameters only (constants substituted).
pub(super) fn source_expr(
    a: &Attr,
    consts: &BTreeMap<String, Expr>,
    params: &[String],
) -> Option<Expr> {
    let e = a.expr()?.subs_all(consts);
    e.vars().iter().all(|v| params.contains(v)).then_some(e)
}
