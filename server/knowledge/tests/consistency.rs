//! Consistency of the compiled-in tables: names valid and unique, every cross-reference resolves,
//! compatibility rows ordered, wheel naming ranges disjoint, every entry sourced.

// Test helpers panic on broken fixtures by design.
#![allow(clippy::unwrap_used, clippy::panic)]

use abidoc_knowledge::compat::{self, tables};
use abidoc_knowledge::models::{Kind, families, family_for_model_id, name_patterns};
use abidoc_knowledge::packages::all;
use abidoc_knowledge::*;
use std::collections::{BTreeMap, BTreeSet};

fn v(s: &str) -> Version {
    Version::parse(s).unwrap_or_else(|| panic!("not a version: {s}"))
}

fn sourced(what: &str, source: &str, problems: &mut Vec<String>) {
    if !source.starts_with("https://") {
        problems.push(format!("{what}: source {source:?} is not an https URL"));
    }
}

#[test]
fn tables_parse() {
    assert_eq!(load_errors(), Vec::<String>::new());
    assert!(all().len() >= 25);
    assert!(families().len() >= 30);
}

#[test]
fn package_names_and_modules() {
    let mut problems = Vec::new();
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    let mut modules: BTreeMap<String, String> = BTreeMap::new();
    let mut patterns: BTreeMap<String, String> = BTreeMap::new();
    let family_types: BTreeSet<&str> = families().iter().map(|f| f.model_type.as_str()).collect();
    for p in all() {
        sourced(&p.name, &p.source, &mut problems);
        for n in std::iter::once(&p.name).chain(&p.aliases) {
            if !is_valid_pep508_name(n) || normalize_name(n) != *n {
                problems.push(format!("{n}: not a normalized PEP 508 name"));
            }
            if let Some(other) = names.insert(n.clone(), p.name.clone()) {
                problems.push(format!("{n}: named by {other} and {}", p.name));
            }
        }
        for b in &p.backends {
            sourced(&p.name, &b.source, &mut problems);
            if !matches!(
                b.rule.as_str(),
                "torch-build" | "on-request" | "first-that-loads" | "one-per-provider"
            ) || b
                .matching
                .as_deref()
                .is_some_and(|m| !matches!(m, "exact" | "same-major"))
                || b.gpu
                    .iter()
                    .any(|g| !matches!(g.torch.as_str(), "cuda" | "hip" | "xpu"))
            {
                problems.push(format!("{}: backends rule {:?} unknown", p.name, b.rule));
            }
            // The backends must be the package's own files.
            let probe = format!("site-packages/{}/{}x.so", b.dir, b.prefix);
            if package_for_path(&probe).map(|x| &x.name) != Some(&p.name) {
                problems.push(format!("{}: backend {probe} is not its file", p.name));
            }
        }
        for m in &p.modules {
            if let Some(other) = modules.insert(m.clone(), p.name.clone()) {
                problems.push(format!("module {m}: in {other} and {}", p.name));
            }
            if package_for_module(m).map(|x| &x.name) != Some(&p.name) {
                problems.push(format!("module {m}: does not resolve to {}", p.name));
            }
        }
        for pat in p.paths.iter().chain(&p.modules) {
            let key = pat.replace('.', "/");
            if let Some(other) = patterns.insert(key.clone(), p.name.clone())
                && other != p.name
            {
                problems.push(format!("pattern {key}: in {other} and {}", p.name));
            }
        }
        for i in &p.import_names {
            if package_for_module(i).map(|x| &x.name) != Some(&p.name) {
                problems.push(format!("import {i}: does not resolve to {}", p.name));
            }
        }
        for other in p.pairs_with.iter() {
            match package(other) {
                Some(q) if q.pairs_with.contains(&p.name) || p.name.starts_with("torch-") => {}
                Some(q) => problems.push(format!("{} pairs with {} but not back", p.name, q.name)),
                None => problems.push(format!(
                    "{}: pairs_with {other} is not in the table",
                    p.name
                )),
            }
        }
        for imp in &p.optional_importers {
            if !is_valid_pep508_name(imp) || normalize_name(imp) != *imp {
                problems.push(format!(
                    "{}: importer {imp:?} is not a normalized name",
                    p.name
                ));
            }
        }
        if p.optional_for_importers && p.optional_importers.is_empty() {
            problems.push(format!(
                "{}: optional for importers, but none listed",
                p.name
            ));
        }
        for f in &p.needed_by_families {
            if !family_types.contains(f.as_str()) {
                problems.push(format!("{}: family {f} is not in models.toml", p.name));
            }
        }
        let b = &p.build;
        if !b.pip_flags.is_empty() || !b.env.is_empty() {
            sourced(&format!("{} build", p.name), &b.source, &mut problems);
        }
        for f in &b.pip_flags {
            if !f.starts_with('-') && !f.starts_with("--build-option") {
                problems.push(format!("{}: pip flag {f:?}", p.name));
            }
        }
        for e in &b.env {
            let ok = e
                .name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                && e.name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase());
            if !ok || e.why.is_empty() {
                problems.push(format!("{}: env {:?}", p.name, e.name));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn families_and_packages_agree() {
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for f in families() {
        sourced(&f.model_type, &f.source, &mut problems);
        if !seen.insert(f.model_type.clone()) {
            problems.push(format!("{}: listed twice", f.model_type));
        }
        if family_for_model_type(&f.model_type).map(|x| &x.model_type) != Some(&f.model_type) {
            problems.push(format!("{}: lookup by model_type fails", f.model_type));
        }
        if f.uses_mamba_kernels != f.kernels.iter().any(|k| k == "mamba-ssm") {
            problems.push(format!(
                "{}: uses_mamba_kernels disagrees with kernels",
                f.model_type
            ));
        }
        if f.kind == Kind::Transformer && !f.kernels.is_empty() {
            problems.push(format!(
                "{}: a plain transformer with kernels",
                f.model_type
            ));
        }
        if f.kind != Kind::Transformer && f.kernels.is_empty() {
            problems.push(format!(
                "{}: an SSM/hybrid family without kernels",
                f.model_type
            ));
        }
        for k in &f.kernels {
            match package(k) {
                Some(p) if p.needed_by_families.contains(&f.model_type) => {}
                Some(p) => problems.push(format!(
                    "{}: uses {} which does not list it",
                    f.model_type, p.name
                )),
                None => problems.push(format!(
                    "{}: kernel package {k} is not in packages.toml",
                    f.model_type
                )),
            }
        }
    }
    for p in all() {
        for fam in &p.needed_by_families {
            if let Some(f) = family_for_model_type(fam)
                && !f.kernels.contains(&p.name)
            {
                problems.push(format!(
                    "{} lists {fam}, whose kernels do not include it",
                    p.name
                ));
            }
        }
    }
    for pat in name_patterns() {
        sourced(&pat.model_type, &pat.source, &mut problems);
        if family_for_model_type(&pat.model_type).is_none() {
            problems.push(format!(
                "pattern {:?}: unknown model_type {}",
                pat.contains, pat.model_type
            ));
        }
        if pat
            .contains
            .iter()
            .any(|c| c.is_empty() || c.to_ascii_lowercase() != *c)
        {
            problems.push(format!(
                "pattern {:?}: must be non-empty lower case",
                pat.contains
            ));
        }
        // No earlier pattern shadows this one.
        let probe = format!("org/{}", pat.contains.join("-x-"));
        let got = family_for_model_id(&probe).map(|(_, p)| p);
        if got != Some(pat) {
            problems.push(format!(
                "pattern {:?} is shadowed by {:?}",
                pat.contains,
                got.map(|p| &p.contains)
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

#[test]
fn torch_rows_are_monotonic_and_complete() {
    let t = tables();
    let mut problems = Vec::new();
    for w in t.torch.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if v(&a.torch) >= v(&b.torch) {
            problems.push(format!("torch {} then {}", a.torch, b.torch));
        }
        if v(&a.default_cuda) > v(&b.default_cuda) {
            problems.push(format!("default CUDA goes back at {}", b.torch));
        }
        if a.cxx11_abi && !b.cxx11_abi {
            problems.push(format!("C++11 ABI goes back at {}", b.torch));
        }
    }
    // Companion versions strictly increase among the rows that have one.
    for (what, get) in [
        (
            "torchvision",
            (|r: &abidoc_knowledge::compat::TorchRow| r.torchvision.clone()) as fn(&_) -> _,
        ),
        ("torchaudio", |r: &abidoc_knowledge::compat::TorchRow| {
            r.torchaudio.clone()
        }),
    ] {
        let present: Vec<String> = t.torch.iter().filter_map(get).collect();
        for w in present.windows(2) {
            if v(&w[0]) >= v(&w[1]) {
                problems.push(format!("{what} {} then {}", w[0], w[1]));
            }
        }
    }
    for r in &t.torch {
        sourced(&r.torch, &r.source, &mut problems);
        if r.torchvision.is_none() && v(&r.torch) < v("2.15") {
            problems.push(format!("torch {}: no torchvision", r.torch));
        }
        if r.torchaudio.is_none() && v(&r.torch) < v("2.12") {
            problems.push(format!("torch {}: no torchaudio", r.torch));
        }
        // From torch 2.0 torchaudio shares torch's version, except 2.0.x, whose PyPI torchaudio
        // is one patch ahead (2.0.1 for torch 2.0.0, 2.0.2 for 2.0.1: releases.toml).
        if let Some(ta) = &r.torchaudio
            && v(&r.torch) >= v("2.0")
            && v(ta) != v(&r.torch)
            && !r.torch.starts_with("2.0.")
        {
            problems.push(format!("torchaudio {ta} for torch {}", r.torch));
        }
    }
    let minors: BTreeSet<(u64, u64)> = t.torch.iter().map(|r| v(&r.torch).major_minor()).collect();
    let expected: Vec<(u64, u64)> = (8..=13)
        .map(|m| (1, m))
        .chain((0..=10).map(|m| (2, m)))
        .collect();
    for m in expected {
        if !minors.contains(&m) {
            problems.push(format!("torch {}.{} missing", m.0, m.1));
        }
    }
    // xformers: releases ordered, pins never go back, each pinned torch is a listed release.
    for w in t.xformers.windows(2) {
        if v(&w[0].xformers) >= v(&w[1].xformers) || v(&w[0].torch) > v(&w[1].torch) {
            problems.push(format!("xformers {} then {}", w[0].xformers, w[1].xformers));
        }
    }
    for x in &t.xformers {
        sourced(&x.xformers, &x.source, &mut problems);
        if !t.torch.iter().any(|r| v(&r.torch) == v(&x.torch)) {
            problems.push(format!(
                "xformers {} pins unlisted torch {}",
                x.xformers, x.torch
            ));
        }
    }
    // Extension releases: known package, known torch minors in order, newer releases reach at
    // least as new a torch.
    let mut by_pkg: BTreeMap<String, Vec<(Version, Version)>> = BTreeMap::new();
    for r in &t.release {
        sourced(&r.version, &r.source, &mut problems);
        if package(&r.package).is_none_or(|p| p.name != r.package) {
            problems.push(format!("release of unknown package {}", r.package));
        }
        for w in r.torch.windows(2) {
            if v(&w[0]) >= v(&w[1]) {
                problems.push(format!(
                    "{} {}: torch list out of order",
                    r.package, r.version
                ));
            }
        }
        for m in &r.torch {
            if !minors.contains(&v(m).major_minor()) {
                problems.push(format!(
                    "{} {}: torch {m} not in the torch table",
                    r.package, r.version
                ));
            }
        }
        if let Some(max) = r.torch.last() {
            by_pkg
                .entry(r.package.clone())
                .or_default()
                .push((v(&r.version), v(max)));
        }
    }
    for (pkg, mut rels) in by_pkg {
        rels.sort();
        for w in rels.windows(2) {
            if w[0].1 > w[1].1 {
                problems.push(format!(
                    "{pkg}: {} reaches torch {} but newer {} only {}",
                    w[0].0, w[0].1, w[1].0, w[1].1
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// The default CUDA and C++ ABI in the table agree with what the offline torch index read from
/// the real PyPI wheels.
#[test]
fn torch_rows_agree_with_the_wheels_indexed() {
    let mut problems = Vec::new();
    let indexed = abidoc_knowledge::torch_index::releases();
    assert!(!indexed.is_empty());
    for r in indexed {
        let row = compat::torch_row(&r.version).filter(|row| v(&row.torch) == v(&r.version));
        let Some(row) = row else {
            problems.push(format!(
                "torch {} is indexed but not in compat.toml",
                r.version
            ));
            continue;
        };
        if torch_cxx11_abi(&r.version) != Some(r.cxx11_abi) {
            problems.push(format!(
                "torch {}: C++11 ABI {} in the wheel",
                r.version, r.cxx11_abi
            ));
        }
        if r.cuda.as_deref() != Some(row.default_cuda.as_str()) {
            problems.push(format!(
                "torch {}: CUDA {:?} in the wheel, {} in the table",
                r.version, r.cuda, row.default_cuda
            ));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}

/// Every provider names its source, and every package name that may reach a command passes the
/// grammar of its package manager (these names become argument vectors in fixes).
#[test]
fn system_libraries_are_sourced_and_installable() {
    use abidoc_knowledge::system_libs::{is_torch_library, table};
    let t = table();
    let mut problems = Vec::new();
    sourced("torch_libraries", &t.torch_libraries_source, &mut problems);
    for l in &t.torch_libraries {
        if !(l.starts_with("lib") && l.ends_with(".so")) {
            problems.push(format!("torch library {l:?} is not a lib*.so name"));
        }
        if !is_torch_library(l) {
            problems.push(format!("{l} not found by is_torch_library"));
        }
    }
    let distro_name = |n: &str| {
        n.bytes().next().is_some_and(|c| c.is_ascii_alphanumeric())
            && n.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b".+-_".contains(&c))
    };
    for s in &t.system {
        sourced(&s.what, &s.source, &mut problems);
        // ELF and macOS names start with `lib`; a Windows DLL's need not (`zlibwapi.dll`).
        if s.sonames.is_empty()
            || s.sonames
                .iter()
                .any(|n| !n.starts_with("lib") && !n.ends_with(".dll"))
        {
            problems.push(format!("{}: sonames {:?}", s.what, s.sonames));
        }
        if s.pip.is_empty() && s.conda.is_empty() && s.apt.is_empty() && s.dnf.is_empty() {
            problems.push(format!("{}: no provider", s.what));
        }
        for n in s.pip.iter().chain(&s.conda) {
            if !abidoc_knowledge::is_valid_pep508_name(n) {
                problems.push(format!("{}: bad pip/conda name {n:?}", s.what));
            }
        }
        for n in s.apt.iter().chain(&s.dnf) {
            if !distro_name(n) {
                problems.push(format!("{}: bad distro package {n:?}", s.what));
            }
        }
    }
    // No soname may be claimed by two providers: the first would silently win.
    for (i, a) in t.system.iter().enumerate() {
        for b in &t.system[i + 1..] {
            for p in &a.sonames {
                if b.sonames
                    .iter()
                    .any(|q| q.starts_with(p.as_str()) || p.starts_with(q.as_str()))
                {
                    problems.push(format!("{p} claimed by {} and {}", a.what, b.what));
                }
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}
