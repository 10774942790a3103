#!/usr/bin/env bash
# Apache Kafka on 127.0.0.1 (KRaft), for development and tests: one broker, or a cluster of three.
# Needs Java 17 and Maven; the jars come from Maven Central via pom.xml.
#
#   kafka.sh up      resolve jars (first run), format storage (first run), start, wait until it answers
#   kafka.sh down    stop the broker started from the same state directory
#   kafka.sh status  exit 0 when it runs
#
#   kafka.sh cluster up|down|status   three brokers, each also a KRaft controller (as docker-compose.ha.yml)
#   kafka.sh cluster stop|kill|start N  broker N (1-3): stop cleanly (SIGTERM), kill -9, start and wait
#
# Environment:
#   KAFKA_PORT             client port (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller port (default KAFKA_PORT + 1)
#   KAFKA_STATE_DIR        data, log and pid file (default deploy/local/.kafka/state/<port>; a cluster's
#                          brokers use <dir>/1, /2, /3, default deploy/local/.kafka/state/cluster-<first port>)
#   KAFKA_HEAP             JVM heap (default 512m; 256m each in a cluster)
#   KAFKA_START_TIMEOUT    seconds to wait for the broker (default 90)
#   KAFKA_CLUSTER_PORTS             a cluster's three client ports (default 9192,9292,9392)
#   KAFKA_CLUSTER_CONTROLLER_PORTS  its three controller ports (default each client port + 1)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
timeout="${KAFKA_START_TIMEOUT:-90}"
lib="$here/.kafka/lib"

die() { echo "kafka.sh: $*" >&2; exit 1; }

resolve_jars() {
  # The marker is written last, so an interrupted download is redone rather than half-used.
  [[ -f "$lib/.complete" ]] && return
  command -v mvn >/dev/null || die "Maven (mvn) is needed once to fetch the Kafka jars from Maven Central"
  echo "kafka.sh: resolving Kafka jars from Maven Central into $lib (once)" >&2
  rm -rf "$lib"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib" -DincludeScope=runtime >&2 \
    || die "could not resolve the Kafka jars with Maven (is Maven Central reachable?)"
  touch "$lib/.complete"
}

# The broker a command acts on: single mode has one, a cluster picks it with select_node.
cluster=false
if [[ "${1:-}" == cluster ]]; then
  cluster=true
  shift
  IFS=, read -r -a ports <<< "${KAFKA_CLUSTER_PORTS:-9192,9292,9392}"
  [[ ${#ports[@]} -eq 3 ]] || die "KAFKA_CLUSTER_PORTS needs three ports"
  if [[ -n "${KAFKA_CLUSTER_CONTROLLER_PORTS:-}" ]]; then
    IFS=, read -r -a controller_ports <<< "$KAFKA_CLUSTER_CONTROLLER_PORTS"
    [[ ${#controller_ports[@]} -eq 3 ]] || die "KAFKA_CLUSTER_CONTROLLER_PORTS needs three ports"
  else
    controller_ports=($((ports[0] + 1)) $((ports[1] + 1)) $((ports[2] + 1)))
  fi
  root="${KAFKA_STATE_DIR:-$here/.kafka/state/cluster-${ports[0]}}"
  heap="${KAFKA_HEAP:-256m}"
  voters="1@127.0.0.1:${controller_ports[0]},2@127.0.0.1:${controller_ports[1]},3@127.0.0.1:${controller_ports[2]}"
else
  heap="${KAFKA_HEAP:-512m}"
  node=1
  port="${KAFKA_PORT:-9092}"
  controller_port="${KAFKA_CONTROLLER_PORT:-$((port + 1))}"
  state="${KAFKA_STATE_DIR:-$here/.kafka/state/$port}"
  voters="1@127.0.0.1:$controller_port"
  pidfile="$state/broker.pid"
  logfile="$state/broker.log"
fi

select_node() {
  [[ "$1" =~ ^[123]$ ]] || die "broker number must be 1, 2 or 3, not '$1'"
  node="$1"
  port="${ports[node - 1]}"
  controller_port="${controller_ports[node - 1]}"
  state="$root/$node"
  pidfile="$state/broker.pid"
  logfile="$state/broker.log"
}

java_cmd=(java -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j2.configurationFile="$here/log4j2.properties" -cp "$lib/*")

running() { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

write_config() {
  mkdir -p "$state/data"
  local replicas=1 min_isr=1
  $cluster && replicas=3 min_isr=2
  cat > "$state/server.properties" <<PROPS
process.roles=broker,controller
node.id=$node
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$state/data
num.partitions=1
default.replication.factor=$replicas
min.insync.replicas=$min_isr
unclean.leader.election.enable=false
offsets.topic.replication.factor=$replicas
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=$replicas
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$replicas
share.coordinator.state.topic.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.network.threads=2
num.io.threads=4
log.retention.hours=24
PROPS
}

# Starts the selected broker without waiting; `await_start` waits. A cluster's brokers start together:
# none says it is up before the controller quorum (two of the three) has formed.
launch() {
  if running; then echo "kafka.sh: broker $node already runs on 127.0.0.1:$port (pid $(cat "$pidfile"))" >&2; return; fi
  command -v java >/dev/null || die "Java 17+ is needed to run the Kafka broker"
  resolve_jars
  write_config
  if [[ ! -f "$state/data/meta.properties" ]]; then
    local id="${cluster_id:-}"
    [[ -n "$id" ]] || id="$("${java_cmd[@]}" kafka.tools.StorageTool random-uuid)"
    "${java_cmd[@]}" kafka.tools.StorageTool format -t "$id" -c "$state/server.properties" >"$state/format.log" 2>&1 \
      || { cat "$state/format.log" >&2; die "storage format failed"; }
  fi
  # The previous run's log stays beside the new one: after a kill -9 it says what the broker was doing.
  [[ -s "$logfile" ]] && mv "$logfile" "$logfile.1"
  : > "$logfile"
  nohup "${java_cmd[@]}" kafka.Kafka "$state/server.properties" >>"$logfile" 2>&1 </dev/null &
  echo $! > "$pidfile"
}

await_start() {
  local waited=0
  until grep -q 'Kafka Server started' "$logfile"; do
    running || { tail -n 30 "$logfile" >&2; die "broker $node exited during start (log: $logfile)"; }
    (( waited >= timeout * 5 )) && { tail -n 30 "$logfile" >&2; stop; die "broker $node did not start within ${timeout}s"; }
    sleep 0.2; waited=$((waited + 1))
  done
  echo "kafka.sh: broker $node up on 127.0.0.1:$port (pid $(cat "$pidfile"), state $state)" >&2
}

signal() {
  running || { rm -f "$pidfile"; echo "kafka.sh: no broker runs from $state" >&2; return 1; }
  kill "-$1" "$(cat "$pidfile")"
}

# Waits for the broker signalled last, forcing it after 30 s.
await_stop() {
  [[ -f "$pidfile" ]] || return 0
  local pid; pid="$(cat "$pidfile")"
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  rm -f "$pidfile"
  echo "kafka.sh: broker $node on 127.0.0.1:$port stopped" >&2
}

# A clean shutdown moves the broker's partition leaderships away first and keeps the next start fast
# (no log recovery).
stop() { signal TERM || return 0; await_stop; }

kill_now() {
  signal KILL || return 0
  local pid; pid="$(cat "$pidfile")"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$pidfile"
  echo "kafka.sh: broker $node on 127.0.0.1:$port killed (SIGKILL)" >&2
}

cluster_up() {
  mkdir -p "$root"
  # One cluster id, formatted into each broker's storage on its first start.
  [[ -f "$root/cluster.id" ]] || { resolve_jars; "${java_cmd[@]}" kafka.tools.StorageTool random-uuid > "$root/cluster.id"; }
  cluster_id="$(cat "$root/cluster.id")"
  for n in 1 2 3; do select_node "$n"; launch; done
  for n in 1 2 3; do select_node "$n"; await_start; done
}

cluster_down() {
  # All at once: each broker's controlled shutdown needs the controller quorum, which the first ones
  # to go would otherwise take with them.
  for n in 1 2 3; do select_node "$n"; signal TERM 2>/dev/null || true; done
  for n in 1 2 3; do select_node "$n"; await_stop; done
}

cluster_status() {
  local up=0
  for n in 1 2 3; do
    select_node "$n"
    if running; then echo "broker $n: up on 127.0.0.1:$port (pid $(cat "$pidfile"))"; up=$((up + 1)); else echo "broker $n: down"; fi
  done
  [[ $up -eq 3 ]]
}

usage() { echo "usage: kafka.sh up|down|status, or kafka.sh cluster up|down|status|stop N|kill N|start N" >&2; exit 2; }

if $cluster; then
  case "${1:-}" in
    up) cluster_up ;;
    down) cluster_down ;;
    status) cluster_status ;;
    stop) select_node "${2:-}"; stop ;;
    kill) select_node "${2:-}"; kill_now ;;
    start) [[ -f "$root/cluster.id" ]] || die "no cluster in $root: run 'kafka.sh cluster up' first"
      cluster_id="$(cat "$root/cluster.id")"; select_node "${2:-}"; launch; await_start ;;
    *) usage ;;
  esac
else
  case "${1:-}" in
    up) launch; await_start ;;
    down) stop ;;
    status) running ;;
    *) usage ;;
  esac
fi
