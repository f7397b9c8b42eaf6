//! Where an assessment goes in the messages an agent is shown:
//! `injectInto`'s placements and the text part a generated run adds.

use crate::error::{Error, Result};
use crate::message::{Content, ModelMessage, Part, Role};
use crate::value::Arg;

/// Where `inject_into` puts the assessment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// A system message after every existing message (the default).
    End,
    /// A system message right after the leading system messages (for
    /// providers that accept system messages only at the start).
    AfterSystem,
    /// A text part at the end of the last user message: what every provider
    /// accepts, `ai` 7 with its defaults included (it refuses system
    /// messages inside `messages`). This is how generated runs show it.
    LastUser,
}

impl Placement {
    pub fn parse(s: &str) -> Option<Placement> {
        Some(match s {
            "end" => Placement::End,
            "after-system" => Placement::AfterSystem,
            "last-user" => Placement::LastUser,
            _ => return None,
        })
    }

    /// `injectInto`'s `position`: `'end'` when absent.
    pub fn read(position: &Arg) -> Result<Placement> {
        let placement = match position {
            Arg::Absent => Some(Placement::End),
            Arg::Str(s) => Placement::parse(s),
            _ => None,
        };
        placement.ok_or_else(|| {
            Error::invalid_argument(format!("injectInto: position must be 'end', 'after-system' or 'last-user', got {}", position.shown()))
        })
    }
}

/// The keys of `injectInto` options.
pub const INJECT_OPTIONS: [&str; 1] = ["position"];

/// `message` with `text` added as a last text part (a string content
/// becomes a text part first). The assessment shown to an agent for one
/// call travels this way, inside the user's turn.
pub fn with_text_part(message: &ModelMessage, text: &str) -> ModelMessage {
    let mut parts = match &message.content {
        Content::Text(t) => vec![Part::Text { text: t.clone() }],
        Content::Parts(p) => p.clone(),
    };
    parts.push(Part::Text { text: text.to_owned() });
    ModelMessage { role: message.role, content: Content::Parts(parts), provider_options: message.provider_options.clone() }
}

/// Places `context` in `messages` as `placement` says.
pub fn place_context(mut messages: Vec<ModelMessage>, context: &str, placement: Placement) -> Vec<ModelMessage> {
    let at = match placement {
        Placement::End => messages.len(),
        Placement::AfterSystem => messages.iter().take_while(|m| m.role == Role::System).count(),
        Placement::LastUser => match messages.iter().rposition(|m| m.role == Role::User) {
            Some(i) => {
                messages[i] = with_text_part(&messages[i], context);
                return messages;
            }
            None => {
                messages.push(ModelMessage::text(Role::User, context));
                return messages;
            }
        },
    };
    messages.insert(at, ModelMessage::text(Role::System, context));
    messages
}
