//! Long strings from JS as UTF-8 bytes in the module.

use js_sys::{JsString, Uint8Array};
use wasm_bindgen::prelude::*;

use crate::core::Error;

#[wasm_bindgen]
extern "C" {
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &JsString, into: &Uint8Array) -> EncodedInto;
    type EncodedInto;
    #[wasm_bindgen(method, getter)]
    fn read(this: &EncodedInto) -> f64;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodedInto) -> f64;
}

/// The bytes of JSONL input (`TrajectoryIndex.fromJsonl`,
/// `parseTrajectoryJsonl`): a `Uint8Array`'s, or a string's UTF-8;
/// anything else is refused, naming `what`.
pub(crate) fn jsonl_bytes(input: &JsValue, what: &str) -> Result<Vec<u8>, Error> {
    match (input.dyn_ref::<Uint8Array>(), input.dyn_ref::<JsString>()) {
        (Some(bytes), _) => Ok(bytes.to_vec()),
        (None, Some(text)) => Ok(utf8(text)),
        (None, None) => {
            Err(Error::invalid_argument(format!("{what} must be JSONL text or a Uint8Array of it, got {}", crate::wasm::error::describe(input))))
        }
    }
}

/// A string's UTF-8, written by `TextEncoder.encodeInto` straight into the
/// module's memory: first one byte per UTF-16 unit (all of an ASCII
/// stream), then three per unit left. For long text (a JSONL stream)
/// several times faster than the binding's own string copy, which walks
/// the string a unit at a time in JS, and than `encode` (106 MB: ~25 ms
/// against 120-190). A lone surrogate becomes U+FFFD, as any string copy
/// makes it.
pub(crate) fn utf8(text: &JsString) -> Vec<u8> {
    ENCODER.with(|encoder| utf8_with(encoder, text))
}

thread_local! {
    static ENCODER: TextEncoder = TextEncoder::new();
}

fn utf8_with(encoder: &TextEncoder, text: &JsString) -> Vec<u8> {
    let units = text.length() as usize;
    let mut bytes = vec![0u8; units];
    let (read, mut written) = encode_into(encoder, text, &mut bytes, 0);
    if read < units {
        // Three bytes per UTF-16 unit always suffice.
        bytes.resize(written.saturating_add((units - read).saturating_mul(3)), 0);
        written += encode_into(encoder, &text.slice(read as u32, units as u32), &mut bytes, written).1;
    }
    bytes.truncate(written);
    bytes
}

/// `text`'s UTF-8 into `bytes[from..]`: (UTF-16 units read, bytes written).
fn encode_into(encoder: &TextEncoder, text: &JsString, bytes: &mut [u8], from: usize) -> (usize, usize) {
    let into = &mut bytes[from..];
    // SAFETY: the view covers `into`, borrowed mutably here, and lives only
    // for the one encodeInto call, which allocates nothing in the module (a
    // view is invalidated when the module's memory grows).
    let view = unsafe { Uint8Array::view_mut_raw(into.as_mut_ptr(), into.len()) };
    let done = encoder.encode_into(text, &view);
    (done.read() as usize, (done.written() as usize).min(into.len()))
}
