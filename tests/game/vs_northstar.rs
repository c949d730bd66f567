//! The comparison with bevy_northstar (`examples/vs_northstar.rs`) on its smoke run: a small
//! Moving AI map, a small generated map, a small crowd and the wall under it, so CI keeps the
//! benchmark working. The full run is the benchmark (docs/benchmarks.md).

#[path = "../../examples/vs_northstar.rs"]
#[allow(dead_code, reason = "the example's `main` is for its own binary")]
mod example;

#[test]
fn the_northstar_comparison_runs_on_small_maps() {
    let report = example::run(["--smoke".to_owned()].into_iter()).expect("the smoke run");
    // tilewalk's A*, ALT and hierarchy exact, northstar's A* at the same optimum (the costs converted
    // faithfully), every path a walk from start to goal, the wall re-planned around.
    assert_eq!(report.problems(), Vec::<String>::new());
    assert_eq!(report.single.len(), 2, "arena and a generated map");
    // The hierarchy is measured on both (small) maps, and `problems` holds it exact.
    assert!(report.single.iter().all(|map| map.hierarchy == Some(5)));
    for map in &report.single {
        for m in &map.methods {
            assert!(!m.excess.is_empty(), "{}: {}: no paths", map.name, m.name);
            // Nothing beats the optimum: else the optimum was wrong.
            assert!(
                m.excess.iter().all(|&e| e > -1e-9),
                "{}: {}",
                map.name,
                m.name
            );
        }
    }
    let [tilewalk, northstar] = &report.crowds[0];
    assert_eq!(tilewalk.plugin, "tilewalk");
    assert_eq!(northstar.plugin, "northstar");
    assert_eq!(
        tilewalk.arrived, 12,
        "every tilewalk unit reaches its own goal"
    );
    assert!(tilewalk.last_arrival > 0.0 && tilewalk.frames > 0);
    let [walled, _] = &report.changes[0];
    assert!(walled.affected > 0, "the wall crosses some unit's path");
    assert_eq!(walled.replanned, walled.affected);
}
