//! Reflection: every public component, resource and message of the plugin is registered (the
//! tactics ones where the `tactics` module adds its systems), so inspectors, scenes and
//! remote tools see units and paths. The core crate has no Bevy in it:
//! a lone [`Pos`](tilewalk_path::Pos) field is reflected through [`PosReflect`] (its `x` and
//! `y` show), and a type that holds other core types, or `Pos`es in a collection, is reflected
//! opaquely (whole, by its `Debug`, `Clone` and `PartialEq`).

use bevy::prelude::*;

use crate::maps::{MapNavigation, MapUnits, OnMap};
use crate::movement::Arrived;
use crate::navigation::{ClassSpec, Navigation, NavigationChanged};
use crate::pathing::{
    MoveOrder, OrderRefused, Path, PathBudget, PathWork, Pending, PlannerMemory, RecordSearch,
    RecordSearches, Replan, Searches, ShortOfGoal, Squad, SteppingOff, StopOrder, StoppedShort,
    UnreachableGoals,
};
use crate::remote::PosReflect;
use crate::units::{Motion, MovementClass, Precedence, Stride, Team, Tile, Unit, Walk};

pub(crate) fn plugin(app: &mut App) {
    app.register_type::<PosReflect>()
        // Units.
        .register_type::<Unit>()
        .register_type::<Team>()
        .register_type::<crate::Sides>()
        .register_type::<crate::Side>()
        .register_type::<MovementClass>()
        .register_type::<Tile>()
        .register_type::<Motion>()
        .register_type::<Stride>()
        .register_type::<Precedence>()
        // Navigation and orders.
        .register_type::<Navigation>()
        .register_type::<ClassSpec>()
        .register_type::<NavigationChanged>()
        .register_type::<MapNavigation>()
        .register_type::<OnMap>()
        .register_type::<MapUnits>()
        .register_type::<MoveOrder>()
        .register_type::<StopOrder>()
        .register_type::<OrderRefused>()
        .register_type::<SteppingOff>()
        .register_type::<Replan>()
        .register_type::<Arrived>()
        // Paths and walks.
        .register_type::<Path>()
        .register_type::<Walk>()
        .register_type::<Pending>()
        .register_type::<Squad>()
        .register_type::<StoppedShort>()
        .register_type::<PathBudget>()
        .register_type::<PathWork>()
        .register_type::<crate::LongOrders>()
        .register_type::<Searches>()
        .register_type::<RecordSearches>()
        .register_type::<RecordSearch>()
        .register_type::<PlannerMemory>()
        .register_type::<UnreachableGoals>()
        .register_type::<ShortOfGoal>();
}
