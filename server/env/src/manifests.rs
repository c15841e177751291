//! Build manifests packages write at build time, read as text: `version.py` files (torch,
//! torchvision, torchaudio), xFormers `cpp_lib.json`, DeepSpeed `git_version_info_installed.py`.

use crate::dist::BuildLabel;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Top-level `name = 'literal'` / `name: Optional[str] = 'literal'` assignments of a Python file.
/// Only string, number, bool and `None` literals and one-line dict literals are understood.
pub fn py_assignments(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with([' ', '\t', '#']) {
            continue;
        }
        let Some((lhs, rhs)) = line.split_once('=') else {
            continue;
        };
        if rhs.starts_with('=') || lhs.ends_with(['!', '<', '>']) {
            continue;
        }
        let name = lhs.split(':').next().unwrap_or("").trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            continue;
        }
        let rhs = rhs.trim();
        let value = if let Some(s) = unquote(rhs) {
            s
        } else if rhs.starts_with('{')
            || rhs == "None"
            || rhs == "True"
            || rhs == "False"
            || (!rhs.is_empty() && rhs.chars().all(|c| c.is_ascii_digit() || c == '.'))
        {
            rhs.to_string()
        } else {
            continue;
        };
        out.insert(name.to_string(), value);
    }
    out
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    let q = s.chars().next()?;
    if q != '\'' && q != '"' {
        return None;
    }
    let inner = &s[1..];
    let end = inner.find(q)?;
    Some(inner[..end].to_string())
}

/// `key: 'value'` pairs of a one-line Python dict literal (DeepSpeed `torch_info`).
pub fn py_dict(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let body = text.trim().trim_start_matches('{').trim_end_matches('}');
    for item in body.split(',') {
        let Some((k, v)) = item.split_once(':') else {
            continue;
        };
        let Some(k) = unquote(k) else {
            continue;
        };
        let v = v.trim();
        out.insert(k, unquote(v).unwrap_or_else(|| v.to_string()));
    }
    out
}

/// A package `version.py` (torch, torchvision, torchaudio).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionPy {
    pub version: Option<String>,
    /// `cuda = '12.1'` when written literally (torch), else from the version's local label.
    pub cuda: Option<String>,
    pub hip: Option<String>,
    pub git_version: Option<String>,
    pub label: Option<BuildLabel>,
}

impl VersionPy {
    pub fn parse(text: &str) -> VersionPy {
        let a = py_assignments(text);
        let version = a.get("__version__").cloned();
        let label = version
            .as_deref()
            .filter(|v| v.contains('+'))
            .and_then(BuildLabel::parse);
        let literal = |k: &str| a.get(k).filter(|v| *v != "None").cloned();
        VersionPy {
            cuda: literal("cuda").or_else(|| label.as_ref().and_then(|l| l.cuda.clone())),
            hip: literal("hip"),
            git_version: literal("git_version"),
            version,
            label,
        }
    }
}

/// xFormers' `cpp_lib.json`: what its C++ library was built with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct XformersBuild {
    pub torch: Option<String>,
    pub python: Option<String>,
    /// As recorded (xFormers writes an integer like `1201` for 12.1); normalized to `12.1`.
    pub cuda: Option<String>,
}

impl XformersBuild {
    pub fn parse(text: &str) -> Result<XformersBuild, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
        let get = |k: &str| -> Option<String> {
            let x = v.pointer(&format!("/version/{k}"))?;
            match x {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            }
        };
        Ok(XformersBuild {
            torch: get("torch"),
            python: get("python"),
            // xFormers records `major * 100 + minor` (12.1 → 1201, 11.8 → 1108).
            cuda: get("cuda").map(|c| match c.parse::<u32>() {
                Ok(n) if n >= 100 => format!("{}.{}", n / 100, n % 100),
                _ => c,
            }),
        })
    }
}

/// DeepSpeed's `git_version_info_installed.py`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeepSpeedBuild {
    pub version: Option<String>,
    /// `torch_info['version']` (major.minor of the torch it was built with).
    pub torch: Option<String>,
    pub cuda: Option<String>,
    /// Ops compiled ahead of time (`installed_ops` entries that are true/1).
    pub installed_ops: Vec<String>,
}

impl DeepSpeedBuild {
    pub fn parse(text: &str) -> DeepSpeedBuild {
        let a = py_assignments(text);
        let torch_info = a.get("torch_info").map(|t| py_dict(t)).unwrap_or_default();
        let ops = a
            .get("installed_ops")
            .map(|t| py_dict(t))
            .unwrap_or_default();
        let nonzero = |v: &str| v != "0.0" && !v.is_empty();
        DeepSpeedBuild {
            version: a.get("version").map(|v| v.trim().to_string()),
            torch: torch_info.get("version").filter(|v| nonzero(v)).cloned(),
            cuda: torch_info
                .get("cuda_version")
                .filter(|v| nonzero(v))
                .cloned(),
            installed_ops: ops
                .into_iter()
                .filter(|(_, v)| v == "True" || v == "1")
                .map(|(k, _)| k)
                .collect(),
        }
    }
}

/// `major.minor` of a version (`2.5.1+cu121` → `2.5`).
pub fn major_minor(v: &str) -> String {
    let base = v.split('+').next().unwrap_or(v);
    base.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// The public part of a version (`2.5.1+cu121` → `2.5.1`).
pub fn public_version(v: &str) -> &str {
    v.split('+').next().unwrap_or(v)
}
