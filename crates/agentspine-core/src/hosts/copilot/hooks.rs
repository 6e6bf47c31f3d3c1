//! GitHub Copilot CLI's hook payloads. An event configured under its
//! camelCase name (`postToolUse`) gets a payload that names no event:
//! only the fields it carries tell which it is (measured on 1.0.102,
//! tests/e2e/COPILOT-MEASURED.md, "Payloads"). A Claude-style name
//! (`PostToolUse`) gets `hook_event_name`, and this is never asked.

/// The event of a payload that names none, by the fields only that event
/// sends (`has` says whether the payload holds a field); `None` when it
/// is no camelCase Copilot payload (no `sessionId`) or matches no event.
pub fn unnamed_event(has: &dyn Fn(&str) -> bool) -> Option<&'static str> {
    if !has("sessionId") {
        return None;
    }
    Some(if has("toolResult") {
        "postToolUse"
    } else if has("toolName") && has("error") {
        "postToolUseFailure"
    } else if has("toolName") {
        "preToolUse"
    } else if has("transformedPrompt") {
        "userPromptTransformed"
    } else if has("prompt") {
        "userPromptSubmitted"
    } else if has("initialPrompt") || has("source") {
        "sessionStart"
    } else if has("stopReason") {
        "agentStop"
    } else if has("reason") {
        "sessionEnd"
    } else {
        return None;
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event_of(fields: &[&str]) -> Option<&'static str> {
        unnamed_event(&|field| fields.contains(&field))
    }

    #[test]
    fn each_event_is_told_by_the_fields_only_it_sends() {
        let id = "sessionId";
        assert_eq!(event_of(&[id, "cwd", "toolName", "toolArgs", "toolResult"]), Some("postToolUse"));
        assert_eq!(event_of(&[id, "cwd", "toolName", "toolArgs", "error"]), Some("postToolUseFailure"));
        assert_eq!(event_of(&[id, "cwd", "toolName", "toolArgs"]), Some("preToolUse"));
        assert_eq!(event_of(&[id, "cwd", "prompt", "transformedPrompt"]), Some("userPromptTransformed"));
        assert_eq!(event_of(&[id, "cwd", "prompt"]), Some("userPromptSubmitted"));
        assert_eq!(event_of(&[id, "cwd", "source", "initialPrompt"]), Some("sessionStart"));
        assert_eq!(event_of(&[id, "cwd", "source"]), Some("sessionStart"));
        assert_eq!(event_of(&[id, "cwd", "stopReason"]), Some("agentStop"));
        assert_eq!(event_of(&[id, "cwd", "reason"]), Some("sessionEnd"));
    }

    #[test]
    fn a_payload_without_session_id_or_an_event_s_fields_is_none() {
        assert_eq!(event_of(&["session_id", "cwd", "toolName", "toolResult"]), None);
        assert_eq!(event_of(&["sessionId", "cwd"]), None);
        assert_eq!(event_of(&[]), None);
    }
}
