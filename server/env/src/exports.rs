//! The exports of the libraries every check binds to: the global scope of the modelled process
//! after `import torch` (torch, libstdc++, the interpreter …), keyed by qualified name once per
//! scan (or per [`SharedExports`]) and shared by every check, so a scan of hundreds of
//! extensions reads libtorch's ~250k exports once instead of once per extension. A check then
//! classifies its missing symbols against a small index holding only the candidates for those
//! names.

use crate::environment::Environment;
use crate::facts::LibFacts;
use std::sync::{Arc, OnceLock};

/// One global-scope object's exports keyed by qualified name. Exact names need no table of their
/// own: `LibFacts::first_export` finds them.
#[derive(Debug)]
struct Keyed {
    facts: Arc<LibFacts>,
    /// (qualified-name key, position in `facts.exports`), sorted; one row per distinct name.
    by_key: Vec<(u64, u32)>,
}

impl Keyed {
    fn new(facts: Arc<LibFacts>) -> Keyed {
        let mut by_key = Vec::new();
        facts.scan_names(|i, name| {
            if let (Some(key), Ok(i)) = (abidoc_elf::qualified_key(name), u32::try_from(i)) {
                by_key.push((key, i));
            }
        });
        by_key.sort_unstable();
        by_key.shrink_to_fit();
        Keyed { facts, by_key }
    }

    /// The same name, and every name with the same qualified-name key (`key`, which is
    /// `abidoc_elf::qualified_key(name)`, computed once by callers asking every library), sorted.
    fn candidates(&self, name: &str, key: Option<u64>) -> Vec<&str> {
        let facts = &self.facts;
        let mut v: Vec<&str> = Vec::new();
        if let Some(n) = facts.first_export(name).and_then(|i| facts.export_name(i)) {
            v.push(n);
        }
        if let Some(key) = key {
            let from = self.by_key.partition_point(|(k, _)| *k < key);
            v.extend(
                self.by_key[from..]
                    .iter()
                    .take_while(|(k, _)| *k == key)
                    .filter_map(|(_, i)| facts.export_name(*i as usize)),
            );
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

#[derive(Debug)]
pub struct SharedExports<'e> {
    env: &'e Environment,
    /// One per global-scope object, in scope order; each built on first use. Sized on first
    /// use too: a scan served from its cache never builds the process model.
    global: OnceLock<Vec<OnceLock<Keyed>>>,
}

impl<'e> SharedExports<'e> {
    pub fn new(env: &'e Environment) -> SharedExports<'e> {
        SharedExports {
            env,
            global: OnceLock::new(),
        }
    }

    fn slots(&self) -> &[OnceLock<Keyed>] {
        self.global.get_or_init(|| {
            let n = self.env.process().global_scope.len();
            (0..n).map(|_| OnceLock::new()).collect()
        })
    }

    fn keyed(&self, k: usize) -> Option<&Keyed> {
        let pm = self.env.process();
        let obj = pm.objects.get(*pm.global_scope.get(k)?)?;
        let slot = self.slots().get(k)?;
        Some(slot.get_or_init(|| Keyed::new(obj.facts.clone())))
    }

    /// Whether every global-scope object is keyed.
    pub fn prepared(&self) -> bool {
        self.global
            .get()
            .is_some_and(|v| v.iter().all(|s| s.get().is_some()))
    }

    /// Keys every global-scope object in parallel, largest first so the biggest (libtorch_cpu,
    /// libtorch_cuda) start at once and the small ones fill in around them. Call it from outside
    /// the rayon pool (a worker blocked on a `OnceLock` cannot help).
    pub fn prepare(&self) {
        use rayon::prelude::*;
        let pm = self.env.process();
        let mut order: Vec<(usize, usize)> = pm
            .global_scope
            .iter()
            .enumerate()
            .map(|(k, &o)| (k, pm.objects.get(o).map_or(0, |o| o.facts.export_count())))
            .collect();
        order.sort_by_key(|o| std::cmp::Reverse(o.1));
        order.par_iter().with_max_len(1).for_each(|&(k, _)| {
            let _ = self.keyed(k);
        });
    }

    pub fn env(&self) -> &'e Environment {
        self.env
    }

    /// Export names of the `k`-th object of the global scope that `classify` could look at for
    /// `name`: the same name, and every export with the same qualified-name key, sorted.
    pub fn candidates(&self, k: usize, name: &str) -> Vec<&str> {
        self.candidates_keyed(k, name, abidoc_elf::qualified_key(name))
    }

    /// [`SharedExports::candidates`] with the name's `abidoc_elf::qualified_key` already
    /// computed: a check asks every global-scope object about each missing name.
    pub fn candidates_keyed(&self, k: usize, name: &str, key: Option<u64>) -> Vec<&str> {
        self.keyed(k)
            .map(|x| x.candidates(name, key))
            .unwrap_or_default()
    }
}

/// [`SharedExports::candidates`] for a library outside the global scope, through its index.
pub fn candidates<'a>(ix: &abidoc_elf::ExportIndex<'a>, name: &str) -> Vec<&'a str> {
    let mut v: Vec<&'a str> = ix.lookup(name).map(|e| e.name).collect();
    v.extend(ix.same_qualified_name(name).iter().map(|e| e.name));
    v.sort_unstable();
    v.dedup();
    v
}
