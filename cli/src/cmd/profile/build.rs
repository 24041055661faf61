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
    /// The main source's language, which picks the wrapper that links.
    pub lang: Lang,
    pub main: PathBuf,
    /// The program's other sources (compilation units), by path relative to the build directory.
    pub others: Vec<(PathBuf, Lang)>,
    pub files: Vec<(PathBuf, String)>,
    /// The main source's own directory, then `-I` directories (original, unedited headers).
    pub include_dirs: Vec<PathBuf>,
    /// `-D NAME[=VALUE]` passed on to the C compiler.
    pub defines: Vec<String>,
    /// `--cflags`: passed to every compile of the program's sources and to the link (the
    /// runtime's units are compiled without them).
    pub cflags: Vec<String>,
    /// Executable name inside the build directory.
    pub exe_name: String,
    /// Linked with augur's runtime (the instrumented program); false for the program as
    /// written, built to time it without markers ([`super::probe`]).
    pub runtime: bool,
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

/// The compile commands, in order: one per runtime translation unit, then the program's: one
/// compile-and-link of the main source, or for a program of several sources one compile per
/// source (each with its own form) and a link of their objects.
pub fn commands(input: &BuildInput, launcher: Launcher, build: &Path) -> Vec<Vec<String>> {
    let (cc, fc) = wrappers(launcher, input.lang);
    let p = |p: &Path| p.display().to_string();
    let mut cmds = Vec::new();
    let mut objs = Vec::new();
    let runtime = augur_runtime::sources(input.lang.is_fortran()).filter(|_| input.runtime);
    for f in runtime {
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
    let flags = |lang: Lang, unit: &Path| {
        let mut v = Vec::new();
        if lang.is_fortran() {
            if launcher == Launcher::Mpirun && lang == Lang::FortranFixed {
                v.push("-ffixed-form".to_string());
            }
            if lang == Lang::FortranFree
                && frontend::form_for_path(unit) == Some(frontend::Form::Fixed)
            {
                // free form in a `.f` file, which the compiler would read as fixed
                v.push("-ffree-form".to_string());
            }
            v.extend(augur_runtime::FORTRAN_FLAGS.iter().map(|s| s.to_string()));
        } else {
            v.extend(input.defines.iter().map(|d| format!("-D{d}")));
        }
        v.extend(input.cflags.iter().cloned());
        // The build directory first: edited includes shadow the originals.
        v.push(format!("-I{}", build.display()));
        v.extend(
            input
                .include_dirs
                .iter()
                .map(|d| format!("-I{}", d.display())),
        );
        v
    };
    let mut link = vec![fc.to_string(), "-O2".into()];
    if input.others.is_empty() {
        link.extend(flags(input.lang, &input.main));
        link.extend([
            "-o".into(),
            p(&build.join(&input.exe_name)),
            p(&build.join(&input.main)),
        ]);
    } else {
        let mut units: Vec<(&PathBuf, Lang)> = vec![(&input.main, input.lang)];
        units.extend(input.others.iter().map(|(u, l)| (u, *l)));
        // named after the whole file name: x.f and x.f90 are two objects, and none can be a
        // runtime object (`augur_trace.o`)
        let obj_of = |u: &Path| {
            let mut name = u.as_os_str().to_owned();
            name.push(".o");
            p(&build.join(name))
        };
        // linked in the order given, the main program first
        let link_objs: Vec<String> = units.iter().map(|(u, _)| obj_of(u)).collect();
        let text_of = |u: &Path| {
            input
                .files
                .iter()
                .find(|(r, _)| r == u)
                .map_or("", |(_, text)| text.as_str())
        };
        let order = compile_order(
            &units
                .iter()
                .map(|(u, l)| (l.is_fortran(), text_of(u)))
                .collect::<Vec<_>>(),
        );
        let units: Vec<(&PathBuf, Lang)> = order.into_iter().map(|i| units[i]).collect();
        for (unit, lang) in units {
            let mut c = vec![wrappers(launcher, lang).1.to_string(), "-O2".into()];
            c.extend(flags(lang, unit));
            c.extend(["-c".into(), p(&build.join(unit)), "-o".into(), obj_of(unit)]);
            cmds.push(c);
        }
        if input.lang.is_fortran() {
            link.extend(augur_runtime::FORTRAN_FLAGS.iter().map(|s| s.to_string()));
        }
        link.extend(input.cflags.iter().cloned());
        link.extend(["-o".into(), p(&build.join(&input.exe_name))]);
        link.extend(link_objs);
    }
    link.extend(objs);
    if !input.lang.is_fortran() {
        link.push("-lm".into());
    }
    cmds.push(link);
    cmds
}

/// The order to compile units in (indices into `units`: whether each is Fortran, and its text):
/// a Fortran file that `use`s a module another file defines compiles after that file (the
/// compiler needs the `.mod`); otherwise files defining modules first, then the order given.
/// A cycle (which the compiler would reject anyway) is broken at the first file left.
fn compile_order(units: &[(bool, &str)]) -> Vec<usize> {
    let defined: Vec<Vec<String>> = units
        .iter()
        .map(|(f, text)| {
            if *f {
                modules_defined(text)
            } else {
                Vec::new()
            }
        })
        .collect();
    let deps: Vec<Vec<usize>> = units
        .iter()
        .enumerate()
        .map(|(i, (f, text))| {
            let used = if *f { modules_used(text) } else { Vec::new() };
            (0..units.len())
                .filter(|&j| j != i && defined[j].iter().any(|m| used.contains(m)))
                .collect()
        })
        .collect();
    let mut todo: Vec<usize> = (0..units.len()).collect();
    todo.sort_by_key(|&i| defined[i].is_empty());
    let mut out: Vec<usize> = Vec::new();
    while !todo.is_empty() {
        let k = todo
            .iter()
            .position(|&i| deps[i].iter().all(|d| out.contains(d)))
            .unwrap_or(0);
        out.push(todo.remove(k));
    }
    out
}

/// The statement words of Fortran text, lowercased, one line each: comments after `!` dropped.
fn fortran_lines(text: &str) -> impl Iterator<Item = String> + '_ {
    text.lines().map(|l| {
        let l = l.split('!').next().unwrap_or("");
        l.trim().to_ascii_lowercase()
    })
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The modules Fortran text defines (`module NAME`, not `module procedure|function|subroutine`).
fn modules_defined(text: &str) -> Vec<String> {
    fortran_lines(text)
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            if words.next() != Some("module") {
                return None;
            }
            let name = ident(words.next()?);
            let not = ["procedure", "function", "subroutine", ""];
            (!not.contains(&name.as_str()) && words.next().is_none()).then_some(name)
        })
        .collect()
}

/// The non-intrinsic modules Fortran text `use`s (`use m`, `use :: m`, `use m, only: x`).
fn modules_used(text: &str) -> Vec<String> {
    fortran_lines(text)
        .filter_map(|l| {
            let rest = l.strip_prefix("use")?;
            if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
                return None; // `user = 1`
            }
            let rest = rest.trim_start();
            let rest = match rest.strip_prefix(',') {
                Some(nature) => {
                    let (nature, name) = nature.split_once("::")?;
                    if nature.trim() == "intrinsic" {
                        return None;
                    }
                    name
                }
                None => rest.strip_prefix("::").unwrap_or(rest),
            };
            let name = ident(rest.trim_start());
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

/// Writes the sources and runtime into `build` and compiles them (skipped when the stamp says
/// the same sources were already built with the same commands). Returns the executable path.
pub fn build(input: &BuildInput, launcher: Launcher, build: &Path) -> Result<PathBuf> {
    if let Some((rel, _)) = input
        .files
        .iter()
        .filter(|_| input.runtime)
        .find(|(rel, _)| {
            augur_runtime::FILES
                .iter()
                .any(|f| rel.as_os_str() == f.name)
        })
    {
        bail!(
            "{}: augur's runtime has a file of that name in the build directory; rename the source",
            rel.display()
        );
    }
    std::fs::create_dir_all(build).with_context(|| format!("cannot create {}", build.display()))?;
    let exe = build.join(&input.exe_name);
    let cmds = commands(input, launcher, build);
    let stamp = stamp(input, &cmds);
    let stamp_path = build.join(".augur-build-stamp");
    if exe.is_file() && std::fs::read_to_string(&stamp_path).is_ok_and(|s| s == stamp) {
        return Ok(exe);
    }
    let _ = std::fs::remove_file(&stamp_path);
    if input.runtime {
        augur_runtime::write_to(build)
            .with_context(|| format!("cannot write the runtime into {}", build.display()))?;
    }
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
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            bail!(
                "{}; full log in {}",
                failure(&text, prog, &out.status.to_string(), input),
                log_path.display()
            );
        }
    }
    trace::write_atomic(&stamp_path, stamp.as_bytes())?;
    Ok(exe)
}

/// Why a compile or link failed, from the compiler's output: the symbols a link could not
/// resolve with what to do about them, else the compiler's first error lines.
fn failure(output: &str, prog: &str, status: &str, input: &BuildInput) -> String {
    let undefined = undefined_symbols(output, input.lang.is_fortran());
    let (omp, undefined): (Vec<String>, Vec<String>) =
        undefined.into_iter().partition(|s| is_openmp(s));
    if !omp.is_empty() {
        let list: Vec<String> = omp.iter().map(|s| format!("`{s}`")).collect();
        let others = if undefined.is_empty() {
            String::new()
        } else {
            format!(
                " (also undefined: {}, which no given source defines)",
                undefined
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return format!(
            "linking the instrumented program failed ({prog}, {status}): undefined reference to {}: {} the OpenMP runtime's, linked only when compiling with OpenMP: add --cflags \"-fopenmp\" (and set OMP_NUM_THREADS for the runs){others}",
            list.join(", "),
            if omp.len() == 1 { "it is" } else { "they are" }
        );
    }
    if !undefined.is_empty() {
        let list: Vec<String> = undefined.iter().map(|s| format!("`{s}`")).collect();
        let given = if input.others.is_empty() {
            "the given source does not define them"
        } else {
            "none of the given sources defines them"
        };
        return format!(
            "linking the instrumented program failed ({prog}, {status}): undefined reference to {}: {given}; give the source files that define them too (`augur profile {} OTHER… -- ARGS`: they are instrumented, compiled and linked together)",
            list.join(", "),
            input.main.display()
        );
    }
    const MAX: usize = 4;
    let errors: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| {
            let lower = l.to_ascii_lowercase();
            lower.contains("error") && !lower.starts_with("collect2")
        })
        .take(MAX)
        .collect();
    let lines = if errors.is_empty() {
        output
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(MAX)
            .collect()
    } else {
        errors
    };
    format!(
        "compiling the instrumented program failed ({prog}, {status}): {}",
        lines.join("\n  ")
    )
}

/// Whether a symbol belongs to the OpenMP runtime (`omp_get_max_threads`, GCC's `GOMP_parallel`,
/// Fortran's `omp_get_wtime_` without its underscore).
fn is_openmp(sym: &str) -> bool {
    sym.starts_with("omp_") || sym.starts_with("GOMP_") || sym.starts_with("__kmpc_")
}

/// The symbols of `undefined reference to `x'` lines (GNU ld), each once, in order; Fortran's
/// trailing underscore dropped.
fn undefined_symbols(output: &str, fortran: bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in output.lines() {
        let Some((_, rest)) = line.split_once("undefined reference to ") else {
            continue;
        };
        let sym = rest.trim().trim_start_matches(['`', '\'', '"', '‘']);
        let sym = sym.split(['\'', '`', '"', '’']).next().unwrap_or("").trim();
        let sym = if fortran {
            sym.strip_suffix('_').unwrap_or(sym)
        } else {
            sym
        };
        if !sym.is_empty() && !out.iter().any(|s| s == sym) {
            out.push(sym.to_string());
        }
    }
    out
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
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(lang: Lang) -> BuildInput {
        BuildInput {
            lang,
            main: "p.f".into(),
            others: Vec::new(),
            files: vec![("p.f".into(), "x".into())],
            include_dirs: vec!["/src".into()],
            defines: vec!["X=1".into()],
            cflags: Vec::new(),
            exe_name: "p".into(),
            runtime: true,
        }
    }

    /// The program as written is built without augur's runtime: no runtime unit compiled, no
    /// runtime object linked.
    #[test]
    fn the_uninstrumented_program_links_no_runtime() {
        let plain = BuildInput {
            runtime: false,
            ..input(Lang::C)
        };
        let cmds = commands(&plain, Launcher::Mpirun, Path::new("/b"));
        assert_eq!(cmds.len(), 1, "{cmds:?}");
        assert!(!cmds[0].iter().any(|a| a.contains("augur_")), "{cmds:?}");
        let traced = commands(&input(Lang::C), Launcher::Mpirun, Path::new("/b"));
        assert!(traced
            .last()
            .unwrap()
            .iter()
            .any(|a| a.ends_with("augur_trace.o")));
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
    fn several_sources_compile_apart_with_their_own_form_and_link_together() {
        let mut mixed = input(Lang::FortranFree);
        mixed.main = "main.f90".into();
        mixed.others = vec![
            ("kernel.f".into(), Lang::FortranFixed),
            ("mods.f90".into(), Lang::FortranFree),
        ];
        mixed.files = vec![
            (
                "main.f90".into(),
                "program main\n use m\nend program\n".into(),
            ),
            ("kernel.f".into(), "      subroutine k\n      end\n".into()),
            (
                "mods.f90".into(),
                "module m\ncontains\nend module m\n".into(),
            ),
        ];
        let cmds = commands(&mixed, Launcher::Mpirun, Path::new("/b"));
        let text: Vec<String> = cmds.iter().map(|c| c.join(" ")).collect();
        assert_eq!(text.len(), 6, "{text:#?}");
        assert!(
            text[2].starts_with("mpif90 -O2 -fallow-argument-mismatch")
                && text[2].contains("-c /b/mods.f90 -o /b/mods.f90.o"),
            "the module first: {}",
            text[2]
        );
        assert!(text[3].contains("-c /b/main.f90"), "{}", text[3]);
        assert!(
            text[4].starts_with("mpif90 -O2 -ffixed-form") && text[4].contains("-c /b/kernel.f"),
            "{}",
            text[4]
        );
        assert_eq!(
            text[5],
            "mpif90 -O2 -fallow-argument-mismatch -o /b/p /b/main.f90.o /b/kernel.f.o /b/mods.f90.o /b/augur_trace.o /b/augur_fortran.o"
        );
        let smpi = commands(&mixed, Launcher::Smpirun, Path::new("/b"));
        assert_eq!(smpi[3][0], "smpif90");
        assert_eq!(smpi[4][0], "smpiff");
        assert!(!smpi[4].contains(&"-ffixed-form".to_string()));
        assert_eq!(smpi[5][0], "smpif90");
    }

    #[test]
    fn objects_named_after_the_whole_file_name() {
        // x.f and x.f90 (and a source named like a runtime unit) were all `x.o`
        let mut two = input(Lang::FortranFree);
        two.main = "x.f90".into();
        two.others = vec![("x.f".into(), Lang::FortranFixed)];
        two.files = vec![
            ("x.f90".into(), "program x\nend program\n".into()),
            ("x.f".into(), "      subroutine k\n      end\n".into()),
        ];
        let cmds = commands(&two, Launcher::Mpirun, Path::new("/b"));
        let link = cmds.last().unwrap().join(" ");
        assert!(
            link.ends_with("-o /b/p /b/x.f90.o /b/x.f.o /b/augur_trace.o /b/augur_fortran.o"),
            "{link}"
        );
        let mut rt = input(Lang::C);
        rt.main = "augur_trace.c".into();
        rt.files = vec![("augur_trace.c".into(), "int main(){}".into())];
        let dir = tempfile::tempdir().unwrap();
        let e = build(&rt, Launcher::Mpirun, dir.path()).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("augur_trace.c: augur's runtime has a file of that name"),
            "{e}"
        );
    }

    #[test]
    fn fortran_modules_compile_after_the_modules_they_use() {
        // a uses b (in another file), b uses c: c, b, a whatever the order given
        let units = [
            (true, "program main\n use a\nend program\n"),
            (
                true,
                "module a\n  use, intrinsic :: iso_c_binding\n  use b, only: f\nend module a\n",
            ),
            (
                true,
                "module b\n  USE :: c ! needs c\ncontains\n  module procedure g\nend module b\n",
            ),
            (true, "module c\nend module c\n"),
            (false, "int helper(void) { return 0; }\n"),
        ];
        assert_eq!(compile_order(&units), [3, 2, 1, 0, 4]);
        assert_eq!(modules_used(units[1].1), ["b"]);
        assert_eq!(modules_defined(units[2].1), ["b"]);
        // a cycle does not hang: every unit once
        let cycle = [
            (true, "module a\nuse b\nend module\n"),
            (true, "module b\nuse a\nend module\n"),
        ];
        assert_eq!(compile_order(&cycle), [0, 1]);
    }

    #[test]
    fn undefined_references_are_named() {
        let ld = "/usr/bin/ld: /tmp/cg.o: in function `main':\n\
                  cg.c:(.text+0x1c4): undefined reference to `dot'\n\
                  /usr/bin/ld: cg.c:(.text+0x1f0): undefined reference to `matvec'\n\
                  /usr/bin/ld: cg.c:(.text+0x2f0): undefined reference to `dot'\n\
                  collect2: error: ld returned 1 exit status\n";
        assert_eq!(undefined_symbols(ld, false), vec!["dot", "matvec"]);
        let f = "main3.f90:(.text+0x9): undefined reference to `ring_step_'\n";
        assert_eq!(undefined_symbols(f, true), vec!["ring_step"]);
        let msg = failure(ld, "mpicc", "exit status: 1", &input(Lang::C));
        assert!(
            msg.contains("undefined reference to `dot`, `matvec`: the given source does not define them; give the source files that define them too"),
            "{msg}"
        );
        let cc = "x.c: In function 'main':\nx.c:3:5: error: 'y' undeclared\nx.c:4:5: error: expected ';'\n";
        let msg = failure(cc, "mpicc", "exit status: 1", &input(Lang::C));
        assert!(
            msg.ends_with("x.c:3:5: error: 'y' undeclared\n  x.c:4:5: error: expected ';'"),
            "{msg}"
        );
    }

    /// Trial 8: `omp_get_max_threads` was blamed on a missing source file.
    #[test]
    fn openmp_symbols_ask_for_fopenmp_not_for_sources() {
        let ld = "/usr/bin/ld: hybrid.o: in function `main':\n\
                  hybrid.c:(.text+0x1c4): undefined reference to `omp_get_max_threads'\n\
                  hybrid.c:(.text+0x1f0): undefined reference to `GOMP_parallel'\n\
                  collect2: error: ld returned 1 exit status\n";
        let msg = failure(ld, "mpicc", "exit status: 1", &input(Lang::C));
        assert!(
            msg.contains("undefined reference to `omp_get_max_threads`, `GOMP_parallel`: they are the OpenMP runtime's, linked only when compiling with OpenMP: add --cflags \"-fopenmp\""),
            "{msg}"
        );
        assert!(!msg.contains("give the source files"), "{msg}");
        let f = "x.f90:(.text+0x9): undefined reference to `omp_get_wtime_'\nx.f90:(.text+0x9): undefined reference to `helper_'\n";
        let msg = failure(f, "mpif90", "exit status: 1", &input(Lang::FortranFree));
        assert!(
            msg.contains("`omp_get_wtime`: it is the OpenMP runtime's")
                && msg.contains("(also undefined: `helper`, which no given source defines)"),
            "{msg}"
        );
    }

    #[test]
    fn cflags_reach_every_compile_and_the_link() {
        let mut c = input(Lang::C);
        c.cflags = vec!["-fopenmp".into(), "-O3".into()];
        let cmds = commands(&c, Launcher::Mpirun, Path::new("/b"));
        assert!(
            !cmds[0].contains(&"-fopenmp".to_string()),
            "not the runtime's"
        );
        assert_eq!(
            cmds[1].join(" "),
            "mpicc -O2 -DX=1 -fopenmp -O3 -I/b -I/src -o /b/p /b/p.f /b/augur_trace.o -lm"
        );
        let mut two = input(Lang::FortranFree);
        two.main = "a.f90".into();
        two.others = vec![("b.f90".into(), Lang::FortranFree)];
        two.files = vec![
            ("a.f90".into(), "program a\nend\n".into()),
            ("b.f90".into(), "subroutine b\nend\n".into()),
        ];
        two.cflags = vec!["-fopenmp".into()];
        let cmds = commands(&two, Launcher::Smpirun, Path::new("/b"));
        let text: Vec<String> = cmds.iter().map(|c| c.join(" ")).collect();
        assert!(
            text[2].contains("-fopenmp") && text[3].contains("-fopenmp"),
            "{text:#?}"
        );
        assert!(
            text[4].starts_with("smpif90 -O2 -fallow-argument-mismatch -fopenmp -o /b/p"),
            "{text:#?}"
        );
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
