//! Field knowledge compiled in as data: extension packages, compatibility tables, model families and the offline torch symbol index.
//!
//! The tables live in `data/*.toml`, are compiled in with `include_str!` and parsed once on first
//! use. Every entry names the `source` it comes from. Lookups return `&'static` data.

pub mod compat;
mod data;
pub mod models;
pub mod names;
pub mod packages;
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
