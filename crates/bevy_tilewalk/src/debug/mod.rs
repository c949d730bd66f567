//! What the plugin did, to inspect and to draw: the searches of the last order
//! ([`Searches`], with the cells they expanded while [`RecordSearches`] is on), the work path
//! requests did in the last frame ([`PathWork`]), and, with the cargo feature `debug`, the
//! gizmos of `TilewalkDebugPlugin`: each unit's path and goal, orders refused, and the cells
//! the last search expanded, on any map layout.

#[cfg(feature = "debug")]
mod gizmos;

#[cfg(feature = "debug")]
pub use gizmos::{REFUSAL_SECONDS, TilewalkDebug, TilewalkDebugPlugin, colors};

pub use crate::pathing::{PathWork, RecordSearch, RecordSearches, SearchRecord, Searches};
