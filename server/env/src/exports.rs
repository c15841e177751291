//! The export indexes of the libraries every check binds to: the global scope of the modelled
//! process after `import torch` (torch, libstdc++, the interpreter …). Built once per scan (or
//! per [`SharedExports`]) and shared by every check, so a scan of hundreds of extensions reads
//! libtorch's ~250k exports, and keys them by qualified name, once instead of once per
//! extension. A check then classifies its missing symbols against a small index holding only
//! the candidates for those names.

use crate::environment::Environment;
use abidoc_elf::ExportIndex;
use std::sync::OnceLock;

#[derive(Debug)]
pub struct SharedExports<'e> {
    env: &'e Environment,
    /// One per global-scope object, in scope order; each built on first use. Sized on first
    /// use too: a scan served from its cache never builds the process model.
    global: OnceLock<Vec<OnceLock<ExportIndex<'e>>>>,
}

impl<'e> SharedExports<'e> {
    pub fn new(env: &'e Environment) -> SharedExports<'e> {
        SharedExports {
            env,
            global: OnceLock::new(),
        }
    }

    fn slots(&self) -> &[OnceLock<ExportIndex<'e>>] {
        self.global.get_or_init(|| {
            let n = self.env.process().global_scope.len();
            (0..n).map(|_| OnceLock::new()).collect()
        })
    }

    pub fn env(&self) -> &'e Environment {
        self.env
    }

    /// The exports of the `k`-th object of the global scope (library names left empty: the
    /// caller names libraries when it copies candidates out).
    pub fn global(&self, k: usize) -> Option<&ExportIndex<'e>> {
        let pm = self.env.process();
        let obj = pm.objects.get(*pm.global_scope.get(k)?)?;
        let slot = self.slots().get(k)?;
        Some(slot.get_or_init(|| {
            let mut ix = ExportIndex::new();
            ix.add_names("", obj.facts.export_names());
            ix
        }))
    }
}

/// Export names of `ix` that `classify` could look at for `name`: the same name, and every
/// export with the same qualified-name key, in the index's (sorted) order.
pub fn candidates<'a>(ix: &ExportIndex<'a>, name: &str) -> Vec<&'a str> {
    let mut v: Vec<&'a str> = ix.lookup(name).map(|e| e.name).collect();
    v.extend(ix.same_qualified_name(name).iter().map(|e| e.name));
    v.sort_unstable();
    v.dedup();
    v
}
