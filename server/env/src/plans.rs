//! Install plans as `verify` reads them: pip's `--dry-run --report` JSON, requirements files
//! (`\` continuations, per-line options such as `--hash`, comments, environment markers, `-r`
//! includes read through `fsguard`) and `pylock.toml` (PEP 751), each into one [`Plan`] of
//! [`PlannedInstall`]s plus the problems met. Readers never fail, and no line that installs
//! something is dropped without a word: what cannot be judged is listed as such.

use std::path::{Path, PathBuf};

/// One entry of an install plan.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannedInstall {
    pub name: String,
    /// The exact version (`==V`), when the plan pins one.
    pub version: Option<String>,
    /// Where the wheel comes from (`download_info.url`, a requirement's URL, a lock's URL).
    pub url: Option<String>,
    /// The wheel file on this machine, when the plan names one.
    pub local_wheel: Option<PathBuf>,
    /// The version installed now, if the distribution is installed.
    pub replaces: Option<String>,
    /// A version range that is not an exact pin (`>=1.26,<2`), as written.
    pub specifier: Option<String>,
    /// The environment marker (`python_version < "3.11"`), as written.
    pub marker: Option<String>,
    /// Where it was read (`requirements.txt:3`), when the plan is a file of lines.
    pub origin: Option<String>,
}

/// An install plan as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub installs: Vec<PlannedInstall>,
    pub problems: Vec<String>,
}

impl Plan {
    /// The torch the plan installs, if it installs one.
    pub fn torch(&self) -> Option<&PlannedInstall> {
        self.installs
            .iter()
            .find(|i| crate::dist::normalize_name(&i.name) == "torch")
    }
}

/// Reads `pip install --dry-run --report FILE` output (format version 1): each `install` entry's
/// `metadata.name`/`version` and `download_info.url`. Never fails: what is unreadable becomes a
/// problem.
pub fn parse_pip_report(text: &str, env: Option<&crate::Environment>) -> Plan {
    let mut plan = Plan::default();
    let v: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            plan.problems
                .push(format!("not a pip installation report (JSON): {e}"));
            return plan;
        }
    };
    let Some(list) = v.get("install").and_then(|i| i.as_array()) else {
        plan.problems
            .push("not a pip installation report: no `install` list".into());
        return plan;
    };
    for (n, item) in list.iter().enumerate() {
        let meta = item.get("metadata");
        let field = |k: &str| {
            meta.and_then(|m| m.get(k))
                .and_then(|x| x.as_str())
                .map(str::to_string)
        };
        let Some(name) = field("name") else {
            plan.problems
                .push(format!("install entry {n} has no metadata.name"));
            continue;
        };
        let url = item
            .get("download_info")
            .and_then(|d| d.get("url"))
            .and_then(|u| u.as_str())
            .map(str::to_string);
        let local_wheel = url
            .as_deref()
            .and_then(file_url_path)
            .filter(|p| is_wheel(p));
        let replaces = env
            .and_then(|e| e.dist(&crate::dist::normalize_name(&name)))
            .and_then(|d| d.version.clone());
        plan.installs.push(PlannedInstall {
            name,
            version: field("version"),
            url,
            local_wheel,
            replaces,
            ..PlannedInstall::default()
        });
    }
    plan
}

/// How deep `-r` includes may nest: deeper is a mistake or a trap, not a project layout.
pub const MAX_INCLUDE_DEPTH: usize = 8;
/// Files read through includes, all together: a fan-out of includes stays bounded.
const MAX_INCLUDED_FILES: usize = 256;
/// An included requirements file larger than this is not a requirements file.
const MAX_INCLUDED_BYTES: u64 = 16 << 20;

/// Reads a requirements-style plan (a requirements file, `uv pip compile` output) whose text is
/// `text` and which lies at `file` (relative paths are read from its directory): pins, bare
/// names and ranges, local wheels as paths or `name @ file:///….whl`, with `\` continuations,
/// per-line options (`--hash`), comments and environment markers; `-r FILE` includes are read
/// (relative to the including file, through `fsguard`, at most [`MAX_INCLUDE_DEPTH`] deep, each
/// file once).
pub fn parse_requirements_file(text: &str, file: &Path) -> Plan {
    let mut plan = Plan::default();
    let mut reader = Includes {
        stack: Vec::new(),
        read: Vec::new(),
    };
    let me = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let key = crate::fsguard::resolve_regular(&me).map_or_else(|_| me.clone(), |(p, _)| p);
    reader.stack.push(key.clone());
    reader.read.push(key);
    requirements_into(text, &me, 0, &mut reader, &mut plan);
    plan
}

/// Reads requirements lines with no file behind them: relative paths from `base`; `-r`
/// includes are listed as problems (there is no file to be relative to).
pub fn parse_requirements(text: &str, base: &Path) -> Plan {
    let mut plan = Plan::default();
    for (line_no, line) in logical_lines(text) {
        let origin = format!("line {line_no}");
        match classify_line(&line) {
            Line::Empty | Line::Skip => {}
            Line::Include(f) => plan.problems.push(format!(
                "{origin}: `-r {f}` not read: the lines have no file to be relative to"
            )),
            Line::Editable(what) => plan.problems.push(editable(&origin, &what)),
            Line::Requirement(req) => push_requirement(&req, base, &origin, &mut plan),
        }
    }
    plan
}

struct Includes {
    /// The files being read, outermost first (resolved): an include of one of them is a loop.
    stack: Vec<PathBuf>,
    /// Every file read so far: an include reached twice (a diamond) is read once.
    read: Vec<PathBuf>,
}

fn requirements_into(text: &str, file: &Path, depth: usize, inc: &mut Includes, plan: &mut Plan) {
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let shown = file.display().to_string();
    for (line_no, line) in logical_lines(text) {
        let origin = format!("{shown}:{line_no}");
        match classify_line(&line) {
            Line::Empty | Line::Skip => {}
            Line::Editable(what) => plan.problems.push(editable(&origin, &what)),
            Line::Requirement(req) => push_requirement(&req, &base, &origin, plan),
            Line::Include(target) => {
                if target.contains("://") {
                    plan.problems.push(format!(
                        "{origin}: `-r {target}` not read: only local files are read"
                    ));
                    continue;
                }
                let path = crate::dist::lexical_join(&base, Path::new(&target));
                if depth + 1 > MAX_INCLUDE_DEPTH {
                    plan.problems.push(format!(
                        "{origin}: `-r {target}` not read: includes nest deeper than {MAX_INCLUDE_DEPTH}"
                    ));
                    continue;
                }
                if inc.read.len() >= MAX_INCLUDED_FILES {
                    plan.problems.push(format!(
                        "{origin}: `-r {target}` not read: more than {MAX_INCLUDED_FILES} files included"
                    ));
                    continue;
                }
                // Resolved first, so a device or a FIFO behind a link is refused before any
                // open, and a loop through a link is still a loop.
                let resolved = match crate::fsguard::resolve_regular(&path) {
                    Ok((p, _)) => p,
                    Err(e) => {
                        plan.problems.push(format!(
                            "{origin}: `-r {target}` not read ({}): {e}",
                            path.display()
                        ));
                        continue;
                    }
                };
                if inc.stack.contains(&resolved) {
                    plan.problems.push(format!(
                        "{origin}: `-r {target}` not read again: it includes itself (an include loop)"
                    ));
                    continue;
                }
                if inc.read.contains(&resolved) {
                    continue;
                }
                let text = match crate::fsguard::read_text_capped(&path, MAX_INCLUDED_BYTES) {
                    Ok(t) => t,
                    Err(e) => {
                        plan.problems.push(format!(
                            "{origin}: `-r {target}` not read ({}): {e}",
                            path.display()
                        ));
                        continue;
                    }
                };
                inc.read.push(resolved.clone());
                inc.stack.push(resolved);
                requirements_into(&text, &path, depth + 1, inc, plan);
                inc.stack.pop();
            }
        }
    }
}

fn editable(origin: &str, what: &str) -> String {
    format!("{origin}: `-e {what}` is built from source at install time: not judged")
}

/// pip's logical lines: `\` at the end of a line joins the next (not on a comment line), then
/// comments (`#` at the start or after whitespace) go. Numbered from 1 by the first physical
/// line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut pending: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        let comment = raw.trim_start().starts_with('#');
        match raw.strip_suffix('\\').filter(|_| !comment) {
            Some(head) => {
                let (_, buf) = pending.get_or_insert_with(|| (i + 1, String::new()));
                buf.push_str(head);
            }
            None => {
                let (n, mut buf) = pending.take().unwrap_or((i + 1, String::new()));
                if comment && !buf.is_empty() {
                    // A comment line ends the continued line without joining it.
                    out.push((n, strip_comment(&buf)));
                    continue;
                }
                buf.push_str(raw);
                out.push((n, strip_comment(&buf)));
            }
        }
    }
    if let Some((n, buf)) = pending {
        out.push((n, strip_comment(&buf)));
    }
    out
}

/// The line without its comment: `#` at its start or after whitespace (a URL's `#sha256=`
/// fragment stays).
fn strip_comment(line: &str) -> String {
    let b = line.as_bytes();
    let cut = line.char_indices().find(|&(i, c)| {
        c == '#'
            && (i == 0
                || b.get(i.wrapping_sub(1))
                    .is_some_and(u8::is_ascii_whitespace))
    });
    match cut {
        Some((i, _)) => line.get(..i).unwrap_or(line).trim().to_string(),
        None => line.trim().to_string(),
    }
}

enum Line {
    Empty,
    /// An option that installs nothing (`--index-url`, `-c constraints.txt`, `--pre`).
    Skip,
    Include(String),
    Editable(String),
    Requirement(String),
}

/// pip's split of a line: the requirement is every token before the first that starts with
/// `-`; the rest are options (`--hash=…`, `--config-settings …`), which change nothing judged.
fn classify_line(line: &str) -> Line {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some(first) = tokens.first() else {
        return Line::Empty;
    };
    if first.starts_with('-') {
        let value = |long: &str, short: &str| -> Option<String> {
            if *first == long || *first == short {
                return tokens.get(1).map(|s| (*s).to_string());
            }
            if let Some(v) = first.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
                return Some(v.to_string());
            }
            first
                .strip_prefix(short)
                .filter(|v| !v.is_empty() && !v.starts_with('-'))
                .map(str::to_string)
        };
        if let Some(f) = value("--requirement", "-r") {
            return Line::Include(f);
        }
        if let Some(e) = value("--editable", "-e") {
            return Line::Editable(e);
        }
        return Line::Skip;
    }
    let req: Vec<&str> = tokens
        .iter()
        .take_while(|t| !t.starts_with('-'))
        .copied()
        .collect();
    Line::Requirement(req.join(" "))
}

/// One requirement (options already gone): `name[extras] @ url ; marker`, a path or URL to a
/// wheel, or `name[extras] SPEC ; marker`.
fn push_requirement(req: &str, base: &Path, origin: &str, plan: &mut Plan) {
    let (name_part, rest) = match req.split_once('@') {
        // `name @ url`: a name has no `/` or `:`, a path or URL before an `@` does.
        Some((n, r)) if !n.contains(['/', ':']) && !n.trim().is_empty() => {
            (Some(n.trim()), r.trim())
        }
        _ => (None, req.trim()),
    };
    let url_like = name_part.is_some()
        || rest.contains("://")
        || rest.starts_with(['.', '/', '~'])
        || rest
            .split(';')
            .next()
            .is_some_and(|h| h.trim().ends_with(".whl"));
    // A URL's marker follows ` ;` (a `;` may belong to the URL); a name's follows any `;`.
    let (body, marker) = if url_like {
        match rest.split_once(" ;") {
            Some((b, m)) => (b.trim(), Some(m.trim())),
            None if name_part.is_none() => match rest.split_once(';') {
                Some((b, m)) => (b.trim(), Some(m.trim())),
                None => (rest, None),
            },
            None => (rest, None),
        }
    } else {
        match rest.split_once(';') {
            Some((b, m)) => (b.trim(), Some(m.trim())),
            None => (rest, None),
        }
    };
    let marker = marker.filter(|m| !m.is_empty()).map(str::to_string);
    let origin = Some(origin.to_string());
    if url_like {
        let local = if body.starts_with("file://") {
            file_url_path(body)
        } else if !body.contains("://") {
            Some(crate::dist::lexical_join(base, Path::new(body)))
        } else {
            None
        };
        let from_file = local
            .as_deref()
            .or_else(|| Some(Path::new(body.rsplit('/').next().unwrap_or(""))))
            .and_then(|p| p.file_name())
            .and_then(|f| f.to_str())
            .and_then(|f| f.split(['#', '?']).next())
            // PyTorch's index escapes a local version's `+` in its URLs.
            .map(|f| f.replace("%2B", "+").replace("%2b", "+"))
            .and_then(|f| crate::wheel::parse_file_name(&f));
        let name = name_part
            .map(|n| strip_extras(n).to_string())
            .or_else(|| from_file.as_ref().map(|f| f.0.clone()));
        let Some(name) = name.filter(|n| is_name(n)) else {
            plan.problems.push(format!(
                "{}: cannot tell which distribution {req:?} installs: not judged",
                origin.as_deref().unwrap_or("")
            ));
            return;
        };
        let wheel = local.filter(|p| is_wheel(p));
        plan.installs.push(PlannedInstall {
            name,
            version: from_file.map(|f| f.1),
            url: wheel.is_none().then(|| body.to_string()),
            local_wheel: wheel,
            marker,
            origin,
            ..PlannedInstall::default()
        });
        return;
    }
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
        .unwrap_or(body.len());
    let (name, spec) = body.split_at(end);
    let spec = spec.trim_start();
    // Extras change what else installs, not this distribution's wheel.
    let spec = match spec.strip_prefix('[') {
        Some(r) => r.split_once(']').map_or("", |(_, s)| s).trim(),
        None => spec,
    };
    let spec = spec
        .strip_prefix('(')
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or(spec)
        .trim();
    if !is_name(name) || spec.starts_with(|c: char| c.is_alphanumeric()) {
        plan.problems.push(format!(
            "{}: cannot tell which distribution {req:?} installs: not judged",
            origin.as_deref().unwrap_or("")
        ));
        return;
    }
    let pinned = spec
        .strip_prefix("===")
        .or_else(|| spec.strip_prefix("=="))
        .map(str::trim)
        .filter(|v| {
            !v.is_empty()
                && !v.contains(['*', ',', ' ', '<', '>', '=', '!', '~'])
                && v.chars().all(|c| c.is_ascii_graphic())
        });
    plan.installs.push(PlannedInstall {
        name: name.to_string(),
        version: pinned.map(str::to_string),
        specifier: (pinned.is_none() && !spec.is_empty()).then(|| spec.to_string()),
        marker,
        origin,
        ..PlannedInstall::default()
    });
}

fn strip_extras(name: &str) -> &str {
    name.split('[').next().unwrap_or(name).trim()
}

/// A PEP 508 distribution name.
fn is_name(n: &str) -> bool {
    let b = n.as_bytes();
    !b.is_empty()
        && b.len() <= 128
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

fn is_wheel(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "whl")
}

/// Reads a `pylock.toml` (PEP 751) lying at `file`: each `[[packages]]` entry's `name`,
/// `version` and `marker`, the local wheel it names (a `wheels` entry's or `archive`'s `path`,
/// relative to the lock's directory) or else the URL it installs from (`wheels`, `archive`,
/// `sdist`, `vcs`, `directory`).
pub fn parse_pylock(text: &str, file: &Path) -> Plan {
    let mut plan = Plan::default();
    let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let doc: toml::Table = match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            let msg = e.message().to_string();
            plan.problems
                .push(format!("not a pylock.toml (TOML): {msg}"));
            return plan;
        }
    };
    if !doc.contains_key("lock-version") {
        plan.problems
            .push("no `lock-version`: read as a pylock.toml anyway".into());
    }
    let Some(packages) = doc.get("packages").and_then(toml::Value::as_array) else {
        plan.problems
            .push("not a pylock.toml: no [[packages]] list".into());
        return plan;
    };
    let s = |v: Option<&toml::Value>| v.and_then(toml::Value::as_str).map(str::to_string);
    for (n, p) in packages.iter().enumerate() {
        let Some(name) = s(p.get("name")).filter(|n| is_name(n)) else {
            plan.problems
                .push(format!("packages[{n}] has no valid `name`: not judged"));
            continue;
        };
        let version = s(p.get("version"));
        let local = |e: &toml::Value| {
            s(e.get("path")).map(|path| crate::dist::lexical_join(&base, Path::new(&path)))
        };
        let wheels: Vec<&toml::Value> = p
            .get("wheels")
            .and_then(toml::Value::as_array)
            .map(|w| w.iter().collect())
            .unwrap_or_default();
        // Of several local wheels (one per platform), the first this machine could install.
        let mut local_wheels: Vec<PathBuf> = wheels.iter().filter_map(|w| local(w)).collect();
        let archive = p.get("archive");
        if let Some(a) = archive.and_then(local).filter(|p| is_wheel(p)) {
            local_wheels.push(a);
        }
        let fits: Vec<&PathBuf> = local_wheels
            .iter()
            .filter(|w| {
                w.file_name()
                    .and_then(|f| f.to_str())
                    .is_some_and(platform_fits)
            })
            .collect();
        if fits.len() > 1 {
            plan.problems.push(format!(
                "{name}: {} local wheels for this platform; the first is judged ({})",
                fits.len(),
                fits.iter()
                    .skip(1)
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let chosen = fits.first().map(|p| (*p).clone());
        if chosen.is_none() && !local_wheels.is_empty() {
            plan.problems.push(format!(
                "{name}: no local wheel for this platform among {}",
                local_wheels.len()
            ));
        }
        let url = if chosen.is_some() {
            None
        } else {
            wheels
                .iter()
                .find_map(|w| s(w.get("url")))
                .or_else(|| archive.and_then(|a| s(a.get("url")).or_else(|| s(a.get("path")))))
                .or_else(|| {
                    p.get("sdist")
                        .and_then(|a| s(a.get("url")).or_else(|| s(a.get("path"))))
                })
                .or_else(|| p.get("vcs").and_then(|a| s(a.get("url"))))
                .or_else(|| p.get("directory").and_then(|a| s(a.get("path"))))
        };
        plan.installs.push(PlannedInstall {
            name,
            version,
            url,
            local_wheel: chosen,
            marker: s(p.get("marker")),
            origin: Some(format!("packages[{n}]")),
            ..PlannedInstall::default()
        });
    }
    plan
}

/// Whether a wheel's platform tag could install on this machine (Linux, this architecture, or
/// any platform).
fn platform_fits(file_name: &str) -> bool {
    let Some(stem) = file_name.strip_suffix(".whl") else {
        return false;
    };
    let Some(platform) = stem.rsplit('-').next() else {
        return false;
    };
    let arch = std::env::consts::ARCH;
    platform.split('.').any(|p| {
        p == "any"
            || ((p.starts_with("linux_")
                || p.starts_with("manylinux")
                || p.starts_with("musllinux"))
                && p.ends_with(arch))
    })
}

/// What an environment marker is evaluated against: this machine (Linux, CPython) and the
/// target environment's Python (`3.12`), when known.
#[derive(Debug, Clone, Default)]
pub struct MarkerEnv {
    pub python_version: Option<String>,
}

/// Whether `marker` holds in `env`: `Some(false)` when it excludes this install, `None` when it
/// cannot be told (an unknown variable, an unknown Python, a form not understood).
pub fn marker_holds(marker: &str, env: &MarkerEnv) -> Option<bool> {
    let tokens = marker_tokens(marker)?;
    let mut p = MarkerParser {
        tokens: &tokens,
        at: 0,
        env,
    };
    let v = p.or()?;
    (p.at == tokens.len()).then_some(v)?
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Op(String),
    Open,
    Close,
}

fn marker_tokens(m: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut chars = m.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '(' {
            chars.next();
            out.push(Tok::Open);
        } else if c == ')' {
            chars.next();
            out.push(Tok::Close);
        } else if c == '"' || c == '\'' {
            chars.next();
            let start = i + 1;
            let mut end = None;
            for (j, d) in chars.by_ref() {
                if d == c {
                    end = Some(j);
                    break;
                }
            }
            out.push(Tok::Str(m.get(start..end?)?.to_string()));
        } else if "=!<>~".contains(c) {
            let mut op = String::new();
            while let Some(&(_, d)) = chars.peek() {
                if !"=!<>~".contains(d) {
                    break;
                }
                op.push(d);
                chars.next();
            }
            out.push(Tok::Op(op));
        } else if c.is_alphanumeric() || c == '_' || c == '.' {
            let mut w = String::new();
            while let Some(&(_, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_' || d == '.') {
                    break;
                }
                w.push(d);
                chars.next();
            }
            out.push(Tok::Word(w));
        } else {
            return None;
        }
    }
    Some(out)
}

struct MarkerParser<'a> {
    tokens: &'a [Tok],
    at: usize,
    env: &'a MarkerEnv,
}

/// Three-valued logic: an unknown side decides nothing unless the other side does.
impl MarkerParser<'_> {
    fn peek_word(&self, w: &str) -> bool {
        matches!(self.tokens.get(self.at), Some(Tok::Word(x)) if x == w)
    }

    fn or(&mut self) -> Option<Option<bool>> {
        let mut v = self.and()?;
        while self.peek_word("or") {
            self.at += 1;
            let r = self.and()?;
            v = match (v, r) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            };
        }
        Some(v)
    }

    fn and(&mut self) -> Option<Option<bool>> {
        let mut v = self.atom()?;
        while self.peek_word("and") {
            self.at += 1;
            let r = self.atom()?;
            v = match (v, r) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            };
        }
        Some(v)
    }

    fn atom(&mut self) -> Option<Option<bool>> {
        if self.tokens.get(self.at) == Some(&Tok::Open) {
            self.at += 1;
            let v = self.or()?;
            if self.tokens.get(self.at) != Some(&Tok::Close) {
                return None;
            }
            self.at += 1;
            return Some(v);
        }
        let left = self.value()?;
        let op = match self.tokens.get(self.at)? {
            Tok::Op(o) => o.clone(),
            Tok::Word(w) if w == "in" => "in".to_string(),
            Tok::Word(w) if w == "not" => {
                self.at += 1;
                if !self.peek_word("in") {
                    return None;
                }
                "not in".to_string()
            }
            _ => return None,
        };
        self.at += 1;
        let right = self.value()?;
        Some(compare(left.as_deref(), &op, right.as_deref()))
    }

    /// A quoted string, or a variable's value (`None` when this machine's value is unknown).
    fn value(&mut self) -> Option<Option<String>> {
        let t = self.tokens.get(self.at)?;
        self.at += 1;
        match t {
            Tok::Str(s) => Some(Some(s.clone())),
            Tok::Word(w) => Some(self.variable(w)),
            _ => None,
        }
    }

    fn variable(&self, name: &str) -> Option<String> {
        let v = match name {
            "python_version" => return self.env.python_version.clone(),
            "sys_platform" => "linux",
            "platform_system" => "Linux",
            "os_name" => "posix",
            "platform_machine" => std::env::consts::ARCH,
            "implementation_name" => "cpython",
            "platform_python_implementation" => "CPython",
            _ => return None,
        };
        Some(v.to_string())
    }
}

/// `left op right`: numeric when both sides are dotted numbers, else as strings.
fn compare(left: Option<&str>, op: &str, right: Option<&str>) -> Option<bool> {
    let (l, r) = (left?, right?);
    let nums = |s: &str| -> Option<Vec<u64>> { s.split('.').map(|p| p.parse().ok()).collect() };
    let ord = match (nums(l), nums(r)) {
        (Some(mut a), Some(mut b)) => {
            let n = a.len().max(b.len());
            a.resize(n, 0);
            b.resize(n, 0);
            a.cmp(&b)
        }
        _ => l.cmp(r),
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    Some(match op {
        "==" | "===" => ord == Equal,
        "!=" => ord != Equal,
        "<" => ord == Less,
        "<=" => ord != Greater,
        ">" => ord == Greater,
        ">=" => ord != Less,
        "in" => r.contains(l),
        "not in" => !r.contains(l),
        _ => return None,
    })
}

/// The path of a `file://` URL (percent-escapes decoded), or `None`.
pub fn file_url_path(url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("file://")?;
    // `file:///p` or `file://localhost/p`; another host is not this machine.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let b = rest.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%'
            && let Some(h) = b.get(i + 1..i + 3)
            && let Ok(s) = std::str::from_utf8(h)
            && let Ok(x) = u8::from_str_radix(s, 16)
        {
            out.push(x);
            i += 3;
            continue;
        }
        out.push(c);
        i += 1;
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// `pip-compile --generate-hashes` output: the pin keeps no `\` and no hash.
    #[test]
    fn continuations_and_hashes() {
        let text = "torch==2.9.1 \\\n    --hash=sha256:aa \\\n    --hash=sha256:bb\n    # via -r requirements.in\nflash-attn==2.8.3 --hash=sha256:cc\n";
        let plan = parse_requirements(text, Path::new("/p"));
        assert!(plan.problems.is_empty(), "{plan:?}");
        let got: Vec<(&str, Option<&str>)> = plan
            .installs
            .iter()
            .map(|i| (i.name.as_str(), i.version.as_deref()))
            .collect();
        assert_eq!(
            got,
            [("torch", Some("2.9.1")), ("flash-attn", Some("2.8.3"))]
        );
        assert_eq!(plan.installs[1].origin.as_deref(), Some("line 5"));
    }

    #[test]
    fn names_ranges_markers_and_options() {
        let text = "numpy\nscipy>=1.11,<2 ; python_version >= \"3.10\"\nmamba-ssm[causal-conv1d]==2.2.4\nrequests [socks] (==2.31.0)\n-e ./local\n--index-url https://x\n-c constraints.txt\npkg @ https://h/p.tar.gz#sha256=ab ; sys_platform == 'linux'\n!!bad\n";
        let plan = parse_requirements(text, Path::new("/p"));
        let names: Vec<&str> = plan.installs.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["numpy", "scipy", "mamba-ssm", "requests", "pkg"]);
        assert_eq!(plan.installs[0].version, None);
        assert_eq!(plan.installs[1].specifier.as_deref(), Some(">=1.11,<2"));
        assert_eq!(
            plan.installs[1].marker.as_deref(),
            Some("python_version >= \"3.10\"")
        );
        assert_eq!(plan.installs[2].version.as_deref(), Some("2.2.4"));
        assert_eq!(plan.installs[3].version.as_deref(), Some("2.31.0"));
        assert_eq!(
            plan.installs[4].url.as_deref(),
            Some("https://h/p.tar.gz#sha256=ab")
        );
        assert_eq!(plan.problems.len(), 2, "{plan:?}");
        assert!(plan.problems[0].contains("-e ./local"), "{plan:?}");
        assert!(plan.problems[1].contains("!!bad"), "{plan:?}");
    }

    #[test]
    fn markers_are_evaluated_where_they_can_be() {
        let env = MarkerEnv {
            python_version: Some("3.12".into()),
        };
        for (m, want) in [
            ("python_version >= \"3.10\"", Some(true)),
            ("python_version < '3.9'", Some(false)),
            ("sys_platform == 'darwin'", Some(false)),
            (
                "sys_platform == 'linux' and python_version > '3.8'",
                Some(true),
            ),
            ("(extra == 'x') or python_version == '3.12'", Some(true)),
            ("extra == 'x' and python_version == '3.12'", None),
            ("'linux' in sys_platform", Some(true)),
            ("python_version <", None),
            ("platform_system != \"Windows\"", Some(true)),
        ] {
            assert_eq!(marker_holds(m, &env), want, "{m}");
        }
        assert_eq!(
            marker_holds("python_version < '3.9'", &MarkerEnv::default()),
            None
        );
    }

    #[test]
    fn includes_relative_loops_and_depth() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("sub/deeper")).unwrap();
        std::fs::write(d.join("sub/base.txt"), "-r deeper/leaf.txt\ntorch==2.5.1\n").unwrap();
        std::fs::write(d.join("sub/deeper/leaf.txt"), "numpy\n-r ../../top.txt\n").unwrap();
        let top = "--requirement sub/base.txt\n-r sub/base.txt\n-r missing.txt\n-r /dev/zero\n";
        std::fs::write(d.join("top.txt"), top).unwrap();
        let plan = parse_requirements_file(top, &d.join("top.txt"));
        let names: Vec<&str> = plan.installs.iter().map(|i| i.name.as_str()).collect();
        // A diamond is read once; the loop back to top.txt is refused with a word.
        assert_eq!(names, ["numpy", "torch"], "{plan:?}");
        assert_eq!(plan.problems.len(), 3, "{plan:?}");
        assert!(plan.problems[0].contains("include loop"), "{plan:?}");
        assert!(plan.problems[1].contains("missing.txt"), "{plan:?}");
        assert!(plan.problems[2].contains("/proc, /sys or /dev"), "{plan:?}");
        // A chain longer than the limit stops there.
        for i in 0..12 {
            std::fs::write(d.join(format!("c{i}.txt")), format!("-r c{}.txt\n", i + 1)).unwrap();
        }
        let plan = parse_requirements_file("-r c0.txt\n", &d.join("chain.txt"));
        assert_eq!(plan.problems.len(), 1, "{plan:?}");
        assert!(plan.problems[0].contains("deeper than"), "{plan:?}");
    }

    /// Cut, odd and non-ASCII input: the readers return what they understood, never panic.
    #[test]
    fn odd_input_never_panics() {
        let inputs = [
            "\\",
            "x \\",
            "-r",
            "-r\n--requirement=\n-e",
            "é==1 ; python_version < 'é",
            "torch==2.5.1 ; (python_version",
            "a @",
            "@ b",
            "name[extra==1",
            "#\\\nx==1",
            "pkg ; ",
            "\u{200b}torch==1",
            "lock-version = 1\n[[packages]]\nname = 3\nwheels = 'x'\narchive = []",
            "[[packages]]\nname = \"a\"\nwheels = [{ path = 7 }, 'x', { path = \"é.whl\" }]",
        ];
        let env = MarkerEnv {
            python_version: Some("3.12".into()),
        };
        for text in inputs {
            let _ = parse_requirements(text, Path::new("/p"));
            let _ = parse_requirements_file(text, Path::new("/nonexistent/r.txt"));
            let _ = parse_pylock(text, Path::new("/p/pylock.toml"));
            let _ = marker_holds(text, &env);
            for cut in 0..text.len() {
                if let Some(t) = text.get(..cut) {
                    let _ = parse_requirements(t, Path::new("/p"));
                    let _ = marker_holds(t, &env);
                }
            }
        }
    }

    #[test]
    fn reads_a_pylock() {
        let text = r#"
lock-version = "1.0"
created-by = "uv"
[[packages]]
name = "torch"
version = "2.5.1"
wheels = [{ url = "https://h/torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl" }]
[[packages]]
name = "goodext"
version = "1.0.0"
wheels = [
  { path = "./w/goodext-1.0.0-cp312-cp312-macosx_11_0_arm64.whl" },
  { path = "./w/goodext-1.0.0-cp312-cp312-linux_x86_64.whl" },
]
[[packages]]
name = "oldext"
version = "1.0.0"
archive = { path = "w/oldext-1.0.0-py3-none-any.whl" }
[[packages]]
name = "flash-attn"
version = "2.6.3"
sdist = { url = "https://h/flash_attn-2.6.3.tar.gz" }
marker = "sys_platform == 'linux'"
[[packages]]
version = "1"
"#;
        let plan = parse_pylock(text, Path::new("/proj/pylock.toml"));
        assert_eq!(plan.installs.len(), 4, "{plan:?}");
        assert_eq!(
            plan.torch().and_then(|t| t.version.as_deref()),
            Some("2.5.1")
        );
        if std::env::consts::ARCH == "x86_64" {
            assert_eq!(
                plan.installs[1].local_wheel.as_deref(),
                Some(Path::new(
                    "/proj/w/goodext-1.0.0-cp312-cp312-linux_x86_64.whl"
                ))
            );
        }
        assert_eq!(
            plan.installs[2].local_wheel.as_deref(),
            Some(Path::new("/proj/w/oldext-1.0.0-py3-none-any.whl"))
        );
        assert_eq!(
            plan.installs[3].url.as_deref(),
            Some("https://h/flash_attn-2.6.3.tar.gz")
        );
        assert_eq!(
            plan.installs[3].marker.as_deref(),
            Some("sys_platform == 'linux'")
        );
        assert_eq!(plan.problems.len(), 1, "{plan:?}");
        let bad = parse_pylock("[[packages]\nname=", Path::new("/p/pylock.toml"));
        assert!(bad.installs.is_empty() && !bad.problems.is_empty());
    }
}
