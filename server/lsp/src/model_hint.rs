//! The model a notebook uses, read from its cell sources: `from_pretrained("org/name")`,
//! `model_name = "org/name"`. Tells the analysis whether a Mamba kernel is needed at all.

/// The first model id the sources name. The syntax scanner's `Model` events win; the small local
/// scan below covers the common spellings when the scanner finds none.
pub fn model_hint<'a>(sources: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let sources: Vec<&str> = sources.into_iter().collect();
    for source in &sources {
        let events = abidoc_syntax::scan(source).value;
        for event in events {
            if let abidoc_syntax::EventKind::Model { id } = event.kind {
                return Some(id);
            }
        }
    }
    sources
        .iter()
        .find_map(|s| from_pretrained(s))
        .or_else(|| sources.iter().find_map(|s| model_assignment(s)))
}

fn quoted_at(s: &str) -> Option<String> {
    let s = s.trim_start();
    let quote = s.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = s.get(1..)?;
    let end = body.find(quote)?;
    let id = body.get(..end)?;
    let plausible = !id.is_empty() && id.len() < 200 && !id.chars().any(char::is_whitespace);
    plausible.then(|| id.to_owned())
}

fn from_pretrained(source: &str) -> Option<String> {
    source
        .match_indices("from_pretrained(")
        .find_map(|(at, m)| {
            let rest = source.get(at + m.len()..)?.trim_start();
            let rest = rest
                .strip_prefix("pretrained_model_name_or_path")
                .map(|r| r.trim_start().trim_start_matches('=').trim_start())
                .unwrap_or(rest);
            quoted_at(rest)
        })
}

fn model_assignment(source: &str) -> Option<String> {
    source.lines().find_map(|line| {
        let line = line.trim_start();
        let eq = line.find('=')?;
        if line.get(eq + 1..)?.starts_with('=') {
            return None;
        }
        let lhs = line.get(..eq)?.trim();
        let lhs = lhs
            .split(':')
            .next()?
            .trim()
            .trim_start_matches("--")
            .to_ascii_lowercase();
        let named_model = lhs == "model"
            || (lhs.contains("model")
                && (lhs.ends_with("name") || lhs.ends_with("id") || lhs.ends_with("path")));
        if !named_model
            || !lhs
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return None;
        }
        quoted_at(line.get(eq + 1..)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_model_ids_in_cell_sources() {
        let cells = [
            "import torch\n",
            "model, tok = FastLanguageModel.from_pretrained(\n    'ibm-granite/granite-3.2-8b-instruct', max_seq_length=2048)\n",
        ];
        assert_eq!(
            model_hint(cells).as_deref(),
            Some("ibm-granite/granite-3.2-8b-instruct")
        );
        assert_eq!(
            model_hint(["MODEL_NAME: str = \"state-spaces/mamba-130m-hf\"\nx == 'a'\n"]).as_deref(),
            Some("state-spaces/mamba-130m-hf")
        );
        assert_eq!(
            model_hint(["if model_name == \"x\":\n    pass\n", "print('hi')"]),
            None
        );
    }
}
