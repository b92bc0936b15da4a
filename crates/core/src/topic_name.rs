//! Kafka's rules for a legal topic name (the broker's `Topic.validate`): only ASCII letters,
//! digits, `.`, `_` and `-`; at most 249 characters; not `.` or `..`. A name that breaks them is
//! refused by CreateTopics with `INVALID_TOPIC_EXCEPTION`, so names this library derives (the
//! internal topics, from the cluster aliases) are checked with the configuration instead.

/// The longest legal topic name.
pub const MAX_TOPIC_NAME_LEN: usize = 249;

/// Why `name` is not a legal Kafka topic name, or `None` when it is.
pub fn topic_name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("a topic name must not be empty".into());
    }
    if name == "." || name == ".." {
        return Some(format!("`{name}` is not allowed as a topic name"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
    {
        return Some(format!(
            "{c:?} is not allowed in a topic name (Kafka allows only ASCII letters, digits, `.`, `_` and `-`)"
        ));
    }
    if name.len() > MAX_TOPIC_NAME_LEN {
        return Some(format!(
            "a topic name has at most {MAX_TOPIC_NAME_LEN} characters, `{name}` has {}",
            name.len()
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::topic_name_problem;

    #[test]
    fn kafka_topic_name_rules() {
        for ok in ["a", "A.b_c-9", "...", "mm2-offset-syncs.t.internal"] {
            assert_eq!(topic_name_problem(ok), None, "{ok}");
        }
        assert_eq!(topic_name_problem(&"x".repeat(249)), None);
        for bad in ["", ".", "..", "s x", "a/b", "é", "a:b", &"x".repeat(250)] {
            assert!(topic_name_problem(bad).is_some(), "{bad:?}");
        }
        assert!(topic_name_problem("s x.checkpoints.internal")
            .unwrap()
            .contains("' '"));
    }
}
