//! The seed maps, in every diagonal mode, plus determinism and expansion recording.

use std::f64::consts::SQRT_2;

use tilewalk_path::formats::parse_plain_grid;
use tilewalk_path::{Diagonal, NoPath, Pos, SearchContext, SearchOptions};

const MAP_A: &str = "OOOOOOOO\nOOOOXOOO\nOOSOXOEO\nOOOOXOOO\nOOOOOOOO\nOOOOOOOO\n";
const MAP_B: &str = "OXXXXOOO\nOXOOXOOO\nOOSOXOEX\nOOOOXXXO\nOOOXOXOO\nOOOOOOOO\n";

fn cost(map: &str, diagonal: Diagonal) -> Result<f64, NoPath> {
    let plain = parse_plain_grid(map).unwrap();
    let mut context = SearchContext::new();
    let found = context.search(
        &plain.grid,
        plain.start.unwrap(),
        plain.goal.unwrap(),
        &SearchOptions::with_diagonal(diagonal),
    );
    if found.is_err() {
        assert_eq!(
            context.stats().expanded,
            0,
            "answered from the component labels"
        );
    }
    found.map(|f| f.path.cost)
}

#[test]
fn map_a() {
    assert!((cost(MAP_A, Diagonal::Always).unwrap() - 4.0 * SQRT_2).abs() < 1e-9);
    assert!((cost(MAP_A, Diagonal::NoObstacles).unwrap() - (4.0 + 2.0 * SQRT_2)).abs() < 1e-9);
    assert_eq!(cost(MAP_A, Diagonal::Never), Ok(8.0));
    let plain = parse_plain_grid(MAP_A).unwrap();
    let found = SearchContext::new()
        .search(
            &plain.grid,
            Pos::new(2, 2),
            Pos::new(6, 2),
            &SearchOptions::with_diagonal(Diagonal::Always),
        )
        .unwrap();
    assert_eq!(
        found.path.cells,
        [(2, 2), (3, 1), (4, 0), (5, 1), (6, 2)].map(Pos::from)
    );
}

#[test]
fn map_b() {
    assert!((cost(MAP_B, Diagonal::Always).unwrap() - 6.0 * SQRT_2).abs() < 1e-9);
    for diagonal in [
        Diagonal::Never,
        Diagonal::NoObstacles,
        Diagonal::AtMostOneObstacle,
    ] {
        assert_eq!(
            cost(MAP_B, diagonal),
            Err(NoPath::DifferentRegions),
            "{diagonal:?}"
        );
    }
}

#[test]
fn same_query_same_path_and_recorded_expansions() {
    let plain = parse_plain_grid(MAP_A).unwrap();
    let options = SearchOptions {
        record_expansions: true,
        ..SearchOptions::default()
    };
    let mut reused = SearchContext::new();
    let first = reused
        .search(&plain.grid, Pos::new(0, 5), Pos::new(7, 0), &options)
        .unwrap();
    assert_eq!(reused.expansions().len(), first.stats.expanded);
    assert_eq!(reused.expansions()[0], Pos::new(0, 5));
    assert_eq!(*reused.expansions().last().unwrap(), Pos::new(7, 0));
    let again = reused
        .search(&plain.grid, Pos::new(0, 5), Pos::new(7, 0), &options)
        .unwrap();
    let fresh = SearchContext::new()
        .search(&plain.grid, Pos::new(0, 5), Pos::new(7, 0), &options)
        .unwrap();
    assert_eq!(first, again);
    assert_eq!(first, fresh);
}
