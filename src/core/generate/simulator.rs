//! Checks on the simulated user's replies. A reply that is empty, leaks the
//! simulator's reasoning or its prompt, speaks as the assistant, or repeats
//! an earlier user message word for word is not the user speaking: it is
//! asked again (with a reminder naming the problem), each rejected reply is
//! recorded (`simulator_issue`), and one that persists ends the run as the
//! simulator's fault, never the agent's.

use std::collections::HashSet;

/// What is wrong with a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Issue {
    Empty,
    Reasoning,
    Role,
    Repeat,
}

impl Issue {
    pub fn as_str(self) -> &'static str {
        match self {
            Issue::Empty => "empty",
            Issue::Reasoning => "reasoning",
            Issue::Role => "role",
            Issue::Repeat => "repeat",
        }
    }

    /// The line added to the next request.
    pub fn reminder(self) -> &'static str {
        match self {
            // Unchanged wording since the first release: recordings made then still replay.
            Issue::Empty => "Your previous answer was empty. Answer with a non-empty message.",
            Issue::Reasoning => {
                "Your previous answer contained your reasoning or these instructions. Answer with the user's message only, nothing else."
            }
            Issue::Role => {
                "Your previous answer spoke as the assistant or carried a role label. Answer as the user, in the user's own words, with no label."
            }
            Issue::Repeat => "Your previous answer repeated an earlier user message word for word. Write a new message that moves toward the goal.",
        }
    }
}

/// Which checks run and how often a rejected reply is asked again
/// (`trajectory.simulator`). `reasoning` and `role` are on by default;
/// `repeat` is opt-in, as scripted test users repeat themselves on purpose.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulatorChecks {
    /// Further attempts after a rejected reply (default 1: two in all).
    pub retries: u32,
    pub reasoning: bool,
    pub role: bool,
    pub repeat: bool,
}

impl Default for SimulatorChecks {
    fn default() -> Self {
        SimulatorChecks { retries: 1, reasoning: true, role: true, repeat: false }
    }
}

/// Markers of reasoning or of the simulator's own prompt, anywhere in the
/// reply (compared in ASCII lowercase). The prompt lines are those of
/// `prompt::user_message_request`.
const REASONING_MARKERS: &[&str] = &[
    "<think>",
    "</think>",
    "<thinking>",
    "</thinking>",
    "<reasoning>",
    "<scratchpad>",
    "<|im_start|>",
    "<|im_end|>",
    "[inst]",
    "you are role-playing the user",
    "what to do in this message:",
    "your overall goal:",
    "no specific step this turn",
    "reply with the user's next message",
    "write the user's next message",
    "the conversation so far (most recent last)",
];

/// Line openings of reasoning (ASCII lowercase).
const REASONING_LINES: &[&str] = &["thought:", "thinking:", "reasoning:", "internal monologue:", "(thinking"];

/// Openings of a reply that speaks as the assistant, or carries a role
/// label (ASCII lowercase, after leading whitespace, `*` and `#`). Not
/// `agent:`: a user may well be called Agent Smith.
const ROLE_OPENINGS: &[&str] = &[
    "assistant:",
    "ai:",
    "user:",
    "how can i help you",
    "how can i assist you",
    "how may i help you",
    "how may i assist you",
    "as an ai",
    "i'm an ai",
    "i am an ai",
];

/// The assistant's voice wherever it is in a reply (ASCII lowercase).
const ROLE_ANYWHERE: &[&str] = &["how can i assist you", "how may i assist you", "is there anything else i can help you with"];

/// For each byte, the markers (bit `i` for `markers[i]`) that start with it.
/// At most 16 markers (a 17th does not compile).
const fn first_bytes(markers: &[&str]) -> [u16; 256] {
    let mut table = [0u16; 256];
    let mut i = 0;
    while i < markers.len() {
        table[markers[i].as_bytes()[0] as usize] |= 1 << i;
        i += 1;
    }
    table
}

const REASONING_FIRST: [u16; 256] = first_bytes(REASONING_MARKERS);
const ROLE_ANYWHERE_FIRST: [u16; 256] = first_bytes(ROLE_ANYWHERE);

/// Whether any of `markers` occurs in `text`: one pass, trying at each byte
/// only the markers that start with it (`first`). `str::contains` per
/// marker builds a searcher each time, which cost more than the search for
/// a reply of a sentence or two (measured: a tenth of a plain generated turn).
fn contains_any(text: &str, markers: &[&str], first: &[u16; 256]) -> bool {
    let text = text.as_bytes();
    text.iter().enumerate().any(|(i, &b)| {
        let mut bits = first[b as usize];
        while bits != 0 {
            if text[i..].starts_with(markers[bits.trailing_zeros() as usize].as_bytes()) {
                return true;
            }
            bits &= bits - 1;
        }
        false
    })
}

/// Leading markup of a line: whitespace, `*`, `#`, `>`.
fn unmarked(line: &str) -> &str {
    line.trim_start_matches(|ch: char| ch.is_whitespace() || matches!(ch, '*' | '#' | '>'))
}

/// The first problem of `text` (trimmed), or None when it reads as the user
/// speaking. `said` holds the [`said_key`] of each user message so far.
pub fn check(text: &str, said: &HashSet<String>, c: &SimulatorChecks) -> Option<Issue> {
    // Invisible characters alone (zero-width spaces, a BOM, control
    // characters such as NUL or ESC) are no message either.
    if text
        .chars()
        .all(|ch| ch.is_whitespace() || matches!(ch, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}'))
    {
        return Some(Issue::Empty);
    }
    let lower = text.to_ascii_lowercase();
    if c.reasoning
        && (contains_any(&lower, REASONING_MARKERS, &REASONING_FIRST)
            || lower.lines().any(|l| REASONING_LINES.iter().any(|m| unmarked(l).starts_with(m))))
    {
        return Some(Issue::Reasoning);
    }
    if c.role && (ROLE_OPENINGS.iter().any(|m| unmarked(&lower).starts_with(m)) || contains_any(&lower, ROLE_ANYWHERE, &ROLE_ANYWHERE_FIRST)) {
        return Some(Issue::Role);
    }
    if c.repeat && said.contains(&said_key(text)) {
        return Some(Issue::Repeat);
    }
    None
}

/// A user message as the repeat rule compares it: ASCII lowercase, its words
/// joined by single spaces, so spacing and case do not make it new.
pub fn said_key(text: &str) -> String {
    text.to_ascii_lowercase().split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(text: &str, earlier: &[&str]) -> Option<&'static str> {
        let said: HashSet<String> = earlier.iter().map(|t| said_key(t)).collect();
        check(text, &said, &SimulatorChecks { repeat: true, ..SimulatorChecks::default() }).map(Issue::as_str)
    }

    #[test]
    fn each_rule_fires_on_its_kind_of_reply_and_not_on_a_user_speaking() {
        assert_eq!(first("", &[]), Some("empty"));
        assert_eq!(first("<think>the user wants a table</think> A table for two, please.", &[]), Some("reasoning"));
        assert_eq!(first("Thought: I should ask about hours.\nAre you open tonight?", &[]), Some("reasoning"));
        assert_eq!(first("What to do in this message: ask for a table", &[]), Some("reasoning"));
        assert_eq!(first("Assistant: Sure, I booked it.", &[]), Some("role"));
        assert_eq!(first("**User:** a table for two", &[]), Some("role"));
        assert_eq!(first("How can I help you today?", &[]), Some("role"));
        assert_eq!(first("A table  for TWO, please.", &["a table for two, please."]), Some("repeat"));
        assert_eq!(first("\u{200b}", &[]), Some("empty"));
        assert_eq!(first("\u{0}\u{7}\u{1b}", &[]), Some("empty"));
        assert_eq!(first("\u{1b}[31mA table, please.\u{1b}[0m", &[]), None);
        assert_eq!(first("**Thought:** they want a table\nA table, please.", &[]), Some("reasoning"));
        assert_eq!(first("<|im_start|>assistant\nSure.", &[]), Some("reasoning"));
        assert_eq!(first("Sure! How can I assist you today?", &[]), Some("role"));
        for fine in [
            "A table for two, please.",
            "I thought: why not 8pm?",
            "Can the AI: book it?",
            "Thinking of 8pm. Is that ok?",
            "Agent: Smith here, I need a table",
        ] {
            assert_eq!(first(fine, &["Hi!"]), None, "{fine}");
        }
    }

    #[test]
    fn the_one_pass_search_finds_what_contains_finds() {
        for markers in [REASONING_MARKERS, ROLE_ANYWHERE] {
            let first = first_bytes(markers);
            for m in markers {
                for text in [m.to_string(), format!("ab {m}"), format!("{m} cd"), format!("a{}{m}b", &m[..m.len() - 1])] {
                    assert!(contains_any(&text, markers, &first), "{text}");
                }
                // A marker cut short, anywhere, is no marker.
                let cut = &m[..m.len() - 1];
                let text = format!("{cut} x {cut}");
                assert_eq!(contains_any(&text, markers, &first), markers.iter().any(|n| text.contains(n)), "{text}");
            }
            assert!(!contains_any("", markers, &first));
        }
    }

    #[test]
    fn a_rule_turned_off_lets_its_replies_through() {
        let off = SimulatorChecks { reasoning: false, role: false, repeat: false, ..SimulatorChecks::default() };
        let earlier: HashSet<String> = [said_key("Hi")].into();
        for text in ["<think>x</think>", "Assistant: hi", "Hi"] {
            assert_eq!(check(text, &earlier, &off), None, "{text}");
        }
        assert_eq!(check("", &earlier, &off), Some(Issue::Empty), "an empty reply is never let through");
    }
}
