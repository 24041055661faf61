//! The options every subcommand that reads a program shares (`-I`, `-D`, `--form`), their
//! translation to the front end's options, and their record in a run directory's manifest: one
//! definition, flattened into each subcommand. `profile` records them; `analyze` reads the
//! sources with the recorded ones unless the command line gives its own.

use clap::{Args, ValueEnum};
use std::path::PathBuf;
use trace::run_dir::SourceOptions;

#[derive(Debug, Clone, Default, Args)]
pub struct SourceOpts {
    /// Directory searched for `include` / `#include "…"` files (after the including file's own)
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// C macro `NAME` or `NAME=VALUE`
    #[arg(short = 'D', value_name = "NAME[=VALUE]", value_parser = parse_define)]
    pub define: Vec<String>,
    /// Source form, overriding the file extension
    #[arg(long, value_enum)]
    pub form: Option<FormArg>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormArg {
    C,
    Fixed,
    Free,
}

impl FormArg {
    fn name(self) -> &'static str {
        match self {
            FormArg::C => "c",
            FormArg::Fixed => "fixed",
            FormArg::Free => "free",
        }
    }

    fn from_name(name: &str) -> Option<FormArg> {
        [FormArg::C, FormArg::Fixed, FormArg::Free]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// `-D NAME` / `-D NAME=VALUE` with NAME a C identifier (`-D =5`, `-D 1X=5` define nothing a
/// program could test, and the compiler would reject them).
fn parse_define(text: &str) -> Result<String, String> {
    let name = text.split_once('=').map_or(text, |(n, _)| n);
    let ident = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        Ok(text.to_string())
    } else if name.is_empty() {
        Err(format!(
            "`{text}` names no macro: write -D NAME or -D NAME=VALUE"
        ))
    } else {
        Err(format!(
            "`{name}` is not a macro name (letters, digits and `_`, not starting with a digit): write -D NAME or -D NAME=VALUE"
        ))
    }
}

impl SourceOpts {
    pub fn frontend_options(&self) -> frontend::Options {
        frontend::Options {
            form: match self.form {
                None => frontend::Form::Auto,
                Some(FormArg::C) => frontend::Form::C,
                Some(FormArg::Fixed) => frontend::Form::Fixed,
                Some(FormArg::Free) => frontend::Form::Free,
            },
            include_dirs: self.include.clone(),
            defines: self
                .define
                .iter()
                .map(|d| match d.split_once('=') {
                    Some((n, v)) => (n.to_string(), Some(v.to_string())),
                    None => (d.clone(), None),
                })
                .collect(),
        }
    }

    /// The manifest's record of these options (include directories made absolute, so another
    /// working directory reads the same headers) with the extra compile flags.
    pub fn record(&self, cflags: &[String]) -> std::io::Result<SourceOptions> {
        Ok(SourceOptions {
            defines: self.define.clone(),
            include_dirs: self
                .include
                .iter()
                .map(|d| std::path::absolute(d).map(|p| p.display().to_string()))
                .collect::<Result<_, _>>()?,
            form: self.form.map(|f| f.name().to_string()),
            cflags: cflags.to_vec(),
        })
    }

    /// The options to read a profiled program's sources with: each of `-D`, `-I` and `--form`
    /// given on the command line, else as `recorded`. Also a warning for each option given here
    /// that differs from the profile's.
    pub fn with_recorded(&self, recorded: &SourceOptions) -> (SourceOpts, Vec<String>) {
        let mut warnings = Vec::new();
        let given = self.record(&[]).unwrap_or_default();
        let mut differs = |what: &str, here: String, there: String| {
            warnings.push(format!(
                "{what}: the runs were profiled with {there}, and the sources are read here with {here} (as given): the site ids in the traces are those of the profiled program; leave the option out to use the recorded one"
            ));
        };
        if !self.define.is_empty() && self.define != recorded.defines {
            differs(
                "-D",
                flags("-D", &self.define),
                flags("-D", &recorded.defines),
            );
        }
        if !self.include.is_empty() && given.include_dirs != recorded.include_dirs {
            differs(
                "-I",
                flags("-I", &given.include_dirs),
                flags("-I", &recorded.include_dirs),
            );
        }
        if self.form.is_some() && given.form != recorded.form {
            differs(
                "--form",
                form_text(given.form.as_deref()),
                form_text(recorded.form.as_deref()),
            );
        }
        let opts = SourceOpts {
            include: if self.include.is_empty() {
                recorded.include_dirs.iter().map(PathBuf::from).collect()
            } else {
                self.include.clone()
            },
            define: if self.define.is_empty() {
                recorded.defines.clone()
            } else {
                self.define.clone()
            },
            form: self
                .form
                .or_else(|| recorded.form.as_deref().and_then(FormArg::from_name)),
        };
        (opts, warnings)
    }
}

/// `-D A -D B=1`, or `no -D` for none.
pub fn flags(flag: &str, values: &[String]) -> String {
    if values.is_empty() {
        return format!("no {flag}");
    }
    values
        .iter()
        .map(|v| format!("{flag} {v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn form_text(form: Option<&str>) -> String {
    form.map_or("no --form".into(), |f| format!("--form {f}"))
}

/// The recorded options as a command line would give them (`-D X -I inc --form fixed`),
/// empty for none.
pub fn describe(o: &SourceOptions) -> String {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(o.defines.iter().map(|d| format!("-D {d}")));
    parts.extend(o.include_dirs.iter().map(|d| format!("-I {d}")));
    parts.extend(o.form.iter().map(|f| format!("--form {f}")));
    parts.join(" ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn macro_names_must_be_identifiers() {
        assert_eq!(parse_define("X").unwrap(), "X");
        assert_eq!(parse_define("_X1=5").unwrap(), "_X1=5");
        assert_eq!(parse_define("X=").unwrap(), "X=");
        for bad in ["1X=5", "A-B", "X Y"] {
            let e = parse_define(bad).unwrap_err();
            assert!(e.contains("is not a macro name"), "{bad}: {e}");
        }
        for bad in ["=5", ""] {
            let e = parse_define(bad).unwrap_err();
            assert!(e.contains("names no macro"), "{bad}: {e}");
        }
    }

    #[test]
    fn recorded_options_apply_unless_given() {
        let recorded = SourceOptions {
            defines: vec!["USE_NONBLOCKING".into()],
            include_dirs: vec!["/src/inc".into()],
            form: Some("fixed".into()),
            cflags: vec!["-fopenmp".into()],
        };
        let (o, w) = SourceOpts::default().with_recorded(&recorded);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(o.define, ["USE_NONBLOCKING"]);
        assert_eq!(o.include, [PathBuf::from("/src/inc")]);
        assert_eq!(o.form, Some(FormArg::Fixed));
        let given = SourceOpts {
            define: vec!["OTHER".into()],
            ..SourceOpts::default()
        };
        let (o, w) = given.with_recorded(&recorded);
        assert_eq!(o.define, ["OTHER"], "the command line wins");
        assert_eq!(o.form, Some(FormArg::Fixed), "the rest as recorded");
        assert_eq!(w.len(), 1);
        assert!(
            w[0].starts_with("-D: the runs were profiled with -D USE_NONBLOCKING, and the sources are read here with -D OTHER"),
            "{w:?}"
        );
        // the same option given again says nothing
        let same = SourceOpts {
            define: vec!["USE_NONBLOCKING".into()],
            ..SourceOpts::default()
        };
        assert!(same.with_recorded(&recorded).1.is_empty());
        assert_eq!(
            describe(&recorded),
            "-D USE_NONBLOCKING -I /src/inc --form fixed"
        );
    }
}
