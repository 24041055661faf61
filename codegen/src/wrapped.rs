//! Which MPI functions the runtime wraps, read from the embedded runtime sources themselves
//! (`augur.h` for C, `augur_fortran.c` for Fortran) so codegen and runtime cannot drift apart.
use std::collections::BTreeSet;

/// Lower-case MPI names without the `mpi_` prefix (`send`, `comm_rank`) the runtime wraps.
#[derive(Debug, Clone)]
pub struct Wrapped {
    c: BTreeSet<String>,
    fortran: BTreeSet<String>,
}

/// Names `x` for every occurrence of `prefix` + `x` + `(` in `text` (`x` = word characters).
fn scan(text: &str, prefix: &str, suffix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let after = &rest[i + prefix.len()..];
        let n = after
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
            .count();
        let name = &after[..n];
        if after[n..].starts_with('(') {
            if let Some(base) = name.strip_suffix(suffix) {
                if !base.is_empty() {
                    out.insert(base.to_ascii_lowercase());
                }
            }
        }
        rest = &after[n..];
    }
    out
}

impl Wrapped {
    /// From the runtime embedded in this build.
    pub fn from_runtime() -> Wrapped {
        let text = |name: &str| {
            augur_runtime::FILES
                .iter()
                .find(|f| f.name == name)
                .map_or("", |f| f.text)
        };
        Wrapped::from_texts(text("augur.h"), text("augur_fortran.c"))
    }

    /// From the texts of `augur.h` and `augur_fortran.c`.
    pub fn from_texts(header: &str, fortran: &str) -> Wrapped {
        // Fortran entry points are defined as `void augur_mpi_send_(`
        let fortran = scan(fortran, "void augur_mpi_", "_");
        Wrapped {
            c: scan(header, "augur_MPI_", ""),
            fortran,
        }
    }

    /// Whether the C function `name` (`MPI_Send`) has a wrapper `augur_MPI_Send`.
    pub fn c(&self, name: &str) -> bool {
        // C is case-sensitive: the wrapper exists only for the standard spelling
        name.strip_prefix("MPI_")
            .is_some_and(|b| self.c.contains(&b.to_ascii_lowercase()) && standard_c_spelling(b))
    }

    /// Whether the Fortran subroutine `name` (any case) has a wrapper `augur_mpi_xxx`.
    pub fn fortran(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        lower
            .strip_prefix("mpi_")
            .is_some_and(|b| self.fortran.contains(b))
    }
}

/// `Comm_rank`: first letter upper case, the rest lower case (MPI's C spelling).
fn standard_c_spelling(base: &str) -> bool {
    let mut chars = base.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase()) && chars.all(|c| !c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_embedded_runtime() {
        let w = Wrapped::from_runtime();
        for n in [
            "MPI_Send",
            "MPI_Irecv",
            "MPI_Waitall",
            "MPI_Comm_rank",
            "MPI_Init",
            "MPI_Finalize",
            "MPI_Send_init",
            "MPI_Ssend_init",
            "MPI_Recv_init",
            "MPI_Start",
            "MPI_Startall",
            "MPI_Request_free",
            "MPI_Probe",
            "MPI_Iprobe",
        ] {
            assert!(w.c(n), "{n}");
        }
        for n in [
            "mpi_send",
            "MPI_SEND",
            "MPI_Allreduce",
            "mpi_init",
            "MPI_FINALIZE",
            "mpi_send_init",
            "MPI_RECV_INIT",
            "mpi_startall",
            "mpi_start",
            "mpi_request_free",
            "mpi_iprobe",
        ] {
            assert!(w.fortran(n), "{n}");
        }
        assert!(!w.c("MPI_Wtime"));
        assert!(!w.c("MPI_SEND"), "C names are case-sensitive");
        assert!(!w.fortran("mpi_wtime"));
    }

    #[test]
    fn scans_declarations_only() {
        let w = Wrapped::from_texts(
            "int augur_MPI_Send(int site);\n/* augur_MPI_Foo is not a call */",
            "void augur_mpi_send_(F *site) {}\nvoid augur_loop_enter_(F *s) {}",
        );
        assert!(w.c("MPI_Send"));
        assert!(!w.c("MPI_Foo"));
        assert!(w.fortran("MPI_SEND"));
        assert!(!w.fortran("mpi_loop_enter"));
    }
}
