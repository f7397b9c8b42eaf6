//! Resource constraints the host declares and updates.

use serde::Serialize;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    /// Milliseconds since the epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deadline: Option<f64>,
    /// Seconds already spent; when absent, time since the pipeline started (injected clock).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_used: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u64>,
}

impl Budget {
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [("deadline", self.deadline), ("elapsedSeconds", self.elapsed_seconds)] {
            if v.is_some_and(|v| !(0.0..=crate::number::MAX_TIME_MS).contains(&v)) {
                return Err(Error::invalid_argument(format!("budget.{name} must be a non-negative number of at most 8.64e15")));
            }
        }
        for (name, v) in [("maxTokens", self.max_tokens), ("maxToolCalls", self.max_tool_calls)] {
            if v == Some(0) {
                return Err(Error::invalid_argument(format!("budget.{name} must be positive")));
            }
        }
        Ok(())
    }
}

from_json_options!(Budget {
    deadline: "deadline",
    elapsed_seconds: "elapsedSeconds",
    max_tokens: "maxTokens",
    tokens_used: "tokensUsed",
    max_tool_calls: "maxToolCalls",
});
