//! Grouping scanned events into incidents: one per distinct failure, with every place it appears.
//!
//! Logs repeat themselves (a warning printed per rank, per import attempt, quoted again in a
//! wrapper). Users need one diagnosis per failure that still points at every line.

use abidoc_syntax::{Event, EventKind, Span};

/// What went wrong, before evidence and knowledge are brought in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Failure {
    UndefinedSymbol {
        library: Option<String>,
        symbol: String,
        truncated: bool,
    },
    MissingLibrary {
        name: String,
        required_by: Option<String>,
    },
    VersionNotFound {
        library: String,
        version: String,
        required_by: Option<String>,
    },
    Libcuda {
        detail: String,
    },
    NoCompiler {
        detail: String,
    },
    CudaHome {
        detail: String,
    },
    CudaVersion {
        found: Option<String>,
        expected: Option<String>,
        detail: String,
    },
    BuildIsolation {
        package: Option<String>,
    },
    XformersBuiltFor {
        built_torch: Option<String>,
        have_torch: Option<String>,
        built_cuda: Option<String>,
        built_python: Option<String>,
        have_python: Option<String>,
    },
    FlashAttn {
        reason: String,
    },
    TorchOps {
        what: String,
        package: Option<String>,
    },
    NumpyAbi {
        detail: String,
    },
    CudaOom {
        tried: Option<String>,
        detail: String,
    },
    /// Several processes of one command holding GPU memory, without an OOM in the text.
    StaleGpuProcesses,
    MambaFastPath {
        model_class: Option<String>,
    },
    StaleWheelCache {
        file: String,
    },
}

#[derive(Debug, Clone)]
pub struct Incident {
    pub failure: Failure,
    /// The first place the failure appears.
    pub primary: Span,
    /// Every other place.
    pub related: Vec<Span>,
}

/// Facts about the situation gathered from the whole text, used by every incident.
#[derive(Debug, Clone, Default)]
pub struct Scene {
    /// Versions the text states, by lower-case subject (`torch`, `python`, `cuda`, a package).
    pub versions: Vec<(String, String)>,
    pub models: Vec<String>,
    pub suggested_commands: Vec<String>,
    pub wrapped_imports: Vec<String>,
    pub gpu_processes: Vec<(u32, Option<String>, Option<String>)>,
    pub packages_built: Vec<String>,
    pub used_uv: bool,
    pub compile_failed: bool,
    pub precompiled_wheel_missing: bool,
    pub mentions_conda: bool,
    /// The text blames or mentions WSL2 (a frequent wrong explanation of symbol errors).
    pub mentions_wsl: bool,
    /// The text mentions a silent fallback (Conv1d instead of Mamba, naive implementation).
    pub mentions_fallback: bool,
}

impl Scene {
    /// Notes facts that only a look at the whole text gives (cheap substring checks).
    pub fn read_text(&mut self, text: &str) {
        self.mentions_conda |= text.contains("conda");
        self.mentions_wsl |= text.contains("WSL");
        self.mentions_fallback |= text.contains("Conv1d fallback")
            || text.contains("falls back to Conv1d")
            || text.contains("fallback") && text.contains("mamba");
        self.used_uv |=
            text.contains("uv pip ") || text.contains("uv sync") || text.contains("uv add ");
    }
}

impl Scene {
    pub fn version_of(&self, subject: &str) -> Option<&str> {
        self.versions
            .iter()
            .find(|(s, _)| s == subject)
            .map(|(_, v)| v.as_str())
    }
}

fn key_of(f: &Failure) -> Failure {
    // Libraries are compared by file name: the same .so is printed with and without its directory.
    match f {
        Failure::UndefinedSymbol {
            library, symbol, ..
        } => Failure::UndefinedSymbol {
            library: library.as_deref().map(basename).map(str::to_owned),
            symbol: symbol.clone(),
            truncated: false,
        },
        Failure::MissingLibrary { name, .. } => Failure::MissingLibrary {
            name: name.clone(),
            required_by: None,
        },
        Failure::VersionNotFound {
            library,
            version,
            required_by,
        } => Failure::VersionNotFound {
            library: basename(library).to_owned(),
            version: version.clone(),
            required_by: required_by.as_deref().map(basename).map(str::to_owned),
        },
        Failure::CudaOom { .. } => Failure::CudaOom {
            tried: None,
            detail: String::new(),
        },
        Failure::Libcuda { .. } => Failure::Libcuda {
            detail: String::new(),
        },
        Failure::CudaHome { .. } => Failure::CudaHome {
            detail: String::new(),
        },
        Failure::NoCompiler { .. } => Failure::NoCompiler {
            detail: String::new(),
        },
        Failure::MambaFastPath { .. } => Failure::MambaFastPath { model_class: None },
        Failure::XformersBuiltFor { .. } => Failure::XformersBuiltFor {
            built_torch: None,
            have_torch: None,
            built_cuda: None,
            built_python: None,
            have_python: None,
        },
        Failure::CudaVersion { .. } => Failure::CudaVersion {
            found: None,
            expected: None,
            detail: String::new(),
        },
        Failure::FlashAttn { .. } => Failure::FlashAttn {
            reason: String::new(),
        },
        Failure::TorchOps { package, .. } => Failure::TorchOps {
            what: String::new(),
            package: package.clone(),
        },
        other => other.clone(),
    }
}

/// A symbol cut off in one copy of a message is the same failure as its full form in another.
fn same_truncated_symbol(a: &Failure, b: &Failure) -> bool {
    match (a, b) {
        (
            Failure::UndefinedSymbol {
                library: la,
                symbol: sa,
                ..
            },
            Failure::UndefinedSymbol {
                library: lb,
                symbol: sb,
                ..
            },
        ) => {
            let libs_agree = la.is_none() || lb.is_none() || la == lb;
            libs_agree
                && sa.len() >= 12
                && sb.len() >= 12
                && (sa.starts_with(sb.as_str()) || sb.starts_with(sa.as_str()))
        }
        _ => false,
    }
}

/// At most this many other locations are kept per incident.
const MAX_RELATED: usize = 1000;

pub fn basename(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// Turns events into incidents (in order of first appearance) and the scene around them.
pub fn collect(events: &[Event]) -> (Vec<Incident>, Scene) {
    let mut scene = Scene::default();
    let mut incidents: Vec<(Failure, Incident)> = Vec::new();
    // Logs repeat one failure thousands of times: an exact-key map keeps grouping linear, and
    // only symbols (which may be cut off in one copy) fall back to a prefix search.
    let mut by_key: std::collections::HashMap<Failure, usize> = std::collections::HashMap::new();
    let mut push = |failure: Failure, span: Span, incidents: &mut Vec<(Failure, Incident)>| {
        let key = key_of(&failure);
        let found = by_key.get(&key).copied().or_else(|| {
            matches!(key, Failure::UndefinedSymbol { .. })
                .then(|| {
                    incidents
                        .iter()
                        .position(|(k, _)| same_truncated_symbol(k, &key))
                })
                .flatten()
        });
        if let Some((_, inc)) = found.and_then(|i| incidents.get_mut(i)) {
            // Related places are kept in order; a bounded list is enough to point at every copy
            // a person will look at.
            if inc.primary != span
                && inc.related.last() != Some(&span)
                && inc.related.len() < MAX_RELATED
            {
                inc.related.push(span);
            }
            merge_details(&mut inc.failure, failure);
        } else {
            by_key.insert(key.clone(), incidents.len());
            incidents.push((
                key,
                Incident {
                    failure,
                    primary: span,
                    related: Vec::new(),
                },
            ));
        }
    };
    for ev in events {
        let span = ev.span;
        match &ev.kind {
            EventKind::UndefinedSymbol {
                library,
                symbol,
                truncated,
            } => push(
                Failure::UndefinedSymbol {
                    library: library.clone(),
                    symbol: symbol.clone(),
                    truncated: *truncated,
                },
                span,
                &mut incidents,
            ),
            EventKind::MissingSharedLibrary { name, required_by } => {
                push(
                    Failure::MissingLibrary {
                        name: name.clone(),
                        required_by: required_by.clone(),
                    },
                    span,
                    &mut incidents,
                );
            }
            EventKind::VersionNotFound {
                library,
                version,
                required_by,
            } => push(
                Failure::VersionNotFound {
                    library: library.clone(),
                    version: version.clone(),
                    required_by: required_by.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::LinkerCannotFind { library } if library == "cuda" => {
                push(
                    Failure::Libcuda {
                        detail: format!("cannot find -l{library}"),
                    },
                    span,
                    &mut incidents,
                );
            }
            EventKind::LibcudaNotFound { detail } => push(
                Failure::Libcuda {
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::NoCompiler { detail } => push(
                Failure::NoCompiler {
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::CudaHomeMissing { detail } => push(
                Failure::CudaHome {
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::CudaVersionMismatch {
                found,
                expected,
                detail,
            } => push(
                Failure::CudaVersion {
                    found: found.clone(),
                    expected: expected.clone(),
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::BuildIsolationNoTorch { package } => {
                push(
                    Failure::BuildIsolation {
                        package: package.clone(),
                    },
                    span,
                    &mut incidents,
                );
            }
            EventKind::XformersBuiltFor {
                built_torch,
                have_torch,
                built_cuda,
                built_python,
                have_python,
            } => push(
                Failure::XformersBuiltFor {
                    built_torch: built_torch.clone(),
                    have_torch: have_torch.clone(),
                    built_cuda: built_cuda.clone(),
                    built_python: built_python.clone(),
                    have_python: have_python.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::FlashAttnUnavailable { reason } => push(
                Failure::FlashAttn {
                    reason: reason.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::TorchOperatorMissing { operator } => {
                let package = operator.split("::").next().map(str::to_owned);
                push(
                    Failure::TorchOps {
                        what: format!("operator {operator} does not exist"),
                        package,
                    },
                    span,
                    &mut incidents,
                );
            }
            EventKind::CustomOpsNotLoadable { package } => push(
                Failure::TorchOps {
                    what: "custom C++ ops could not be loaded".into(),
                    package: package.clone().or(Some("torchvision".into())),
                },
                span,
                &mut incidents,
            ),
            EventKind::NumpyAbi { detail } => push(
                Failure::NumpyAbi {
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::CudaOom { tried, detail } => push(
                Failure::CudaOom {
                    tried: tried.clone(),
                    detail: detail.clone(),
                },
                span,
                &mut incidents,
            ),
            EventKind::MambaFastPathUnavailable { model_class } => {
                push(
                    Failure::MambaFastPath {
                        model_class: model_class.clone(),
                    },
                    span,
                    &mut incidents,
                );
            }
            EventKind::PipUsingCached { file } if file.ends_with(".whl") => {
                push(
                    Failure::StaleWheelCache { file: file.clone() },
                    span,
                    &mut incidents,
                );
            }
            EventKind::GpuProcess { pid, memory, name } => {
                if !scene.gpu_processes.iter().any(|(p, _, _)| p == pid) {
                    scene
                        .gpu_processes
                        .push((*pid, memory.clone(), name.clone()));
                }
                push(Failure::StaleGpuProcesses, span, &mut incidents);
            }
            EventKind::Version { subject, version } => {
                let subject = normalize_subject(subject);
                if !scene
                    .versions
                    .iter()
                    .any(|(s, v)| *s == subject && v == version)
                {
                    scene.versions.push((subject, version.clone()));
                }
            }
            EventKind::Model { id } if !scene.models.contains(id) => {
                scene.models.push(id.clone());
            }
            EventKind::SuggestedCommand { command } => {
                scene.suggested_commands.push(command.clone());
            }
            EventKind::WrappedImportError { what } => scene.wrapped_imports.push(what.clone()),
            EventKind::PipBuildingWheel { package } => scene.packages_built.push(package.clone()),
            EventKind::PipBuildFailed { package: Some(p) } => scene.packages_built.push(p.clone()),
            EventKind::CompileFailed { .. } => scene.compile_failed = true,
            EventKind::PrecompiledWheelNotFound => scene.precompiled_wheel_missing = true,
            EventKind::Exception { message, .. } if message.contains("uv pip") => {
                scene.used_uv = true;
            }
            _ => {}
        }
    }
    let mut out: Vec<Incident> = incidents.into_iter().map(|(_, i)| i).collect();
    // Cached wheels are only suspicious when something was built or failed to load around them.
    let loading_failed = out
        .iter()
        .any(|i| matches!(i.failure, Failure::UndefinedSymbol { .. }));
    if !loading_failed {
        out.retain(|i| !matches!(i.failure, Failure::StaleWheelCache { .. }));
    }
    // Only several GPU processes of one command are a finding; one process is just a table row.
    let stale = stale_process_groups(&scene.gpu_processes);
    let has_oom = out
        .iter()
        .any(|i| matches!(i.failure, Failure::CudaOom { .. }));
    if stale == 0 || has_oom {
        out.retain(|i| !matches!(i.failure, Failure::StaleGpuProcesses));
    }
    (out, scene)
}

/// Number of commands that appear more than once among GPU processes.
pub fn stale_process_groups(procs: &[(u32, Option<String>, Option<String>)]) -> usize {
    let mut names: Vec<&str> = procs.iter().filter_map(|(_, _, n)| n.as_deref()).collect();
    names.sort_unstable();
    let mut groups = 0;
    let mut i = 0;
    while i < names.len() {
        let j = names[i..].iter().take_while(|n| **n == names[i]).count();
        if j > 1 {
            groups += 1;
        }
        i += j;
    }
    groups
}

fn normalize_subject(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase().replace('_', "-");
    match s.as_str() {
        "pytorch" => "torch".into(),
        _ => s,
    }
}

fn merge_details(into: &mut Failure, from: Failure) {
    match (into, from) {
        (
            Failure::UndefinedSymbol {
                library,
                truncated,
                symbol,
            },
            Failure::UndefinedSymbol {
                library: l2,
                truncated: t2,
                symbol: s2,
            },
        ) => {
            // Prefer the fullest library path and an untruncated symbol.
            if library.as_ref().map_or(0, String::len) < l2.as_ref().map_or(0, String::len) {
                *library = l2;
            }
            if *truncated && !t2 {
                *truncated = false;
                *symbol = s2;
            }
        }
        (
            Failure::XformersBuiltFor {
                built_torch,
                have_torch,
                built_cuda,
                built_python,
                have_python,
            },
            Failure::XformersBuiltFor {
                built_torch: a,
                have_torch: b,
                built_cuda: c,
                built_python: d,
                have_python: e,
            },
        ) => {
            if built_torch.is_none() {
                *built_torch = a;
            }
            if have_torch.is_none() {
                *have_torch = b;
            }
            if built_cuda.is_none() {
                *built_cuda = c;
            }
            if built_python.is_none() {
                *built_python = d;
            }
            if have_python.is_none() {
                *have_python = e;
            }
        }
        (Failure::CudaOom { tried, .. }, Failure::CudaOom { tried: t2, .. }) if tried.is_none() => {
            *tried = t2;
        }
        (
            Failure::MissingLibrary { required_by, .. },
            Failure::MissingLibrary {
                required_by: r2, ..
            },
        ) if required_by.is_none() => *required_by = r2,
        _ => {}
    }
}
