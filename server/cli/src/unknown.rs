//! When `check` recognizes no failure: what it read (lines, tracebacks, the last exception),
//! what it looked for, and `check --report`, a ready-to-file text for the project's issue
//! tracker with home directories, user and host names redacted and every version kept, so an
//! unknown failure can become a corpus case.

use std::fmt::Write as _;

use abidoc_syntax::EventKind;

use crate::input::Input;

/// Lines of the last traceback a report quotes at most (its end, where the error is).
const QUOTED_LINES: usize = 80;
/// Lines before the last traceback a report quotes with it.
const CONTEXT_LINES: usize = 20;

/// What the scanner saw in one input.
pub struct Reading {
    pub lines: usize,
    pub tracebacks: usize,
    /// `name: message` of the last exception line.
    pub last_exception: Option<String>,
    /// The text of the last traceback (or the input's end when there is none), for a report.
    pub excerpt: String,
}

/// The text a diagnosis reads: a notebook's outputs, or the input itself (not copied: a log may
/// be a gigabyte).
fn text_of(input: &Input) -> std::borrow::Cow<'_, str> {
    if input.is_notebook {
        let nb = abidoc_syntax::notebook::parse(&input.text).value;
        let mut s = String::new();
        for c in &nb.cells {
            for o in &c.outputs {
                s.push_str(&o.text.text);
                if !s.ends_with('\n') {
                    s.push('\n');
                }
            }
        }
        s.into()
    } else {
        std::borrow::Cow::Borrowed(&input.text)
    }
}

pub fn read(input: &Input) -> Reading {
    let text = text_of(input);
    let events = abidoc_syntax::scan(&text).value;
    let mut tracebacks = 0;
    let mut last_tb = None;
    let mut last_exc: Option<(String, usize)> = None;
    for e in &events {
        match &e.kind {
            EventKind::TracebackStart => {
                tracebacks += 1;
                last_tb = Some(e.span.start);
            }
            EventKind::Exception { name, message } => {
                last_exc = Some((format!("{name}: {message}"), e.span.end));
            }
            _ => {}
        }
    }
    let lines = text.lines().count();
    // From a few lines before the last traceback (the command, versions printed) to the end of
    // the exception that closes it; else the input's last lines.
    let excerpt = match (last_tb, &last_exc) {
        (Some(a), Some((_, b))) if a < *b => {
            let before = text.get(..a).unwrap_or("");
            let from = before
                .rmatch_indices('\n')
                .nth(CONTEXT_LINES)
                .map_or(0, |(i, _)| i + 1);
            text.get(from..*b).unwrap_or("")
        }
        _ => {
            let skip = lines.saturating_sub(QUOTED_LINES / 2);
            let start = text
                .match_indices('\n')
                .nth(skip.saturating_sub(1))
                .map_or(0, |(i, _)| i + 1);
            text.get(if skip == 0 { 0 } else { start }..).unwrap_or("")
        }
    };
    let excerpt_lines: Vec<&str> = excerpt.lines().collect();
    let excerpt = excerpt_lines[excerpt_lines.len().saturating_sub(QUOTED_LINES)..].join("\n");
    Reading {
        lines,
        tracebacks,
        last_exception: last_exc.map(|(e, _)| e),
        excerpt,
    }
}

/// What `check` looks for, in words, for a reader who wonders why nothing matched.
const LOOKED_FOR: &str = "undefined symbols, missing shared libraries, GLIBC/GLIBCXX/CXXABI versions, \
C++ ABI flips, pip/ninja/nvcc build failures, CUDA toolkit, driver and compiler errors, \
xFormers/FlashAttention/Mamba kernel warnings, NumPy ABI, CUDA out of memory, binaries of another \
CPU architecture or instruction set, OpenMP runtimes loaded twice, wheel tags pip refuses, \
releases pip finds none of for this Python, executable stacks glibc refuses, static TLS \
glibc has no room for, media backends torchaudio and torchvision find none of, compiled \
functions called with another release's arguments";

/// The lines printed under "no known failure found" for one input.
pub fn explain(input: &Input, r: &Reading) -> String {
    let mut s = String::new();
    let tb = match r.tracebacks {
        0 => "no traceback".to_owned(),
        1 => "1 traceback".to_owned(),
        n => format!("{n} tracebacks"),
    };
    let _ = writeln!(
        s,
        "  read: {}: {} line(s), {tb}",
        input.display_name, r.lines
    );
    match &r.last_exception {
        Some(e) => {
            let _ = writeln!(s, "  last exception: {}", cut(e, 200));
        }
        None => {
            let _ = writeln!(s, "  last exception: none found");
        }
    }
    let _ = writeln!(
        s,
        "  looked for: {LOOKED_FOR} ({} codes, see `docs/codes/`)",
        abidoc_ide::Code::ALL.len()
    );
    let arg = input.path.as_deref().unwrap_or("-");
    let _ = writeln!(
        s,
        "  if this is a failure abidoc should know: `abidoc check --report {}` prints a redacted text to file at {}",
        crate::render::shell_quote(arg),
        tracker()
    );
    s
}

fn tracker() -> String {
    match env!("CARGO_PKG_REPOSITORY") {
        "" => "the project's issue tracker".to_owned(),
        repo => format!("{repo}/issues/new"),
    }
}

/// Replaces what names a person or a machine, keeping versions and the rest of paths.
pub struct Redactor {
    /// (found, replacement), longest first.
    pairs: Vec<(String, String)>,
}

impl Redactor {
    /// From this process: `$HOME` becomes `~`, `$USER`/`$LOGNAME` `<user>`, `$HOSTNAME` `<host>`.
    pub fn from_process() -> Redactor {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        Redactor::new(
            var("HOME").as_deref(),
            var("USER").or_else(|| var("LOGNAME")).as_deref(),
            var("HOSTNAME").as_deref(),
        )
    }

    pub fn new(home: Option<&str>, user: Option<&str>, host: Option<&str>) -> Redactor {
        let mut pairs = Vec::new();
        // `/` alone, or a one-letter name, would redact everything.
        if let Some(h) = home.map(|h| h.trim_end_matches('/'))
            && h.len() > 1
        {
            pairs.push((h.to_owned(), "~".to_owned()));
        }
        if let Some(u) = user.filter(|u| u.len() > 2 && *u != "root") {
            pairs.push((u.to_owned(), "<user>".to_owned()));
        }
        if let Some(h) = host.filter(|h| h.len() > 2) {
            pairs.push((h.to_owned(), "<host>".to_owned()));
        }
        pairs.sort_by_key(|(a, _)| std::cmp::Reverse(a.len()));
        Redactor { pairs }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut s = text.to_owned();
        for (a, b) in &self.pairs {
            s = replace_word(&s, a, b);
        }
        // Other people's home directories in the text (a log from another machine).
        for root in ["/home/", "/Users/", "C:\\Users\\", "/data/home/"] {
            s = redact_after(&s, root);
        }
        s
    }
}

/// `a` replaced by `b` where it stands alone: not inside a longer name (`dev` in `device`), and
/// not as a path component other than a home directory's (`dev` in `/dev/shm`), which
/// [`redact_after`] handles.
fn replace_word(s: &str, a: &str, b: &str) -> String {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "_-.".contains(c));
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    for (i, _) in s.match_indices(a) {
        if i < last {
            continue;
        }
        let before = s[..i].chars().next_back();
        let after = s[i + a.len()..].chars().next();
        let path_part = a.starts_with('/') || before != Some('/');
        if !word(before) && !word(after) && path_part {
            out.push_str(&s[last..i]);
            out.push_str(b);
            last = i + a.len();
        }
    }
    out.push_str(&s[last..]);
    out
}

/// `/home/alice/x` → `/home/<user>/x`: the component after each `root`.
fn redact_after(s: &str, root: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find(root) {
        let (before, after) = rest.split_at(i + root.len());
        out.push_str(before);
        let end = after
            .find(|c: char| c == '/' || c == '\\' || c.is_whitespace() || "'\":,)".contains(c))
            .unwrap_or(after.len());
        let name = &after[..end];
        if name.is_empty() || name == "<user>" {
            out.push_str(name);
        } else {
            out.push_str("<user>");
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The environment in a few lines, when one is known: the interpreter's version, torch and the
/// extension packages abidoc knows, with their versions.
pub fn environment_lines(ctx: &abidoc_ide::Context) -> Vec<String> {
    if !ctx.use_env {
        return vec!["environment: not read (--no-env)".into()];
    }
    let mut spec = abidoc_env::EnvSpec::from_process_env();
    spec.python = ctx.python.clone();
    spec.site_packages = ctx.site_packages.clone();
    let env = abidoc_env::Environment::open(&spec);
    if env.layout.site_packages.is_empty() {
        return vec!["environment: none found".into()];
    }
    let mut out = Vec::new();
    if let Some(v) = &env.layout.python_version {
        out.push(format!("python: {v}"));
    }
    if let Some(t) = &env.torch {
        out.push(format!(
            "torch: {} (CUDA {}, C++11 ABI {})",
            t.version.as_deref().unwrap_or("?"),
            t.cuda.as_deref().unwrap_or("none"),
            t.cxx11_abi.map_or("?", |a| if a { "1" } else { "0" })
        ));
    }
    let mut known: Vec<String> = env
        .dists
        .iter()
        .filter(|d| d.normalized != "torch")
        .filter(|d| abidoc_knowledge::package(&d.normalized).is_some())
        .map(|d| format!("{} {}", d.normalized, d.version.as_deref().unwrap_or("?")))
        .collect();
    known.sort();
    known.dedup();
    if !known.is_empty() {
        out.push(format!("packages: {}", known.join(", ")));
    }
    out
}

/// The ready-to-file report for one input.
pub fn report(
    input: &Input,
    found: &[abidoc_ide::Diagnostic],
    env: &[String],
    redactor: &Redactor,
) -> String {
    let r = read(input);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- Written by `abidoc check --report`. Home directories, user and host names are replaced; versions are kept. Read it before filing it at {} -->",
        tracker()
    );
    let title = if found.is_empty() {
        "abidoc does not recognize this failure".to_owned()
    } else {
        let codes: Vec<&str> = found.iter().map(|d| d.code.as_str()).collect();
        format!("abidoc's diagnosis looks wrong ({})", codes.join(", "))
    };
    let _ = writeln!(s, "## {title}\n");
    let _ = writeln!(s, "- abidoc {}", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(
        s,
        "- input: {}, {} line(s), {} traceback(s)",
        input.display_name, r.lines, r.tracebacks
    );
    if let Some(e) = &r.last_exception {
        let _ = writeln!(s, "- last exception: `{}`", cut(e, 300).replace('`', "'"));
    }
    for d in found {
        let _ = writeln!(
            s,
            "- found: {} [{}] {}",
            d.severity.as_str(),
            d.code.as_str(),
            cut(&d.message, 300)
        );
    }
    for line in env {
        let _ = writeln!(s, "- {line}");
    }
    let _ = writeln!(
        s,
        "\n### What happened\n\n<!-- the command that failed, and what you expected -->\n"
    );
    let _ = writeln!(s, "### The text abidoc read (its end)\n");
    let _ = writeln!(s, "```text\n{}\n```", r.excerpt.replace("```", "'''"));
    redactor.redact(&s)
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n).collect();
        t.push('…');
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction_keeps_versions_and_structure() {
        let r = Redactor::new(Some("/home/alice"), Some("alice"), Some("gpu-box-7"));
        let t = "alice@gpu-box-7:~/proj$ python train.py\n\
                 File \"/home/alice/proj/.venv/lib/python3.12/site-packages/torch/__init__.py\", line 1\n\
                 File \"/home/bob/x.py\"  C:\\Users\\carol\\x.py  /Users/dave/y\n\
                 torch 2.10.0+cu128, flash_attn-2.8.3+cu12torch2.10cxx11abiTRUE\n";
        let out = r.redact(t);
        for name in ["alice", "bob", "carol", "dave", "gpu-box-7"] {
            assert!(!out.contains(name), "{name} left in:\n{out}");
        }
        assert!(out.contains("<user>@<host>:~/proj$"), "{out}");
        assert!(
            out.contains("~/proj/.venv/lib/python3.12/site-packages/torch"),
            "{out}"
        );
        assert!(out.contains("/home/<user>/x.py"), "{out}");
        assert!(out.contains("torch 2.10.0+cu128, flash_attn-2.8.3+cu12torch2.10cxx11abiTRUE"));
        // Nothing to redact: unchanged; `/` as a home redacts nothing; a user named like a
        // directory or a word stays where it is one.
        let none = Redactor::new(Some("/"), Some("ab"), None);
        assert_eq!(none.redact("/usr/lib/x ab"), "/usr/lib/x ab");
        let dev = Redactor::new(None, Some("dev"), None);
        assert_eq!(
            dev.redact("dev@box /dev/shm device dev"),
            "<user>@box /dev/shm device <user>"
        );
    }
}
