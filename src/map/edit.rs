//! Painting a map's terrain and writing the painted glyphs back into its file, leaving every
//! other byte of the file (comments, spacing, line endings, the units section) as it was.

use std::path::Path as FsPath;

use tilewalk_path::Pos;
use tilewalk_path::formats::is_movingai_map;

use super::MapAsset;

/// Why a map cannot be painted or saved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error(
        "a Tiled or LDtk map's cells take the terrain of their tile: give a tile kind a terrain instead (P)"
    )]
    Tiled,
    #[error("{0} is outside the map")]
    Outside(Pos),
    #[error(
        "a Moving AI map is benchmark data and is not saved: its painted terrain lives until the game closes"
    )]
    MovingAi,
    #[error("the file no longer has this map's {0} terrain rows (was it edited outside the game?)")]
    FileChanged(String),
}

impl MapAsset {
    /// Paints `pos` with `glyph`; returns the glyph it had (the same glyph when nothing
    /// changed). Whether the glyph is a terrain is checked when the level is built.
    pub fn paint(&mut self, pos: Pos, glyph: char) -> Result<char, EditError> {
        self.paintable(pos)?;
        let cell = &mut self.glyphs[pos.y as usize * self.width as usize + pos.x as usize];
        Ok(std::mem::replace(cell, glyph))
    }

    /// Whether [`Self::paint`] can paint `pos`.
    pub fn paintable(&self, pos: Pos) -> Result<(), EditError> {
        if self.tiles.is_some() {
            return Err(EditError::Tiled);
        }
        if pos.x >= self.width || pos.y >= self.height {
            return Err(EditError::Outside(pos));
        }
        Ok(())
    }
}

/// `text`, a tilewalk map file, with its terrain rows' glyphs replaced by `painted`'s: every
/// other byte stays. Fails when `text` is not (or no longer) a map of `painted`'s size.
pub fn repaint(text: &str, painted: &MapAsset) -> Result<String, EditError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if is_movingai_map(body) {
        return Err(EditError::MovingAi);
    }
    if painted.tiles.is_some() {
        return Err(EditError::Tiled);
    }
    let size = format!("{}x{}", painted.width, painted.height);
    let file =
        MapAsset::parse(body).map_err(|e| EditError::FileChanged(format!("{size} ({e})")))?;
    if (file.width, file.height) != (painted.width, painted.height) {
        return Err(EditError::FileChanged(size));
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..text.len() - body.len()]);
    let mut rows = file.rows.iter().enumerate().peekable();
    for (i, line) in body.split_inclusive('\n').enumerate() {
        let Some(&(y, &(_, column))) = rows
            .peek()
            .filter(|(_, (number, _))| *number as usize == i + 1)
        else {
            out.push_str(line);
            continue;
        };
        rows.next();
        // The row's glyphs start after its indent (`column` is 1-based, in bytes).
        let (indent, rest) = line.split_at(column as usize - 1);
        let glyphs_end = rest
            .char_indices()
            .nth(painted.width as usize)
            .map_or(rest.len(), |(at, _)| at);
        let start = y * painted.width as usize;
        out.push_str(indent);
        out.extend(&painted.glyphs[start..start + painted.width as usize]);
        out.push_str(&rest[glyphs_end..]);
    }
    Ok(out)
}

/// Writes `contents` to `file` atomically: into a temporary file beside it, then renamed
/// over it, so a crash or a watcher reading mid-write never sees half a map.
pub fn write_atomically(file: &FsPath, contents: &str) -> std::io::Result<()> {
    let name = file.file_name().unwrap_or_default().to_string_lossy();
    let temporary = file.with_file_name(format!(".{name}.tilewalk-saving"));
    std::fs::write(&temporary, contents)?;
    std::fs::rename(&temporary, file).inspect_err(|_| {
        let _ = std::fs::remove_file(&temporary);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_changes_only_the_painted_glyphs_of_the_file() {
        let text = "// Field\n[terrain]\n\t..~~\n\t,,==   \n\n[units]\n// name team class x,y\nknight blue foot 0,0\n";
        let mut map = MapAsset::parse(text).unwrap();
        assert_eq!(map.paint(Pos::new(2, 0), '#'), Ok('~'));
        assert_eq!(map.paint(Pos::new(0, 1), '.'), Ok(','));
        assert_eq!(
            map.paint(Pos::new(4, 0), '#'),
            Err(EditError::Outside(Pos::new(4, 0)))
        );
        let saved = repaint(text, &map).unwrap();
        assert_eq!(
            saved,
            "// Field\n[terrain]\n\t..#~\n\t.,==   \n\n[units]\n// name team class x,y\nknight blue foot 0,0\n"
        );
        assert_eq!(MapAsset::parse(&saved).unwrap(), map);
    }

    #[test]
    fn line_endings_byte_order_marks_and_wide_glyphs_are_kept() {
        let text = "\u{feff}[terrain]\r\n..é.\r\n....\r\n";
        let mut map = MapAsset::parse(text).unwrap();
        map.paint(Pos::new(3, 0), '~').unwrap();
        map.paint(Pos::new(2, 0), '.').unwrap();
        assert_eq!(
            repaint(text, &map).unwrap(),
            "\u{feff}[terrain]\r\n...~\r\n....\r\n"
        );
    }

    #[test]
    fn a_file_that_no_longer_fits_or_is_not_ours_is_refused() {
        let map = MapAsset::parse("board: square-4\n[terrain]\n..~~\n,,==\n").unwrap();
        assert!(matches!(
            repaint("[terrain]\n...\n", &map),
            Err(EditError::FileChanged(_))
        ));
        assert!(matches!(
            repaint("[terrain]\n..\n.\n", &map),
            Err(EditError::FileChanged(_))
        ));
        let movingai = "type octile\nheight 1\nwidth 2\nmap\n..\n";
        let mut benchmark = MapAsset::parse(movingai).unwrap();
        benchmark.paint(Pos::new(0, 0), '@').unwrap();
        assert_eq!(repaint(movingai, &benchmark), Err(EditError::MovingAi));
    }

    #[test]
    fn saving_replaces_the_file_in_one_step() {
        let dir = std::env::temp_dir().join(format!("tilewalk-save-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("field.map");
        std::fs::write(&file, "old").unwrap();
        write_atomically(&file, "[terrain]\n.\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "[terrain]\n.\n");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file left behind");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
