//! Which settings hold secrets, and the [`Password`] type that never prints them.
//!
//! The rule (docs/CONFIGURATION.md, "Secrets"): a key is sensitive when it contains (in any
//! case, anywhere, so also under any `A.`, `A->B.`, `source.cluster.`, `consumer.`… prefix and
//! in a misspelling such as `sasl.pasword`) one of the words `pass`, `pasw`, `pwd`, `secret`, `token`,
//! `jaas` or `credential`, or when it ends in one of the settings that hold a private key or
//! librdkafka's OAUTHBEARER config (`ssl.key.pem`, `ssl_key`, `ssl.keystore.key`,
//! `sasl.oauthbearer.config`, …). Values of sensitive keys appear as `[hidden]` in every error, warning, log
//! line, `Debug` or `Display` output and in [`describe`](crate::mirror_checkpoint_config::MirrorCheckpointConfig::describe).

use std::fmt;

/// What a hidden value prints as, as Kafka's `Password.toString` does.
pub const HIDDEN: &str = "[hidden]";

/// Words that make any key containing them sensitive.
const SENSITIVE_WORDS: &[&str] = &[
    "pass",
    "pasw",
    "pwd",
    "secret",
    "token",
    "jaas",
    "credential",
];

/// Whole client settings (the part after the prefixes) that hold secrets without one of the
/// endings above: private keys given inline, and librdkafka's OAUTHBEARER config, which
/// carries the unsecured token's claims or client credentials.
const SENSITIVE_SETTINGS: &[&str] = &[
    "ssl.key.pem",
    "ssl_key",
    "ssl.keystore.key",
    "sasl.oauthbearer.config",
    "sasl.oauthbearer.assertion.private.key.pem",
    "sasl.oauthbearer.assertion.private.key.passphrase",
    "basic.auth.user.info",
];

/// Whether the value of `key` (as written, with any prefix) is a secret.
pub fn is_sensitive_key(key: &str) -> bool {
    let key = key.trim().to_ascii_lowercase();
    SENSITIVE_WORDS.iter().any(|w| key.contains(w))
        || SENSITIVE_SETTINGS
            .iter()
            .any(|s| key == *s || key.ends_with(&format!(".{s}")))
}

/// `value`, or [`HIDDEN`] when `key` is sensitive: the only form in which a configuration value
/// may go into a message.
pub fn shown_value<'v>(key: &str, value: &'v str) -> &'v str {
    if is_sensitive_key(key) {
        HIDDEN
    } else {
        value
    }
}

/// A secret configuration value (Kafka's `Password` type): `Debug` and `Display` print
/// `[hidden]`; only [`Password::expose`] gives the text, for handing it to librdkafka.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Password(String);

impl Password {
    /// Wraps a secret.
    pub fn new(value: impl Into<String>) -> Self {
        Password(value.into())
    }

    /// The secret itself. Never format it into a message.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HIDDEN)
    }
}

impl fmt::Display for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HIDDEN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_keys_are_sensitive_under_any_prefix_and_ordinary_keys_are_not() {
        let sensitive = [
            "sasl.password",
            "sasl.jaas.config",
            "A.sasl.jaas.config",
            "source->target.consumer.sasl.jaas.config",
            "ssl.key.password",
            "ssl.keystore.password",
            "ssl.truststore.password",
            "SSL.KEYSTORE.PASSWORD",
            "sasl.oauthbearer.client.secret",
            "sasl.oauthbearer.config",
            "source.cluster.sasl.oauthbearer.config",
            "ssl.key.pem",
            "target.admin.ssl.key.pem",
            "ssl.keystore.key",
            "sasl.oauthbearer.token",
            "some.access.token",
            "A.sasl.pasword",
            "sasl.passwrd",
        ];
        for key in sensitive {
            assert!(is_sensitive_key(key), "{key}");
            assert_eq!(shown_value(key, "s3cr3t"), HIDDEN, "{key}");
        }
        let ordinary = [
            "sasl.username",
            "sasl.mechanism",
            "ssl.key.location",
            "ssl.certificate.pem",
            "ssl.ca.location",
            "ssl.keystore.location",
            "bootstrap.servers",
            "groups",
        ];
        for key in ordinary {
            assert!(!is_sensitive_key(key), "{key}");
            assert_eq!(shown_value(key, "v"), "v", "{key}");
        }
    }

    #[test]
    fn a_password_prints_hidden_and_exposes_its_text_only_on_request() {
        let p = Password::new("hunter2");
        assert_eq!(format!("{p}"), HIDDEN);
        assert_eq!(format!("{p:?}"), HIDDEN);
        assert_eq!(format!("{:?}", Some(&p)), "Some([hidden])");
        assert_eq!(p.expose(), "hunter2");
    }
}
