//! Named JS types for the binding's signatures. The TypeScript
//! declarations of the data that crosses the boundary (mirroring the serde
//! shapes in `crate::core`) are in `src/js/records.d.ts` and
//! `src/js/trajectory-index-types.d.ts`, which scripts/assemble.mjs puts into
//! the package's index.d.ts; the names below refer to them. The closed sets
//! of words (`ErrorCode`, `StopReason`, ...) are generated from the core by
//! the build (src/js/vocabulary.d.ts).

use wasm_bindgen::prelude::*;

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
