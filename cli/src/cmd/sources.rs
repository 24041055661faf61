//! A program given as several source files (`augur apt|profile|analyze MAIN OTHER…`): their
//! canonical order and loading them as one program, so calls resolve across files and site ids
//! are numbered once over all of them.
//!
//! Site ids follow the order the front end lowers the files in, so that order must not depend on
//! how the user happened to list them: the first file (the one holding the main program, which
//! names the program and its run directory) stays first, the others are sorted by path.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The files in canonical order: the first as given, then the others sorted by path, each once.
pub fn canonical(files: &[PathBuf]) -> Vec<PathBuf> {
    let Some((main, rest)) = files.split_first() else {
        return Vec::new();
    };
    let mut rest: Vec<PathBuf> = rest.iter().filter(|p| *p != main).cloned().collect();
    rest.sort();
    rest.dedup();
    let mut out = vec![main.clone()];
    out.extend(rest);
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
}
