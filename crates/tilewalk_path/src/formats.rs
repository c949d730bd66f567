//! Text formats: Moving AI benchmark maps (`.map`) and scenarios (`.scen`), and plain
//! character grids. Parsers return a [`ParseError`] with a 1-based line and column; the
//! caller adds the file name.

use crate::grid::{Grid, Pos};

/// A parse failure at `line:column` (both 1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl ParseError {
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            message: message.into(),
        }
    }
}

/// A Moving AI map: its glyphs row by row. `.` `G` `S` are passable; `@` `O` `T` `W` are not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovingAiMap {
    pub width: u32,
    pub height: u32,
    glyphs: Vec<u8>,
}

/// The glyphs a Moving AI map may contain.
pub const MOVINGAI_GLYPHS: &str = ".GS@OTW";

impl MovingAiMap {
    /// The glyph at `pos` (which must be inside the map).
    pub fn glyph(&self, pos: Pos) -> char {
        char::from(self.glyphs[pos.y as usize * self.width as usize + pos.x as usize])
    }

    /// The benchmark grid: every passable cell costs 1.
    pub fn grid(&self) -> Grid {
        Grid::from_fn(self.width, self.height, |p| {
            matches!(self.glyph(p), '.' | 'G' | 'S').then_some(1.0)
        })
        .expect("a parsed map has a valid size and unit costs")
    }
}

/// Whether `text` looks like a Moving AI map (its first line is a `type` header).
pub fn is_movingai_map(text: &str) -> bool {
    text.lines()
        .next()
        .is_some_and(|l| l.trim_start().starts_with("type "))
}

/// Parses a Moving AI `.map`: `type octile`, `height H`, `width W`, `map`, then H rows of W glyphs.
pub fn parse_movingai_map(text: &str) -> Result<MovingAiMap, ParseError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let (mut width, mut height) = (None, None);
    let mut header_line = 0;
    loop {
        let Some((number, line)) = lines.next() else {
            return Err(ParseError::new(
                header_line + 1,
                1,
                "missing the `map` line that ends the header",
            ));
        };
        header_line = number;
        let mut words = line.split_whitespace();
        match (words.next(), words.next()) {
            (Some("map"), None) => break,
            (Some("type"), Some(_)) => {}
            (Some(key @ ("height" | "width")), Some(value)) => {
                let column = line.find(value).unwrap_or(0) + 1;
                let value: u32 = value.parse().ok().filter(|&v| v > 0).ok_or_else(|| {
                    ParseError::new(
                        number,
                        column,
                        format!("`{key}` needs a positive whole number, got `{value}`"),
                    )
                })?;
                if key == "height" {
                    height = Some(value);
                } else {
                    width = Some(value);
                }
            }
            _ => {
                return Err(ParseError::new(
                    number,
                    1,
                    format!(
                        "expected a header line (`type`, `height`, `width` or `map`), got `{line}`"
                    ),
                ));
            }
        }
    }
    let Some(height) = height else {
        return Err(ParseError::new(
            header_line,
            1,
            "the header has no `height` line",
        ));
    };
    let Some(width) = width else {
        return Err(ParseError::new(
            header_line,
            1,
            "the header has no `width` line",
        ));
    };
    if Grid::new(width, 1).is_err() || u64::from(width) * u64::from(height) > 1 << 30 {
        return Err(ParseError::new(
            header_line,
            1,
            format!("a {width}x{height} map is too large"),
        ));
    }
    let mut glyphs = Vec::with_capacity(width as usize * height as usize);
    let mut last_line = header_line;
    for row in 0..height {
        let Some((number, line)) = lines.next() else {
            return Err(ParseError::new(
                last_line + 1,
                1,
                format!("expected {height} rows of the map, found {row}"),
            ));
        };
        last_line = number;
        read_row(number, line, width, |column, c| {
            if MOVINGAI_GLYPHS.contains(c) {
                glyphs.push(c as u8);
                Ok(())
            } else {
                Err(ParseError::new(
                    number,
                    column,
                    format!("unknown glyph `{c}` (expected one of `{MOVINGAI_GLYPHS}`)"),
                ))
            }
        })?;
    }
    if let Some((number, line)) = lines.find(|(_, l)| !l.trim().is_empty()) {
        return Err(ParseError::new(
            number,
            1,
            format!("unexpected text after the {height} rows of the map: `{line}`"),
        ));
    }
    Ok(MovingAiMap {
        width,
        height,
        glyphs,
    })
}

/// Reads one row of exactly `width` glyphs, calling `cell` with each glyph's 1-based column.
fn read_row(
    number: usize,
    line: &str,
    width: u32,
    mut cell: impl FnMut(usize, char) -> Result<(), ParseError>,
) -> Result<(), ParseError> {
    let mut count: u32 = 0;
    for (i, c) in line.chars().enumerate() {
        if i as u32 >= width {
            return Err(ParseError::new(
                number,
                i + 1,
                format!("row is longer than the map's width {width}"),
            ));
        }
        cell(i + 1, c)?;
        count += 1;
    }
    if count < width {
        return Err(ParseError::new(
            number,
            count as usize + 1,
            format!("row has {count} cells, the map's width is {width}"),
        ));
    }
    Ok(())
}

/// One problem of a Moving AI scenario file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub bucket: u32,
    /// The map column as written (a bare name or a relative path).
    pub map: String,
    pub width: u32,
    pub height: u32,
    pub start: Pos,
    pub goal: Pos,
    /// The optimal octile cost (no corner cutting), as the file rounds it.
    pub optimal: f64,
}

/// Parses a Moving AI `.scen`: `version 1`, then one problem per line in 9
/// whitespace-separated fields: bucket, map, width, height, start x, start y, goal x,
/// goal y, optimal length.
pub fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, first)) if first.split_whitespace().next() == Some("version") => {}
        _ => {
            return Err(ParseError::new(
                1,
                1,
                "a scenario file starts with a `version` line",
            ));
        }
    }
    let mut scenarios = Vec::new();
    for (number, line) in lines.filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<(usize, &str)> = line
            .split_whitespace()
            .map(|f| (f.as_ptr() as usize - line.as_ptr() as usize + 1, f))
            .collect();
        if fields.len() != 9 {
            return Err(ParseError::new(
                number,
                1,
                format!("expected 9 fields, found {}", fields.len()),
            ));
        }
        let int = |i: usize| -> Result<u32, ParseError> {
            let (column, field) = fields[i];
            field.parse().map_err(|_| {
                ParseError::new(
                    number,
                    column,
                    format!("expected a whole number, got `{field}`"),
                )
            })
        };
        let (column, field) = fields[8];
        let optimal = field
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                ParseError::new(number, column, format!("expected a length, got `{field}`"))
            })?;
        scenarios.push(Scenario {
            bucket: int(0)?,
            map: fields[1].1.to_owned(),
            width: int(2)?,
            height: int(3)?,
            start: Pos::new(int(4)?, int(5)?),
            goal: Pos::new(int(6)?, int(7)?),
            optimal,
        });
    }
    Ok(scenarios)
}

/// A plain character grid: `O` open, `X` wall, `S` the start, `E` the end (both open).
#[derive(Clone, Debug)]
pub struct PlainGrid {
    pub grid: Grid,
    pub start: Option<Pos>,
    pub goal: Option<Pos>,
}

/// Parses a plain grid: every non-empty line is a row, all rows as wide as the first.
pub fn parse_plain_grid(text: &str) -> Result<PlainGrid, ParseError> {
    let rows: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let Some(&(_, first)) = rows.first() else {
        return Err(ParseError::new(1, 1, "the map is empty"));
    };
    let width = first.chars().count() as u32;
    let height = rows.len() as u32;
    let mut open = Vec::with_capacity(width as usize * rows.len());
    let (mut start, mut goal) = (None, None);
    for (y, &(number, line)) in rows.iter().enumerate() {
        read_row(number, line, width, |column, c| {
            let pos = Pos::new(column as u32 - 1, y as u32);
            let slot = match c {
                'O' | 'X' => None,
                'S' => Some(&mut start),
                'E' => Some(&mut goal),
                _ => {
                    return Err(ParseError::new(
                        number,
                        column,
                        format!(
                            "unknown glyph `{c}` (expected `O` open, `X` wall, `S` start or `E` end)"
                        ),
                    ));
                }
            };
            if let Some(slot) = slot
                && slot.replace(pos).is_some()
            {
                return Err(ParseError::new(
                    number,
                    column,
                    format!("a second `{c}`: a map has at most one"),
                ));
            }
            open.push(c != 'X');
            Ok(())
        })?;
    }
    let grid = Grid::from_fn(width, height, |p| {
        open[p.y as usize * width as usize + p.x as usize].then_some(1.0)
    })
    .map_err(|e| ParseError::new(1, 1, e.to_string()))?;
    Ok(PlainGrid { grid, start, goal })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_movingai_map() {
        let map = parse_movingai_map("type octile\nheight 2\nwidth 3\nmap\n.@T\nGSW\n").unwrap();
        assert_eq!((map.width, map.height), (3, 2));
        assert_eq!(map.glyph(Pos::new(1, 0)), '@');
        let grid = map.grid();
        let passable: Vec<bool> = (0..6)
            .map(|i| grid.is_passable(Pos::new(i % 3, i / 3)))
            .collect();
        assert_eq!(passable, [true, false, false, true, true, false]);
    }

    #[test]
    fn movingai_errors_point_at_the_fault() {
        let err = |text: &str| parse_movingai_map(text).unwrap_err().to_string();
        assert_eq!(err(""), "1:1: missing the `map` line that ends the header");
        assert_eq!(
            err("type octile\nwidth 3\nmap\n"),
            "3:1: the header has no `height` line"
        );
        assert_eq!(
            err("type octile\nheight x\nwidth 3\nmap\n"),
            "2:8: `height` needs a positive whole number, got `x`"
        );
        assert_eq!(
            err("type octile\nheight 2\nwidth 3\nmap\n...\n..\n"),
            "6:3: row has 2 cells, the map's width is 3"
        );
        assert_eq!(
            err("type octile\nheight 2\nwidth 3\nmap\n....\n"),
            "5:4: row is longer than the map's width 3"
        );
        assert_eq!(
            err("type octile\nheight 2\nwidth 3\nmap\n...\n.?.\n"),
            "6:2: unknown glyph `?` (expected one of `.GS@OTW`)"
        );
        assert_eq!(
            err("type octile\nheight 2\nwidth 3\nmap\n...\n"),
            "6:1: expected 2 rows of the map, found 1"
        );
        assert_eq!(
            err("type octile\nheight 1\nwidth 3\nmap\n...\n...\n"),
            "6:1: unexpected text after the 1 rows of the map: `...`"
        );
    }

    #[test]
    fn reads_scenarios_and_their_errors() {
        let text = "version 1\n0\tmaps/dao/arena.map\t49\t49\t1\t11\t1\t12\t1.00000000\n";
        let scen = parse_scenarios(text).unwrap();
        assert_eq!(scen[0].start, Pos::new(1, 11));
        assert_eq!(scen[0].goal, Pos::new(1, 12));
        assert_eq!(scen[0].optimal, 1.0);
        assert_eq!(
            parse_scenarios("").unwrap_err().to_string(),
            "1:1: a scenario file starts with a `version` line"
        );
        let bad = "version 1\n0 a.map 4 4 1 x 1 1 1.0\n";
        assert_eq!(
            parse_scenarios(bad).unwrap_err().to_string(),
            "2:15: expected a whole number, got `x`"
        );
    }

    #[test]
    fn reads_plain_grids_and_their_errors() {
        let plain = parse_plain_grid("OSO\nXXE\n").unwrap();
        assert_eq!(plain.start, Some(Pos::new(1, 0)));
        assert_eq!(plain.goal, Some(Pos::new(2, 1)));
        assert!(!plain.grid.is_passable(Pos::new(0, 1)));
        let err = |text: &str| parse_plain_grid(text).unwrap_err().to_string();
        assert_eq!(err("\n\n"), "1:1: the map is empty");
        assert_eq!(err("OO\nO\n"), "2:2: row has 1 cells, the map's width is 2");
        assert_eq!(
            err("OO\nOq\n"),
            "2:2: unknown glyph `q` (expected `O` open, `X` wall, `S` start or `E` end)"
        );
        assert_eq!(err("SO\nOS\n"), "2:2: a second `S`: a map has at most one");
    }
}
