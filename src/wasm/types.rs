//! Named JS types for the binding's signatures. The TypeScript
//! declarations of the data that crosses the boundary (mirroring the serde
//! shapes in `crate::core`) are in `src/js/records.d.ts` and
//! `src/js/trajectory-index-types.d.ts`, which scripts/assemble.mjs puts into
//! the package's index.d.ts; the names below refer to them.

use wasm_bindgen::prelude::*;

// The one declaration that stays here: tests/consumers/node-esm/error-codes.test.mjs
// checks this list against `ErrorCode::as_str` by reading this file.
#[wasm_bindgen(typescript_custom_section)]
const ERROR_CODE: &str = r#"
/** Stable codes of every error this package throws (`err.code`). */
export type ErrorCode =
  | 'INVALID_ARGUMENT' | 'INVALID_MESSAGE' | 'INVALID_RECORD' | 'UNSUPPORTED_SCHEMA_VERSION'
  | 'JSONL_PARSE' | 'SINK_FAILED' | 'CALLBACK_FAILED' | 'NOT_INITIALIZED' | 'BUSY' | 'INTERNAL'
  | 'INVALID_TRAJECTORY' | 'TIMEOUT' | 'EMPTY_USER_MESSAGE' | 'REPLAY_MISS' | 'SIMULATOR_ISSUE' | 'SEQ_GAP' | 'VFS_PATH' | 'VFS_LIMIT';
"#;

// Named JS types for optional parameters: `Option<T>` of an extern type keeps
// the `?` in the .d.ts, which `unchecked_param_type` would drop.
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "TrajectoryRecorderOptions")]
    pub type RecorderOptions;

    #[wasm_bindgen(typescript_type = "((line: string) => void | Promise<void>)")]
    pub type JsonlWriter;

    #[wasm_bindgen(typescript_type = "ObserverPipelineOptions")]
    pub type ObserverPipelineOptions;

    #[wasm_bindgen(typescript_type = "{ position?: 'end' | 'after-system' | 'last-user' }")]
    pub type InjectOptions;
}
