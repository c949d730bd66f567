//! Search traces: every step a search takes, recorded on request for a visual debugger to
//! replay, and the recorder that does nothing, which the untraced searches compile away.

use crate::pos::Pos;

/// Which of the two searches of a bidirectional search an event belongs to. One-way
/// searches run `Forward` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the start towards the goal: `g` is the cost of the way from the start to the
    /// cell, and `h` estimates the rest of the way to the goal.
    Forward,
    /// From the goal back towards the start: `g` is the cost of the way from the cell to the
    /// goal (what walking it costs, cell by cell, in the forward direction), and `h`
    /// estimates the cost from the start to the cell.
    Backward,
}

/// One step of a search, in the order the search took it. Costs are those of the search's
/// cost model ([crate docs](crate)); `h` is the heuristic's estimate (weight included), and
/// `f` the priority the frontier orders the cell by: `g + h` for A* and jump point search,
/// `g` for Dijkstra, `h` for greedy best-first, the balanced priority of
/// [`Algorithm::Bidirectional`](crate::Algorithm::Bidirectional) for bidirectional searches.
/// BFS and DFS record `g + h` but ignore it: their frontier is a queue or a stack.
///
/// A search's `Push` and `Relax` events together are [`SearchStats::pushed`](crate::SearchStats::pushed),
/// its `Expand` events [`SearchStats::expanded`](crate::SearchStats::expanded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TraceEvent {
    /// A cell put on the frontier for the first time. `parent` is the cell it was reached
    /// from (a neighbour, or for jump point search the jump point the scan started at);
    /// `None` for the cell a search starts from.
    Push {
        /// The search that pushed it.
        direction: Direction,
        /// The cell.
        pos: Pos,
        /// The cell it was reached from; `None` for the cell the search starts from.
        parent: Option<Pos>,
        /// The cost of the way to it found so far.
        g: f64,
        /// The heuristic's estimate for it, weight included.
        h: f64,
        /// Its priority on the frontier.
        f: f64,
    },
    /// A cheaper way to a cell already on the frontier: its `g` drops from `old_g` to `g`,
    /// and its parent becomes `parent`.
    Relax {
        /// The search that found the cheaper way.
        direction: Direction,
        /// The cell.
        pos: Pos,
        /// The cell the cheaper way comes from.
        parent: Pos,
        /// The cell's `g` before.
        old_g: f64,
        /// Its new, lower `g`.
        g: f64,
        /// The heuristic's estimate for it, weight included.
        h: f64,
        /// Its new priority on the frontier.
        f: f64,
    },
    /// A cell taken off the frontier and expanded: its `g` is final. A one-way search that
    /// finds the goal ends with the goal's `Expand`.
    Expand {
        /// The search that expanded it.
        direction: Direction,
        /// The cell.
        pos: Pos,
        /// Its final `g`.
        g: f64,
    },
    /// Jump point search: a scan from the expanded jump point `from`, one step `(dx, dy)`
    /// at a time, which found the jump point `found` or ran into a wall (`None`).
    Scan {
        /// The jump point the scan started from.
        from: Pos,
        /// The step `(dx, dy)` the scan repeats.
        step: (i32, i32),
        /// The jump point it found; `None` when it ran into a wall.
        found: Option<Pos>,
    },
    /// Bidirectional search: a cheaper complete path, made of the forward search's way to
    /// `forward`, the step to its neighbour `backward`, and the backward search's way from
    /// there to the goal. The last `Meet` is the path the search returns.
    Meet {
        /// The forward search's end of the step.
        forward: Pos,
        /// The backward search's end of the step, a neighbour of `forward`.
        backward: Pos,
        /// The cost of the whole path.
        cost: f64,
    },
    /// Bidirectional search: the stopping rule held. `bound` is the smallest cost any path
    /// not yet found can have (infinite once a frontier ran dry), `best` the cheapest path
    /// found (infinite when none was): the search stops when `bound >= best`.
    Stop {
        /// The cost of the cheapest path found; infinite when none was.
        best: f64,
        /// The smallest cost a path not yet found can have; infinite once a frontier ran
        /// dry.
        bound: f64,
    },
}

/// The events of one search ([`SearchContext::search_traced`](crate::SearchContext::search_traced)),
/// in order. Reuse one trace for many searches: each traced search clears it first and
/// keeps its buffer.
///
/// ```
/// use tilewalk_path::{Grid, Pos, SearchContext, SearchOptions, Trace, TraceEvent};
///
/// let grid = Grid::new(4, 3).unwrap();
/// let mut trace = Trace::new();
/// let found = SearchContext::new()
///     .search_traced(&grid, Pos::new(0, 0), Pos::new(3, 2), &SearchOptions::default(), &mut trace)
///     .unwrap();
/// let expanded = trace.events().iter().filter(|e| matches!(e, TraceEvent::Expand { .. }));
/// assert_eq!(expanded.count(), found.stats.expanded);
/// assert!(matches!(trace.events().last(), Some(TraceEvent::Expand { pos, .. }) if *pos == Pos::new(3, 2)));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trace {
    events: Vec<TraceEvent>,
}

impl Trace {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// The recorded events, in order.
    pub fn events(&self) -> &[TraceEvent] {
        &self.events
    }

    pub(crate) fn clear(&mut self) {
        self.events.clear();
    }
}

/// Where a search reports its steps. The searches are generic over it, so that with
/// [`NoTrace`] every report, and the work of building its event, compiles to nothing.
pub(crate) trait Tracer {
    /// Records the event `event` builds; only called for its event when someone listens.
    fn record(&mut self, event: impl FnOnce() -> TraceEvent);
}

/// The recorder of untraced searches: it drops every event unbuilt.
pub(crate) struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn record(&mut self, _: impl FnOnce() -> TraceEvent) {}
}

impl Tracer for Trace {
    #[inline]
    fn record(&mut self, event: impl FnOnce() -> TraceEvent) {
        self.events.push(event());
    }
}
