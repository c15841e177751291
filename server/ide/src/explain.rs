//! Explaining a symbol or a library in plain words: demangled form, ABI, who should define it,
//! who exports it (or the nearest variant) in the environment, and its history across torch releases.

use crate::context::Context;
use crate::symbols::{self, Owner, StringAbi};

use crate::diagnostic::Explanation;
use crate::envview::Environments;

pub(crate) fn explain_symbol(input: &str, ctx: &Context, envs: &Environments) -> Explanation {
    let input = input.trim();
    let mangled = symbols::is_mangled(input).then(|| symbols::normalize(input).to_owned());
    let demangled = mangled.as_deref().and_then(crate::kb::demangle);
    let sym = mangled.as_deref().unwrap_or(input);
    let owner = match symbols::owner(sym) {
        Owner::Torch => "torch (c10 / ATen / libtorch)",
        Owner::Libstdcxx => "libstdc++ (the C++ runtime)",
        Owner::Python => "the Python interpreter / pybind11",
        Owner::Own => "the extension's own code (not torch)",
        Owner::Unknown => "unknown (a C symbol)",
    };
    let abi = symbols::string_abi(sym).map(|a| match a {
        StringAbi::Cxx11 => "C++11 (_GLIBCXX_USE_CXX11_ABI=1)",
        StringAbi::PreCxx11 => "pre-C++11 (_GLIBCXX_USE_CXX11_ABI=0)",
    });
    let mut e = Explanation {
        input: input.to_owned(),
        mangled: mangled.clone(),
        demangled,
        owner,
        abi,
        exported_by: Vec::new(),
        nearest: Vec::new(),
        history: Vec::new(),
        notes: Vec::new(),
    };
    if mangled.is_none() {
        e.notes
            .push("not a mangled C++ name: looked up as given".into());
    }
    if ctx.use_env {
        if let Some(env) = crate::envview::EnvView::open(ctx, envs, &[]) {
            env.locate_symbol(sym, &mut e);
        } else {
            e.notes.push("no Python environment found (use --python or --site-packages) — showing what the name alone says".into());
        }
    }
    e.history.extend(crate::kb::symbol_history(sym));
    e
}

pub fn markdown(e: &Explanation) -> String {
    let mut s = String::new();
    if let Some(d) = &e.demangled {
        s.push_str(&format!("```cpp\n{d}\n```\n"));
    }
    s.push_str(&format!("Defined by: {}", e.owner));
    if let Some(a) = e.abi {
        s.push_str(&format!("  \nstd::string ABI: {a}"));
    }
    for l in &e.exported_by {
        s.push_str(&format!("  \n✓ exported by `{l}`"));
    }
    for n in &e.nearest {
        s.push_str(&format!(
            "  \nnearest export: `{}` in `{}` — {}",
            n.demangled, n.library, n.difference
        ));
    }
    for h in &e.history {
        s.push_str(&format!("  \n{h}"));
    }
    for n in &e.notes {
        s.push_str(&format!("  \n_{n}_"));
    }
    s
}

pub(crate) fn library_markdown(path: &str, ctx: &Context, envs: &Environments) -> String {
    let module = crate::incidents::module_name(path);
    let world = crate::evidence::World::new(ctx, envs, &[path]);
    let mut s = format!("**{module}**");
    match world.package_of_library(path) {
        Some(p) => {
            let v = world
                .installed_version(&p.name)
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            s.push_str(&format!(" — from `{}{v}`", p.name));
        }
        None => s.push_str(" — owner unknown"),
    }
    if let Some(f) = world.library_facts(path) {
        let missing = f
            .symbols
            .iter()
            .filter(|x| x.status != crate::SymbolStatus::Resolved)
            .count();
        if missing == 0 {
            s.push_str("  \nloads: all its symbols resolve");
        } else {
            s.push_str(&format!(
                "  \nwill not load: {missing} unresolved symbol(s)"
            ));
        }
        for ev in &f.evidence {
            s.push_str(&format!("  \n{ev}"));
        }
    }
    s
}
