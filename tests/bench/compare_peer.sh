#!/usr/bin/env bash
# Builds the C++ peer benchmark and runs the tour with its column beside the
# steps' columns, interleaved workload by workload in the same session.
#
#   tests/bench/compare_peer.sh /path/to/peers/cxx20 [RUNS [N]]
#
# The peer's sources are copied into build/peer (nothing of it is kept in
# this repository); it needs g++ with C++20.
set -euo pipefail
peer_src=${1:?usage: $0 /path/to/peers/cxx20 [RUNS [N]]}
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
