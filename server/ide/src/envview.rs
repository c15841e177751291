//! The Python environment as the diagnosis sees it: an adapter over `abidoc-env`.

use crate::analysis::Context;
use crate::evidence::LibraryFacts;

pub struct EnvView {
    _private: (),
}

impl EnvView {
    pub fn open(ctx: &Context, paths_in_text: &[&str]) -> Option<EnvView> {
        let _ = (ctx, paths_in_text);
        None
    }
    pub fn owner_of(&self, path: &str) -> Option<(String, String)> {
        let _ = path;
        None
    }
    pub fn library_facts(&self, path: &str) -> Option<LibraryFacts> {
        let _ = path;
        None
    }
    pub fn torch_version(&self) -> Option<String> {
        None
    }
    pub fn torch_cxx11_abi(&self) -> Option<bool> {
        None
    }
    pub fn python_tag(&self) -> Option<String> {
        None
    }
    pub fn installed_version(&self, pkg: &str) -> Option<String> {
        let _ = pkg;
        None
    }
    pub fn required_by(&self, pkg: &str) -> Vec<String> {
        let _ = pkg;
        Vec::new()
    }
    pub fn libstdcxx_with(&self, version: &str) -> Option<String> {
        let _ = version;
        None
    }
    pub fn find_library_dir(&self, lib: &str) -> Option<String> {
        let _ = lib;
        None
    }
}

impl EnvView {
    /// Fills in who exports `symbol` in this environment, or the nearest variants.
    pub fn locate_symbol(&self, symbol: &str, e: &mut crate::explain::Explanation) {
        let _ = (symbol, e);
    }
}

pub fn scan(
    ctx: &Context,
    options: &crate::scan::ScanOptions,
) -> Result<crate::scan::ScanOutcome, String> {
    let _ = (ctx, options);
    Err("environment scan unavailable".into())
}
