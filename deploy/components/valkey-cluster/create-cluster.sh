#!/bin/sh
# Forms the Valkey Cluster once: 3 primaries and a replica each, from the 6 pods of the
# StatefulSet. Idempotent: when any node already knows another or holds slots, it only
# waits for the cluster to be healthy (so the Job may run on every apply).
set -eu

SET="${VALKEY_SET:-burro-valkey}"
HEADLESS="${VALKEY_HEADLESS:-burro-valkey-headless.burro.svc.cluster.local}"
COUNT="${VALKEY_NODES_COUNT:-6}"
REPLICAS="${CLUSTER_REPLICAS:-1}"
TIMEOUT="${TIMEOUT_SECONDS:-300}"
: "${VALKEY_PASSWORD:?VALKEY_PASSWORD is required}"
export REDISCLI_AUTH="$VALKEY_PASSWORD"  # valkey-cli reads the password from here

# host:port of every node; VALKEY_NODES overrides the StatefulSet's DNS names.
if [ -z "${VALKEY_NODES:-}" ]; then
  VALKEY_NODES=""
  i=0
  while [ "$i" -lt "$COUNT" ]; do
    VALKEY_NODES="$VALKEY_NODES $SET-$i.$HEADLESS:6379"
    i=$((i + 1))
  done
fi
deadline=$(($(date +%s) + TIMEOUT))

resolve() {  # host:port -> ip:port (CLUSTER MEET takes addresses, not names)
  ip=$(getent ahostsv4 "${1%:*}" 2>/dev/null | awk 'NR == 1 { print $1 }')
  [ -n "$ip" ] && echo "$ip:${1##*:}"
}

ask() {  # ask host:port COMMAND...: one node's answer, empty if it does not answer
  address=$(resolve "$1") || return 0
  shift
  timeout 5 valkey-cli -h "${address%:*}" -p "${address##*:}" --raw "$@" 2>/dev/null || true
}

info_field() {  # info_field host:port FIELD: a field of CLUSTER INFO
  ask "$1" cluster info | tr -d '\r' | awk -F: -v f="$2" '$1 == f { print $2 }'
}

wait_until() {  # wait_until WHAT COMMAND...: retry the command until it succeeds
  what="$1"
  shift
  until "$@"; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      echo "create-cluster: gave up waiting for $what (valkey-cli --cluster check" \
        "tells what is wrong, --cluster fix mends a half-made cluster)" >&2
      exit 1
    fi
    sleep 2
  done
}

all_answer() {
  for node in $VALKEY_NODES; do
    [ "$(ask "$node" ping)" = PONG ] || return 1
  done
}

already_formed() {
  for node in $VALKEY_NODES; do
    known=$(info_field "$node" cluster_known_nodes)
    slots=$(info_field "$node" cluster_slots_assigned)
    if [ "${known:-1}" -gt 1 ] || [ "${slots:-0}" -gt 0 ]; then
      return 0
    fi
  done
  return 1
}

all_ok() {
  for node in $VALKEY_NODES; do
    [ "$(info_field "$node" cluster_state)" = ok ] || return 1
  done
}

wait_until "every node to answer PING" all_answer
if already_formed; then
  echo "create-cluster: the nodes already form a cluster"
else
  addresses=""
  for node in $VALKEY_NODES; do
    address=$(resolve "$node") || { echo "create-cluster: $node does not resolve" >&2; exit 1; }
    addresses="$addresses $address"
  done
  # shellcheck disable=SC2086  # one argument per address
  valkey-cli --cluster create $addresses --cluster-replicas "$REPLICAS" --cluster-yes
fi
wait_until "cluster_state:ok on every node" all_ok
echo "create-cluster: cluster_state:ok on every node"
