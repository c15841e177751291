//! The analyses behind the host's front door: diagnose a text or a notebook, hover at an
//! offset; each reads the environment through the host's [`Environments`].

use crate::diagnostic::{Diagnostic, SourceRef};
use crate::envview::Environments;
use crate::incidents::{self, Incident, Scene};
use abidoc_syntax::Span;

use crate::context::Context;

/// Hover content in Markdown, with the span of the text it explains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hover {
    pub span: Span,
    pub markdown: String,
}

/// Diagnoses a log, traceback or terminal capture. Spans are byte offsets into `text`.
pub(crate) fn diagnose_text(text: &str, ctx: &Context, envs: &Environments) -> Vec<Diagnostic> {
    // Text whose characters came through a web page, a Markdown source or a word processor
    // (`&#39;`, `\_`, `‘…’`) is read decoded, so that every phrase is found; spans map back.
    // Decoded once: entities that spell entities (`&amp;quot;`) stay as the first pass leaves
    // them, so a crafted text cannot make this loop.
    if let Some(decoded) = abidoc_syntax::clean::decode(text) {
        let mut diags = diagnose_plain(&decoded.text, ctx, envs);
        for d in &mut diags {
            for r in d.source.iter_mut().chain(d.related.iter_mut()) {
                r.span = decoded.map.span_to_raw(r.span);
            }
        }
        return diags;
    }
    diagnose_plain(text, ctx, envs)
}

/// [`diagnose_text`] of a text whose characters need no decoding. A text in which nothing is
/// found is read once more with the failure phrases of its lowercased lines (a title typed or
/// shown in lowercase) in their programs' case: same length, same spans.
fn diagnose_plain(text: &str, ctx: &Context, envs: &Environments) -> Vec<Diagnostic> {
    let diags = read_plain(text, ctx, envs);
    if found(&diags) == 0
        && let Some(recased) = abidoc_syntax::clean::recase(text)
    {
        let other = read_plain(&recased, ctx, envs);
        if found(&other) > 0 || diags.is_empty() {
            return other;
        }
    }
    diags
}

/// How many failures a reading names. A build that failed for a reason the text does not hold
/// (`build-failed`) is what is left when the cause was not read: another reading of the same
/// text (re-joined, re-cased) that reads the cause finds more.
fn found(diags: &[Diagnostic]) -> usize {
    diags
        .iter()
        .filter(|d| d.code != crate::codes::Code::BuildFailed)
        .count()
}

fn read_plain(text: &str, ctx: &Context, envs: &Environments) -> Vec<Diagnostic> {
    // Text a terminal or chat client hard-wrapped is read re-joined; spans map back. Lines
    // that only happen to share the widest width (a list of paths) are no wrap: the text as
    // given is read when the joined reading finds nothing.
    if let Some(joined) = abidoc_syntax::clean::unwrap(text) {
        let other = diagnose_derived(&joined, ctx, envs);
        if found(&other) > 0 {
            return other;
        }
        let raw = diagnose_raw(text, ctx, envs);
        return if found(&raw) > 0 { raw } else { other };
    }
    let diags = diagnose_raw(text, ctx, envs);
    // A short paste whose one long line may be cut at the terminal's width: read it joined
    // too, and keep that reading only when it finds more.
    if let Some(joined) = abidoc_syntax::clean::unwrap_once(text) {
        let other = diagnose_derived(&joined, ctx, envs);
        // A cut at a terminal's usual width is a wrap more likely than not: the joined reading
        // wins a tie there.
        let width = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        let terminal = matches!(width, 80 | 100 | 120 | 132 | 160);
        let (more, same) = (found(&other), found(&diags));
        // A build failure read only joined still beats reading nothing (it weighs nothing in
        // `found`).
        if more > same
            || (terminal && more == same && other.len() >= diags.len())
            || (more == same && diags.is_empty() && !other.is_empty())
        {
            return other;
        }
    }
    diags
}

/// Diagnoses the input as given, streamed: a gigabyte log never holds all its events at once.
fn diagnose_raw(text: &str, ctx: &Context, envs: &Environments) -> Vec<Diagnostic> {
    diagnose_with(text, ctx, envs, &|span| span)
}

/// Diagnoses a text derived from the input (re-joined), with spans mapped back to the input.
fn diagnose_derived(
    derived: &abidoc_syntax::clean::Cleaned,
    ctx: &Context,
    envs: &Environments,
) -> Vec<Diagnostic> {
    diagnose_with(&derived.text, ctx, envs, &|span| {
        derived.map.span_to_raw(span)
    })
}

/// Diagnoses `text`, its spans put into the input's terms by `to_input`.
fn diagnose_with(
    text: &str,
    ctx: &Context,
    envs: &Environments,
    to_input: &dyn Fn(abidoc_syntax::Span) -> abidoc_syntax::Span,
) -> Vec<Diagnostic> {
    let (incidents, scene) = incidents::collect_text(text);
    let paths = library_paths(&incidents);
    let world = crate::evidence::World::new(ctx, envs, &paths);
    finish(
        &incidents,
        &scene,
        &world,
        &|span| SourceRef {
            span: to_input(span),
            cell: None,
        },
        ctx,
    )
}

/// Diagnoses a raw `.ipynb` text: spans are byte offsets into `raw`, with `source.cell` set.
pub(crate) fn diagnose_notebook(raw: &str, ctx: &Context, envs: &Environments) -> Vec<Diagnostic> {
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
    let world = crate::evidence::World::new(&ctx, envs, &paths);
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

/// Hover at byte `offset` of `text`: a mangled symbol or a library path.
pub(crate) fn hover(
    text: &str,
    offset: usize,
    ctx: &Context,
    envs: &Environments,
) -> Option<Hover> {
    let (span, word) = word_at(text, offset)?;
    if crate::symbols::is_mangled(word) {
        let e = crate::explain::explain_symbol(word, ctx, envs);
        return Some(Hover {
            span,
            markdown: crate::explain::markdown(&e),
        });
    }
    if word.ends_with(".so") || word.contains(".so.") || word.contains(".cpython-") {
        let md = crate::explain::library_markdown(word, ctx, envs);
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
