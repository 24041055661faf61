//! A program given as several source files (`augur apt|profile|analyze MAIN OTHER…`): their
//! canonical order and loading them as one program, so calls resolve across files and site ids
//! are numbered once over all of them.
//!
//! Site ids follow the order the front end lowers the files in, so that order must not depend on
//! how the user happened to list them: the first file (the one holding the main program, which
//! names the program and its run directory) stays first, the others are sorted by file name
//! (not path: `x/cg.c y/ops.c` must number sites as `cg.c ops.c` did; `read_all` refuses two
//! files of one name). `analyze` goes further and takes the order the runs' manifest recorded.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The files in canonical order: the first as given, then the others sorted by file name, each
/// once.
pub fn canonical(files: &[PathBuf]) -> Vec<PathBuf> {
    let Some((main, rest)) = files.split_first() else {
        return Vec::new();
    };
    let mut rest: Vec<PathBuf> = rest.iter().filter(|p| *p != main).cloned().collect();
    rest.sort_by(|a, b| a.file_name().cmp(&b.file_name()).then_with(|| a.cmp(b)));
    rest.dedup();
    let mut out = vec![main.clone()];
    out.extend(rest);
    out
}

/// `files` (canonical) in the order of `recorded` (the manifest's sources, as paths given to
/// `profile`) when they are the same files by name with the same one first: site ids then
/// follow the numbering the traces carry, whatever order an older augur chose. Otherwise
/// `files` unchanged (the mismatch is reported when the sources are checked).
pub fn in_recorded_order(files: Vec<PathBuf>, recorded: &[String]) -> Vec<PathBuf> {
    let name = |p: &Path| p.file_name().map(|n| n.to_os_string());
    let recorded: Vec<_> = recorded.iter().map(|r| name(Path::new(r))).collect();
    let same_main = files.first().map(|f| name(f)) == recorded.first().cloned();
    if !same_main || files.len() != recorded.len() {
        return files;
    }
    let mut out = Vec::with_capacity(files.len());
    for r in &recorded {
        match files.iter().find(|f| name(f) == *r) {
            Some(f) if !out.contains(f) => out.push(f.clone()),
            _ => return files,
        }
    }
    out
}

/// Reads every file (path as given, bytes), refusing two files with the same name: they would
/// overwrite each other in the build directory and cannot be told apart in the manifest.
pub fn read_all(files: &[PathBuf]) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut out: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for f in files {
        if let Some((other, _)) = out.iter().find(|(o, _)| o.file_name() == f.file_name()) {
            bail!(
                "{} and {} have the same file name; rename one (the build compiles them side by side)",
                other.display(),
                f.display()
            );
        }
        let bytes = std::fs::read(f).with_context(|| format!("cannot read {}", f.display()))?;
        out.push((f.clone(), bytes));
    }
    Ok(out)
}

/// Loads the files as one program and builds its APT.
pub fn load(
    files: &[PathBuf],
    fopts: &frontend::Options,
    opts: &apt::AptOptions,
) -> Result<(frontend::Lowered, apt::Apt)> {
    let lowered = frontend::load_files(files, fopts)
        .with_context(|| format!("cannot load {}", names(files)))?;
    let tree = apt::build(&lowered, opts);
    Ok((lowered, tree))
}

/// `a.c`, or `a.c, b.c` for several files, as given.
pub fn names(files: &[PathBuf]) -> String {
    files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The directory of `path` (`.` for a bare file name).
pub fn dir_of(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_file_stays_first_and_the_rest_are_sorted() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert_eq!(
            canonical(&p(&["cg.c", "vec.c", "ops.c", "ops.c", "cg.c"])),
            p(&["cg.c", "ops.c", "vec.c"])
        );
        assert_eq!(
            canonical(&p(&["cg.c", "ops.c", "vec.c"])),
            canonical(&p(&["cg.c", "vec.c", "ops.c"])),
            "site ids must not depend on the order the other files are listed in"
        );
        assert!(canonical(&[]).is_empty());
    }

    #[test]
    fn the_rest_are_sorted_by_file_name_not_path() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        // `profile cg.c vec.c ops.c` then `analyze x/cg.c x/vec.c y/ops.c`: same numbering
        assert_eq!(
            canonical(&p(&["x/cg.c", "x/vec.c", "y/ops.c"])),
            p(&["x/cg.c", "y/ops.c", "x/vec.c"])
        );
    }

    #[test]
    fn analyze_takes_the_recorded_order() {
        let p = |v: &[&str]| v.iter().map(PathBuf::from).collect::<Vec<_>>();
        let rec = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // recorded by an augur that sorted by path
        let given = canonical(&p(&["src/cg.c", "src/vec.c", "lib/ops.c"]));
        assert_eq!(
            in_recorded_order(given.clone(), &rec(&["cg.c", "a/vec.c", "b/ops.c"])),
            p(&["src/cg.c", "src/vec.c", "lib/ops.c"])
        );
        // other files, or another main: left for check_source to report
        assert_eq!(
            in_recorded_order(given.clone(), &rec(&["cg.c", "vec.c"])),
            given
        );
        assert_eq!(
            in_recorded_order(given.clone(), &rec(&["vec.c", "cg.c", "ops.c"])),
            given
        );
        assert_eq!(
            in_recorded_order(given.clone(), &rec(&["cg.c", "vec.c", "dot.c"])),
            given
        );
    }
}
