//! MM2's default topic and group filters: an include and an exclude list of regexes.
//!
//! Java joins each list with `|` into one pattern that must match the *whole* name
//! (`Matcher.matches`), and an empty list has no pattern at all, so it matches nothing
//! (`groups=` selects no group). Rust's `regex` has no whole-match call, so the joined pattern
//! is anchored as `^(?:…)$`. Java-only syntax (look-around, back-references) is rejected with
//! the key that held it.

use regex::Regex;

use crate::error::ConfigError;

/// One comma-separated regex list, compiled into a single whole-name matcher.
#[derive(Clone, Debug)]
pub struct PatternList {
    pattern: Option<Regex>,
    /// The list as written (items joined by `, `), to name the filter in messages.
    written: String,
}

impl PatternList {
    /// Compiles `items` (already split, see [`split_list`]); `key` names the setting in errors.
    pub fn compile(key: &str, items: &[String]) -> Result<Self, ConfigError> {
        let written = items.join(", ");
        if items.is_empty() {
            return Ok(PatternList {
                pattern: None,
                written,
            });
        }
        let joined = items.join("|");
        let anchored = format!("^(?:{joined})$");
        let pattern = Regex::new(&anchored)
            .map_err(|e| ConfigError::new(key, format!("invalid regex list `{joined}`: {e}")))?;
        Ok(PatternList {
            pattern: Some(pattern),
            written,
        })
    }

    /// True when the whole `name` matches one of the list's regexes; never for an empty list.
    pub fn matches(&self, name: &str) -> bool {
        self.pattern.as_ref().is_some_and(|p| p.is_match(name))
    }
}

/// The warning for a filter that matched none of the `seen` names it was offered (`what` names
/// them, e.g. "consumer groups on `source`"), or `None` when something matched or nothing was
/// offered (an empty cluster is not the filter's fault).
pub fn nothing_matched<'a>(
    filter: &dyn std::fmt::Display,
    what: &str,
    seen: impl IntoIterator<Item = &'a str>,
    matches: impl Fn(&str) -> bool,
) -> Option<String> {
    let mut count = 0usize;
    for name in seen {
        if matches(name) {
            return None;
        }
        count += 1;
    }
    (count > 0).then(|| format!("{filter} matched none of the {what} ({count} seen)"))
}

/// Splits a Connect `LIST` value: on commas, each item trimmed; an empty string is an empty list.
pub fn split_list(value: &str) -> Vec<String> {
    if value.trim().is_empty() {
        return Vec::new();
    }
    value.split(',').map(|s| s.trim().to_string()).collect()
}

/// `DefaultTopicFilter`: replicate a topic when it is included and not excluded.
#[derive(Clone, Debug)]
pub struct TopicFilter {
    include: PatternList,
    exclude: PatternList,
}

/// MM2's default for `topics`.
pub const DEFAULT_TOPICS: &str = ".*";
/// MM2's default for `topics.exclude`.
pub const DEFAULT_TOPICS_EXCLUDE: &str = r".*[\-\.]internal, .*\.replica, __.*";
/// MM2's default for `groups`.
pub const DEFAULT_GROUPS: &str = ".*";
/// MM2's default for `groups.exclude`.
pub const DEFAULT_GROUPS_EXCLUDE: &str = "console-consumer-.*, connect-.*, __.*";

impl TopicFilter {
    /// Builds the filter from the raw `topics` and `topics.exclude` values.
    pub fn new(topics: &str, topics_exclude: &str) -> Result<Self, ConfigError> {
        Ok(TopicFilter {
            include: PatternList::compile("topics", &split_list(topics))?,
            exclude: PatternList::compile("topics.exclude", &split_list(topics_exclude))?,
        })
    }

    /// `shouldReplicateTopic`: included and not excluded.
    pub fn should_replicate_topic(&self, topic: &str) -> bool {
        self.include.matches(topic) && !self.exclude.matches(topic)
    }
}

impl TopicFilter {
    /// The include and exclude lists as written (items joined by `, `).
    pub fn written(&self) -> (&str, &str) {
        (&self.include.written, &self.exclude.written)
    }
}

impl std::fmt::Display for TopicFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the topic filter (`topics = {}`, `topics.exclude = {}`)",
            self.include.written, self.exclude.written
        )
    }
}

impl Default for TopicFilter {
    /// The filter MM2 uses when neither key is set.
    fn default() -> Self {
        match TopicFilter::new(DEFAULT_TOPICS, DEFAULT_TOPICS_EXCLUDE) {
            Ok(filter) => filter,
            Err(e) => unreachable!("built-in topic filter defaults compile: {e}"),
        }
    }
}

/// `DefaultGroupFilter`: checkpoint a group when it is included and not excluded.
#[derive(Clone, Debug)]
pub struct GroupFilter {
    include: PatternList,
    exclude: PatternList,
}

impl GroupFilter {
    /// Builds the filter from the raw `groups` and `groups.exclude` values.
    pub fn new(groups: &str, groups_exclude: &str) -> Result<Self, ConfigError> {
        Ok(GroupFilter {
            include: PatternList::compile("groups", &split_list(groups))?,
            exclude: PatternList::compile("groups.exclude", &split_list(groups_exclude))?,
        })
    }

    /// `shouldReplicateGroup`: included and not excluded.
    pub fn should_replicate_group(&self, group: &str) -> bool {
        self.include.matches(group) && !self.exclude.matches(group)
    }
}

impl GroupFilter {
    /// The include and exclude lists as written (items joined by `, `).
    pub fn written(&self) -> (&str, &str) {
        (&self.include.written, &self.exclude.written)
    }
}

impl std::fmt::Display for GroupFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the group filter (`groups = {}`, `groups.exclude = {}`)",
            self.include.written, self.exclude.written
        )
    }
}

impl Default for GroupFilter {
    /// The filter MM2 uses when neither key is set.
    fn default() -> Self {
        match GroupFilter::new(DEFAULT_GROUPS, DEFAULT_GROUPS_EXCLUDE) {
            Ok(filter) => filter,
            Err(e) => unreachable!("built-in group filter defaults compile: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_topic_filter_excludes_internal_replica_and_double_underscore_topics() {
        let f = TopicFilter::default();
        for yes in ["orders", "a.b", "internal", "x_internal"] {
            assert!(f.should_replicate_topic(yes), "{yes}");
        }
        for no in [
            "a.internal",
            "a-internal",
            "mm2-offset-syncs.B.internal",
            "t.replica",
            "__consumer_offsets",
        ] {
            assert!(!f.should_replicate_topic(no), "{no}");
        }
    }

    #[test]
    fn default_group_filter_excludes_console_connect_and_internal_groups() {
        let f = GroupFilter::default();
        assert!(f.should_replicate_group("payments"));
        for no in ["console-consumer-123", "connect-mirror", "__private"] {
            assert!(!f.should_replicate_group(no), "{no}");
        }
    }

    #[test]
    fn patterns_must_match_the_whole_name() {
        let f = TopicFilter::new("orders", "").unwrap();
        assert!(f.should_replicate_topic("orders"));
        assert!(!f.should_replicate_topic("orders2"));
        assert!(!f.should_replicate_topic("my-orders"));
    }

    #[test]
    fn alternation_inside_an_item_stays_anchored() {
        let f = TopicFilter::new("a|b, c", "").unwrap();
        for yes in ["a", "b", "c"] {
            assert!(f.should_replicate_topic(yes));
        }
        assert!(!f.should_replicate_topic("ab"));
    }

    #[test]
    fn empty_include_list_matches_nothing() {
        let f = GroupFilter::new("", "").unwrap();
        assert!(!f.should_replicate_group("any"));
        assert!(!f.should_replicate_group(""));
    }

    #[test]
    fn exclude_wins_over_include() {
        let f = GroupFilter::new("g.*", "g2").unwrap();
        assert!(f.should_replicate_group("g1"));
        assert!(!f.should_replicate_group("g2"));
    }

    #[test]
    fn list_items_are_trimmed_and_empty_value_is_empty_list() {
        assert_eq!(split_list(" a , b,c "), vec!["a", "b", "c"]);
        assert!(split_list("").is_empty());
        assert!(split_list("   ").is_empty());
    }

    #[test]
    fn a_filter_matching_none_of_the_names_it_saw_is_reported_with_its_lists_and_the_count() {
        let f = GroupFilter::new("biling", "console-consumer-.*").unwrap();
        let report = |seen: &[&str]| {
            nothing_matched(&f, "consumer groups on `A`", seen.iter().copied(), |g| {
                f.should_replicate_group(g)
            })
        };
        assert_eq!(
            report(&["billing", "audit", "console-consumer-1"]).as_deref(),
            Some(
                "the group filter (`groups = biling`, `groups.exclude = console-consumer-.*`) \
                 matched none of the consumer groups on `A` (3 seen)"
            )
        );
        assert_eq!(report(&["audit", "biling"]), None);
        assert_eq!(report(&[]), None);
        let t = TopicFilter::new("orders", "").unwrap();
        let topics = nothing_matched(&t, "topics", ["payments"], |n| t.should_replicate_topic(n));
        assert_eq!(
            topics.as_deref(),
            Some(
                "the topic filter (`topics = orders`, `topics.exclude = `) matched none of the \
                 topics (1 seen)"
            )
        );
    }

    #[test]
    fn java_only_regex_syntax_is_rejected_with_its_key() {
        let err = TopicFilter::new("(?!x).*", "").unwrap_err();
        assert_eq!(err.key, "topics");
        let err = GroupFilter::new(".*", "(a)\\1").unwrap_err();
        assert_eq!(err.key, "groups.exclude");
    }
}
