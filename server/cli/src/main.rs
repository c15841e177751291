//! The `abidoc` binary: `check`, `scan`, `explain`, `lsp`, and the human, JSON and SARIF renderers.

fn main() {
    println!("abidoc {}", env!("CARGO_PKG_VERSION"));
}
