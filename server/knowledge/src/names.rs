//! Distribution names: PEP 503 normalization, the PEP 508 name grammar that every package name put into a command must pass, and the distributions of import names that differ from theirs (`data/import_names.toml`).

/// PEP 503 normalized form: lower case, runs of `-`, `_` and `.` become one `-`.
pub fn normalize_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            if !in_sep {
                out.push('-');
            }
            in_sep = true;
        } else {
            out.extend(c.to_lowercase());
            in_sep = false;
        }
    }
    out
}

/// The PEP 508 name grammar: `^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$`, case-insensitive.
/// Anything else (spaces, shell metacharacters, version specifiers, an empty string) is rejected.
pub fn is_valid_pep508_name(name: &str) -> bool {
    let b = name.as_bytes();
    let (Some(first), Some(last)) = (b.first(), b.last()) else {
        return false;
    };
    first.is_ascii_alphanumeric()
        && last.is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_names_that_differ_from_their_distribution() {
        assert_eq!(distribution_of_import("PIL"), Some("pillow"));
        assert_eq!(distribution_of_import("yaml"), Some("pyyaml"));
        assert_eq!(distribution_of_import("numpy"), None);
        // Every distribution in the table is a name a command may carry.
        for module in ["PIL", "yaml", "bs4", "quaternion", "_cffi_backend"] {
            let d = distribution_of_import(module).unwrap_or_default();
            assert!(
                is_valid_pep508_name(d) && normalize_name(d) == d,
                "{module}"
            );
        }
    }

    #[test]
    fn normalizes() {
        assert_eq!(normalize_name("Mamba_SSM"), "mamba-ssm");
        assert_eq!(normalize_name("flash_attn"), "flash-attn");
        assert_eq!(normalize_name("a.-_b"), "a-b");
        assert_eq!(normalize_name("torch"), "torch");
    }

    #[test]
    fn pep508() {
        for ok in ["mamba-ssm", "causal_conv1d", "x", "torch", "a.b-c_d", "A1"] {
            assert!(is_valid_pep508_name(ok), "{ok}");
        }
        for bad in [
            "",
            "-x",
            "x-",
            "mamba ssm",
            "x;rm -rf",
            "torch==2.5",
            "a/b",
            "é",
            "x\n",
        ] {
            assert!(!is_valid_pep508_name(bad), "{bad:?}");
        }
    }
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportNames {
    import: Vec<ImportName>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportName {
    module: String,
    distribution: String,
}

/// The distribution a top-level import name belongs to where the two differ and no
/// `packages.toml` entry says (`PIL` → `pillow`, `yaml` → `pyyaml`): `data/import_names.toml`.
pub fn distribution_of_import(module: &str) -> Option<&'static str> {
    static T: std::sync::OnceLock<ImportNames> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        crate::data::parse(
            "import_names.toml",
            include_str!("../data/import_names.toml"),
        )
    })
    .import
    .iter()
    .find(|i| i.module == module)
    .map(|i| i.distribution.as_str())
}
