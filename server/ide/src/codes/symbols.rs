//! An undefined symbol, read in the text and refined on disk: the evidence it carries, and which
//! of its four codes it is (`abi-mismatch`, `cxx11-abi-mismatch`, `libstdcxx-mismatch`,
//! `extension-incomplete-build`). Each code's module then words the message and its fixes.

use super::{
    Code, Cx, abi_mismatch, blank, cxx11_abi_mismatch, extension_incomplete_build,
    libstdcxx_mismatch,
};
use crate::diagnostic::{Diagnostic, SourceRef, SymbolReport, SymbolStatus};
use crate::evidence::LibraryFacts;
use crate::incidents::module_name;
use crate::symbols::{self, Owner, StringAbi};

/// What the message of every symbol code reads.
pub(crate) struct Case<'a> {
    /// `selective_scan_cuda (mamba-ssm 2.2.4)`.
    pub who: String,
    /// The demangled symbol, else the mangled one.
    pub name: &'a str,
    /// A plain C function no torch release has (`curandCreateGenerator` with no provider known).
    pub c_function: bool,
    /// A CPython C-API function (`PyUnicodeUCS2_FromString`): built for another Python.
    pub python: bool,
    /// `" (the symbol is cut off in the text)"` or empty.
    pub cut: &'static str,
    /// `the installed 2.10.0`, or `the torch it runs with`.
    pub torch_txt: String,
    pub abi: Option<StringAbi>,
    pub facts: Option<LibraryFacts>,
    pub built_for: Option<String>,
    pub module: String,
}

pub(crate) fn diagnose(
    cx: &Cx<'_>,
    source: Option<SourceRef>,
    library: Option<&str>,
    symbol: &str,
    truncated: bool,
    version_of: Option<&str>,
) -> Diagnostic {
    let symbol = symbols::normalize(symbol);
    // A CUDA driver API function (`cuGreenCtxCreate`) is the driver's, not torch's.
    if abidoc_knowledge::gpu::is_driver_api(symbol) {
        return super::driver_too_old::from_symbol(cx, source, library, symbol);
    }
    // bitsandbytes' CPU library, loaded where its CUDA one should be, lacks every CUDA function
    // (`libbitsandbytes_cpu.so: undefined symbol: cquantize_blockwise_fp16_nf4`): no library for
    // the CUDA it found, not an incomplete build.
    if library
        .map(crate::incidents::basename)
        .is_some_and(|l| l.starts_with("libbitsandbytes_cpu"))
    {
        return super::missing_shared_library::cuda_setup_failed(
            cx,
            source,
            "bitsandbytes",
            &format!(
                "{} lacks {symbol}: the CPU library was loaded",
                crate::incidents::basename(library.unwrap_or_default())
            ),
        );
    }
    let owner = symbols::owner(symbol);
    let abi = symbols::string_abi(symbol);
    // A TensorFlow custom op (`tf.load_op_library`) calls into TensorFlow's C++ library the way
    // an extension calls into torch's: the same two failures, with TensorFlow's build flags.
    if symbols::outermost_name(symbol) == Some("tensorflow") {
        let mut d = blank(
            if abi.is_some() {
                Code::Cxx11AbiMismatch
            } else {
                Code::AbiMismatch
            },
            source,
        );
        d.library = library.map(str::to_owned);
        d.package = cx.package_of(library, false).filter(|p| p != "tensorflow");
        let demangled = crate::kb::demangle(symbol);
        d.symbols.push(SymbolReport {
            mangled: symbol.to_owned(),
            demangled: demangled.clone(),
            status: SymbolStatus::Missing,
            nearest: None,
        });
        let name = demangled.as_deref().unwrap_or(symbol);
        let lib = library.map_or("the custom op", crate::incidents::basename);
        match abi {
            Some(abi) => cxx11_abi_mismatch::tensorflow_op(&mut d, lib, name, abi),
            None => abi_mismatch::tensorflow_op(&mut d, lib, name),
        }
        return d;
    }
    // What the text alone says; disk evidence refines it below.
    let plain_c = c_function_name(owner, symbol);
    let mut code = match owner {
        Owner::Libstdcxx => Code::LibstdcxxMismatch,
        Owner::Own => Code::ExtensionIncompleteBuild,
        // A C function no provider table names: the package's own core library (not loaded, or
        // built without it) or a library it should have linked — never torch's ABI.
        Owner::Unknown if plain_c => Code::ExtensionIncompleteBuild,
        _ if abi.is_some()
            && !signature_changed(owner, symbol, truncated, cx.torch().as_deref()) =>
        {
            Code::Cxx11AbiMismatch
        }
        _ => Code::AbiMismatch,
    };
    let mut d = blank(code, source);
    d.library = library.map(str::to_owned);
    let facts: Option<LibraryFacts> = library.and_then(|l| cx.world.library_facts(l));
    let pkg = facts
        .as_ref()
        .and_then(|f| f.owner.as_ref().map(|(n, _)| n.clone()))
        // torch named near a torch symbol it lacks is the importer, not the failing binary
        // (`import torch` before an unnamed extension): the extension stays unnamed.
        .or_else(|| cx.package_of(library, owner != Owner::Torch));
    d.package = pkg.clone();
    // A plain C symbol is not torch's (torch's C API is `THP*`, `aoti_torch_*`, `torch_*`): its
    // provider — by name, or the library the loader's message names — says what failed to load.
    // A cut message that keeps its `version libX.so.N` (a title) still names the provider:
    // torch's libraries version no symbols.
    let versioned_cut = symbol.is_empty() && version_of.is_some();
    let named_provider = version_of
        .filter(|_| plain_c || versioned_cut)
        .map(named_provider);
    let provider = if plain_c || versioned_cut {
        crate::kb::symbol_provider(symbol).or(named_provider.as_ref())
    } else if owner == Owner::Own {
        // A C++ symbol of a library the extension links (`cv::`, `google::protobuf::`).
        crate::kb::demangle(symbol)
            .as_deref()
            .or_else(|| symbol.contains("::").then_some(symbol))
            .and_then(abidoc_knowledge::system_libs::namespace_provider)
    } else {
        None
    };
    if let Some(prov) = provider {
        match &prov.package {
            // The extension's own core library, which its package loads before this module.
            Some(own) if pkg.as_deref() == Some(own.as_str()) => {
                code = Code::ExtensionIncompleteBuild;
                let import = abidoc_knowledge::packages::package(own)
                    .and_then(|p| p.import_names.first())
                    .map_or_else(|| own.replace('-', "_"), Clone::clone);
                d.evidence.push(format!(
                    "`{symbol}` is defined by {} ({}), which `import {import}` loads before the extension module: import {import} first, and reinstall {own} whole if that library is missing",
                    prov.what, prov.library
                ));
            }
            Some(_) => {}
            // nvcc's own launch hooks (CUDA 9.2 and later emit calls to them) missing from the
            // runtime loaded: the extension was compiled by an nvcc newer than that runtime.
            None if matches!(
                symbol,
                "__cudaPopCallConfiguration" | "__cudaPushCallConfiguration"
            ) =>
            {
                let source = d.source.take();
                return super::cuda_version_mismatch::nvcc_newer_than_runtime(
                    cx, source, library, pkg, symbol,
                );
            }
            None => {
                let source = d.source.take();
                return super::missing_shared_library::older_copy(
                    cx, source, library, symbol, prov,
                );
            }
        }
    }
    // A scoped C++ name (`ov::Any::…`, `tsl::mutex::…`, `eigenpy::…`) that a package which does
    // not link torch calls in another library of its own project or a dependency's: the
    // library loaded is of another version than the one the module was built against (two
    // installs mixed, an older system copy) — built against another version, not a partial
    // build. A torch extension's own scoped names live in its one library: left as they are.
    let demangled = crate::kb::demangle(symbol);
    let scoped = is_scoped(symbol);
    // torch's types in the signature (`at::Tensor const&`) say the caller is a torch extension.
    let torch_types = demangled
        .as_deref()
        .is_some_and(|n| n.contains("at::") || n.contains("c10::") || n.contains("torch::"));
    let links_torch = |p: &str| match crate::kb::links_torch(p) {
        Some(links) => links,
        None => cx.torch_shown(None) || p == "torch" || torch_types,
    };
    // The scope must be another library's: a module's own namespace (`mmlab_ext::` in
    // `mmlab_ext/_C.so`) lives in that module.
    let own_scope = symbols::outermost_name(symbol).is_some_and(|ns| {
        let ns = ns.to_ascii_lowercase();
        let module = library.map(crate::incidents::basename).unwrap_or_default();
        let module = module
            .split('.')
            .next()
            .unwrap_or_default()
            .trim_start_matches('_');
        pkg.as_deref().is_some_and(|p| p.replace('-', "_") == ns)
            || (!module.is_empty() && ns == module.to_ascii_lowercase())
            || library.is_some_and(|l| {
                l.replace('\\', "/")
                    .split('/')
                    .any(|c| c.eq_ignore_ascii_case(&ns))
            })
    });
    // Another framework's own namespaces are never a torch extension's (Horovod's TensorFlow
    // binding calling `xla::`, `tensorflow::`): that framework is of another release.
    let framework_scope = symbols::outermost_name(symbol)
        .is_some_and(|ns| abidoc_knowledge::packages::package_for_cxx_namespace(ns).is_some());
    let mut skew = code == Code::ExtensionIncompleteBuild
        && owner == Owner::Own
        && provider.is_none()
        && scoped
        && !own_scope
        && pkg
            .as_deref()
            .is_some_and(|p| !links_torch(p) || framework_scope);
    let mut report = SymbolReport {
        mangled: symbol.to_owned(),
        demangled: demangled.clone(),
        status: SymbolStatus::Missing,
        nearest: None,
    };
    if let Some(f) = &facts {
        d.evidence.extend(f.evidence.iter().cloned());
        if let Some(s) = f.symbols.iter().find(|s| s.mangled == symbol) {
            report = s.clone();
        }
        d.symbols
            .extend(f.symbols.iter().filter(|s| s.mangled != symbol).cloned());
        // On-disk classification wins over the guess from the text.
        let statuses: Vec<SymbolStatus> = std::iter::once(report.status)
            .chain(f.symbols.iter().map(|s| s.status))
            .collect();
        if f.own_symbols_missing && owner != Owner::Torch {
            code = Code::ExtensionIncompleteBuild;
            skew = false;
        } else if statuses.contains(&SymbolStatus::Cxx11Abi)
            && !statuses.contains(&SymbolStatus::SignatureChanged)
        {
            code = Code::Cxx11AbiMismatch;
        } else if statuses
            .iter()
            .any(|s| matches!(s, SymbolStatus::SignatureChanged | SymbolStatus::Removed))
            && owner == Owner::Torch
        {
            code = Code::AbiMismatch;
        }
    }
    if skew {
        code = Code::AbiMismatch;
    }
    d.code = code;
    // A symbol the text cut off before its first character has nothing to show.
    if !symbol.is_empty() {
        d.symbols.insert(0, report);
    }

    let module = library
        .map(module_name)
        .unwrap_or_else(|| "the extension".into());
    let who = match (
        &pkg,
        facts
            .as_ref()
            .and_then(|f| f.owner.as_ref())
            .map(|(_, v)| v),
    ) {
        (Some(p), Some(v)) => format!("{module} ({p} {v})"),
        (Some(p), None) => format!("{module} ({p})"),
        _ => module.clone(),
    };
    let torch_txt = cx
        .torch()
        .map(|t| format!("the installed {t}"))
        .unwrap_or_else(|| "the torch it runs with".into());
    let built_for = crate::kb::built_for_range(&d.symbols);
    let name_owned = demangled.unwrap_or_else(|| symbol.to_owned());
    let case = Case {
        who,
        name: &name_owned,
        c_function: plain_c && provider.is_none(),
        python: owner == Owner::Python && !symbol.starts_with("_Z"),
        cut: if truncated {
            " (the symbol is cut off in the text)"
        } else {
            ""
        },
        torch_txt,
        abi,
        facts,
        built_for,
        module,
    };
    match code {
        _ if skew => abi_mismatch::library_skew(cx, &mut d, &case),
        Code::LibstdcxxMismatch => libstdcxx_mismatch::symbol(cx, &mut d, &case),
        Code::ExtensionIncompleteBuild => extension_incomplete_build::symbol(cx, &mut d, &case),
        Code::Cxx11AbiMismatch => cxx11_abi_mismatch::symbol(cx, &mut d, &case),
        _ => abi_mismatch::symbol(cx, &mut d, &case),
    }
    common_evidence(cx, &mut d, &case, owner);
    // The library also lacks a system library no wheel ships (the loader stops there first):
    // the release built for this torch loads only with it.
    if matches!(d.code, Code::AbiMismatch | Code::Cxx11AbiMismatch)
        && let Some(f) = &case.facts
        && let Some((lib, sys)) =
            super::missing_shared_library::unshipped_system_library(&f.missing_needed)
        && let Some(pkg) = d.package.clone()
    {
        d.evidence.push(format!(
            "{} also needs {lib}, which is not found: the loader stops there before these symbols",
            case.module
        ));
        super::missing_shared_library::with_system_library(cx, &mut d.fixes, &pkg, lib, sys);
    }
    d
}

/// Whether a mangled name is scoped (`_ZN…E`: a namespace's or a class's member), so that the
/// scope names a library the caller was built against.
fn is_scoped(symbol: &str) -> bool {
    let s = symbols::normalize(symbol);
    s.strip_prefix("_Z")
        .map(|r| {
            ["TV", "TI", "TS"]
                .iter()
                .find_map(|p| r.strip_prefix(p))
                .unwrap_or(r)
        })
        .is_some_and(|r| r.starts_with('N'))
}

/// A plain C function name that is not torch's (torch's C API is `THP*`, `aoti_torch_*`,
/// `torch_*`). A lone lower-case word (`on`, `in`) is prose the scanner read after "undefined
/// symbol", not a name: C functions carry an underscore, a capital or a digit.
fn c_function_name(owner: Owner, symbol: &str) -> bool {
    owner == Owner::Unknown
        && symbol.len() >= 3
        && symbol
            .bytes()
            .any(|c| c == b'_' || c.is_ascii_uppercase() || c.is_ascii_digit())
        && symbol
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'@' | b'$'))
        && !abidoc_knowledge::torch_index::is_torch_symbol(symbol)
}

/// The provider a loader message names (`undefined symbol: X, version libcudart.so.12`): the
/// table's entry for that library when there is one, else the library by its name.
fn named_provider(lib: &str) -> abidoc_knowledge::system_libs::SymbolProvider {
    let stem = lib.split(".so").next().unwrap_or(lib);
    if let Some(p) = abidoc_knowledge::system_libs::provider_of_library(stem) {
        return p.clone();
    }
    abidoc_knowledge::system_libs::SymbolProvider {
        prefixes: Vec::new(),
        namespaces: Vec::new(),
        what: crate::kb::system_library(lib).map_or_else(|| stem.to_owned(), |s| s.what.clone()),
        library: lib.to_owned(),
        package: None,
        pip_dir: None,
        removed_in: None,
        unlinked: false,
        keep: None,
        source: String::new(),
    }
}

/// A torch symbol that names a `std::string` ABI, but whose signature (in either ABI) the torch
/// in use does not export: the function changed (`parseSchemaOrName(std::string const&)` gained
/// a `bool` in 2.4), so the binary was built for another torch whatever its string ABI. The
/// torch in use is the one the text states, else the newest indexed release. A symbol the index
/// knows in neither ABI, a cut-off one, or an index that did not load prove nothing.
fn signature_changed(owner: Owner, symbol: &str, truncated: bool, torch: Option<&str>) -> bool {
    use abidoc_knowledge::torch_index as ix;
    if owner != Owner::Torch || truncated || ix::load_error().is_some() {
        return false;
    }
    let own = ix::lookup(symbol).map(|h| h.releases);
    let twin = ix::abi_twin(symbol).map(|v| v.releases);
    let exported = match (own, twin) {
        (None, None) => return false,
        (a, b) => a.unwrap_or_default().union(b.unwrap_or_default()),
    };
    // A torch older than the index's first release says nothing of what it
    // exports: the symbol's own shape (its std::string ABI) is all there is to go by.
    let parse = abidoc_knowledge::Version::parse;
    if let Some(t) = torch
        && ix::release_index(t).is_none()
        && let (Some(stated), Some(first)) = (
            parse(t),
            ix::releases().first().and_then(|r| parse(&r.version)),
        )
        && stated < first
    {
        return false;
    }
    let target = torch
        .and_then(ix::release_index)
        .or_else(|| ix::releases().len().checked_sub(1));
    target.is_some_and(|t| !exported.contains(t))
}

/// Evidence every symbol code adds after its own: the index's range, what the text states, and
/// the advice in the text that does not help.
fn common_evidence(cx: &Cx<'_>, d: &mut Diagnostic, case: &Case<'_>, owner: Owner) {
    if let Some(r) = &case.built_for {
        d.evidence.push(format!("offline torch symbol index: {r}"));
    }
    if let Some(t) = cx.scene.version_of("torch")
        && cx.world.torch_version().is_none()
    {
        d.evidence.push(format!("the text states torch {t}"));
    }
    for cmd in &cx.scene.suggested_commands {
        if cmd.contains("pip install") {
            d.evidence.push(format!("the message suggests `{cmd}`: that reinstalls what is already installed and does not rebuild the extension, so it does not help"));
        }
    }
    if cx.scene.mentions_wsl && owner == Owner::Torch {
        d.evidence.push("WSL2 is not the cause: the library asks torch for a function the installed torch does not export, and would fail the same way on any Linux".into());
    }
    let ssm = d
        .package
        .as_deref()
        .is_some_and(|p| p == "mamba-ssm" || p == "causal-conv1d");
    if cx.scene.mentions_fallback || ssm && cx.scene.mentions_wsl {
        d.evidence.push("a silent fallback (Conv1d or the naive scan) is not the same model: it changes results and speed, so fix the kernels rather than train on the fallback".into());
    }
}

#[cfg(test)]
mod tests {
    use crate::{AnalysisHost, Code, Context};

    fn codes(text: &str) -> Vec<Code> {
        AnalysisHost::new()
            .diagnose_text(text, &Context::default())
            .iter()
            .map(|d| d.code)
            .collect()
    }

    /// A torch older than the index says nothing of its exports: a `std::__cxx11` symbol under
    /// torch 1.8.1 is the string ABI, not a signature the newest torch changed.
    #[test]
    fn a_torch_before_the_index_leaves_the_symbols_shape() {
        let lib = "OSError: /opt/conda/lib/python3.8/site-packages/torch_scatter/_version_cpu.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE\n";
        assert_eq!(
            codes(&format!("torch 1.8.1\n{lib}")),
            vec![Code::Cxx11AbiMismatch]
        );
        assert_eq!(
            codes(&format!("torch 2.5.1\n{lib}")),
            vec![Code::AbiMismatch]
        );
    }
}
