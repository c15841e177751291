//! Loading of the TOML tables compiled into the binary: parsed once, lazily, and kept for the life of the process.

use serde::de::DeserializeOwned;
use std::sync::OnceLock;

/// Parses one compiled-in table. The tables are ours and tested, so a parse failure is a build
/// defect; rather than panicking in a user's session we return an empty table and keep the error
/// for `load_errors` (tests assert it stays empty).
pub(crate) fn parse<T: DeserializeOwned + Default>(name: &'static str, text: &'static str) -> T {
    match toml::from_str(text) {
        Ok(t) => t,
        Err(e) => {
            record_error(format!("{name}: {e}"));
            T::default()
        }
    }
}

static ERRORS: OnceLock<std::sync::Mutex<Vec<String>>> = OnceLock::new();

fn record_error(e: String) {
    let m = ERRORS.get_or_init(Default::default);
    if let Ok(mut v) = m.lock() {
        v.push(e);
    }
}

/// The parse errors recorded so far (the crate's `load_errors` loads every table first).
pub(crate) fn recorded_errors() -> Vec<String> {
    ERRORS
        .get_or_init(Default::default)
        .lock()
        .map(|v| v.clone())
        .unwrap_or_default()
}
