//! The program parameters an APT's expressions are written in: values read at run time,
//! named constants, and `P`/`rank` from `MPI_Comm_size`/`MPI_Comm_rank`.
//!
//! Naming: the variable or constant upper-cased (`n` read from `argv[1]` → `N`), unless the
//! caller named the command-line arguments ([`crate::AptOptions::arg_names`]). Two different
//! origins wanting one name get `_2`, `_3`, … suffixes, in order of first appearance.
use std::collections::BTreeMap;

use frontend::InputOrigin;
use serde::Serialize;

/// The symbol of the communicator size.
pub const P: &str = "P";
/// The symbol of the calling process's rank.
pub const RANK: &str = "rank";

/// Where a program parameter's value comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ParamOrigin {
    /// Command-line argument `index` (1-based; `None` when not a literal index).
    Argv { index: Option<u32> },
    /// Standard input (`scanf`, `read(*,*)`).
    Stdin,
    /// Environment variable.
    Env { name: Option<String> },
    /// A command-line option's argument read through `getopt` (`-n 100` read by `case 'n':
    /// n = atoi(optarg)`): the option, when the read is under its `case`.
    Option { flag: Option<String> },
    /// A named constant (`PARAMETER`, `#define`, `const`, `-D`) with its value in the source.
    Constant { default: f64 },
    /// `MPI_Comm_size(MPI_COMM_WORLD, …)`.
    CommSize,
    /// `MPI_Comm_rank(MPI_COMM_WORLD, …)`.
    CommRank,
}

impl ParamOrigin {
    /// Short human description (`argv 1`, `constant = 7`).
    pub fn describe(&self) -> String {
        match self {
            ParamOrigin::Argv { index: Some(i) } => format!("argv {i}"),
            ParamOrigin::Argv { index: None } => "argv".into(),
            ParamOrigin::Stdin => "stdin".into(),
            ParamOrigin::Env { name: Some(n) } => format!("env {n}"),
            ParamOrigin::Env { name: None } => "env".into(),
            ParamOrigin::Option { flag: Some(f) } => format!("option -{f}"),
            ParamOrigin::Option { flag: None } => "option".into(),
            ParamOrigin::Constant { default } => format!("constant = {default}"),
            ParamOrigin::CommSize => "MPI_Comm_size".into(),
            ParamOrigin::CommRank => "MPI_Comm_rank".into(),
        }
    }
}

/// One named program parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProgParam {
    pub name: String,
    pub origin: ParamOrigin,
    /// The variable or constant it was read into / declared as (as written in the IR).
    pub source_name: String,
    /// 1-based line of the first read or the declaration.
    pub line: u32,
    /// The file of `line` when it is not the main file (an included header).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Further command-line arguments the caller gave this parameter's name (`{N} {N} {N}`
    /// names arguments 1, 2 and 3 `N`: this is `[2, 3]` on argument 1's parameter).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also_argv: Vec<u32>,
}

/// One value of the `--stdin` template, in the order the program reads them
/// ([`crate::AptOptions::stdin_names`]).
#[derive(Debug, Clone, PartialEq)]
pub enum StdinItem {
    /// A `{NAME}` placeholder: the value read is the parameter NAME.
    Named(String),
    /// A number written into the template (`{N} 20`): every run reads that value.
    Literal(f64),
    /// Anything else: the value read is a parameter named after its variable.
    Unnamed,
}

/// Registry of parameters, deduplicated by origin.
#[derive(Debug, Clone, Default)]
pub struct Params {
    list: Vec<ProgParam>,
    /// Origin key → index in `list`.
    by_key: BTreeMap<String, usize>,
    arg_names: Vec<String>,
    stdin_names: Vec<StdinItem>,
    /// Origin keys of values read from standard input that the template fixes, with the value.
    stdin_literals: BTreeMap<String, f64>,
    /// Distinct values read from standard input so far: the next one's index in
    /// `stdin_names`.
    stdin_read: usize,
}

impl Params {
    pub fn new(arg_names: Vec<String>) -> Self {
        Params {
            list: Vec::new(),
            by_key: BTreeMap::new(),
            arg_names,
            stdin_names: Vec::new(),
            stdin_literals: BTreeMap::new(),
            stdin_read: 0,
        }
    }

    /// As [`Self::new`], with the names of the values read from standard input in order
    /// ([`crate::AptOptions::stdin_names`]).
    pub fn with_stdin_names(mut self, stdin_names: Vec<StdinItem>) -> Self {
        self.stdin_names = stdin_names;
        self
    }

    pub fn list(&self) -> &[ProgParam] {
        &self.list
    }

    /// Whether `name` is a parameter read at run time (argv, options, stdin, environment).
    pub fn is_input(&self, name: &str) -> bool {
        self.list.iter().any(|p| {
            p.name == name
                && matches!(
                    p.origin,
                    ParamOrigin::Argv { .. }
                        | ParamOrigin::Option { .. }
                        | ParamOrigin::Stdin
                        | ParamOrigin::Env { .. }
                )
        })
    }

    /// Whether `name` is a named constant (`#define`, PARAMETER, `const`, `-D`).
    pub fn is_constant(&self, name: &str) -> bool {
        self.list
            .iter()
            .any(|p| p.name == name && matches!(p.origin, ParamOrigin::Constant { .. }))
    }

    /// The value of the named constant `name`.
    pub fn constant_value(&self, name: &str) -> Option<f64> {
        self.list.iter().find_map(|p| match p.origin {
            ParamOrigin::Constant { default } if p.name == name => Some(default),
            _ => None,
        })
    }

    pub fn is_param(&self, name: &str) -> bool {
        self.list.iter().any(|p| p.name == name)
    }

    fn register(
        &mut self,
        key: String,
        wanted: String,
        origin: ParamOrigin,
        source_name: &str,
        line: u32,
    ) -> String {
        if let Some(&i) = self.by_key.get(&key) {
            if let Some(p) = self.list.get(i) {
                return p.name.clone();
            }
        }
        let mut name = wanted.clone();
        let mut k = 2;
        while self.list.iter().any(|p| p.name == name)
            || (name == RANK && origin != ParamOrigin::CommRank)
        {
            name = format!("{wanted}_{k}");
            k += 1;
        }
        self.by_key.insert(key, self.list.len());
        self.list.push(ProgParam {
            name: name.clone(),
            origin,
            source_name: source_name.to_string(),
            line,
            file: None,
            also_argv: Vec::new(),
        });
        name
    }

    /// Records that parameter `name` was declared in file `file` (not the main file).
    pub fn set_file(&mut self, name: &str, file: String) {
        if let Some(p) = self
            .list
            .iter_mut()
            .find(|p| p.name == name && p.file.is_none())
        {
            p.file = Some(file);
        }
    }

    /// A value read at run time into variable `var` (or access path: `g.nx` names `NX`).
    /// The value the `--stdin` template fixes for `var` read from standard input (`20` of `{N}
    /// 20` for the second value read), after [`Self::input`] declined to name a parameter.
    pub fn literal(&self, origin: &InputOrigin, var: &str) -> Option<f64> {
        match origin {
            InputOrigin::Stdin => self.stdin_literals.get(&format!("stdin:{var}")).copied(),
            _ => None,
        }
    }

    pub fn input(&mut self, origin: &InputOrigin, var: &str, line: u32) -> Option<String> {
        let upper = symbol_name(var);
        let (key, origin, wanted) = match origin {
            InputOrigin::Argv(idx) => {
                let named =
                    idx.and_then(|i| self.arg_names.get((i as usize).checked_sub(1)?).cloned());
                if let (Some(i), Some(name)) = (idx, &named) {
                    if let Some(alias) = self.same_named_argv(*i, name) {
                        return Some(alias);
                    }
                }
                let wanted = named.unwrap_or_else(|| upper.clone());
                let key = match idx {
                    Some(i) => format!("argv:{i}"),
                    None => format!("argv:?{var}"),
                };
                (key, ParamOrigin::Argv { index: *idx }, wanted)
            }
            InputOrigin::Stdin => {
                let key = format!("stdin:{var}");
                if self.stdin_literals.contains_key(&key) {
                    return None;
                }
                // the k-th value read (a new one: a value read again keeps its name)
                let named = if self.by_key.contains_key(&key) {
                    None
                } else {
                    let k = self.stdin_read;
                    self.stdin_read += 1;
                    match self.stdin_names.get(k) {
                        Some(StdinItem::Named(n)) => Some(n.clone()),
                        // a number in the template: no parameter, the value ([`Self::literal`])
                        Some(StdinItem::Literal(v)) => {
                            self.stdin_literals.insert(key, *v);
                            return None;
                        }
                        Some(StdinItem::Unnamed) | None => None,
                    }
                };
                // a placeholder the template names twice (`{N} {N} {STEPS}` for NX = NY = N)
                // is one parameter, as the same name twice in the arguments is
                if let Some(i) = named.as_ref().and_then(|n| {
                    self.list
                        .iter()
                        .position(|p| &p.name == n && p.origin == ParamOrigin::Stdin)
                }) {
                    self.by_key.insert(key, i);
                    return named;
                }
                (key, ParamOrigin::Stdin, named.unwrap_or(upper))
            }
            InputOrigin::Env(n) => (
                format!("env:{}", n.clone().unwrap_or_else(|| var.to_string())),
                ParamOrigin::Env { name: n.clone() },
                upper,
            ),
            InputOrigin::Option(flag) => (
                format!(
                    "option:{}",
                    flag.clone().unwrap_or_else(|| format!("?{var}"))
                ),
                ParamOrigin::Option { flag: flag.clone() },
                upper,
            ),
            InputOrigin::File => return None,
        };
        Some(self.register(key, wanted, origin, var, line))
    }

    /// Argument `index` named `name` by the caller when an earlier argument was given the
    /// same name: both are that parameter (NX = NY = NZ = N for `{N} {N} {N}`).
    fn same_named_argv(&mut self, index: u32, name: &str) -> Option<String> {
        let key = format!("argv:{index}");
        if let Some(&k) = self.by_key.get(&key) {
            return self.list.get(k).map(|p| p.name.clone());
        }
        let first = self
            .arg_names
            .iter()
            .position(|n| n == name)
            .and_then(|k| u32::try_from(k + 1).ok())
            .filter(|&first| first < index)?;
        let k = *self.by_key.get(&format!("argv:{first}"))?;
        let p = self.list.get_mut(k)?;
        if p.name != name {
            return None;
        }
        p.also_argv.push(index);
        self.by_key.insert(key, k);
        Some(p.name.clone())
    }

    /// A named constant with its numeric value.
    pub fn constant(&mut self, name: &str, default: f64, line: u32) -> String {
        let key = format!("const:{}={default}", name.to_ascii_uppercase());
        self.register(
            key,
            name.to_ascii_uppercase(),
            ParamOrigin::Constant { default },
            name,
            line,
        )
    }

    pub fn comm_size(&mut self, var: &str, line: u32) -> String {
        self.register(
            "comm_size".into(),
            P.into(),
            ParamOrigin::CommSize,
            var,
            line,
        )
    }

    pub fn comm_rank(&mut self, var: &str, line: u32) -> String {
        self.register(
            "comm_rank".into(),
            RANK.into(),
            ParamOrigin::CommRank,
            var,
            line,
        )
    }

    /// Keeps only the parameters for which `keep` holds (order preserved).
    pub fn retain(&mut self, keep: impl Fn(&ProgParam) -> bool) {
        self.list.retain(|p| keep(p));
        self.by_key.clear();
    }
}

/// The symbol a parameter read into `var` is named by: the variable upper-cased, or for an
/// access path its last member (`g.nx`, `p->nx` → `NX`) with literal subscripts appended
/// (`ibuf[1]` → `IBUF_1`).
fn symbol_name(var: &str) -> String {
    let last = frontend::path_member(var).map_or(var, |(m, _)| m);
    let mut out = String::new();
    for c in last.chars() {
        match c {
            c if c.is_ascii_alphanumeric() || c == '_' => out.push(c.to_ascii_uppercase()),
            '[' | '(' | ',' if !out.ends_with('_') => out.push('_'),
            '-' => out.push('M'),
            _ => {}
        }
    }
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        "IN".into()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argv_names_upper_case_or_given() {
        let mut p = Params::new(vec!["N".into(), "K".into()]);
        assert_eq!(
            p.input(&InputOrigin::Argv(Some(2)), "kb", 3).as_deref(),
            Some("K")
        );
        assert_eq!(
            p.input(&InputOrigin::Argv(Some(2)), "kb", 9).as_deref(),
            Some("K")
        );
        let mut q = Params::new(Vec::new());
        assert_eq!(
            q.input(&InputOrigin::Argv(Some(2)), "kb", 3).as_deref(),
            Some("KB")
        );
        assert_eq!(q.input(&InputOrigin::File, "x", 3), None);
    }

    #[test]
    fn paths_name_their_last_member() {
        assert_eq!(symbol_name("g.nx"), "NX");
        assert_eq!(symbol_name("p->a.ny"), "NY");
        assert_eq!(symbol_name("ibuf[1]"), "IBUF_1");
        assert_eq!(symbol_name("g.a[2][3]"), "A_2_3");
        assert_eq!(symbol_name("n"), "N");
    }

    #[test]
    fn clashing_names_get_suffixes() {
        let mut p = Params::new(Vec::new());
        assert_eq!(p.constant("n", 10.0, 1), "N");
        assert_eq!(
            p.input(&InputOrigin::Argv(Some(1)), "n", 2).as_deref(),
            Some("N_2")
        );
        assert_eq!(p.constant("n", 10.0, 5), "N");
        assert_eq!(p.comm_size("p", 3), "P");
        assert_eq!(p.input(&InputOrigin::Stdin, "p", 4).as_deref(), Some("P_2"));
    }
}
