#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft, combined broker + controller) on 127.0.0.1, for
# development and tests. Needs Java 17 and Maven; the jars come from Maven Central via pom.xml.
#
#   kafka.sh up      resolve jars (first run), format storage (first run), start, wait until it answers
#   kafka.sh down    stop the broker started from the same state directory
#   kafka.sh status  exit 0 when it runs
#
# Environment:
#   KAFKA_PORT             client port (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller port (default KAFKA_PORT + 1)
#   KAFKA_STATE_DIR        data, log and pid file (default deploy/local/.kafka/state/<port>)
#   KAFKA_HEAP             JVM heap (default 512m)
#   KAFKA_START_TIMEOUT    seconds to wait for the broker (default 90)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
port="${KAFKA_PORT:-9092}"
controller_port="${KAFKA_CONTROLLER_PORT:-$((port + 1))}"
state="${KAFKA_STATE_DIR:-$here/.kafka/state/$port}"
heap="${KAFKA_HEAP:-512m}"
timeout="${KAFKA_START_TIMEOUT:-90}"
lib="$here/.kafka/lib"
pidfile="$state/broker.pid"
logfile="$state/broker.log"

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

java_cmd=(java -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true
  -Dlog4j2.configurationFile="$here/log4j2.properties" -cp "$lib/*")

running() { [[ -f "$pidfile" ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

write_config() {
  mkdir -p "$state/data"
  cat > "$state/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$state/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
num.network.threads=2
num.io.threads=4
log.retention.hours=24
PROPS
}

up() {
  if running; then echo "kafka.sh: broker already runs on 127.0.0.1:$port (pid $(cat "$pidfile"))" >&2; return; fi
  command -v java >/dev/null || die "Java 17+ is needed to run the Kafka broker"
  resolve_jars
  write_config
  if [[ ! -f "$state/data/meta.properties" ]]; then
    "${java_cmd[@]}" kafka.tools.StorageTool format -t "$("${java_cmd[@]}" kafka.tools.StorageTool random-uuid)" \
      -c "$state/server.properties" >"$state/format.log" 2>&1 || { cat "$state/format.log" >&2; die "storage format failed"; }
  fi
  : > "$logfile"
  nohup "${java_cmd[@]}" kafka.Kafka "$state/server.properties" >>"$logfile" 2>&1 </dev/null &
  echo $! > "$pidfile"
  local waited=0
  until grep -q 'Kafka Server started' "$logfile"; do
    running || { tail -n 30 "$logfile" >&2; die "broker exited during start (log: $logfile)"; }
    (( waited >= timeout * 5 )) && { tail -n 30 "$logfile" >&2; down; die "broker did not start within ${timeout}s"; }
    sleep 0.2; waited=$((waited + 1))
  done
  echo "kafka.sh: broker up on 127.0.0.1:$port (pid $(cat "$pidfile"), state $state)" >&2
}

down() {
  running || { rm -f "$pidfile"; echo "kafka.sh: no broker runs from $state" >&2; return 0; }
  local pid; pid="$(cat "$pidfile")"
  kill -TERM "$pid"
  # A clean shutdown keeps the next start fast (no log recovery); give it 30s, then force.
  for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  rm -f "$pidfile"
  echo "kafka.sh: broker on 127.0.0.1:$port stopped" >&2
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) running ;;
  *) echo "usage: kafka.sh up|down|status" >&2; exit 2 ;;
esac
