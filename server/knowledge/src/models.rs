//! Model awareness: finding the model ids a script, notebook or command line uses, and resolving an id to its family from the Hugging Face cache's `config.json` or from name patterns (`data/models.toml`).

use serde::{Deserialize, Serialize};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// What a family's layers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Attention only.
    Transformer,
    /// State-space or convolution layers mixed with attention.
    Hybrid,
    /// State-space layers only.
    Ssm,
}

/// A model family keyed by its `config.json` `model_type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelFamily {
    pub model_type: String,
    pub name: String,
    pub kind: Kind,
    /// Its code runs mamba-ssm's selective-scan kernels when installed.
    #[serde(default)]
    pub uses_mamba_kernels: bool,
    /// Extension packages its code uses when installed (normalized names).
    #[serde(default)]
    pub kernels: Vec<String>,
    #[serde(default)]
    pub architectures: Vec<String>,
    #[serde(default)]
    pub examples: Vec<String>,
    pub source: String,
}

/// A model-id name pattern: every substring must occur in the lower-cased id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NamePattern {
    pub contains: Vec<String>,
    pub model_type: String,
    pub source: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelsFile {
    #[serde(default)]
    family: Vec<ModelFamily>,
    #[serde(default)]
    pattern: Vec<NamePattern>,
}

fn table() -> &'static ModelsFile {
    static T: OnceLock<ModelsFile> = OnceLock::new();
    T.get_or_init(|| crate::data::parse("models.toml", include_str!("../data/models.toml")))
}

/// Every model family in the table.
pub fn families() -> &'static [ModelFamily] {
    &table().family
}

/// The name patterns, in the order they are tried.
pub fn name_patterns() -> &'static [NamePattern] {
    &table().pattern
}

/// The family for a `config.json` `model_type` (`granitemoehybrid`, `granite`, `qwen3`).
pub fn family_for_model_type(model_type: &str) -> Option<&'static ModelFamily> {
    let t = model_type.trim().to_ascii_lowercase().replace('-', "_");
    families().iter().find(|f| f.model_type == t)
}

/// The family a model id's name suggests (`ibm-granite/granite-4.0-h-micro` → granitemoehybrid),
/// with the pattern that matched.
pub fn family_for_model_id(id: &str) -> Option<(&'static ModelFamily, &'static NamePattern)> {
    let lower = id.to_ascii_lowercase();
    name_patterns()
        .iter()
        .find(|p| !p.contains.is_empty() && p.contains.iter().all(|c| lower.contains(c.as_str())))
        .and_then(|p| family_for_model_type(&p.model_type).map(|f| (f, p)))
}

/// A model id found in text, with the byte span of the id itself (inside any quotes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelRef {
    pub id: String,
    pub span: Range<usize>,
}

/// Command-line options whose value is a model id or path.
const MODEL_FLAGS: &[&str] = &[
    "--model",
    "--model_name_or_path",
    "--model-name-or-path",
    "--model_name",
    "--model-name",
    "--model_id",
    "--model-id",
    "--model_path",
    "--model-path",
    "--base_model",
    "--base-model",
    "--pretrained_model_name_or_path",
    "--model_dir",
    "--model-dir",
];

/// Finds the models a Python source, notebook cell or command line refers to:
/// `from_pretrained("org/name")`, assignments and keyword arguments to model-named variables
/// (`model_name = "…"`, `model_path=…`, `pretrained_model_name_or_path=…`, `"model_id": "…"`,
/// YAML `model_name_or_path: org/name`) and options such as `--model org/name`. Comments are
/// skipped. Results are in text order, one per occurrence.
pub fn find_models(text: &str) -> Vec<ModelRef> {
    let mut out: Vec<ModelRef> = Vec::new();
    let mut line_start = 0;
    let mut pending = false;
    for raw_line in text.split_inclusive('\n') {
        let (line, offset) = unwrap_json_line(raw_line);
        let before = out.len();
        pending = scan_line(&line, line_start + offset, pending, &mut out);
        // A value taken from a JSON-escaped line keeps its raw spelling (`\"` became ` "`).
        for m in &mut out[before..] {
            if let Some(raw) = text.get(m.span.clone()) {
                m.id = raw.to_string();
            }
        }
        line_start += raw_line.len();
    }
    out.sort_by_key(|m| m.span.start);
    out.dedup_by(|a, b| a.span == b.span);
    out
}

/// Hub ids mentioned anywhere in free text (logs, prose, markdown: `` `ibm-granite/granite-4.0-h-micro` ``,
/// `Loading ibm-granite/granite-3.2-8b-instruct`), kept only when the name matches a known family
/// pattern, so file paths and other `a/b` words are not taken for models. Use it when
/// [`find_models`] finds nothing in code.
pub fn find_model_mentions(text: &str) -> Vec<ModelRef> {
    let mut out = Vec::new();
    let is_id_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let mut start: Option<usize> = None;
    let bytes_len = text.len();
    for (i, c) in text.char_indices().chain(std::iter::once((bytes_len, ' '))) {
        if i < bytes_len && is_id_char(c) {
            if start.is_none() {
                start = Some(i);
            }
            continue;
        }
        let Some(st) = start.take() else { continue };
        let word = text[st..i].trim_end_matches('.');
        let end = st + word.len();
        // Part of a longer path (`/x/org/name`) or a URL is not a hub id mention.
        let prev = text[..st].chars().next_back();
        if prev == Some(':') || word.matches('/').count() != 1 || word.starts_with(['/', '.', '-'])
        {
            continue;
        }
        let Some((org, name)) = word.split_once('/') else {
            continue;
        };
        if org.is_empty() || name.is_empty() || name.ends_with(".so") || name.contains(".py") {
            continue;
        }
        if family_for_model_id(word).is_some() {
            out.push(ModelRef {
                id: word.to_string(),
                span: st..end,
            });
        }
    }
    out
}

/// A line of raw `.ipynb` JSON (`    "model = f(\"org/name\")\n",`) is scanned as the code it
/// holds: its escaped quotes become plain quotes preceded by a space, which keeps every byte
/// offset. Returns the text to scan and its offset within the raw line.
fn unwrap_json_line(line: &str) -> (String, usize) {
    let trimmed_start = line.len() - line.trim_start().len();
    let t = line.trim();
    let inner_end = if let Some(x) = t.strip_suffix("\",") {
        x.len()
    } else if let Some(x) = t.strip_suffix('"') {
        x.len()
    } else {
        return (line.to_string(), 0);
    };
    if !t.starts_with('"') || inner_end < 1 {
        return (line.to_string(), 0);
    }
    let inner = &t[1..inner_end];
    // A JSON string element has every inner quote escaped; `"key": "value",` does not.
    let ib = inner.as_bytes();
    let mut k = 0;
    while k < ib.len() {
        match ib[k] {
            b'\\' => k += 2,
            b'"' => return (line.to_string(), 0),
            _ => k += 1,
        }
    }
    let mut bytes = inner.as_bytes().to_vec();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes[i + 1] == b'"' {
                bytes[i] = b' ';
            } else if bytes[i + 1] == b'n' {
                // The line's own newline escape: blank it so it is not read as code.
                bytes[i] = b' ';
                bytes[i + 1] = b' ';
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    (
        String::from_utf8(bytes).unwrap_or_default(),
        trimmed_start + 1,
    )
}

/// A string literal or bare token on a line: content span (absolute) and what precedes it.
struct Token {
    start: usize,
    end: usize,
}

/// Scans one line; `pending` says the previous line opened a `from_pretrained(` call or ended
/// with a model option and a line continuation, so this line's first value is the model.
/// Returns the same for the next line.
fn scan_line(line: &str, base: usize, pending: bool, out: &mut Vec<ModelRef>) -> bool {
    let b = line.as_bytes();
    // Collect string literals up to the first comment outside a string.
    let mut lits: Vec<Token> = Vec::new();
    let mut code_end = b.len();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                code_end = i;
                break;
            }
            q @ (b'"' | b'\'') => {
                let triple = b.get(i..i + 3) == Some(&[q, q, q][..]);
                let open = if triple { 3 } else { 1 };
                let start = i + open;
                let mut j = start;
                let mut end = None;
                while j < b.len() {
                    if b[j] == b'\\' {
                        j += 2;
                        continue;
                    }
                    if b[j] == q && (!triple || b.get(j..j + 3) == Some(&[q, q, q][..])) {
                        end = Some(j);
                        break;
                    }
                    j += 1;
                }
                match end {
                    Some(e) => {
                        lits.push(Token { start, end: e });
                        i = e + open;
                    }
                    None => {
                        // Unterminated (a multi-line string): nothing more on this line is code.
                        code_end = i;
                        break;
                    }
                }
            }
            _ => i += 1,
        }
    }
    let code = &line[..code_end];

    for (k, lit) in lits.iter().enumerate() {
        let before = &line[..lit.start - quote_len(line, lit.start)];
        let value = &line[lit.start..lit.end];
        // A literal with an f-string/format prefix or braces is not a fixed id.
        if value.contains('{') || value.contains('}') {
            continue;
        }
        let prev_lit = k.checked_sub(1).map(|p| &line[lits[p].start..lits[p].end]);
        let first_on_pending_line = pending && k == 0 && before.trim().is_empty();
        if first_on_pending_line || literal_is_model(before, prev_lit) {
            push(out, line, base, lit.start, lit.end);
        }
    }

    // Unquoted values: `--model org/name`, `--model=org/name`, YAML `model_name_or_path: x`.
    scan_bare(code, base, &lits, pending, out);

    let tail = code.trim_end();
    let (tail, continued) = match tail.strip_suffix('\\') {
        Some(t) => (t.trim_end(), true),
        None => (tail, false),
    };
    if let Some(rest) = tail.strip_suffix('(') {
        let callee = trailing_ident(rest.trim_end());
        return callee == "from_pretrained" || callee == "snapshot_download";
    }
    let last = tail.rsplit(char::is_whitespace).next().unwrap_or("");
    continued && MODEL_FLAGS.contains(&last)
}

fn quote_len(line: &str, content_start: usize) -> usize {
    let b = line.as_bytes();
    if content_start >= 3 {
        let t = &b[content_start - 3..content_start];
        if t[0] == t[1] && t[1] == t[2] && matches!(t[0], b'"' | b'\'') {
            return 3;
        }
    }
    1
}

/// Does the code before a string literal make it a model id?
fn literal_is_model(before: &str, prev_lit: Option<&str>) -> bool {
    // Strip a string prefix (r"", b"", u"") glued to the quote.
    let before = before.trim_end_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F']);
    let t = before.trim_end();
    if let Some(rest) = t.strip_suffix('(') {
        let callee = trailing_ident(rest.trim_end());
        return callee == "from_pretrained" || callee == "snapshot_download";
    }
    if let Some(rest) = t.strip_suffix('=') {
        if rest.ends_with(['=', '!', '<', '>']) {
            return false;
        }
        return is_model_var(trailing_ident(rest.trim_end()));
    }
    if let Some(rest) = t.strip_suffix(':') {
        // Dictionary key `"model_name": "x"` or a YAML/annotation form.
        let rest = rest.trim_end().trim_end_matches(['"', '\'']);
        return is_model_var(trailing_ident(rest));
    }
    if t.ends_with(',') {
        // An argument vector: ["--model", "org/name"].
        return prev_lit.is_some_and(|p| MODEL_FLAGS.contains(&p));
    }
    // A shell word after a model flag: --model "org/name" or --model='org/name'.
    let word = t.trim_end_matches('=');
    let last = word
        .rsplit(|c: char| c.is_whitespace())
        .next()
        .unwrap_or("");
    MODEL_FLAGS.contains(&last)
}

fn trailing_ident(s: &str) -> &str {
    let start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_')
        .last()
        .map_or(s.len(), |(i, _)| i);
    &s[start..]
}

/// Variables and keywords that hold a model id or path.
fn is_model_var(ident: &str) -> bool {
    let id = ident.to_ascii_lowercase();
    if id.is_empty() {
        return false;
    }
    if matches!(
        id.as_str(),
        "model" | "checkpoint" | "pretrained_model_name_or_path"
    ) {
        return true;
    }
    if !id.contains("model") {
        return false;
    }
    [
        "model",
        "_name",
        "_id",
        "_path",
        "_or_path",
        "_dir",
        "_repo",
        "_checkpoint",
    ]
    .iter()
    .any(|s| id.ends_with(s))
        && !id.contains("tokenizer")
        && !id.ends_with("_type")
}

fn scan_bare(code: &str, base: usize, lits: &[Token], pending: bool, out: &mut Vec<ModelRef>) {
    let in_literal = |at: usize| {
        lits.iter()
            .any(|l| at >= l.start.saturating_sub(1) && at <= l.end)
    };
    let words = split_words(code);
    // `--model \` on the previous line: this line starts with the value.
    if pending
        && let Some(&(ws, we)) = words.first()
        && !in_literal(ws)
        && !code[ws..we].starts_with(['"', '\'', '-', '#'])
        && !code[ws..we].ends_with('(')
    {
        push(out, code, base, ws, we);
    }
    for (k, &(ws, we)) in words.iter().enumerate() {
        if in_literal(ws) {
            continue;
        }
        let w = &code[ws..we];
        // --model=org/name
        if let Some((flag, val)) = w.split_once('=') {
            if MODEL_FLAGS.contains(&flag) && !val.is_empty() && !val.starts_with(['"', '\'']) {
                let vs = ws + flag.len() + 1;
                push(out, code, base, vs, we);
            }
            continue;
        }
        // `vllm serve org/name`, `huggingface-cli download org/name`, `hf download org/name`.
        let positional = matches!(
            (k.checked_sub(1).map(|p| &code[words[p].0..words[p].1]), w),
            (Some("vllm"), "serve") | (Some("huggingface-cli" | "hf"), "download")
        );
        if positional {
            if let Some(&(ns, ne)) = words.get(k + 1)
                && !in_literal(ns)
                && !code[ns..ne].starts_with(['"', '\'', '-'])
            {
                push(out, code, base, ns, ne);
            }
            continue;
        }
        // --model org/name
        if MODEL_FLAGS.contains(&w) {
            if let Some(&(ns, ne)) = words.get(k + 1)
                && !in_literal(ns)
                && !code[ns..ne].starts_with(['"', '\'', '-'])
            {
                push(out, code, base, ns, ne);
            }
            continue;
        }
        // YAML: `model_name_or_path: org/name` at the start of the line.
        if k == 0
            && let Some(key) = w.strip_suffix(':')
            && is_model_var(key)
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && let Some(&(ns, ne)) = words.get(1)
            && !in_literal(ns)
            && !code[ns..ne].starts_with(['"', '\''])
        {
            push(out, code, base, ns, ne);
        }
    }
}

fn split_words(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let sep = c.is_whitespace() || c == '\\' && s[i + 1..].trim().is_empty();
        match (sep, start) {
            (true, Some(st)) => {
                out.push((st, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(st) = start {
        out.push((st, s.len()));
    }
    out
}

/// Adds `line[start..end]` when it looks like a model id or path.
fn push(out: &mut Vec<ModelRef>, line: &str, base: usize, start: usize, end: usize) {
    let Some(raw) = line.get(start..end) else {
        return;
    };
    // Blanked JSON escapes leave spaces inside quotes; shell and Python lines leave trailing
    // punctuation (`org/name,` or `org/name)`).
    let lead = raw.len() - raw.trim_start().len();
    let trimmed = raw.trim().trim_end_matches([',', ')', ';', ']']).trim_end();
    let start = start + lead;
    let end = start + trimmed.len();
    if looks_like_model_id(trimmed) {
        out.push(ModelRef {
            id: trimmed.to_string(),
            span: base + start..base + end,
        });
    }
}

/// `org/name`, a bare hub name (`gpt2`), or a local path; not a URL, flag, number or sentence.
pub fn looks_like_model_id(s: &str) -> bool {
    if s.is_empty() || s.len() > 300 || s.starts_with('-') || s.contains("://") {
        return false;
    }
    if s.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return false;
    }
    s.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '/' | '.' | '_' | '-' | '~' | '+' | ':'))
        && s.chars().any(|c| c.is_ascii_alphabetic())
}

/// How a model's family was determined.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Via {
    /// From this `config.json`.
    Config(PathBuf),
    /// From the model id's name (no config found).
    NamePattern,
    /// Neither config nor a known name.
    Unknown,
}

/// What is known about a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelInfo {
    pub id: String,
    pub family: Option<&'static ModelFamily>,
    pub model_type: Option<String>,
    pub architectures: Vec<String>,
    /// Whether running it uses mamba-ssm's kernels; `None` when unknown.
    pub uses_mamba_kernels: Option<bool>,
    /// Extension packages the model's code uses when installed.
    pub kernels: Vec<String>,
    pub via: Via,
}

impl ModelInfo {
    /// Whether the model needs `package` (normalized name): `Some(false)` only when the family
    /// is known and its code does not use it.
    pub fn needs_package(&self, package: &str) -> Option<bool> {
        let name = crate::names::normalize_name(package);
        if self.family.is_none() && self.model_type.is_none() {
            return None;
        }
        if self.kernels.contains(&name) {
            return Some(true);
        }
        if self.family.is_none() {
            // A config we do not know: only the Mamba hint is reliable.
            return (matches!(name.as_str(), "mamba-ssm" | "causal-conv1d")
                && self.uses_mamba_kernels == Some(true))
            .then_some(true);
        }
        Some(false)
    }
}

/// Largest `config.json` read; real ones are a few KB.
const MAX_CONFIG_BYTES: u64 = 4 << 20;

/// Resolves a model id (`org/name` or a local directory) to its family: from `config.json` in a
/// local directory or the Hugging Face cache (`hf_home`/hub, else `$HF_HUB_CACHE`,
/// `$HF_HOME/hub`, `$XDG_CACHE_HOME/huggingface/hub`, `~/.cache/huggingface/hub`), else from name
/// patterns. Reads at most one small file per candidate; never fails.
pub fn resolve_model(id: &str, hf_home: Option<&Path>) -> ModelInfo {
    let id = id.trim();
    if let Some(path) = find_config(id, hf_home)
        && let Some(cfg) = read_config(&path)
    {
        return from_config(id, path, &cfg);
    }
    resolve_model_by_name(id)
}

/// The model's family judged from its id alone: nothing is read from disk (`--no-env`, where a
/// local directory or a Hugging Face cache on this machine says nothing about the text's).
pub fn resolve_model_by_name(id: &str) -> ModelInfo {
    let id = id.trim();
    match family_for_model_id(id) {
        Some((fam, _)) => ModelInfo {
            id: id.to_string(),
            family: Some(fam),
            model_type: Some(fam.model_type.clone()),
            architectures: Vec::new(),
            uses_mamba_kernels: Some(fam.uses_mamba_kernels),
            kernels: fam.kernels.clone(),
            via: Via::NamePattern,
        },
        None => ModelInfo {
            id: id.to_string(),
            family: None,
            model_type: None,
            architectures: Vec::new(),
            uses_mamba_kernels: None,
            kernels: Vec::new(),
            via: Via::Unknown,
        },
    }
}

fn from_config(id: &str, path: PathBuf, cfg: &serde_json::Value) -> ModelInfo {
    let str_of =
        |v: &serde_json::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
    let mut model_type = str_of(cfg, "model_type");
    let mut family = model_type.as_deref().and_then(family_for_model_type);
    // Multimodal wrappers keep the language model's type in text_config.
    if family.is_none()
        && let Some(t) = cfg.get("text_config").and_then(|t| str_of(t, "model_type"))
        && let Some(f) = family_for_model_type(&t)
    {
        family = Some(f);
        model_type = model_type.or(Some(t));
    }
    let architectures: Vec<String> = cfg
        .get("architectures")
        .and_then(|a| a.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut uses = match family {
        Some(f) => Some(f.uses_mamba_kernels),
        None => {
            let mamba_hint = model_type.as_deref().is_some_and(|t| t.contains("mamba"))
                || architectures
                    .iter()
                    .any(|a| a.to_ascii_lowercase().contains("mamba"));
            mamba_hint.then_some(true)
        }
    };
    let mut kernels = family.map(|f| f.kernels.clone()).unwrap_or_default();
    // A hybrid config whose layer list holds no Mamba layer runs no Mamba kernel
    // (granitemoehybrid configs with attention layers only exist).
    if uses == Some(true) && layer_list_has_mamba(cfg) == Some(false) {
        uses = Some(false);
        kernels.retain(|k| k != "mamba-ssm" && k != "causal-conv1d");
    }
    ModelInfo {
        id: id.to_string(),
        family,
        model_type,
        architectures,
        uses_mamba_kernels: uses,
        kernels,
        via: Via::Config(path),
    }
}

/// `Some(has)` when the config lists its layer kinds (`layer_types`, `layers_block_type`,
/// `hybrid_override_pattern`), `None` when it does not.
fn layer_list_has_mamba(cfg: &serde_json::Value) -> Option<bool> {
    for key in ["layer_types", "layers_block_type", "block_types"] {
        if let Some(list) = cfg.get(key).and_then(|v| v.as_array()) {
            let kinds: Vec<String> = list
                .iter()
                .filter_map(|x| x.as_str().map(str::to_ascii_lowercase))
                .collect();
            if !kinds.is_empty() {
                return Some(
                    kinds
                        .iter()
                        .any(|k| k.contains("mamba") || k == "m" || k == "hybrid"),
                );
            }
        }
    }
    // Nemotron-H: one character per layer, `M` for Mamba.
    cfg.get("hybrid_override_pattern")
        .and_then(|v| v.as_str())
        .map(|p| p.contains('M'))
}

fn read_config(path: &Path) -> Option<serde_json::Value> {
    use std::io::Read;
    let file = std::fs::File::open(path).ok()?;
    let mut buf = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1).read_to_end(&mut buf).ok()?;
    if buf.len() as u64 > MAX_CONFIG_BYTES {
        return None;
    }
    let v: serde_json::Value = serde_json::from_slice(&buf).ok()?;
    v.is_object().then_some(v)
}

/// The hub cache directories to look in, most specific first.
pub fn hub_dirs(hf_home: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(h) = hf_home {
        dirs.push(h.join("hub"));
        dirs.push(h.to_path_buf());
        return dirs;
    }
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(d) = env("HF_HUB_CACHE").or_else(|| env("HUGGINGFACE_HUB_CACHE")) {
        dirs.push(d);
    }
    if let Some(h) = env("HF_HOME") {
        dirs.push(h.join("hub"));
    }
    if let Some(x) = env("XDG_CACHE_HOME") {
        dirs.push(x.join("huggingface").join("hub"));
    }
    if let Some(home) = env("HOME") {
        dirs.push(home.join(".cache").join("huggingface").join("hub"));
    }
    dirs
}

/// The `config.json` for a model id, if one is on disk.
pub fn find_config(id: &str, hf_home: Option<&Path>) -> Option<PathBuf> {
    if id.is_empty() || id.contains('\0') {
        return None;
    }
    // A local directory given as the model.
    let local = if let Some(rest) = id.strip_prefix("~/") {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest))
    } else {
        Some(PathBuf::from(id))
    };
    if let Some(dir) = local {
        let cfg = dir.join("config.json");
        if cfg.is_file() {
            return Some(cfg);
        }
    }
    // Hub ids are `name` or `org/name`.
    let parts: Vec<&str> = id.split('/').collect();
    if parts.len() > 2
        || parts
            .iter()
            .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return None;
    }
    let folder = format!("models--{}", parts.join("--"));
    for hub in hub_dirs(hf_home) {
        let repo = hub.join(&folder);
        if !repo.is_dir() {
            continue;
        }
        let snapshots = repo.join("snapshots");
        // Prefer the revision `main` points at.
        if let Ok(main) = std::fs::read_to_string(repo.join("refs").join("main")) {
            let rev = main.trim();
            if !rev.is_empty() && !rev.contains(['/', '\\']) && rev != ".." {
                let cfg = snapshots.join(rev).join("config.json");
                if cfg.is_file() {
                    return Some(cfg);
                }
            }
        }
        let mut revs: Vec<PathBuf> = std::fs::read_dir(&snapshots)
            .ok()?
            .filter_map(Result::ok)
            .map(|e| e.path().join("config.json"))
            .filter(|p| p.is_file())
            .collect();
        revs.sort();
        if let Some(cfg) = revs.pop() {
            return Some(cfg);
        }
    }
    None
}
