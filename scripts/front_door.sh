#!/bin/sh
# The front door as a newcomer meets it: a fresh clone of this checkout's HEAD, an empty
# per-task cache, then the design card's `pytest -n auto benchmarks/` with the Python on PATH
# (an environment with the package's test extras installed). Its exit status is pytest's.
# Timed as a whole process: farm-bench -n 3 --warmup 0 --timeout 1800 -- sh scripts/front_door.sh
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
corpus=${ALIAS_SHARED_CORPUS:-$here/../shared/corpus}
work=$(mktemp -d)
cache=$(mktemp -d)
trap 'rm -rf "$work" "$cache"' EXIT
git clone -q "$here" "$work/alias"
cd "$work/alias"
XDG_CACHE_HOME="$cache" ALIAS_SHARED_CORPUS="$corpus" python -m pytest -n auto benchmarks/ -q -p no:cacheprovider
