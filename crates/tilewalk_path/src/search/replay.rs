//! Replaying a [`Trace`]: the state of every cell after any number of a search's events,
//! for a visual debugger that steps forward and back through a search.

use super::trace::{Direction, Trace, TraceEvent};
use crate::pos::Pos;

/// Whether a reached cell waits on the frontier or has been expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellState {
    /// On the frontier (the open set): reached, its `g` may still drop.
    Open,
    /// Expanded (the closed set): its `g` is final.
    Closed,
}

/// What a replay knows of a cell reached by one direction of a search: the numbers of its
/// last `Push` or `Relax` event ([`TraceEvent`]), and whether it was expanded since.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CellView {
    /// Whether it waits on the frontier or has been expanded.
    pub state: CellState,
    /// The cost of the way to it the search knows ([`Direction`] says which way it
    /// measures).
    pub g: f64,
    /// The heuristic's estimate for it, weight included.
    pub h: f64,
    /// Its priority on the frontier.
    pub f: f64,
    /// The cell it was reached from; `None` for the cell its search started from.
    pub parent: Option<Pos>,
}

/// The state of a search after its first `step` events ([`Replay::seek`]).
///
/// ```
/// use tilewalk_path::{CellState, Direction, Grid, Pos, Replay, SearchContext, SearchOptions, Trace};
///
/// let grid = Grid::new(5, 3).unwrap();
/// let (start, goal) = (Pos::new(0, 1), Pos::new(4, 1));
/// let mut trace = Trace::new();
/// let found = SearchContext::new()
///     .search_traced(&grid, start, goal, &SearchOptions::default(), &mut trace)
///     .unwrap();
/// let mut replay = Replay::new(grid.width(), grid.height());
/// replay.seek(&trace, 1); // the start, pushed
/// assert_eq!(replay.cell(Direction::Forward, start).unwrap().state, CellState::Open);
/// replay.seek(&trace, trace.events().len()); // the end: the goal expanded
/// assert_eq!(replay.current(), Some((Direction::Forward, goal)));
/// assert_eq!(replay.path_to(Direction::Forward, goal), found.path.cells);
/// replay.seek(&trace, 0); // back to the beginning
/// assert_eq!(replay.cell(Direction::Forward, start), None);
/// ```
#[derive(Clone, Debug)]
pub struct Replay {
    width: u32,
    height: u32,
    /// Per direction, per cell (row-major).
    cells: [Vec<Option<CellView>>; 2],
    step: usize,
    current: Option<(Direction, Pos)>,
    meeting: Option<Meeting>,
    stop: Option<(f64, f64)>,
    expanded: usize,
    pushed: usize,
}

/// The cheapest complete path a bidirectional search has found so far: the forward
/// search's way to `forward`, the step to `backward`, the backward search's way to the goal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Meeting {
    /// The forward search's end of the step.
    pub forward: Pos,
    /// The backward search's end of the step, a neighbour of `forward`.
    pub backward: Pos,
    /// The cost of the whole path.
    pub cost: f64,
}

impl Replay {
    /// An empty replay for a `width` × `height` grid: no events applied.
    pub fn new(width: u32, height: u32) -> Self {
        let cells = width as usize * height as usize;
        Self {
            width,
            height,
            cells: [vec![None; cells], vec![None; cells]],
            step: 0,
            current: None,
            meeting: None,
            stop: None,
            expanded: 0,
            pushed: 0,
        }
    }

    /// Moves to the state after the first `step` events of `trace` (at most all of them).
    /// Forward it applies only the events in between; backward it starts over, since an
    /// event does not say what it overwrote. `trace` must be the trace of the previous
    /// seeks, or [`Self::reset`] must come first.
    pub fn seek(&mut self, trace: &Trace, step: usize) {
        let events = trace.events();
        let step = step.min(events.len());
        if step < self.step {
            self.reset();
        }
        for event in &events[self.step..step] {
            self.apply(event);
        }
        self.step = step;
    }

    /// Forgets every event applied.
    pub fn reset(&mut self) {
        for cells in &mut self.cells {
            cells.fill(None);
        }
        self.step = 0;
        self.current = None;
        self.meeting = None;
        self.stop = None;
        self.expanded = 0;
        self.pushed = 0;
    }

    /// The grid's width and height.
    pub fn size(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// How many events have been applied.
    pub fn step(&self) -> usize {
        self.step
    }

    /// What the search in `direction` knows of `pos`; `None` for a cell it has not reached
    /// (or outside the grid).
    pub fn cell(&self, direction: Direction, pos: Pos) -> Option<&CellView> {
        let index = self.index(pos)?;
        self.cells[direction as usize][index].as_ref()
    }

    /// Every cell the search in `direction` has reached, row by row.
    pub fn reached(&self, direction: Direction) -> impl Iterator<Item = (Pos, &CellView)> {
        let width = self.width as usize;
        self.cells[direction as usize]
            .iter()
            .enumerate()
            .filter_map(move |(i, cell)| {
                let pos = Pos::new((i % width) as u32, (i / width) as u32);
                cell.as_ref().map(|c| (pos, c))
            })
    }

    /// The cell expanded last, and by which search.
    pub fn current(&self) -> Option<(Direction, Pos)> {
        self.current
    }

    /// A bidirectional search's cheapest meeting so far.
    pub fn meeting(&self) -> Option<Meeting> {
        self.meeting
    }

    /// A bidirectional search's stop, once its rule held: `(best, bound)` ([`TraceEvent::Stop`]).
    pub fn stop(&self) -> Option<(f64, f64)> {
        self.stop
    }

    /// Cells expanded and pushed so far, as [`SearchStats`](crate::SearchStats) counts them.
    pub fn counts(&self) -> (usize, usize) {
        (self.expanded, self.pushed)
    }

    /// The way the search in `direction` knows to `pos`, from its root (the start, or for
    /// the backward search the goal) to `pos`, following the recorded parents; empty when
    /// it has not reached `pos`. For jump point search, consecutive cells are jump points.
    pub fn path_to(&self, direction: Direction, pos: Pos) -> Vec<Pos> {
        let mut cells = Vec::new();
        let mut at = Some(pos);
        while let Some(pos) = at {
            let Some(cell) = self.cell(direction, pos) else {
                break;
            };
            // Parents form a tree; a longer walk than the grid has cells would be a cycle.
            if cells.len() > self.cells[0].len() {
                break;
            }
            cells.push(pos);
            at = cell.parent;
        }
        cells.reverse();
        cells
    }

    fn index(&self, pos: Pos) -> Option<usize> {
        (pos.x < self.width && pos.y < self.height)
            .then(|| pos.y as usize * self.width as usize + pos.x as usize)
    }

    fn apply(&mut self, event: &TraceEvent) {
        match *event {
            TraceEvent::Push {
                direction,
                pos,
                parent,
                g,
                h,
                f,
            } => self.open(direction, pos, parent, g, h, f),
            TraceEvent::Relax {
                direction,
                pos,
                parent,
                g,
                h,
                f,
                ..
            } => self.open(direction, pos, Some(parent), g, h, f),
            TraceEvent::Expand { direction, pos, g } => {
                self.expanded += 1;
                self.current = Some((direction, pos));
                self.set(direction, pos, |old| CellView {
                    state: CellState::Closed,
                    g,
                    ..old.unwrap_or(CellView {
                        state: CellState::Closed,
                        g,
                        h: 0.0,
                        f: g,
                        parent: None,
                    })
                });
            }
            TraceEvent::Scan { .. } => {}
            TraceEvent::Meet {
                forward,
                backward,
                cost,
            } => {
                self.meeting = Some(Meeting {
                    forward,
                    backward,
                    cost,
                });
            }
            TraceEvent::Stop { best, bound } => self.stop = Some((best, bound)),
        }
    }

    /// A cell put on the frontier, or found a cheaper way to: a push, as counted in
    /// [`SearchStats::pushed`](crate::SearchStats::pushed).
    fn open(
        &mut self,
        direction: Direction,
        pos: Pos,
        parent: Option<Pos>,
        g: f64,
        h: f64,
        f: f64,
    ) {
        self.pushed += 1;
        self.set(direction, pos, |_| CellView {
            state: CellState::Open,
            g,
            h,
            f,
            parent,
        });
    }

    fn set(
        &mut self,
        direction: Direction,
        pos: Pos,
        view: impl FnOnce(Option<CellView>) -> CellView,
    ) {
        if let Some(index) = self.index(pos) {
            let cell = &mut self.cells[direction as usize][index];
            *cell = Some(view(*cell));
        }
    }
}
