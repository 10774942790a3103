#!/usr/bin/env sh
# What the image's runtime stage holds, copied from a built checkout (`npm run build`) into <dest>:
#   <dest>/manifests  the root package.json and lockfile, each runtime workspace's package.json and
#                     the CLI's bin (npm links node_modules/.bin/sieve to it), for `npm ci --omit=dev`
#                     (testkit's package.json is left out, so its dependencies are not installed);
#   <dest>/app        each runtime workspace's dist/ and the files the code reads at run time: the
#                     migrations (core), the rubrics (judging), the web UI (dashboard), and the
#                     native Snappy binary (below).
# No sources: cli/bin/sieve runs dist/ where src/ is absent. deploy/Dockerfile and cli/test/dist.test.ts
# both use this script, so the test installs and runs what the image would.
#   deploy/runtime-tree.sh /tmp/sieve-runtime
set -eu
root=$(cd "$(dirname "$0")/.." && pwd -P)
dest=${1:?usage: deploy/runtime-tree.sh <dest>}
workspaces="protocol metrics core pii otlp queue http scoring llm judging review dataset collector ingester scorer judge replay dashboard sdk cli"

mkdir -p "$dest/manifests" "$dest/app"
cp "$root/package.json" "$root/package-lock.json" "$dest/manifests/"
for w in $workspaces; do
  if [ ! -f "$root/$w/dist/index.js" ]; then
    echo "runtime-tree.sh: no build in $w/dist: run \`npm run build\` first" >&2
    exit 2
  fi
  mkdir -p "$dest/manifests/$w" "$dest/app/$w"
  cp "$root/$w/package.json" "$dest/manifests/$w/"
  cp -R "$root/$w/dist" "$dest/app/$w/"
done
cp -R "$root/migrations" "$dest/app/"
cp -R "$root/judging/rubrics" "$dest/app/judging/"
cp -R "$root/dashboard/ui" "$dest/app/dashboard/"
cp -R "$root/cli/bin" "$dest/manifests/cli/"
# The native Snappy codec's prebuilt binary for this platform, an optional dependency of `snappy`:
# the image installs with --omit=optional to leave chDB out, which leaves it out too (the Kafka
# roles would then compress in JS, queue/src/snappy-codec.ts).
for binary in "$root"/node_modules/@napi-rs/snappy-*; do
  [ -d "$binary" ] || continue
  mkdir -p "$dest/app/node_modules/@napi-rs"
  cp -R "$binary" "$dest/app/node_modules/@napi-rs/"
done
# Declarations and build state are for compiling against the packages, not for running them.
find "$dest/app" \( -name '*.d.ts' -o -name '.tsbuildinfo' \) -type f -exec rm -f {} +
