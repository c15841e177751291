//! Entry points: diagnose a text or a notebook, hover at an offset, explain a symbol, scan an
//! environment. Front ends call only these.

use crate::diagnostic::{Diagnostic, SourceRef};
use crate::incidents::{self, Incident, Scene};
use abidoc_syntax::{EventKind, Span};

pub use crate::context::Context;

/// Hover content in Markdown, with the span of the text it explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub span: Span,
    pub markdown: String,
}

/// Diagnoses a log, traceback or terminal capture. Spans are byte offsets into `text`.
pub fn diagnose_text(text: &str, ctx: &Context) -> Vec<Diagnostic> {
    // Text a terminal or chat client hard-wrapped is read re-joined; spans map back.
    if let Some(joined) = abidoc_syntax::clean::unwrap(text) {
        return diagnose_derived(&joined, ctx);
    }
    // Streamed: a gigabyte log never holds all its events at once.
    let (incidents, scene) = incidents::collect_text(text);
    let paths = library_paths(&incidents);
    let world = crate::evidence::World::new(ctx, &paths);
    let diags = finish(
        &incidents,
        &scene,
        &world,
        &|span| SourceRef { span, cell: None },
        ctx,
    );
    // A short paste whose one long line may be cut at the terminal's width: read it joined
    // too, and keep that reading only when it finds more.
    if let Some(joined) = abidoc_syntax::clean::unwrap_once(text) {
        let other = diagnose_derived(&joined, ctx);
        if other.len() > diags.len() {
            return other;
        }
    }
    diags
}

/// Diagnoses a text derived from the input (re-joined), with spans mapped back to the input.
fn diagnose_derived(derived: &abidoc_syntax::clean::Cleaned, ctx: &Context) -> Vec<Diagnostic> {
    let (incidents, scene) = incidents::collect_text(&derived.text);
    let paths = library_paths(&incidents);
    let world = crate::evidence::World::new(ctx, &paths);
    finish(
        &incidents,
        &scene,
        &world,
        &|span| SourceRef {
            span: derived.map.span_to_raw(span),
            cell: None,
        },
        ctx,
    )
}

/// Diagnoses a raw `.ipynb` text: spans are byte offsets into `raw`, with `source.cell` set.
pub fn diagnose_notebook(raw: &str, ctx: &Context) -> Vec<Diagnostic> {
    let nb = abidoc_syntax::notebook::parse(raw).value;
    // All outputs are scanned as one text so repeated failures across cells merge; a table of
    // pieces maps each piece of that text back to its cell and raw offsets.
    let mut joined = String::new();
    let mut pieces: Vec<(usize, usize, usize, &abidoc_syntax::SourceMap)> = Vec::new(); // (start, end, cell, map)
    let mut sources = String::new();
    for cell in &nb.cells {
        sources.push_str(&cell.source.text);
        sources.push('\n');
        for out in &cell.outputs {
            let start = joined.len();
            joined.push_str(&out.text.text);
            pieces.push((start, joined.len(), cell.index, &out.text.map));
            joined.push('\n');
        }
    }
    let mut ctx = ctx.clone();
    if ctx.model_hint.is_none() {
        ctx.model_hint = crate::kb::find_models(&sources).into_iter().next();
    }
    let parse = abidoc_syntax::scan(&joined);
    let (incidents, mut scene) = incidents::collect(&parse.value);
    scene.read_text(&joined);
    scene.read_text(&sources);
    scene.read_mentions(&joined, 0);
    scene.order_mentions();
    let paths = library_paths(&incidents);
    let world = crate::evidence::World::new(&ctx, &paths);
    let to_source = |span: Span| {
        let idx = pieces
            .partition_point(|p| p.0 <= span.start)
            .saturating_sub(1);
        match pieces.get(idx) {
            Some(&(start, end, cell, map)) => {
                let local = Span::new(
                    span.start - start.min(span.start),
                    span.end.min(end).saturating_sub(start),
                );
                SourceRef {
                    span: map.span_to_raw(local),
                    cell: Some(cell),
                }
            }
            None => SourceRef {
                span: Span::new(0, 0),
                cell: None,
            },
        }
    };
    finish(&incidents, &scene, &world, &to_source, &ctx)
}

fn library_paths(incidents: &[Incident]) -> Vec<&str> {
    incidents
        .iter()
        .filter_map(|i| match &i.failure {
            incidents::Failure::UndefinedSymbol {
                library: Some(l), ..
            } => Some(l.as_str()),
            incidents::Failure::MissingLibrary {
                required_by: Some(l),
                ..
            } => Some(l.as_str()),
            incidents::Failure::VersionNotFound {
                required_by: Some(l),
                ..
            } => Some(l.as_str()),
            _ => None,
        })
        .collect()
}

fn finish(
    incidents: &[Incident],
    scene: &Scene,
    world: &crate::evidence::World<'_>,
    to_source: &dyn Fn(Span) -> SourceRef,
    ctx: &Context,
) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = incidents
        .iter()
        .filter_map(|inc| crate::codes::diagnose(inc, scene, world, to_source))
        .filter(|d| !ctx.disabled_codes.contains(&d.code))
        .collect();
    crate::codes::link(&mut out);
    out
}

/// Opens the environment `ctx` names and builds what hovers on symbols read (torch's exports,
/// in compact form), so that no hover pays for it; front ends call it when the configuration
/// is known or changes, off their request path. Returns [`symbol_index_builds`] afterwards, or
/// `None` when `ctx` names no environment.
pub fn prepare_environment(ctx: &Context) -> Option<u64> {
    crate::envview::prepare(ctx)
}

/// How many symbol indexes (torch's exports of one environment) this process has built: one
/// per environment and change of it, never one per hover.
pub fn symbol_index_builds() -> u64 {
    crate::envview::torch_export_builds()
}

/// Frees the libraries environments parsed to check the libraries diagnoses named (their
/// reports are kept): front ends call it after an analysis, when the memory is worth more
/// than re-parsing should a later diagnosis name a new library. Returns whether it freed any.
pub fn release_parsed_libraries() -> bool {
    crate::envview::release_parsed_libraries()
}

/// Hover at byte `offset` of `text`: a mangled symbol or a library path.
pub fn hover(text: &str, offset: usize, ctx: &Context) -> Option<Hover> {
    let (span, word) = word_at(text, offset)?;
    if crate::symbols::is_mangled(word) {
        let e = crate::explain::explain_symbol(word, ctx);
        return Some(Hover {
            span,
            markdown: crate::explain::markdown(&e),
        });
    }
    if word.ends_with(".so") || word.contains(".so.") || word.contains(".cpython-") {
        let md = crate::explain::library_markdown(word, ctx);
        return Some(Hover { span, markdown: md });
    }
    // Diagnosed ranges are explained by the front end from the diagnoses it already holds
    // (`explain::diagnostic_markdown`): re-diagnosing a 20 MB notebook per hover would be too slow.
    None
}

/// The whitespace/quote-delimited word around `offset`.
fn word_at(text: &str, offset: usize) -> Option<(Span, &str)> {
    let bytes = text.as_bytes();
    if offset > bytes.len() {
        return None;
    }
    let is_sep = |b: u8| b.is_ascii_whitespace() || b"'\"`(),;<>[]{}".contains(&b);
    // Symbols and paths are short: a hover never walks a giant token to its ends.
    const MAX_WORD: usize = 4096;
    let mut start = offset;
    while start > 0 && offset - start < MAX_WORD && !is_sep(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = offset;
    while end < bytes.len() && end - offset < MAX_WORD && !is_sep(bytes[end]) {
        end += 1;
    }
    let word = text.get(start..end)?;
    // A trailing ':' belongs to the message (`…so: undefined symbol`), not the word.
    let trimmed = word.trim_end_matches([':', '.', ',']);
    if trimmed.is_empty() {
        return None;
    }
    Some((Span::new(start, start + trimmed.len()), trimmed))
}

/// Events of one kind are sometimes all a front end needs (document links): re-exported scan.
pub fn frame_paths(text: &str) -> Vec<(Span, String)> {
    abidoc_syntax::scan(text)
        .value
        .into_iter()
        .filter_map(|e| match e.kind {
            EventKind::Frame { file, .. } => Some((e.span, file)),
            _ => None,
        })
        .collect()
}
