//! The JSON a hook prints: the host's own output shape. What goes in it
//! (the blocks, fitted under the host's cap) is core's
//! ([`agentspine_core::context`]).

use agentspine_core::hosts::HookOutput;
use serde::Serialize;

/// What the hosts read on stdout: `hookSpecificOutput` with the event and
/// the context, and `systemMessage`, which the host shows the user and not
/// the model; nothing else (never a permission decision).
#[derive(Debug, Serialize)]
pub struct Output<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hook_specific_output: Option<Specific<'a>>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
    /// Kimi Code's field: the text it sends on to the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
    /// GitHub Copilot CLI's field: the text it sends on to the model.
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    additional_context: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'a str,
    additional_context: &'a str,
}

impl<'a> Output<'a> {
    /// The output for `event` adding `context`.
    pub fn new(event: &'a str, context: &'a str) -> Output<'a> {
        Output {
            hook_specific_output: Some(Specific { hook_event_name: event, additional_context: context }),
            system_message: None,
            message: None,
            additional_context: None,
        }
    }

    /// The output adding `context` in the shape `shape` (the host's
    /// profile's).
    pub fn shaped(shape: HookOutput, event: &'a str, context: &'a str) -> Output<'a> {
        match shape {
            HookOutput::Specific => Output::new(event, context),
            HookOutput::Message => Output { message: Some(context), ..Output::empty() },
            HookOutput::AdditionalContext => Output { additional_context: Some(context), ..Output::empty() },
        }
    }

    /// The output with no context, only `message` for the user.
    pub fn message_only(message: &'a str) -> Output<'a> {
        Output { system_message: Some(message), ..Output::empty() }
    }

    /// The output with nothing in it.
    fn empty() -> Output<'a> {
        Output { hook_specific_output: None, system_message: None, message: None, additional_context: None }
    }

    /// The output with `message` for the user as well, when there is one.
    pub fn with_system_message(mut self, message: Option<&'a str>) -> Output<'a> {
        self.system_message = message;
        self
    }

    /// One line of JSON.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).expect("strings always serialize");
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_has_the_event_and_the_context_only() {
        assert_eq!(
            Output::new("PreToolUse", "x\n\"y\"").to_line(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"x\\n\\\"y\\\"\"}}\n"
        );
        assert_eq!(
            Output::new("SessionStart", "c").with_system_message(Some("m")).to_line(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"c\"},\"systemMessage\":\"m\"}\n"
        );
        assert_eq!(Output::message_only("m").to_line(), "{\"systemMessage\":\"m\"}\n");
        assert_eq!(
            Output::shaped(HookOutput::Message, "UserPromptSubmit", "c\n").to_line(),
            "{\"message\":\"c\\n\"}\n"
        );
        assert_eq!(
            Output::shaped(HookOutput::AdditionalContext, "postToolUse", "c\n").to_line(),
            "{\"additionalContext\":\"c\\n\"}\n"
        );
    }
}
