//! The augur C runtime (tracer) as embedded text: the cli writes these files next to the
//! instrumented program and compiles them with the program's own MPI wrapper.
//!
//! Build recipe (see `runtime/c/augur.h` and `docs/trace-format.md`):
//! - C programs: `mpicc -c augur_trace.c` (or `smpicc -c`), link `augur_trace.o`.
//! - Fortran programs: also `mpicc -c augur_fortran.c` (same C wrapper family as the Fortran
//!   one: `mpicc` with `mpif90`, `smpicc` with `smpiff`/`smpif90`), link both objects.
//! - Set `AUGUR_TRACE_DIR` for the run; each rank writes `rank-<r>.augt` there.

/// One embedded file: name relative to the output directory, and its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeFile {
    pub name: &'static str,
    pub text: &'static str,
    /// A translation unit to compile (`.c`), as opposed to a header.
    pub compile: bool,
    /// Needed only by Fortran programs (references the MPI library's Fortran bindings).
    pub fortran_only: bool,
}

/// The public header instrumented C code includes.
pub const HEADER: &str = "augur.h";

/// Every runtime file, headers first.
pub const FILES: &[RuntimeFile] = &[
    RuntimeFile {
        name: "augur.h",
        text: include_str!("../c/augur.h"),
        compile: false,
        fortran_only: false,
    },
    RuntimeFile {
        name: "augur_internal.h",
        text: include_str!("../c/augur_internal.h"),
        compile: false,
        fortran_only: false,
    },
    RuntimeFile {
        name: "augur_trace.c",
        text: include_str!("../c/augur_trace.c"),
        compile: true,
        fortran_only: false,
    },
    RuntimeFile {
        name: "augur_fortran.c",
        text: include_str!("../c/augur_fortran.c"),
        compile: true,
        fortran_only: true,
    },
    // A standalone MPI program (`augur characterize`), never linked into user programs.
    RuntimeFile {
        name: "augur_bench.c",
        text: include_str!("../c/augur_bench.c"),
        compile: false,
        fortran_only: false,
    },
];

/// Flags the Fortran compiler needs for instrumented code. The `augur_mpi_*` wrappers are
/// external procedures without an interface, so gfortran >= 10 rejects one wrapper called with
/// buffers of different types or ranks in the same file ("Type mismatch between actual
/// argument"); `use mpi` hides this for the original calls through ignore-TKR interfaces.
/// The flag turns the error into a warning (gfortran 10+, also under smpiff/smpif90).
pub const FORTRAN_FLAGS: &[&str] = &["-fallow-argument-mismatch"];

/// The trace format version the runtime writes (header bytes 8..10); `trace` checks it.
pub const FORMAT_VERSION: u16 = 1;

/// The translation units a program in the given language needs, in link order.
pub fn sources(fortran: bool) -> impl Iterator<Item = &'static RuntimeFile> {
    FILES
        .iter()
        .filter(move |f| f.compile && (fortran || !f.fortran_only))
}

/// Writes every runtime file into `dir` (which must exist), each written whole or not at all.
pub fn write_to(dir: &std::path::Path) -> std::io::Result<()> {
    for f in FILES {
        let dest = dir.join(f.name);
        let tmp = dir.join(format!(".{}.tmp", f.name));
        std::fs::write(&tmp, f.text)?;
        std::fs::rename(&tmp, &dest)?;
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn version_matches_c_source() {
        let c = FILES
            .iter()
            .find(|f| f.name == "augur_trace.c")
            .map(|f| f.text)
            .unwrap_or("");
        assert!(c.contains(&format!("#define AUGUR_VERSION {FORMAT_VERSION}\n")));
    }

    #[test]
    fn c_programs_do_not_link_fortran_wrappers() {
        let c: Vec<_> = sources(false).map(|f| f.name).collect();
        let f: Vec<_> = sources(true).map(|f| f.name).collect();
        assert_eq!(c, ["augur_trace.c"]);
        assert_eq!(f, ["augur_trace.c", "augur_fortran.c"]);
    }

    #[test]
    fn write_to_creates_every_file() {
        let dir = std::env::temp_dir().join(format!("augur-rt-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_default();
        write_to(&dir).unwrap_or_else(|e| panic!("write_to: {e}"));
        for f in FILES {
            let got = std::fs::read_to_string(dir.join(f.name)).unwrap_or_default();
            assert_eq!(got, f.text, "{}", f.name);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
