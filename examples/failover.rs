//! The operator's failover and failback tool: where consumer groups resume when they move to
//! the other cluster of a flow, what the move would skip or read again, and committing it into
//! the groups that are idle there.
//!
//! `cargo run --example failover -- dry-run --config mm2.properties --flow A->B --groups 'billing-.*'`
//! moves groups over (A to B, from the checkpoints on B); with `--back`, it moves them back (B
//! to A, from their commits on B's replica topics and the A->B flow's offset syncs).
//! docs/FAILOVER.md walks through both.

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use mm2_checkpoint::failback::{
    commit_failback_offsets, failback_report, translate_offsets_back, FailbackOffsets, ForwardFlow,
};
use mm2_checkpoint::remote_cluster_utils::{
    commit_translated_offsets, failover_report, translate_offsets, CommitOutcome, CommitReport,
    FailoverReport, GroupSelector, TranslatedOffsets,
};
use mm2_checkpoint::MirrorCheckpointConfig;
use mm2_checkpoint::ReplicationPolicy;

const USAGE: &str = "\
usage: failover COMMAND --config FILE [--flow A->B] [--back] GROUPS [--timeout-seconds N]

Moves consumer groups between the two clusters of a flow A->B: over (A to B, from the
checkpoints the flow wrote on B) or, with --back, back (B to A, from the groups' commits on
B's replica topics, translated with the flow's offset syncs).

commands:
  translate   print where each group resumes on the other cluster
  dry-run     also print, per partition, its current offset there and what the move would
              skip or read again, and whether the group is already caught up
  commit      commit the translated offsets into the groups that are idle on the other
              cluster (absent or without members; never backwards), and print each outcome

options:
  --config FILE        the flow's MM2 properties (dedicated mm2.properties or connector style)
  --flow A->B          the flow, when the file enables more than one
  --back               fail back (B to A) instead of over (A to B)
  --groups REGEX       the groups whose whole id matches (MM2's `groups` syntax)
  --group ID           one group
  --group-list A,B     a comma-separated list of groups
  --timeout-seconds N  the bound of each step (default 30)
";

/// What the command line asked for.
#[derive(Debug)]
struct Args {
    command: String,
    config: String,
    flow: Option<(String, String)>,
    back: bool,
    groups: GroupSelector,
    timeout: Duration,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Args, String> {
    let mut args = args.into_iter();
    let command = args.next().ok_or("a command is needed")?;
    if !matches!(command.as_str(), "translate" | "dry-run" | "commit") {
        return Err(format!("unknown command `{command}`"));
    }
    let (mut config, mut flow, mut back, mut groups) = (None, None, false, None);
    let mut timeout = Duration::from_secs(30);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        let selector = |parsed: Result<GroupSelector, _>| {
            parsed.map_err(|e: mm2_checkpoint::ConfigError| e.to_string())
        };
        let chosen = match arg.as_str() {
            "--config" => {
                config = Some(value("--config")?);
                None
            }
            "--flow" => {
                let text = value("--flow")?;
                let (a, b) = text
                    .split_once("->")
                    .filter(|(a, b)| !a.is_empty() && !b.is_empty())
                    .ok_or_else(|| format!("--flow `{text}`: write it as SOURCE->TARGET"))?;
                flow = Some((a.to_string(), b.to_string()));
                None
            }
            "--back" => {
                back = true;
                None
            }
            "--groups" => Some(selector(GroupSelector::regex(&value("--groups")?))?),
            "--group" => Some(selector(GroupSelector::parse_one(&value("--group")?))?),
            "--group-list" => Some(selector(GroupSelector::parse_list(&value(
                "--group-list",
            )?))?),
            "--timeout-seconds" => {
                let text = value("--timeout-seconds")?;
                let seconds: u64 = text
                    .parse()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or_else(|| format!("--timeout-seconds `{text}`: a positive number"))?;
                timeout = Duration::from_secs(seconds);
                None
            }
            other => return Err(format!("unknown argument `{other}`")),
        };
        if let Some(chosen) = chosen {
            if groups.replace(chosen).is_some() {
                return Err("give one of --groups, --group, --group-list".into());
            }
        }
    }
    Ok(Args {
        command,
        config: config.ok_or("--config is needed")?,
        flow,
        back,
        groups: groups.ok_or("the groups are needed: --groups, --group or --group-list")?,
        timeout,
    })
}

/// The flow's configuration, read as the checkpoint job reads it (`--flow` names the flow
/// when several are enabled).
fn load_config(args: &Args) -> Result<MirrorCheckpointConfig, String> {
    let file = &args.config;
    let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
    let (mut props, mut warnings) =
        MirrorCheckpointConfig::properties_from_text(&text).map_err(|e| format!("{file}: {e}"))?;
    if let Some((source, target)) = &args.flow {
        props.insert("source.cluster.alias".into(), source.clone());
        props.insert("target.cluster.alias".into(), target.clone());
        // A flow named here runs whatever its file says about enabling it.
        if props.contains_key("clusters") {
            props.insert(format!("{source}->{target}.enabled"), "true".into());
        }
    }
    let (config, more) = MirrorCheckpointConfig::from_properties(
        props.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
    .map_err(|e| format!("{file}: {e}"))?;
    warnings.extend(more);
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(config)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv.iter().any(|a| a == "--help" || a == "-h") {
        print!("{USAGE}");
        return if argv.is_empty() {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let args = match parse_args(argv) {
        Ok(args) => args,
        Err(e) => {
            eprintln!("failover: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    match load_config(&args).and_then(|config| run(&args, &config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("failover: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args, config: &MirrorCheckpointConfig) -> Result<(), String> {
    let (a, b) = (&config.source_cluster_alias, &config.target_cluster_alias);
    if args.back {
        let flow = ForwardFlow::of(config).map_err(|e| e.to_string())?;
        let back = translate_offsets_back(&flow, &args.groups, args.timeout)
            .map_err(|e| format!("translating back from `{b}`: {e}"))?;
        println!(
            "failback {b}->{a}: {} groups translated from their commits on `{b}` with {} offset \
             syncs of `{}` ({} malformed, skipped); re-reads at most {}",
            back.groups.len(),
            back.syncs_read,
            back.offset_syncs_topic,
            back.malformed_syncs,
            back.total_rereads_at_most()
        );
        print_failback(&back);
        match args.command.as_str() {
            "dry-run" => {
                let report = failback_report(&flow, &back, args.timeout)
                    .map_err(|e| format!("reading the groups on `{a}`: {e}"))?;
                print_report(&report, a);
            }
            "commit" => {
                let report = commit_failback_offsets(&flow, &back, args.timeout)
                    .map_err(|e| format!("committing on `{a}`: {e}"))?;
                print_commits(&report, a)?;
            }
            _ => {}
        }
    } else {
        let policy = ReplicationPolicy::configure(
            &config.replication_policy_class,
            &config.policy_properties(),
        )
        .map_err(|e| e.to_string())?;
        let target: BTreeMap<String, String> = config.checkpoints_consumer_config();
        let over = translate_offsets(&target, a, &policy, &args.groups, args.timeout)
            .map_err(|e| format!("translating onto `{b}`: {e}"))?;
        println!(
            "failover {a}->{b}: {} groups translated from {} records of `{}` ({} skipped)",
            over.groups.len(),
            over.records_read,
            over.checkpoints_topic,
            over.records_skipped()
        );
        print_failover(&over);
        let admin = config.target_admin_config();
        match args.command.as_str() {
            "dry-run" => {
                let report = failover_report(&admin, &over, args.timeout)
                    .map_err(|e| format!("reading the groups on `{b}`: {e}"))?;
                print_report(&report, b);
            }
            "commit" => {
                let report = commit_translated_offsets(&admin, &over, args.timeout)
                    .map_err(|e| format!("committing on `{b}`: {e}"))?;
                print_commits(&report, b)?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn print_failover(over: &TranslatedOffsets) {
    for (group, offsets) in &over.groups {
        for (tp, t) in offsets {
            println!(
                "  {group} {tp}: resume at {} (committed {} on the source)",
                t.offset, t.upstream_offset
            );
        }
    }
}

fn print_failback(back: &FailbackOffsets) {
    for (group, offsets) in &back.groups {
        for (tp, o) in offsets {
            println!(
                "  {group} {tp}: resume at {} (committed {} on the replica; re-reads at most {})",
                o.offset, o.replica_offset, o.rereads_at_most
            );
        }
    }
    for u in &back.untranslated {
        println!(
            "  {} {}: committed {}, NOT TRANSLATED: {}",
            u.group,
            u.replica_partition,
            u.replica_offset,
            match u.reason {
                mm2_checkpoint::ReverseTranslation::NoOffsetSync =>
                    "the flow has no offset sync for the partition",
                mm2_checkpoint::ReverseTranslation::OlderThanEveryKeptSync =>
                    "every kept offset sync is after the commit",
                _ => "the offset syncs were not read to their end",
            }
        );
    }
}

fn print_report(report: &FailoverReport, cluster: &str) {
    let mut groups: Vec<&str> = report.partitions.iter().map(|p| p.group.as_str()).collect();
    groups.dedup();
    for p in &report.partitions {
        let current = p
            .current_offset
            .map_or_else(|| "no commit".to_string(), |c| c.to_string());
        println!(
            "  {} {} on `{cluster}`: now {current}, translated {}: skips {}, re-reads {}",
            p.group, p.topic_partition, p.translated_offset, p.skipped, p.reread
        );
    }
    for group in groups {
        let state = if report.caught_up(group) {
            "caught up (at or past the translation)"
        } else {
            "not caught up"
        };
        println!("  {group} on `{cluster}`: {state}");
    }
    println!(
        "dry run on `{cluster}`: {} partitions, skips {}, re-reads {}",
        report.partitions.len(),
        report.total_skipped(),
        report.total_reread()
    );
}

fn print_commits(report: &CommitReport, cluster: &str) -> Result<(), String> {
    for p in &report.partitions {
        let outcome = match &p.outcome {
            CommitOutcome::Written(why) => format!("committed ({})", why.as_str()),
            CommitOutcome::Left(why) => format!("left alone ({})", why.as_str()),
            CommitOutcome::Failed(e) => format!("FAILED: {e}"),
        };
        println!(
            "  {} {} on `{cluster}`: {} {outcome}",
            p.group, p.topic_partition, p.offset
        );
    }
    println!(
        "commit on `{cluster}`: {} committed, {} left alone, {} failed",
        report.written(),
        report.left(),
        report.failed()
    );
    match report.failed() {
        0 => Ok(()),
        n => Err(format!("{n} partitions were not committed on `{cluster}`")),
    }
}
