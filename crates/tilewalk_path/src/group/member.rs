//! A unit of an order as the planner routes it.

pub(super) const NONE: u32 = u32::MAX;

/// One unit of the class being planned.
#[derive(Clone, Copy, Debug)]
pub(super) struct Member {
    pub(super) unit: usize,
    pub(super) start: usize,
    pub(super) region: u32,
}
