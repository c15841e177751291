//! Incremental diagnosis of documents an editor keeps open: an edit re-reads, re-scans and
//! re-diagnoses only what it changed ([`DocumentMemo`], one per document, filled by the host).
//!
//! A `.ipynb` opened as text is kept as a list of cell slots (the raw span of each cell object,
//! shifted by every edit, and a hash of its bytes once known). A cell is read and its outputs
//! scanned once per content ([`ParsedCell`], keyed by that hash); an edit inside one cell costs
//! reading that cell again. The events of all outputs are then grouped as the whole-notebook
//! diagnosis groups them (one text, repeated failures merge across cells),
//! and each incident is diagnosed once per (failure, scene, environment state): an incident whose
//! failure and surroundings did not change gets its previous diagnosis with the new locations.
//! Anything unexpected (an edit across cells, malformed JSON) falls back to the whole-text path.

use crate::context::Context;
use crate::diagnostic::{Diagnostic, SourceRef};
use crate::envview::Environments;
use crate::evidence::World;
use crate::incidents::{self, Failure, Incident, Scene, TextFacts};
use abidoc_syntax::{Event, Span, notebook};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::SystemTime;

/// One cell object of a notebook, read and scanned; maps and spans are relative to the cell.
/// The decoded output texts are not kept: their events, phrases, lengths and maps are all the
/// diagnosis needs again.
#[derive(Debug)]
struct ParsedCell {
    source: String,
    outputs: Vec<ScannedOutput>,
}

#[derive(Debug)]
struct ScannedOutput {
    len: usize,
    map: abidoc_syntax::SourceMap,
    /// Events with spans into the output's text.
    events: Vec<Event>,
    facts: TextFacts,
}

impl ParsedCell {
    fn read(raw: &str, index: usize) -> Option<ParsedCell> {
        let cell = notebook::parse_cell(raw, index)?;
        let outputs = cell
            .outputs
            .into_iter()
            .map(|o| ScannedOutput {
                len: o.text.text.len(),
                events: abidoc_syntax::scan(&o.text.text).value,
                facts: TextFacts::of(&o.text.text),
                map: o.text.map,
            })
            .collect();
        Some(ParsedCell {
            source: cell.source.text,
            outputs,
        })
    }
}

/// Where a cell object is in the raw text now, and the hash of its bytes when known (unchanged
/// since it was last read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellSlot {
    pub span: Span,
    pub hash: Option<u64>,
}

/// Moves the cell slots of a notebook for an edit that replaces bytes `start..end` of the text
/// before it with `inserted` bytes (called once per edit, before the edit is applied). Returns
/// `false` when the edit is not inside one cell: the slots are then unknown.
pub fn shift_slots(slots: &mut [CellSlot], start: usize, end: usize, inserted: usize) -> bool {
    let end = end.max(start);
    // Strictly inside: an edit touching a brace may change where the cell ends.
    let at = slots.partition_point(|s| s.span.end <= start);
    let Some(slot) = slots.get_mut(at) else {
        return false;
    };
    if !(slot.span.start < start && end < slot.span.end) {
        return false;
    }
    let grow = inserted as isize - (end - start) as isize;
    let moved = |x: usize| x.saturating_add_signed(grow);
    slot.span.end = moved(slot.span.end);
    slot.hash = None;
    for s in &mut slots[at + 1..] {
        s.span = Span::new(moved(s.span.start), moved(s.span.end));
    }
    true
}

/// Cells read in one analysis beyond this many bytes (a document's first analysis, not an edit).
const READ_A_LOT: usize = 4 << 20;

fn hash_of(bytes: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// What makes a diagnosis of one incident: its failure, the text's scene, the libraries the
/// text names (they pick the environment) and the model known from elsewhere.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct MemoKey {
    failure: Failure,
    scene: String,
    paths: Vec<String>,
    model_hint: Option<String>,
}

/// Per-document caches, kept between analyses and bounded by what the last analysis used.
#[derive(Debug, Default)]
pub struct DocumentMemo {
    cells: HashMap<u64, Arc<ParsedCell>>,
    memo: HashMap<MemoKey, Diagnostic>,
    /// Modification times of the configured site-packages and library directories when the memo
    /// was filled: an install or removal there makes every diagnosis new.
    stamps: Vec<Option<SystemTime>>,
}

impl DocumentMemo {
    /// Forgets the diagnoses (settings changed, the environment was scanned again).
    pub fn forget_diagnoses(&mut self) {
        self.memo.clear();
    }

    fn check_environment(&mut self, ctx: &Context) {
        let stamps: Vec<Option<SystemTime>> = ctx
            .site_packages
            .iter()
            .chain(&ctx.library_paths)
            .map(|d| std::fs::metadata(d).and_then(|m| m.modified()).ok())
            .collect();
        if stamps != self.stamps {
            self.memo.clear();
            self.stamps = stamps;
        }
    }

    /// Diagnoses incidents with the memo; keeps only the entries used now.
    fn diagnose(
        &mut self,
        incidents: &[Incident],
        scene: &Scene,
        ctx: &Context,
        envs: &Environments,
        to_source: &dyn Fn(Span) -> SourceRef,
    ) -> Vec<Diagnostic> {
        self.check_environment(ctx);
        let paths = library_paths(incidents);
        let scene_key = format!("{scene:?}");
        let mut world: Option<World<'_>> = None;
        let mut memo = HashMap::with_capacity(incidents.len());
        let mut out = Vec::with_capacity(incidents.len());
        for inc in incidents {
            let key = MemoKey {
                failure: inc.failure.clone(),
                scene: scene_key.clone(),
                paths: paths.clone(),
                model_hint: ctx.model_hint.clone(),
            };
            let found =
                memo.get(&key)
                    .or_else(|| self.memo.get(&key))
                    .cloned()
                    .map(|mut d: Diagnostic| {
                        d.source = Some(to_source(inc.primary));
                        d.related = inc.related.iter().map(|s| to_source(*s)).collect();
                        d
                    });
            let diagnosis = match found {
                Some(d) => Some(d),
                None => {
                    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
                    let world = world.get_or_insert_with(|| World::new(ctx, envs, &refs));
                    crate::codes::diagnose(inc, scene, world, to_source)
                }
            };
            if let Some(d) = diagnosis {
                memo.insert(key, d.clone());
                if !ctx.disabled_codes.contains(&d.code) {
                    out.push(d);
                }
            }
        }
        self.memo = memo;
        crate::codes::link(&mut out);
        out
    }
}

fn library_paths(incidents: &[Incident]) -> Vec<String> {
    incidents
        .iter()
        .filter_map(|i| match &i.failure {
            Failure::UndefinedSymbol {
                library: Some(l), ..
            }
            | Failure::MissingLibrary {
                required_by: Some(l),
                ..
            }
            | Failure::VersionNotFound {
                required_by: Some(l),
                ..
            } => Some(l.clone()),
            _ => None,
        })
        .collect()
}

/// Diagnoses a log or any text, as the whole-text diagnosis does, with the diagnosis memo.
pub(crate) fn diagnose_text(
    text: &str,
    ctx: &Context,
    envs: &Environments,
    cache: &mut DocumentMemo,
) -> Vec<Diagnostic> {
    let (incidents, scene) = incidents::collect_text(text);
    cache.diagnose(&incidents, &scene, ctx, envs, &|span| SourceRef {
        span,
        cell: None,
    })
}

/// Diagnoses a raw `.ipynb` as the whole-notebook diagnosis does, reading only the cells whose
/// bytes the cache does not know. `slots` are the cell spans kept across edits (`None`: unknown);
/// returns the diagnoses and the slots of `raw` (`None` when `raw` is not a well-formed
/// notebook, which was then diagnosed whole).
pub(crate) fn diagnose_notebook(
    raw: &str,
    slots: Option<Vec<CellSlot>>,
    ctx: &Context,
    envs: &Environments,
    cache: &mut DocumentMemo,
) -> (Vec<Diagnostic>, Option<Vec<CellSlot>>) {
    if let Some(slots) = slots
        && let Some(done) = with_slots(raw, &slots, ctx, envs, cache)
    {
        return done;
    }
    // Unknown slots, or an edit changed a cell's shape: find the cells again.
    notebook::cell_spans(raw)
        .map(|spans| {
            spans
                .into_iter()
                .map(|span| CellSlot { span, hash: None })
                .collect::<Vec<_>>()
        })
        .and_then(|slots| with_slots(raw, &slots, ctx, envs, cache))
        .unwrap_or_else(|| (crate::analysis::diagnose_notebook(raw, ctx, envs), None))
}

/// `None` when a slot is not exactly one readable cell of `raw`.
fn with_slots(
    raw: &str,
    slots: &[CellSlot],
    ctx: &Context,
    envs: &Environments,
    cache: &mut DocumentMemo,
) -> Option<(Vec<Diagnostic>, Option<Vec<CellSlot>>)> {
    let mut cells: Vec<(Arc<ParsedCell>, usize)> = Vec::with_capacity(slots.len());
    let mut known = HashMap::with_capacity(slots.len());
    let mut out_slots = Vec::with_capacity(slots.len());
    let mut read_bytes = 0usize;
    for (i, slot) in slots.iter().enumerate() {
        let bytes = raw.get(slot.span.start..slot.span.end)?;
        let hash = slot.hash.unwrap_or_else(|| hash_of(bytes));
        let cached = cache.cells.get(&hash).or_else(|| known.get(&hash)).cloned();
        let parsed = match cached {
            Some(p) => p,
            None => {
                read_bytes += bytes.len();
                Arc::new(ParsedCell::read(bytes, i)?)
            }
        };
        known.insert(hash, parsed.clone());
        out_slots.push(CellSlot {
            span: slot.span,
            hash: Some(hash),
        });
        cells.push((parsed, slot.span.start));
    }
    cache.cells = known;

    // One text of all outputs, as the whole-notebook diagnosis scans it: each output then `\n`.
    // Events are handed over output by output through one small buffer (no copy of them all).
    let mut collector = incidents::Collector::default();
    let mut batch: Vec<Event> = Vec::new();
    let mut pieces: Vec<(usize, usize, usize, usize, &abidoc_syntax::SourceMap)> = Vec::new();
    let mut facts = TextFacts::default();
    let mut sources = String::new();
    let mut joined_len = 0usize;
    for (index, (parsed, raw_start)) in cells.iter().enumerate() {
        sources.push_str(&parsed.source);
        sources.push('\n');
        for out in &parsed.outputs {
            let base = joined_len;
            joined_len += out.len;
            pieces.push((base, joined_len, index, *raw_start, &out.map));
            joined_len += 1;
            if !out.events.is_empty() {
                batch.clear();
                batch.extend(out.events.iter().map(|e| {
                    let mut e = e.clone();
                    e.span = Span::new(e.span.start + base, e.span.end + base);
                    e
                }));
                collector.add(&batch);
            }
            facts = facts.or(out.facts);
        }
    }
    drop(batch);
    let mut ctx = ctx.clone();
    if ctx.model_hint.is_none() {
        ctx.model_hint = crate::kb::find_models(&sources).into_iter().next();
    }
    let (incidents, mut scene) = collector.finish();
    scene.read_facts(facts);
    scene.read_text(&sources);
    let to_source = |span: Span| {
        let idx = pieces
            .partition_point(|p| p.0 <= span.start)
            .saturating_sub(1);
        match pieces.get(idx) {
            Some(&(start, end, cell, raw_start, map)) => {
                let local = Span::new(
                    span.start - start.min(span.start),
                    span.end.min(end).saturating_sub(start),
                );
                let r = map.span_to_raw(local);
                SourceRef {
                    span: Span::new(r.start + raw_start, r.end + raw_start),
                    cell: Some(cell),
                }
            }
            None => SourceRef {
                span: Span::new(0, 0),
                cell: None,
            },
        }
    };
    if read_bytes > READ_A_LOT {
        // Reading many cells freed as much as the decoded outputs weigh: give it back before
        // the diagnosis, whose first check of a library parses torch's (tens of MB) on top.
        envs.release_free_memory();
    }
    let diags = cache.diagnose(&incidents, &scene, &ctx, envs, &to_source);
    Some((diags, Some(out_slots)))
}
