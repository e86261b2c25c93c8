#!/usr/bin/env bash
# Regenerates packages/canton/src/admin/gen/ from the .proto files here (offline: buf + the local protobuf-ts plugin).
# Usage: bash packages/canton/src/admin/proto/generate.sh   (from the repository root), or npm run proto:admin
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../../../.." && pwd)"
rm -rf "$here/../gen"
cd "$here"
"$root/node_modules/.bin/buf" generate --template buf.gen.yaml .
# Relative imports must carry the .ts extension (NodeNext resolution, run directly by tsx/vitest).
find "$here/../gen" -name '*.ts' -print0 | xargs -0 sed -i -E 's#(from "\.{1,2}/[^"]*)";#\1.ts";#'
