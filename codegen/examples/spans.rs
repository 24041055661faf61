//! Developer aid: prints every IR statement's span texts (whole, header, end, arm conditions).
#![allow(clippy::print_stdout, clippy::print_stderr)]
use frontend::{Options, StmtKind};

fn main() {
    for path in std::env::args().skip(1) {
        let Ok(l) = frontend::load(std::path::Path::new(&path), &Options::default()) else {
            continue;
        };
        let (p, s) = (&l.program, &l.sources);
        for st in &p.stmts {
            let t = |sp| format!("{:?}", s.text(sp));
            println!(
                "[{}] {} label={:?} parent={:?} span={:?} {}",
                st.id.0,
                st.kind.name(),
                st.label,
                st.parent.map(|x| x.0),
                st.span,
                t(st.span)
            );
            match &st.kind {
                StmtKind::Loop(lp) => {
                    println!("    header={} end={}", t(lp.header_span), t(lp.end_span))
                }
                StmtKind::While(w) => {
                    println!("    header={} end={}", t(w.header_span), t(w.end_span))
                }
                StmtKind::If(i) => {
                    for a in &i.arms {
                        println!("    cond={}", t(a.cond.span));
                    }
                    println!(
                        "    else={:?} end={}",
                        i.else_body.as_ref().map(|b| b.len()),
                        t(i.end_span)
                    );
                }
                _ => {}
            }
        }
        for pr in &p.procs {
            println!(
                "proc {} span={:?} body={:?}",
                pr.name,
                pr.span,
                pr.body.iter().map(|x| x.0).collect::<Vec<_>>()
            );
        }
    }
}
