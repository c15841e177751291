//! `abidoc verify`: which inputs are wheels, directories of wheels or install plans, and the
//! verdict printed like `scan`'s (human, the contract's JSON, SARIF); the judging is
//! `AnalysisHost::verify`'s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abidoc_env::plans::{Plan, parse_pip_report, parse_pylock, parse_requirements_file};
use abidoc_ide::{AnalysisHost, PrebuiltWheel, VerifyRequest};
use serde_json::{Value, json};

use crate::{Common, Extras, Format, emit_with, input, render};

/// A plan file is text; larger than this is not a plan.
const MAX_PLAN: u64 = 64 << 20;

pub fn run(
    paths: &[PathBuf],
    torch: Option<&str>,
    packages: &[String],
    gpus: &[String],
    common: &Common,
) -> Result<ExitCode, String> {
    for g in gpus {
        // A name of a GPU: words, digits and a few marks; the table decides whether it knows it.
        let plain = !g.trim().is_empty()
            && g.len() <= 64
            && g.chars()
                .all(|c| c.is_ascii_alphanumeric() || " ._-".contains(c));
        if !plain {
            return Err(format!(
                "--gpu {g:?}: not a compute capability or a GPU model name"
            ));
        }
    }
    if common.no_env {
        return Err("`verify` judges against an environment; --no-env does not apply".into());
    }
    let ctx = common.context()?;
    let torch = match torch {
        Some(t) => Some(
            abidoc_ide::fix::Version::new(t)
                .ok_or_else(|| format!("--torch {t:?}: not a version"))?
                .as_str()
                .to_string(),
        ),
        None => None,
    };
    let mut req = VerifyRequest {
        torch,
        packages: packages
            .iter()
            .map(|p| requirement(p))
            .collect::<Result<_, _>>()?,
        gpus: gpus.iter().map(|g| g.trim().to_string()).collect(),
        ..VerifyRequest::default()
    };
    for p in paths {
        classify(p, &mut req)?;
    }
    if req.wheels.is_empty() && req.plan.is_none() && req.torch.is_none() && req.packages.is_empty()
    {
        return Err(
            "nothing to verify: name a wheel, a directory of wheels or an install plan, \
             --package NAME[==VERSION] for the prebuilt wheel its setup.py would fetch, or \
             --torch VERSION for a torch-upgrade preview"
                .into(),
        );
    }
    let mut outcome = AnalysisHost::new().verify(&ctx, &req);
    for note in &outcome.notes {
        eprintln!("abidoc: {note}");
    }
    let human = common.format == Format::Human;
    if !outcome.judged && outcome.unreadable == 0 {
        // Plan entries that name no wheel, no torch version and no prebuilt-wheel package:
        // "nothing would fail" would claim a verdict nobody made.
        outcome.summary.push(
            "nothing judged: no local wheel, torch version or prebuilt-wheel package to judge"
                .into(),
        );
    }
    if human {
        let mut out = std::io::stdout().lock();
        for line in &outcome.summary {
            let _ = writeln!(out, "{line}");
        }
    }
    // The one screen leaves out what a summary line already said (a wheel that loads).
    let said = !outcome.summarized.is_empty();
    // A wheel that loads is no finding: SARIF gets no result for it (its summary line is the
    // human answer; JSON keeps it for clients that show it).
    if (human && !common.verbose) || common.format == Format::Sarif {
        outcome.diagnostics = std::mem::take(&mut outcome.diagnostics)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !outcome.summarized.contains(i))
            .map(|(_, d)| d)
            .collect();
    }
    let none = if outcome.unreadable > 0 {
        "no failure found in what could be read"
    } else if said {
        "every wheel loads"
    } else if !outcome.judged {
        ""
    } else if outcome.prebuilt.is_empty() {
        "nothing would fail to load"
    } else {
        // The prebuilt answers above are the whole output.
        ""
    };
    let mut extras = Extras {
        none: Some(none),
        json: Vec::new(),
    };
    if !outcome.prebuilt.is_empty() {
        extras.json.push((
            "prebuilt",
            Value::Array(outcome.prebuilt.iter().map(prebuilt_json).collect()),
        ));
    }
    let reports = vec![render::Report {
        input: None,
        diagnostics: outcome.diagnostics,
    }];
    let code = emit_with(&reports, common, None, "`--verbose`", &extras)?;
    if outcome.unreadable > 0 && code == ExitCode::SUCCESS {
        return Ok(ExitCode::from(2));
    }
    Ok(code)
}

/// A directory adds its `*.whl` files, a `.whl` file itself; anything else is read as a plan:
/// a `*.toml` as `pylock.toml`, a `pip install --dry-run --report` JSON, else requirements
/// lines (with their `-r` includes). A plan that yields no entry is an error (exit 2).
fn classify(p: &Path, req: &mut VerifyRequest) -> Result<(), String> {
    let shown = p.display();
    let md = std::fs::metadata(p).map_err(|e| format!("{shown}: {e}"))?;
    if md.is_dir() {
        let mut found: Vec<PathBuf> = std::fs::read_dir(p)
            .map_err(|e| format!("{shown}: {e}"))?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|f| f.extension().is_some_and(|e| e == "whl") && f.is_file())
            .collect();
        if found.is_empty() {
            return Err(format!("{shown}: no *.whl file in this directory"));
        }
        found.sort();
        req.wheels.extend(found);
        return Ok(());
    }
    if p.extension().is_some_and(|e| e == "whl") {
        req.wheels.push(p.to_path_buf());
        return Ok(());
    }
    let text = input::read_file(p, MAX_PLAN)?.text.to_string();
    // Absolute, so the plan's relative paths (and includes) are from its own directory even
    // when it is named as a bare file name.
    let me = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let plan = if p.extension().is_some_and(|e| e == "toml") {
        parse_pylock(&text, &me)
    } else if text.trim_start().starts_with('{') {
        parse_pip_report(&text, None)
    } else {
        parse_requirements_file(&text, &me)
    };
    if plan.installs.is_empty() {
        // Not a plan, or an empty one: saying nothing would fail would be a verdict on nothing.
        let why = plan.problems.first().map_or_else(
            || "it names no distribution".to_string(),
            |m| format!("{m}{}", if plan.problems.len() > 1 { ", …" } else { "" }),
        );
        return Err(format!(
            "{shown}: nothing to judge in this plan ({why}); verify reads wheels, directories of \
             wheels, `pip install --dry-run --report` JSON, requirements files and pylock.toml"
        ));
    }
    let merged = req.plan.get_or_insert_with(Plan::default);
    merged.installs.extend(plan.installs);
    merged
        .problems
        .extend(plan.problems.into_iter().map(|m| format!("{shown}: {m}")));
    Ok(())
}

/// `--package NAME` or `NAME==VERSION`, each part validated as pip would take it.
fn requirement(text: &str) -> Result<(String, Option<String>), String> {
    let bad = || format!("--package {text:?}: give NAME or NAME==VERSION");
    let (name, version) = match text.split_once("==") {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (text.trim(), None),
    };
    let name = abidoc_ide::fix::Name::new(name).ok_or_else(bad)?;
    let version = match version {
        Some(v) => Some(
            abidoc_ide::fix::Version::new(v)
                .ok_or_else(bad)?
                .as_str()
                .to_string(),
        ),
        None => None,
    };
    Ok((name.as_str().to_string(), version))
}

/// One answer of `--package` (and of a plan entry built from an sdist) in the JSON document's
/// `prebuilt` array (`docs/contract.md`).
fn prebuilt_json(p: &PrebuiltWheel) -> Value {
    let nearest: Vec<Value> = p
        .nearest
        .iter()
        .map(|n| {
            json!({
                "version": n.version,
                "torch": n.torch,
                "cuda": n.cuda,
                "same_torch": n.same_torch,
                "file_name": n.file_name,
                "url": n.url,
                "source": n.source,
            })
        })
        .collect();
    json!({
        "package": p.package,
        "version": p.version,
        "version_from": p.version_from,
        "target": {
            "torch": p.torch,
            "cuda": p.cuda,
            "cxx11_abi": p.cxx11_abi,
            "python": p.python,
            "assumed": p.assumed,
        },
        "status": p.status.as_str(),
        "file_name": p.file_name,
        "url": p.url,
        "verified": false,
        "message": p.message,
        "sources": p.sources,
        "nearest": nearest,
    })
}
