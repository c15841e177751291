//! The default human output, answers first in one screen: errors, one block per failing import
//! (package and version, what breaks, the preferred fix as one command), then warnings, then one
//! line per kind of information folded away, then a table (package · verdict · cause · fix).
//! `--verbose` (and `scan --all`) is `render::human`: every symbol, every note.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use abidoc_ide::{Diagnostic, Fold, Severity};

use crate::render::{Positions, Report, Style};

/// One diagnosis with what the screen needs beside it.
pub struct Item<'a> {
    pub diagnostic: &'a Diagnostic,
    /// Which report (input) it came from, for its location.
    pub report: usize,
    pub fold: Fold,
    pub package_version: Option<&'a str>,
}

/// Every diagnosis of `reports`, folded by severity alone (text diagnoses: information is a note).
pub fn items<'a>(reports: &'a [Report<'a>]) -> Vec<Item<'a>> {
    let mut out = Vec::new();
    for (i, r) in reports.iter().enumerate() {
        for d in &r.diagnostics {
            out.push(Item {
                diagnostic: d,
                report: i,
                fold: match d.severity {
                    Severity::Information => Fold::Note,
                    _ => Fold::Shown,
                },
                package_version: None,
            });
        }
    }
    out
}

/// Errors or warnings about one import: one library (a scan), or one package and code (text).
struct Block<'a> {
    severity: Severity,
    items: Vec<&'a Item<'a>>,
}

/// Longest fix command shown in the summary table before it is cut (the block above has it whole).
const TABLE_FIX: usize = 72;
/// Further diagnoses of one import shown in its block before the rest are counted.
const ALSO: usize = 2;

/// The screen. `more` is the flag that shows everything (`--all` for a scan, `--verbose` else);
/// `none` what to say when there is nothing at all.
pub fn render(
    reports: &[Report<'_>],
    items: &[Item<'_>],
    (more, none): (&str, &str),
    color: bool,
) -> String {
    let st = Style { on: color };
    let positions: Vec<Option<Positions<'_>>> = reports
        .iter()
        .map(|r| r.input.map(|i| Positions::new(i, &r.diagnostics)))
        .collect();
    let mut blocks: Vec<Block<'_>> = Vec::new();
    let mut by_key: BTreeMap<(u8, String), usize> = BTreeMap::new();
    for (n, it) in items.iter().enumerate() {
        let d = it.diagnostic;
        if it.fold != Fold::Shown || d.severity == Severity::Information {
            continue;
        }
        // One import's failures together: a package's libraries failing for one cause with
        // one fix are one block (xformers' `_C.so` and `flash_attn_3/_C.so` missing one CUDA
        // runtime); a library or text with no package stands alone.
        let fix = d
            .fixes
            .iter()
            .find(|f| f.preferred)
            .map(|f| f.id.as_str())
            .unwrap_or("");
        let key = match (&d.package, &d.library) {
            (Some(p), _) => format!("pkg {} {p} {} {fix}", it.report, d.code.as_str()),
            (None, Some(lib)) => format!("lib {lib}"),
            (None, None) => format!("diag {n}"),
        };
        let rank = d.severity as u8;
        match by_key.get(&(rank, key.clone())) {
            Some(&b) => blocks[b].items.push(it),
            None => {
                by_key.insert((rank, key), blocks.len());
                blocks.push(Block {
                    severity: d.severity,
                    items: vec![it],
                });
            }
        }
    }
    // Errors first, then warnings, each in the order found.
    blocks.sort_by_key(|b| b.severity);

    let mut out = String::new();
    for b in &blocks {
        let Some(first) = b.items.first() else {
            continue;
        };
        let d = first.diagnostic;
        let _ = writeln!(out, "{}", st.heading(d));
        let _ = writeln!(
            out,
            "  {} {}",
            st.blue("-->"),
            place(b, reports, &positions)
        );
        let others: Vec<&&Item<'_>> = b
            .items
            .iter()
            .skip(1)
            .filter(|i| i.diagnostic.message != d.message)
            .collect();
        for it in others.iter().take(ALSO) {
            let _ = writeln!(
                out,
                "  {}: {}",
                st.dim(&format!("also[{}]", it.diagnostic.code.as_str())),
                it.diagnostic.message
            );
        }
        if others.len() > ALSO {
            let _ = writeln!(
                out,
                "  {}",
                st.dim(&format!(
                    "… and {} more of this kind ({more})",
                    others.len() - ALSO
                ))
            );
        }
        if let Some(f) = preferred_fix(b) {
            let commands = f.commands();
            match f.shell_line() {
                // One command says it all; one that leaves a step in words shows both.
                Some(cmd)
                    if commands.len() <= 1 && f.advice().is_empty() && f.blocker.is_none() =>
                {
                    let _ = writeln!(out, "  {} {cmd}", st.green("fix:"));
                }
                _ => {
                    let _ = writeln!(out, "  {} {}", st.green("fix:"), f.title);
                    // A fix that only sets variables has no command line: its exports are it.
                    if commands.is_empty() {
                        for (k, v) in f.env() {
                            let _ = writeln!(
                                out,
                                "     $ {}",
                                abidoc_ide::fix::render::display_env(f.shell, &k, &v)
                            );
                        }
                    }
                    for c in commands.iter().take(COMMANDS) {
                        let _ = writeln!(
                            out,
                            "     $ {}",
                            abidoc_ide::fix::render::display_command(f.shell, c)
                        );
                    }
                    if commands.len() > COMMANDS {
                        let _ = writeln!(
                            out,
                            "     {}",
                            st.dim(&format!("… {} more ({more})", commands.len() - COMMANDS))
                        );
                    }
                    // The step left in words after a command (what to do with what it shows);
                    // advice alone is its title here, in full under `--verbose`.
                    if !commands.is_empty() {
                        for a in f.advice() {
                            let _ = writeln!(out, "     {a}");
                        }
                    }
                    // A command complete but for one value is the action itself: shown with
                    // what to fill in.
                    if let Some(what) = &f.fill_in {
                        for a in f.advice() {
                            let _ = writeln!(out, "     {a}");
                        }
                        let _ = writeln!(out, "     {}", st.dim(&format!("fill in {what}")));
                    }
                    if let Some(what) = &f.blocker {
                        let _ =
                            writeln!(out, "     {}", st.dim(&format!("in the way here: {what}")));
                    }
                }
            }
        }
        out.push('\n');
    }

    let count = |s: Severity| {
        items
            .iter()
            .filter(|i| i.diagnostic.severity == s && i.fold == Fold::Shown)
            .count()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    if items.is_empty() {
        if !none.is_empty() {
            let _ = writeln!(out, "{}", st.green(none));
        }
    } else {
        let folded = folded(items);
        let line = if folded.is_empty() {
            format!("{errors} error(s), {warnings} warning(s) — {more} shows every symbol")
        } else {
            format!(
                "{errors} error(s), {warnings} warning(s); folded: {} — {more} lists them",
                folded.join("; ")
            )
        };
        let _ = writeln!(out, "{}", st.bold(&line));
    }
    // One block says it all; the table is for several.
    if blocks.len() > 1 {
        out.push('\n');
        table(&mut out, &blocks, &st);
    }
    out
}

/// Where a block's diagnoses are: the package and libraries of a scan (at most `PLACES`), the
/// input position of a text.
fn place(b: &Block<'_>, reports: &[Report<'_>], positions: &[Option<Positions<'_>>]) -> String {
    const PLACES: usize = 3;
    let Some(it) = b.items.first() else {
        return String::new();
    };
    let d = it.diagnostic;
    let input = reports.get(it.report).and_then(|r| r.input);
    let pos = positions.get(it.report).and_then(Option::as_ref);
    let pkg = d.package.as_deref().map(|p| match it.package_version {
        Some(v) => format!("{p} {v}"),
        None => p.to_owned(),
    });
    let mut parts = Vec::new();
    if let (Some(src), Some(pos), Some(input)) = (&d.source, pos, input) {
        let (a, _) = pos.range(src.span);
        let cell = src.cell.map(|c| format!(" (cell {c})")).unwrap_or_default();
        let more = if d.related.is_empty() {
            String::new()
        } else {
            format!(" (and {} more place(s))", d.related.len())
        };
        parts.extend(pkg);
        parts.push(format!(
            "{}:{}:{}{cell}{more}",
            input.display_name,
            a.line + 1,
            a.col + 1
        ));
    } else {
        parts.extend(pkg);
        let mut libs: Vec<&str> = Vec::new();
        for lib in b
            .items
            .iter()
            .filter_map(|i| i.diagnostic.library.as_deref())
        {
            let lib = short_path(lib);
            if !libs.contains(&lib) {
                libs.push(lib);
            }
        }
        let more = libs.len().saturating_sub(PLACES);
        let mut shown = libs
            .iter()
            .take(PLACES)
            .copied()
            .collect::<Vec<_>>()
            .join(", ");
        if more > 0 {
            let _ = write!(shown, " and {more} more");
        }
        if !shown.is_empty() {
            parts.push(shown);
        }
    }
    parts.join(" · ")
}

/// A library's path from its site-packages on (`torch/lib/libc10.so`), as a package listing
/// shows it.
fn short_path(p: &str) -> &str {
    ["/site-packages/", "/dist-packages/"]
        .iter()
        .find_map(|m| p.rfind(m).map(|i| &p[i + m.len()..]))
        .unwrap_or(p)
}

/// The preferred fix of a block (else its first).
fn preferred_fix<'a>(b: &'a Block<'a>) -> Option<&'a abidoc_ide::Fix> {
    b.items
        .iter()
        .flat_map(|i| &i.diagnostic.fixes)
        .find(|f| f.preferred)
        .or_else(|| b.items.iter().flat_map(|i| &i.diagnostic.fixes).next())
}

/// Commands shown under a fix that has several (its title first): each stays its own line, so
/// a fix that looks before it acts (`nvidia-smi`, then `kill`) is not pasted as one.
const COMMANDS: usize = 3;

/// What was not shown, counted per kind: libraries, not diagnoses (one library missing four
/// CUDA libraries is one thing folded).
fn folded(items: &[Item<'_>]) -> Vec<String> {
    let mut kinds: BTreeMap<Fold, (usize, Vec<&str>)> = BTreeMap::new();
    for it in items
        .iter()
        .filter(|i| i.fold != Fold::Shown || i.diagnostic.severity == Severity::Information)
    {
        let fold = if it.fold == Fold::Shown {
            Fold::Note
        } else {
            it.fold
        };
        let e = kinds.entry(fold).or_default();
        match it.diagnostic.library.as_deref() {
            Some(lib) if !e.1.contains(&lib) => e.1.push(lib),
            Some(_) => {}
            None => e.0 += 1,
        }
    }
    kinds
        .iter()
        .map(|(fold, (loose, libs))| {
            let n = loose + libs.len();
            let (one, many) = match fold {
                Fold::NoImport => (
                    "library cannot load on its own, but no import loads it that way",
                    "libraries cannot load on their own, but no import loads them that way",
                ),
                Fold::Optional => (
                    "optional backend or driver library is missing (its package imports without it)",
                    "optional backends or driver libraries are missing (their packages import without them)",
                ),
                Fold::Loads => ("library loads", "libraries load"),
                Fold::Note | Fold::Shown => ("note", "notes"),
            };
            format!("{n} {}", if n == 1 { one } else { many })
        })
        .collect()
}

/// The summary table: package · verdict · cause · fix, one row per block.
fn table(out: &mut String, blocks: &[Block<'_>], st: &Style) {
    let rows: Vec<[String; 4]> = blocks
        .iter()
        .filter_map(|b| {
            let first = b.items.first()?;
            let d = first.diagnostic;
            let pkg = match (&d.package, first.package_version) {
                (Some(p), Some(v)) => format!("{p} {v}"),
                (Some(p), None) => p.clone(),
                (None, _) => "-".into(),
            };
            let verdict = match b.severity {
                Severity::Error => "fails",
                _ => "warns",
            };
            let fix = preferred_fix(b)
                .map(|f| match f.shell_line() {
                    Some(cmd) if f.commands().len() <= 1 => cmd,
                    _ => f.title.clone(),
                })
                .unwrap_or_else(|| "-".into());
            Some([
                pkg,
                verdict.into(),
                d.code.as_str().into(),
                cut(&fix, TABLE_FIX),
            ])
        })
        .collect();
    let head = ["package", "verdict", "cause", "fix"].map(String::from);
    let width = |c: usize| {
        std::iter::once(&head)
            .chain(&rows)
            .map(|r| r[c].chars().count())
            .max()
            .unwrap_or(0)
    };
    let w = [width(0), width(1), width(2)];
    let line = |r: &[String; 4]| {
        format!(
            "{:w0$}  {:w1$}  {:w2$}  {}",
            r[0],
            r[1],
            r[2],
            r[3],
            w0 = w[0],
            w1 = w[1],
            w2 = w[2]
        )
        .trim_end()
        .to_owned()
    };
    let _ = writeln!(out, "{}", st.bold(&line(&head)));
    for r in &rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

/// `s` cut to `n` chars, with an ellipsis when cut.
fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}
