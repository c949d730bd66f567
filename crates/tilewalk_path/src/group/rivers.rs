//! The rivers of a route field: the units' ways down it as trees, and the hand-out of the
//! tiles a wave reached to the units upstream ([`Rivers`]).

use super::member::*;
use crate::field::CostField;
use crate::memory::zeroed;

/// The members' ways down the route field, merged into a forest rooted at tiles: the
/// rivers of [`Router::start_wave`].
#[derive(Clone, Debug, Default)]
pub(super) struct Rivers {
    /// Per cell (storage index): one more than the index of its node, or 0 when it has none
    /// (so that fresh zeroed memory has no rivers).
    pub(super) node_at: Vec<u32>,
    pub(super) nodes: Vec<RiverNode>,
    /// Per member: the next member in the same list.
    pub(super) next_member: Vec<u32>,
    /// The nodes, each after every node down its way (a reversed depth-first order).
    pub(super) upstream_first: Vec<u32>,
    pub(super) stack: Vec<u32>,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct RiverNode {
    pub(super) cell: u32,
    /// The next node down, or `NONE` at a tile.
    pub(super) down: u32,
    pub(super) first_child: u32,
    pub(super) next_sibling: u32,
    /// The members starting here, then those left over upstream: first and last.
    pub(super) members: (u32, u32),
    /// The free tiles the wave reached from here: first, in `tiles` of the wave.
    pub(super) tiles: u32,
}

impl Rivers {
    /// Starts the rivers of `members` members on a grid of `cells` cells.
    pub(super) fn begin(&mut self, members: usize, cells: usize) {
        if self.node_at.len() != cells {
            self.node_at = zeroed(cells);
        }
        self.nodes.clear();
        self.next_member.clear();
        self.next_member.resize(members, NONE);
    }

    /// Walks the members' ways down `field`, from member `*member`, whose way has got to
    /// the cell `*at`, until every member's way is walked or `limit` cells were added;
    /// returns the cells added, and leaves `*member` and `*at` where to go on.
    pub(super) fn walk(
        &mut self,
        field: &CostField,
        members: &[Member],
        member: &mut usize,
        at: &mut usize,
        limit: usize,
    ) -> usize {
        let mut walked = 0;
        while let Some(m) = members.get(*member) {
            while !self.contains(*at) {
                if walked == limit {
                    return walked;
                }
                walked += 1;
                self.node_at[*at] = self.nodes.len() as u32 + 1;
                self.nodes.push(RiverNode {
                    cell: *at as u32,
                    down: NONE,
                    first_child: NONE,
                    next_sibling: NONE,
                    members: (NONE, NONE),
                    tiles: NONE,
                });
                match field.next_at(*at) {
                    Some(down) => *at = down,
                    None => break,
                }
            }
            let id = self.node(m.start);
            self.push_members(id, *member as u32, *member as u32);
            *member += 1;
            if let Some(m) = members.get(*member) {
                *at = m.start;
            }
        }
        walked
    }

    /// Once every way is walked: links the nodes into the forest and orders them upstream
    /// first.
    pub(super) fn link(&mut self, field: &CostField) {
        // Children, in creation order; roots on the stack, last first.
        self.stack.clear();
        for id in (0..self.nodes.len()).rev() {
            let cell = self.nodes[id].cell as usize;
            match field.next_at(cell) {
                Some(down) => {
                    let down = self.node(down) as u32;
                    self.nodes[id].down = down;
                    self.nodes[id].next_sibling = self.nodes[down as usize].first_child;
                    self.nodes[down as usize].first_child = id as u32;
                }
                None => self.stack.push(id as u32),
            }
        }
        self.upstream_first.clear();
        while let Some(id) = self.stack.pop() {
            self.upstream_first.push(id);
            let mut child = self.nodes[id as usize].first_child;
            while child != NONE {
                self.stack.push(child);
                child = self.nodes[child as usize].next_sibling;
            }
        }
        self.upstream_first.reverse();
    }

    /// Appends the list `first..=last` (linked by `next_member`) to node `id`'s members.
    pub(super) fn push_members(&mut self, id: usize, first: u32, last: u32) {
        let (head, tail) = self.nodes[id].members;
        if head == NONE {
            self.nodes[id].members = (first, last);
        } else {
            self.next_member[tail as usize] = first;
            self.nodes[id].members = (head, last);
        }
    }

    pub(super) fn contains(&self, cell: usize) -> bool {
        self.node_at[cell] != 0
    }

    /// The node of a river cell.
    pub(super) fn node(&self, cell: usize) -> usize {
        self.node_at[cell] as usize - 1
    }

    /// Forgets the rivers (their cells' marks).
    pub(super) fn clear(&mut self) {
        for node in &self.nodes {
            self.node_at[node.cell as usize] = 0;
        }
        self.nodes.clear();
    }
}
