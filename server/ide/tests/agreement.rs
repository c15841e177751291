//! Agreement with real reports (`tests/fixtures/mined/*.jsonl`: error texts from public issue
//! threads, each with the fix its thread confirmed): how often, from the text alone, abidoc names
//! the expected code, the package, and a preferred fix of the kind the thread confirmed. Prints
//! the rates; fails when one falls below the floor measured when the cases were added.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use abidoc_ide::fix::{FixKind, Step};
use abidoc_ide::{Context, Diagnostic, diagnose_text};
use std::path::Path;

struct Case {
    id: String,
    package: String,
    expected_code: String,
    confirmed_kind: String,
    confirmed_packages: Vec<String>,
    env: Vec<String>,
    text: String,
}

fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mined");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    for f in files {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            let s = |k: &str| v[k].as_str().unwrap_or("").to_owned();
            out.push(Case {
                id: s("id"),
                package: abidoc_knowledge::normalize_name(&s("package")),
                expected_code: s("expected_code"),
                confirmed_kind: v["confirmed"]["kind"].as_str().unwrap_or("").to_owned(),
                confirmed_packages: v["confirmed"]["packages"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|p| p.as_str())
                            .map(|p| {
                                abidoc_knowledge::normalize_name(
                                    p.split(['=', '<', '>', '[', ' ']).next().unwrap_or(p),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                env: v["confirmed"]["env"]
                    .as_object()
                    .map(|o| o.keys().cloned().collect())
                    .unwrap_or_default(),
                text: s("text"),
            });
        }
    }
    out
}

/// Whether the preferred fix is of the kind the thread confirmed (or its equivalent).
fn fix_agrees(c: &Case, d: &Diagnostic) -> bool {
    let Some(f) = d.fixes.first() else {
        return false;
    };
    let sets_env = |name: &str| {
        f.steps
            .iter()
            .any(|s| matches!(s, Step::SetEnv { name: n, .. } if n.as_str() == name))
    };
    let touches = |pkgs: &[String]| {
        pkgs.is_empty()
            || f.steps.iter().any(|s| match s {
                Step::PipInstall { requirements, .. } => requirements
                    .iter()
                    .any(|r| pkgs.iter().any(|p| p == r.name().as_str())),
                Step::PipUninstall { packages, .. } => packages
                    .iter()
                    .any(|n| pkgs.iter().any(|p| p == n.as_str())),
                _ => false,
            })
    };
    match c.confirmed_kind.as_str() {
        "uninstall" => {
            matches!(f.kind, FixKind::RemoveUnneeded | FixKind::RemoveIfUnneeded)
        }
        "install-companion" | "prebuilt-wheel" => {
            matches!(f.kind, FixKind::AlignCompanion | FixKind::PrebuiltWheel)
                && touches(&c.confirmed_packages)
        }
        "change-torch" => {
            f.kind == FixKind::AlignTorch
                || f.steps.iter().any(|s| matches!(s, Step::PipInstall { requirements, .. } if requirements.iter().any(|r| r.name().as_str() == "torch")))
        }
        "rebuild-source" => matches!(f.kind, FixKind::SourceBuild | FixKind::PrebuiltWheel),
        "install-pip" => f.kind == FixKind::InstallMissing && touches(&c.confirmed_packages),
        "set-env" => c.env.iter().any(|e| sets_env(e)),
        "install-system" => matches!(
            f.kind,
            FixKind::InstallMissing | FixKind::NeedsRoot | FixKind::Advice
        ) && !f.steps.iter().any(|s| matches!(s, Step::PipInstall { .. })),
        "link" => f.steps.iter().any(|s| matches!(s, Step::Link { .. }))
            || f.advice().iter().any(|a| a.contains("ln -s")),
        "numpy-pin" => f.id.ends_with("numpy-below-2"),
        _ => false,
    }
}

#[test]
fn agreement_with_confirmed_fixes() {
    let ctx = Context {
        use_env: false,
        ..Context::default()
    };
    let cases = cases();
    let (mut code_ok, mut pkg_ok, mut fix_ok, mut with_fix) = (0, 0, 0, 0);
    let (mut shown, mut shown_ok) = (0, 0);
    let (mut misses, mut code_misses, mut pkg_misses) = (Vec::new(), Vec::new(), Vec::new());
    for c in &cases {
        let diags = diagnose_text(&c.text, &ctx);
        let main = diags
            .iter()
            .find(|d| d.code.as_str() == c.expected_code)
            .or_else(|| diags.first());
        let got = || {
            diags
                .iter()
                .map(|d| {
                    format!(
                        "{}[{}]",
                        d.code.as_str(),
                        d.package.as_deref().unwrap_or("-")
                    )
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        if diags.iter().any(|d| d.code.as_str() == c.expected_code) {
            code_ok += 1;
        } else {
            code_misses.push(format!(
                "{}: expected {}; got {}",
                c.id,
                c.expected_code,
                got()
            ));
        }
        let named = diags
            .iter()
            .any(|d| d.package.as_deref() == Some(c.package.as_str()));
        if text_shows(&c.text, &c.package) {
            shown += 1;
            shown_ok += usize::from(named);
        }
        if named {
            pkg_ok += 1;
        } else {
            pkg_misses.push(format!("{}: expected {}; got {}", c.id, c.package, got()));
        }
        if !matches!(c.confirmed_kind.as_str(), "other" | "driver-upgrade" | "") {
            with_fix += 1;
            if main.is_some_and(|d| fix_agrees(c, d)) {
                fix_ok += 1;
            } else {
                misses.push(format!(
                    "{}: confirmed {} ({}); preferred {}",
                    c.id,
                    c.confirmed_kind,
                    c.confirmed_packages.join(","),
                    main.and_then(|d| d.fixes.first())
                        .map_or("none".to_owned(), |f| f.id.clone())
                ));
            }
        }
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    println!(
        "mined cases: {}; code {:.0}%, package {:.0}% ({:.0}%, {shown_ok}/{shown}, where the text names it), preferred fix agrees {:.0}% ({fix_ok}/{with_fix} with a confirmed fix of a known kind)",
        cases.len(),
        pct(code_ok, cases.len()),
        pct(pkg_ok, cases.len()),
        pct(shown_ok, shown),
        pct(fix_ok, with_fix)
    );
    for m in &code_misses {
        println!("  code miss {m}");
    }
    for m in &pkg_misses {
        println!("  package miss {m}");
    }
    for m in &misses {
        println!("  fix miss {m}");
    }
    assert!(
        cases.len() >= 100,
        "the mined corpus holds {} cases",
        cases.len()
    );
    // Floors: the counts measured when the floors were last raised; a change may only raise them.
    assert!(
        code_ok >= FLOOR_CODE,
        "code agreement fell: {code_ok} cases"
    );
    assert!(fix_ok >= FLOOR_FIX, "fix agreement fell: {fix_ok} cases");
    assert!(
        shown_ok >= FLOOR_PACKAGE_SHOWN,
        "package agreement fell: {shown_ok} cases where the text names it"
    );
}

/// Whether the text names the package: its distribution name (`-` or `_`), an import name or a
/// compiled module of it, as written anywhere in the text (case-insensitive).
fn text_shows(text: &str, package: &str) -> bool {
    let t = text.to_ascii_lowercase();
    let mut names = vec![package.to_owned(), package.replace('-', "_")];
    if let Some(p) = abidoc_knowledge::packages::package(package) {
        names.extend(p.import_names.iter().cloned());
        names.extend(
            p.modules
                .iter()
                .filter_map(|m| m.split('.').next())
                .map(str::to_owned),
        );
    }
    names
        .iter()
        .filter(|n| n.len() >= 3)
        .any(|n| t.contains(&n.to_ascii_lowercase()))
}

/// Cases agreeing when the floors were last raised (code 98 of 120, fix 42 of 113, package 68
/// of the 84 whose text names it).
const FLOOR_CODE: usize = 98;
const FLOOR_FIX: usize = 42;
const FLOOR_PACKAGE_SHOWN: usize = 68;

/// A way a report gets pasted: the text in, the text as it arrives.
type Paste = fn(&str) -> String;

/// The same reports as pasted elsewhere: quoted in a reply (`> `), wrapped by a terminal or a
/// chat client at 80 columns, behind a logger's prefix. Each form must keep the code the plain
/// text gets; prints how many do.
#[test]
fn agreement_survives_pasting() {
    let ctx = Context {
        use_env: false,
        ..Context::default()
    };
    let forms: [(&str, Paste); 3] = [
        ("quoted", |t| {
            t.lines().map(|l| format!("> {l}\n")).collect()
        }),
        ("wrapped at 80", |t| {
            let mut out = String::new();
            for l in t.lines() {
                let chars: Vec<char> = l.chars().collect();
                for chunk in chars.chunks(80) {
                    out.extend(chunk);
                    out.push('\n');
                }
            }
            out
        }),
        ("logged", |t| {
            t.lines()
                .map(|l| format!("2024-05-01 12:00:00,123 ERROR worker.py:42 - {l}\n"))
                .collect()
        }),
    ];
    let mut failures = Vec::new();
    for (name, form) in forms {
        let (mut base, mut kept) = (0, 0);
        for c in cases() {
            let has = |text: &str| {
                diagnose_text(text, &ctx)
                    .iter()
                    .any(|d| d.code.as_str() == c.expected_code)
            };
            if !has(&c.text) {
                continue;
            }
            base += 1;
            if has(&form(&c.text)) {
                kept += 1;
            } else {
                println!("  {name}: lost {} ({})", c.id, c.expected_code);
            }
        }
        println!("{name}: {kept}/{base} keep their code");
        if kept * 20 < base * 19 {
            failures.push(format!("{name}: {kept}/{base}"));
        }
    }
    assert!(failures.is_empty(), "pasting loses codes: {failures:?}");
}
