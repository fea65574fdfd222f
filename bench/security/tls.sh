# The TLS pieces of bench/security/run.sh: sourced, never run. Certificates made with openssl,
# the brokers' security settings, and the facts a TLS figure is read against: the cipher's rate
# on one core (OpenSSL's own, no sockets), the session the listener negotiates, and whether the
# kernel can take the records over (kTLS). Measurement lines go to stdout as key=value pairs.

# A CA and a broker certificate for 127.0.0.1 and localhost (clients check the subjectAltName
# against the address they connect to); the broker's PEM keystore is its key, then its cert.
sec_make_certs() {  # directory
  local d=$1
  mkdir -p "$d"
  cat >"$d/ext.cnf" <<'EOF'
[server]
basicConstraints = CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1,DNS:localhost
EOF
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/ca.key" -out "$d/ca.crt" -days 2 \
    -subj "/CN=Mirra bench CA" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -keyout "$d/server.key" -out "$d/server.csr" \
    -subj "/CN=localhost" 2>/dev/null
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.crt" -CAkey "$d/ca.key" -CAcreateserial \
    -out "$d/server.crt" -days 2 -extfile "$d/ext.cnf" -extensions server 2>/dev/null
  cat "$d/server.key" "$d/server.crt" >"$d/server-keystore.pem"
}

# The listeners' security: the PEM keystore, SCRAM-SHA-512 and PLAIN, and a PLAIN user `bench`
# with the run's password (the same password as the SCRAM user, if one is added).
sec_broker_properties() {  # certificate directory, password
  cat <<EOF
ssl.keystore.type=PEM
ssl.keystore.location=$1/server-keystore.pem
sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_bench="$2";
EOF
}

# OpenSSL's AES-256-GCM (the suite TLS 1.3 picks first between OpenSSL peers) over 16 KiB
# buffers, TLS's largest record, on one core for 2 s: what one core can encrypt, nothing else.
sec_limit_cipher() {
  openssl speed -evp aes-256-gcm -bytes 16384 -seconds 2 -mr 2>/dev/null |
    awk -F: '$1 == "+F" { printf "mode=limit name=aes_gcm mb_per_s=%.1f\n", $4 / 1e6 }'
}

# Whether the kernel offers TLS offload (the `tls` upper-layer protocol) and its counters of
# software/device TLS sessions so far; the report gives their change over the run.
sec_ktls_line() {
  local ulp
  ulp=$(tr ' ' ',' </proc/sys/net/ipv4/tcp_available_ulp 2>/dev/null) || ulp=
  echo "mode=ktls ulp=${ulp:-none} available=$([[ ,$ulp, == *,tls,* ]] && echo 1 || echo 0)" \
       "$(sec_ktls_counters start)"
}
sec_ktls_stat_line() {  # tag
  echo "mode=ktls_stat $(sec_ktls_counters "$1")"
}
sec_ktls_counters() {  # tag: the cumulative session counters, or tls_stat=none
  [ -r /proc/net/tls_stat ] || { echo "tls_stat_$1=none"; return; }
  awk -v t="$1" '$1 ~ /^Tls(Tx|Rx)(Sw|Device)$/ { printf "%s_%s=%s ", $1, t, $2 }' \
    /proc/net/tls_stat
}

# The protocol and suite an OpenSSL client with default settings (as librdkafka's are here)
# gets from the listener. s_client stops after the handshake; the broker logs the closed
# connection as one that never authenticated.
sec_session_line() {  # host:port, CA file, SASL mechanism
  local out
  out=$(openssl s_client -connect "$1" -CAfile "$2" -verify_return_error -brief </dev/null 2>&1) || true
  echo "mode=tls protocol=$(sed -n 's/^Protocol version: *//p' <<<"$out" | head -1)" \
       "cipher=$(sed -n 's/^Ciphersuite: *//p' <<<"$out" | head -1) mechanism=$3"
}
