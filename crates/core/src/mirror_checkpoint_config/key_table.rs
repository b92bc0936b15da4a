//! The documented table of every key: type, default and parity with Java MM2. It is the source
//! of docs/CONFIGURATION.md ([`configuration_markdown`]); tests check that it lists exactly
//! the keys the reader reads and that each default is the one the reader applies.

use super::keys::{self, OTHER_MM2_KEYS, OTHER_MM2_PREFIXES, REMOVED_KEYS};
use crate::secrets::HIDDEN;

/// How a key relates to Java MM2.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parity {
    /// Same name, type, default and meaning as in MM2.
    Same,
    /// Same key, but only MM2's default value is accepted (the class is built in).
    DefaultOnly,
    /// Not an MM2 key: an extension of this library.
    OursOnly,
}

impl Parity {
    fn text(self) -> &'static str {
        match self {
            Parity::Same => "same",
            Parity::DefaultOnly => "same key; only MM2's default value is accepted",
            Parity::OursOnly => "ours only",
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct KeyDoc {
    /// The connector-style key (`A->B.<key>` or `<key>` in dedicated mode).
    pub key: &'static str,
    /// Its type, in MM2's words.
    pub kind: &'static str,
    /// The default as a value the key accepts, or `None` when it has none or is derived.
    pub default: Option<&'static str>,
    /// What is used when `default` is `None`.
    pub default_note: &'static str,
    /// Parity with MM2.
    pub parity: Parity,
    /// What it does.
    pub doc: &'static str,
}

const fn row(
    key: &'static str,
    kind: &'static str,
    default: Option<&'static str>,
    default_note: &'static str,
    parity: Parity,
    doc: &'static str,
) -> KeyDoc {
    KeyDoc {
        key,
        kind,
        default,
        default_note,
        parity,
        doc,
    }
}

use Parity::{DefaultOnly, OursOnly, Same};

/// Every key the checkpoint configuration reads, in the order of docs/CONFIGURATION.md.
pub const KEY_TABLE: &[KeyDoc] = &[
    row(keys::SOURCE_CLUSTER_ALIAS, "string", None, "required (dedicated mode: from the enabled flow)", Same, "Alias of the cluster checkpoints are read from; names the checkpoints topic. Refused when that topic's name is not a legal Kafka topic name (only ASCII letters, digits, `.`, `_`, `-`; at most 249 characters; not `.` or `..`), e.g. `s x`, with an error naming the key, the topic and the rule (Java MM2 accepts it and then fails to create the topic)."),
    row(keys::TARGET_CLUSTER_ALIAS, "string", Some("target"), "", Same, "Alias of the cluster checkpoints are written to; names the offset-syncs topic when that topic lives on the source, and is refused like `source.cluster.alias` when that name is not legal."),
    row(keys::ENABLED, "boolean", Some("true"), "", Same, "Whether the flow runs (dedicated mode: `false` unless `A->B.enabled` or `enabled` says otherwise)."),
    row(keys::EMIT_CHECKPOINTS_ENABLED, "boolean", Some("true"), "", Same, "Emit checkpoints."),
    row(keys::EMIT_CHECKPOINTS_INTERVAL, "long (seconds)", Some("60"), "", Same, "Period of checkpoint emission; negative disables it."),
    row(keys::SYNC_GROUP_OFFSETS_ENABLED, "boolean", Some("false"), "", Same, "Write translated offsets into the target's consumer groups."),
    row(keys::SYNC_GROUP_OFFSETS_INTERVAL, "long (seconds)", Some("60"), "", Same, "Period of the group offset sync."),
    row(keys::REFRESH_GROUPS_ENABLED, "boolean", Some("true"), "", Same, "Rediscover consumer groups periodically."),
    row(keys::REFRESH_GROUPS_INTERVAL, "long (seconds)", Some("600"), "", Same, "Period of group rediscovery."),
    row(keys::GROUPS, "list of regexes", Some(".*"), "", Same, "Consumer groups to checkpoint."),
    row(keys::GROUPS_EXCLUDE, "list of regexes", Some("console-consumer-.*, connect-.*, __.*"), "", Same, "Consumer groups never checkpointed."),
    row(keys::GROUP_FILTER_CLASS, "class", Some("org.apache.kafka.connect.mirror.DefaultGroupFilter"), "", DefaultOnly, "Group filter."),
    row(keys::TOPICS, "list of regexes", Some(".*"), "", Same, "Upstream topics whose offsets are checkpointed."),
    row(keys::TOPICS_EXCLUDE, "list of regexes", Some(".*[\\-\\.]internal, .*\\.replica, __.*"), "", Same, "Topics never checkpointed."),
    row(keys::TOPIC_FILTER_CLASS, "class", Some("org.apache.kafka.connect.mirror.DefaultTopicFilter"), "", DefaultOnly, "Topic filter."),
    row(keys::OFFSET_SYNCS_TOPIC_LOCATION, "`source` or `target`", Some("source"), "", Same, "Cluster holding the offset-syncs topic."),
    row(keys::EMIT_OFFSET_SYNCS_ENABLED, "boolean", Some("true"), "", Same, "Must stay `true`: checkpoints are translated through offset syncs."),
    row(keys::CHECKPOINTS_TOPIC_REPLICATION_FACTOR, "short", Some("3"), "", Same, "Replication factor of the checkpoints topic (-1: broker default)."),
    row(keys::OFFSET_SYNCS_TOPIC_REPLICATION_FACTOR, "short", Some("3"), "", Same, "Replication factor of the offset-syncs topic (-1: broker default)."),
    row(keys::CONSUMER_POLL_TIMEOUT_MS, "long (ms)", Some("1000"), "", Same, "Poll granularity."),
    row(keys::ADMIN_TIMEOUT_MS, "long (ms)", Some("60000"), "", Same, "Time allowed to admin requests."),
    row(keys::REPLICATION_POLICY_CLASS, "class", Some("org.apache.kafka.connect.mirror.DefaultReplicationPolicy"), "", DefaultOnly, "Replication policy; `IdentityReplicationPolicy` is also accepted."),
    row(keys::REPLICATION_POLICY_SEPARATOR, "string (not trimmed)", None, "`.`", Same, "Separator of remote and internal topic names."),
    row(keys::INTERNAL_TOPIC_SEPARATOR_ENABLED, "boolean", Some("true"), "", Same, "Whether internal topic names use the separator."),
    row(keys::FORWARDING_ADMIN_CLASS, "class", Some("org.apache.kafka.clients.admin.ForwardingAdmin"), "", DefaultOnly, "Admin client class."),
    row(keys::TASK_ASSIGNED_GROUPS, "list", None, "all groups the filter selects", Same, "Groups this task checkpoints (set by MM2's connector for its tasks)."),
    row(keys::TASK_INDEX, "int", None, "none", Same, "This task's number among its connector's tasks."),
    row(keys::TASK_COUNT, "int", None, "none", OursOnly, "How many processes split the groups statically; requires `task.index`."),
    row(keys::TASK_ASSIGNMENT, "`static` or `group`", Some("static"), "", OursOnly, "`group`: Kafka's group coordinator splits the groups over the live processes (docs/SCALE_OUT.md)."),
    row(keys::TASK_COORDINATION_GROUP_ID, "string", None, "`mm2-checkpoint-<source>-<target>`", OursOnly, "Coordination group of `task.assignment = group`."),
    row(keys::TASK_COORDINATION_TOPIC, "string", None, "`mm2-checkpoint-coordination.<source>.internal`", OursOnly, "Coordination topic of `task.assignment = group`."),
    row(keys::TASK_COORDINATION_PARTITIONS, "int", None, "64", OursOnly, "Partitions of the coordination topic."),
    row(keys::OFFSET_LAG_MAX, "long", Some("100"), "", Same, "How stale an offset sync may get before a new one is written."),
    row(keys::GROUP_OFFSETS_SOURCE, "`poll` or `consumer-offsets-topic`", Some("poll"), "", OursOnly, "Where the groups' committed offsets come from, for checkpoints and the group offset sync. `poll`: ask the source for every group's offsets once per interval, as MM2 does. `consumer-offsets-topic`: read the source's `__consumer_offsets` as a stream and checkpoint within a second of each commit; needs READ and DESCRIBE on that topic, else the task falls back to `poll` with a warning (docs/USER_GUIDE.md \"Offsets source\")."),
    row(keys::EMIT_REVERSE_CHECKPOINTS_ENABLED, "boolean", Some("false"), "", OursOnly, "Reverse checkpoints, for failback (KIP-1098's proposal): in the task of the flow B->A, a group's commit on B's replica of one of A's topics (`A.orders`) is translated back to that topic (`orders` on A) with the A->B flow's offset syncs, written as a checkpoint on A and, with `sync.group.offsets.enabled`, committed into the group when it is idle there. Never ahead: a consumer failing back skips nothing. Refused under `IdentityReplicationPolicy` (docs/FAILOVER.md)."),
    row(keys::REVERSE_OFFSET_SYNCS_TOPIC_LOCATION, "`source` or `target`", Some("source"), "", OursOnly, "The A->B flow's own `offset-syncs.topic.location`, which says where reverse checkpoints read its offset syncs: `source` (on A, this task's target: `mm2-offset-syncs.B.internal`) or `target` (on B, this task's source: `mm2-offset-syncs.A.internal`)."),
    row(keys::STATISTICS_INTERVAL_MS, "int (ms)", Some("0"), "", OursOnly, "Period of the statistics callback (C `mm_task_set_stats_cb`, Rust `CheckpointTask::set_metrics_listener`): one JSON document of the task's metrics per period (docs/OPERATIONS.md); 0 turns it off. At most 86400000, as in librdkafka."),
];

/// A key's type as Kafka's `ConfigDef` names it, for the Connect connector's declaration: the
/// kinds the table writes in MM2's words, mapped onto `ConfigDef.Type` (class names and the
/// two-valued choices are strings, which the library judges).
/// The clients a [`ClientDefault`] is given to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientUse {
    /// A consumer reading an internal topic to its end (offset syncs, checkpoints,
    /// `__consumer_offsets`): assigned its partitions, never a group member.
    Reader,
    /// An admin connection (a consumer-type handle: librdkafka's group APIs need one).
    Admin,
    /// A producer (checkpoints, offset syncs).
    Producer,
}

/// A librdkafka setting the library gives a client unless the user set it. The task's client
/// configs ([`MirrorCheckpointConfig`](super::MirrorCheckpointConfig)'s `*_config` methods, shown
/// by `describe`) carry these; the Kafka layer puts them into settings handed to it directly (the
/// failover and failback calls, which take librdkafka settings).
#[derive(Debug, Clone, Copy)]
pub struct ClientDefault {
    /// The clients it is given to.
    pub given_to: &'static [ClientUse],
    /// The librdkafka key.
    pub key: &'static str,
    /// The value; `<role>` stands for the client's role (as in its `client.id`).
    pub value: &'static str,
    /// Why it differs from librdkafka's default.
    pub why: &'static str,
}

/// Every librdkafka default the library changes; the user's setting always wins.
pub const CLIENT_DEFAULTS: &[ClientDefault] = &[
    ClientDefault {
        given_to: &[ClientUse::Reader, ClientUse::Admin],
        key: "group.id",
        value: "mm2-checkpoint-<role>",
        why: "librdkafka's consumer API and its group calls need a group handle; this group is \
              never joined and never committed to (a denied lookup of its coordinator is ignored)",
    },
    ClientDefault {
        given_to: &[ClientUse::Reader],
        key: "fetch.wait.max.ms",
        value: "100",
        why: "internal topics are small and reading them to their end dominates start-up: an \
              empty fetch does not wait librdkafka's 500 ms",
    },
    ClientDefault {
        given_to: &[ClientUse::Reader],
        key: "fetch.queue.backoff.ms",
        value: "10",
        why: "once librdkafka holds `queued.min.messages` fetched records it postpones the next \
              fetch by this much (1 s by default) even after the reader emptied its queue; a \
              large offset-syncs topic then loads at a tenth of the speed the broker delivers",
    },
    ClientDefault {
        given_to: &[ClientUse::Producer],
        key: "message.timeout.ms",
        value: "30000",
        why: "a batch waits for its delivery reports, so a delivery must end in bounded time \
              rather than librdkafka's five minutes",
    },
    ClientDefault {
        given_to: &[ClientUse::Producer],
        key: "queue.buffering.max.messages",
        value: "10000",
        why: "a stop drops what the producer still holds, and librdkafka reports every dropped \
              record before it lets go (librdkafka's 100,000 cost a stop inside a 10,000-group \
              cycle about 50 ms); one produce batch of records at a time still fills a request",
    },
];

/// Puts the [`CLIENT_DEFAULTS`] given to `client` into `settings` where the user set nothing;
/// `role` fills in `<role>`.
pub fn apply_client_defaults(
    client: ClientUse,
    role: &str,
    settings: &mut std::collections::BTreeMap<String, String>,
) {
    for d in CLIENT_DEFAULTS
        .iter()
        .filter(|d| d.given_to.contains(&client))
    {
        settings
            .entry(d.key.to_string())
            .or_insert_with(|| d.value.replace("<role>", role));
    }
}

fn config_def_type(kind: &str) -> &'static str {
    let first = kind.split_whitespace().next().unwrap_or_default();
    match first {
        "boolean" => "BOOLEAN",
        "int" => "INT",
        "long" => "LONG",
        "short" => "SHORT",
        "list" => "LIST",
        _ => "STRING",
    }
}

/// Every key of [`KEY_TABLE`] as the Connect connector declares it, one per line:
/// `key<TAB>ConfigDef type<TAB>default<TAB>doc`, the default empty when the key has none (the
/// connector then declares it optional, with a null default). Java's
/// `io.mm2checkpoint.connect.ConnectorKeys` reads it from the jar; the committed copy
/// (java/src/main/resources/io/mm2checkpoint/connector-keys.tsv) is checked against this by
/// tests/config_doc.rs.
pub fn connector_keys_tsv() -> String {
    let mut out = String::from(
        "# Generated from crates/core/src/mirror_checkpoint_config/key_table.rs by\n\
         # `MM2_BLESS=1 cargo test --test config_doc`; do not edit by hand.\n\
         # key\tConfigDef type\tdefault (empty: none)\tdoc\n",
    );
    for k in KEY_TABLE {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            k.key,
            config_def_type(k.kind),
            k.default.unwrap_or_default(),
            k.doc.replace(['\t', '\n'], " ")
        ));
    }
    out
}

/// docs/CONFIGURATION.md, generated from [`KEY_TABLE`] and the other key lists.
pub fn configuration_markdown() -> String {
    let mut md = String::from(
        "<!-- Generated from crates/core/src/mirror_checkpoint_config/key_table.rs by\n     `MM2_BLESS=1 cargo test --test config_doc`; do not edit by hand. -->\n\
         # Configuration\n\n\
         Every key the checkpoint task reads, as a connector-style key. In a dedicated-mode\n\
         `mm2.properties` (with `clusters`), write a flow key as `A->B.<key>` or `<key>`, and a\n\
         client setting as `A.<setting>` (one cluster) or `<setting>` (every cluster).\n\n\
         ## Flow keys\n\n\
         | Key | Type | Default | MM2 parity | Meaning |\n|---|---|---|---|---|\n",
    );
    for k in KEY_TABLE {
        let default = match k.default {
            Some(d) => format!("`{d}`"),
            None => k.default_note.to_string(),
        };
        md.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            k.key,
            k.kind,
            default.replace('|', "\\|"),
            k.parity.text(),
            k.doc
        ));
    }
    md.push_str(
        "\n## Accepted and ignored\n\n\
         Keys of MM2's other connectors and of Connect, accepted without a warning and ignored by\n\
         checkpointing:\n\n",
    );
    let others: Vec<String> = OTHER_MM2_KEYS.iter().map(|k| format!("`{k}`")).collect();
    md.push_str(&others.join(", "));
    md.push_str(",\nand every key starting with ");
    let prefixes: Vec<String> = OTHER_MM2_PREFIXES
        .iter()
        .map(|k| format!("`{k}`"))
        .collect();
    md.push_str(&prefixes.join(", "));
    md.push_str(
        ".\n\nKeys MM2 removed in Kafka 4.0, ignored with a warning naming the replacement:\n\n",
    );
    for (old, new) in REMOVED_KEYS {
        md.push_str(&format!("- `{old}`: use `{new}`\n"));
    }
    md.push_str(
        "\nAny other key that is not a client setting is ignored with a warning (with a\n\
         \"did you mean\" suggestion when it is near a known key).\n\n\
         ## Client settings\n\n\
         `source.cluster.*`, `target.cluster.*`, `consumer.*`, `producer.*`, `admin.*` and\n\
         `source.consumer.*` … `target.admin.*` (MM2's layers, later wins) carry librdkafka\n\
         settings. Java-only settings are translated or refused, see docs/USER_GUIDE.md \"Java client\n\
         settings\": `sasl.jaas.config` (PLAIN, SCRAM, unsecured OAUTHBEARER) becomes\n\
         `sasl.username`/`sasl.password` or `sasl.oauthbearer.config`; a PKCS#12 keystore\n\
         (`ssl.keystore.type = PKCS12`) keeps `ssl.keystore.location`/`ssl.keystore.password`;\n\
         JKS keystores and truststores are refused naming the PEM settings. A file named by\n\
         `ssl.ca.location`, `ssl.certificate.location`, `ssl.key.location`,\n\
         `ssl.keystore.location`, `ssl.crl.location` or `sasl.kerberos.keytab` must exist when the\n\
         task is created; the error names the key and the file.\n\n\
         Settings valid one by one but refused together when librdkafka creates the client (as\n\
         Java's clients refuse them) are configuration errors when the task is created\n\
         (`mm_task_new`, `CheckpointTask::new`), naming the keys as written, never librdkafka's\n\
         \"Client creation error\":\n\n\
         - `security.protocol = SASL_*` with `sasl.mechanism` (or `sasl.mechanisms`) `PLAIN` or\n  \
         `SCRAM-SHA-256`/`SCRAM-SHA-512` and no `sasl.username` or no `sasl.password` on that\n  \
         client (after `sasl.jaas.config` is translated): the error names the mechanism's key and\n  \
         the missing keys with its prefix (e.g. `source.cluster.sasl.mechanism`: \"SASL mechanism\n  \
         `PLAIN` needs `source.cluster.sasl.username` and `source.cluster.sasl.password` …\").\n  \
         `GSSAPI` and `OAUTHBEARER` have other requirements and are left to librdkafka.\n\
         - `enable.idempotence = true` with `acks` (or `request.required.acks`) other than\n  \
         `all`/`-1`: the error names the `acks` key (e.g. `producer.acks`) and the idempotence key.\n\n\
         ## Client settings the library changes\n\n\
         librdkafka defaults the library changes, unless the client's settings name the key (every\n\
         client of a task shows them in `describe` / `mm_conf_describe`):\n\n\
         | Key | Value | Given to | Why |\n|---|---|---|---|\n",
    );
    for d in CLIENT_DEFAULTS {
        let given: Vec<&str> = d
            .given_to
            .iter()
            .map(|c| match c {
                ClientUse::Reader => "internal-topic readers",
                ClientUse::Admin => "admin connections",
                ClientUse::Producer => "producers",
            })
            .collect();
        md.push_str(&format!(
            "| `{}` | `{}` | {} | {} |\n",
            d.key,
            d.value,
            given.join(", "),
            d.why
        ));
    }
    md.push_str(
        "\nAlways set, whatever the settings say: `enable.auto.commit = false` on every consumer;\n\
         on internal-topic readers also `enable.auto.offset.store = false`,\n\
         `enable.partition.eof = true` and `auto.offset.reset = earliest`; on the offset-sync\n\
         producer `max.in.flight.requests.per.connection = 1` (MM2's syncs are written in order).\n\n\
         ## Secrets\n\n",
    );
    md.push_str(&format!(
        "A key is secret when it contains (in any case, under any prefix, also misspelt) `pass`,\n\
         `pasw`, `pwd`, `secret`, `token`, `jaas` or `credential`, or ends in `ssl.key.pem`,\n\
         `ssl_key`, `ssl.keystore.key`, `sasl.oauthbearer.config` or another setting holding a\n\
         private key. Its value is shown as `{HIDDEN}` in every error, warning, log line, `Debug`\n\
         output and in `describe` / `mm_conf_describe`; a setting librdkafka does not know is\n\
         shown without its value. `mm_conf_get` still returns what was set.\n"
    ));
    md
}

#[cfg(test)]
mod tests {
    use super::super::keys::CHECKPOINT_KEYS;
    use super::super::MirrorCheckpointConfig;
    use super::*;

    #[test]
    fn the_table_lists_exactly_the_keys_the_reader_reads() {
        let mut table: Vec<&str> = KEY_TABLE.iter().map(|k| k.key).collect();
        let mut read: Vec<&str> = CHECKPOINT_KEYS.to_vec();
        table.sort_unstable();
        read.sort_unstable();
        assert_eq!(table, read);
    }

    #[test]
    fn client_defaults_fill_in_only_what_the_user_left_unset() {
        let mut unset = std::collections::BTreeMap::new();
        apply_client_defaults(ClientUse::Reader, "some-reader", &mut unset);
        assert_eq!(unset["fetch.wait.max.ms"], "100");
        assert_eq!(unset["fetch.queue.backoff.ms"], "10");
        assert_eq!(unset["group.id"], "mm2-checkpoint-some-reader");
        assert!(!unset.contains_key("message.timeout.ms"), "{unset:?}");

        let mut user: std::collections::BTreeMap<String, String> = [
            ("fetch.wait.max.ms", "7"),
            ("group.id", "mine"),
            ("message.timeout.ms", "5000"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        apply_client_defaults(ClientUse::Reader, "r", &mut user);
        apply_client_defaults(ClientUse::Producer, "p", &mut user);
        assert_eq!(user["fetch.wait.max.ms"], "7");
        assert_eq!(user["group.id"], "mine");
        assert_eq!(user["message.timeout.ms"], "5000");
        assert_eq!(user["fetch.queue.backoff.ms"], "10");
    }

    #[test]
    fn each_documented_default_is_the_one_the_reader_applies() {
        let base = [
            ("source.cluster.alias", "A"),
            ("source.cluster.bootstrap.servers", "a:1"),
            ("target.cluster.bootstrap.servers", "b:1"),
        ];
        let describe = |extra: &[(&str, &str)]| {
            let (config, _) =
                MirrorCheckpointConfig::from_properties(base.iter().chain(extra).copied())
                    .unwrap_or_else(|e| panic!("{extra:?}: {e}"));
            config.describe()
        };
        let plain = describe(&[]);
        let mut checked = 0;
        for k in KEY_TABLE {
            let Some(default) = k.default else { continue };
            let with = describe(&[(k.key, default)]);
            assert_eq!(plain, with, "the documented default of `{}`", k.key);
            checked += 1;
        }
        assert!(checked >= 20, "{checked}");
    }
}
