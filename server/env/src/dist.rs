//! Installed distributions: `*.dist-info` and `*.egg-info` (METADATA/PKG-INFO, RECORD, INSTALLER,
//! REQUESTED, `direct_url.json`, `top_level.txt`), PEP 503 names, requirement pins and wheel local
//! labels such as `+cu12torch2.5cxx11abiFALSE`.

use crate::fsguard::read_text;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

/// PEP 503 normalization: lower case, runs of `-`, `_`, `.` become one `-`.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.trim().chars() {
        if c == '-' || c == '_' || c == '.' {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DistKind {
    DistInfo,
    EggInfo,
}

/// One `Requires-Dist` line, split but kept as text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Requirement {
    pub name: String,
    /// The version specifier as written, without parentheses (`==2.5.1`, `>=1.0,<2`), or empty.
    pub specifier: String,
    /// The environment marker after `;`, as text.
    pub marker: Option<String>,
    pub extras: Vec<String>,
}

impl Requirement {
    /// Parses `name[extra] (>=1) ; marker` leniently; `None` when no name can be read.
    pub fn parse(line: &str) -> Option<Requirement> {
        let (req, marker) = match line.split_once(';') {
            Some((r, m)) => (
                r.trim(),
                Some(m.trim().to_string()).filter(|m| !m.is_empty()),
            ),
            None => (line.trim(), None),
        };
        let name_end = req
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
            .unwrap_or(req.len());
        let name = &req[..name_end];
        if name.is_empty() {
            return None;
        }
        let mut rest = req[name_end..].trim();
        let mut extras = Vec::new();
        if let Some(r) = rest.strip_prefix('[') {
            let (inside, after) = r.split_once(']').unwrap_or((r, ""));
            extras = inside
                .split(',')
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .collect();
            rest = after.trim();
        }
        let specifier = rest
            .trim_start_matches('(')
            .trim_end_matches(')')
            .split_whitespace()
            .collect::<String>();
        Some(Requirement {
            name: normalize_name(name),
            specifier,
            marker,
            extras,
        })
    }

    /// The exact version pinned with `==X` or `===X` (not `==X.*`), when that is the only clause.
    pub fn exact_pin(&self) -> Option<&str> {
        if self.specifier.contains(',') {
            return None;
        }
        let v = self
            .specifier
            .strip_prefix("===")
            .or_else(|| self.specifier.strip_prefix("=="))?;
        if v.is_empty() || v.ends_with(".*") {
            return None;
        }
        Some(v)
    }

    /// True when the marker only applies to an `extra` (such requirements are not installed by default).
    pub fn is_extra_only(&self) -> bool {
        self.marker.as_deref().is_some_and(|m| m.contains("extra"))
    }

    /// The lowest major version the specifier admits, from its lower bounds (`>=2.0` and `~=2.1`
    /// are 2, `>1.26` is 1, `==2.*` is 2); `None` when it sets none.
    pub fn minimum_major(&self) -> Option<u64> {
        self.specifier
            .split(',')
            .filter_map(|clause| {
                let c = clause.trim();
                let v = c
                    .strip_prefix(">=")
                    .or_else(|| c.strip_prefix("~="))
                    .or_else(|| c.strip_prefix("==="))
                    .or_else(|| c.strip_prefix("=="))
                    .or_else(|| c.strip_prefix('>'))?;
                let digits: String = v.trim().chars().take_while(char::is_ascii_digit).collect();
                // A number longer than any release's major is no version (and no bound).
                (digits.len() <= 9).then(|| digits.parse().ok()).flatten()
            })
            .max()
    }
}

/// What a wheel's local version label says about its build (`+cu12torch2.5cxx11abiFALSE`,
/// `+cu121`, `+pt25cu124`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildLabel {
    /// CUDA version as `major` or `major.minor` (`cu121` → `12.1`, `cu12` → `12`).
    pub cuda: Option<String>,
    /// Torch version the build was made for (`torch2.5` → `2.5`, `pt25` → `2.5`).
    pub torch: Option<String>,
    /// `_GLIBCXX_USE_CXX11_ABI` the build used.
    pub cxx11abi: Option<bool>,
    pub rocm: Option<String>,
    pub cpu: bool,
}

impl BuildLabel {
    /// Parses the local label (the part after `+`), or a whole version / wheel name containing one.
    pub fn parse(text: &str) -> Option<BuildLabel> {
        let label = match text.split_once('+') {
            Some((_, l)) => l.split('-').next().unwrap_or(l),
            None => text,
        };
        let mut out = BuildLabel::default();
        let lower = label.to_ascii_lowercase();
        let b = lower.as_bytes();
        let mut i = 0;
        let digits = |from: usize| -> usize {
            let mut j = from;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            j
        };
        let dotted = |from: usize| -> usize {
            let mut j = from;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            j
        };
        let mut any = false;
        // Byte-wise: the label may hold non-ASCII (`+é`), and `i` steps one byte at a time.
        // Every slice taken below starts and ends next to ASCII bytes, so on char boundaries.
        let text_at = |from: usize, to: usize| lower.get(from..to).unwrap_or("").to_string();
        while i < b.len() {
            let rest = &b[i..];
            if let Some(r) = rest.strip_prefix(b"cxx11abi".as_slice()) {
                if r.starts_with(b"true") {
                    out.cxx11abi = Some(true);
                    i += 12;
                } else if r.starts_with(b"false") {
                    out.cxx11abi = Some(false);
                    i += 13;
                } else {
                    i += 8;
                }
                any = true;
            } else if rest.starts_with(b"torch") {
                let end = dotted(i + 5);
                if end > i + 5 {
                    out.torch = Some(text_at(i + 5, end).trim_end_matches('.').to_string());
                    any = true;
                }
                i = end.max(i + 5);
            } else if rest.starts_with(b"rocm") {
                let end = dotted(i + 4);
                if end > i + 4 {
                    out.rocm = Some(text_at(i + 4, end).trim_end_matches('.').to_string());
                    any = true;
                }
                i = end.max(i + 4);
            } else if rest.starts_with(b"cpu") {
                out.cpu = true;
                any = true;
                i += 3;
            } else if rest.starts_with(b"cu") {
                let end = digits(i + 2);
                let d = text_at(i + 2, end);
                if !d.is_empty() {
                    out.cuda = Some(cuda_digits(&d));
                    any = true;
                }
                i = end.max(i + 2);
            } else if rest.starts_with(b"pt") {
                let end = digits(i + 2);
                let d = text_at(i + 2, end);
                // `d` is ASCII digits: splitting after its first byte is a char boundary.
                if let (Some(major), Some(minor)) = (d.get(..1), d.get(1..))
                    && !minor.is_empty()
                {
                    out.torch = Some(format!("{major}.{minor}"));
                    any = true;
                }
                i = end.max(i + 2);
            } else {
                i += 1;
            }
        }
        any.then_some(out)
    }
}

/// `121` → `12.1`, `118` → `11.8`, `102` → `10.2`, `12` → `12`, `9` → `9`.
fn cuda_digits(d: &str) -> String {
    // `get`, not indexing: callers pass ASCII digits, but a non-ASCII string must not panic.
    match (d.len(), d.get(..2), d.get(2..)) {
        (3, Some(major), Some(minor)) => format!("{major}.{minor}"),
        (4, Some(major), Some(minor)) => format!("{major}.{}", minor.trim_start_matches('0')),
        _ => d.to_string(),
    }
}

/// `direct_url.json` (PEP 610).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectUrl {
    pub url: String,
    /// The wheel file name when the URL names one.
    pub wheel: Option<String>,
    /// The build label of that wheel file name.
    pub label: Option<BuildLabel>,
    pub editable: bool,
    pub vcs: Option<String>,
}

impl DirectUrl {
    pub fn parse(text: &str) -> Result<DirectUrl, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let url = v
            .get("url")
            .and_then(|u| u.as_str())
            .ok_or("no \"url\" field")?
            .to_string();
        let file = url.rsplit('/').next().unwrap_or("");
        let file = file.split(['?', '#']).next().unwrap_or(file);
        let file = percent_decode(file);
        let wheel = file.ends_with(".whl").then(|| file.clone());
        let label = wheel.as_deref().and_then(|w| {
            // name-version(+label)-pytag-abitag-plat.whl: the label sits in the version field.
            let version = w.split('-').nth(1)?;
            version
                .contains('+')
                .then(|| BuildLabel::parse(version))
                .flatten()
        });
        Ok(DirectUrl {
            url,
            wheel,
            label,
            editable: v
                .pointer("/dir_info/editable")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
            vcs: v
                .pointer("/vcs_info/vcs")
                .and_then(|e| e.as_str())
                .map(str::to_string),
        })
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let Some(x) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(x);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One installed distribution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distribution {
    /// The name as written in METADATA (or the directory name when METADATA has none).
    pub name: String,
    /// PEP 503 normalized name.
    pub normalized: String,
    pub version: Option<String>,
    pub requires_dist: Vec<Requirement>,
    pub installer: Option<String>,
    /// A `REQUESTED` file exists: the user asked for this package (not only a dependency).
    pub requested: bool,
    pub direct_url: Option<DirectUrl>,
    pub top_level: Vec<String>,
    /// The `*.dist-info` / `*.egg-info` directory (or file, for old egg-info files).
    pub meta_dir: PathBuf,
    /// The directory RECORD paths are relative to (site-packages).
    pub root: PathBuf,
    pub kind: DistKind,
}

impl Distribution {
    /// Reads a `*.dist-info` or `*.egg-info` directory. Problems are returned next to what was read.
    pub fn read(meta_dir: &Path) -> (Option<Distribution>, Vec<Problem>) {
        let mut problems = Vec::new();
        let file_name = meta_dir.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let (kind, stem) = if let Some(s) = file_name.strip_suffix(".dist-info") {
            (DistKind::DistInfo, s)
        } else if let Some(s) = file_name.strip_suffix(".egg-info") {
            (DistKind::EggInfo, s)
        } else {
            return (
                None,
                vec![Problem::at(
                    meta_dir,
                    "not a dist-info or egg-info directory",
                )],
            );
        };
        let root = meta_dir.parent().map(Path::to_path_buf).unwrap_or_default();
        // Name and version from the directory name are the fallback when METADATA is unreadable.
        let (dir_name, dir_version) = match stem.split_once('-') {
            Some((n, v)) => (
                n.to_string(),
                Some(v.split('-').next().unwrap_or(v).to_string()),
            ),
            None => (stem.to_string(), None),
        };
        let is_file = meta_dir.is_file();
        let metadata_path = if is_file {
            meta_dir.to_path_buf()
        } else if kind == DistKind::DistInfo {
            meta_dir.join("METADATA")
        } else {
            meta_dir.join("PKG-INFO")
        };
        let mut dist = Distribution {
            name: dir_name.clone(),
            normalized: normalize_name(&dir_name),
            version: dir_version.filter(|v| !v.is_empty()),
            requires_dist: Vec::new(),
            installer: None,
            requested: false,
            direct_url: None,
            top_level: Vec::new(),
            meta_dir: meta_dir.to_path_buf(),
            root,
            kind,
        };
        match read_text(&metadata_path) {
            Ok(text) => {
                let m = parse_metadata(&text);
                if let Some(n) = m.name {
                    dist.normalized = normalize_name(&n);
                    dist.name = n;
                }
                if m.version.is_some() {
                    dist.version = m.version;
                }
                dist.requires_dist = m.requires;
            }
            Err(e) => problems.push(Problem::at(&metadata_path, e)),
        }
        if is_file {
            return (Some(dist), problems);
        }
        if kind == DistKind::EggInfo
            && let Ok(text) = read_text(&meta_dir.join("requires.txt"))
        {
            dist.requires_dist = parse_egg_requires(&text);
        }
        if let Ok(t) = read_text(&meta_dir.join("INSTALLER")) {
            let t = t.trim();
            if !t.is_empty() {
                dist.installer = Some(t.to_string());
            }
        }
        dist.requested = meta_dir.join("REQUESTED").is_file();
        let du = meta_dir.join("direct_url.json");
        if du.exists() {
            match read_text(&du).and_then(|t| DirectUrl::parse(&t)) {
                Ok(d) => dist.direct_url = Some(d),
                Err(e) => problems.push(Problem::at(&du, e)),
            }
        }
        if let Ok(t) = read_text(&meta_dir.join("top_level.txt")) {
            dist.top_level = t
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect();
        }
        (Some(dist), problems)
    }

    /// Files the distribution installed, as absolute (lexically normalized) paths. From RECORD for a
    /// dist-info, `installed-files.txt` / `SOURCES.txt` for an egg-info.
    pub fn files(&self) -> (Vec<PathBuf>, Vec<Problem>) {
        let base = self.listing().1;
        let mut files = Vec::new();
        let problems = self.for_each_file_entry(|p| files.push(lexical_join(&base, Path::new(p))));
        (files, problems)
    }

    /// The file listing and the directory its relative entries are relative to.
    pub fn listing(&self) -> (PathBuf, PathBuf) {
        match self.kind {
            DistKind::DistInfo => (self.meta_dir.join("RECORD"), self.root.clone()),
            DistKind::EggInfo => {
                let inst = self.meta_dir.join("installed-files.txt");
                if inst.is_file() {
                    (inst, self.meta_dir.clone())
                } else {
                    (self.meta_dir.join("SOURCES.txt"), self.root.clone())
                }
            }
        }
    }

    /// Calls `f` with each entry of the file listing as written (relative to the base directory
    /// of [`Distribution::listing`], or absolute), copying none but quoted ones: torch's RECORD
    /// alone has ~20k lines, and a cached scan looks at few of them.
    pub fn for_each_file_entry(&self, mut f: impl FnMut(&str)) -> Vec<Problem> {
        let listing = self.listing().0;
        match read_text(&listing) {
            Ok(text) => {
                text.lines().filter_map(record_path).for_each(|p| f(&p));
                Vec::new()
            }
            Err(e) => vec![Problem::at(&listing, e)],
        }
    }

    /// The torch version pinned exactly by `Requires-Dist` (`torch==2.5.1`), ignoring extras.
    pub fn torch_pin(&self) -> Option<&str> {
        self.requires_dist
            .iter()
            .filter(|r| r.name == "torch" && !r.is_extra_only())
            .find_map(Requirement::exact_pin)
    }
}

/// The path of every entry of a RECORD (or an egg-info file listing), as written. Pure, never
/// fails; the fuzz target `record` drives it.
pub fn parse_record(text: &str) -> Vec<Cow<'_, str>> {
    text.lines().filter_map(record_path).collect()
}

/// The path field of one RECORD line (CSV: the path may be quoted and contain commas).
fn record_path(line: &str) -> Option<Cow<'_, str>> {
    let line = line.trim_end_matches('\r');
    if line.is_empty() {
        return None;
    }
    if let Some(rest) = line.strip_prefix('"') {
        let mut out = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    out.push('"');
                    chars.next();
                } else {
                    break;
                }
            } else {
                out.push(c);
            }
        }
        return (!out.is_empty()).then_some(Cow::Owned(out));
    }
    let p = line.split(',').next().unwrap_or("");
    (!p.is_empty()).then_some(Cow::Borrowed(p))
}

/// Joins and resolves `.`/`..` without touching the disk (RECORD paths like `../../bin/x`).
pub fn lexical_join(base: &Path, rel: &Path) -> PathBuf {
    let joined = if rel.is_absolute() {
        rel.to_path_buf()
    } else {
        base.join(rel)
    };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The headers of a METADATA / PKG-INFO file that the analysis uses.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Metadata {
    pub name: Option<String>,
    pub version: Option<String>,
    pub requires: Vec<Requirement>,
}

/// METADATA / PKG-INFO bytes as read from disk (lossy UTF-8): [`parse_metadata`]. Pure, never
/// fails; the fuzz target `metadata` drives it.
pub fn parse_metadata_bytes(bytes: &[u8]) -> Metadata {
    parse_metadata(&String::from_utf8_lossy(bytes))
}

/// RFC 822-style headers; stops at the first blank line (the description body follows).
pub fn parse_metadata(text: &str) -> Metadata {
    let mut m = Metadata::default();
    for line in text.lines() {
        if line.trim().is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim().to_ascii_lowercase().as_str() {
            "name" if m.name.is_none() => m.name = Some(value.to_string()),
            "version" if m.version.is_none() => m.version = Some(value.to_string()),
            "requires-dist" => m.requires.extend(Requirement::parse(value)),
            _ => {}
        }
    }
    m
}

/// setuptools `requires.txt`: plain requirement lines, `[extra]` / `[:marker]` sections.
pub fn parse_egg_requires(text: &str) -> Vec<Requirement> {
    let mut out = Vec::new();
    let mut section: Option<String> = None;
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = Some(s.to_string());
            continue;
        }
        if let Some(mut r) = Requirement::parse(line) {
            if let Some(s) = &section {
                r.marker = Some(match s.split_once(':') {
                    Some(("", marker)) => marker.to_string(),
                    Some((extra, marker)) => format!("extra == \"{extra}\" and {marker}"),
                    None => format!("extra == \"{s}\""),
                });
            }
            out.push(r);
        }
    }
    out
}

/// Every distribution found directly in a site-packages directory, sorted by normalized name.
pub fn read_site(dir: &Path) -> (Vec<Distribution>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut dists = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => return (dists, vec![Problem::at(dir, format!("cannot list: {e}"))]),
    };
    let mut metas: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(".dist-info") || n.ends_with(".egg-info"))
        })
        .collect();
    metas.sort();
    for m in metas {
        let (d, p) = Distribution::read(&m);
        problems.extend(p);
        dists.extend(d);
    }
    dists.sort_by(|a, b| {
        a.normalized
            .cmp(&b.normalized)
            .then(a.meta_dir.cmp(&b.meta_dir))
    });
    (dists, problems)
}
