#!/usr/bin/env bash
# Run a step's lab against your own copy of that step.
#
#   tests/labs/run.sh 03 /path/to/my/03-no-refcount            unit tests and explorer
#   tests/labs/run.sh 03 /path/to/my/03-no-refcount --stress   also the stress tests (minutes)
#
# It configures a build of its own (build/lab-NN, or $LOCKSTEP_LAB_BUILD)
# with -DLOCKSTEP_STEP_DIR_NN pointing at your copy (student mode, see the
# top-level README), builds that step's tests and explorer, runs them, and
# then prints, for each "break it" exercise of docs/labs/NN-*.md, which of
# the tests named under it caught your change. Your copy is never modified.
set -euo pipefail

usage() { echo "usage: $0 NN /path/to/your/NN-name [--stress]" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
nn=$1
copy=$2
stress=no
[[ ${3:-} == --stress ]] && stress=yes
[[ $nn =~ ^[0-9][0-9]$ ]] || usage

root=$(cd "$(dirname "$0")/../.." && pwd)
copy=$(cd "$copy" 2>/dev/null && pwd) || { echo "lab: no directory $2" >&2; exit 2; }
name=$(basename "$copy")
# The build knows a step by its directory name: the copy must keep it.
if [[ ! -d $root/steps/$name || ${name:0:2} != "$nn" ]]; then
  echo "lab: $copy must be a copy of steps/$nn-... and keep its name (e.g. .../$(basename "$root"/steps/"$nn"-*))" >&2
  exit 2
fi
lab=$root/docs/labs/$name.md
build=${LOCKSTEP_LAB_BUILD:-$root/build/lab-$nn}

cd "$root" # the presets are found in the current directory
mkdir -p "$build"
echo "lab: step $name from $copy"
echo "lab: building in $build (the first time takes a minute)"
# A lost wake-up hangs a unit case: 20 seconds, not 300, before it counts as one.
cmake --preset test -B "$build" -DLOCKSTEP_DOCS=OFF -DLOCKSTEP_UNIT_TIMEOUT=20 "-DLOCKSTEP_STEP_DIR_$nn=$copy" > "$build/lab.configure.log" 2>&1 ||
  { cat "$build/lab.configure.log"; exit 1; }
# Only this step's executables: the other steps have not changed.
targets=$(cmake --build "$build" --target help | grep -o "[A-Za-z0-9_]*_step${nn}[A-Za-z0-9_]*" | sort -u || true)
if ! cmake --build "$build" -j 4 ${targets:+--target $targets} > "$build/lab.build.log" 2>&1; then
  # A copy that does not compile is an answer too: show the compiler's words.
  grep -E "error|warning" "$build/lab.build.log" | head -20
  echo "lab: your copy does not build (full log: $build/lab.build.log)"
  exit 1
fi

# The step's tests, without the ones that test something else than your code:
# docs, README lists, and the errata demonstrations (they build the article's
# variant of the step, and pass only when it fails).
exclude='docs|readme|errata'
[[ $stress == yes ]] || exclude="$exclude|stress"
log=$build/lab.log
set +e
ctest --test-dir "$build" -L "step$nn" -LE "^($exclude)\$" -j 2 --output-on-failure > "$log" 2>&1
set -e
grep -E "tests passed|tests failed" "$log" || true

# Failed test names, as ctest lists them at the end, under "The following
# tests FAILED:", one "<tab>12 - step03.task.x (Failed)" per line.
failed=$(awk '/^The following tests FAILED:/ { on = 1; next }
              on && /^[[:space:]]+[0-9]+ - / { print $3; next }
              on { on = 0 }' "$log" | sort -u)

# What a failing test said: its explorer verdict, Check failure or assert;
# failing those, the first line it printed that is not Check's own chatter.
said() {
  awk -v t="$1" '
    $0 ~ ("Test +#[0-9]+: " t " ") { on = 1; next }
    on && (/^ *[0-9]+\/[0-9]+ Test/ || /^ +Start +[0-9]+:/ || /tests passed/) { exit }
    on && (/explore: FAILED/ || /:[0-9]+:[EFS]:[^:]*:[^:]*:[0-9]+: / || /Assertion/) {
      sub(/^ +/, ""); sub(/^.*:[0-9]+:[EFS]:[^:]*:[^:]*:[0-9]+: /, ""); found = $0; exit }
    on && first == "" && NF && !/^Running suite/ && !/^[0-9]+%: Checks/ { first = $0 }
    END { print (found != "" ? found : first) }
  ' "$log"
}

echo
if [[ -z $failed ]]; then
  echo "lab: every test of step $nn passed. Either your copy is right, or your change got past them:"
  echo "     which test should have caught it, and why did it not?"
else
  echo "lab: tests that failed, and what each said:"
  for t in $failed; do
    echo "  $t"
    msg=$(said "$t")
    # No message of its own (a crash, a timeout): ctest's verdict, e.g. "(SEGFAULT)".
    [[ -n $msg ]] || msg=$(grep -m1 -E "^[[:space:]]+[0-9]+ - $t " "$log" | sed 's/.* (/ctest: (/')
    echo "      ${msg:0:300}"
  done
fi

# Each exercise: "### N. title" and, below it, "**Caught by:** `test`, `test`".
if [[ -f $lab ]]; then
  echo
  echo "lab: the exercises of $(realpath --relative-to="$root" "$lab"), and which of the tests named under each failed"
  echo "     (their tests overlap: one change can make another exercise's tests fail too):"
  awk '/^### [0-9]+\./ { sub(/^### /, ""); title = $0 }
       /^\*\*Caught by:\*\*/ { line = $0; names = "";
         while (match(line, /`[^`]+`/)) { names = names " " substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
         print title "\t" names }' "$lab" |
  while IFS=$'\t' read -r title names; do
    caught="" missed=""
    for t in $names; do
      if grep -qx "$t" <<< "$failed"; then caught="$caught $t"; else missed="$missed $t"; fi
    done
    if [[ -n $caught ]]; then
      echo "  $title: caught by$caught"
    else
      echo "  $title: not caught (its tests passed:$missed)"
    fi
  done
fi
echo
echo "lab: full ctest output: $log"
