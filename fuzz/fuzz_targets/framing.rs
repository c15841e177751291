//! Fuzzes the LSP frame guard's body check: any body is either replaced by a well-formed JSON
//! request, or forwarded — and then the framework must decode it (its decoder ends the session on
//! a frame it cannot decode: UTF-8, escapes and nesting depth inside params included).
#![no_main]
use abidoc_lsp::proto::jsonrpc::{Request, Response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match abidoc_lsp::framing::check(data) {
        Err(replacement) => {
            let v: serde_json_check::Value = match serde_json_check::from_slice(&replacement) {
                Ok(v) => v,
                Err(e) => panic!("replacement is not JSON: {e}"),
            };
            assert_eq!(v["jsonrpc"], "2.0");
            assert!(v["params"]["code"].is_i64());
        }
        Ok(()) => {
            let Ok(text) = std::str::from_utf8(data) else {
                panic!("forwarded a body that is not UTF-8");
            };
            assert!(
                serde_json_check::from_str::<Request>(text).is_ok()
                    || serde_json_check::from_str::<Response>(text).is_ok(),
                "forwarded a body the framework cannot decode"
            );
        }
    }
});
