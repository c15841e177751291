//! What an analysis may look at besides the text: the environment it may read, the model known
//! from elsewhere, the codes turned off. A leaf: every module may name it.

/// What the analysis may look at besides the text.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// When false (`--no-env`), nothing beyond the text is read from disk.
    pub use_env: bool,
    /// `--python EXE`: the interpreter whose environment to read.
    pub python: Option<std::path::PathBuf>,
    /// `--site-packages DIR` (repeatable): explicit site-packages directories.
    pub site_packages: Vec<std::path::PathBuf>,
    /// Extra directories searched for libraries (like `LD_LIBRARY_PATH`).
    pub library_paths: Vec<std::path::PathBuf>,
    /// A model id known from elsewhere (notebook cell sources synced by an editor).
    pub model_hint: Option<String>,
    /// Codes the user turned off.
    pub disabled_codes: Vec<crate::Code>,
}
