//! Prints, per rank of one run, where its time went: computation phases, MPI calls, the rest.
#![allow(clippy::print_stdout)]
use trace::Event;
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: budget RUNDIR")?;
    for t in trace::read_run(std::path::Path::new(&dir))? {
        let smpi = t.header.smpi();
        let (mut ph, mut mpi, mut last) = (0.0, 0.0, t.header.init_wtime);
        let mut n_mpi = 0;
        for e in &t.events {
            match e {
                Event::Phase(p) => {
                    ph += if smpi {
                        p.end.wtime - p.start.wtime
                    } else {
                        p.cpu_ns as f64 * 1e-9
                    };
                    last = p.end.wtime;
                }
                Event::Mpi { call, .. } => {
                    if call.op != trace::Op::Init {
                        mpi += call.end.wtime - call.start.wtime;
                        n_mpi += 1;
                    }
                    last = call.end.wtime;
                }
            }
        }
        let el = last - t.header.init_wtime;
        println!(
            "rank {:>3} elapsed {:.3e} phases {:.3e} mpi {:.3e} ({n_mpi} calls) rest {:.3e}",
            t.header.rank,
            el,
            ph,
            mpi,
            el - ph - mpi
        );
    }
    Ok(())
}
