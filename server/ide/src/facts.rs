//! On-disk facts about one library, as the environment adapter hands them to the codes. A leaf.

use crate::diagnostic::SymbolReport;

/// On-disk facts about one library named by the text.
#[derive(Debug, Clone, Default)]
pub struct LibraryFacts {
    /// Owning distribution (normalized name) and version.
    pub owner: Option<(String, String)>,
    /// Every unresolved symbol with its status, and the nearest export.
    pub symbols: Vec<SymbolReport>,
    pub evidence: Vec<String>,
    /// Some missing symbols belong to the package itself (a partial build).
    pub own_symbols_missing: bool,
    /// How many torch symbols the library imports.
    pub torch_symbol_count: usize,
    /// The torch the library was built for, from its metadata (`torch==2.5.1` pins, wheel labels).
    pub built_for_torch: Option<String>,
    /// Needed libraries (sonames) the loader would not find, in the order it asks for them.
    pub missing_needed: Vec<String>,
}
