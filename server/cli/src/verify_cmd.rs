//! `abidoc verify`: which inputs are wheels, directories of wheels or install plans, and the
//! verdict printed like `scan`'s (human, the contract's JSON, SARIF); the judging is
//! `AnalysisHost::verify`'s.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use abidoc_env::verify::{Plan, parse_pip_report, parse_requirements};
use abidoc_ide::{AnalysisHost, VerifyRequest};

use crate::{Common, Format, emit, input, render};

/// A plan file is text; larger than this is not a plan.
const MAX_PLAN: u64 = 64 << 20;

pub fn run(paths: &[PathBuf], torch: Option<&str>, common: &Common) -> Result<ExitCode, String> {
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
        ..VerifyRequest::default()
    };
    for p in paths {
        classify(p, &mut req)?;
    }
    if req.wheels.is_empty() && req.plan.is_none() && req.torch.is_none() {
        return Err(
            "nothing to verify: name a wheel, a directory of wheels or an install plan, or \
             --torch VERSION for a torch-upgrade preview"
                .into(),
        );
    }
    let outcome = AnalysisHost::new().verify(&ctx, &req);
    for note in &outcome.notes {
        eprintln!("abidoc: {note}");
    }
    if common.format == Format::Human {
        let mut out = std::io::stdout().lock();
        for line in &outcome.summary {
            let _ = writeln!(out, "{line}");
        }
    }
    let reports = vec![render::Report {
        input: None,
        diagnostics: outcome.diagnostics,
    }];
    let code = emit(&reports, common, None, "`--verbose`")?;
    if outcome.unreadable > 0 && code == ExitCode::SUCCESS {
        return Ok(ExitCode::from(2));
    }
    Ok(code)
}

/// A directory adds its `*.whl` files, a `.whl` file itself; anything else is read as a plan:
/// a `pip install --dry-run --report` JSON, else requirements lines naming local wheels.
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
    let base = p
        .parent()
        .map(Path::to_path_buf)
        .and_then(|b| std::path::absolute(b).ok())
        .unwrap_or_default();
    let plan = if text.trim_start().starts_with('{') {
        parse_pip_report(&text, None)
    } else {
        parse_requirements(&text, &base)
    };
    let merged = req.plan.get_or_insert_with(Plan::default);
    merged.installs.extend(plan.installs);
    merged
        .problems
        .extend(plan.problems.into_iter().map(|m| format!("{shown}: {m}")));
    Ok(())
}
