#!/usr/bin/env bash
# The layers include one way only: base → io → loaders → shards → engine → apps. Fails naming
# every #include that points up the stack.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
layers=(base io loaders shards engine apps)
status=0
for ((i = 0; i < ${#layers[@]} - 1; ++i)); do
  above=$(IFS='|'; echo "${layers[*]:i+1}")
  if hits=$(grep -rnE "#include \"($above)/" "${layers[i]}" --include='*.h' --include='*.cc'); then
    echo "${layers[i]}/ must not include from $above/:"
    echo "$hits"
    status=1
  fi
done
exit $status
