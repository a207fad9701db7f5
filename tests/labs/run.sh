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
# lab names under it failed. Your copy is never modified.
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
cmake --preset test -B "$build" -DLOCKSTEP_DOCS=OFF -DLOCKSTEP_UNIT_TIMEOUT=20 "-DLOCKSTEP_STEP_DIR_$nn=$copy" > "$build/lab.configure.log" 2>&1 ||
  { cat "$build/lab.configure.log"; echo "lab: the build could not be configured"; exit 1; }
# Only this step's executables: the other steps have not changed.
targets=$(cmake --build "$build" --target help | grep -o "[A-Za-z0-9_]*_step${nn}[A-Za-z0-9_]*" | sort -u || true)
if ! cmake --build "$build" -j "$jobs" ${targets:+--target $targets} > "$build/lab.build.log" 2>&1; then
  # A copy that does not compile is an answer too: show the compiler's words.
  grep -E "error|warning" "$build/lab.build.log" | head -20 || true
  echo "lab: full build log: $build/lab.build.log"
  echo "lab: your copy does not build"
  exit 1
fi

# The step's tests, without the ones that test something else than your code:
# docs, README lists, and the errata demonstrations (they build the article's
# variant of the step, and pass only when it fails).
exclude='docs|readme|errata'
[[ $stress == yes ]] || exclude="$exclude|stress"
log=$build/lab.log
set +e
ctest --test-dir "$build" -L "step$nn" -LE "^($exclude)\$" ${only:+-R "$only"} -j "$jobs" --output-on-failure > "$log" 2>&1
ctest_rc=$?
set -e

# ctest's summary: "100% tests passed, 0 tests failed out of 22".
summary=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1 || true)
total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<< "$summary")
nfailed=$(sed -E 's/.*passed, ([0-9]+) tests? failed.*/\1/' <<< "$summary")
if [[ -z $summary ]]; then
  tail -20 "$log"
  echo "lab: ctest ran no test (full output: $log)"
  exit 1
fi

# Failed test names, as ctest lists them at the end, under "The following
# tests FAILED:", one "<tab>12 - step03.task.x (Failed)" per line.
failed=$(awk '/^The following tests FAILED:/ { on = 1; next }
              on && /^[[:space:]]+[0-9]+ - / { print $3; next }
              on { on = 0 }' "$log" | sort -u)

# What a failing test said: its explorer verdict, Check failure or assert
# (failing those, the first line it printed that is not Check's own
# chatter); then, for a unit case, the "what it checks:" and "read:" lines
# of its report (tests/support/check_main.c), one per output line.
said() {
  awk -v t="$1" '
    $0 ~ ("Test +#[0-9]+: " t " ") { on = 1; next }
    on && (/^ *[0-9]+\/[0-9]+ Test/ || /^ +Start +[0-9]+:/ || /tests passed/) { on = 0 }
    !on { next }
    found == "" && (/explore: FAILED/ || /:[0-9]+:[EFS]:[^:]*:[^:]*:[0-9]+: / || /Assertion/) {
      line = $0; sub(/^ +/, "", line); sub(/^.*:[0-9]+:[EFS]:[^:]*:[^:]*:[0-9]+: /, "", line); found = line }
    first == "" && NF && !/^Running suite/ && !/^[0-9]+%: Checks/ { first = $0 }
    /^  what it checks: / && checks == "" { checks = $0; sub(/^  /, "", checks) }
    /^  read: / && read == "" { read = $0; sub(/^  /, "", read) }
    END { print (found != "" ? found : first); if (checks != "") print checks; if (read != "") print read }
  ' "$log"
}

# A case's "read:" names the README where its idea is explained first,
# often an earlier step's: point at this step's README too, which is the
# code the student changed.
this_readme=steps/$name/README.md
read_here() {
  local line=$1
  if [[ $line == "read: "* && $line != *"$this_readme"* ]]; then
    line="read: $this_readme (this step), and where the idea began: ${line#read: }"
  fi
  echo "$line"
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
    [[ -n ${msg%%$'\n'*} ]] || msg=$(grep -m1 -E "^[[:space:]]+[0-9]+ - $t " "$log" | sed 's/.* (/ctest: (/' || true)
    while IFS= read -r line; do
      [[ -n $line ]] || continue
      line=$(read_here "$line")
      echo "      ${line:0:300}"
    done <<< "$msg"
  done
fi

# The lab page, read for its test lists. Each exercise is "### N. title"
# under "## Break it", the challenge is the "### title" under "## Build it",
# and below each title:
#   **Caught by:** `test`, ...       tests that fail on every run (exercises)
#   **May catch it:** `test`, ...    race tests that fail on some runs only
#   **Checked by:** `test`, ...      the challenge's tests
# (a test is a `stepNN....` in backquotes; other backquoted words are text)
# Prints one line per exercise or challenge, its lists separated by tabs:
#   section<TAB>N<TAB>title<TAB>caught-or-checked names<TAB>may-catch names
lists() {
  awk 'function flush() { if (title != "" && section != "") print section "\t" n "\t" title "\t" always "\t" maybe
                          always = ""; maybe = "" }
       function names(line,   out) { out = ""
         while (match(line, /`step[0-9][0-9]\.[^`]+`/)) { out = out " " substr(line, RSTART + 1, RLENGTH - 2); line = substr(line, RSTART + RLENGTH) }
         return out }
       /^## / { flush(); title = ""
                section = ($0 ~ /^## Build it/) ? "challenge" : ($0 ~ /^## Break it/) ? "exercise" : "" }
       /^### / { flush(); title = $0; sub(/^### /, "", title); n = title; sub(/\..*/, "", n) }
       /^\*\*(Caught by|Checked by):\*\*/ { always = always names($0) }
       /^\*\*May catch it:\*\*/ { maybe = maybe names($0) }
       END { flush() }' "$lab"
}
has_failed() { grep -qx "$1" <<< "$failed"; }
page=${lab#"$root"/}

if [[ -n $only ]]; then
  echo
  echo "lab: only the tests matching $only ran: no report per exercise (it needs every test)"
elif [[ ! -f $lab ]]; then
  echo
  echo "lab: no lab page $lab: nothing to report per exercise"
elif [[ $challenge == yes ]]; then
  echo
  echo "lab: the challenge of $page (\"Build it\"), and its tests"
  found=no
  while IFS=$'\t' read -r section n title always maybe; do
    [[ $section == challenge && -n $always ]] || continue
    found=yes
    echo "  $title:"
    for t in $always; do
      if has_failed "$t"; then echo "    FAILED  $t"; else echo "    passed  $t"; fi
    done
  done < <(lists)
  [[ $found == yes ]] || echo "  (this lab has no challenge yet)"
else
  echo
  if [[ -n $exercise ]]; then
    echo "lab: exercise $exercise of $page, and which of the tests named under it failed"
  else
    echo "lab: the exercises of $page, and which of the tests named under each failed"
    echo "     (their tests overlap: one change can make another exercise's tests fail too):"
  fi
  found=no
  while IFS=$'\t' read -r section n title always maybe; do
    [[ $section == exercise && -n $always ]] || continue
    [[ -z $exercise || $n == "$exercise" ]] || continue
    found=yes
    caught="" missed="" raced=""
    for t in $always; do
      if has_failed "$t"; then caught="$caught $t"; else missed="$missed $t"; fi
    done
    for t in $maybe; do
      if has_failed "$t"; then raced="$raced $t"; fi
    done
    also=""
    [[ -z $raced ]] || also=" (and, this run, the race test(s)$raced, which fail on some runs only)"
    if [[ -n $caught && -z $missed ]]; then
      echo "  $title: caught by every test it lists:$caught$also"
    elif [[ -n $caught ]]; then
      echo "  $title: caught by$caught$also; these passed:$missed"
    elif [[ -n $raced ]]; then
      echo "  $title: caught only by the race test(s)$raced; the tests that always catch it passed:$missed"
    else
      echo "  $title: not applied, or not caught: its tests passed (${missed# })"
    fi
  done < <(lists)
  [[ $found == yes ]] || echo "  (no exercise $exercise in this lab)"
fi

# Skipped tests passed nothing: they are counted apart, with ctest's reasons
# ("Why 4 test(s) were skipped:", then "  name: reason" lines, from
# tests/support/CTestCustom.cmake.in): a component the step does not have
# yet, a race that one CPU cannot run.
skipped=$(awk '/^Why [0-9]+ test\(s\) were skipped:/ { on = 1; next }
               on && /^  [^ ]/ { print; next }
               on { on = 0 }' "$log")
# ctest's own count: "<tab> 68 - step03.event (Skipped)" under "The
# following tests did not run:"; a skip without a reason line is still one.
nskipped=$(grep -cE "^[[:space:]]+[0-9]+ - [^ ]+ \(Skipped\)$" "$log" || true)
[[ -n $skipped || $nskipped -eq 0 ]] ||
  skipped=$(grep -E "^[[:space:]]+[0-9]+ - [^ ]+ \(Skipped\)$" "$log" | sed -E 's/^[[:space:]]+[0-9]+ - /  /')
ran=$((total - nskipped))
also=""
if [[ $nskipped -gt 0 ]]; then
  echo
  echo "lab: $nskipped test(s) of step $nn skipped, and why:"
  echo "$skipped"
  also=" ($nskipped more skipped, listed above)"
fi

echo
echo "lab: full ctest output: $log"
if [[ $nfailed -eq 0 && $ctest_rc -eq 0 ]]; then
  echo "lab: all $ran tests that ran passed$also"
  exit 0
fi
echo "lab: $nfailed of $ran tests failed$also"
exit 1
