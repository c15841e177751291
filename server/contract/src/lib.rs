//! The stable JSON contract (`docs/contract.md`): the one serializer of a diagnosis (everything
//! but its source position, which each front end knows how to place) and of a fix, shared by
//! the CLI (`--format json`, SARIF properties) and the language server (scan reports).

use abidoc_ide::fix::Compile;
use abidoc_ide::{Diagnostic, Fix, ScanMeta};
use serde_json::{Map, Value, json};

/// A fix as the contract states it: what to run (argument vectors, their uv form, the shell
/// line and the notebook cell, all rendered from the same steps), why, how safe, what it costs.
pub fn fix(f: &Fix) -> Value {
    let env: Map<String, Value> = f.env().into_iter().map(|(k, v)| (k, json!(v))).collect();
    let mut v = json!({
        "id": f.id,
        "kind": f.kind.as_str(),
        "title": f.title,
        "reason": f.reason,
        "preferred": f.preferred,
        "applicability": f.applicability().as_str(),
        "commands": f.commands(),
        "env": env,
        "verified": f.verified,
        "cost": cost(f),
    });
    if let Some(c) = f.notebook_cell() {
        v["notebook_cell"] = json!(c);
    }
    if let Some(s) = f.shell_line() {
        v["shell"] = json!(s);
        // Only a line for another shell than POSIX sh says which (additive: `cmd` for Windows).
        if f.shell != abidoc_ide::fix::Shell::Posix {
            v["shell_dialect"] = json!(f.shell.as_str());
        }
    }
    if let Some(u) = f.uv_commands() {
        v["uv_commands"] = json!(u);
    }
    let advice = f.advice();
    if !advice.is_empty() {
        v["advice"] = json!(advice);
    }
    if let Some(what) = &f.fill_in {
        v["fill_in"] = json!(what);
    }
    if let Some(what) = &f.blocker {
        v["blocker"] = json!(what);
    }
    v
}

fn cost(f: &Fix) -> Value {
    let mut c = json!({ "downloads": f.cost.downloads, "also": f.cost.also });
    if let Some(Compile { minutes, needs }) = &f.cost.compiles {
        c["compiles"] = json!({ "minutes": minutes, "needs": needs });
    }
    c
}

/// A diagnosis without its source position: code, severity, message, package, library,
/// symbols, evidence, explanation, fixes.
pub fn diagnostic(d: &Diagnostic) -> Map<String, Value> {
    let mut obj = Map::new();
    obj.insert("code".into(), json!(d.code.as_str()));
    obj.insert("severity".into(), json!(d.severity.as_str()));
    obj.insert("message".into(), json!(d.message));
    if let Some(p) = &d.package {
        obj.insert("package".into(), json!(p));
    }
    if let Some(l) = &d.library {
        obj.insert("library".into(), json!(l));
    }
    let symbols: Vec<Value> = d
        .symbols
        .iter()
        .map(|s| {
            let mut v = json!({ "mangled": s.mangled, "status": s.status.as_str() });
            if let Some(dm) = &s.demangled {
                v["demangled"] = json!(dm);
            }
            if let Some(n) = &s.nearest {
                v["nearest"] = json!(n);
            }
            v
        })
        .collect();
    obj.insert("symbols".into(), Value::Array(symbols));
    obj.insert("evidence".into(), json!(d.evidence));
    if let Some(e) = &d.explanation {
        obj.insert("explanation".into(), json!(e));
    }
    obj.insert(
        "fixes".into(),
        Value::Array(d.fixes.iter().map(fix).collect()),
    );
    obj
}

/// What a scan knows about a diagnosis beside it: `fold` (how a one-screen front end folds it)
/// and `package_version` (the version of the distribution owning the library), added to the
/// diagnosis' JSON by the CLI's `scan --format json` and the language server's scan result.
pub fn add_scan_meta(obj: &mut Map<String, Value>, meta: &ScanMeta) {
    obj.insert("fold".into(), json!(meta.fold.as_str()));
    if let Some(v) = &meta.package_version {
        obj.insert("package_version".into(), json!(v));
    }
}
