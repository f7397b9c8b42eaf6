//! What a run produces: one `StepTrace` per turn (the canonical record of
//! the conversation), the final `end` marker and the steps' runtime states.
//! Field names are those of `@tally-evals/trajectories`.

use serde::Serialize;

use super::state::StepRuntimeState;
use crate::error::Cause;
use crate::message::ModelMessage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopReason {
    GoalReached,
    MaxTurns,
    PolicyViolation,
    AgentLoop,
    NoStepMatch,
    /// The rubric judge failed a criterion after a turn, or at the end of a run that had reached its goal.
    JudgeFailed,
    Error,
    Aborted,
}

impl StopReason {
    pub const ALL: [StopReason; 8] = [
        StopReason::GoalReached,
        StopReason::MaxTurns,
        StopReason::PolicyViolation,
        StopReason::AgentLoop,
        StopReason::NoStepMatch,
        StopReason::JudgeFailed,
        StopReason::Error,
        StopReason::Aborted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::GoalReached => "goal-reached",
            StopReason::MaxTurns => "max-turns",
            StopReason::PolicyViolation => "policy-violation",
            StopReason::AgentLoop => "agent-loop",
            StopReason::NoStepMatch => "no-step-match",
            StopReason::JudgeFailed => "judge-failed",
            StopReason::Error => "error",
            StopReason::Aborted => "aborted",
        }
    }

    pub fn parse(s: &str) -> Option<StopReason> {
        Some(match s {
            "goal-reached" => StopReason::GoalReached,
            "max-turns" => StopReason::MaxTurns,
            "policy-violation" => StopReason::PolicyViolation,
            "agent-loop" => StopReason::AgentLoop,
            "no-step-match" => StopReason::NoStepMatch,
            "judge-failed" => StopReason::JudgeFailed,
            "error" => StopReason::Error,
            "aborted" => StopReason::Aborted,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SelectionMethod {
    Start,
    PreconditionsOrdered,
    LlmRanked,
    None,
}

impl SelectionMethod {
    pub fn as_str(self) -> &'static str {
        match self {
            SelectionMethod::Start => "start",
            SelectionMethod::PreconditionsOrdered => "preconditions-ordered",
            SelectionMethod::LlmRanked => "llm-ranked",
            SelectionMethod::None => "none",
        }
    }

    pub fn parse(s: &str) -> Option<SelectionMethod> {
        [SelectionMethod::Start, SelectionMethod::PreconditionsOrdered, SelectionMethod::LlmRanked, SelectionMethod::None]
            .into_iter()
            .find(|m| m.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub step_id: String,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub method: SelectionMethod,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<Vec<Candidate>>,
    /// Why the ranker's answer was not usable (not JSON, wrong shape).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ranker_error: Option<String>,
}

/// Which part of the run failed, for `end.error.side`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    UserSimulator,
    Agent,
    Ranker,
    Precondition,
    Satisfaction,
    Policy,
    Observer,
    Recorder,
    Clock,
    /// The rubric judge's model (threw, timed out).
    Judge,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndError {
    pub code: String,
    pub message: String,
    pub side: Side,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
    /// What the failing callback threw, for the host to hand back as the
    /// error's `cause`; not data, so never written out.
    #[serde(skip)]
    pub cause: Option<Cause>,
}

/// Whose doing a run's end was, so a batch can count the agent's passes
/// and failures apart from the simulator's faults and the harness's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The goal was reached.
    Pass,
    /// The agent did not get there: max-turns, agent-loop, no-step-match,
    /// a policy's stop, or an error of the agent itself (threw, timed out,
    /// answered garbage).
    Agent,
    /// The simulated user (or the step ranker, the same model's other job)
    /// failed: threw, timed out, stayed empty or kept breaking character.
    Simulator,
    /// One of the caller's own callbacks failed: a precondition, a
    /// satisfaction check, the policy, an observer, the sink, the clock.
    Harness,
    /// The caller's signal stopped the run.
    Aborted,
}

impl Verdict {
    pub const ALL: [Verdict; 5] = [Verdict::Pass, Verdict::Agent, Verdict::Simulator, Verdict::Harness, Verdict::Aborted];

    pub fn of(reason: StopReason, side: Option<Side>) -> Verdict {
        match (reason, side) {
            (StopReason::GoalReached, _) => Verdict::Pass,
            (StopReason::Aborted, _) => Verdict::Aborted,
            (StopReason::Error, Some(Side::UserSimulator | Side::Ranker)) => Verdict::Simulator,
            (StopReason::Error, Some(Side::Agent) | None) => Verdict::Agent,
            (StopReason::Error, Some(_)) => Verdict::Harness,
            _ => Verdict::Agent,
        }
    }

    pub fn parse(s: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Agent => "agent",
            Verdict::Simulator => "simulator",
            Verdict::Harness => "harness",
            Verdict::Aborted => "aborted",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct End {
    pub is_final: bool,
    pub reason: StopReason,
    pub completed: bool,
    pub verdict: Verdict,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<EndError>,
    /// What the observers found that the agent was never shown (in its last
    /// turn), rendered as a trace's `assessment` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assessment: Option<String>,
}

impl End {
    /// The final end marker; its verdict follows from the reason and the failing side.
    pub fn new(reason: StopReason, completed: bool, summary: Option<String>, error: Option<EndError>) -> End {
        // A replay that misses says the recording is out of date: the harness's doing, whichever side asked.
        let verdict = match &error {
            Some(e) if e.code == "REPLAY_MISS" => Verdict::Harness,
            _ => Verdict::of(reason, error.as_ref().map(|e| e.side)),
        };
        End { is_final: true, reason, completed, verdict, summary, error, assessment: None }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepTrace {
    pub turn_index: u32,
    pub user_message: ModelMessage,
    /// Assistant and tool messages, in the order the agent produced them.
    pub agent_messages: Vec<ModelMessage>,
    /// ISO 8601, from the injected clock.
    pub timestamp: String,
    pub step_id: Option<String>,
    pub selection: Selection,
    /// The observers' assessment the agent was shown with this turn's user
    /// message (rendered), when there was one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assessment: Option<String>,
    /// Tokens the turn's model calls reported (user model, ranker, agent,
    /// and the judge's after it; the last turn's, the judge's at the end
    /// too); left out when none did. A fork gives them back to the
    /// observers' budget.
    #[serde(skip_serializing_if = "is_zero")]
    pub tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<End>,
    /// The rubric judge's judgement after this turn (runTrajectory's `judge`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<serde_json::Value>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TrajectoryResult {
    pub conversation_id: String,
    pub steps: Vec<StepTrace>,
    /// The same marker as the last trace's `end`; also there when the run
    /// stopped before its first turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<End>,
    pub step_states: Vec<StepRuntimeState>,
    /// The rubric judge's last judgement: the one that ended the run, or the one made at its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<serde_json::Value>,
}

impl TrajectoryResult {
    pub fn end(&self) -> Option<&End> {
        self.end.as_ref().or_else(|| self.steps.last().and_then(|t| t.end.as_ref()))
    }
}

/// Milliseconds since the epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (what
/// `Date.prototype.toISOString` prints), computed without a clock.
pub fn iso8601(ms: f64) -> String {
    let ms = ms.floor() as i64;
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Civil-from-days (proleptic Gregorian), after H. Hinnant.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, sec, milli) = (rem / 3_600_000, rem / 60_000 % 60, rem / 1000 % 60, rem % 1000);
    // Every turn stamps one: written digit by digit (`format!` cost several
    // times more). Years as `{:04}` writes them: at least four characters,
    // a sign counting as one.
    let mut out = Vec::with_capacity(24);
    match u64::try_from(year) {
        Ok(y) => padded(&mut out, y, 4),
        Err(_) => {
            out.push(b'-');
            padded(&mut out, year.unsigned_abs(), 3);
        }
    }
    for (sep, n, width) in [(b'-', month, 2), (b'-', day, 2), (b'T', h, 2), (b':', m, 2), (b':', sec, 2), (b'.', milli, 3)] {
        out.push(sep);
        padded(&mut out, n.unsigned_abs(), width);
    }
    out.push(b'Z');
    out.into_iter().map(char::from).collect()
}

/// `n` in decimal, zero-padded to at least `width` digits.
fn padded(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at.min(digits.len() - width)..]);
}

/// The inverse of [`iso8601`] for `YYYY-MM-DDTHH:MM:SS(.mmm)?Z`; `None`
/// for anything else.
pub fn parse_iso8601(ts: &str) -> Option<f64> {
    let b = ts.as_bytes();
    let num = |from: usize, len: usize| ts.get(from..from + len).filter(|d| d.bytes().all(|c| c.is_ascii_digit()))?.parse::<i64>().ok();
    let shape = [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')].iter().all(|&(i, c)| b.get(i) == Some(&c));
    let ms = match (b.get(19), b.len()) {
        (Some(b'Z'), 20) => 0,
        (Some(b'.'), 24) if b[23] == b'Z' => num(20, 3)?,
        _ => return None,
    };
    let (year, month, day, h, m, sec) = (num(0, 4)?, num(5, 2)?, num(8, 2)?, num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if !shape || !(1..=12).contains(&month) || !(1..=31).contains(&day) || h > 23 || m > 59 || sec > 59 {
        return None;
    }
    // Days-from-civil (proleptic Gregorian), after H. Hinnant.
    let y = year - i64::from(month <= 2);
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some((days * 86_400_000 + h * 3_600_000 + m * 60_000 + sec * 1000 + ms) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_parses_back() {
        for ms in [0.0, 1_700_000_000_123.0, 951_782_400_000.0, -1.0, 4_102_444_799_999.0] {
            assert_eq!(parse_iso8601(&iso8601(ms)), Some(ms));
        }
        assert_eq!(parse_iso8601("2026-01-01T00:00:00Z"), Some(1_767_225_600_000.0));
        assert_eq!(parse_iso8601("2026-13-01T00:00:00Z"), None);
        assert_eq!(parse_iso8601("yesterday"), None);
    }

    #[test]
    fn iso_matches_to_iso_string() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000_123.0), "2023-11-14T22:13:20.123Z");
        assert_eq!(iso8601(951_782_400_000.0), "2000-02-29T00:00:00.000Z");
        assert_eq!(iso8601(-1.0), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso8601(253_402_300_799_999.0), "9999-12-31T23:59:59.999Z");
        assert_eq!(iso8601(253_402_300_800_000.0), "10000-01-01T00:00:00.000Z");
        assert_eq!(iso8601(-62_167_219_200_001.0), "-001-12-31T23:59:59.999Z");
        assert_eq!(iso8601(-62_167_219_200_000.0), "0000-01-01T00:00:00.000Z");
    }

    #[test]
    fn years_outside_four_digits_read_as_format_writes_them() {
        // -1,000,000 days to +3,000,000 days: years from about -768 to 10,183.
        for days in (-1_000_000i64..3_000_000).step_by(99_991) {
            let ms = days as f64 * 86_400_000.0 + 45_296_789.0;
            let text = iso8601(ms);
            let (date, time) = text.split_at(text.len() - 14);
            assert_eq!(time, "T12:34:56.789Z", "{text}");
            let year: i64 = date[..date.len() - 6].parse().unwrap();
            assert_eq!(&date[..date.len() - 6], format!("{year:04}"), "{text}");
        }
    }

    #[test]
    fn every_field_is_written_at_its_width() {
        // Steps through years, months, days, hours and milliseconds, each
        // parsed back field by field.
        let mut ms = -62_167_219_200_000.0;
        while ms < 253_402_300_800_000.0 {
            let text = iso8601(ms);
            assert_eq!(text.len(), 24, "{text}");
            assert_eq!(parse_iso8601(&text), Some(ms), "{text}");
            ms += 987_654_321_097.0;
        }
    }
}
