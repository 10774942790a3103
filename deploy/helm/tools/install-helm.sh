#!/usr/bin/env bash
# Puts a `helm` in .cache/helm/bin for cli/test/helm-chart.test.ts (which finds it there, or $HELM, or
# helm on PATH). Two ways, both from package registries:
#
#   install-helm.sh          prebuilt: Helm's Go code compiled into helm-java's native library, from
#                            Maven Central (pom.xml), run by HelmCli.java: `helm lint`, `helm template`,
#                            `helm version`. Needs Java 17 (a JDK: javac compiles HelmCli.java once)
#                            and Maven. What .ci/run uses.
#   install-helm.sh --go     the real helm CLI, built from its Go module (HELM_VERSION below) with
#                            `go install` (a Go as recent as that Helm's go.mod asks; go1.26.8 here). Go's
#                            module and build caches make a rebuild quick.
#
# Does nothing when .cache/helm/bin/helm already answers `helm version`. Timings measured here are in
# deploy/DESIGN.md ("helm lint and helm template in CI").
set -euo pipefail

HELM_VERSION=v3.21.4
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
bin="$root/.cache/helm/bin"
mode="${1:-java}"
mode="${mode#--}"

die() { echo "install-helm.sh: $*" >&2; exit 1; }

# The launcher is compiled from HelmCli.java: a checkout that changed it (or the pom) builds it again.
stamp="$root/.cache/helm-java/source.sha256"
sources="$(cat "$here/HelmCli.java" "$here/pom.xml" | sha256sum | cut -d' ' -f1)"
if [ -x "$bin/helm" ] && "$bin/helm" version >/dev/null 2>&1 && { [ "$mode" != java ] || [ "$(cat "$stamp" 2>/dev/null)" = "$sources" ]; }; then
  echo "install-helm.sh: $("$bin/helm" version) already in $bin"
  exit 0
fi
mkdir -p "$bin"

case "$mode" in
  go)
    command -v go >/dev/null || die "Go is needed for --go (or run without it: the prebuilt Helm SDK from Maven Central)"
    echo "install-helm.sh: building helm $HELM_VERSION with $(go version)" >&2
    GOBIN="$bin" GOFLAGS=-buildvcs=false go install -trimpath \
      -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION" \
      "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    ;;
  java)
    command -v java >/dev/null || die "Java 17 is needed (apt-get install openjdk-17-jdk-headless), or use --go"
    command -v javac >/dev/null || die "a JDK is needed to compile HelmCli.java (apt-get install openjdk-17-jdk-headless)"
    command -v mvn >/dev/null || die "Maven (mvn) is needed once to fetch helm-java from Maven Central"
    case "$(uname -m)" in
      x86_64|amd64) platform=linux-amd64 ;;
      aarch64|arm64) platform=linux-arm64 ;;
      *) die "no helm-java native library for $(uname -m); use --go" ;;
    esac
    lib="$root/.cache/helm-java/lib"
    classes="$root/.cache/helm-java/classes"
    rm -rf "$lib" "$classes"
    log="$(mktemp)"
    if ! mvn -q -B -Dstyle.color=never -f "$here/pom.xml" dependency:copy-dependencies -Dhelm-java.platform="$platform" \
      -DoutputDirectory="$lib" -DincludeScope=runtime >"$log" 2>&1; then
      cat "$log" >&2
      die "mvn could not fetch helm-java"
    fi
    rm -f "$log"
    javac -d "$classes" -cp "$lib/*" "$here/HelmCli.java"
    echo "$sources" > "$stamp"
    # JNA unpacks the native library into java.io.tmpdir on every run; a folder of our own keeps /tmp clean.
    cat > "$bin/helm" <<SHIM
#!/usr/bin/env bash
# helm lint / template / version on Helm's own code from helm-java (written by deploy/helm/tools/install-helm.sh).
tmp="\$(mktemp -d)"
trap 'rm -rf "\$tmp"' EXIT
java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.io.tmpdir="\$tmp" -cp "$classes:$lib/*" HelmCli "\$@"
SHIM
    chmod +x "$bin/helm"
    ;;
  *) die "unknown mode '$mode': give --java (default) or --go" ;;
esac

"$bin/helm" version >/dev/null || die "$bin/helm does not run"
echo "install-helm.sh: $("$bin/helm" version) in $bin"
