//! Live group discovery: list the source's consumer groups, keep those the filters accept and
//! that have a commit on a replicated topic, and adopt or drop groups without a restart.

use std::collections::BTreeSet;

use super::checkpoint_cycle::fetch_committed;
use super::decisions::{self, Refreshed};
use super::faults::ErrorPoint;
use super::group_fetch_failures::{classify, FetchJob, RunFailures};
use super::Shared;
use crate::runtime::scheduler::JobError;
use mm2_checkpoint_core::filters::nothing_matched;
use mm2_checkpoint_kafka::admin::Admin;

/// MM2's group refresh, live: list the groups, keep those passing the group filter and hashed to
/// this task, and of those keep the ones with a committed offset on a replicated topic. Only
/// groups not yet adopted have their offsets fetched here; adopted groups are re-checked by every
/// checkpoint cycle (which fetches their offsets anyway), so a steady group costs no extra
/// request per refresh. Adopting or dropping a group needs no restart and no store reload.
///
/// Failures are classified as everywhere (kafka/failure.rs): one that retrying can fix (the
/// cluster unreachable, slow, a coordinator moving) is transient, and the refresh runs again at
/// its next time, the reason visible in the task's retry reason meanwhile; one it cannot fix
/// (authentication, authorization, a setting) is fatal and ends the task. One group's offsets
/// are classified the same way (group_fetch_failures.rs): denied by that group's ACL, the group
/// is skipped until a later refresh; retriable, it is tried again at the next refresh with its
/// reason in the retry reason meanwhile; anything else retrying cannot fix ends the task.
pub(super) fn discover_groups(shared: &Shared, admin: &mut Admin) -> Result<(), JobError> {
    let listed = match shared.faults.injected_error(ErrorPoint::GroupListing) {
        Some(injected) => Err(admin.listing_failed(&injected)),
        None => admin.list_groups(),
    }?;
    let c = &shared.config;
    let group_miss = nothing_matched(
        &c.group_filter,
        &format!("consumer groups on `{}`", c.source_cluster_alias),
        listed.iter().map(String::as_str),
        |g| c.group_filter.should_replicate_group(g),
    );
    let (candidates, unknown) = decisions::discovery_candidates(
        listed,
        |g| shared.should_handle_group(g),
        &shared.groups_snapshot(),
    );
    let mut newly_adopted = BTreeSet::new();
    // Topics the candidate groups committed offsets on, to tell a topic filter that matches
    // none of them.
    let mut committed_topics = BTreeSet::new();
    if !unknown.is_empty() {
        let fetched = fetch_committed(shared, std::slice::from_mut(admin), &unknown);
        shared.note_fetches_in_flight(std::slice::from_ref(admin));
        let mut fetched = fetched?;
        let injected = shared
            .faults
            .injected_error(ErrorPoint::DiscoveryGroupOffsets);
        if let (Some(injected), Some(first)) = (injected, fetched.first_mut()) {
            first.1 = Err(injected);
        }
        let mut failures = RunFailures::default();
        for (group, result) in fetched {
            match result {
                Ok(offsets) => {
                    committed_topics.extend(
                        offsets
                            .iter()
                            .filter(|(_, o)| o.is_some())
                            .map(|(tp, _)| tp.topic.clone()),
                    );
                    if shared.has_replicated_commit(&offsets) {
                        newly_adopted.insert(group);
                    } else {
                        log::debug!(
                            "group `{group}` has no committed offset on a replicated topic; not checkpointing it"
                        );
                    }
                }
                Err(e) => {
                    // One group's failure, even a denied ACL on that group alone, skips that
                    // group and leaves the others checkpointing, as Java's task does; the
                    // whole-cluster failures (listing, authentication) end the task.
                    let failure = classify(&c.source_cluster_alias, &group, &e);
                    failures.note(FetchJob::Discovery, &shared.group_retries, &group, failure)?;
                }
            }
        }
        shared.group_retries.finish(FetchJob::Discovery, failures);
    } else {
        shared
            .group_retries
            .finish(FetchJob::Discovery, RunFailures::default());
    }
    let mut current = shared
        .groups
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Decided against the list as it is now: a cycle may have dropped a group meanwhile.
    let Refreshed { groups, gone } =
        decisions::refreshed_groups(candidates, &current, &newly_adopted);
    let topic_miss = if groups.is_empty() {
        nothing_matched(
            &c.topic_filter,
            &format!(
                "topics the groups on `{}` committed offsets on",
                c.source_cluster_alias
            ),
            committed_topics.iter().map(String::as_str),
            |t| c.topic_filter.should_replicate_topic(t),
        )
    } else {
        None
    };
    if *current != groups {
        log::info!(
            "now checkpointing {} (was {}; {} adopted, {} dropped)",
            decisions::count(groups.len(), "group", "groups"),
            current.len(),
            newly_adopted.len(),
            gone.len()
        );
        *current = groups;
        drop(current);
        shared.forget_groups(&gone);
    } else {
        drop(current);
    }
    // Logged outside the groups lock: a log callback may read the task's stats.
    shared.publish_filter_misses(group_miss, topic_miss);
    Ok(())
}
