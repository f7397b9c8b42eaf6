//! Assessments and their render. The render is a contract (agents read it
//! in their prompt), so it is byte for byte the spec's format.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Info,
    Caution,
    Warning,
}

impl Severity {
    pub fn parse(s: &str) -> Option<Severity> {
        [Severity::Info, Severity::Caution, Severity::Warning].into_iter().find(|v| v.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Caution => "caution",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    pub category: String,
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// What one observer concluded after one tool call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Assessment {
    pub observer_name: String,
    pub summary: String,
    #[serde(default)]
    pub observations: Vec<Observation>,
    #[serde(default)]
    pub suggestions: Vec<String>,
    #[serde(default)]
    pub severity: Severity,
    /// Milliseconds since the epoch, from the injected clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<f64>,
}

impl Assessment {
    pub fn new(observer_name: impl Into<String>, summary: impl Into<String>, severity: Severity) -> Self {
        Assessment {
            observer_name: observer_name.into(),
            summary: summary.into(),
            observations: Vec::new(),
            suggestions: Vec::new(),
            severity,
            timestamp: None,
        }
    }

    /// `### {name} [{severity}]`, blank, summary; observations; suggestions.
    pub fn render(&self) -> String {
        let mut lines: Vec<String> = vec![format!("### {} [{}]", self.observer_name, self.severity.as_str()), String::new()];
        lines.push(self.summary.clone());
        if !self.observations.is_empty() {
            lines.push(String::new());
            for o in &self.observations {
                lines.push(format!("**{}**: {}", o.category, o.description));
                if let Some(e) = &o.evidence {
                    lines.push(format!("```\n{e}\n```"));
                }
            }
        }
        if !self.suggestions.is_empty() {
            lines.push(String::new());
            lines.push("**Suggestions**:".into());
            for s in &self.suggestions {
                lines.push(format!("- {s}"));
            }
        }
        lines.join("\n")
    }
}

/// Every assessment produced after one tool call. Overwritten, never appended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentAssessment {
    pub assessments: Vec<Assessment>,
    pub generated_at: f64,
    pub call_index: u64,
}

impl CurrentAssessment {
    pub fn render(&self) -> String {
        if self.assessments.is_empty() {
            return String::new();
        }
        let mut lines =
            vec!["## Trajectory Assessment".to_owned(), String::new(), format!("_Generated after tool call #{}_", self.call_index), String::new()];
        for a in &self.assessments {
            lines.push(a.render());
            lines.push(String::new());
        }
        lines.join("\n")
    }

    /// The assessments of a rendered text (what a trace's `assessment`
    /// holds), as far as [`CurrentAssessment::render`] keeps them: each
    /// observer's name, severity and summary, and the call index; `None`
    /// for text that is not one.
    pub fn read_rendered(text: &str) -> Option<CurrentAssessment> {
        let mut lines = text.lines().peekable();
        if lines.next()? != "## Trajectory Assessment" {
            return None;
        }
        let mut call_index = 0;
        let mut assessments = Vec::new();
        while let Some(line) = lines.next() {
            if let Some(n) = line.strip_prefix("_Generated after tool call #").and_then(|l| l.strip_suffix('_')) {
                call_index = n.parse().ok()?;
            } else if let Some((name, severity)) = line.strip_prefix("### ").and_then(|h| h.strip_suffix(']')).and_then(|h| h.rsplit_once(" [")) {
                let severity = Severity::parse(severity)?;
                while lines.next_if(|l| l.is_empty()).is_some() {}
                let mut summary = Vec::new();
                while let Some(l) = lines.next_if(|l| !l.is_empty() && !l.starts_with("### ")) {
                    summary.push(l);
                }
                assessments.push(Assessment::new(name, summary.join("\n"), severity));
            }
        }
        Some(CurrentAssessment { assessments, generated_at: 0.0, call_index })
    }

    /// Stale once more than `max_age_calls` calls have followed it.
    pub fn is_stale(&self, current_call_index: u64, max_age_calls: u64) -> bool {
        current_call_index.saturating_sub(self.call_index) > max_age_calls
    }
}

from_json_enum!(Severity, "info, caution or warning" { "info" => Info, "caution" => Caution, "warning" => Warning });
from_json_struct!(checked Observation { category: "category", description: "description", evidence: "evidence" });
from_json_struct!(checked Assessment {
    observer_name: "observerName",
    summary: "summary",
    observations: "observations",
    suggestions: "suggestions",
    severity: "severity" = default,
    timestamp: "timestamp",
});
from_json_struct!(CurrentAssessment { assessments: "assessments", generated_at: "generatedAt", call_index: "callIndex" });

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_assessment_reads_back() {
        let mut a = Assessment::new("stall", "same call 3 times\nin a row", Severity::Warning);
        a.observations.push(Observation { category: "repeat".into(), description: "d".into(), evidence: Some("e".into()) });
        let c = CurrentAssessment { assessments: vec![a, Assessment::new("my [x] check", "ok", Severity::Info)], generated_at: 5.0, call_index: 7 };
        let back = CurrentAssessment::read_rendered(&c.render()).unwrap();
        assert_eq!(back.call_index, 7);
        let read: Vec<_> = back.assessments.iter().map(|a| (a.observer_name.as_str(), a.severity, a.summary.as_str())).collect();
        assert_eq!(read, [("stall", Severity::Warning, "same call 3 times\nin a row"), ("my [x] check", Severity::Info, "ok")]);
        assert_eq!(CurrentAssessment::read_rendered("hello"), None);
    }

    #[test]
    fn renders_the_spec_example_byte_for_byte() {
        let mut a = Assessment::new(
            "Resources",
            "You have 8 minutes remaining before the deadline. You have used 35,000 of 50,000 tokens (70% of budget). 15,000 tokens remaining.",
            Severity::Caution,
        );
        a.suggestions.push("Be mindful of remaining resources when planning next steps.".into());
        let current = CurrentAssessment { assessments: vec![a], generated_at: 0.0, call_index: 47 };
        assert_eq!(
            current.render(),
            "## Trajectory Assessment\n\n_Generated after tool call #47_\n\n### Resources [caution]\n\n\
             You have 8 minutes remaining before the deadline. You have used 35,000 of 50,000 tokens (70% of budget). 15,000 tokens remaining.\n\n\
             **Suggestions**:\n- Be mindful of remaining resources when planning next steps.\n"
        );
    }

    #[test]
    fn renders_observations_with_fenced_evidence() {
        let mut a = Assessment::new("Stall", "Stuck.", Severity::Warning);
        a.observations.push(Observation { category: "loop".into(), description: "same call".into(), evidence: Some("#1 ls\n#2 ls".into()) });
        a.observations.push(Observation { category: "stall".into(), description: "no evidence".into(), evidence: None });
        assert_eq!(a.render(), "### Stall [warning]\n\nStuck.\n\n**loop**: same call\n```\n#1 ls\n#2 ls\n```\n**stall**: no evidence");
    }

    #[test]
    fn empty_current_assessment_renders_nothing_and_staleness_is_strict() {
        let c = CurrentAssessment { assessments: vec![], generated_at: 0.0, call_index: 1 };
        assert_eq!(c.render(), "");
        let c = CurrentAssessment { assessments: vec![Assessment::new("x", "y", Severity::Info)], ..c };
        assert!(!c.is_stale(21, 20), "20 calls later it still shows");
        assert!(c.is_stale(22, 20), "21 calls later it is gone");
    }
}
