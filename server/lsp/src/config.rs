//! The `abidoc` settings section (from `initializationOptions` and `workspace/configuration`) and
//! its translation into an analysis [`Context`].
//!
//! Parsing is lenient on purpose: editors send the whole section, including client-only keys, and
//! one bad value must not throw the others away. Unknown keys and bad values become warnings.

use abidoc_ide::{Code, Context};
use serde_json::Value;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// `python`: the interpreter whose environment to read.
    pub python: Option<PathBuf>,
    /// `sitePackages`: explicit site-packages directories.
    pub site_packages: Vec<PathBuf>,
    /// `libraryPaths`: extra directories searched for shared libraries.
    pub library_paths: Vec<PathBuf>,
    /// `disabledCodes`: diagnostic codes never published.
    pub disabled_codes: Vec<Code>,
    /// `useEnvironment`: when false, only the text is analysed (the CLI's `--no-env`).
    pub use_environment: bool,
    /// `logLevel`: the least severe `window/logMessage` the server sends.
    pub log_level: LogLevel,
}

/// Verbosity of the server's own messages, most severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum LogLevel {
    Error,
    Warn,
    #[default]
    Info,
    Debug,
    Trace,
}

impl LogLevel {
    pub const NAMES: [&'static str; 5] = ["error", "warn", "info", "debug", "trace"];

    pub fn parse(s: &str) -> Option<LogLevel> {
        match s {
            "error" => Some(LogLevel::Error),
            "warn" | "warning" => Some(LogLevel::Warn),
            "info" => Some(LogLevel::Info),
            "debug" => Some(LogLevel::Debug),
            "trace" => Some(LogLevel::Trace),
            _ => None,
        }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            python: None,
            site_packages: Vec::new(),
            library_paths: Vec::new(),
            disabled_codes: Vec::new(),
            use_environment: true,
            log_level: LogLevel::default(),
        }
    }
}

/// The JSON type a setting takes, as the VS Code `contributes.configuration` schema names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingType {
    /// A string or `null`.
    NullableString,
    StringArray,
    Boolean,
    /// A string from a fixed list.
    Enum(&'static [&'static str]),
}

impl Settings {
    /// Every key of the `abidoc` section this server reads, with its type.
    pub const KEYS: [(&'static str, SettingType); 6] = [
        ("python", SettingType::NullableString),
        ("sitePackages", SettingType::StringArray),
        ("libraryPaths", SettingType::StringArray),
        ("disabledCodes", SettingType::StringArray),
        ("useEnvironment", SettingType::Boolean),
        ("logLevel", SettingType::Enum(&LogLevel::NAMES)),
    ];

    /// Reads the section. Accepts `{"abidoc": {...}}` as well as the bare section, and the dotted
    /// form `{"abidoc.python": ...}` some clients send. Returns the settings and one warning per
    /// key it ignored.
    pub fn from_json(value: &Value) -> (Settings, Vec<String>) {
        let mut settings = Settings::default();
        let mut warnings = Vec::new();
        let Some(obj) = section(value) else {
            if !value.is_null() {
                warnings.push("abidoc settings: expected an object".to_owned());
            }
            return (settings, warnings);
        };
        for (raw_key, v) in obj {
            let key = raw_key.strip_prefix("abidoc.").unwrap_or(raw_key);
            match key {
                "python" => match v {
                    Value::String(s) if s.trim().is_empty() => settings.python = None,
                    Value::String(s) => settings.python = Some(PathBuf::from(s)),
                    Value::Null => settings.python = None,
                    _ => warnings.push(format!(
                        "abidoc settings: `python` must be a string, got {v}"
                    )),
                },
                "sitePackages" => settings.site_packages = paths(key, v, &mut warnings),
                "libraryPaths" => settings.library_paths = paths(key, v, &mut warnings),
                "disabledCodes" => {
                    settings.disabled_codes = strings(key, v, &mut warnings)
                        .into_iter()
                        .filter_map(|s| {
                            let code = Code::parse(s.trim());
                            if code.is_none() {
                                warnings.push(format!(
                                    "abidoc settings: unknown diagnostic code `{s}`"
                                ));
                            }
                            code
                        })
                        .collect();
                }
                "useEnvironment" => match v {
                    Value::Bool(b) => settings.use_environment = *b,
                    Value::Null => settings.use_environment = true,
                    _ => warnings.push(format!(
                        "abidoc settings: `useEnvironment` must be a boolean, got {v}"
                    )),
                },
                "logLevel" => match v.as_str().map(LogLevel::parse) {
                    Some(Some(level)) => settings.log_level = level,
                    _ if v.is_null() => settings.log_level = LogLevel::default(),
                    _ => warnings.push(format!(
                        "abidoc settings: `logLevel` must be one of {:?}, got {v}",
                        LogLevel::NAMES
                    )),
                },
                other => warnings.push(format!("abidoc settings: ignoring unknown key `{other}`")),
            }
        }
        (settings, warnings)
    }

    /// The analysis context these settings describe.
    pub fn context(&self, model_hint: Option<String>) -> Context {
        Context {
            use_env: self.use_environment,
            python: self.python.clone(),
            site_packages: self.site_packages.clone(),
            library_paths: self.library_paths.clone(),
            model_hint,
            disabled_codes: self.disabled_codes.clone(),
        }
    }

    pub fn is_disabled(&self, code: Code) -> bool {
        self.disabled_codes.contains(&code)
    }
}

fn section(value: &Value) -> Option<&serde_json::Map<String, Value>> {
    let obj = value.as_object()?;
    match obj.get("abidoc") {
        Some(Value::Object(inner)) => Some(inner),
        _ => Some(obj),
    }
}

fn strings(key: &str, v: &Value, warnings: &mut Vec<String>) -> Vec<String> {
    match v {
        Value::Null => Vec::new(),
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::String(s) => Some(s.clone()),
                other => {
                    warnings.push(format!(
                        "abidoc settings: `{key}` holds a non-string {other}"
                    ));
                    None
                }
            })
            .collect(),
        other => {
            warnings.push(format!(
                "abidoc settings: `{key}` must be a list of strings, got {other}"
            ));
            Vec::new()
        }
    }
}

fn paths(key: &str, v: &Value, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    strings(key, v, warnings)
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .map(PathBuf::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_nested_flat_and_dotted_sections() {
        let expected = Settings {
            python: Some("/venv/bin/python".into()),
            site_packages: vec!["/sp".into()],
            library_paths: vec!["/usr/local/cuda/lib64".into()],
            disabled_codes: vec![Code::CudaOom],
            use_environment: false,
            log_level: LogLevel::Debug,
        };
        let flat = json!({"python": "/venv/bin/python", "sitePackages": ["/sp"],
            "libraryPaths": ["/usr/local/cuda/lib64"], "disabledCodes": ["cuda-oom"], "useEnvironment": false, "logLevel": "debug"});
        let nested = json!({"abidoc": flat.clone()});
        let dotted = json!({"abidoc.python": "/venv/bin/python", "abidoc.sitePackages": ["/sp"],
            "abidoc.libraryPaths": ["/usr/local/cuda/lib64"], "abidoc.disabledCodes": ["cuda-oom"],
            "abidoc.useEnvironment": false, "abidoc.logLevel": "debug"});
        for v in [flat, nested, dotted] {
            let (s, w) = Settings::from_json(&v);
            assert_eq!(s, expected, "{v}");
            assert!(w.is_empty(), "{w:?}");
        }
    }

    #[test]
    fn bad_values_warn_and_keep_the_rest() {
        let (s, w) = Settings::from_json(&json!({
            "python": 3, "disabledCodes": ["abi-mismatch", "no-such-code"], "trace": {"server": "off"}
        }));
        assert_eq!(s.python, None);
        assert_eq!(s.disabled_codes, vec![Code::AbiMismatch]);
        assert!(s.use_environment);
        assert_eq!(w.len(), 3, "{w:?}");
        let ctx = s.context(Some("ibm-granite/granite-3.2-8b-instruct".into()));
        assert!(ctx.use_env);
        assert_eq!(ctx.disabled_codes, vec![Code::AbiMismatch]);
        assert_eq!(
            ctx.model_hint.as_deref(),
            Some("ibm-granite/granite-3.2-8b-instruct")
        );
    }
}
