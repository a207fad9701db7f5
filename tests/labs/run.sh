#!/usr/bin/env bash
# Run a step's lab against your own copy of that step.
#
#   tests/labs/run.sh NN COPY [EXERCISE] [--stress]
#   tests/labs/run.sh NN COPY --challenge [--stress]
#
#   NN           the step's number, two digits: 01 ... 07
#   COPY         your copy of the step; it keeps the step's directory name
#                (cp -r steps/03-no-refcount /tmp/me/ gives /tmp/me/03-no-refcount)
#   EXERCISE     report only this "break it" exercise of docs/labs/NN-*.md (1, 2, ...);
#                without it, every exercise is reported
#   --challenge  report the lab's "build it" challenge instead of the exercises
#   --stress     also run the step's stress tests (minutes)
#   --only REGEX only the tests whose names match REGEX (ctest -R): a quick
#                look at one test; the per-exercise report needs them all
#
# For example:
#
#   tests/labs/run.sh 03 /tmp/me/03-no-refcount          every test, every exercise
#   tests/labs/run.sh 03 /tmp/me/03-no-refcount 1        every test, exercise 1's report
#   tests/labs/run.sh 07 /tmp/me/07-lock-free-event --challenge
#
# It configures a build of its own (build/lab-NN, or $LOCKSTEP_LAB_BUILD)
# with -DLOCKSTEP_STEP_DIR_NN pointing at your copy (student mode, see the
# top-level README), builds that step's tests and explorer, runs them all,
# lists the tests that failed and what each said, and then says, for each
# exercise (or the one you named, or the challenge), which of the tests the
# lab names under it failed (that report is tests/labs/report.py's, from
# ctest's results and the lab page). Your copy is never modified.
#
# Exit status: 0 when every test of the step that ran passed; 1 when a test
# failed or your copy does not build; 2 for a usage error. The last line
# says which, counting the tests that ran; the skipped ones (a component the
# step does not have yet, a race one CPU cannot run) are listed with their
# reasons above it and counted apart: "lab: all N tests that ran passed (K
# more skipped, listed above)", "lab: F of N tests failed (...)". The
# counts for each step are in docs/labs/README.md, checked against this
# script's real output by tests/docs/check_samples.py.
set -euo pipefail

usage() {
  echo "usage: $0 NN /path/to/your/NN-name [EXERCISE | --challenge] [--stress] [--only REGEX]" >&2
  echo "       (see the comment at the top of $0)" >&2
  exit 2
}
args=()
stress=no
challenge=no
only=""
while [[ $# -gt 0 ]]; do
  a=$1
  shift
  case $a in
    --only) [[ $# -gt 0 ]] || usage; only=$1; shift ;;
    --stress) stress=yes ;;
    --challenge) challenge=yes ;;
    -h | --help) usage ;;
    -*) echo "lab: unknown option $a" >&2; usage ;;
    *) args+=("$a") ;;
  esac
done
[[ ${#args[@]} -ge 2 && ${#args[@]} -le 3 ]] || usage
nn=${args[0]}
copy=${args[1]}
exercise=${args[2]:-}
[[ $nn =~ ^[0-9][0-9]$ ]] || usage
[[ -z $exercise || $exercise =~ ^[0-9]+$ ]] || { echo "lab: the exercise is a number, not $exercise" >&2; usage; }
[[ -z $exercise || $challenge == no ]] || { echo "lab: an exercise number or --challenge, not both" >&2; usage; }

root=$(cd "$(dirname "$0")/../.." && pwd)
copy=$(cd "$copy" 2>/dev/null && pwd) || { echo "lab: no directory ${args[1]}" >&2; exit 2; }
name=$(basename "$copy")
# The build knows a step by its directory name: the copy must keep it.
if [[ ! -d $root/steps/$name || ${name:0:2} != "$nn" ]]; then
  echo "lab: $copy must be a copy of steps/$nn-... and keep its name (e.g. .../$(basename "$root"/steps/"$nn"-*))" >&2
  exit 2
fi
lab=$root/docs/labs/$name.md
build=${LOCKSTEP_LAB_BUILD:-$root/build/lab-$nn}

# As many build jobs and tests at once as the machine has cores.
jobs=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
[[ $jobs =~ ^[0-9]+$ && $jobs -ge 1 ]] || jobs=2

cd "$root" # the presets are found in the current directory
mkdir -p "$build"
echo "lab: step $name from $copy"
echo "lab: building in $build, $jobs jobs (the first build of a step takes longest: 5 to 40 s measured on 2 cores, idle to busy)"
# A lost wake-up hangs a unit case: 20 seconds, not 900, before it counts as one.
settings=(-DLOCKSTEP_DOCS=OFF -DLOCKSTEP_UNIT_TIMEOUT=20 "-DLOCKSTEP_STEP_DIR_$nn=$copy")
# Configured already with these settings (a run before this one): configuring
# again would take seconds and change nothing. A change to the build's own
# files (a CMakeLists.txt, a new source file) makes the build configure
# again by itself; a change to the presets does not, so it counts here.
configured() {
  local cache=$build/CMakeCache.txt
  [[ -f $cache && ! CMakePresets.json -nt $cache ]] &&
    grep -q "^-- Build files have been written to" "$build/lab.configure.log" 2>/dev/null &&
    grep -qxF "LOCKSTEP_DOCS:BOOL=OFF" "$cache" && grep -qxF "LOCKSTEP_UNIT_TIMEOUT:STRING=20" "$cache" &&
    grep -qxF "LOCKSTEP_STEP_DIR_$nn:PATH=$copy" "$cache"
}
if ! configured; then
  cmake --preset test -B "$build" "${settings[@]}" > "$build/lab.configure.log" 2>&1 ||
    { cat "$build/lab.configure.log"; echo "lab: the build could not be configured"; exit 1; }
fi
# The step's tests, without the ones that test something else than your code:
# docs, README lists, and the errata demonstrations (they build the article's
# variant of the step, and pass only when it fails).
exclude='docs|readme|errata'
[[ $stress == yes ]] || exclude="$exclude|stress"
# Only this step's executables (the other steps have not changed), and of
# those only the ones these tests run, named in their commands: not the
# benchmark, nor the stress tests without --stress, nor the errata's builds
# of the article's code. ctest lists no command for a test whose program is
# not built yet (a build directory of an earlier, partial run): then, or if
# the commands name none, every executable of the step.
targets=$(cmake --build "$build" --target help | grep -o "[A-Za-z0-9_]*_step${nn}[A-Za-z0-9_]*" | sort -u || true)
needed=$(ctest --test-dir "$build" --show-only=json-v1 -L "step$nn" -LE "^($exclude)\$" ${only:+-R "$only"} 2>/dev/null |
  python3 "$root/tests/labs/needed.py" "$nn" $targets || true)
targets=${needed:-$targets}
if ! cmake --build "$build" -j "$jobs" ${targets:+--target $targets} > "$build/lab.build.log" 2>&1; then
  # A copy that does not compile is an answer too: show the compiler's words.
  grep -E "error|warning" "$build/lab.build.log" | head -20 || true
  echo "lab: full build log: $build/lab.build.log"
  echo "lab: your copy does not build"
  exit 1
fi

log=$build/lab.log
set +e
# -T Test: ctest also keeps its results as XML (Testing/<tag>/Test.xml),
# which report.py reads; the log is for the reader.
ctest --test-dir "$build" -T Test --no-compress-output -L "step$nn" -LE "^($exclude)\$" ${only:+-R "$only"} \
  -j "$jobs" --output-on-failure > "$log" 2>&1
ctest_rc=$?
set -e

# The report: the tests that failed and what each said, then each exercise
# (or the challenge) of the lab page with which of its tests failed, the
# skipped tests and why, and the last line (tests/labs/report.py).
exec python3 "$root/tests/labs/report.py" --root "$root" --build "$build" --log "$log" --lab "$lab" --step "$name" \
  ${exercise:+--exercise "$exercise"} ${only:+--only "$only"} $([[ $challenge == yes ]] && echo --challenge) \
  --ctest-rc "$ctest_rc"
