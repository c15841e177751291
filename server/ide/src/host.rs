//! The front door of the analysis: [`AnalysisHost`] owns what is kept between requests (the
//! environments opened, torch's export index per environment, what was read about this machine)
//! and answers every question a front end asks, as plain data.

use crate::analysis::Hover;
use crate::context::Context;
use crate::diagnostic::{Diagnostic, Explanation};
use crate::envview::Environments;
use crate::memo::{CellSlot, DocumentMemo};
use crate::scan::{ScanOptions, ScanOutcome};
use crate::verify::{VerifyOutcome, VerifyRequest};

/// One analysis session: a CLI run, a language server, a test. Hosts share nothing; a host is
/// `Sync`, so a server's worker threads ask one host at once.
#[derive(Default)]
pub struct AnalysisHost {
    envs: Environments,
}

impl std::fmt::Debug for AnalysisHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AnalysisHost").finish_non_exhaustive()
    }
}

impl AnalysisHost {
    pub fn new() -> Self {
        Self::default()
    }

    /// A host that reads this machine (outside the Python environment) through `machine`: a
    /// [`crate::DescribedMachine`] in tests, so a fix chosen by what a machine has is tested
    /// without that machine.
    pub fn with_machine(machine: std::sync::Arc<dyn crate::Machine>) -> Self {
        Self {
            envs: Environments::with_machine(machine),
        }
    }

    /// A host that calls `release` when an analysis has just freed a lot (a notebook's first
    /// reading): a long-lived server gives that memory back to the system there.
    pub fn with_memory_release(release: fn()) -> Self {
        Self {
            envs: Environments::with_release(release),
        }
    }

    /// Diagnoses a log, traceback or terminal capture. Spans are byte offsets into `text`.
    pub fn diagnose_text(&self, text: &str, ctx: &Context) -> Vec<Diagnostic> {
        crate::analysis::diagnose_text(text, ctx, &self.envs)
    }

    /// Diagnoses a raw `.ipynb` text: spans are byte offsets into `raw`, with `source.cell` set.
    pub fn diagnose_notebook(&self, raw: &str, ctx: &Context) -> Vec<Diagnostic> {
        crate::analysis::diagnose_notebook(raw, ctx, &self.envs)
    }

    /// [`Self::diagnose_text`] for a document kept open: what `memo` holds from the last
    /// analysis of the same document is reused.
    pub fn diagnose_text_kept(
        &self,
        text: &str,
        ctx: &Context,
        memo: &mut DocumentMemo,
    ) -> Vec<Diagnostic> {
        crate::memo::diagnose_text(text, ctx, &self.envs, memo)
    }

    /// [`Self::diagnose_notebook`] for a `.ipynb` kept open: only the cells whose bytes `memo`
    /// does not know are read. `slots` are the cell spans kept across edits
    /// ([`crate::shift_slots`]; `None`: unknown); returns the diagnoses and the slots of `raw`
    /// (`None` when `raw` is not a well-formed notebook, which was then diagnosed whole).
    pub fn diagnose_notebook_kept(
        &self,
        raw: &str,
        slots: Option<Vec<CellSlot>>,
        ctx: &Context,
        memo: &mut DocumentMemo,
    ) -> (Vec<Diagnostic>, Option<Vec<CellSlot>>) {
        crate::memo::diagnose_notebook(raw, slots, ctx, &self.envs, memo)
    }

    /// Hover at byte `offset` of `text`: a mangled symbol or a library path.
    pub fn hover(&self, text: &str, offset: usize, ctx: &Context) -> Option<Hover> {
        crate::analysis::hover(text, offset, ctx, &self.envs)
    }

    /// A symbol in plain words: demangled, its ABI, who should define it, who exports it (or
    /// the nearest variant) in the environment, its history across torch releases.
    pub fn explain_symbol(&self, symbol: &str, ctx: &Context) -> Explanation {
        crate::explain::explain_symbol(symbol, ctx, &self.envs)
    }

    /// Scans the environment and phrases every finding as a diagnosis, with the same messages
    /// and fixes a text diagnosis gives for the same failure.
    pub fn scan(&self, ctx: &Context, options: &ScanOptions) -> Result<ScanOutcome, String> {
        crate::scan::scan(ctx, options, &self.envs)
    }

    /// Judges wheels (or an install plan's wheels) against the environment `ctx` names as it
    /// would be after installing them, or previews a torch upgrade, before anything is
    /// installed: the same codes and fixes as a scan.
    pub fn verify(&self, ctx: &Context, req: &VerifyRequest) -> VerifyOutcome {
        crate::verify::verify(ctx, req, &self.envs)
    }

    /// Opens the environment `ctx` names and builds what hovers on symbols read (torch's
    /// exports, in compact form), so that no hover pays for it; front ends call it when the
    /// configuration is known or changes, off their request path. Returns
    /// [`Self::symbol_index_builds`] afterwards, or `None` when `ctx` names no environment.
    pub fn prepare_environment(&self, ctx: &Context) -> Option<u64> {
        self.envs.prepare(ctx)
    }

    /// How many symbol indexes (torch's exports of one environment) this host has built: one
    /// per environment and change of it, never one per hover.
    pub fn symbol_index_builds(&self) -> u64 {
        self.envs.torch_export_builds()
    }

    /// Frees the libraries environments parsed to check the libraries diagnoses named (their
    /// reports are kept): front ends call it after an analysis, when the memory is worth more
    /// than re-parsing should a later diagnosis name a new library. Returns whether it freed any.
    pub fn release_parsed_libraries(&self) -> bool {
        self.envs.release_parsed_libraries()
    }

    /// The first model id (`org/name`) a text names, as a diagnosis reads it.
    pub fn find_model(text: &str) -> Option<String> {
        crate::kb::find_models(text).into_iter().next()
    }
}
