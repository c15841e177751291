//! Distribution names: PEP 503 normalization and the PEP 508 name grammar that every package name put into a command must pass.

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
