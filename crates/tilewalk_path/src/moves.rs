//! Neighbourhoods, diagonal rules and heuristics: which steps exist and what they are estimated to cost.

use std::f64::consts::SQRT_2;

/// When a diagonal step is allowed. `Never` is the 4-way neighbourhood; the others are
/// 8-way and differ in how they treat the two orthogonal cells beside the diagonal.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Diagonal {
    /// 4-way: only orthogonal steps.
    Never,
    /// A diagonal step needs both orthogonal neighbours passable: no corner cutting. The
    /// rule of the Moving AI benchmarks, and the default.
    #[default]
    NoObstacles,
    /// A diagonal step needs at least one orthogonal neighbour passable (PathFinding.js,
    /// Godot's `DIAGONAL_MODE_AT_LEAST_ONE_WALKABLE`).
    AtMostOneObstacle,
    /// Any diagonal step between passable cells, squeezing between two walls too.
    Always,
}

impl Diagonal {
    /// Every rule: the 4-way `Never`, then the three 8-way rules.
    pub const ALL: [Self; 4] = [
        Self::Never,
        Self::NoObstacles,
        Self::AtMostOneObstacle,
        Self::Always,
    ];

    /// The steps this rule allows from a cell, as a bit mask (bit `d` for `STEPS[d]`), given
    /// the same mask of its passable neighbours.
    #[inline]
    pub(crate) fn allowed_steps(self, passable: u32) -> u32 {
        let orthogonal = passable & 0b1111;
        // Bit k of `orthogonal & next`: both orthogonal cells beside diagonal step k + 4 are
        // passable (N and E beside NE, E and S beside SE, S and W beside SW, W and N beside NW).
        let next = (orthogonal >> 1) | ((orthogonal & 1) << 3);
        // Which of the three ways to combine the sides applies, as masks rather than a
        // branch: `both`, `either` or `any` is 0b1111, the others 0.
        let [both, either, any] = match self {
            Self::Never => [0, 0, 0],
            Self::NoObstacles => [0b1111, 0, 0],
            Self::AtMostOneObstacle => [0, 0b1111, 0],
            Self::Always => [0, 0, 0b1111],
        };
        let sides = (orthogonal & next & both) | ((orthogonal | next) & either) | any;
        orthogonal | (passable & (sides << 4))
    }
}

/// One step of the neighbourhood: its offset and its length.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub dx: i32,
    pub dy: i32,
    pub length: f64,
}

/// The eight steps in a fixed order (orthogonal first: N, E, S, W, then NE, SE, SW, NW).
/// The order is part of the deterministic tie-breaking.
pub(crate) const STEPS: [Step; 8] = [
    Step {
        dx: 0,
        dy: -1,
        length: 1.0,
    },
    Step {
        dx: 1,
        dy: 0,
        length: 1.0,
    },
    Step {
        dx: 0,
        dy: 1,
        length: 1.0,
    },
    Step {
        dx: -1,
        dy: 0,
        length: 1.0,
    },
    Step {
        dx: 1,
        dy: -1,
        length: SQRT_2,
    },
    Step {
        dx: 1,
        dy: 1,
        length: SQRT_2,
    },
    Step {
        dx: -1,
        dy: 1,
        length: SQRT_2,
    },
    Step {
        dx: -1,
        dy: -1,
        length: SQRT_2,
    },
];

/// An estimate of the remaining distance, in steps (before scaling by the cheapest cost).
/// On a hex board some of them mean something else: see
/// [`Board::heuristic`](crate::Board::heuristic).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heuristic {
    /// `dx + dy`: exact on an empty 4-way grid; overestimates once diagonals exist.
    Manhattan,
    /// `max + (√2 − 1)·min`: exact on an empty 8-way grid.
    Octile,
    /// Straight-line distance: admissible for every neighbourhood, but looser.
    Euclidean,
    /// `max(dx, dy)`: admissible for 8-way, looser than octile.
    Chebyshev,
    /// The hex distance: exact on an empty hex board. A square board has none; there it
    /// means `Chebyshev` (still admissible, 4-way or 8-way).
    Hex,
    /// Always 0: A* becomes Dijkstra.
    Zero,
}

impl Heuristic {
    /// The estimated step length between cells `dx` columns and `dy` rows apart on a square
    /// board.
    #[inline]
    pub fn distance(self, dx: u32, dy: u32) -> f64 {
        match self.weights() {
            Some((a, b)) => a * f64::from(dx.max(dy)) + b * f64::from(dx.min(dy)),
            None => f64::from(dx).hypot(f64::from(dy)),
        }
    }

    /// `Some((a, b))` when the distance is `a·max(dx, dy) + b·min(dx, dy)`, which every
    /// heuristic but the Euclidean one is: a search asks this once, not at every step, and
    /// the sum is exact as the heuristic's own formula (`dx + dy` is `max + 1·min`).
    #[inline]
    pub(crate) fn weights(self) -> Option<(f64, f64)> {
        match self {
            Self::Manhattan => Some((1.0, 1.0)),
            Self::Octile => Some((1.0, SQRT_2 - 1.0)),
            Self::Euclidean => None,
            Self::Chebyshev | Self::Hex => Some((1.0, 0.0)),
            Self::Zero => Some((0.0, 0.0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_on_a_3_by_4_offset() {
        assert_eq!(Heuristic::Manhattan.distance(3, 4), 7.0);
        assert!((Heuristic::Octile.distance(3, 4) - (1.0 + 3.0 * SQRT_2)).abs() < 1e-12);
        assert_eq!(Heuristic::Euclidean.distance(3, 4), 5.0);
        assert_eq!(Heuristic::Chebyshev.distance(3, 4), 4.0);
        assert_eq!(Heuristic::Zero.distance(3, 4), 0.0);
        assert_eq!(Heuristic::Hex.distance(3, 4), 4.0);
    }

    #[test]
    fn heuristics_never_exceed_the_free_8_way_distance_except_manhattan() {
        for dx in 0..20 {
            for dy in 0..20 {
                let exact = Heuristic::Octile.distance(dx, dy);
                for h in [
                    Heuristic::Euclidean,
                    Heuristic::Chebyshev,
                    Heuristic::Hex,
                    Heuristic::Zero,
                ] {
                    assert!(h.distance(dx, dy) <= exact + 1e-12);
                }
            }
        }
        assert!(Heuristic::Manhattan.distance(1, 1) > Heuristic::Octile.distance(1, 1));
    }

    #[test]
    fn diagonal_rules() {
        // Every cell around is passable but E (bit 1): NE and SE lose a side.
        let around = 0b1111_1101;
        assert_eq!(Diagonal::Never.allowed_steps(around), 0b0000_1101);
        assert_eq!(Diagonal::NoObstacles.allowed_steps(around), 0b1100_1101);
        assert_eq!(
            Diagonal::AtMostOneObstacle.allowed_steps(around),
            0b1111_1101
        );
        assert_eq!(Diagonal::Always.allowed_steps(around), 0b1111_1101);
        // Only the diagonals are passable: squeezing between walls is `Always` alone.
        for diagonal in [
            Diagonal::Never,
            Diagonal::NoObstacles,
            Diagonal::AtMostOneObstacle,
        ] {
            assert_eq!(diagonal.allowed_steps(0b1111_0000), 0, "{diagonal:?}");
        }
        assert_eq!(Diagonal::Always.allowed_steps(0b1010_0000), 0b1010_0000);
        // N and W passable: only NW has both sides; NE and SW have one.
        assert_eq!(
            Diagonal::NoObstacles.allowed_steps(0b1111_1001),
            0b1000_1001
        );
        assert_eq!(
            Diagonal::AtMostOneObstacle.allowed_steps(0b1111_1001),
            0b1101_1001
        );
    }
}
