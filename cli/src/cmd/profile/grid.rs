//! The parameter grid of `augur profile`: `--np` lists, `--param NAME=v1,v2` lists, their
//! cartesian product as configurations, `{NAME}` placeholder expansion in the program arguments,
//! and `--timeout` durations. Pure functions over strings, so every usage error is a one-line
//! message and nothing here touches processes.

use std::collections::BTreeMap;
use std::time::Duration;

/// A usage error in the grid options (rendered as `error: ...`, exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GridError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, GridError> {
    Err(GridError(msg.into()))
}

/// One problem parameter and the values to run it at, as written on the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    pub name: String,
    /// (text as given, numeric value); the text is what placeholders expand to.
    pub values: Vec<(String, f64)>,
}

/// One point of the grid: a value for every parameter and a rank count.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Parameter name → (text, value), in the order the parameters were given.
    pub params: Vec<(String, String, f64)>,
    pub np: u32,
}

impl Config {
    /// Parameters by name, as the manifest stores them.
    pub fn values(&self) -> BTreeMap<String, f64> {
        self.params
            .iter()
            .map(|(n, _, v)| (n.clone(), *v))
            .collect()
    }

    /// The run directory name (`trace::config_id`): parameters sorted by name, then `P`.
    pub fn id(&self) -> String {
        trace::config_id(&self.values(), self.np)
    }

    /// Expands `{NAME}` and `{P}` in every argument. `{{` and `}}` stand for literal braces.
    /// With no arguments at all the parameter values are passed in the order given.
    pub fn expand_args(&self, args: &[String]) -> Result<Vec<String>, GridError> {
        if args.is_empty() {
            return Ok(self.params.iter().map(|(_, t, _)| t.clone()).collect());
        }
        args.iter().map(|a| self.expand(a)).collect()
    }

    fn expand(&self, arg: &str) -> Result<String, GridError> {
        let mut out = String::with_capacity(arg.len());
        let mut rest = arg;
        while let Some(i) = rest.find(['{', '}']) {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            if let Some(t) = tail.strip_prefix("{{") {
                out.push('{');
                rest = t;
            } else if let Some(t) = tail.strip_prefix("}}") {
                out.push('}');
                rest = t;
            } else if tail.starts_with('}') {
                return err(format!(
                    "argument `{arg}`: unmatched `}}` (write `}}}}` for a literal brace)"
                ));
            } else {
                let Some(close) = tail.find('}') else {
                    return err(format!(
                        "argument `{arg}`: unclosed `{{` (write `{{{{` for a literal brace)"
                    ));
                };
                let name = &tail[1..close];
                out.push_str(&self.lookup(name).ok_or_else(|| {
                    GridError(format!(
                        "argument `{arg}`: unknown placeholder `{{{name}}}` (known: {})",
                        self.known_placeholders()
                    ))
                })?);
                rest = &tail[close + 1..];
            }
        }
        out.push_str(rest);
        Ok(out)
    }

    /// `text` with every `{NAME}` of a grid parameter (or `{P}`) replaced by this
    /// configuration's value; `None` when it holds none. Other braces are data (an input file
    /// may hold any), so unlike [`Config::expand_args`] nothing here is an error.
    pub fn substitute(&self, text: &str) -> Option<String> {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        let mut any = false;
        while let Some(i) = rest.find('{') {
            out.push_str(&rest[..i]);
            let tail = &rest[i..];
            let value = tail
                .find('}')
                .and_then(|close| Some((close, self.lookup(&tail[1..close])?)));
            match value {
                Some((close, v)) => {
                    out.push_str(&v);
                    rest = &tail[close + 1..];
                    any = true;
                }
                None => {
                    out.push('{');
                    rest = &tail[1..];
                }
            }
        }
        out.push_str(rest);
        any.then_some(out)
    }

    /// The `{NAME}` placeholders in `text` (NAME an identifier) that this grid does not define,
    /// each once in order: [`Config::substitute`] leaves them as they are, which is what an
    /// input file's own braces need, but a misspelt or forgotten `--param` also looks so.
    pub fn unknown_placeholders(&self, text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut rest = text;
        while let Some(i) = rest.find('{') {
            rest = &rest[i + 1..];
            let Some(close) = rest.find('}') else {
                break;
            };
            let name = &rest[..close];
            let ident = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if ident && self.lookup(name).is_none() && !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        }
        out
    }

    /// `{N} {K} {P}`: the placeholders this grid defines.
    pub fn known_placeholders(&self) -> String {
        self.params
            .iter()
            .map(|(n, _, _)| format!("{{{n}}}"))
            .chain(["{P}".to_string()])
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn lookup(&self, name: &str) -> Option<String> {
        if name == "P" {
            return Some(self.np.to_string());
        }
        self.params
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, t, _)| t.clone())
    }
}

/// Parses `--np 1,2,4` (repeatable; values are concatenated). Ranges `2..8` are not accepted:
/// list the counts, so the grid on disk is exactly what was asked.
pub fn parse_np(specs: &[String]) -> Result<Vec<u32>, GridError> {
    let mut out: Vec<u32> = Vec::new();
    for spec in specs {
        for item in spec.split(',').map(str::trim) {
            let n: u32 = item.parse().map_err(|_| {
                GridError(format!(
                    "--np `{spec}`: `{item}` is not a positive rank count"
                ))
            })?;
            if n == 0 {
                return err(format!("--np `{spec}`: rank counts start at 1"));
            }
            if !out.contains(&n) {
                out.push(n);
            }
        }
    }
    if out.is_empty() {
        return err("--np: give at least one rank count, e.g. --np 1,2,4");
    }
    Ok(out)
}

/// Parses one `--param NAME=v1,v2,...`.
pub fn parse_param(spec: &str) -> Result<Param, GridError> {
    let Some((name, values)) = spec.split_once('=') else {
        return err(format!(
            "--param `{spec}`: expected NAME=VALUE[,VALUE...], e.g. N=64,128"
        ));
    };
    let name = name.trim();
    let ok_name = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok_name {
        return err(format!(
            "--param `{spec}`: `{name}` is not a parameter name (letters, digits, `_`)"
        ));
    }
    if name == "P" {
        return err(format!(
            "--param `{spec}`: `P` is the rank count; give it with --np"
        ));
    }
    let mut out = Vec::new();
    for v in values.split(',').map(str::trim) {
        let x: f64 = v
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| GridError(format!("--param `{spec}`: `{v}` is not a number")))?;
        if !out.iter().any(|(t, _): &(String, f64)| t == v) {
            out.push((v.to_string(), x));
        }
    }
    if out.is_empty() {
        return err(format!("--param `{spec}`: no values"));
    }
    Ok(Param {
        name: name.to_string(),
        values: out,
    })
}

/// The cartesian product: parameters vary in the order given (first slowest), `np` fastest.
pub fn configs(params: &[Param], nps: &[u32]) -> Result<Vec<Config>, GridError> {
    for (i, p) in params.iter().enumerate() {
        if params[..i].iter().any(|q| q.name == p.name) {
            return err(format!(
                "--param {}: given twice; list all its values in one --param",
                p.name
            ));
        }
    }
    let mut points: Vec<Vec<(String, String, f64)>> = vec![Vec::new()];
    for p in params {
        let mut next = Vec::with_capacity(points.len() * p.values.len());
        for point in &points {
            for (t, v) in &p.values {
                let mut q = point.clone();
                q.push((p.name.clone(), t.clone(), *v));
                next.push(q);
            }
        }
        points = next;
    }
    let mut out = Vec::new();
    for point in points {
        for &np in nps {
            out.push(Config {
                params: point.clone(),
                np,
            });
        }
    }
    // Distinct texts can still name one configuration (`64` and `64.0`): one run directory each.
    let mut seen = std::collections::BTreeSet::new();
    out.retain(|c| seen.insert(c.id()));
    Ok(out)
}

/// Parses a duration: `90`, `90s`, `500ms`, `2m`, `1h`, `1.5s`.
pub fn parse_duration(s: &str) -> Result<Duration, GridError> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    let x: f64 = num
        .trim()
        .parse()
        .map_err(|_| GridError(format!("--timeout `{s}`: expected e.g. 60s, 500ms, 2m")))?;
    let secs = x * scale;
    if !secs.is_finite() || secs <= 0.0 || secs > 1e7 {
        return err(format!("--timeout `{s}`: must be positive"));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn np_lists() {
        assert_eq!(parse_np(&args(&["1,2", "4", "2"])).unwrap(), vec![1, 2, 4]);
        assert!(parse_np(&args(&["0"]))
            .unwrap_err()
            .0
            .contains("start at 1"));
        assert!(parse_np(&args(&["2..8"]))
            .unwrap_err()
            .0
            .contains("`2..8` is not"));
        assert!(parse_np(&[]).is_err());
    }

    #[test]
    fn params_parse_and_reject() {
        let p = parse_param("N=64, 128,64").unwrap();
        assert_eq!(p.name, "N");
        assert_eq!(
            p.values,
            vec![("64".to_string(), 64.0), ("128".to_string(), 128.0)]
        );
        for (bad, msg) in [
            ("N", "expected NAME=VALUE"),
            ("1N=3", "not a parameter name"),
            ("P=2", "rank count"),
            ("N=x", "`x` is not a number"),
            ("N=inf", "`inf` is not a number"),
        ] {
            assert!(parse_param(bad).unwrap_err().0.contains(msg), "{bad}");
        }
    }

    #[test]
    fn grid_is_cartesian_with_np_fastest() {
        let ps = vec![
            parse_param("N=64,128").unwrap(),
            parse_param("K=4,8").unwrap(),
        ];
        let cs = configs(&ps, &[1, 2]).unwrap();
        let ids: Vec<String> = cs.iter().map(Config::id).collect();
        assert_eq!(
            ids,
            [
                "K=4,N=64,P=1",
                "K=4,N=64,P=2",
                "K=8,N=64,P=1",
                "K=8,N=64,P=2",
                "K=4,N=128,P=1",
                "K=4,N=128,P=2",
                "K=8,N=128,P=1",
                "K=8,N=128,P=2"
            ]
        );
        assert_eq!(configs(&[], &[4]).unwrap()[0].id(), "P=4");
        let dup = vec![parse_param("N=1").unwrap(), parse_param("N=2").unwrap()];
        assert!(configs(&dup, &[1]).unwrap_err().0.contains("given twice"));
        let same = vec![parse_param("N=64,64.0").unwrap()];
        assert_eq!(configs(&same, &[1]).unwrap().len(), 1);
    }

    #[test]
    fn input_files_take_the_grid_values() {
        let ps = vec![
            parse_param("N=64").unwrap(),
            parse_param("NSTEPS=10").unwrap(),
        ];
        let c = &configs(&ps, &[4]).unwrap()[0];
        assert_eq!(
            c.substitute("&run n={N}, nsteps={NSTEPS} /\n{x} {P} {N\n")
                .as_deref(),
            Some("&run n=64, nsteps=10 /\n{x} 4 {N\n")
        );
        assert_eq!(c.substitute("1000 10\n{unrelated}\n"), None, "used as is");
        // what is left literally and looks like a placeholder is reported (the caller warns)
        assert_eq!(
            c.unknown_placeholders("n={N} m={M} {P} {M} {x} {1,2} {\"a\": 1} {N\n"),
            ["M", "x"]
        );
        assert_eq!(c.known_placeholders(), "{N} {NSTEPS} {P}");
    }

    #[test]
    fn placeholders() {
        let ps = vec![parse_param("N=64").unwrap(), parse_param("K=8").unwrap()];
        let c = &configs(&ps, &[4]).unwrap()[0];
        assert_eq!(
            c.expand_args(&args(&["{N}", "-k{K}", "p={P}", "{{x}}"]))
                .unwrap(),
            args(&["64", "-k8", "p=4", "{x}"])
        );
        assert_eq!(c.expand_args(&[]).unwrap(), args(&["64", "8"]));
        assert!(c
            .expand_args(&args(&["{M}"]))
            .unwrap_err()
            .0
            .contains("unknown placeholder `{M}` (known: {N} {K} {P})"));
        assert!(c
            .expand_args(&args(&["{N"]))
            .unwrap_err()
            .0
            .contains("unclosed"));
        assert!(c
            .expand_args(&args(&["N}"]))
            .unwrap_err()
            .0
            .contains("unmatched"));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("60s").unwrap(), Duration::from_secs(60));
        assert_eq!(parse_duration("3").unwrap(), Duration::from_secs(3));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("1.5s").unwrap(), Duration::from_millis(1500));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1s").is_err());
    }
}
