//! Byte offset ↔ (line, UTF-16 column) conversion, as LSP and the JSON contract count positions.

/// Zero-based line and UTF-16 column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

#[derive(Debug, Clone)]
pub struct LineIndex {
    /// Byte offset where each line starts; `line_starts[0] == 0`.
    line_starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 40 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self { line_starts }
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Start byte offset of `line`, if the text has it.
    pub fn line_start(&self, line: u32) -> Option<usize> {
        self.line_starts.get(line as usize).copied()
    }

    /// Converts a byte offset (clamped to the text) to line and UTF-16 column.
    pub fn line_col(&self, text: &str, offset: usize) -> LineCol {
        let offset = offset.min(text.len());
        let line = self
            .line_starts
            .partition_point(|&s| s <= offset)
            .saturating_sub(1);
        let start = self.line_starts.get(line).copied().unwrap_or(0);
        let mut end = offset;
        while end > start && !text.is_char_boundary(end) {
            end -= 1;
        }
        let col: usize = text
            .get(start..end)
            .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        LineCol {
            line: line as u32,
            col: col as u32,
        }
    }

    /// Converts a line and UTF-16 column back to a byte offset (clamped to the line).
    pub fn offset(&self, text: &str, pos: LineCol) -> usize {
        let Some(start) = self.line_start(pos.line) else {
            return text.len();
        };
        let line_end = self
            .line_starts
            .get(pos.line as usize + 1)
            .copied()
            .unwrap_or(text.len());
        let line = text.get(start..line_end).unwrap_or("");
        let mut units = 0u32;
        for (i, ch) in line.char_indices() {
            if units >= pos.col || ch == '\n' {
                return start + i;
            }
            units += ch.len_utf16() as u32;
        }
        line_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "ab\nçé𝄞x\n";
        let idx = LineIndex::new(text);
        let x = text.find('x').unwrap();
        let lc = idx.line_col(text, x);
        assert_eq!(lc, LineCol { line: 1, col: 4 });
        assert_eq!(idx.offset(text, lc), x);
        assert_eq!(idx.line_col(text, 10_000), LineCol { line: 2, col: 0 });
    }
}
