//! Shared test helpers: one analysis host per test binary, a readable rendering of diagnoses
//! for snapshots, and the files of a site-packages a test builds.

#![allow(dead_code)] // each test binary uses what it needs
// Test helpers: a panic is a failing test.
#![allow(clippy::expect_used)]

use abidoc_ide::Diagnostic;

/// One host for the whole test binary, as a front end keeps one.
pub fn host() -> &'static abidoc_ide::AnalysisHost {
    static HOST: std::sync::OnceLock<abidoc_ide::AnalysisHost> = std::sync::OnceLock::new();
    HOST.get_or_init(abidoc_ide::AnalysisHost::new)
}

pub fn render(text: &str, diags: &[Diagnostic]) -> String {
    let mut s = String::new();
    for d in diags {
        s.push_str(&format!(
            "{} [{}] {}\n",
            d.severity.as_str(),
            d.code.as_str(),
            d.message
        ));
        if let Some(src) = &d.source {
            let cell = src.cell.map(|c| format!(" cell {c}")).unwrap_or_default();
            let t: String = src.span.slice(text).chars().take(140).collect();
            s.push_str(&format!(
                "  at{cell} {}..{}: {t:?}\n",
                src.span.start, src.span.end
            ));
        }
        if !d.related.is_empty() {
            s.push_str(&format!("  and {} more place(s)\n", d.related.len()));
        }
        if let Some(p) = &d.package {
            s.push_str(&format!("  package: {p}\n"));
        }
        if let Some(l) = &d.library {
            s.push_str(&format!("  library: {l}\n"));
        }
        for sym in &d.symbols {
            s.push_str(&format!(
                "  symbol [{}] {}\n",
                sym.status.as_str(),
                sym.demangled.as_deref().unwrap_or(&sym.mangled)
            ));
        }
        for e in &d.evidence {
            s.push_str(&format!("  evidence: {e}\n"));
        }
        for f in &d.fixes {
            s.push_str(&format!(
                "  fix{}: {} [{} · {}]\n",
                if f.preferred { "*" } else { "" },
                f.title,
                f.id,
                f.applicability().as_str()
            ));
            s.push_str(&format!("    why: {}\n", f.reason));
            if let Some(c) = f.cost.describe() {
                s.push_str(&format!("    cost: {c}\n"));
            }
            // As a shell reads them: `numpy<2` unquoted would be a redirection.
            for c in &f.commands() {
                let quoted: Vec<String> = c
                    .iter()
                    .map(|a| abidoc_ide::fix::render::sh(a).unwrap_or_else(|| "<refused>".into()))
                    .collect();
                s.push_str(&format!("    $ {}\n", quoted.join(" ")));
            }
            for (k, v) in &f.env() {
                s.push_str(&format!("    env {k}={v}\n"));
            }
            for a in f.advice() {
                s.push_str(&format!("    advice: {a}\n"));
            }
            if let Some(w) = &f.fill_in {
                s.push_str(&format!("    fill in: {w}\n"));
            }
            if let Some(w) = &f.blocker {
                s.push_str(&format!("    in the way: {w}\n"));
            }
            if let Some(c) = &f.notebook_cell() {
                s.push_str(&format!("    cell: {}\n", c.replace('\n', " ⏎ ")));
            }
            // A Windows text's line, in the shell it is written for.
            if f.shell != abidoc_ide::fix::Shell::Posix
                && let Some(line) = f.shell_line()
            {
                s.push_str(&format!("    {}: {line}\n", f.shell.as_str()));
            }
        }
    }
    s
}

/// Writes `body` to `root/rel`, making its directories: the files of a site-packages a test
/// builds.
pub fn write_under(root: &std::path::Path, rel: &str, body: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("a parent")).expect("mkdir");
    std::fs::write(p, body).expect("write");
}
