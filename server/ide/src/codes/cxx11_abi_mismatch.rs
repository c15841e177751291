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
use crate::fix::Fix;

pub(crate) const DOC: CodeDoc = CodeDoc {
    summary: "The missing symbols differ from exported ones only by the C++11 `std::string` ABI (`Ss` vs `St7__cxx11`, `B5cxx11` tags).",
    meaning: "C++ libraries mangle `std::string` differently depending on `_GLIBCXX_USE_CXX11_ABI`. PyPI's torch wheels switched to the C++11 ABI with torch 2.7; an extension compiled with the other setting asks for names torch does not export, and every function taking a `std::string` fails to resolve.",
    fixes: "1. The companion release built for the installed torch. 2. The torch the binary was built for. 3. The project's prebuilt wheel whose label names torch's ABI (`cxx11abiTRUE`/`FALSE`; unverified URL). 4. A source build against the installed torch, which picks torch's ABI. All need confirmation; none needs root.",
    model_decides: true,
    ..CodeDoc::BASE
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

/// A TensorFlow custom op built with the other `std::string` ABI than the TensorFlow it loads
/// into: rebuilt with the flags TensorFlow reports (its `-D_GLIBCXX_USE_CXX11_ABI=`).
pub(crate) fn tensorflow_op(d: &mut Diagnostic, lib: &str, name: &str, abi: StringAbi) {
    let code = Code::Cxx11AbiMismatch;
    let (built, other) = match abi {
        StringAbi::Cxx11 => ("the C++11 std::string ABI", "the old one"),
        StringAbi::PreCxx11 => ("the old (pre-C++11) std::string ABI", "the C++11 one"),
    };
    d.message = format!(
        "{lib} asks TensorFlow for `{name}` with {built}, but the installed TensorFlow was built with {other}: the op was compiled with another _GLIBCXX_USE_CXX11_ABI than TensorFlow's"
    );
    d.fixes = crate::fix::rank(vec![
        Fix::in_words(
            code,
            "tf-compile-flags",
            "Rebuild the op with the compile and link flags TensorFlow reports",
            "tf.sysconfig.get_compile_flags() includes the -D_GLIBCXX_USE_CXX11_ABI value this TensorFlow was built with (and its include path); get_link_flags() the library to link. A gcc older than 5 has only the old ABI.",
            "compile with $(python -c \"import tensorflow as tf; print(' '.join(tf.sysconfig.get_compile_flags()))\") and link with $(python -c \"import tensorflow as tf; print(' '.join(tf.sysconfig.get_link_flags()))\")",
        ),
    ]);
}
