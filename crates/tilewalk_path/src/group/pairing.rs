//! Pairing units with tiles where each unit is searched alone: in ranks where the units stand
//! on one side of the click, by bearing where they stand all round it.

use super::member::*;
use crate::board::Board;
use crate::grid::Grid;
use crate::moves::Diagonal;
use crate::pos::Pos;

/// Whether a class's units are routed one at a time, each by its own jump point search
/// ([`Algorithm::JumpPoint`]), instead of by fields and waves: on a grid where every
/// passable cell costs the same, on the 8-way board without corner cutting (where jump
/// point search works). There a search jumps over the many equally cheap paths and
/// expands only a dozen or so jump points, so a search per unit costs less than the class's
/// fields and waves would.
pub(super) fn searches_each_unit(grid: &Grid, board: Board) -> bool {
    grid.uniform_cost().is_some() && board == Board::Square(Diagonal::NoObstacles)
}

/// Pairs each member with a tile of its region for a class searched one unit at a time
/// ([`searches_each_unit`]), where any pairing gives cheapest paths: in ranks, so that the
/// members keep their places in the crowd and their paths run side by side.
///
/// In each region whose members stand on one side of the click (their bearings from it fit
/// in a half-turn), the members and the tiles are measured along the line from the click to
/// the members' centre (*depth*: the front of the crowd is nearest the click, the far side of
/// the tiles is beyond it) and across it. The members, front first, and the tiles, far side
/// first, are cut into ranks as wide as the tiles are across the line, and in each rank the
/// k-th member across gets the k-th tile across. The front rank fills the far side of the
/// goal and each rank behind it the tiles behind those, so no rank walks through another
/// that has arrived; members side by side go to tiles side by side, so paths do not cross,
/// and a block marching over open ground moves as a block instead of funnelling into a few
/// files. Equal depths and places go by unit, and tiles by storage order.
///
/// Where the members stand all around the click (two armies from both sides in one order),
/// no line has a front: there the region pairs by bearing ([`pair_by_bearing`]).
pub(super) fn pair_in_ranks(
    grid: &Grid,
    board: Board,
    click: Pos,
    members: &[Member],
    tiles: &[usize],
) -> Vec<(Member, usize)> {
    let offset = |index: usize| {
        let pos = grid.pos(index);
        (
            f64::from(pos.x) - f64::from(click.x),
            f64::from(pos.y) - f64::from(click.y),
        )
    };
    let mut regions: Vec<u32> = members.iter().map(|m| m.region).collect();
    regions.sort_unstable();
    regions.dedup();
    let mut pairs = Vec::with_capacity(members.len());
    for region in regions {
        let mine: Vec<Member> = members
            .iter()
            .filter(|m| m.region == region)
            .copied()
            .collect();
        let ours: Vec<usize> = tiles
            .iter()
            .copied()
            .filter(|&t| grid.region(grid.pos(t), board) == Some(region))
            .collect();
        debug_assert_eq!(mine.len(), ours.len(), "a tile per member in each region");
        let Some((ux, uy)) = front_line(mine.iter().map(|m| offset(m.start))) else {
            pairs.extend(pair_by_bearing(grid, click, &mine, &ours));
            continue;
        };
        // (depth, across, what): the depth grows away from the click, toward the members.
        let place = |index: usize| {
            let (x, y) = offset(index);
            (x * ux + y * uy, y * ux - x * uy)
        };
        let mut mine: Vec<(f64, f64, Member)> = mine
            .iter()
            .map(|m| {
                let (depth, across) = place(m.start);
                (depth, across, *m)
            })
            .collect();
        mine.sort_by(|a, b| {
            (a.0.total_cmp(&b.0))
                .then(a.1.total_cmp(&b.1))
                .then(a.2.unit.cmp(&b.2.unit))
        });
        let mut ours: Vec<(f64, f64, usize)> = ours
            .iter()
            .map(|&t| {
                let (depth, across) = place(t);
                (depth, across, t)
            })
            .collect();
        ours.sort_by(|a, b| {
            (a.0.total_cmp(&b.0))
                .then(a.1.total_cmp(&b.1))
                .then(a.2.cmp(&b.2))
        });
        let (least, most) = ours
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(least, most), t| {
                (least.min(t.1), most.max(t.1))
            });
        // As many tiles as the goal is wide across the line (at least one).
        let rank = ((most - least).round().max(0.0) as usize + 1).min(ours.len().max(1));
        for (units, tiles) in mine.chunks_mut(rank).zip(ours.chunks_mut(rank)) {
            units.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.unit.cmp(&b.2.unit)));
            tiles.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)));
            pairs.extend(units.iter().zip(tiles.iter()).map(|(u, t)| (u.2, t.2)));
        }
    }
    pairs
}

/// Pairs one region's members standing all around the click with its tiles
/// ([`pair_in_ranks`]) by bearing from the click, so that paths do not cross: the members and
/// the tiles are sorted by their bearing from `click` (the angle of the line from the click
/// to them), counted round from the middle of the widest gap between the members' bearings,
/// and the k-th member gets the k-th tile. Two armies coming from both sides take a side
/// each, and an army's flanks take the tiles on the far side. Equal bearings go by unit, and
/// tiles by storage order.
pub(super) fn pair_by_bearing(
    grid: &Grid,
    click: Pos,
    members: &[Member],
    tiles: &[usize],
) -> Vec<(Member, usize)> {
    use std::f64::consts::TAU;
    let bearing = |index: usize| {
        let pos = grid.pos(index);
        let dx = f64::from(pos.x) - f64::from(click.x);
        let dy = f64::from(pos.y) - f64::from(click.y);
        dy.atan2(dx).rem_euclid(TAU)
    };
    let mut mine: Vec<(f64, Member)> = members.iter().map(|m| (bearing(m.start), *m)).collect();
    mine.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.unit.cmp(&b.1.unit)));
    let bearings: Vec<f64> = mine.iter().map(|m| m.0).collect();
    let (from, width) = widest_gap(&bearings);
    let cut = from + width / 2.0;
    let round = |b: f64| (b - cut).rem_euclid(TAU);
    mine.sort_by(|a, b| {
        round(a.0)
            .total_cmp(&round(b.0))
            .then(a.1.unit.cmp(&b.1.unit))
    });
    let mut ours: Vec<(f64, usize)> = tiles.iter().map(|&t| (round(bearing(t)), t)).collect();
    ours.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    mine.iter()
        .zip(&ours)
        .map(|((_, m), (_, t))| (*m, *t))
        .collect()
}

/// The widest gap between neighbouring bearings (sorted, in `[0, TAU)`) round the circle:
/// the bearing it starts at and its width (a full turn for one bearing or none).
pub(super) fn widest_gap(sorted: &[f64]) -> (f64, f64) {
    use std::f64::consts::TAU;
    let mut widest = (0.0, TAU);
    for (k, &from) in sorted.iter().enumerate() {
        let to = sorted.get(k + 1).map_or(sorted[0] + TAU, |&next| next);
        if k == 0 || to - from > widest.1 {
            widest = (from, to - from);
        }
    }
    widest
}

/// The unit vector from the click toward the centre of members standing at these offsets
/// from it, when they all stand on one side of the click (their bearings from it fit in a
/// half-turn) and their centre is a tile or more away; `None` when they stand around it.
pub(super) fn front_line(offsets: impl Iterator<Item = (f64, f64)> + Clone) -> Option<(f64, f64)> {
    use std::f64::consts::{PI, TAU};
    let count = offsets.clone().count() as f64;
    let (sx, sy) = offsets
        .clone()
        .fold((0.0, 0.0), |(sx, sy), (x, y)| (sx + x, sy + y));
    let length = (sx / count).hypot(sy / count);
    // Below a tile, or NaN: no side to come from.
    if length.is_nan() || length < 1.0 {
        return None;
    }
    let mut bearings: Vec<f64> = offsets
        .filter(|&(x, y)| x != 0.0 || y != 0.0)
        .map(|(x, y)| y.atan2(x).rem_euclid(TAU))
        .collect();
    bearings.sort_by(f64::total_cmp);
    let (_, widest) = widest_gap(&bearings);
    (widest >= PI).then_some((sx / count / length, sy / count / length))
}
