#!/bin/sh
# Writes this pod's redis.conf and sentinel.conf (an init container runs it on every
# start). The master is whoever the Sentinels say it is; when no Sentinel answers (the
# very first start) pod 0 is the master. Every pod announces its stable DNS name, so a
# restarted pod with a new IP keeps its identity.
set -eu

SET="${REDIS_SET:-burro-redis}"              # the StatefulSet's name
HEADLESS="${REDIS_HEADLESS:-burro-redis-headless.burro.svc.cluster.local}"
NODES="${REDIS_NODES:-3}"
MASTER_SET="${SENTINEL_MASTER_SET:-burro}"
QUORUM="${SENTINEL_QUORUM:-2}"
DATA_DIR="${DATA_DIR:-/data}"
CONF_DIR="${CONF_DIR:-$DATA_DIR/conf}"
POD="${POD_NAME:-$(hostname)}"
ME="$POD.$HEADLESS"
: "${REDIS_PASSWORD:?REDIS_PASSWORD is required}"

ask_sentinels() {
  i=0
  while [ "$i" -lt "$NODES" ]; do
    answer=$(timeout 3 redis-cli -h "$SET-$i.$HEADLESS" -p 26379 --raw \
      sentinel get-master-addr-by-name "$MASTER_SET" 2>/dev/null | head -n 1 || true)
    if [ -n "$answer" ]; then
      echo "$answer"
      return 0
    fi
    i=$((i + 1))
  done
  return 1
}

MASTER=$(ask_sentinels || echo "$SET-0.$HEADLESS")
mkdir -p "$CONF_DIR"

cat > "$CONF_DIR/redis.conf" <<CONF
port 6379
dir $DATA_DIR
appendonly yes
appendfsync everysec
save ""
requirepass "$REDIS_PASSWORD"
masterauth "$REDIS_PASSWORD"
replica-announce-ip $ME
replica-read-only yes
CONF
if [ "$MASTER" != "$ME" ]; then
  echo "replicaof $MASTER 6379" >> "$CONF_DIR/redis.conf"
fi

cat > "$CONF_DIR/sentinel.conf" <<CONF
port 26379
dir /tmp
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $ME
sentinel monitor $MASTER_SET $MASTER 6379 $QUORUM
sentinel auth-pass $MASTER_SET $REDIS_PASSWORD
sentinel down-after-milliseconds $MASTER_SET 5000
sentinel failover-timeout $MASTER_SET 60000
sentinel parallel-syncs $MASTER_SET 1
CONF
echo "init: $ME starts as $( [ "$MASTER" = "$ME" ] && echo master || echo "replica of $MASTER")"
