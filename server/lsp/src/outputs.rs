//! Cell outputs forwarded by `abidoc/cellOutputs`: their text, and the line of the cell source a
//! diagnosis of that text belongs on.

use crate::proto::CellOutput;
use abidoc_ide::Diagnostic;
use serde_json::Value;

/// VS Code's error output item.
pub const MIME_VSCODE_ERROR: &str = "application/vnd.code.notebook.error";
/// Jupyter's error output as some clients forward it: `{ename, evalue, traceback: [..]}`.
pub const MIME_JUPYTER_ERROR: &str = "application/vnd.jupyter.error";

/// Joins the textual outputs of one cell into the text to diagnose. Error outputs become a
/// traceback; images, HTML and widgets are skipped.
pub fn output_text(outputs: &[CellOutput]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for output in outputs {
        let mime = output.mime.as_str();
        if mime == MIME_VSCODE_ERROR || mime == MIME_JUPYTER_ERROR {
            parts.push(error_text(&output.text));
        } else if mime.starts_with("text/plain")
            || mime.ends_with(".stdout")
            || mime.ends_with(".stderr")
            || mime == "text/x-python-traceback"
        {
            parts.push(output.text.clone());
        }
    }
    parts.retain(|p| !p.is_empty());
    parts.join("\n")
}

fn error_text(raw: &str) -> String {
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(raw) else {
        // Not JSON: a client that sends the formatted traceback directly.
        return raw.to_owned();
    };
    let field = |k: &str| obj.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    let name = if obj.contains_key("ename") {
        field("ename")
    } else {
        field("name")
    };
    let message = if obj.contains_key("evalue") {
        field("evalue")
    } else {
        field("message")
    };
    let stack = match obj.get("traceback") {
        Some(Value::Array(lines)) => lines
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => field("stack"),
    };
    let last = format!("{name}: {message}");
    if stack.trim().is_empty() {
        last
    } else if strip_ansi(&stack).contains(message.trim()) {
        stack
    } else {
        format!("{stack}\n{last}")
    }
}

/// Removes `ESC [ … letter` colour sequences.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Zero-based line of `cell_source` the diagnosis belongs on: the frame IPython names for the cell
/// (`Cell In[3], line 2` or its `---->` marker), else the line importing the failing package or
/// library, else the first non-blank line.
pub fn anchor_line(cell_source: &str, output_text: &str, diag: &Diagnostic) -> u32 {
    let line_count = cell_source.lines().count().max(1) as u32;
    if let Some(line) = ipython_cell_line(&strip_ansi(output_text))
        && line >= 1
        && line <= line_count
    {
        return line - 1;
    }
    let mut modules: Vec<String> = Vec::new();
    if let Some(package) = &diag.package {
        modules.push(package.replace('-', "_"));
    }
    if let Some(library) = &diag.library {
        let file = library.rsplit('/').next().unwrap_or(library);
        let stem = file.split('.').next().unwrap_or(file);
        if !stem.is_empty() {
            modules.push(stem.to_owned());
        }
    }
    for (n, line) in cell_source.lines().enumerate() {
        let t = line.trim_start();
        let imported = t
            .strip_prefix("import ")
            .or_else(|| t.strip_prefix("from "))
            .map(|rest| rest.split([' ', ',', '.']).next().unwrap_or(""));
        if let Some(module) = imported
            && modules.iter().any(|m| m == module)
        {
            return n as u32;
        }
    }
    cell_source
        .lines()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(0) as u32
}

/// The cell line of the innermost-first frame that is the cell itself: `Cell In[26], line 12`,
/// `Input In [3], in <cell line: 2>()`, or the first `----> 12` marker after an
/// `<ipython-input-…>` frame.
fn ipython_cell_line(text: &str) -> Option<u32> {
    for line in text.lines() {
        let t = line.trim_start();
        if (t.starts_with("Cell In[") || t.starts_with("Cell In ["))
            && let Some(at) = t.find(", line ")
        {
            return number(t.get(at + ", line ".len()..)?);
        }
        if t.starts_with("Input In [")
            && let Some(at) = t.find("<cell line: ")
        {
            return number(t.get(at + "<cell line: ".len()..)?);
        }
    }
    let start = text.find("<ipython-input-")?;
    text.get(start..)?.lines().find_map(|l| {
        let t = l.trim_start().trim_start_matches('-').strip_prefix('>')?;
        number(t.trim_start())
    })
}

fn number(s: &str) -> Option<u32> {
    let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use abidoc_ide::{Code, Severity};

    fn out(mime: &str, text: &str) -> CellOutput {
        CellOutput {
            mime: mime.into(),
            text: text.into(),
        }
    }

    fn diag(package: Option<&str>, library: Option<&str>) -> Diagnostic {
        Diagnostic {
            code: Code::AbiMismatch,
            severity: Severity::Error,
            message: String::new(),
            source: None,
            related: Vec::new(),
            package: package.map(Into::into),
            library: library.map(Into::into),
            symbols: Vec::new(),
            evidence: Vec::new(),
            explanation: None,
            fixes: Vec::new(),
        }
    }

    #[test]
    fn error_outputs_become_tracebacks() {
        let err = serde_json::json!({
            "name": "ImportError",
            "message": "/x/selective_scan_cuda.so: undefined symbol: _ZN3c10",
            "stack": "\u{1b}[0;31m---------\u{1b}[0m\nCell \u{1b}[0;32mIn[3], line 2\u{1b}[0m\n\u{1b}[0;32m----> 2\u{1b}[0m \u{1b}[38;5;28;01mimport\u{1b}[39;00m mamba_ssm\n"
        });
        let text = output_text(&[
            out("application/vnd.code.notebook.stdout", "loading\n"),
            out("image/png", "iVBOR"),
            out(MIME_VSCODE_ERROR, &err.to_string()),
        ]);
        assert!(text.starts_with("loading\n\n\u{1b}[0;31m"), "{text:?}");
        assert!(
            text.ends_with("ImportError: /x/selective_scan_cuda.so: undefined symbol: _ZN3c10"),
            "{text:?}"
        );
        assert!(!text.contains("iVBOR"));
        let source = "import torch\nimport mamba_ssm\nprint(1)\n";
        assert_eq!(anchor_line(source, &text, &diag(None, None)), 1);

        let jupyter = serde_json::json!({"ename": "OSError", "evalue": "libcudart.so.12: cannot open",
            "traceback": ["Traceback", "OSError: libcudart.so.12: cannot open"]});
        assert_eq!(
            output_text(&[out(MIME_JUPYTER_ERROR, &jupyter.to_string())]),
            "Traceback\nOSError: libcudart.so.12: cannot open"
        );
    }

    #[test]
    fn anchor_falls_back_to_import_then_first_line() {
        let source =
            "\n# train\nfrom unsloth import FastLanguageModel\nimport selective_scan_cuda\n";
        let lib = "/sp/selective_scan_cuda.cpython-312-x86_64-linux-gnu.so";
        assert_eq!(
            anchor_line(source, "ImportError: x", &diag(None, Some(lib))),
            3
        );
        assert_eq!(
            anchor_line(source, "ImportError: x", &diag(Some("unsloth"), None)),
            2
        );
        assert_eq!(
            anchor_line(source, "ImportError: x", &diag(Some("mamba-ssm"), None)),
            1
        );
        let legacy = "<ipython-input-4-abc> in <module>\n      1 import os\n----> 2 import selective_scan_cuda\n";
        assert_eq!(anchor_line(source, legacy, &diag(None, None)), 1);
    }
}
