//! The settings the VS Code extension declares (`extensions/vscode/protocol/settings.json`) must be
//! exactly the ones the server reads: same keys, same types, and defaults that parse to the
//! server's own defaults.

use abidoc_lsp::{SettingType, Settings};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn server_settings_match_the_extension_declaration() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/vscode/protocol/settings.json");
    let Ok(raw) = std::fs::read_to_string(&path) else {
        eprintln!(
            "SKIPPED: {} does not exist yet (the VS Code extension declares the settings there)",
            path.display()
        );
        return;
    };
    let spec: Value = serde_json::from_str(&raw).expect("settings.json is JSON");
    assert_eq!(spec["section"], "abidoc");
    let server_side: Vec<&Value> = spec["settings"]
        .as_array()
        .expect("settings list")
        .iter()
        .filter(|s| s["side"] == "server")
        .collect();

    let declared: BTreeSet<String> = server_side
        .iter()
        .map(|s| {
            s["key"]
                .as_str()
                .expect("key")
                .strip_prefix("abidoc.")
                .expect("abidoc. prefix")
                .to_owned()
        })
        .collect();
    let read: BTreeSet<String> = Settings::KEYS
        .iter()
        .map(|(k, _)| (*k).to_owned())
        .collect();
    assert_eq!(
        declared,
        read,
        "declared by the extension but not read by the server: {:?}; read by the server but not declared: {:?}",
        declared.difference(&read).collect::<Vec<_>>(),
        read.difference(&declared).collect::<Vec<_>>()
    );

    for s in server_side {
        let key = s["key"].as_str().unwrap().strip_prefix("abidoc.").unwrap();
        let (_, ty) = Settings::KEYS.iter().find(|(k, _)| *k == key).unwrap();
        match ty {
            SettingType::NullableString => assert_eq!(s["type"], "string", "{key}"),
            SettingType::StringArray => {
                assert_eq!(
                    (&s["type"], &s["items"]),
                    (&json!("array"), &json!("string")),
                    "{key}"
                );
            }
            SettingType::Boolean => assert_eq!(s["type"], "boolean", "{key}"),
            SettingType::Enum(names) => {
                assert_eq!(s["type"], "string", "{key}");
                assert_eq!(s["enum"], json!(names), "{key}");
            }
        }
        // Each declared default is accepted without a warning and means the server's default.
        let (parsed, warnings) = Settings::from_json(&json!({ key: s["default"].clone() }));
        assert!(warnings.is_empty(), "{key}: {warnings:?}");
        assert_eq!(
            parsed,
            Settings::default(),
            "{key}: the declared default differs from the server's"
        );
    }
}
