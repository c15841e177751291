//! What a mangled symbol says on its own: whose namespace it lives in and which `std::string` ABI
//! it was compiled with. Read from the mangled form, because demanglers print both ABIs alike.

/// Who is expected to define a symbol, judged from its outermost namespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// `c10::`, `at::`, `torch::`, `caffe2::`, `THP*`: libtorch and friends.
    Torch,
    /// `std::`, `__cxa_*`, `__gxx_*`: libstdc++ / libsupc++.
    Libstdcxx,
    /// `pybind11::` is header-only, and `Py*` comes from the interpreter.
    Python,
    /// A C++ name outside every namespace above: the extension's own code.
    Own,
    /// A plain C name: cannot tell.
    Unknown,
}

/// Strips the macOS extra underscore so `__ZN3c10…` reads as `_ZN3c10…`.
pub fn normalize(symbol: &str) -> &str {
    if symbol.starts_with("__Z") {
        &symbol[1..]
    } else {
        symbol
    }
}

pub fn is_mangled(symbol: &str) -> bool {
    normalize(symbol).starts_with("_Z")
}

/// The outermost name of a mangled C++ symbol: `c10` for `_ZN3c104cuda9SetDeviceEi`, `std` for
/// `_ZNSt…`/`_ZSt…`, the function name for a global function `_Z20cutlass_moe_mm_sm100…`.
pub fn outermost_name(symbol: &str) -> Option<&str> {
    let s = normalize(symbol);
    let rest = s.strip_prefix("_Z")?;
    // Special names: vtables, VTTs, typeinfo, thread-local wrappers, guard variables, thunks:
    // look at what they refer to.
    let rest = [
        "TV", "TT", "TI", "TS", "TW", "TH", "GV", "GR", "Th", "Tv", "Tc",
    ]
    .iter()
    .find_map(|p| rest.strip_prefix(p))
    .unwrap_or(rest);
    let rest = rest
        .strip_prefix('N')
        .map_or(rest, |r| r.trim_start_matches(['K', 'V', 'r']));
    if rest.starts_with("St")
        || rest.starts_with("Ss")
        || rest.starts_with("Sa")
        || rest.starts_with("Sb")
    {
        return Some("std");
    }
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest.get(..digits)?.parse().ok()?;
    rest.get(digits..digits + len)
}

pub fn owner(symbol: &str) -> Owner {
    let s = normalize(symbol);
    if s.starts_with("__cxa_") || s.starts_with("__gxx_") || s.starts_with("__cxx_") {
        return Owner::Libstdcxx;
    }
    if s.starts_with("Py") || s.starts_with("_Py") {
        return Owner::Python;
    }
    if s.starts_with("THP") || s.starts_with("THC") || s.starts_with("THPVariable") {
        return Owner::Torch;
    }
    // nvcc's device-link stubs (`__fatbinwrap_38_cuda_device_runtime_…`,
    // `__cudaRegisterLinkedBinary_…`): a library compiled with relocatable device code whose
    // device-link step never ran — the extension's own build is incomplete.
    if s.starts_with("__fatbinwrap_") || s.starts_with("__cudaRegisterLinkedBinary_") {
        return Owner::Own;
    }
    if !s.starts_with("_Z") {
        // A demangled name (`c10::cuda::c10_cuda_check_implementation(int, …)`, `vtable for
        // torch::jit::Method`): its outermost namespace, as for a mangled one.
        let name = abidoc_knowledge::demangled_entity(s);
        return match name.split_once("::").map(|(ns, _)| ns.trim()) {
            Some("std" | "__gnu_cxx" | "__cxxabiv1") => Owner::Libstdcxx,
            Some(ns) if abidoc_knowledge::is_torch_namespace(ns) => Owner::Torch,
            Some("pybind11") => Owner::Python,
            Some(ns) if !ns.is_empty() && !ns.contains([' ', '(']) => Owner::Own,
            _ => Owner::Unknown,
        };
    }
    match outermost_name(s) {
        Some("std") | Some("__gnu_cxx") | Some("__cxxabiv1") => Owner::Libstdcxx,
        // A gflags flag lives in a namespace of its type (`fLI64::FLAGS_caffe2_…`) and is
        // defined by the library that declares it: caffe2's and torch's flags are torch's.
        Some(n)
            if n.starts_with("fL") && (s.contains("FLAGS_caffe2") || s.contains("FLAGS_torch")) =>
        {
            Owner::Torch
        }
        Some(ns) if abidoc_knowledge::is_torch_namespace(ns) => Owner::Torch,
        // torch's C API mangled as C++ (`_Z16THPVariable_WrapRKN2at10TensorBaseE`), as the
        // torch index counts it.
        // THC's error check (`_Z13__THCudaCheck9cudaErrorPKci`, torch 1.x until 1.11) too.
        Some(n) if n.starts_with("TH") || n.starts_with("__THC") => Owner::Torch,
        Some("pybind11") => Owner::Python,
        Some(_) => Owner::Own,
        None => Owner::Unknown,
    }
}

/// Which `std::string` ABI the mangled name shows, if it shows one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StringAbi {
    /// `St7__cxx11` / `B5cxx11`: built with `_GLIBCXX_USE_CXX11_ABI=1`.
    Cxx11,
    /// `Ss` or a `basic_string` outside `__cxx11`: built with `_GLIBCXX_USE_CXX11_ABI=0`.
    PreCxx11,
}

pub fn string_abi(symbol: &str) -> Option<StringAbi> {
    let s = normalize(symbol);
    if s.contains("St7__cxx11") || s.contains("B5cxx11") {
        return Some(StringAbi::Cxx11);
    }
    // `Ss` is the pre-C++11 std::string abbreviation, in a C++ (Itanium-mangled) name only, and
    // where a type stands (after `RK`, `P`, `E`, `I`…): never inside an identifier
    // (CPython's `PyInt_FromSsize_t`, a `9FromSsize` source name).
    let has_ss = s.starts_with("_Z")
        && s.match_indices("Ss").any(|(i, _)| {
            i > 2
                && s[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| "RKPEIJOS_".contains(c))
        });
    if has_ss || s.contains("12basic_stringIcSt11char_traitsIcESaIcEE") {
        return Some(StringAbi::PreCxx11);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owners_from_mangled_names() {
        let cases = [
            (
                "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib",
                Owner::Torch,
            ),
            ("_ZN2at4_ops10zeros_like4callERKNS_6TensorE", Owner::Torch),
            (
                "_ZNK3c104impl13OperatorEntry20reportSignatureErrorENS0_12CppSignatureE",
                Owner::Torch,
            ),
            (
                "_ZN6caffe28TypeMeta21_typeMetaDataInstanceISt7complexIdEEEPKNS_6detail12TypeMetaDataEv",
                Owner::Torch,
            ),
            (
                "_Z20cutlass_moe_mm_sm100RN2at6TensorERKS0_S3_S3_S3_S3_S3_S3_S3_S3_bb",
                Owner::Own,
            ),
            (
                "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
                Owner::Libstdcxx,
            ),
            ("__ZN3c1011CPUTensorIdEv", Owner::Torch),
            ("PyModule_Create2", Owner::Python),
            ("cudaMalloc", Owner::Unknown),
        ];
        for (sym, want) in cases {
            assert_eq!(owner(sym), want, "{sym}");
        }
    }

    #[test]
    fn string_abi_from_mangled_names() {
        assert_eq!(
            string_abi("_ZN5torch3jit17parseSchemaOrNameERKSsb"),
            Some(StringAbi::PreCxx11)
        );
        assert_eq!(
            string_abi(
                "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
            ),
            Some(StringAbi::Cxx11)
        );
        assert_eq!(string_abi("_ZN3c104cuda14ExchangeDeviceEa"), None);
        // `Ss` inside an identifier, or in a C name, is no std::string.
        assert_eq!(string_abi("PyInt_FromSsize_t"), None);
        assert_eq!(string_abi("_PyInt_FromSsize_t"), None);
        assert_eq!(string_abi("_ZN3foo9FromSsizeEv"), None);
        assert_eq!(
            string_abi("_ZN3c105ErrorC2ENS_14SourceLocationESs"),
            Some(StringAbi::PreCxx11)
        );
    }
}
