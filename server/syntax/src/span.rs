//! Byte spans and the maps that carry positions from derived text back to the original.

/// A half-open byte range `[start, end)` into some text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }
    pub const fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }
    pub const fn is_empty(self) -> bool {
        self.end <= self.start
    }
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
    /// The slice of `text` this span covers, or "" when it does not fit (never panics).
    pub fn slice(self, text: &str) -> &str {
        text.get(self.start..self.end).unwrap_or("")
    }
}

/// Maps offsets in a derived text (ANSI-stripped, JSON-unescaped, ...) back to the original.
///
/// Stored as sorted segments: derived offset `d` in segment `i` maps to
/// `raw_start[i] + (d - derived_start[i])` when the segment is a verbatim copy, or to
/// `raw_start[i]` when it is not (an escape such as `\n` or `\u001b` collapses to its start).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceMap {
    segments: Vec<Segment>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    derived_start: usize,
    raw_start: usize,
    /// Length in the raw text; equals the derived length when `verbatim`.
    raw_len: usize,
    verbatim: bool,
}

impl SourceMap {
    /// The identity map: derived text == raw text.
    pub fn identity() -> Self {
        Self::default()
    }

    /// Declares that derived bytes starting at `derived_start` copy raw bytes `[raw_start, raw_start+len)`.
    pub fn push_verbatim(&mut self, derived_start: usize, raw_start: usize, len: usize) {
        if len == 0 {
            return;
        }
        if let Some(last) = self.segments.last_mut()
            && last.verbatim
            && last.derived_start + last.raw_len == derived_start
            && last.raw_start + last.raw_len == raw_start
        {
            last.raw_len += len;
            return;
        }
        self.segments.push(Segment {
            derived_start,
            raw_start,
            raw_len: len,
            verbatim: true,
        });
    }

    /// Declares that the derived bytes starting at `derived_start` come from the raw range
    /// `[raw_start, raw_start+raw_len)` without a byte-for-byte correspondence (an escape).
    pub fn push_escape(&mut self, derived_start: usize, raw_start: usize, raw_len: usize) {
        self.segments.push(Segment {
            derived_start,
            raw_start,
            raw_len,
            verbatim: false,
        });
    }

    pub fn is_identity(&self) -> bool {
        self.segments.is_empty()
    }

    /// Maps a derived offset to a raw offset.
    pub fn to_raw(&self, derived: usize) -> usize {
        if self.segments.is_empty() {
            return derived;
        }
        let idx = self
            .segments
            .partition_point(|s| s.derived_start <= derived);
        let Some(seg) = idx.checked_sub(1).and_then(|i| self.segments.get(i)) else {
            return self.segments.first().map_or(derived, |s| s.raw_start);
        };
        let delta = derived - seg.derived_start;
        if seg.verbatim {
            seg.raw_start + delta.min(seg.raw_len)
        } else if delta == 0 {
            seg.raw_start
        } else {
            seg.raw_start + seg.raw_len
        }
    }

    /// Maps a derived span to the raw span that covers it.
    pub fn span_to_raw(&self, span: Span) -> Span {
        let start = self.to_raw(span.start);
        let end = if span.end > span.start {
            self.to_raw_end(span.end)
        } else {
            start
        };
        Span::new(start, end.max(start))
    }

    /// Like [`to_raw`](Self::to_raw) for an exclusive end: the end of the previous byte's raw range.
    fn to_raw_end(&self, derived_end: usize) -> usize {
        if self.segments.is_empty() {
            return derived_end;
        }
        let last = derived_end.saturating_sub(1);
        let idx = self.segments.partition_point(|s| s.derived_start <= last);
        let Some(seg) = idx.checked_sub(1).and_then(|i| self.segments.get(i)) else {
            return self.to_raw(derived_end);
        };
        if seg.verbatim {
            seg.raw_start + (derived_end - seg.derived_start).min(seg.raw_len)
        } else {
            seg.raw_start + seg.raw_len
        }
    }

    /// `outer ∘ self`: maps offsets of a text derived from this map's derived text, through `self`.
    /// Used when ANSI stripping (inner map `self` is applied first) follows JSON unescaping.
    ///
    /// Walks both segment lists once (each verbatim inner segment is split where the outer map
    /// changes segment), so the cost is linear in the number of segments of both maps.
    pub fn then(&self, outer_to_raw: &SourceMap) -> SourceMap {
        if self.segments.is_empty() {
            return outer_to_raw.clone();
        }
        if outer_to_raw.segments.is_empty() {
            return self.clone();
        }
        let outer = &outer_to_raw.segments;
        let mut out = SourceMap::default();
        for seg in &self.segments {
            let (a, b) = (seg.raw_start, seg.raw_start + seg.raw_len);
            if !seg.verbatim || seg.raw_len == 0 {
                let sp = outer_to_raw.span_to_raw(Span::new(a, b));
                out.push_escape(seg.derived_start, sp.start, sp.len());
                continue;
            }
            let mut i = outer
                .partition_point(|s| s.derived_start <= a)
                .saturating_sub(1);
            let mut pos = a;
            while pos < b {
                let Some(o) = outer.get(i) else { break };
                let o_end = outer.get(i + 1).map_or(usize::MAX, |n| n.derived_start);
                let d = seg.derived_start + (pos - a);
                if pos < o.derived_start {
                    // Before the outer map's first segment: nothing maps there but its start.
                    out.push_escape(d, o.raw_start, 0);
                    pos = b.min(o.derived_start);
                    continue;
                }
                if pos >= o_end {
                    i += 1;
                    continue;
                }
                let end = b.min(o_end);
                if o.verbatim {
                    let within = pos - o.derived_start;
                    if within < o.raw_len {
                        let n = end.min(o.derived_start + o.raw_len) - pos;
                        out.push_verbatim(d, o.raw_start + within, n);
                        pos += n;
                    } else {
                        out.push_escape(d, o.raw_start + o.raw_len, 0);
                        pos = end;
                    }
                } else if pos == o.derived_start {
                    out.push_escape(d, o.raw_start, o.raw_len);
                    pos = end;
                } else {
                    out.push_escape(d, o.raw_start + o.raw_len, 0);
                    pos = end;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_and_escape_mapping() {
        // raw: a\nb  (4 bytes: 'a' '\\' 'n' 'b'), derived: "a\nb" (3 bytes)
        let mut m = SourceMap::default();
        m.push_verbatim(0, 0, 1);
        m.push_escape(1, 1, 2);
        m.push_verbatim(2, 3, 1);
        assert_eq!(m.to_raw(0), 0);
        assert_eq!(m.to_raw(1), 1);
        assert_eq!(m.to_raw(2), 3);
        assert_eq!(m.span_to_raw(Span::new(0, 3)), Span::new(0, 4));
        assert_eq!(m.span_to_raw(Span::new(2, 3)), Span::new(3, 4));
    }

    #[test]
    fn composition_matches_applying_both_maps() {
        // raw JSON `"x\u001b[1mab\ncd"`: unescaping gives "x\x1b[1mab\ncd", stripping ANSI "xab\ncd".
        let raw = r#""x\u001b[1mab\ncd""#;
        let mut json = SourceMap::default();
        json.push_verbatim(0, 1, 1); // x
        json.push_escape(1, 2, 6); // \u001b -> ESC
        json.push_verbatim(2, 8, 5); // [1mab
        json.push_escape(7, 13, 2); // \n
        json.push_verbatim(8, 15, 2); // cd
        let mut ansi = SourceMap::default();
        ansi.push_verbatim(0, 0, 1); // x
        ansi.push_verbatim(1, 5, 5); // ab\ncd
        let both = ansi.then(&json);
        let derived = "xab\ncd";
        for (i, want) in [(0, "x"), (1, "a"), (2, "b"), (4, "c"), (5, "d")] {
            let sp = both.span_to_raw(Span::new(i, i + 1));
            assert_eq!(sp.slice(raw), want, "offset {i} of {derived:?}");
        }
        assert_eq!(both.span_to_raw(Span::new(3, 4)).slice(raw), "\\n");
        assert_eq!(both.span_to_raw(Span::new(1, 6)).slice(raw), "ab\\ncd");
        assert_eq!(SourceMap::identity().then(&json), json);
        assert_eq!(json.then(&SourceMap::identity()), json);
    }
}
