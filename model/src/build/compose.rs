//! The composition of T over the APT (seed 004 §4): `Ctx` holds every fitted quantity and
//! phase cost by site, and `Ctx::node` costs one execution of a node from its children —
//! ROUTINE sums, LOOP multiplies by its trip count, IF weights its arms, CALL takes the
//! callee, phases add at their anchor and pipeline fills rise to the loop that feeds them.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use apt::{Attr, Node, NodeData};
use symbolic::Expr;

use super::bidx;
use super::sheet::{collective_op, sheet_bytes, sheet_op};
use super::tree::Paths;
use crate::machine::{Bound, Machine};
use crate::observe::RunObs;
use crate::quantity::Fitted;

pub(super) struct Ctx<'a> {
    /// Every APT node by site id.
    pub(super) nodes: BTreeMap<u32, &'a Node>,
    pub(super) machine: &'a Machine,
    pub(super) trips: BTreeMap<u32, Fitted>,
    pub(super) probs: BTreeMap<u32, Fitted>,
    pub(super) compute: BTreeMap<u32, Fitted>,
    /// Phase index → (per occurrence [lo,avg,hi], fill, anchor).
    pub(super) phase_cost: BTreeMap<usize, PhaseCost>,
    /// Anchor site → phase indices, program order.
    pub(super) anchored: BTreeMap<u32, Vec<usize>>,
    /// COMM sites accounted by a phase.
    pub(super) excluded: BTreeSet<u32>,
    /// Computation sites that run inside phases, with each phase they run in ([`Inside`]).
    /// Such a site is charged by the phase below its anchor and where the walk does not pass
    /// the anchor at all, but counted where the program reaches it on a path clear of the
    /// anchor (trial 18's farm: `if (P == 1)` runs the workers' tasks serially, and T was 0 at
    /// P = 1).
    pub(super) inside: BTreeMap<u32, Vec<Inside>>,
    /// The anchors the walk is below.
    pub(super) entered: RefCell<Vec<u32>>,
    pub(super) routines: BTreeMap<String, &'a Node>,
    pub(super) p2p_default: [Expr; 3],
    pub(super) overlap_pair: BTreeMap<usize, usize>,
    /// Collective call site → cost per call [lo, avg, hi] at its fitted size.
    pub(super) coll_cost: BTreeMap<u32, [Expr; 3]>,
    /// IF sites whose arms ranks take differently (the condition reads the rank, or ranks'
    /// traced arm frequencies differ): costed as the slower arm, not the frequency-weighted mean.
    pub(super) rank_split: BTreeSet<u32>,
    /// How each (run, rank) at the largest traced P took each rank-split IF (absent: never
    /// evaluated it): consecutive such IFs cost the slowest rank's sum of arms, not each IF's
    /// slower arm added up.
    pub(super) rank_arms: BTreeMap<u32, BTreeMap<(usize, usize), Took>>,
    /// Recursive routines and their executions per call from outside their cycle.
    pub(super) recursion: BTreeMap<String, crate::recursion::Recursive>,
    /// Computations the runs entered a measured share of the times the tree counts
    /// ([`super::reach`]): their cost is charged at that share.
    pub(super) reach: BTreeMap<u32, Fitted>,
}

/// A phase a computation runs inside ([`Ctx::inside`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Inside {
    /// The phase's APT ancestor.
    pub(super) anchor: u32,
    /// Whether the computation lies below the anchor in the tree.
    pub(super) below: bool,
    /// The share of the computation's entries that ran inside the phase.
    pub(super) share: f64,
}

/// A computation whose phases hold this share of its entries or more is charged by them alone:
/// the few entries a run makes before its first exchange or after its last are no part of T's
/// form.
const WHOLLY_INSIDE: f64 = 0.95;

/// How one rank took an IF in one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Took {
    Then,
    Else,
    /// Both arms at different times: its cost is not one arm's.
    Both,
}

/// [`Ctx::rank_arms`] of the runs at the largest traced P.
pub(super) fn rank_arms(
    split: &BTreeSet<u32>,
    runs: &[RunObs],
) -> BTreeMap<u32, BTreeMap<(usize, usize), Took>> {
    let p_max = runs.iter().map(|r| r.ranks.len()).max().unwrap_or(0);
    let mut out: BTreeMap<u32, BTreeMap<(usize, usize), Took>> = BTreeMap::new();
    for (ri, r) in runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.ranks.len() == p_max)
    {
        for (k, rank) in r.ranks.iter().enumerate() {
            for &site in split {
                let t = rank.branches.get(&(site, 0)).copied().unwrap_or(0);
                let e = rank.branches.get(&(site, 1)).copied().unwrap_or(0);
                let took = match (t > 0, e > 0) {
                    (true, false) => Took::Then,
                    (false, true) => Took::Else,
                    (true, true) => Took::Both,
                    (false, false) => continue,
                };
                out.entry(site).or_default().insert((ri, k), took);
            }
        }
    }
    out
}

#[derive(Debug, Clone)]
pub(super) struct PhaseCost {
    pub(super) per: [Expr; 3],
    pub(super) fill: [Expr; 3],
    /// Once per run: what a pipeline's fill waits beyond `fill` for the stages' cold first
    /// blocks (zero elsewhere).
    pub(super) cold: [Expr; 3],
    /// Loosely synchronous (or collective): it drains a pipeline sharing its loop.
    pub(super) synchronous: bool,
    /// A pipeline's ends by run: the ranks that start it (send, never receive) and those it
    /// ends at (receive, never send). Empty for other phases.
    pub(super) ends: BTreeMap<usize, Ends>,
}

/// Where a pipeline starts and ends in one run: ([`PhaseCost::ends`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Ends {
    pub(super) sources: BTreeSet<u32>,
    pub(super) sinks: BTreeSet<u32>,
}

impl Ends {
    /// A pipeline's ends in one run, from who sends and who receives in it.
    pub(super) fn of(senders: &BTreeSet<u32>, receivers: &BTreeSet<u32>) -> Ends {
        Ends {
            sources: senders.difference(receivers).copied().collect(),
            sinks: receivers.difference(senders).copied().collect(),
        }
    }
}

/// Whether two pipelines run the opposite ways in some run where both were traced: each ends
/// where the other starts (a forward sweep 0 → P−1 and a backward one P−1 → 0). In one loop
/// body they drain each other: the second starts only as the first arrives at its end, and the
/// next iteration's first only as the second arrives at its.
fn reverse(a: &BTreeMap<usize, Ends>, b: &BTreeMap<usize, Ends>) -> bool {
    a.iter().any(|(run, ea)| {
        b.get(run).is_some_and(|eb| {
            !ea.sinks.is_disjoint(&eb.sources) && !eb.sinks.is_disjoint(&ea.sources)
        })
    })
}

impl Ctx<'_> {
    fn trip(&self, n: &Node, b: Bound) -> Expr {
        match self.trips.get(&n.site.0) {
            Some(f) => f.at(b).clone(),
            None => Expr::zero(),
        }
    }

    /// Σ over `nodes` of (cost per execution, pipeline fill still to be charged).
    ///
    /// Consecutive rank-split IFs with no communication in them (`if (rank == 0) A;
    /// if (rank == P - 1) B;`) cost together what the slowest rank's arms add up to, as the
    /// ranks at the largest traced P took them, not each IF's slower arm added up.
    fn sum(&self, nodes: &[Node], b: Bound, stack: &mut Vec<String>) -> (Expr, Expr) {
        let (mut v, mut f) = (Expr::zero(), Expr::zero());
        let mut i = 0;
        while i < nodes.len() {
            let run = nodes[i..]
                .iter()
                .take_while(|n| self.quiet_split(n, &mut Vec::new()))
                .count();
            if run >= 2 {
                if let Some((gv, gf)) = self.split_group(&nodes[i..i + run], b, stack) {
                    v = v + gv;
                    f = f + gf;
                    i += run;
                    continue;
                }
            }
            let (cv, cf) = self.node(&nodes[i], b, stack);
            v = v + cv;
            f = f + cf;
            i += 1;
        }
        (v, f)
    }

    /// A rank-split IF with no communication anywhere under it (calls followed).
    fn quiet_split(&self, n: &Node, seen: &mut Vec<String>) -> bool {
        matches!(n.data, NodeData::If(_))
            && self.rank_split.contains(&n.site.0)
            && self.rank_arms.contains_key(&n.site.0)
            && self.quiet(n, seen)
    }

    /// No communication, and no phase anchored, anywhere under `n` (calls followed).
    fn quiet(&self, n: &Node, seen: &mut Vec<String>) -> bool {
        if self.anchored.contains_key(&n.site.0) {
            return false;
        }
        match &n.data {
            NodeData::Comm(_) => false,
            NodeData::Call { callee, .. } => {
                if seen.contains(callee) {
                    return true;
                }
                seen.push(callee.clone());
                self.routines
                    .get(callee)
                    .is_none_or(|r| self.quiet(r, seen))
            }
            _ => n
                .children
                .iter()
                .chain(&n.else_children)
                .all(|c| self.quiet(c, seen)),
        }
    }

    /// The IFs of `group` together: the largest, over the (run, rank)s at the largest traced
    /// P, of the arms that rank took; `None` when some rank took both arms of one of them.
    fn split_group(
        &self,
        group: &[Node],
        b: Bound,
        stack: &mut Vec<String>,
    ) -> Option<(Expr, Expr)> {
        let mut arms = Vec::new();
        let (mut per, mut fill, mut once_all) = (Expr::zero(), Expr::zero(), Expr::zero());
        for n in group {
            let (p, once) = self.anchored(n.site.0, b);
            let (tv, tf) = self.sum(&n.children, b, stack);
            let (ev, ef) = self.sum(&n.else_children, b, stack);
            per = per + p;
            fill = Expr::max(fill, Expr::max(tf, ef));
            once_all = once_all + once;
            arms.push((n.site.0, tv, ev));
        }
        let fill = fill + once_all;
        let samples: BTreeSet<(usize, usize)> = arms
            .iter()
            .filter_map(|(s, _, _)| self.rank_arms.get(s))
            .flat_map(|m| m.keys().copied())
            .collect();
        let mut combos: BTreeSet<Vec<Option<Took>>> = BTreeSet::new();
        for key in samples {
            let combo: Vec<Option<Took>> = arms
                .iter()
                .map(|(s, _, _)| self.rank_arms.get(s).and_then(|m| m.get(&key)).copied())
                .collect();
            if combo.contains(&Some(Took::Both)) {
                return None;
            }
            combos.insert(combo);
        }
        let costs: Vec<Expr> = combos
            .iter()
            .map(|combo| {
                combo
                    .iter()
                    .zip(&arms)
                    .fold(Expr::zero(), |acc, (took, (_, tv, ev))| match took {
                        Some(Took::Then) => acc + tv.clone(),
                        Some(Took::Else) => acc + ev.clone(),
                        _ => acc,
                    })
            })
            .collect();
        Some((Expr::max_of(costs) + per, fill))
    }

    /// Phases anchored at `site`: (per occurrence, one-time), overlapping pairs as max.
    fn anchored(&self, site: u32, b: Bound) -> (Expr, Expr) {
        let Some(list) = self.anchored.get(&site) else {
            return (Expr::zero(), Expr::zero());
        };
        let i = bidx(b);
        let (mut per, mut once) = (Expr::zero(), Expr::zero());
        let mut skip = BTreeSet::new();
        for g in list {
            if skip.contains(g) {
                continue;
            }
            let c = &self.phase_cost[g];
            match self
                .overlap_pair
                .get(g)
                .and_then(|h| self.phase_cost.get(h).map(|d| (h, d)))
            {
                Some((h, d)) => {
                    skip.insert(*h);
                    per = per + Expr::max(c.per[i].clone(), d.per[i].clone());
                    once = once + Expr::max(c.fill[i].clone(), d.fill[i].clone());
                }
                None => {
                    per = per + c.per[i].clone();
                    once = once + c.fill[i].clone();
                }
            }
        }
        (per, once)
    }

    /// Cost of one execution of `n`, and the pipeline fill it leaves to its enclosing loop.
    ///
    /// A pipeline is filled once for the stream of blocks its enclosing loops feed through it,
    /// not once per block (seed 004 §4.2): a fill rises through IFs, calls, routines and loops
    /// until a loop whose body also synchronises every iteration (a collective or a
    /// synchronous phase), which drains the pipeline, so each of its iterations refills it.
    /// A fill that reaches the top is charged once (sweeps with nothing between them stream
    /// their blocks behind each other's). Branch arms' fills are not weighted by the branch probability: rank-dependent
    /// conditions split processors, not time, so the slower arm's fill is what the run waits for.
    pub(super) fn node(&self, n: &Node, b: Bound, stack: &mut Vec<String>) -> (Expr, Expr) {
        let anchor = self.anchored.contains_key(&n.site.0);
        if anchor {
            self.entered.borrow_mut().push(n.site.0);
        }
        let out = self.node_below(n, b, stack);
        if anchor {
            self.entered.borrow_mut().pop();
        }
        out
    }

    /// The share of computation `site`'s entries the phases it runs inside here charge
    /// ([`Ctx::inside`]): 1 where they hold all of them (within [`WHOLLY_INSIDE`]); the walk
    /// charges the rest.
    fn phase_share(&self, site: u32) -> f64 {
        let Some(list) = self.inside.get(&site) else {
            return 0.0;
        };
        let entered = self.entered.borrow();
        let share: f64 = list
            .iter()
            .filter(|i| !i.below || entered.contains(&i.anchor))
            .map(|i| i.share)
            .sum();
        if share >= WHOLLY_INSIDE {
            1.0
        } else {
            share
        }
    }

    /// [`Ctx::node`] once the walk has entered `n`'s anchor, where it is one.
    fn node_below(&self, n: &Node, b: Bound, stack: &mut Vec<String>) -> (Expr, Expr) {
        let site = n.site.0;
        let (per, once) = self.anchored(site, b);
        match &n.data {
            NodeData::Routine { .. } => {
                let (v, f) = self.sum(&n.children, b, stack);
                (v + per, f + once)
            }
            NodeData::Loop(l) if l.compute => {
                let inside = self.phase_share(site);
                if inside >= 1.0 {
                    (Expr::zero(), Expr::zero())
                } else {
                    let v = self
                        .compute
                        .get(&site)
                        .map_or(Expr::zero(), |f| f.at(b).clone());
                    let v = match self.reach.get(&site) {
                        Some(r) => v * r.at(b).clone(),
                        None => v,
                    };
                    (v * Expr::num(1.0 - inside), Expr::zero())
                }
            }
            NodeData::Loop(_) => {
                let (v, f) = self.sum(&n.children, b, stack);
                let trip = self.trip(n, b);
                // a pipeline anchored here refills every iteration when each ends with all
                // processors synchronised
                let (inner, outer) = if self.drains_all(n) {
                    (once, Expr::zero())
                } else {
                    (Expr::zero(), once)
                };
                if self.drains(n) {
                    (trip * (v + per + f + inner) + outer, Expr::zero())
                } else {
                    // nothing drains the pipeline between iterations: the next iteration's
                    // blocks stream in behind this one's, and the fill rises further (trial
                    // 15: sweeps of a wavefront, charged a fill each, grew 4x from 1 to 4
                    // sweeps where the runs grew 1.84x)
                    (trip * (v + per + inner), f + outer)
                }
            }
            NodeData::If(_) => {
                let p = self
                    .probs
                    .get(&site)
                    .map_or(Expr::zero(), |f| f.at(b).clone());
                let (tv, tf) = self.sum(&n.children, b, stack);
                let (ev, ef) = self.sum(&n.else_children, b, stack);
                let v = if self.rank_split.contains(&site) {
                    // ranks take different arms: the run waits for the slower arm of those some
                    // rank takes (an arm no rank takes, p = 0 or 1, costs nothing). Some rank
                    // takes an arm taken by a share x of all evaluations when x·P, the ranks'
                    // summed shares, is not 0: 1/P (rank 0's arm) is always taken, 1 − 1/P
                    // (the others') from P = 2 on.
                    let some = |x: Expr| match x.as_const() {
                        Some(c) => Expr::num(if c > 1e-6 { 1.0 } else { 0.0 }),
                        None => {
                            let summed = x * Expr::var("P");
                            // taken at every P ≥ 1 (a share 1/sqrt(P): sqrt(P) ranks)
                            if summed.lower_bound_with(&|v| if v == "P" { 1.0 } else { 0.0 })
                                >= 1e-6
                            {
                                Expr::one()
                            } else {
                                Expr::min(Expr::one(), (summed * Expr::num(1e6)).floor())
                            }
                        }
                    };
                    Expr::max(some(p.clone()) * tv, some(Expr::one() - p) * ev)
                } else {
                    p.clone() * tv + (Expr::one() - p) * ev
                };
                (v + per, Expr::max(tf, ef) + once)
            }
            NodeData::Call { callee, .. } => {
                if stack.contains(callee) {
                    return (Expr::zero(), Expr::zero());
                }
                // a phase whose sites span routines anchors at the call site
                let Some(r) = self.routines.get(callee) else {
                    return (per, once);
                };
                stack.push(callee.clone());
                let (v, f) = self.node(r, b, stack);
                stack.pop();
                // a recursive routine entered from outside its cycle runs its body that many
                // times (the calls back into it inside the cycle cost nothing above)
                let v = match self.recursion.get(callee) {
                    Some(rec) if stack.last().is_none_or(|c| !rec.cycle.contains(c)) => {
                        v * rec.per_call.at(b).clone()
                    }
                    _ => v,
                };
                (v + per, f + once)
            }
            NodeData::Comm(c) => {
                if self.excluded.contains(&site) {
                    return (Expr::zero(), Expr::zero());
                }
                // the collective phase's cost where it was costed: from the sheet, or for a
                // call the sheet does not list (MPI_Comm_split, MPI_Cart_create) its measured
                // time per call (trial 22: listed in the phase table with its share of T
                // and left out of T)
                let v = match sheet_op(c, self.machine) {
                    _ if self.coll_cost.contains_key(&site) => {
                        self.coll_cost[&site][bidx(b)].clone()
                    }
                    Some(s) => {
                        let Some(cost) = self.machine.collective(s.op) else {
                            return (Expr::zero(), Expr::zero());
                        };
                        let bytes = c
                            .bytes
                            .as_ref()
                            .and_then(Attr::expr)
                            .map(|e| sheet_bytes(s, e, &Expr::var("P")))
                            .unwrap_or_else(Expr::zero);
                        // one regime: the size at a nominal 1024 for every parameter
                        let d = bytes.eval(&|_| Some(1024.0)).unwrap_or(0.0);
                        cost.piecewise(b, &bytes, &Expr::var("P"), d, d)
                    }
                    None => self.p2p_default[bidx(b)].clone(),
                };
                (v, Expr::zero())
            }
        }
    }

    /// Whether every iteration of loop `n` synchronises its processors: its body (through IFs,
    /// not into nested loops or calls) holds a collective or a synchronous phase's anchor, or
    /// two pipelines whose fills rise to it run the opposite ways (trial 16: a tridiagonal
    /// solve's forward and backward sweeps in each iteration were charged one fill per run,
    /// −46% to −55% at P = 64).
    fn drains(&self, n: &Node) -> bool {
        self.drains_in(n, &mut Vec::new())
    }

    /// [`Self::drains`] inside the calls `stack` (recursion reaches no loop twice).
    fn drains_in(&self, n: &Node, stack: &mut Vec<String>) -> bool {
        if self.synchronises(n, true) {
            return true;
        }
        let mut rising = BTreeSet::new();
        self.rising(&n.children, &mut rising, stack);
        let rising: Vec<&PhaseCost> = rising
            .iter()
            .filter_map(|g| self.phase_cost.get(g))
            .collect();
        rising
            .iter()
            .enumerate()
            .any(|(i, a)| rising[i + 1..].iter().any(|b| reverse(&a.ends, &b.ends)))
    }

    /// The pipelines whose fills rise out of `nodes` ([`Self::node`]): those anchored there,
    /// through IFs, calls and loops that do not drain them.
    fn rising(&self, nodes: &[Node], out: &mut BTreeSet<usize>, stack: &mut Vec<String>) {
        for m in nodes {
            for g in self.anchored.get(&m.site.0).into_iter().flatten() {
                if self.phase_cost.get(g).is_some_and(|pc| !pc.ends.is_empty()) {
                    out.insert(*g);
                }
            }
            match &m.data {
                NodeData::Loop(l) if !l.compute && !self.drains_in(m, stack) => {
                    self.rising(&m.children, out, stack)
                }
                NodeData::If(_) => {
                    self.rising(&m.children, out, stack);
                    self.rising(&m.else_children, out, stack);
                }
                NodeData::Call { callee, .. } if !stack.contains(callee) => {
                    if let Some(r) = self.routines.get(callee) {
                        stack.push(callee.clone());
                        self.rising(&r.children, out, stack);
                        stack.pop();
                    }
                }
                _ => {}
            }
        }
    }

    /// Whether every iteration of loop `n` ends with all its processors synchronised: its
    /// body (through IFs) holds a collective. A pipeline anchored at `n` itself then drains
    /// and refills every iteration; a synchronous exchange between neighbours does not drain
    /// it.
    fn drains_all(&self, n: &Node) -> bool {
        self.synchronises(n, false)
    }

    /// [`Self::drains`] (`exchanges`: a synchronous phase's anchor counts) or
    /// [`Self::drains_all`] (collectives only).
    fn synchronises(&self, n: &Node, exchanges: bool) -> bool {
        fn walk(c: &Ctx<'_>, nodes: &[Node], exchanges: bool) -> bool {
            nodes.iter().any(|m| {
                let sync_anchor = exchanges
                    && c.anchored.get(&m.site.0).is_some_and(|l| {
                        l.iter()
                            .any(|g| c.phase_cost.get(g).is_some_and(|pc| pc.synchronous))
                    });
                let collective =
                    matches!(&m.data, NodeData::Comm(cm) if collective_op(cm, c.machine).is_some());
                sync_anchor
                    || collective
                    || (matches!(m.data, NodeData::If(_))
                        && (walk(c, &m.children, exchanges)
                            || walk(c, &m.else_children, exchanges)))
            })
        }
        walk(self, &n.children, exchanges)
    }

    /// Occurrences of a phase anchored at `site`: product of enclosing loop trips (and the
    /// anchor's own, when it is a loop and `own` is set) and branch probabilities, up to the
    /// routine, times the routine's own executions (Σ over its call sites) unless it is main.
    pub(super) fn occurrences(&self, site: u32, paths: &Paths, main: &str) -> Expr {
        self.executions_of(site, true, paths, main, &mut Vec::new())
    }

    /// How many times `site` is entered (its own trip left out: a computation's cost per
    /// entry covers its loop).
    pub(super) fn entries(&self, site: u32, paths: &Paths, main: &str) -> Expr {
        self.executions_of(site, false, paths, main, &mut Vec::new())
    }

    fn executions_of(
        &self,
        site: u32,
        own: bool,
        paths: &Paths,
        main: &str,
        stack: &mut Vec<String>,
    ) -> Expr {
        let by_site = &self.nodes;
        let all = paths.get(&site).map(Vec::as_slice).unwrap_or(&[]);
        // a site on several paths (after an IF that may leave early) runs on each
        let mut e = Expr::zero();
        for path in all {
            let mut on = Expr::one();
            for (k, s) in path.iter().enumerate() {
                if let Some(n) = by_site.get(s) {
                    match &n.data {
                        NodeData::Loop(_) if own || *s != site => {
                            on = on * self.trip(n, Bound::Avg)
                        }
                        NodeData::If(_) if *s != site => {
                            let p = self.probs.get(s).map_or(Expr::one(), |f| f.expr.clone());
                            on = on * super::tree::arm_share(n, path.get(k + 1), p);
                        }
                        _ => {}
                    }
                }
            }
            e = e + on;
        }
        if all.is_empty() {
            e = Expr::one();
        }
        let first = all.first().map(Vec::as_slice).unwrap_or(&[]);
        if let Some(calls) = self.recursive_calls(first, paths, main, stack) {
            return e * calls;
        }
        match self.over_calls(first, main, stack, &mut |c, site, stack| {
            c.executions_of(site, true, paths, main, stack)
        }) {
            Some(calls) => e * calls,
            None => e,
        }
    }

    /// The executions of a recursive routine `path` starts in, as [`Self::node`] charges it:
    /// its calls from outside its cycle times its executions per such call (the calls inside
    /// the cycle are in those); None where the routine is not recursive or is on `stack`.
    fn recursive_calls(
        &self,
        path: &[u32],
        paths: &Paths,
        main: &str,
        stack: &mut Vec<String>,
    ) -> Option<Expr> {
        let r = self.routine_at(*path.first()?)?;
        let rec = self.recursion.get(&r)?;
        if r == main || stack.contains(&r) {
            return None;
        }
        let outside: Vec<u32> = self
            .call_sites(&r)
            .into_iter()
            .filter(|c| {
                self.routine_of(*c, paths)
                    .is_none_or(|from| !rec.cycle.contains(&from))
            })
            .collect();
        // entered only from inside its cycle (`b` of `a` ↔ `b`): its executions are its
        // callers', through the calls
        if outside.is_empty() {
            return None;
        }
        stack.push(r.clone());
        let calls: Expr = outside
            .into_iter()
            .map(|c| self.executions_of(c, true, paths, main, stack))
            .sum();
        stack.pop();
        Some(calls * rec.per_call.expr.clone())
    }

    /// Σ of `per_call` over the call sites of the routine `path` starts in, when that routine
    /// is not `main` and not already on `stack` (recursion); None otherwise.
    fn over_calls(
        &self,
        path: &[u32],
        main: &str,
        stack: &mut Vec<String>,
        per_call: &mut dyn FnMut(&Self, u32, &mut Vec<String>) -> Expr,
    ) -> Option<Expr> {
        let r = self.routine_at(*path.first()?)?;
        if r == main || stack.contains(&r) {
            return None;
        }
        stack.push(r.clone());
        let e = self
            .call_sites(&r)
            .into_iter()
            .map(|c| per_call(self, c, stack))
            .sum();
        stack.pop();
        Some(e)
    }

    /// The name of the routine whose node is `site`.
    fn routine_at(&self, site: u32) -> Option<String> {
        match &self.nodes.get(&site)?.data {
            NodeData::Routine { name, .. } => Some(name.clone()),
            _ => None,
        }
    }

    /// The routine `site` is in.
    pub(super) fn routine_of(&self, site: u32, paths: &Paths) -> Option<String> {
        self.routine_at(*paths.get(&site)?.first()?.first()?)
    }

    /// The sites that call routine `r`.
    fn call_sites(&self, r: &str) -> Vec<u32> {
        self.nodes
            .values()
            .filter(|n| matches!(&n.data, NodeData::Call { callee, .. } if callee == r))
            .map(|n| n.site.0)
            .collect()
    }

    /// How often a pipeline anchored at `site` is filled, as [`Self::node`] charges it: its
    /// fill rises from the anchor through enclosing loops (and through calls, to each call
    /// site) until a loop that drains it, filled once per iteration of that loop (per
    /// execution of the anchor when the anchor itself drains it), or once per run when it
    /// reaches the main program.
    pub(super) fn fills(&self, site: u32, paths: &Paths, main: &str) -> Expr {
        self.fills_from(site, true, paths, main, &mut Vec::new())
    }

    fn fills_from(
        &self,
        site: u32,
        anchor: bool,
        paths: &Paths,
        main: &str,
        stack: &mut Vec<String>,
    ) -> Expr {
        let by_site = &self.nodes;
        // copies of a site after an early exit share their enclosing loops
        let path = paths
            .get(&site)
            .and_then(|p| p.first())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        for s in path.iter().rev() {
            let Some(n) = by_site.get(s) else { continue };
            if !matches!(&n.data, NodeData::Loop(l) if !l.compute) {
                continue;
            }
            if *s == site {
                if anchor && self.drains_all(n) {
                    return self.executions_of(*s, true, paths, main, &mut Vec::new());
                }
                if anchor && self.drains(n) {
                    return self.executions_of(*s, false, paths, main, &mut Vec::new());
                }
            } else if self.drains(n) {
                return self.executions_of(*s, true, paths, main, &mut Vec::new());
            }
        }
        self.over_calls(path, main, stack, &mut |c, site, stack| {
            c.fills_from(site, false, paths, main, stack)
        })
        .unwrap_or_else(Expr::one)
    }
}
