# Sourced by scripts/kafka-broker.sh for `start --secure`: a throw-away CA, broker and client
# certificates, an SSL listener, an SSL listener that requires a client certificate (MTLS), a
# SASL_SSL listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 and unsecured OAUTHBEARER), and the
# one test user. The broker's own listeners (PLAINTEXT, CONTROLLER) stay
# plaintext: only clients use the secured ones.
#
# Files in HANDLE/tls/:
#   ca.pem           the CA that signed the broker certificate (clients: ssl.ca.location)
#   other-ca.pem     an unrelated CA that signed nothing here (for "untrusted CA" tests)
#   broker.p12       the broker's key and certificate (SAN IP:127.0.0.1, DNS:localhost)
#   client.pem, client.key
#                    a client certificate (CN=alice) and its unencrypted key, signed by ca.pem,
#                    for the MTLS listener (clients: ssl.certificate.location, ssl.key.location)

# The SASL user, for every mechanism (SCRAM credentials are written at format time).
SECURE_USER=alice
SECURE_PASSWORD=alice-secret
# The keystore's password: a test secret, written into server.properties anyway.
SECURE_STORE_PASSWORD=mm2-test-store

# secure_certs DIR: creates DIR with the files listed above.
secure_certs() {
    local dir="$1"
    mkdir -p "$dir"
    # EC keys: generated in milliseconds, where RSA would cost a noticeable part of start-up.
    local key=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    {
        openssl req -x509 "${key[@]}" -keyout "$dir/ca.key" -out "$dir/ca.pem" -days 7 \
            -subj "/CN=mm2-checkpoint test CA"
        openssl req -x509 "${key[@]}" -keyout "$dir/other-ca.key" -out "$dir/other-ca.pem" \
            -days 7 -subj "/CN=mm2-checkpoint untrusted CA"
        openssl req "${key[@]}" -keyout "$dir/broker.key" -out "$dir/broker.csr" \
            -subj "/CN=localhost"
        # librdkafka verifies the broker's name against the SAN (ssl.endpoint.identification
        # .algorithm=https is its default), and clients connect to 127.0.0.1.
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$dir/broker.ext"
        openssl x509 -req -in "$dir/broker.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
            -CAcreateserial -out "$dir/broker.pem" -days 7 -extfile "$dir/broker.ext"
        openssl req "${key[@]}" -keyout "$dir/client.key" -out "$dir/client.csr" \
            -subj "/CN=$SECURE_USER"
        printf 'extendedKeyUsage=clientAuth\n' >"$dir/client.ext"
        openssl x509 -req -in "$dir/client.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
            -CAcreateserial -out "$dir/client.pem" -days 7 -extfile "$dir/client.ext"
        openssl pkcs12 -export -in "$dir/broker.pem" -inkey "$dir/broker.key" \
            -certfile "$dir/ca.pem" -name broker -out "$dir/broker.p12" \
            -passout "pass:$SECURE_STORE_PASSWORD"
    } >>"$dir/openssl.log" 2>&1 || {
        tail -n 20 "$dir/openssl.log" >&2
        die "openssl failed to make the test certificates in $dir"
    }
}

# secure_props DIR: the server properties of the secured listeners, one per line.
secure_props() {
    local dir="$1" sasl="listener.name.sasl_ssl"
    echo "ssl.keystore.type=PKCS12"
    echo "ssl.keystore.location=$dir/broker.p12"
    echo "ssl.keystore.password=$SECURE_STORE_PASSWORD"
    echo "ssl.key.password=$SECURE_STORE_PASSWORD"
    # MTLS: the same broker certificate; clients must present one signed by the test CA.
    echo "listener.name.mtls.ssl.client.auth=required"
    echo "listener.name.mtls.ssl.truststore.type=PEM"
    echo "listener.name.mtls.ssl.truststore.location=$dir/ca.pem"
    echo "sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER"
    echo "$sasl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SECURE_USER=\"$SECURE_PASSWORD\";"
    echo "$sasl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
    echo "$sasl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
    # Without a callback handler the broker validates OAUTHBEARER tokens with Kafka's unsecured
    # validator: any unsigned JWT with a subject is accepted (librdkafka's
    # enable.sasl.oauthbearer.unsecure.jwt makes one).
    echo "$sasl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;"
}

# secure_format_args: the `kafka-storage format` arguments that create the SCRAM credentials.
secure_format_args() {
    local mechanism
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
        echo "--add-scram"
        echo "$mechanism=[name=$SECURE_USER,password=$SECURE_PASSWORD]"
    done
}

# With `start --authorizer`: the SCRAM user that, with the broker itself, is a super user and
# creates the ACLs of the principals under test.
AUTHORIZER_ADMIN=admin
AUTHORIZER_ADMIN_PASSWORD=admin-secret

# authorizer_props: KRaft's own authorizer, denying everything no ACL allows. The broker's
# listeners (PLAINTEXT between broker and controller) authenticate nobody, so their principal
# is User:ANONYMOUS, which must be a super user for the broker to work at all; a client on the
# PLAINTEXT listener is therefore unrestricted (test setup uses it), and only the secured
# listeners' users are subject to ACLs.
authorizer_props() {
    echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
    echo "allow.everyone.if.no.acl.found=false"
    echo "super.users=User:ANONYMOUS;User:$AUTHORIZER_ADMIN"
}

# authorizer_format_args: the admin user's SCRAM credentials.
authorizer_format_args() {
    echo "--add-scram"
    echo "SCRAM-SHA-512=[name=$AUTHORIZER_ADMIN,password=$AUTHORIZER_ADMIN_PASSWORD]"
}

# authorizer_report: the `key=value` lines `start --authorizer` adds.
authorizer_report() {
    echo "sasl.admin.username=$AUTHORIZER_ADMIN"
    echo "sasl.admin.password=$AUTHORIZER_ADMIN_PASSWORD"
}

# secure_report DIR: the `key=value` lines `start --secure` prints for clients.
secure_report() {
    echo "ssl.ca.location=$1/ca.pem"
    echo "ssl.untrusted.ca.location=$1/other-ca.pem"
    echo "ssl.client.certificate.location=$1/client.pem"
    echo "ssl.client.key.location=$1/client.key"
    echo "sasl.username=$SECURE_USER"
    echo "sasl.password=$SECURE_PASSWORD"
}
