//! Passability as bits, 64 cells to a word: the straight scans of jump point search read a
//! row or a column a word at a time (the "block-based" scans of Harabor and Grastien's
//! "Improving Jump Point Search", 2014) instead of a cell at a time.

/// Lines of bits of equal length (the rows, or the columns, of the padded storage); bit `i`
/// of line `l` is set when that cell is passable. Bits past a line's end are clear.
#[derive(Clone, Debug, Default)]
pub(crate) struct BitLines {
    /// Words per line.
    words: usize,
    bits: Vec<u64>,
}

impl BitLines {
    /// `lines` lines of `len` cells, all impassable.
    pub(crate) fn new(lines: usize, len: usize) -> Self {
        let words = len.div_ceil(64);
        Self {
            words,
            bits: vec![0; lines * words],
        }
    }

    pub(crate) fn set(&mut self, line: usize, at: usize, passable: bool) {
        let word = &mut self.bits[line * self.words + at / 64];
        let bit = 1 << (at % 64);
        if passable {
            *word |= bit;
        } else {
            *word &= !bit;
        }
    }

    fn line(&self, line: usize) -> &[u64] {
        &self.bits[line * self.words..][..self.words]
    }

    /// A straight jump along `line` from cell `from` towards higher positions: the first cell
    /// at or after `from` that is the `goal` or has a forced neighbour, or `None` when an
    /// impassable cell comes first. A neighbour on a side line is forced at `p` when it is
    /// passable and the side cell just behind it (at `p - 1`) is not: a path along the side
    /// line could not have reached it first, without cutting a corner.
    ///
    /// `line` must have a neighbour line on each side, and every line must end with an
    /// impassable cell (the padded storage's border), which stops the scan.
    #[inline]
    pub(crate) fn jump_up(&self, line: usize, from: usize, goal: Option<usize>) -> Option<usize> {
        let (cells, left, right) = (self.line(line), self.line(line - 1), self.line(line + 1));
        let mut k = from / 64;
        let mut ahead = !0 << (from % 64);
        loop {
            // Bit p of `behind(side)`: side cell p - 1.
            let behind =
                |side: &[u64]| (side[k] << 1) | k.checked_sub(1).map_or(0, |j| side[j] >> 63);
            let forced = (left[k] & !behind(left)) | (right[k] & !behind(right));
            let stops = (!cells[k] | forced | goal_bit(goal, k)) & ahead;
            if stops != 0 {
                let at = stops.trailing_zeros();
                return (cells[k] >> at & 1 == 1).then_some(k * 64 + at as usize);
            }
            k += 1;
            ahead = !0;
        }
    }

    /// [`Self::jump_up`] towards lower positions (the cell behind is at `p + 1`).
    #[inline]
    pub(crate) fn jump_down(&self, line: usize, from: usize, goal: Option<usize>) -> Option<usize> {
        let (cells, left, right) = (self.line(line), self.line(line - 1), self.line(line + 1));
        let mut k = from / 64;
        let mut ahead = !0 >> (63 - from % 64);
        loop {
            let behind = |side: &[u64]| (side[k] >> 1) | side.get(k + 1).map_or(0, |w| w << 63);
            let forced = (left[k] & !behind(left)) | (right[k] & !behind(right));
            let stops = (!cells[k] | forced | goal_bit(goal, k)) & ahead;
            if stops != 0 {
                let at = 63 - stops.leading_zeros();
                return (cells[k] >> at & 1 == 1).then_some(k * 64 + at as usize);
            }
            k -= 1;
            ahead = !0;
        }
    }
}

/// The goal's bit in word `k` of its line, if it lies there.
#[inline]
fn goal_bit(goal: Option<usize>, k: usize) -> u64 {
    match goal {
        Some(g) if g / 64 == k => 1 << (g % 64),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three lines from strings (`.` passable), each framed by impassable cells.
    fn lines(rows: [&str; 3]) -> BitLines {
        let len = rows[0].len() + 2;
        let mut bits = BitLines::new(3, len);
        for (l, row) in rows.iter().enumerate() {
            for (i, c) in row.chars().enumerate() {
                bits.set(l, i + 1, c == '.');
            }
        }
        bits
    }

    /// The same answers, one cell at a time.
    fn naive(rows: [&str; 3], from: usize, up: bool, goal: Option<usize>) -> Option<usize> {
        let free =
            |l: usize, p: usize| p >= 1 && p <= rows[l].len() && rows[l].as_bytes()[p - 1] == b'.';
        let mut p = from;
        loop {
            if !free(1, p) {
                return None;
            }
            let back = if up { p - 1 } else { p + 1 };
            if Some(p) == goal || (free(0, p) && !free(0, back)) || (free(2, p) && !free(2, back)) {
                return Some(p);
            }
            p = if up { p + 1 } else { p - 1 };
        }
    }

    #[test]
    fn word_scans_match_a_cell_by_cell_scan() {
        // Long enough to cross word boundaries; a deterministic scramble of walls.
        let mut state = 5u64;
        for _ in 0..300 {
            let mut row = || -> String {
                (0..150)
                    .map(|_| {
                        state = state
                            .wrapping_mul(6_364_136_223_846_793_005)
                            .wrapping_add(1);
                        if (state >> 33).is_multiple_of(23) {
                            'X'
                        } else {
                            '.'
                        }
                    })
                    .collect()
            };
            let rows = [row(), row(), row()];
            let rows = [rows[0].as_str(), rows[1].as_str(), rows[2].as_str()];
            let bits = lines(rows);
            let pick = (state >> 20) as usize;
            let goal = pick.is_multiple_of(3).then_some(1 + pick % 150);
            for from in 1..=150 {
                assert_eq!(
                    bits.jump_up(1, from, goal),
                    naive(rows, from, true, goal),
                    "up from {from}"
                );
                assert_eq!(
                    bits.jump_down(1, from, goal),
                    naive(rows, from, false, goal),
                    "down from {from}"
                );
            }
        }
    }

    #[test]
    fn open_lines_run_to_the_border() {
        // Scans start beside the cell they leave, so never next to the border behind them.
        let bits = lines(["..........", "..........", ".........."]);
        assert_eq!(bits.jump_up(1, 2, None), None);
        assert_eq!(bits.jump_up(1, 2, Some(7)), Some(7));
        assert_eq!(bits.jump_down(1, 9, Some(3)), Some(3));
        // A wall ending beside the line forces the cell past its end, scanning away from it.
        let bits = lines(["XXXX......", "..........", ".........."]);
        assert_eq!(bits.jump_up(1, 2, None), Some(5));
        assert_eq!(bits.jump_down(1, 9, None), None);
    }
}
