//! Reader for the CSV that `runtime/c/augur_bench.c` writes: `#` metadata lines, a header, then
//! one line per data point. Never panics; errors name the line.

use std::collections::BTreeMap;

/// The header line the benchmark writes (columns in this order).
pub const HEADER: &str = "kind,op,p,bytes,reps,min,median,mean,stddev";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("no header line `{HEADER}`: is this an augur_bench output file?")]
    NoHeader,
    #[error("no data points")]
    Empty,
}

/// Point-to-point, collective, or the host's detours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Pt2pt,
    Coll,
    /// The selfish-detour loop's rows (`span`, `detour`; [`crate::noise`]).
    Noise,
}

/// One measured point: statistics over `reps` timed repetitions, seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchRow {
    pub kind: Kind,
    pub op: String,
    /// Group size (2 for point-to-point).
    pub p: u32,
    pub bytes: u64,
    pub reps: u32,
    pub min: f64,
    pub median: f64,
    pub mean: f64,
    pub stddev: f64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct BenchData {
    /// `# key value` lines (`mpi`, `host`, `np`, `wtick`, `reps`).
    pub meta: BTreeMap<String, String>,
    pub rows: Vec<BenchRow>,
}

impl BenchData {
    /// Rows of one kind and operation, in file order.
    pub fn op<'a>(&'a self, kind: Kind, op: &'a str) -> impl Iterator<Item = &'a BenchRow> + 'a {
        self.rows
            .iter()
            .filter(move |r| r.kind == kind && r.op == op)
    }
}

fn field<T: std::str::FromStr>(s: &str, what: &str, line: usize) -> Result<T, BenchError> {
    s.trim().parse().map_err(|_| BenchError::Line {
        line,
        message: format!("{what} `{s}` is not a valid number"),
    })
}

pub fn parse_bench(text: &str) -> Result<BenchData, BenchError> {
    let mut data = BenchData::default();
    let mut header = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(m) = l.strip_prefix('#') {
            let m = m.trim();
            let (k, v) = m.split_once(' ').unwrap_or((m, ""));
            data.meta.insert(k.to_string(), v.trim().to_string());
            continue;
        }
        if !header {
            if l == HEADER {
                header = true;
                continue;
            }
            return Err(BenchError::NoHeader);
        }
        let f: Vec<&str> = l.split(',').collect();
        if f.len() != 9 {
            return Err(BenchError::Line {
                line,
                message: format!("expected 9 comma-separated fields, found {}", f.len()),
            });
        }
        let kind = match f[0] {
            "pt2pt" => Kind::Pt2pt,
            "coll" => Kind::Coll,
            "noise" => Kind::Noise,
            k => {
                return Err(BenchError::Line {
                    line,
                    message: format!("unknown kind `{k}` (expected pt2pt, coll or noise)"),
                })
            }
        };
        let row = BenchRow {
            kind,
            op: f[1].to_string(),
            p: field(f[2], "group size", line)?,
            bytes: field(f[3], "bytes", line)?,
            reps: field(f[4], "reps", line)?,
            min: field(f[5], "min", line)?,
            median: field(f[6], "median", line)?,
            mean: field(f[7], "mean", line)?,
            stddev: field(f[8], "stddev", line)?,
        };
        if [row.min, row.median, row.mean, row.stddev]
            .iter()
            .any(|v| !v.is_finite() || *v < 0.0)
        {
            return Err(BenchError::Line {
                line,
                message: "timings must be finite and non-negative".into(),
            });
        }
        if row.reps == 0 {
            return Err(BenchError::Line {
                line,
                message: "reps must be at least 1".into(),
            });
        }
        data.rows.push(row);
    }
    if !header {
        return Err(BenchError::NoHeader);
    }
    if data.rows.is_empty() {
        return Err(BenchError::Empty);
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_meta_and_rows() {
        let t = "# augur_bench 1\n# mpi Open MPI v4.1.4, x\n# np 2\nkind,op,p,bytes,reps,min,median,mean,stddev\npt2pt,pingpong,2,1,10,4.6e-07,5.0e-07,6.8e-07,4.3e-07\n";
        let d = parse_bench(t).unwrap_or_default();
        assert_eq!(
            d.meta.get("mpi").map(String::as_str),
            Some("Open MPI v4.1.4, x")
        );
        assert_eq!(d.rows.len(), 1);
        assert_eq!(d.rows[0].bytes, 1);
        assert_eq!(d.op(Kind::Pt2pt, "pingpong").count(), 1);
    }

    #[test]
    fn bad_lines_name_the_line() {
        let t = "kind,op,p,bytes,reps,min,median,mean,stddev\npt2pt,pingpong,2,x,10,1,1,1,1\n";
        assert_eq!(
            parse_bench(t),
            Err(BenchError::Line {
                line: 2,
                message: "bytes `x` is not a valid number".into()
            })
        );
        assert_eq!(parse_bench("hello\n"), Err(BenchError::NoHeader));
        assert_eq!(parse_bench(&format!("{HEADER}\n")), Err(BenchError::Empty));
        let neg = format!("{HEADER}\ncoll,bcast,2,8,3,-1,1,1,1\n");
        assert!(matches!(
            parse_bench(&neg),
            Err(BenchError::Line { line: 2, .. })
        ));
    }
}
