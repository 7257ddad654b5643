//! Bench determinism: the node count is a signature, so two runs must agree,
//! and a parameter that changes the search must change it.

use karsinta_engine::bench::{run_bench, BENCH_FENS};
use karsinta_engine::Params;

#[test]
fn bench_is_deterministic_and_sensitive_to_parameters() {
    let params = Params::default();
    let a = run_bench(&params, 3);
    let b = run_bench(&params, 3);
    assert!(a.nodes >= BENCH_FENS.len() as u64, "{a:?}");
    assert_eq!(a.nodes, b.nodes);
    let mut other = Params::default();
    other.set_by_name("search_algorithm", "alphabeta").unwrap();
    assert_ne!(
        run_bench(&other, 3).nodes,
        a.nodes,
        "a different root driver searched the same tree"
    );
}
