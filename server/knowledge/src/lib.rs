//! Field knowledge compiled in as data: extension packages, compatibility tables, model families and the offline torch symbol index.
//!
//! The tables live in `data/*.toml`, are compiled in with `include_str!` and parsed once on first
//! use. Every entry names the `source` it comes from. Lookups return `&'static` data.
//!
//! Code map:
//! - [`packages`] (`data/packages.toml`): which package a compiled module or `.so` path belongs to
//!   ([`package_for_module`], [`package_for_path`], [`package`]), what needs it, how to rebuild it,
//!   and the exact prebuilt wheel name for a torch/CUDA/ABI/Python ([`wheel_file_name`], always
//!   marked unverified).
//! - [`compat`] (`data/compat.toml`): torch ↔ torchvision/torchaudio/xformers, the C++ ABI and
//!   default CUDA of PyTorch's own wheels, extension releases by the torch they ship wheels for.
//! - [`models`] (`data/models.toml`): model ids in code and command lines ([`find_models`]), in
//!   prose ([`find_model_mentions`]), and their family from the Hugging Face cache or the name
//!   ([`resolve_model`]).
//! - [`version`]: PEP 440-ish [`Version`] with local labels (`+cu128`); [`names`]: PEP 503/508.
//! - [`system_libs`] (`data/system_libs.toml`): who provides a library a wheel does not ship
//!   (pip, conda, apt, dnf), and torch's own library names ([`system_libs::is_torch_library`]).
//! - `torch_index`: the offline torch symbol index (separate owner).
//!
//! Architecture invariant: nothing here touches the network, and nothing derived from input
//! panics; file reading (Hugging Face `config.json`) is bounded in size.

pub mod compat;
mod data;
pub mod models;
pub mod names;
pub mod packages;
pub mod system_libs;
pub mod torch_index;
pub mod version;

pub use compat::{
    releases_built_for_torch, torch_cxx11_abi, torch_default_cuda, torchaudio_for_torch,
    torchvision_for_torch, xformers_for_torch,
};
pub use data::load_errors;
pub use models::{
    ModelInfo, ModelRef, family_for_model_type, find_model_mentions, find_models, resolve_model,
};
pub use names::{is_valid_pep508_name, normalize_name};
pub use packages::{
    BuildRecipe, EnvSwitch, Package, WheelName, WheelNaming, WheelQuery, package,
    package_for_module, package_for_path, wheel_file_name,
};
pub use version::Version;
