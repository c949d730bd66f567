//! Sides as data: each [`Team`]'s name, who it is hostile to, who it makes way for, and (with
//! the features that use them) its colour and who plays it in tactics.

use bevy::prelude::*;

use crate::units::Team;

/// The sides of a game, by [`Team`] id: the side at index `i` is `Team(i)`'s. The plugin
/// reads them where a unit's side decides something: which units at rest a re-plan around
/// units walks through (those of the sides that make way for the walker), whom a tactics unit
/// may strike, is stopped by and passes through, the turn order, and the debug colours.
/// Change the resource to change them; the default is two sides, `blue` and `red`,
/// hostile to each other.
///
/// A [`Team`] past the list has no entry: it is hostile to every other team and makes way for
/// its own only (the two-sided rule).
///
/// ```
/// use bevy_tilewalk::{Side, Sides, Team};
///
/// // Blue and red fight; the villagers are hostile to nobody, and make way for everyone.
/// let mut sides = Sides::default();
/// let villagers = sides.push(Side::new("villagers").makes_way_for([Team::BLUE, Team::RED]));
/// assert!(sides.hostile(Team::BLUE, Team::RED));
/// assert!(!sides.hostile(Team::BLUE, villagers));
/// assert!(sides.makes_way_for(villagers, Team::RED));
/// assert!(!sides.makes_way_for(Team::RED, villagers));
/// assert_eq!(sides.find("villagers"), Some(Team(2)));
/// ```
#[derive(Resource, Reflect, Clone, Debug, PartialEq)]
#[reflect(Resource, Default, Debug, Clone, PartialEq)]
pub struct Sides(Vec<Side>);

/// One side of the [`Sides`].
#[derive(Reflect, Clone, Debug, PartialEq)]
#[reflect(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Side {
    /// Its name, for messages and lookups ([`Sides::find`]).
    pub name: String,
    /// The sides it is hostile to. Hostility is mutual: two sides are hostile when either
    /// names the other, so a neutral side is one that names none and that none names.
    pub hostile_to: Vec<Team>,
    /// The other sides whose units it makes way for: its units at rest are walked through by
    /// their re-plans around units, as by its own side's (its own side always counts). Not
    /// mutual: villagers may make way for soldiers who do not make way for them.
    pub makes_way_for: Vec<Team>,
    /// Its colour where the debug plugin draws its units' paths and goals.
    #[cfg(feature = "debug")]
    pub color: Color,
    /// Who plays its tactics turns.
    #[cfg(feature = "tactics")]
    pub player: Player,
}

impl Side {
    /// A side named `name`, hostile to nobody and making way for its own units only, drawn
    /// grey by the debug plugin, played by a person in tactics.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            hostile_to: Vec::new(),
            makes_way_for: Vec::new(),
            #[cfg(feature = "debug")]
            color: palette::NEUTRAL,
            #[cfg(feature = "tactics")]
            player: Player::Person,
        }
    }

    /// The side, hostile to `teams` too.
    pub fn hostile_to(mut self, teams: impl IntoIterator<Item = Team>) -> Self {
        self.hostile_to.extend(teams);
        self
    }

    /// The side, making way for `teams`' units too.
    pub fn makes_way_for(mut self, teams: impl IntoIterator<Item = Team>) -> Self {
        self.makes_way_for.extend(teams);
        self
    }

    /// The side, drawn in `color` by the debug plugin.
    #[cfg(feature = "debug")]
    pub fn with_color(self, color: Color) -> Self {
        Self { color, ..self }
    }

    /// The side, played by `player` in tactics.
    #[cfg(feature = "tactics")]
    pub fn played_by(self, player: Player) -> Self {
        Self { player, ..self }
    }
}

impl Default for Sides {
    /// `blue` ([`Team::BLUE`], played by a person) and `red` ([`Team::RED`], played by the AI
    /// the tactics rules name), hostile to each other.
    fn default() -> Self {
        let blue = Side::new("blue").hostile_to([Team::RED]);
        let red = Side::new("red").hostile_to([Team::BLUE]);
        #[cfg(feature = "debug")]
        let (blue, red) = (blue.with_color(palette::BLUE), red.with_color(palette::RED));
        #[cfg(feature = "tactics")]
        let red = red.played_by(Player::RulesAi);
        Self(vec![blue, red])
    }
}

impl Sides {
    /// The sides in `sides`' order: the first is `Team(0)`.
    pub fn new(sides: impl IntoIterator<Item = Side>) -> Self {
        Self(sides.into_iter().collect())
    }

    /// Adds a side; its team.
    ///
    /// # Panics
    ///
    /// When there are 256 sides already (a [`Team`] is a `u8`).
    pub fn push(&mut self, side: Side) -> Team {
        let team = u8::try_from(self.0.len()).expect("at most 256 sides");
        self.0.push(side);
        Team(team)
    }

    /// A team's side, if it has one.
    pub fn get(&self, team: Team) -> Option<&Side> {
        self.0.get(team.index())
    }

    /// A team's side, to change it.
    pub fn get_mut(&mut self, team: Team) -> Option<&mut Side> {
        self.0.get_mut(team.index())
    }

    /// The team of the side named `name`.
    pub fn find(&self, name: &str) -> Option<Team> {
        let index = self.0.iter().position(|s| s.name == name)?;
        u8::try_from(index).ok().map(Team)
    }

    /// A team's name: its side's, else `team N`.
    pub fn name(&self, team: Team) -> String {
        self.get(team)
            .map_or_else(|| format!("team {}", team.0), |s| s.name.clone())
    }

    /// Every side's team, in order (the tactics turn order).
    pub fn teams(&self) -> impl Iterator<Item = Team> + '_ {
        (0..self.0.len()).filter_map(|i| u8::try_from(i).ok().map(Team))
    }

    /// The number of sides.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no sides.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether units of `a` and `b` are enemies: either side names the other in its
    /// [`Side::hostile_to`]. A team without a side is hostile to every other team; a team
    /// is never hostile to itself.
    pub fn hostile(&self, a: Team, b: Team) -> bool {
        if a == b {
            return false;
        }
        match (self.get(a), self.get(b)) {
            (Some(x), Some(y)) => x.hostile_to.contains(&b) || y.hostile_to.contains(&a),
            _ => true,
        }
    }

    /// Whether `team` is hostile to anyone (a neutral side is not).
    pub fn fights(&self, team: Team) -> bool {
        self.get(team).is_none_or(|s| !s.hostile_to.is_empty())
            || self.0.iter().any(|s| s.hostile_to.contains(&team))
    }

    /// Whether units of `yielder` at rest make way for units of `walker`: one team, or
    /// `walker` named in `yielder`'s [`Side::makes_way_for`].
    pub fn makes_way_for(&self, yielder: Team, walker: Team) -> bool {
        yielder == walker
            || self
                .get(yielder)
                .is_some_and(|s| s.makes_way_for.contains(&walker))
    }
}

/// Who plays a side's tactics turns ([`Side::player`]; also `tactics::Player`). In a rules
/// file (serde): `Person`, `RulesAi` or `Ai(planner)`.
#[cfg(feature = "tactics")]
#[derive(
    Reflect, serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash,
)]
#[reflect(Debug, Clone, PartialEq)]
pub enum Player {
    /// A person: the side's turn lasts until an [`EndTurn`](crate::tactics::EndTurn) is
    /// written during it.
    Person,
    /// The AI that [`TacticsRules::ai`](crate::tactics::TacticsRules::ai) names (red's, by
    /// default).
    RulesAi,
    /// This AI.
    Ai(Mind),
}

/// Which AI plays a side (also `tactics::Mind`). In a rules file (serde) and on the command
/// line: `planner` or `greedy`.
#[cfg(feature = "tactics")]
#[derive(
    Reflect, serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
)]
#[reflect(Debug, Default, Clone, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Mind {
    /// Scores every move and strike: the forecast both ways, kills and focus fire, the
    /// threat and the defence of the tile it ends on, support, wounded units pulled back.
    #[default]
    Planner,
    /// The baseline: each unit in order moves as close as it can to the nearest enemy and
    /// strikes the weakest unit in reach, whatever the counter-attack.
    Greedy,
}

/// The debug plugin's colours of the default sides and of a new side (also
/// `debug::colors`).
#[cfg(feature = "debug")]
pub(crate) mod palette {
    use bevy::prelude::Color;

    pub const BLUE: Color = Color::srgb(0.2, 0.75, 1.0);
    pub const RED: Color = Color::srgb(1.0, 0.45, 0.1);
    pub const NEUTRAL: Color = Color::srgb(0.75, 0.75, 0.75);
}
