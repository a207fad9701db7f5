#!/usr/bin/env bash
# Optional, for a reader who has another C++ transcription of the articles
# with this benchmark's options and report line (a directory whose Makefile
# builds ./peer_bench): builds it and runs the tour with its column, "C++
# peer", beside the steps and the repository's own C++ column, interleaved
# workload by workload in the same session.
#
#   tests/bench/compare_peer.sh /path/to/that/directory [RUNS [N]]
#
# Its sources are copied into build/peer (nothing of it is kept in this
# repository).
set -euo pipefail
peer_src=${1:?usage: $0 /path/to/peer/directory [RUNS [N]]}
runs=${2:-5}
n=${3:-1000000}
root=$(cd "$(dirname "$0")/../.." && pwd)
work="$root/build/peer"
rm -rf "$work"
mkdir -p "$work"
cp -R "$peer_src"/. "$work"/
chmod -R u+w "$work"
make -C "$work" peer_bench
cd "$root"
cmake --preset tour -DLOCKSTEP_PEER_BENCH="$work/peer_bench" -DLOCKSTEP_TOUR_RUNS="$runs" -DLOCKSTEP_TOUR_N="$n"
cmake --build --preset tour
