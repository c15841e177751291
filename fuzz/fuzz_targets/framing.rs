//! Fuzzes the LSP frame guard's body check: any body is either forwarded or replaced by a
//! well-formed JSON request.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(replacement) = abidoc_lsp::framing::check(data) {
        let v: serde_json_check::Value = match serde_json_check::from_slice(&replacement) {
            Ok(v) => v,
            Err(e) => panic!("replacement is not JSON: {e}"),
        };
        assert_eq!(v["jsonrpc"], "2.0");
    }
});
