//! Writers of test fixtures that the tests of other crates share (feature `test-writer`, which
//! only dev-dependencies enable): a CUDA fat binary laid out as nvcc writes it, and a real shared
//! library that carries one in its `.nv_fatbin` section, built with the system C compiler — no
//! nvcc needed, since the section is only bytes the host stub places.

use super::{FATBIN_MAGIC, GpuCodeKind, layout};
use std::path::Path;
use std::process::Command;

/// One fat binary entry: a 64-byte header (code version 1.7, as `cuobjdump` prints
/// `code version = [1,7]`), then `payload`.
pub fn fatbin_entry(kind: GpuCodeKind, arch: u32, payload: &[u8], flags: u64) -> Vec<u8> {
    let kind = match kind {
        GpuCodeKind::Ptx => layout::KIND_PTX,
        GpuCodeKind::Cubin => layout::KIND_CUBIN,
    };
    let len = payload.len();
    let mut e = vec![0u8; layout::ENTRY_MIN];
    put(&mut e, layout::ENTRY_KIND, &kind.to_le_bytes());
    // A u16 that nvcc sets to 0x0101 and the reader does not use.
    put(&mut e, layout::ENTRY_KIND + 2, &0x0101u16.to_le_bytes());
    let header_len = u32::try_from(layout::ENTRY_MIN).unwrap_or(u32::MAX);
    put(&mut e, layout::ENTRY_HEADER_LEN, &header_len.to_le_bytes());
    put(&mut e, layout::ENTRY_SIZE, &(len as u64).to_le_bytes());
    let compressed = u32::try_from(len).unwrap_or(u32::MAX);
    put(
        &mut e,
        layout::ENTRY_COMPRESSED_SIZE,
        &compressed.to_le_bytes(),
    );
    put(&mut e, layout::ENTRY_VERSION_MINOR, &7u16.to_le_bytes());
    put(&mut e, layout::ENTRY_VERSION_MAJOR, &1u16.to_le_bytes());
    put(&mut e, layout::ENTRY_ARCH, &arch.to_le_bytes());
    put(&mut e, layout::ENTRY_FLAGS, &flags.to_le_bytes());
    e.extend_from_slice(payload);
    e
}

/// One container: the 16-byte header (version 1), then `entries` as [`fatbin_entry`] wrote them.
pub fn fatbin_container(entries: &[Vec<u8>]) -> Vec<u8> {
    let body = entries.concat();
    let mut c = vec![0u8; layout::HEADER_LEN];
    put(&mut c, 0, &FATBIN_MAGIC.to_le_bytes());
    put(&mut c, layout::HEADER_VERSION, &1u16.to_le_bytes());
    let header_len = u16::try_from(layout::HEADER_LEN).unwrap_or(u16::MAX);
    put(&mut c, layout::HEADER_HEADER_LEN, &header_len.to_le_bytes());
    put(
        &mut c,
        layout::HEADER_FAT_SIZE,
        &(body.len() as u64).to_le_bytes(),
    );
    c.extend_from_slice(&body);
    c
}

/// A fat binary of one container: a cubin for each of `cubins`, then PTX for each of `ptx`.
pub fn fatbin_section(cubins: &[u32], ptx: &[u32]) -> Vec<u8> {
    let cubins = cubins
        .iter()
        .map(|&a| fatbin_entry(GpuCodeKind::Cubin, a, &[0x7f; 16], 0));
    let ptx = ptx
        .iter()
        .map(|&a| fatbin_entry(GpuCodeKind::Ptx, a, b".version 8.4\0\0\0\0", 0));
    fatbin_container(&cubins.chain(ptx).collect::<Vec<_>>())
}

/// Builds the shared library `out` with `$CC` (else `cc`), its `.nv_fatbin` section holding
/// `section` (no such section for `None`); its C source is written beside it. The error names
/// the compiler and what it said.
pub fn build_library(out: &Path, section: Option<&[u8]>) -> Result<(), String> {
    let data = section.map_or(String::new(), |section| {
        let bytes: Vec<String> = section.iter().map(|b| format!("0x{b:02x}")).collect();
        format!(
            "__attribute__((section(\".nv_fatbin\"), used, aligned(8)))\nconst unsigned char fatbin[{}] = {{{}}};\n",
            section.len(),
            bytes.join(",")
        )
    });
    let src = out.with_extension("c");
    std::fs::write(&src, format!("{data}int launch(void) {{ return 0; }}\n"))
        .map_err(|e| format!("{}: {e}", src.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(out)
        .arg(&src)
        .output();
    match built {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "{cc} could not build {}: {}",
            out.display(),
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!("{cc} could not build {}: {e}", out.display())),
    }
}

/// Writes `bytes` at `at` in a header this module sized to hold every field.
fn put(header: &mut [u8], at: usize, bytes: &[u8]) {
    if let Some(field) = header.get_mut(at..at + bytes.len()) {
        field.copy_from_slice(bytes);
    }
}
