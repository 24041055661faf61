//! Building the instrumented program in `<out>/build/`: write the instrumented sources and the
//! embedded runtime, compile the runtime with the MPI C wrapper and link it into the program with
//! the wrapper of the program's language (Open MPI or SMPI family). A stamp of the sources and
//! command lines lets a resumed `augur profile` skip an identical rebuild.

use super::launch::Launcher;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Source language of the program, which picks the compiler wrapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    C,
    FortranFixed,
    FortranFree,
}

impl Lang {
    pub fn is_fortran(self) -> bool {
        self != Lang::C
    }
}

/// What to build: instrumented texts by path relative to the build directory (the main file
/// first), plus the directories the original includes resolve from.
#[derive(Debug, Clone)]
pub struct BuildInput {
    pub lang: Lang,
    pub main: PathBuf,
    pub files: Vec<(PathBuf, String)>,
    /// The main source's own directory, then `-I` directories (original, unedited headers).
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]` passed on to the C compiler.
    pub defines: Vec<String>,
    /// Executable name inside the build directory.
    pub exe_name: String,
}

/// The compiler wrappers for a launcher and language: (C wrapper, wrapper for the program).
pub fn wrappers(launcher: Launcher, lang: Lang) -> (&'static str, &'static str) {
    match (launcher, lang) {
        (Launcher::Mpirun, Lang::C) => ("mpicc", "mpicc"),
        (Launcher::Mpirun, _) => ("mpicc", "mpif90"),
        (Launcher::Smpirun, Lang::C) => ("smpicc", "smpicc"),
        (Launcher::Smpirun, Lang::FortranFixed) => ("smpicc", "smpiff"),
        (Launcher::Smpirun, Lang::FortranFree) => ("smpicc", "smpif90"),
    }
}

/// The compile commands, in order: one per runtime translation unit, then the program's link.
pub fn commands(input: &BuildInput, launcher: Launcher, build: &Path) -> Vec<Vec<String>> {
    let (cc, fc) = wrappers(launcher, input.lang);
    let p = |p: &Path| p.display().to_string();
    let mut cmds = Vec::new();
    let mut objs = Vec::new();
    for f in augur_runtime::sources(input.lang.is_fortran()) {
        let obj = build.join(f.name.replace(".c", ".o"));
        cmds.push(vec![
            cc.into(),
            "-O2".into(),
            "-c".into(),
            p(&build.join(f.name)),
            "-o".into(),
            p(&obj),
        ]);
        objs.push(p(&obj));
    }
    let mut link = vec![fc.to_string(), "-O2".into()];
    if input.lang.is_fortran() {
        if input.lang == Lang::FortranFixed && launcher == Launcher::Mpirun {
            link.push("-ffixed-form".into());
        }
        link.extend(augur_runtime::FORTRAN_FLAGS.iter().map(|s| s.to_string()));
    } else {
        link.extend(input.defines.iter().map(|d| format!("-D{d}")));
    }
    // The build directory first: edited includes shadow the originals.
    link.push(format!("-I{}", build.display()));
    link.extend(
        input
            .include_dirs
            .iter()
            .map(|d| format!("-I{}", d.display())),
    );
    link.extend([
        "-o".into(),
        p(&build.join(&input.exe_name)),
        p(&build.join(&input.main)),
    ]);
    link.extend(objs);
    if !input.lang.is_fortran() {
        link.push("-lm".into());
    }
    cmds.push(link);
    cmds
}

/// Writes the sources and runtime into `build` and compiles them (skipped when the stamp says
/// the same sources were already built with the same commands). Returns the executable path.
pub fn build(input: &BuildInput, launcher: Launcher, build: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(build).with_context(|| format!("cannot create {}", build.display()))?;
    let exe = build.join(&input.exe_name);
    let cmds = commands(input, launcher, build);
    let stamp = stamp(input, &cmds);
    let stamp_path = build.join(".augur-build-stamp");
    if exe.is_file() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        return Ok(exe);
    }
    let _ = std::fs::remove_file(&stamp_path);
    augur_runtime::write_to(build)
        .with_context(|| format!("cannot write the runtime into {}", build.display()))?;
    for (rel, text) in &input.files {
        let dest = build.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        trace::write_atomic(&dest, text.as_bytes())?;
    }
    let log_path = build.join("build.log");
    let mut log = std::fs::File::create(&log_path)
        .with_context(|| format!("cannot write {}", log_path.display()))?;
    for cmd in &cmds {
        writeln!(log, "$ {}", cmd.join(" "))?;
        let (prog, args) = cmd.split_first().context("empty compile command")?;
        let out = Command::new(prog)
            .args(args)
            .current_dir(build)
            .stdin(Stdio::null())
            .output();
        let out = match out {
            Ok(o) => o,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
                "`{prog}` not found: install {} (see ../shared/REFERENCE.md)",
                match launcher {
                    Launcher::Mpirun => "Open MPI and gfortran (apt-get install openmpi-bin libopenmpi-dev gfortran)",
                    Launcher::Smpirun => "SimGrid (apt-get install libsimgrid-dev)",
                }
            ),
            Err(e) => return Err(e).with_context(|| format!("cannot run `{prog}`")),
        };
        log.write_all(&out.stdout)?;
        log.write_all(&out.stderr)?;
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let first = stderr
                .lines()
                .find(|l| l.contains("error"))
                .or_else(|| stderr.lines().next())
                .unwrap_or("");
            bail!(
                "compiling the instrumented program failed ({prog}, {}): {}; full log in {}",
                out.status,
                first.trim(),
                log_path.display()
            );
        }
    }
    trace::write_atomic(&stamp_path, stamp.as_bytes())?;
    Ok(exe)
}

fn stamp(input: &BuildInput, cmds: &[Vec<String>]) -> String {
    let mut bytes = Vec::new();
    for c in cmds {
        bytes.extend(c.join("\u{1f}").as_bytes());
        bytes.push(b'\n');
    }
    for (rel, text) in &input.files {
        bytes.extend(rel.display().to_string().as_bytes());
        bytes.push(0);
        bytes.extend(text.as_bytes());
        bytes.push(0);
    }
    for f in augur_runtime::FILES {
        bytes.extend(f.text.as_bytes());
    }
    trace::source_hash(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(lang: Lang) -> BuildInput {
        BuildInput {
            lang,
            main: "p.f".into(),
            files: vec![("p.f".into(), "x".into())],
            include_dirs: vec!["/src".into()],
            defines: vec!["X=1".into()],
            exe_name: "p".into(),
        }
    }

    #[test]
    fn fixed_form_commands() {
        let cmds = commands(
            &input(Lang::FortranFixed),
            Launcher::Mpirun,
            Path::new("/b"),
        );
        assert_eq!(cmds.len(), 3, "two runtime units and the link");
        assert_eq!(cmds[0][..3], ["mpicc", "-O2", "-c"]);
        let link = cmds[2].join(" ");
        assert_eq!(
            link,
            "mpif90 -O2 -ffixed-form -fallow-argument-mismatch -I/b -I/src -o /b/p /b/p.f /b/augur_trace.o /b/augur_fortran.o"
        );
        let smpi = commands(
            &input(Lang::FortranFixed),
            Launcher::Smpirun,
            Path::new("/b"),
        );
        assert_eq!(smpi[2][0], "smpiff");
        assert!(!smpi[2].contains(&"-ffixed-form".to_string()));
    }

    #[test]
    fn c_commands_pass_defines() {
        let cmds = commands(&input(Lang::C), Launcher::Smpirun, Path::new("/b"));
        assert_eq!(cmds.len(), 2);
        assert_eq!(
            cmds[1].join(" "),
            "smpicc -O2 -DX=1 -I/b -I/src -o /b/p /b/p.f /b/augur_trace.o -lm"
        );
        let mut edited = input(Lang::C);
        edited.files[0].1.push('y');
        assert_ne!(
            stamp(&input(Lang::C), &cmds),
            stamp(&edited, &cmds),
            "a changed source rebuilds"
        );
        assert_ne!(
            stamp(&input(Lang::C), &cmds),
            stamp(&input(Lang::C), &cmds[1..]),
            "changed commands rebuild"
        );
    }
}
