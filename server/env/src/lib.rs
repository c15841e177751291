//! The Python environment on disk: site-packages, dist-info, the installed torch, the dynamic loader model and the environment scan. Reads files; never imports or executes them.

pub mod check;
pub mod classify;
pub mod context;
pub mod dist;
pub mod environment;
pub mod exports;
pub mod facts;
pub mod fsguard;
pub mod ldcache;
pub mod loader;
pub mod manifests;
pub mod plans;
pub mod problem;
pub mod report;
pub mod scan;
pub mod site;
pub mod torch;
pub mod verify;
pub mod wheel;

pub use check::{
    Finding, FindingFacts, LibraryReport, Severity, Verdict, check_library, check_library_with,
    package_findings,
};
pub use classify::SymbolStatus;
pub use dist::{BuildLabel, DirectUrl, Distribution, Requirement, normalize_name};
pub use environment::Environment;
pub use exports::SharedExports;
pub use facts::LibFacts;
pub use ldcache::LdCache;
pub use problem::Problem;
pub use scan::{ScanOptions, ScanReport, ScanStats, scan};
pub use site::{EnvSpec, Layout, discover};
