#!/bin/sh
# Writes this pod's valkey.conf (an init container runs it on every start) and brings the
# addresses in nodes.conf up to date. A pod restarted elsewhere has a new IP, and after a
# restart of every pod all the saved IPs are stale, so nobody would reach anybody: each
# node is saved with the stable DNS name it announces, and the IPs are looked up again
# here. One node that finds every peer is enough, since gossip carries its addresses to
# the others.
set -eu

SET="${VALKEY_SET:-burro-valkey}"             # the StatefulSet's name
HEADLESS="${VALKEY_HEADLESS:-burro-valkey-headless.burro.svc.cluster.local}"
DATA_DIR="${DATA_DIR:-/data}"
CONF_DIR="${CONF_DIR:-$DATA_DIR/conf}"
POD="${POD_NAME:-$(hostname)}"
ME="${ANNOUNCE_HOSTNAME:-$POD.$HEADLESS}"
RESOLVE_SECONDS="${RESOLVE_SECONDS:-30}"      # how long to wait for peers' DNS names
: "${VALKEY_PASSWORD:?VALKEY_PASSWORD is required}"
: "${POD_IP:?POD_IP is required}"

resolve() {  # the first IPv4 address of a name, or nothing
  getent ahostsv4 "$1" 2>/dev/null | awk 'NR == 1 { print $1 }'
}

# Prints "hostname" for every node line of nodes.conf but this one's.
peers() {
  awk '$3 !~ /myself/ && NF > 7 { split($2, a, ","); if (a[2] != "") print a[2] }' "$1"
}

# Sets the IP of the node announced as $2 to $3 in nodes.conf ($1).
set_ip() {
  awk -v host="$2" -v ip="$3" '
    NF > 7 { n = split($2, a, ","); if (a[2] == host) { sub(/^[^:]*/, ip, a[1]);
      $2 = a[1]; for (i = 2; i <= n; i++) $2 = $2 "," a[i] } }
    { print }' "$1" > "$1.new"
  mv "$1.new" "$1"
}

refresh_addresses() {
  nodes="$1"
  set_ip "$nodes" "$ME" "$POD_IP"
  deadline=$(($(date +%s) + RESOLVE_SECONDS))
  for peer in $(peers "$nodes"); do
    ip=$(resolve "$peer")
    while [ -z "$ip" ] && [ "$(date +%s)" -lt "$deadline" ]; do
      sleep 1
      ip=$(resolve "$peer")
    done
    if [ -n "$ip" ]; then
      set_ip "$nodes" "$peer" "$ip"
    else
      echo "init: $peer does not resolve yet; gossip will bring its address"
    fi
  done
}

mkdir -p "$CONF_DIR"
cat > "$CONF_DIR/valkey.conf" <<CONF
port ${VALKEY_PORT:-6379}
dir $DATA_DIR
cluster-enabled yes
cluster-config-file $DATA_DIR/nodes.conf
cluster-node-timeout ${CLUSTER_NODE_TIMEOUT:-5000}
cluster-announce-ip $POD_IP
cluster-announce-hostname $ME
cluster-preferred-endpoint-type hostname
cluster-require-full-coverage no
appendonly yes
appendfsync everysec
save ""
maxmemory ${VALKEY_MAXMEMORY:-768mb}
maxmemory-policy noeviction
requirepass "$VALKEY_PASSWORD"
masterauth "$VALKEY_PASSWORD"
CONF

if [ -s "$DATA_DIR/nodes.conf" ]; then
  refresh_addresses "$DATA_DIR/nodes.conf"
  echo "init: $ME rejoins its cluster at $POD_IP"
else
  echo "init: $ME starts empty (the burro-valkey-create-cluster Job forms the cluster)"
fi
