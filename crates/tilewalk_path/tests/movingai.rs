//! Moving AI conformance: A*, jump point search and bidirectional A* costs against the
//! scenarios' optimal lengths, over ../shared/benchmarks/movingai (present in CI), and
//! bidirectional Dijkstra's on the smaller maps. To keep a debug build quick it checks every
//! problem of the maps up to 194x194 and every 10th problem of the larger ones.

use std::path::Path as FsPath;

use tilewalk_path::formats::{parse_movingai_map, parse_scenarios};
use tilewalk_path::{Algorithm, SearchContext, SearchOptions};

#[test]
fn costs_match_the_scenarios() {
    let dir = FsPath::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/benchmarks/movingai"
    ));
    let Ok(entries) = std::fs::read_dir(dir) else {
        eprintln!("note: no Moving AI data at {}; skipping", dir.display());
        return;
    };
    let mut scens: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".map.scen"))
        .collect();
    scens.sort();
    assert!(!scens.is_empty());
    let mut context = SearchContext::new();
    for scen in scens {
        let text = std::fs::read_to_string(&scen).unwrap();
        let problems = parse_scenarios(&text).unwrap();
        let name = FsPath::new(&problems[0].map)
            .file_name()
            .unwrap()
            .to_owned();
        let map = parse_movingai_map(&std::fs::read_to_string(scen.with_file_name(&name)).unwrap())
            .unwrap();
        let grid = map.grid();
        // The 2011 Baldur's Gate files round lengths to 2 decimals.
        let two_decimals = text
            .lines()
            .nth(1)
            .and_then(|l| l.split_whitespace().last())
            .is_some_and(|f| f.split_once('.').is_some_and(|(_, d)| d.len() <= 2));
        let step = if map.width() * map.height() > 200 * 200 {
            10
        } else {
            1
        };
        let mut checked = 0;
        for problem in problems.iter().step_by(step) {
            let tolerance = 1e-3 + 6e-5 * problem.optimal + if two_decimals { 0.005 } else { 0.0 };
            let dijkstra = (step == 1).then_some(Algorithm::BidirectionalDijkstra);
            let algorithms = [
                Algorithm::AStar,
                Algorithm::JumpPoint,
                Algorithm::Bidirectional,
            ];
            for algorithm in algorithms.into_iter().chain(dijkstra) {
                let options = SearchOptions {
                    algorithm,
                    ..SearchOptions::default()
                };
                let found = context
                    .search(&grid, problem.start, problem.goal, &options)
                    .unwrap();
                assert!(
                    (found.path.cost - problem.optimal).abs() <= tolerance,
                    "{}: {algorithm:?} {:?}: {} vs {}",
                    scen.display(),
                    problem,
                    found.path.cost,
                    problem.optimal
                );
            }
            checked += 1;
        }
        assert!(
            checked > 0,
            "{}: no problems checked (every {step}th)",
            scen.display()
        );
    }
}
