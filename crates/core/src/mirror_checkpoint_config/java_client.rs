//! Java client settings that librdkafka spells differently: an `mm2.properties` written for Java
//! MM2 carries `sasl.jaas.config` and keystores, which librdkafka does not read. Each is
//! translated into librdkafka's settings where librdkafka can do the same thing, or refused with
//! a reason that names the settings to use instead. No message here ever contains a value.

use crate::secrets::Password;

/// What one Java client setting becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Translation {
    /// Not a Java-only setting: handed to librdkafka unchanged.
    PassThrough,
    /// Replaced by these librdkafka settings.
    Settings(Vec<(&'static str, String)>),
    /// Dropped: it means nothing to librdkafka; the text says why (a warning).
    Ignored(&'static str),
}

const PLAIN_MODULE: &str = "org.apache.kafka.common.security.plain.PlainLoginModule";
const SCRAM_MODULE: &str = "org.apache.kafka.common.security.scram.ScramLoginModule";
const OAUTHBEARER_MODULE: &str =
    "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
const PEM_SETTINGS: &str =
    "convert it to PEM files and set `ssl.ca.location`, `ssl.certificate.location` and `ssl.key.location` (and `ssl.key.password` for an encrypted key)";

/// Translates `setting = value` (the client setting without its prefixes). `Err` is the reason
/// the setting cannot be used; it never contains the value.
pub(super) fn translate(
    setting: &str,
    value: &str,
    keystore_type: Option<&str>,
) -> Result<Translation, String> {
    match setting {
        "sasl.jaas.config" => translate_jaas(value).map(Translation::Settings),
        "ssl.keystore.type" => match value.trim().to_ascii_uppercase().as_str() {
            "PKCS12" => Ok(Translation::Settings(Vec::new())),
            "JKS" => Err(format!(
                "JKS keystores cannot be read by librdkafka; {PEM_SETTINGS}, or use a PKCS#12 keystore (`ssl.keystore.type = PKCS12`)"
            )),
            other => Err(format!(
                "keystore type `{other}` is not supported; use a PKCS#12 keystore (`ssl.keystore.type = PKCS12`), or {PEM_SETTINGS}"
            )),
        },
        "ssl.keystore.location" => {
            let pkcs12 = keystore_type.is_some_and(|t| t.trim().eq_ignore_ascii_case("PKCS12"));
            if !pkcs12 && value.trim().to_ascii_lowercase().ends_with(".jks") {
                return Err(format!(
                    "a `.jks` file is a JKS keystore, which librdkafka cannot read; {PEM_SETTINGS}, or use a PKCS#12 keystore (`ssl.keystore.type = PKCS12`)"
                ));
            }
            Ok(Translation::PassThrough)
        }
        "ssl.truststore.location" => Err(
            "Java truststores (JKS or PKCS#12) cannot be read by librdkafka; export the CA certificates to a PEM file and set `ssl.ca.location`".to_string(),
        ),
        "ssl.truststore.type" | "ssl.truststore.password" => Ok(Translation::Ignored(
            "librdkafka reads CA certificates from `ssl.ca.location` (PEM), not from a truststore; ignored",
        )),
        _ => Ok(Translation::PassThrough),
    }
}

/// The options of one JAAS login module entry, as Kafka's `JaasConfig` parses them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct JaasEntry {
    module: String,
    /// Option name → value; values are secrets until proven otherwise.
    options: Vec<(String, Password)>,
}

impl JaasEntry {
    fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.expose())
    }
}

/// `sasl.jaas.config` in librdkafka's settings: PLAIN and SCRAM give `sasl.username` and
/// `sasl.password`; unsecured OAUTHBEARER gives `sasl.oauthbearer.config` and
/// `enable.sasl.oauthbearer.unsecure.jwt`. The SASL mechanism stays with `sasl.mechanism`, as in
/// Java.
fn translate_jaas(value: &str) -> Result<Vec<(&'static str, String)>, String> {
    let entry = parse_jaas(value)?;
    let required = |name: &str| {
        entry
            .option(name)
            .map(str::to_string)
            .ok_or_else(|| format!("the {} login module needs a `{name}` option", entry.module))
    };
    match entry.module.as_str() {
        PLAIN_MODULE | SCRAM_MODULE => Ok(vec![
            ("sasl.username", required("username")?),
            ("sasl.password", required("password")?),
        ]),
        OAUTHBEARER_MODULE => {
            let Some(sub) = entry.option("unsecuredLoginStringClaim_sub") else {
                return Err("only the unsecured OAUTHBEARER login (`unsecuredLoginStringClaim_sub`) is translated; for an OAuth/OIDC token endpoint set librdkafka's `sasl.oauthbearer.method = oidc`, `sasl.oauthbearer.client.id`, `sasl.oauthbearer.client.secret` and `sasl.oauthbearer.token.endpoint.url`".to_string());
            };
            let mut parts = vec![format!("principal={sub}")];
            for (name, value) in &entry.options {
                let value = value.expose();
                let part = match name.as_str() {
                    "unsecuredLoginStringClaim_sub" => continue,
                    "unsecuredLoginPrincipalClaimName" => format!("principalClaimName={value}"),
                    "unsecuredLoginScopeClaimName" => format!("scopeClaimName={value}"),
                    "unsecuredLoginLifetimeSeconds" => format!("lifeSeconds={value}"),
                    "unsecuredLoginListClaim_scope" => {
                        // Java's list claim starts with its own delimiter character.
                        let mut chars = value.chars();
                        let delimiter = chars.next().unwrap_or(',');
                        let scopes: Vec<&str> = chars
                            .as_str()
                            .split(delimiter)
                            .filter(|s| !s.is_empty())
                            .collect();
                        format!("scope={}", scopes.join(","))
                    }
                    other => match other.strip_prefix("unsecuredLoginExtension_") {
                        Some(ext) => format!("extension_{ext}={value}"),
                        None => {
                            return Err(format!(
                                "the OAUTHBEARER option `{other}` has no librdkafka equivalent"
                            ))
                        }
                    },
                };
                parts.push(part);
            }
            if parts.iter().any(|p| p.contains(char::is_whitespace)) {
                return Err(
                    "an unsecured OAUTHBEARER claim contains whitespace, which librdkafka's `sasl.oauthbearer.config` cannot carry"
                        .to_string(),
                );
            }
            Ok(vec![
                ("sasl.oauthbearer.config", parts.join(" ")),
                ("enable.sasl.oauthbearer.unsecure.jwt", "true".to_string()),
            ])
        }
        other => Err(format!(
            "login module {} is not supported; translated are {PLAIN_MODULE}, {SCRAM_MODULE} and the unsecured {OAUTHBEARER_MODULE}; otherwise set librdkafka's `sasl.*` settings directly",
            shown_module(other)
        )),
    }
}

/// How an error names the first word of a JAAS entry: quoted when it has the shape of a Java
/// class name (dotted identifiers, at least three), since that is the login module the user
/// meant; otherwise not at all, because a malformed entry's first word may be its secret.
fn shown_module(word: &str) -> String {
    let segments: Vec<&str> = word.split('.').collect();
    let identifier = |s: &&str| {
        let mut chars = s.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    if segments.len() >= 3 && segments.iter().all(identifier) {
        format!("`{word}`")
    } else {
        "(its first word, not shown: it is not a Java class name)".to_string()
    }
}

/// Parses a JAAS configuration holding exactly one login module entry:
/// `<class> <required|requisite|sufficient|optional> [name=value]... ;`. Values are bare words or
/// double-quoted with backslash escapes, as Java's `StreamTokenizer` reads them. Errors name the
/// position, never the text.
fn parse_jaas(text: &str) -> Result<JaasEntry, String> {
    let mut p = Cursor {
        chars: text.chars().collect(),
        at: 0,
    };
    p.skip_blank();
    let module = p.word();
    if module.is_empty() {
        return Err(
            "is not a JAAS login module entry (`<LoginModule class> required ...;`)".into(),
        );
    }
    p.skip_blank();
    let flag = p.word();
    if !["required", "requisite", "sufficient", "optional"].contains(&flag.as_str()) {
        return Err(format!(
            "the login module {} needs a control flag (`required`, `requisite`, `sufficient` or `optional`)",
            shown_module(&module)
        ));
    }
    let mut options = Vec::new();
    loop {
        p.skip_blank();
        match p.peek() {
            Some(';') => {
                p.at += 1;
                break;
            }
            None => return Err("the login module entry does not end with `;`".into()),
            _ => {}
        }
        let name_at = p.at + 1;
        let name = p.word();
        if name.is_empty() {
            return Err(format!(
                "unexpected character at position {} of the login module entry",
                p.at + 1
            ));
        }
        p.skip_blank();
        if p.peek() != Some('=') {
            // A word without `=` may be a stray value (a password typed without its name), so
            // the message gives its position rather than the word.
            return Err(format!(
                "the word at position {name_at} of the login module entry is not a `name=value` option"
            ));
        }
        p.at += 1;
        p.skip_blank();
        let value = if p.peek() == Some('"') {
            p.at += 1;
            p.quoted()
                .ok_or_else(|| format!("the quoted value of option `{name}` is not closed"))?
        } else {
            let v = p.word();
            if v.is_empty() {
                return Err(format!("option `{name}` has no value"));
            }
            v
        };
        options.push((name, Password::new(value)));
    }
    p.skip_blank();
    if p.peek().is_some() {
        return Err(
            "holds more than one login module entry; Kafka clients take exactly one".to_string(),
        );
    }
    Ok(JaasEntry { module, options })
}

struct Cursor {
    chars: Vec<char>,
    at: usize,
}

impl Cursor {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_blank(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    /// A bare word: anything up to whitespace, `=`, `;` or `"`.
    fn word(&mut self) -> String {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| !c.is_whitespace() && !matches!(c, '=' | ';' | '"'))
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// The rest of a double-quoted value, after its opening quote; `None` when unclosed.
    fn quoted(&mut self) -> Option<String> {
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            match c {
                '"' => return Some(out),
                '\\' => {
                    let e = self.peek()?;
                    self.at += 1;
                    out.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'f' => '\u{c}',
                        'b' => '\u{8}',
                        other => other,
                    });
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(value: &str) -> Result<Vec<(&'static str, String)>, String> {
        match translate("sasl.jaas.config", value, None)? {
            Translation::Settings(s) => Ok(s),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn plain_and_scram_login_modules_become_username_and_password() {
        let cases = [
            (
                r#"org.apache.kafka.common.security.plain.PlainLoginModule required username="alice" password="pa;ss word";"#,
                "alice",
                "pa;ss word",
            ),
            (
                "org.apache.kafka.common.security.scram.ScramLoginModule required\n  username=bob\n  password=\"q\\\"uo\\\\te\";\n",
                "bob",
                "q\"uo\\te",
            ),
            (
                r#"org.apache.kafka.common.security.scram.ScramLoginModule required username = "c" password = "" ;"#,
                "c",
                "",
            ),
        ];
        for (jaas, user, password) in cases {
            assert_eq!(
                settings(jaas).unwrap(),
                vec![
                    ("sasl.username", user.to_string()),
                    ("sasl.password", password.to_string())
                ],
                "{jaas}"
            );
        }
    }

    #[test]
    fn unsecured_oauthbearer_becomes_librdkafkas_unsecured_jwt_config() {
        let jaas = r#"org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="mm2" unsecuredLoginLifetimeSeconds="3600" unsecuredLoginListClaim_scope=",read,write" unsecuredLoginExtension_traceId="t1";"#;
        assert_eq!(
            settings(jaas).unwrap(),
            vec![
                (
                    "sasl.oauthbearer.config",
                    "principal=mm2 lifeSeconds=3600 scope=read,write extension_traceId=t1"
                        .to_string()
                ),
                ("enable.sasl.oauthbearer.unsecure.jwt", "true".to_string()),
            ]
        );
    }

    #[test]
    fn other_modules_and_malformed_entries_are_refused_without_the_secret() {
        let secret = "TopSecret-42";
        let cases = [
            (
                format!(
                    "com.sun.security.auth.module.Krb5LoginModule required keyTab=\"{secret}\";"
                ),
                "login module `com.sun.security.auth.module.Krb5LoginModule` is not supported",
            ),
            (
                format!("{PLAIN_MODULE} required password=\"{secret}\";"),
                "needs a `username` option",
            ),
            (
                format!("{PLAIN_MODULE} required username=\"u\" password=\"{secret}"),
                "is not closed",
            ),
            (
                format!("{PLAIN_MODULE} required username=\"u\" password=\"{secret}\""),
                "does not end with `;`",
            ),
            (
                format!("{PLAIN_MODULE} username=\"u\" password=\"{secret}\";"),
                "needs a control flag",
            ),
            (secret.to_string(), "needs a control flag"),
            (
                format!("{secret} required username=\"u\";"),
                "not a Java class name",
            ),
            (
                format!("{PLAIN_MODULE} required username=\"u\" {secret};"),
                "is not a `name=value` option",
            ),
            (
                format!("{PLAIN_MODULE} required password=\"{secret}\"; {PLAIN_MODULE} required;"),
                "more than one login module",
            ),
            (
                format!("{OAUTHBEARER_MODULE} required clientSecret=\"{secret}\";"),
                "only the unsecured OAUTHBEARER login",
            ),
            (
                format!(
                    "{OAUTHBEARER_MODULE} required unsecuredLoginStringClaim_sub=\"a {secret}\";"
                ),
                "contains whitespace",
            ),
        ];
        for (jaas, want) in cases {
            let err = settings(&jaas).unwrap_err();
            assert!(err.contains(want), "{jaas}: {err}");
            assert!(!err.contains(secret), "{err}");
        }
    }

    #[test]
    fn keystores_pkcs12_pass_jks_is_refused_naming_the_pem_settings_and_truststores_name_the_ca_setting(
    ) {
        assert_eq!(
            translate("ssl.keystore.type", "PKCS12", None),
            Ok(Translation::Settings(Vec::new()))
        );
        assert_eq!(
            translate("ssl.keystore.location", "/k/client.p12", Some("PKCS12")),
            Ok(Translation::PassThrough)
        );
        assert_eq!(
            translate("ssl.keystore.password", "pw", Some("PKCS12")),
            Ok(Translation::PassThrough)
        );
        for err in [
            translate("ssl.keystore.type", "JKS", None).unwrap_err(),
            translate("ssl.keystore.location", "/k/client.jks", None).unwrap_err(),
        ] {
            assert!(err.contains("JKS"), "{err}");
            for key in [
                "ssl.ca.location",
                "ssl.certificate.location",
                "ssl.key.location",
            ] {
                assert!(err.contains(key), "{err}");
            }
        }
        let err = translate("ssl.truststore.location", "/t/ca.p12", None).unwrap_err();
        assert!(err.contains("ssl.ca.location"), "{err}");
        assert!(matches!(
            translate("ssl.truststore.password", "pw", None),
            Ok(Translation::Ignored(_))
        ));
        assert_eq!(
            translate("bootstrap.servers", "h:1", None),
            Ok(Translation::PassThrough)
        );
    }
}
