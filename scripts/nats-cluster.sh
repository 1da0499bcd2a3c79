#!/usr/bin/env bash
# Starts a local 3-node nats-server cluster with JetStream for trying drum's
# distributed mode (docs/cluster.md): clients on 127.0.0.1:4222-4224, routes
# on 127.0.0.1:6222-6224, JetStream stores and one config file per node under
# a new temporary directory, or under NATS_DIR when it is set (made when
# missing): started again with the same NATS_DIR, the cluster comes back
# with its streams, consumers and messages, as a restarted nats-server does;
# without it, every start is a new, empty cluster. Runs in the foreground;
# Ctrl-C stops the nodes. Does not remove the stores.
# Ports: NATS_BASE_PORT (default 4222), NATS_ROUTE_PORT (default 6222).
# Needs nats-server (Debian/Ubuntu: apt-get install -y nats-server).
set -euo pipefail
command -v nats-server >/dev/null || { echo "nats-server not found: apt-get install -y nats-server" >&2; exit 1; }
base=${NATS_BASE_PORT:-4222}
route=${NATS_ROUTE_PORT:-6222}
if [ -n "${NATS_DIR:-}" ]; then
  mkdir -p "$NATS_DIR"
  dir=$(cd "$NATS_DIR" && pwd)
else
  dir=$(mktemp -d "${TMPDIR:-/tmp}/drum-nats-XXXXXX")
fi
pids=()
stop() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; echo "stopped; stores left in $dir" >&2; }
trap stop EXIT
trap 'exit 0' INT TERM
for i in 0 1 2; do
  routes=()
  for j in 0 1 2; do [ "$j" = "$i" ] || routes+=("nats-route://127.0.0.1:$((route + j))"); done
  cat > "$dir/n$i.conf" <<CONF
server_name: n$i
listen: 127.0.0.1:$((base + i))
jetstream { store_dir: "$dir/n$i" }
cluster { name: drum, listen: 127.0.0.1:$((route + i)), routes: [$(IFS=,; echo "${routes[*]}")] }
CONF
  nats-server -c "$dir/n$i.conf" >"$dir/n$i.log" 2>&1 &
  pids+=($!)
done
echo "3-node JetStream cluster up; logs and stores in $dir" >&2
echo "--nats nats://127.0.0.1:$base,nats://127.0.0.1:$((base + 1)),nats://127.0.0.1:$((base + 2))"
wait
