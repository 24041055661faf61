//! Persistent requests: the message each `*_init` sets up, and what a `Start`/`Startall`
//! of them sends.

use frontend::{MpiOp, Role};
use symbolic::Expr;

use crate::comm::{comm_facts, CommFacts};
use crate::Attr;

use super::scope::Cx;
use super::{Analysis, Env};

impl Analysis<'_> {
    /// `MPI_Send_init`/`Recv_init`/…: the message each start of the request will make, by
    /// the request's path in this procedure; a request set up by two inits is unknown.
    pub(super) fn request_init(&mut self, m: &frontend::MpiCall, env: &Env) {
        let Some(path) = m.arg(Role::Request).and_then(|a| a.expr.path()) else {
            return;
        };
        let mut as_p2p = m.clone();
        as_p2p.op = if m.op == MpiOp::RecvInit {
            MpiOp::Irecv
        } else {
            MpiOp::Isend
        };
        let facts = {
            let mut cx = Cx {
                an: self,
                env,
                target: None,
            };
            comm_facts(&as_p2p, &mut cx)
        };
        let key = (self.cur, path);
        let f = match (self.requests.get(&key), facts) {
            (None, Some(f)) => Some(f),
            (Some(Some(old)), Some(f)) if *old == f => Some(f),
            _ => None,
        };
        self.requests.insert(key, f);
    }

    /// A Start or Startall of persistent requests set up in this procedure: the messages
    /// they start (the runtime traces each as the Isend/Irecv it makes) give the node's size,
    /// peer and tag when every started message agrees on them.
    pub(super) fn started(&self, m: &frontend::MpiCall, f: &mut CommFacts) {
        let paths: Vec<String> = match m.op {
            MpiOp::Start => m
                .arg(Role::Request)
                .and_then(|a| a.expr.path())
                .into_iter()
                .collect(),
            _ => {
                let n = f
                    .count
                    .as_ref()
                    .and_then(Attr::expr)
                    .and_then(Expr::as_const);
                let root = m.arg(Role::Requests).and_then(|a| a.expr.base_var());
                let (Some(n), Some(root)) = (n, root) else {
                    return;
                };
                let lower = i64::from(self.prog.language == frontend::Language::Fortran);
                if n.fract() != 0.0 || !(1.0..=64.0).contains(&n) {
                    return;
                }
                (0..n as i64)
                    .map(|k| format!("{root}[{}]", k + lower))
                    .collect()
            }
        };
        let inits: Option<Vec<&CommFacts>> = paths
            .iter()
            .map(|p| {
                self.requests
                    .get(&(self.cur, p.clone()))
                    .and_then(Option::as_ref)
            })
            .collect();
        let Some(inits) = inits.filter(|v| !v.is_empty()) else {
            return;
        };
        let sends: Vec<&CommFacts> = inits
            .iter()
            .copied()
            .filter(|i| i.op != MpiOp::Irecv)
            .collect();
        let recvs: Vec<&CommFacts> = inits
            .iter()
            .copied()
            .filter(|i| i.op == MpiOp::Irecv)
            .collect();
        let one = |list: &[&CommFacts], pick: &dyn Fn(&CommFacts) -> Option<Attr>, what: &str| {
            let vals: Vec<Attr> = list.iter().filter_map(|i| pick(i)).collect();
            let first = vals.first()?.clone();
            Some(if vals.iter().all(|v| *v == first) {
                first
            } else {
                Attr::Unresolved(format!("the started requests differ in {what}"))
            })
        };
        f.bytes = one(&inits, &|i| i.bytes.clone(), "size");
        f.peer = one(&sends, &|i| i.peer.clone(), "peer");
        f.tag = one(&sends, &|i| i.tag.clone(), "tag");
        f.source = one(&recvs, &|i| i.peer.clone(), "source");
        f.recv_tag = one(&recvs, &|i| i.tag.clone(), "tag");
    }
}
