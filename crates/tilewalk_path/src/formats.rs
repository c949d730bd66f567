//! Text formats: Moving AI benchmark maps (`.map`) and scenarios (`.scen`), and plain
//! character grids. Parsers return a [`ParseError`] with a 1-based line and column; the
//! caller adds the file name. They take any text without panicking: a UTF-8 byte order mark
//! at the start is skipped, and maps are capped at [`MAX_CELLS`] cells, checked before
//! anything is allocated for them.

use crate::grid::Grid;
use crate::pos::Pos;

/// The most cells a map read from text may have (2^24, the same cap the game puts on its
/// own maps). A header may claim any size; memory grows only with the rows actually read.
pub const MAX_CELLS: u64 = 1 << 24;

/// The text without a leading UTF-8 byte order mark (which some editors write).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// A grid of unit-cost cells, `open` saying which are passable, for a map of at most
/// [`MAX_CELLS`] cells.
fn unit_grid(width: u32, height: u32, open: impl Fn(Pos) -> bool) -> Grid {
    // Cannot fail: with `w × h <= 2^24` the padded storage has
    // `(w + 2)(h + 2) = w·h + 2(w + h) + 4 <= 2^24 + 2(2^24 + 1) + 4 < 2^31` cells (the
    // grid's limit, since `w + h <= w·h + 1`), and every cost is 1, inside
    // `[MIN_COST, MAX_COST]`.
    Grid::from_fn(width, height, |p| open(p).then_some(1.0))
        .expect("a map of at most MAX_CELLS cells with unit costs is a valid grid")
}

/// A parse failure at `line:column` (both 1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct ParseError {
    /// The line, counted from 1.
    pub line: usize,
    /// The column, counted from 1.
    pub column: usize,
    /// What is wrong there.
    pub message: String,
}

impl ParseError {
    /// The failure `message` at `line:column` (both 1-based).
    pub fn new(line: usize, column: usize, message: impl Into<String>) -> Self {
        Self {
            line,
            column,
            message: message.into(),
        }
    }
}

/// A Moving AI map: its glyphs row by row. `.` `G` `S` are passable; `@` `O` `T` `W` are not.
/// Only [`parse_movingai_map`] makes one, so it has at most [`MAX_CELLS`] cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovingAiMap {
    width: u32,
    height: u32,
    glyphs: Vec<u8>,
}

/// The glyphs a Moving AI map may contain.
pub const MOVINGAI_GLYPHS: &str = ".GS@OTW";

impl MovingAiMap {
    /// The number of columns.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The number of rows.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The glyph at `pos` (which must be inside the map).
    pub fn glyph(&self, pos: Pos) -> char {
        char::from(self.glyphs[pos.y as usize * self.width as usize + pos.x as usize])
    }

    /// The benchmark grid: every passable cell costs 1.
    pub fn grid(&self) -> Grid {
        unit_grid(self.width, self.height, |p| {
            matches!(self.glyph(p), '.' | 'G' | 'S')
        })
    }
}

/// How many lines from the top [`is_movingai_map`] looks at for the header.
const HEADER_LINES: usize = 6;

/// Whether `text` looks like a Moving AI map: its first line is a `type` header, or, when
/// that line is damaged, its first few lines hold the `height N`, `width N` and `map` lines
/// (so that [`parse_movingai_map`] can say what is wrong with the first line).
pub fn is_movingai_map(text: &str) -> bool {
    let text = without_bom(text);
    if text
        .lines()
        .next()
        .is_some_and(|l| l.trim_start().starts_with("type "))
    {
        return true;
    }
    let header: Vec<Vec<&str>> = text
        .lines()
        .take(HEADER_LINES)
        .map(|l| l.split_whitespace().collect())
        .collect();
    let has = |key: &str, words: usize| {
        header
            .iter()
            .any(|w| w.len() == words && w[0] == key && (words == 1 || w[1].parse::<u64>().is_ok()))
    };
    has("height", 2) && has("width", 2) && has("map", 1)
}

/// Parses a Moving AI `.map`: `type octile`, `height H`, `width W`, `map`, then H rows of W
/// glyphs, at most [`MAX_CELLS`] in all.
pub fn parse_movingai_map(text: &str) -> Result<MovingAiMap, ParseError> {
    let mut lines = without_bom(text)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
    let first = lines.next().map_or("", |(_, line)| line);
    if first.split_whitespace().ne(["type", "octile"]) {
        return Err(ParseError::new(
            1,
            1,
            format!("expected the header `type octile`, got `{first}`"),
        ));
    }
    // Each value with where it was written: `(value, line, column)`.
    let (mut width, mut height) = (None, None);
    let mut header_line = 1;
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
            (Some(key @ ("height" | "width")), Some(value)) => {
                let column = line.find(value).unwrap_or(0) + 1;
                let value: u32 = value.parse().ok().filter(|&v| v > 0).ok_or_else(|| {
                    ParseError::new(
                        number,
                        column,
                        format!("`{key}` needs a positive whole number, got `{value}`"),
                    )
                })?;
                let slot = if key == "height" {
                    &mut height
                } else {
                    &mut width
                };
                *slot = Some((value, number, column));
            }
            _ => {
                return Err(ParseError::new(
                    number,
                    1,
                    format!("expected a header line (`height`, `width` or `map`), got `{line}`"),
                ));
            }
        }
    }
    let Some((height, height_line, height_column)) = height else {
        return Err(ParseError::new(
            header_line,
            1,
            "the header has no `height` line",
        ));
    };
    let Some((width, width_line, width_column)) = width else {
        return Err(ParseError::new(
            header_line,
            1,
            "the header has no `width` line",
        ));
    };
    if u64::from(width) * u64::from(height) > MAX_CELLS {
        // Point at whichever of the two came last: it made the map too large.
        let (line, column) = (height_line, height_column).max((width_line, width_column));
        return Err(ParseError::new(
            line,
            column,
            format!("a {width}x{height} map is too large (at most {MAX_CELLS} cells)"),
        ));
    }
    // Grows with the rows actually read, never from the header's claim.
    let mut glyphs = Vec::new();
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
    /// The bucket the file puts the problem in (problems of similar optimal length share
    /// one).
    pub bucket: u32,
    /// The map column as written (a bare name or a relative path).
    pub map: String,
    /// The map's width, as the file states it.
    pub width: u32,
    /// The map's height, as the file states it.
    pub height: u32,
    /// The start cell.
    pub start: Pos,
    /// The goal cell.
    pub goal: Pos,
    /// The optimal octile cost (no corner cutting), as the file rounds it.
    pub optimal: f64,
}

/// Parses a Moving AI `.scen`: `version 1`, then one problem per line in 9
/// whitespace-separated fields: bucket, map, width, height, start x, start y, goal x,
/// goal y, optimal length.
pub fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, ParseError> {
    let mut lines = without_bom(text)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l));
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
    /// The map: `O`, `S` and `E` cells cost 1, `X` cells are impassable.
    pub grid: Grid,
    /// The `S` cell, if the map has one.
    pub start: Option<Pos>,
    /// The `E` cell, if the map has one.
    pub goal: Option<Pos>,
}

/// Parses a plain grid: every non-empty line is a row, all rows as wide as the first, at
/// most [`MAX_CELLS`] cells in all.
pub fn parse_plain_grid(text: &str) -> Result<PlainGrid, ParseError> {
    let rows: Vec<(usize, &str)> = without_bom(text)
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty())
        .collect();
    let Some(&(_, first)) = rows.first() else {
        return Err(ParseError::new(1, 1, "the map is empty"));
    };
    let width = first.chars().count() as u64;
    // The first row past the cap, if any (the first row holds at least one cell).
    let rows_allowed = usize::try_from(MAX_CELLS / width).unwrap_or(usize::MAX);
    if let Some(&(number, _)) = rows.get(rows_allowed) {
        return Err(ParseError::new(
            number,
            1,
            format!("the map is too large (at most {MAX_CELLS} cells)"),
        ));
    }
    // Within the cap, both fit in 32 bits.
    let (width, height) = (width as u32, rows.len() as u32);
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
    let grid = unit_grid(width, height, |p| {
        open[p.y as usize * width as usize + p.x as usize]
    });
    Ok(PlainGrid { grid, start, goal })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_movingai_map() {
        let map = parse_movingai_map("type octile\nheight 2\nwidth 3\nmap\n.@T\nGSW\n").unwrap();
        assert_eq!((map.width(), map.height()), (3, 2));
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
        assert_eq!(err(""), "1:1: expected the header `type octile`, got ``");
        assert_eq!(
            err("type octile\nheight 2\nwidth 3\n"),
            "4:1: missing the `map` line that ends the header"
        );
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
    fn headers_that_lie_about_the_size_are_refused_before_any_allocation() {
        let err = |text: &str| parse_movingai_map(text).unwrap_err().to_string();
        // 1 × 715,827,881: once within the old cell limit, then past the grid's.
        assert_eq!(
            err("type octile\nheight 715827881\nwidth 1\nmap\n.\n"),
            "3:7: a 1x715827881 map is too large (at most 16777216 cells)"
        );
        assert_eq!(
            err("type octile\nwidth 100000\nheight 100000\nmap\n"),
            "3:8: a 100000x100000 map is too large (at most 16777216 cells)"
        );
        // Exactly the cap is allowed; the rows the text lacks are what is wrong.
        assert_eq!(
            err("type octile\nheight 16777216\nwidth 1\nmap\n.\n.\n"),
            "7:1: expected 16777216 rows of the map, found 2"
        );
        assert_eq!(
            err("type octile\nheight 99999999999\nwidth 1\nmap\n"),
            "2:8: `height` needs a positive whole number, got `99999999999`"
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let map = parse_movingai_map("\u{feff}type octile\nheight 1\nwidth 2\nmap\n.@\n").unwrap();
        assert!(map.grid().is_passable(Pos::new(0, 0)));
        assert!(is_movingai_map("\u{feff}type octile\n"));
        let scen = "\u{feff}version 1\n0\ta.map\t4\t4\t1\t2\t3\t2\t2.0\n";
        assert_eq!(parse_scenarios(scen).unwrap()[0].goal, Pos::new(3, 2));
        let plain = parse_plain_grid("\u{feff}SO\nXE\n").unwrap();
        assert_eq!(plain.start, Some(Pos::new(0, 0)));
        assert_eq!(
            parse_plain_grid("\u{feff}SO\nXq\n")
                .unwrap_err()
                .to_string(),
            "2:2: unknown glyph `q` (expected `O` open, `X` wall, `S` start or `E` end)"
        );
    }

    #[test]
    fn a_damaged_first_line_is_reported_as_such() {
        for first in [
            "tpye octile",
            "typ octile",
            "Type octile",
            "type",
            "type octagon",
        ] {
            let text = format!("{first}\nheight 1\nwidth 2\nmap\n..\n");
            assert!(is_movingai_map(&text), "{first}");
            assert_eq!(
                parse_movingai_map(&text).unwrap_err().to_string(),
                format!("1:1: expected the header `type octile`, got `{first}`")
            );
        }
        // A plain grid is not mistaken for one.
        assert!(!is_movingai_map("OOS\nXXE\n"));
        assert!(!is_movingai_map("height 2\nwidth x\nmap\n"));
    }

    #[test]
    fn plain_grids_are_capped_too() {
        let wide = "O".repeat(MAX_CELLS as usize + 1);
        assert_eq!(
            parse_plain_grid(&wide).unwrap_err().to_string(),
            "1:1: the map is too large (at most 16777216 cells)"
        );
        let rows = "OO\n".repeat(MAX_CELLS as usize / 2 + 1);
        assert_eq!(
            parse_plain_grid(&rows).unwrap_err().to_string(),
            format!(
                "{}:1: the map is too large (at most 16777216 cells)",
                MAX_CELLS / 2 + 1
            )
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
