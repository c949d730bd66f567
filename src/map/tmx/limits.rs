//! What a Tiled map may ask `tiled` to read, checked on the elements `tiled` will read
//! before it reads them: the tile layers and their one `<data>` each, every layer's data
//! decoded (decompression stops past what the layer needs), the grid the map is laid on
//! (a staggered map's diamond grid), the cells of all layers together, and the files
//! tilesets and templates name (no cycle, a bounded chain). Each refusal is at its element.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tilewalk_path::formats::ParseError;

use super::xml::Element;
use super::{MAX_CELLS, normalize};
use crate::assets::AssetFileError;
use crate::convert::{Stagger, StaggerAxis};

/// The most cells all tile layers may hold together: each layer's cells of the level,
/// plus the tiles `tiled` keeps for it (one layer of a 4096 × 4096 map, or eight of a
/// 1448 × 1448 one).
pub(super) const MAX_LAYER_CELLS: u64 = 1 << 25;
/// How long a chain of files may be: the map naming a tileset naming a template naming a
/// tileset, and so on.
pub(super) const MAX_FILE_DEPTH: usize = 16;
/// How far from the origin an infinite map's chunks may lie, in cells.
const MAX_CHUNK_AT: i64 = 1 << 24;
/// The most tiles a chunk may have.
const MAX_CHUNK_TILES: u64 = 1 << 16;
/// `tiled` keeps an infinite layer in blocks of 16 × 16 cells.
const BLOCK: i64 = ::tiled::ChunkData::WIDTH as i64;

/// The child elements of element `index`.
pub(super) fn children(elements: &[Element], index: usize) -> impl Iterator<Item = usize> + '_ {
    let end = elements.get(index).map_or(0, |e| e.end);
    let mut next = index + 1;
    std::iter::from_fn(move || {
        let child = (next < end).then_some(next)?;
        next = elements[child].end;
        Some(child)
    })
}

/// The `<layer>` elements `tiled` reads as tile layers, in its order: the map's, and those
/// of its group layers, depth first (`tiled` skips a `<layer>` anywhere else).
pub(super) fn tile_layers(elements: &[Element]) -> Vec<usize> {
    let mut out = Vec::new();
    if elements.first().is_none_or(|e| e.name != "map") {
        return out;
    }
    let mut stack: Vec<usize> = children(elements, 0).collect();
    stack.reverse();
    while let Some(index) = stack.pop() {
        match elements[index].name.as_str() {
            "layer" => out.push(index),
            "group" => {
                let start = stack.len();
                stack.extend(children(elements, index));
                stack[start..].reverse();
            }
            _ => {}
        }
    }
    out
}

/// A number attribute as `tiled` may read it (a wider type, so nothing `tiled` reads is
/// missed here).
fn number(element: &Element, name: &str) -> Option<i64> {
    element.attr(name).and_then(|v| v.trim().parse().ok())
}

/// Refuses, at its element, what a map would make `tiled` (or tilewalk after it) read or
/// hold beyond the limits: a layer with two `<data>` elements; data that does not decode
/// the way `tiled` decodes it, or holds other than its layer's tiles (compressed data is
/// inflated only up to them); a chunk too large, too far out or short of data; a grid of
/// more than [`MAX_CELLS`] (a staggered map's diamond grid included); tile layers of more
/// than [`MAX_LAYER_CELLS`] together.
pub(super) fn check_map(elements: &[Element]) -> Result<(), ParseError> {
    let Some(map) = elements.first().filter(|e| e.name == "map") else {
        return Ok(());
    };
    let refuse = |at: (usize, usize), message: String| Err(ParseError::new(at.0, at.1, message));
    let (width, height) = (number(map, "width"), number(map, "height"));
    if let (Some(width), Some(height)) = (width, height)
        && (width as u64).saturating_mul(height as u64) > MAX_CELLS
    {
        return refuse(map.at(), "the map is too large (at most 16M tiles)".into());
    }
    let infinite = map.attr("infinite") == Some("1");
    let layers = tile_layers(elements);
    // The tiles `tiled` keeps for the layers, and an infinite map's blocks' bounds.
    let mut kept: u64 = 0;
    let mut blocks: Option<(i64, i64, i64, i64)> = None;
    for &index in &layers {
        let layer = &elements[index];
        let name = layer.attr("name").unwrap_or_default();
        let mut data = children(elements, index).filter(|&c| elements[c].name == "data");
        let Some(data) = data.next().map(|first| (first, data.next())) else {
            continue;
        };
        let data = match data {
            (_, Some(second)) => {
                return refuse(
                    elements[second].at(),
                    format!("layer `{name}` has a second <data> element (a layer has one)"),
                );
            }
            (data, None) => data,
        };
        let located = |(at, message): ((usize, usize), String)| {
            ParseError::new(at.0, at.1, format!("layer `{name}`: {message}"))
        };
        let (encoding, compression) = (
            elements[data].attr("encoding"),
            elements[data].attr("compression"),
        );
        if !infinite {
            // A finite layer's data: as many tiles as the layer has.
            let (Some(columns), Some(rows)) = (number(layer, "width"), number(layer, "height"))
            else {
                continue;
            };
            if columns < 0 || rows < 0 {
                continue;
            }
            let needed = (columns as u64).saturating_mul(rows as u64);
            if needed > MAX_CELLS {
                return refuse(
                    layer.at(),
                    format!("layer `{name}` is {columns}x{rows} tiles (at most 16M)"),
                );
            }
            let found = elements[data]
                .tile_count(encoding, compression, needed)
                .map_err(located)?;
            if found != needed {
                return refuse(
                    elements[data].at(),
                    format!(
                        "layer `{name}`: {columns}x{rows} with {found} tiles of data; the {}x{} map needs {}",
                        width.unwrap_or(0),
                        height.unwrap_or(0),
                        width.unwrap_or(0).saturating_mul(height.unwrap_or(0)),
                    ),
                );
            }
            kept = kept.saturating_add(needed);
            continue;
        }
        for chunk in children(elements, data).filter(|&c| elements[c].name == "chunk") {
            let chunk = &elements[chunk];
            let [Some(x), Some(y), Some(columns), Some(rows)] =
                ["x", "y", "width", "height"].map(|n| number(chunk, n))
            else {
                continue;
            };
            let size = (columns.max(0) as u64).saturating_mul(rows.max(0) as u64);
            if columns < 0
                || rows < 0
                || size > MAX_CHUNK_TILES
                || x.abs() > MAX_CHUNK_AT
                || y.abs() > MAX_CHUNK_AT
            {
                return refuse(
                    chunk.at(),
                    "a chunk more than 65536 tiles large or 16M tiles out".into(),
                );
            }
            let found = chunk
                .tile_count(encoding, compression, size)
                .map_err(located)?;
            if found < size {
                return refuse(
                    chunk.at(),
                    format!(
                        "layer `{name}`: the chunk at {x},{y} is {columns}x{rows} with {found} tiles of data"
                    ),
                );
            }
            if size == 0 {
                continue;
            }
            // The blocks it covers, each kept whole.
            let (x0, y0) = (x.div_euclid(BLOCK), y.div_euclid(BLOCK));
            let (x1, y1) = (
                (x + columns - 1).div_euclid(BLOCK),
                (y + rows - 1).div_euclid(BLOCK),
            );
            kept = kept.saturating_add(((x1 - x0 + 1) * (y1 - y0 + 1) * BLOCK * BLOCK) as u64);
            let (a, b, c, d) = blocks.unwrap_or((x0, y0, x1, y1));
            blocks = Some((a.min(x0), b.min(y0), c.max(x1), d.max(y1)));
        }
    }
    // The level's grid: the map's, or its chunks' bounding box; a staggered map's diamonds.
    let (columns, rows) = match (infinite, blocks) {
        (true, Some((x0, y0, x1, y1))) => ((x1 - x0 + 1) * BLOCK, (y1 - y0 + 1) * BLOCK),
        (true, None) => (0, 0),
        (false, _) => (width.unwrap_or(0).max(0), height.unwrap_or(0).max(0)),
    };
    if (columns as u64).saturating_mul(rows as u64) > MAX_CELLS {
        return refuse(
            map.at(),
            format!("the map's chunks span {columns}x{rows} tiles (at most 16M tiles)"),
        );
    }
    let (mut level_columns, mut level_rows) = (columns as u64, rows as u64);
    if map.attr("orientation") == Some("staggered") {
        let stagger = Stagger {
            axis: match map.attr("staggeraxis") {
                Some("x") => StaggerAxis::Columns,
                _ => StaggerAxis::Rows,
            },
            odd: map.attr("staggerindex") != Some("even"),
            columns: columns as u32,
            rows: rows as u32,
        };
        let (w, h) = stagger.diamond_size();
        (level_columns, level_rows) = (u64::from(w), u64::from(h));
        if level_columns * level_rows > MAX_CELLS {
            return refuse(
                map.at(),
                format!(
                    "the staggered {columns}x{rows} map covers a {w}x{h} grid of diamond cells (at most 16M cells)"
                ),
            );
        }
    }
    let level = level_columns * level_rows;
    let total = (layers.len() as u64)
        .saturating_mul(level)
        .saturating_add(kept);
    if total > MAX_LAYER_CELLS {
        return refuse(
            map.at(),
            format!(
                "the map's {} tile layers of {level_columns}x{level_rows} cells are too many: tilewalk reads at most {MAX_LAYER_CELLS} cells over all layers",
                layers.len()
            ),
        );
    }
    Ok(())
}

/// The files a file names that `tiled` reads: its tilesets (`<tileset source>` in a map
/// or a template) and the templates of its objects; each with the element that names it.
pub(super) fn named_files<'e>(
    file: &Path,
    elements: &'e [Element],
) -> impl Iterator<Item = (PathBuf, &'e Element)> + 'e {
    let folder = file.parent().unwrap_or(Path::new("")).to_path_buf();
    elements.iter().filter_map(move |e| {
        let parent = e.parent.map(|p| elements[p].name.as_str());
        let name = match (e.name.as_str(), parent) {
            ("tileset", Some("map" | "template")) => e.attr("source")?,
            ("object", Some("objectgroup" | "template")) => e.attr("template")?,
            _ => return None,
        };
        Some((normalize(&folder.join(name)), e))
    })
}

/// Refuses a file that names one already being read through it (a cycle: `tiled` would
/// follow it for ever), and a chain of files more than [`MAX_FILE_DEPTH`] long, at the
/// element that names the file too many.
pub(super) fn check_files(files: &[(&Path, &[Element])]) -> Result<(), AssetFileError> {
    let index: HashMap<PathBuf, usize> = files
        .iter()
        .enumerate()
        .map(|(i, (path, _))| (normalize(path), i))
        .collect();
    let edges: Vec<Vec<(usize, &Element)>> = files
        .iter()
        .map(|(path, elements)| {
            named_files(path, elements)
                .filter_map(|(named, element)| Some((*index.get(&named)?, element)))
                .collect()
        })
        .collect();
    // Depth first from the map, the path so far on a stack of (file, next edge).
    let mut done = vec![false; files.len()];
    let mut on_path = vec![false; files.len()];
    let mut path = vec![(0usize, 0usize)];
    on_path[0] = true;
    while let Some(&(file, next)) = path.last() {
        let Some(&(target, element)) = edges[file].get(next) else {
            on_path[file] = false;
            done[file] = true;
            path.pop();
            continue;
        };
        if let Some(last) = path.last_mut() {
            last.1 += 1;
        }
        let chain = || {
            path.iter()
                .map(|&(f, _)| files[f].0.display().to_string())
                .chain(std::iter::once(files[target].0.display().to_string()))
                .collect::<Vec<_>>()
                .join(" → ")
        };
        let refuse = |message: String| {
            Err(AssetFileError::in_file(
                files[file].0,
                ParseError::new(element.line, element.column, message),
            ))
        };
        if on_path[target] {
            return refuse(format!(
                "{} is already being read here ({}): files must not name each other in a cycle",
                files[target].0.display(),
                chain()
            ));
        }
        if done[target] {
            continue;
        }
        if path.len() >= MAX_FILE_DEPTH {
            return refuse(format!(
                "files name each other more than {MAX_FILE_DEPTH} deep ({})",
                chain()
            ));
        }
        on_path[target] = true;
        path.push((target, 0));
    }
    Ok(())
}
