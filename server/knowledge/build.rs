//! Decompresses the embedded torch symbol index at build time, so that the binary carries the
//! index as it is read (the repository keeps the compact zstd file `tools/torch-index/` writes).
//!
//! Decompressing at run time cost every process that needed the index ~120 M instructions
//! (~35 ms), most of a short `abidoc check`; the parsed layout is unchanged, byte for byte.

use std::io::Read;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let src = "data/torch_index/torch_symbols.bin.zst";
    println!("cargo:rerun-if-changed={src}");
    let packed = std::fs::read(src)?;
    let mut raw = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(&mut packed.as_slice())?.read_to_end(&mut raw)?;
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR")?).join("torch_symbols.bin");
    std::fs::write(out, raw)?;
    Ok(())
}
