//! The queue's rule against a real PostgreSQL (see pg.rs): simulated
//! workers (each a worker row that asks the rule at every batch boundary,
//! claims a batch and completes it at once) split their claims between
//! open tests by priority and throughput weight, stay put within the
//! band, and never take a test their machine does not meet.
//!
//! Tolerance: once the workers have chosen, each test's share of the
//! claims is within 5 percentage points of its weight's share.

use std::collections::BTreeMap;
use std::time::Duration;

use karsinta_dist::db::Db;
use karsinta_dist::kinds::{MatchTest, TestKind};
use karsinta_dist::queue::choose::candidates;
use karsinta_dist::queue::{self, Asker, Claim, FinishedBatch, NewWorker, TestRow};
use karsinta_harness::config::{MatchConfig, Overrides};

use crate::pg::TempPg;
use crate::support::{drawn_pair, write_config};

/// Each test's claim share must be within this of its weight's share.
const TOLERANCE: f64 = 0.05;

/// The tests of one database, with their kinds for completions.
struct Fleet {
    db: Db,
    dir: tempfile::TempDir,
    kinds: BTreeMap<i64, (TestRow, TestKind)>,
}

impl Fleet {
    fn new(pg: &TempPg) -> Fleet {
        Fleet {
            db: Db::open(&pg.url(), Duration::from_secs(10)).unwrap(),
            dir: tempfile::tempdir().unwrap(),
            kinds: BTreeMap::new(),
        }
    }

    /// A test of `pairs` one-pair batches at `tc`, sharing as `share`.
    fn create(&mut self, name: &str, pairs: u64, tc: &str, share: queue::Share) -> i64 {
        let path = write_config(self.dir.path(), name, 2 * pairs, false, 1, 600);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("time_control: nodes=400", &format!("time_control: {tc}"))
            + "  window_batches: 100000\n";
        std::fs::write(&path, text).unwrap();
        let blocks = karsinta_dist::settings::accepted_sections();
        let cfg = MatchConfig::load_with(&path, &Overrides::default(), &blocks).unwrap();
        let q = queue::Queueing {
            share,
            reference_nps: None,
            auto_purge: false,
            held: false,
        };
        let t = MatchTest::new(&cfg)
            .unwrap()
            .create_queued(&mut self.db, name, &q)
            .unwrap();
        let kind = TestKind::of(&t, None).unwrap();
        let id = t.id;
        self.kinds.insert(id, (t, kind));
        id
    }
}

/// A simulated worker: a machine and the test it is on.
struct Sim {
    asker: Asker,
    switches: u32,
}

impl Sim {
    fn new(cores: u32, syzygy: bool, noisy: bool) -> Sim {
        Sim {
            asker: Asker {
                cores,
                memory_mb: 4096,
                syzygy,
                noisy,
                concurrency: 1,
                current: None,
                skip: Vec::new(),
            },
            switches: 0,
        }
    }

    /// One batch boundary: ask the rule, move if it says so, claim and
    /// complete a batch. The test claimed, if any.
    fn step(&mut self, f: &mut Fleet) -> Option<i64> {
        let ask = self.asker.clone();
        let t = f.db.run(|c| queue::next_open_test(c, &ask)).unwrap()?;
        if self.asker.current.map(|(id, _)| id) != Some(t.id) {
            if let Some((_, w)) = self.asker.current {
                f.db.run(|c| queue::leave(c, w)).unwrap();
                self.switches += 1;
            }
            let new = NewWorker {
                test: t.id,
                host: "sim",
                signatures: "[]",
                bench_nps: 0,
                machine: None,
                concurrency: self.asker.concurrency,
                clock: None,
                build_seconds: None,
                revision_nps: None,
            };
            let w = f.db.run(|c| queue::register(c, &new)).unwrap();
            self.asker.current = Some((t.id, w));
        }
        let (test, w) = self.asker.current.unwrap();
        let Claim::Batch { idx, token } = f.db.run(|c| queue::claim(c, test, w)).unwrap() else {
            return None;
        };
        let (row, kind) = &f.kinds[&test];
        let pairs: Vec<_> = row.pairs_of(idx).map(drawn_pair).collect();
        let batch = FinishedBatch {
            idx,
            token,
            worker: w,
            seconds: 0.0,
            pairs: &pairs,
        };
        f.db.run(|c| queue::complete(c, row, kind, &batch)).unwrap();
        Some(test)
    }
}

/// `rounds` rounds of one step per worker; claims per test, and the
/// workers' switches meanwhile.
fn run(f: &mut Fleet, sims: &mut [Sim], rounds: usize) -> (BTreeMap<i64, u64>, u32) {
    let before: u32 = sims.iter().map(|s| s.switches).sum();
    let mut claims = BTreeMap::new();
    for _ in 0..rounds {
        for s in sims.iter_mut() {
            if let Some(t) = s.step(f) {
                *claims.entry(t).or_insert(0) += 1;
            }
        }
    }
    let after: u32 = sims.iter().map(|s| s.switches).sum();
    (claims, after - before)
}

fn share(claims: &BTreeMap<i64, u64>, test: i64) -> f64 {
    let total: u64 = claims.values().sum();
    claims.get(&test).copied().unwrap_or(0) as f64 / total.max(1) as f64
}

fn weighted(throughput: f64) -> queue::Share {
    queue::Share {
        throughput,
        ..queue::Share::default()
    }
}

#[test]
fn priority_first_then_claims_split_by_throughput_and_workers_stay_within_the_band() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let mut f = Fleet::new(&pg);
    let a = f.create("a", 2000, "nodes=400", weighted(100.0));
    let b = f.create("b", 2000, "nodes=400", weighted(300.0));
    let urgent = f.create(
        "urgent",
        24,
        "nodes=400",
        queue::Share {
            priority: 1,
            ..queue::Share::default()
        },
    );
    let mut sims: Vec<Sim> = (0..8).map(|_| Sim::new(4, false, false)).collect();

    // The higher priority takes every worker until it has no batch left.
    let (claims, _) = run(&mut f, &mut sims, 3);
    assert_eq!(claims.get(&urgent), Some(&24), "{claims:?}");
    assert_eq!(
        claims.len(),
        1,
        "nothing else while it had work: {claims:?}"
    );

    // Then a:b = 100:300, a quarter and three quarters of the claims.
    let _ = run(&mut f, &mut sims, 2);
    let (claims, switches) = run(&mut f, &mut sims, 50);
    let (sa, sb) = (share(&claims, a), share(&claims, b));
    assert!((sa - 0.25).abs() <= TOLERANCE, "a {sa:.3}: {claims:?}");
    assert!((sb - 0.75).abs() <= TOLERANCE, "b {sb:.3}: {claims:?}");
    assert_eq!(switches, 0, "settled workers do not move");

    // Equal weights: workers on b move (b is 50% over its share) until the
    // split is within the band, then stay.
    let mut c = pg.client();
    assert!(queue::set_share(&mut c, "b", None, Some(100.0)).unwrap());
    let (_, moved) = run(&mut f, &mut sims, 2);
    assert!(moved >= 1, "the new weights move someone");
    let (claims, switches) = run(&mut f, &mut sims, 50);
    let (sa, sb) = (share(&claims, a), share(&claims, b));
    assert!((sa - 0.5).abs() <= TOLERANCE, "a {sa:.3}: {claims:?}");
    assert!((sb - 0.5).abs() <= TOLERANCE, "b {sb:.3}: {claims:?}");
    assert_eq!(switches, 0, "settled workers do not move");
    // Bad weights are refused with the flag's meaning.
    assert!(queue::set_share(&mut c, "b", None, Some(0.0)).is_err());
    assert!(!queue::set_share(&mut c, "nosuch", Some(1), None).unwrap());
}

#[test]
fn a_machine_never_takes_a_test_it_does_not_meet_and_a_noisy_one_gets_only_fixed_limits() {
    let Some(pg) = TempPg::start(20) else {
        return;
    };
    let mut f = Fleet::new(&pg);
    let nodes = f.create("nodes", 200, "nodes=400", queue::Share::default());
    let clock = f.create("clock", 200, "1+0.01", queue::Share::default());
    let big = f.create(
        "big",
        200,
        "depth=3",
        queue::Share {
            min_cores: 64,
            min_memory_mb: 1024,
            ..queue::Share::default()
        },
    );
    let tb = f.create(
        "tb",
        200,
        "nodes=400",
        queue::Share {
            require_syzygy: true,
            // Ahead of the rest: whoever may take it, takes it.
            priority: 5,
            ..queue::Share::default()
        },
    );
    let ids = |sim: &Sim, c: &mut postgres::Client| -> Vec<i64> {
        candidates(c, &sim.asker)
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect()
    };
    let mut c = pg.client();
    let small_noisy = Sim::new(2, false, true);
    let small = Sim::new(2, false, false);
    let mut large = Sim::new(128, true, false);
    assert_eq!(ids(&small_noisy, &mut c), vec![nodes]);
    assert_eq!(ids(&small, &mut c), vec![nodes, clock]);
    assert_eq!(ids(&large, &mut c), vec![nodes, clock, big, tb]);
    let mut big_noisy = Sim::new(128, true, true);
    assert_eq!(ids(&big_noisy, &mut c), vec![nodes, big, tb]);

    // Playing: the noisy small machine only ever claims the node test; the
    // machine with tables goes to the priority test that needs them.
    let mut sims = vec![small_noisy, small];
    let (claims, _) = run(&mut f, &mut sims, 20);
    assert_eq!(claims.get(&tb), None);
    assert_eq!(claims.get(&big), None);
    assert!(claims[&nodes] >= 20, "{claims:?}");
    let only_nodes = run(&mut f, &mut sims[..1], 10).0;
    assert_eq!(only_nodes.keys().collect::<Vec<_>>(), vec![&nodes]);
    assert_eq!(large.step(&mut f), Some(tb));
    assert_eq!(big_noisy.step(&mut f), Some(tb));
}
