//! `cxx11-abi-mismatch`: the missing symbols differ from exported ones only by the C++11
//! `std::string` ABI (`Ss` vs `St7__cxx11`, `B5cxx11` tags): the extension and torch were
//! compiled with different `_GLIBCXX_USE_CXX11_ABI`.
//!
//! Produced by an undefined symbol whose mangled name carries one ABI's string type, or whose
//! nearest export on disk is the other ABI's twin. Fixes as `abi-mismatch`; the project's
//! ABI-labelled prebuilt wheel (`cxx11abiTRUE/FALSE`) is the usual way out.

use super::symbols::Case;
use super::{Code, CodeDoc, Cx, recipes};
use crate::diagnostic::Diagnostic;
use crate::symbols::StringAbi;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "The missing symbols differ from exported ones only by the C++11 `std::string` ABI (`Ss` vs `St7__cxx11`, `B5cxx11` tags).",
    meaning: "C++ libraries mangle `std::string` differently depending on `_GLIBCXX_USE_CXX11_ABI`. PyPI's torch wheels switched to the C++11 ABI with torch 2.7; an extension compiled with the other setting asks for names torch does not export, and every function taking a `std::string` fails to resolve.",
    fixes: "1. The companion release built for the installed torch. 2. The torch the binary was built for. 3. The project's prebuilt wheel whose label names torch's ABI (`cxx11abiTRUE`/`FALSE`; unverified URL). 4. A source build against the installed torch, which picks torch's ABI. All need confirmation; none needs root.",
};

pub(crate) fn symbol(cx: &Cx<'_>, d: &mut Diagnostic, c: &Case<'_>) {
    let flavour = match c.abi {
        Some(StringAbi::Cxx11) => "with the C++11 std::string ABI (_GLIBCXX_USE_CXX11_ABI=1)",
        Some(StringAbi::PreCxx11) => {
            "with the old pre-C++11 std::string ABI (_GLIBCXX_USE_CXX11_ABI=0)"
        }
        None => "with the other std::string ABI",
    };
    d.message = format!(
        "{} was compiled {flavour}, but {} uses the other one: `{}` does not resolve{}",
        c.who, c.torch_txt, c.name, c.cut
    );
    d.explanation = Some(format!("C++ libraries mangle std::string differently depending on _GLIBCXX_USE_CXX11_ABI. {} and torch were compiled with different settings, so every function taking a std::string has a different name in each. Reinstalling the same wheel does not help; a wheel built for torch's ABI (the cxx11abiTRUE/FALSE label) or a source build does.", c.module));
    d.fixes = crate::fix::rank(recipes::extension_mismatch(
        Code::Cxx11AbiMismatch,
        cx,
        d.package.as_deref(),
        d.library.as_deref(),
        &d.symbols,
    ));
}
