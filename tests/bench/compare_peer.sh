#!/usr/bin/env bash
# Optional: the tour with one more column, another program with this
# benchmark's options and CSV (--csv FILE: tests/bench/harness.h; a program
# built on tests/bench/harness.c has both), run interleaved with the steps and
# the repository's own C++ column, workload by workload, in one session,
# and a table of every column over it.
#
#   tests/bench/compare_peer.sh PEER [RUNS [N [NAME]]]
#
# PEER is either a built program (e.g. the workloads built on cppcoro:
# .../cppcoro_bench_st, named "cppcoro" from its file name), or a directory
# with another C++ transcription of the articles whose Makefile builds
# ./peer_bench (named "C++ peer"); its sources are copied into build/peer.
# NAME overrides the column's name. Nothing of the peer is kept in this
# repository.
set -euo pipefail
peer=${1:?usage: $0 PEER_PROGRAM_OR_DIRECTORY [RUNS [N [NAME]]]}
runs=${2:-5}
n=${3:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -d "$peer" ]; then
    work="$root/build/peer"
    rm -rf "$work"
    mkdir -p "$work"
    cp -R "$peer"/. "$work"/
    chmod -R u+w "$work"
    make -C "$work" peer_bench
    program="$work/peer_bench"
    name=${4:-C++ peer}
else
    program=$(cd "$(dirname "$peer")" && pwd)/$(basename "$peer")
    base=$(basename "$peer")
    name=${4:-${base%%_bench*}}
fi
cd "$root"
cmake --preset tour -DLOCKSTEP_PEER_BENCH="$program" -DLOCKSTEP_PEER_NAME="$name" \
      -DLOCKSTEP_TOUR_RUNS="$runs" -DLOCKSTEP_TOUR_N="$n"
cmake --build --preset tour
