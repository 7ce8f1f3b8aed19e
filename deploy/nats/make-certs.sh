#!/bin/sh
# Makes a local CA and the certificates the example cluster configs use, for trying TLS on one
# machine or a few: one server certificate per node (client connections and routes) and one client
# certificate for the service's processes and tools. Not for production: use your own PKI there.
#
#   deploy/nats/make-certs.sh [out-dir] [extra SAN ...]    e.g.  make-certs.sh certs DNS:nats1.internal IP:10.0.0.11
#
# out-dir defaults to ./certs (the configs refer to certs/..., relative to where nats-server runs).
set -eu
out="${1:-certs}"
[ "$#" -gt 0 ] && shift
extra=""
for san in "$@"; do extra="$extra,$san"; done
mkdir -p "$out"
cd "$out"
umask 077
days=825

openssl req -x509 -newkey rsa:2048 -nodes -days "$days" -subj "/CN=svc local CA" \
  -keyout ca-key.pem -out ca.pem 2>/dev/null

issue() { # name, subject CN, subjectAltName, extendedKeyUsage
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$2" -keyout "$1-key.pem" -out "$1.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$3" "$4" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days "$days" \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

for node in n1 n2 n3; do
  # Routes authenticate both ways with the same certificate, so it serves as client and server.
  issue "$node" "$node" "DNS:$node,DNS:localhost,IP:127.0.0.1$extra" "serverAuth,clientAuth"
done
issue client "svc client" "DNS:svc-client" "clientAuth"
rm -f ca.srl
echo "wrote $(pwd): ca.pem, n1/n2/n3 server certificates, client.pem and client-key.pem"
