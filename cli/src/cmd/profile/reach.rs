//! Whether each problem parameter the runs vary reaches the program: a `--param` travels as a
//! command-line argument (`{N}` in ARGS, or every parameter in order without ARGS) or in the
//! `--stdin` template, and the program must read what carries it. A parameter no placeholder
//! carries, or carried only where the APT finds no read (no `argv[i]`, no standard-input read),
//! leaves every run with the same size; its runs then differ in nothing but their label, and a
//! model fitted over it is wrong. `profile` warns before its runs, `analyze` with its warnings.

use apt::params::StdinItem;
use apt::{ParamOrigin, ProgParam};

/// What carried the parameters to the program.
#[derive(Debug, Clone, Copy)]
pub struct Carriers<'a> {
    /// The program's arguments as run, with their `{NAME}` placeholders (without ARGS: one
    /// `{NAME}` per parameter in the order given).
    pub args: &'a [String],
    /// The `--stdin` template's text; `None` without `--stdin`.
    pub stdin: Option<&'a str>,
}

/// Names of the values a program reads from standard input, in order, from the `--stdin`
/// template (`{N} 40` → `[Some(N), None]`): the k-th whitespace- or comma-separated token,
/// where it is a `{NAME}` placeholder. Empty for a NAMELIST or `key = value` template, whose
/// values are found by name, not position (trial 13: `READ(5,*) IBUF(1)` from `{N} 40` was a
/// parameter IBUF_1, so no source expression was in N).
pub fn stdin_names(template: &str) -> Vec<StdinItem> {
    if template.contains(['&', '=', '$']) {
        return Vec::new();
    }
    template
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(|t| {
            let placeholder = t
                .strip_prefix('{')
                .and_then(|t| t.strip_suffix('}'))
                .filter(|n| !n.is_empty() && !n.contains(['{', '}']));
            match placeholder {
                Some(n) => StdinItem::Named(n.to_string()),
                // Fortran reads `1.5d0` as 1.5
                None => t
                    .replace(['d', 'D'], "e")
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map_or(StdinItem::Unnamed, StdinItem::Literal),
            }
        })
        .collect()
}

/// The parameters in `varying` that nothing carried to the program: no `{NAME}` in its
/// arguments or the `--stdin` template, so every run had the same input whatever its label.
pub fn uncarried(varying: &[(String, Vec<String>)], via: Carriers<'_>) -> Vec<String> {
    varying
        .iter()
        .filter(|(name, _)| {
            let holder = format!("{{{name}}}");
            !via.args.iter().any(|a| a.contains(&holder))
                && !via.stdin.is_some_and(|t| t.contains(&holder))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

/// A warning for each parameter in `varying` (name, the values it took) that does not reach
/// the program, given the APT's inputs `params`.
pub fn warnings(
    varying: &[(String, Vec<String>)],
    via: Carriers<'_>,
    params: &[ProgParam],
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, values) in varying {
        let holder = format!("{{{name}}}");
        let positions: Vec<u32> = via
            .args
            .iter()
            .enumerate()
            .filter(|(_, a)| a.contains(&holder))
            .filter_map(|(i, _)| u32::try_from(i + 1).ok())
            .collect();
        let in_stdin = via.stdin.is_some_and(|t| t.contains(&holder));
        let varies = format!(
            "--param {name} varies across the runs ({})",
            values.join(", ")
        );
        let how = format!(
            "give {name} the way the program reads it: as a command-line argument (`-- … {holder} …`) if it reads argv, or in a --stdin FILE holding `{holder}` if it reads standard input (`scanf`, `read(*,*)`, `read(*, nml=…)`); --param cannot vary a size the program reads from an input file of its own (make it read the size from argv or standard input)"
        );
        if positions.is_empty() && !in_stdin {
            out.push(format!(
                "{varies}, but no {holder} in the program's arguments{} carries it, so every run got the same input: {how}",
                if via.stdin.is_some() { " or the --stdin template" } else { "" }
            ));
            continue;
        }
        let argv_read = |i: u32| {
            params.iter().any(|p| match &p.origin {
                ParamOrigin::Argv { index: Some(k) } => *k == i || p.also_argv.contains(&i),
                // an argument read at an index augur could not fold, or by getopt: it may be any
                ParamOrigin::Argv { index: None } | ParamOrigin::Option { .. } => true,
                _ => false,
            })
        };
        let stdin_read = params.iter().any(|p| p.origin == ParamOrigin::Stdin);
        if positions.iter().any(|&i| argv_read(i)) || (in_stdin && stdin_read) {
            continue;
        }
        let mut carried = Vec::new();
        if !positions.is_empty() {
            let list: Vec<String> = positions.iter().map(u32::to_string).collect();
            carried.push(format!(
                "as argument {} (augur finds no read of {} in the program)",
                list.join(", "),
                if positions.len() == 1 { "it" } else { "them" }
            ));
        }
        if in_stdin {
            carried.push(
                "in the --stdin template (augur finds no read of standard input in the program)"
                    .to_string(),
            );
        }
        out.push(format!(
            "{varies} and is passed {}: if the program takes {name} from elsewhere (a NAMELIST or input file, a constant), every run had the same {name}; {how}",
            carried.join(" and ")
        ));
    }
    out
}

/// The parameters that take more than one value in `runs` (ok runs only), with their values
/// as the configuration ids print them, in name order.
pub fn varying(runs: &[trace::RunRecord]) -> Vec<(String, Vec<String>)> {
    let mut by: std::collections::BTreeMap<&str, Vec<f64>> = Default::default();
    for r in runs.iter().filter(|r| r.status.is_ok()) {
        for (k, v) in &r.params {
            let vals = by.entry(k.as_str()).or_default();
            if !vals.iter().any(|x| x.to_bits() == v.to_bits()) {
                vals.push(*v);
            }
        }
    }
    by.into_iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, mut v)| {
            v.sort_by(f64::total_cmp);
            (k.to_string(), v.iter().map(|x| format!("{x}")).collect())
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn stdin_values_are_named_by_their_placeholders_in_order() {
        assert_eq!(
            stdin_names("{N} 40\n{NITER} x 2.5d0"),
            [
                StdinItem::Named("N".into()),
                StdinItem::Literal(40.0),
                StdinItem::Named("NITER".into()),
                StdinItem::Unnamed,
                StdinItem::Literal(2.5),
            ]
        );
        assert_eq!(stdin_names("{N}, 2.5, {K}").len(), 3);
        assert!(stdin_names("&size n = {N} /").is_empty());
    }

    /// Trial 12: `--param STEPS=5,10 -- {N} 10`: STEPS reached no run; N did.
    #[test]
    fn a_parameter_no_placeholder_carries_is_uncarried() {
        let varying = vec![
            ("N".to_string(), vec!["256".to_string(), "512".to_string()]),
            ("STEPS".to_string(), vec!["5".to_string(), "10".to_string()]),
        ];
        let args = ["{N}".to_string(), "10".to_string()];
        let via = Carriers {
            args: &args,
            stdin: None,
        };
        assert_eq!(uncarried(&varying, via), ["STEPS"]);
        let via = Carriers {
            args: &args,
            stdin: Some("&size nsteps = {STEPS} /"),
        };
        assert!(uncarried(&varying, via).is_empty());
    }

    fn param(name: &str, origin: ParamOrigin) -> ProgParam {
        ProgParam {
            name: name.into(),
            origin,
            source_name: name.to_ascii_lowercase(),
            line: 3,
            file: None,
            also_argv: Vec::new(),
        }
    }

    fn n() -> Vec<(String, Vec<String>)> {
        vec![("N".into(), vec!["2000".into(), "4000".into()])]
    }

    #[test]
    fn an_argument_the_program_never_reads() {
        // trial 8's burgers.f90: N from a NAMELIST file, --param N passed as argv 1
        let args = ["{N}".to_string()];
        let via = Carriers {
            args: &args,
            stdin: None,
        };
        let w = warnings(&n(), via, &[param("P", ParamOrigin::CommSize)]);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("--param N varies across the runs (2000, 4000) and is passed as argument 1 (augur finds no read of it in the program): if the program takes N from elsewhere (a NAMELIST or input file, a constant), every run had the same N; give N the way the program reads it"),
            "{w:?}"
        );
        assert!(w[0].contains("a --stdin FILE holding `{N}`"), "{w:?}");
        // read as argv 1: nothing to say; as argv 2 only: still unread
        let read = [param("N", ParamOrigin::Argv { index: Some(1) })];
        assert!(warnings(&n(), via, &read).is_empty());
        let other = [param("K", ParamOrigin::Argv { index: Some(2) })];
        assert_eq!(warnings(&n(), via, &other).len(), 1);
        // getopt: any argument may be it
        let opt = [param("N", ParamOrigin::Option { flag: None })];
        assert!(warnings(&n(), via, &opt).is_empty());
    }

    #[test]
    fn a_parameter_nothing_carries() {
        let args = ["{K}".to_string(), "input.nml".to_string()];
        let w = warnings(
            &n(),
            Carriers {
                args: &args,
                stdin: Some("{K}\n"),
            },
            &[],
        );
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(
            w[0].starts_with("--param N varies across the runs (2000, 4000), but no {N} in the program's arguments or the --stdin template carries it, so every run got the same input"),
            "{w:?}"
        );
    }

    #[test]
    fn stdin_carries_when_the_program_reads_it() {
        let via = Carriers {
            args: &[],
            stdin: Some("{N} {TEND}\n"),
        };
        let stdin = [param("N", ParamOrigin::Stdin)];
        assert!(warnings(&n(), via, &stdin).is_empty());
        let w = warnings(&n(), via, &[]);
        assert!(
            w[0].contains("is passed in the --stdin template (augur finds no read of standard input in the program)"),
            "{w:?}"
        );
    }

    #[test]
    fn only_parameters_with_several_values_vary() {
        let mut params = std::collections::BTreeMap::new();
        params.insert("N".to_string(), 2000.0);
        params.insert("K".to_string(), 8.0);
        let rec = |n: f64, np: u32| {
            let mut p = params.clone();
            p.insert("N".into(), n);
            trace::RunRecord {
                mpi: "Open MPI".into(),
                host: "h".into(),
                wall_seconds: 1.0,
                ..trace::RunRecord::new(p, np)
            }
        };
        let v = varying(&[rec(2000.0, 2), rec(4000.0, 2), rec(2000.0, 4)]);
        assert_eq!(v, n());
    }
}
