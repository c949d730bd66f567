//! Hand-written hex cases, one set per layout: the neighbours of chosen cells on a map of
//! even height (4×4) and one of odd height (5×3), worked out by hand from Red Blob Games'
//! offset tables, so that a swapped odd/even or row/column fails; distances on an empty
//! board; jump point search refused.

use tilewalk_path::{
    Algorithm, Board, Diagonal, Grid, Heuristic, HexLayout, NoPath, Pos, SearchContext,
    SearchOptions,
};

/// `(map width, map height, cell, its neighbours in the board's order)`.
type Case = (u32, u32, (u32, u32), &'static [(u32, u32)]);

fn check(layout: HexLayout, cases: &[Case]) {
    let board = Board::Hex(layout);
    for &(width, height, (x, y), expected) in cases {
        let got: Vec<Pos> = board.neighbours(Pos::new(x, y), width, height).collect();
        let expected: Vec<Pos> = expected.iter().copied().map(Pos::from).collect();
        assert_eq!(got, expected, "{board} {width}x{height} at ({x},{y})");
    }
}

#[test]
fn odd_r_neighbours() {
    // Odd rows are shifted right; order NE, E, SE, SW, W, NW.
    check(
        HexLayout::OddR,
        &[
            (
                4,
                4,
                (1, 1),
                &[(2, 0), (2, 1), (2, 2), (1, 2), (0, 1), (1, 0)],
            ),
            (
                4,
                4,
                (1, 2),
                &[(1, 1), (2, 2), (1, 3), (0, 3), (0, 2), (0, 1)],
            ),
            (4, 4, (3, 3), &[(2, 3), (3, 2)]),
            (4, 4, (0, 0), &[(1, 0), (0, 1)]),
            (5, 3, (4, 1), &[(4, 2), (3, 1), (4, 0)]),
            (5, 3, (2, 2), &[(2, 1), (3, 2), (1, 2), (1, 1)]),
        ],
    );
}

#[test]
fn even_r_neighbours() {
    // Even rows are shifted right; order NE, E, SE, SW, W, NW.
    check(
        HexLayout::EvenR,
        &[
            (
                4,
                4,
                (1, 1),
                &[(1, 0), (2, 1), (1, 2), (0, 2), (0, 1), (0, 0)],
            ),
            (
                4,
                4,
                (1, 2),
                &[(2, 1), (2, 2), (2, 3), (1, 3), (0, 2), (1, 1)],
            ),
            (4, 4, (3, 3), &[(3, 2), (2, 3), (2, 2)]),
            (4, 4, (0, 0), &[(1, 0), (1, 1), (0, 1)]),
            (5, 3, (4, 1), &[(4, 0), (4, 2), (3, 2), (3, 1), (3, 0)]),
            (5, 3, (2, 2), &[(3, 1), (3, 2), (1, 2), (2, 1)]),
        ],
    );
}

#[test]
fn odd_q_neighbours() {
    // Odd columns are shifted down; order N, NE, SE, S, SW, NW.
    check(
        HexLayout::OddQ,
        &[
            (
                4,
                4,
                (1, 1),
                &[(1, 0), (2, 1), (2, 2), (1, 2), (0, 2), (0, 1)],
            ),
            (
                4,
                4,
                (2, 1),
                &[(2, 0), (3, 0), (3, 1), (2, 2), (1, 1), (1, 0)],
            ),
            (4, 4, (3, 3), &[(3, 2), (2, 3)]),
            (4, 4, (0, 3), &[(0, 2), (1, 2), (1, 3)]),
            (5, 3, (1, 2), &[(1, 1), (2, 2), (0, 2)]),
            (5, 3, (4, 0), &[(4, 1), (3, 0)]),
        ],
    );
}

#[test]
fn even_q_neighbours() {
    // Even columns are shifted down; order N, NE, SE, S, SW, NW.
    check(
        HexLayout::EvenQ,
        &[
            (
                4,
                4,
                (1, 1),
                &[(1, 0), (2, 0), (2, 1), (1, 2), (0, 1), (0, 0)],
            ),
            (
                4,
                4,
                (2, 1),
                &[(2, 0), (3, 1), (3, 2), (2, 2), (1, 2), (1, 1)],
            ),
            (4, 4, (3, 3), &[(3, 2), (2, 3), (2, 2)]),
            (4, 4, (0, 3), &[(0, 2), (1, 3)]),
            (5, 3, (1, 2), &[(1, 1), (2, 1), (2, 2), (0, 2), (0, 1)]),
            (5, 3, (4, 0), &[(4, 1), (3, 1), (3, 0)]),
        ],
    );
}

#[test]
fn distances_and_searches_on_an_empty_board() {
    // From (0, 0) to (3, 3): three rows (columns) down gain at most 1.5 cells across, so
    // the layouts that start 0.5 behind need 5 steps and the others 4.
    let grid = Grid::new(6, 6).unwrap();
    let (a, b) = (Pos::new(0, 0), Pos::new(3, 3));
    let mut context = SearchContext::new();
    for (layout, steps) in [
        (HexLayout::OddR, 5),
        (HexLayout::EvenR, 4),
        (HexLayout::OddQ, 5),
        (HexLayout::EvenQ, 4),
    ] {
        let board = Board::Hex(layout);
        assert_eq!(board.distance(a, b), steps, "{board}");
        assert_eq!(board.distance(b, a), steps, "{board}");
        assert_eq!(board.heuristic(Heuristic::Hex, a, b), f64::from(steps));
        assert_eq!(Heuristic::tightest_for(board), Heuristic::Hex);
        for algorithm in [Algorithm::AStar, Algorithm::Bfs, Algorithm::Dijkstra] {
            let found = context
                .search(
                    &grid,
                    a,
                    b,
                    &SearchOptions {
                        algorithm,
                        ..SearchOptions::on(board)
                    },
                )
                .unwrap();
            assert_eq!(found.path.cost, f64::from(steps), "{board} {algorithm:?}");
            assert_eq!(found.path.cells.len(), steps as usize + 1);
        }
        let range = context.range(&grid, Pos::new(2, 2), 1.0, board).unwrap();
        assert_eq!(
            range.cells().len(),
            7,
            "{board}: a cell and its six neighbours"
        );
    }
    assert_eq!(
        Heuristic::tightest_for(Diagonal::Never),
        Heuristic::Manhattan
    );
    assert_eq!(Heuristic::tightest_for(Board::default()), Heuristic::Octile);
}

#[test]
fn jump_point_search_needs_a_square_board() {
    let grid = Grid::new(4, 4).unwrap();
    let options = SearchOptions {
        algorithm: Algorithm::JumpPoint,
        ..SearchOptions::on(HexLayout::OddR)
    };
    let err = SearchContext::new()
        .search(&grid, Pos::new(0, 0), Pos::new(3, 3), &options)
        .unwrap_err();
    assert_eq!(
        err,
        NoPath::NeedsSquareBoard {
            option: "jump point search",
            board: Board::Hex(HexLayout::OddR),
        }
    );
    assert_eq!(
        err.to_string(),
        "jump point search needs a square board, not hex-odd-r"
    );
}
