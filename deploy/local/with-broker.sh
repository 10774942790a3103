#!/usr/bin/env bash
# Runs a command with KAFKA_BROKERS set. When it is set already, the command uses that cluster;
# otherwise a private broker is started on free ports in a temporary directory and stopped (and
# its data removed) when the command ends, whatever the outcome. `npm test` runs through this.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -n "${KAFKA_BROKERS:-}" ]]; then exec "$@"; fi

free_port() { node -e "const s=require('node:net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }
port="$(free_port)"
controller_port="$(free_port)"
while [[ "$controller_port" == "$port" ]]; do controller_port="$(free_port)"; done
state="$(mktemp -d "${TMPDIR:-/tmp}/sieve-kafka-XXXXXX")"
broker() { KAFKA_PORT="$port" KAFKA_CONTROLLER_PORT="$controller_port" KAFKA_STATE_DIR="$state" "$here/kafka.sh" "$1"; }

cleanup() { broker down || true; rm -rf "$state"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
broker up
KAFKA_BROKERS="127.0.0.1:$port" "$@"
