#!/usr/bin/env bash
# tests/mutants/run.sh: the mutation table.
#
# For every atomic operation with an explicit order stronger than relaxed in
# every step's src/*.c, build that step with the order weakened (one notch,
# and all the way to relaxed) and run the step's tests; for every logic
# mutant in logic.tsv, build the step with that edit and run its tests. Each
# mutant must be killed (a test fails) on every run.
#
# Two modes, each with its own results file, merged into one Markdown table
# (docs/MUTANTS.md by default):
#   default     the step's tests under ThreadSanitizer (memory orders) or the
#               sanitizer the logic.tsv row names: results in tsan.tsv;
#   --explorer  the schedule explorer alone (tests/explore), built without
#               any sanitizer: results in explorer.tsv.
# A run of one mode rewrites only its own column of the table.
#
# Mutants are built in student mode (-DLOCKSTEP_STEP_DIR_NN): each step is
# copied to a temporary directory and the copy is edited; the step sources
# are never modified. Not part of CI: see tests/mutants/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: tests/mutants/run.sh [options]

  --runs N          runs per mutant; a mutant counts as killed only if every
                    run kills it (default 3)
  --steps "03 05"   only these steps (default: every steps/NN-*/ directory)
  --only REGEX      only mutants whose id matches REGEX (ids are the row
                    anchors, e.g. m-03-task-c-simple_promise_abandon-acq_rel-acquire)
  --explorer        the explorer mode: judge each mutant by the step's schedule
                    explorer scenarios alone, built without any sanitizer
                    (results in explorer.tsv); default: the sanitizer mode
                    (results in tsan.tsv)
  --out FILE        write the table here (default docs/MUTANTS.md)
  --results DIR     the results files tsan.tsv and explorer.tsv (default
                    tests/mutants; seeded from there if DIR lacks them)
  --table-only      run nothing: rewrite the table from the results files
  --keep-going      run every mutant even after one survives or fails to build
                    (default: stop at the first survivor, still writing the table)
  --iterations N    LOCKSTEP_ITERATIONS for the stress tests under TSan
                    (default 20000; ten times that under ASan)
  --timeout S       per-test timeout in seconds; a hang counts as a kill (default 120)
  --list            print the mutants and exit (builds nothing)
  -h, --help        this text

Exit status: 0 if every mutant run was killed on every run, 1 otherwise.
Memory-order mutants run under ThreadSanitizer (setarch -R on Linux), or
under the explorer alone with --explorer.
EOF
}

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$REPO/tests/mutants"
RUNS=3
STEPS=""
ONLY=""
OUT="$REPO/docs/MUTANTS.md"
RESULTS_DIR="$HERE"
EXPLORER=0
TABLE_ONLY=0
KEEP_GOING=0
ITERATIONS=20000
TIMEOUT=120
LIST_ONLY=0
COMMAND_LINE="tests/mutants/run.sh$( (($#)) && printf ' %q' "$@")"

while (($#)); do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --steps) STEPS=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        --explorer) EXPLORER=1; shift ;;
        --results) RESULTS_DIR=$2; shift 2 ;;
        --table-only) TABLE_ONLY=1; shift ;;
        --keep-going) KEEP_GOING=1; shift ;;
        --iterations) ITERATIONS=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --list) LIST_ONLY=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "run.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs needs a positive number" >&2; exit 2; }
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
case "$RESULTS_DIR" in /*) ;; *) RESULTS_DIR="$PWD/$RESULTS_DIR" ;; esac

# A Check failure that only says a race test's two sides never met
# ("the await never suspended", "no waiter ever saw the event set ...").
INCONCLUSIVE_RE=':F:.*(never|no [a-z ]+ ever) '

log() { printf '[mutants %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 2; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/lockstep-mutants.XXXXXX")
cleanup() { rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the steps ---------------------------------------------------------------

declare -A STEP_NAME=() # NN -> NN-name
all_steps=()
for d in "$REPO"/steps/[0-9][0-9]-*/; do
    name=$(basename "$d")
    nn=${name:0:2}
    STEP_NAME[$nn]=$name
    all_steps+=("$nn")
done
if [[ -n $STEPS ]]; then
    read -r -a steps <<<"$STEPS"
    for nn in "${steps[@]}"; do
        [[ -n ${STEP_NAME[$nn]:-} ]] || die "no step $nn under steps/"
    done
else
    steps=("${all_steps[@]}")
fi

# ---- discovering the mutants -----------------------------------------------
#
# One record per mutant, tab-separated, in $WORK/mutants.tsv:
#   id step file line function kind sanitizer original mutant how section
# kind "order": how is "LINE:OCC", the OCCth occurrence of memory_order_ORIGINAL
#   on that line becomes memory_order_MUTANT.
# kind "logic": how is the row number in logic.tsv.

# The weakenings of an order, for an operation of kind load, store or rmw:
# one notch (what the order table of a step README argues about), and all
# the way to relaxed (the mistake of leaving orders out) where that is not
# the same mutant. relaxed has nothing weaker.
weaker() {
    local order=$1 op=$2
    case "$order" in
        seq_cst)
            case "$op" in load) echo acquire ;; store) echo release ;; *) echo acq_rel ;; esac
            echo relaxed ;;
        acq_rel) echo acquire; echo release; echo relaxed ;;
        acquire | release) echo relaxed ;;
    esac
}

# Prints "line<TAB>occurrence<TAB>function<TAB>call<TAB>order<TAB>op" for every
# explicit order stronger than relaxed passed to an atomic_*_explicit call.
# The function is the last line starting at column 0 with "name(" above.
# A call may span lines; the second order of a compare_exchange is its
# failure order, a load.
scan_orders() {
    awk '
    /^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ {
        if (match($0, /[A-Za-z_][A-Za-z0-9_]*\(/)) fn = substr($0, RSTART, RLENGTH - 1)
    }
    {
        line = $0
        delete seen
        while (match(line, /atomic_[a-z_]+_explicit[ \t]*\(|memory_order_[a-z_]+/)) {
            tok = substr(line, RSTART, RLENGTH)
            line = substr(line, RSTART + RLENGTH)
            if (tok ~ /^atomic_/) {
                call = tok; sub(/[ \t]*\($/, "", call); norders = 0
                continue
            }
            order = substr(tok, 14)
            seen[order]++
            if (call == "") continue
            norders++
            if (order == "relaxed") continue
            op = "rmw"
            if (call ~ /^atomic_load/) op = "load"
            else if (call ~ /^atomic_store/) op = "store"
            else if (call ~ /compare_exchange/ && norders == 2) op = "load"
            printf "%d\t%d\t%s\t%s\t%s\t%s\n", NR, seen[order], fn, call, order, op
        }
        if ($0 ~ /;/) call = ""
    }' "$1"
}

# The function enclosing LINE of FILE (for logic mutants).
enclosing_function() {
    awk -v want="$2" '
    NR > want { exit }
    /^[A-Za-z_]/ && /\(/ && !/;[ \t]*$/ {
        if (match($0, /[A-Za-z_][A-Za-z0-9_]*\(/)) fn = substr($0, RSTART, RLENGTH - 1)
    }
    END { print fn }' "$1"
}

# Decodes \n, \t and \\ in a logic.tsv text field.
unescape() { printf '%b' "$1"; }

# How often TEXT occurs in FILE, and the line where its first occurrence starts.
count_text() { TEXT=$2 perl -0777 -ne 'my $n = () = /\Q$ENV{TEXT}\E/g; print "$n\n"' "$1"; }
line_of_text() {
    TEXT=$2 perl -0777 -ne 'my $i = index($_, $ENV{TEXT}); print 1 + (() = substr($_, 0, $i) =~ /\n/g), "\n"' "$1"
}

anchor_slug() { echo "$1" | tr '.' '-'; }

# discover NN...: the mutants of these steps, one record per line.
discover() {
    declare -A used=()
    local nn name f rel base line occ fn call order op mut id
    for nn in "$@"; do
        name=${STEP_NAME[$nn]}
        for f in "$REPO/steps/$name"/src/*.c; do
            [[ -e $f ]] || continue
            rel=${f#"$REPO/steps/$name/"}
            base=$(anchor_slug "$(basename "$f")")
            while IFS=$'\t' read -r line occ fn call order op; do
                while read -r mut; do
                    id="m-$nn-$base-$fn-$order-$mut"
                    if [[ -n ${used[$id]:-} ]]; then
                        used[$id]=$((used[$id] + 1)); id="$id-${used[$id]}"
                    else
                        used[$id]=1
                    fi
                    printf '%s\t%s\t%s\t%s\t%s\torder\tthread\t%s\t%s\t%s:%s\tMemory orders\t%s\n' \
                        "$id" "$nn" "$rel" "$line" "$fn" "$order" "$mut" "$line" "$occ" "$call"
                done < <(weaker "$order" "$op")
            done < <(scan_orders "$f")
        done
    done

    local row=0 step file lname san section orig repl desc path n
    while IFS=$'\t' read -r step file lname san section orig repl desc; do
        row=$((row + 1))
        [[ -z $step || $step == \#* ]] && continue
        [[ " $* " == *" $step "* ]] || continue
        [[ -n ${STEP_NAME[$step]:-} ]] || die "logic.tsv row $row: no step $step"
        path="$REPO/steps/${STEP_NAME[$step]}/$file"
        [[ -f $path ]] || die "logic.tsv row $row: no file $path"
        n=$(count_text "$path" "$(unescape "$orig")")
        [[ $n == 1 ]] || die "logic.tsv row $row ($lname): the original text occurs $n times in steps/${STEP_NAME[$step]}/$file, not once"
        line=$(line_of_text "$path" "$(unescape "$orig")")
        fn=$(enclosing_function "$path" "$line")
        id="m-$step-$(anchor_slug "$(basename "$file")")-$lname"
        printf '%s\t%s\t%s\t%s\t%s\tlogic\t%s\t%s\t%s\t%s\t%s\t%s\n' \
            "$id" "$step" "$file" "$line" "$fn" "$san" "$lname" "$desc" "$row" "$section" ""
    done <"$HERE/logic.tsv"
}

# ---- building ----------------------------------------------------------------

# One build directory per sanitizer, configured once with every step in scope
# pointing at its copy under $WORK/src, so a mutant costs one object file
# and the step's relinks.
mkdir -p "$WORK/src"
for nn in "${steps[@]}"; do
    cp -R "$REPO/steps/${STEP_NAME[$nn]}" "$WORK/src/"
done

build_dir() { echo "$WORK/build-$1"; }

configure() {
    local san=$1 b flags=() nn sanvar=$1 cflags="-O1 -g" iterations=$ITERATIONS
    b=$(build_dir "$san")
    [[ -f $b/CMakeCache.txt ]] && return 0
    [[ $san == none ]] && { sanvar=""; cflags="-O2 -g"; }
    # Logic mutants run under ASan, which is cheaper than TSan and whose
    # races (a lost wake-up in a gap of a few instructions) are rare: ten
    # times the iterations, as the asan preset has five times the tsan one's.
    [[ $san == thread ]] || iterations=$((ITERATIONS * 10))
    for nn in "${steps[@]}"; do
        flags+=("-DLOCKSTEP_STEP_DIR_$nn=$WORK/src/${STEP_NAME[$nn]}")
    done
    log "configuring the $san build"
    local generator=()
    command -v ninja >/dev/null && generator=(-G Ninja)
    cmake -S "$REPO" -B "$b" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$cflags" "-DLOCKSTEP_SANITIZE=$sanvar" \
        "-DLOCKSTEP_ITERATIONS=$iterations" -DLOCKSTEP_DOCS=OFF "${flags[@]}" \
        >"$WORK/configure-$san.log" 2>&1 || { cat "$WORK/configure-$san.log" >&2; die "configure ($san) failed"; }
}

# The tests of step NN in build SAN, one per line: name, skip code, environment,
# working directory and command (the last two joined with \x1f). Placeholder tests (a step
# without a component) and tests that do not exercise the step's code
# (errata demonstration, README and docs checks) are left out. The explorer
# mode keeps only the explorer's scenarios (label explore).
list_tests() {
    local san=$1 nn=$2 cache="$WORK/tests-$1-$2.tsv" labels=(-L "^step$2\$")
    ((EXPLORER)) && labels+=(-L '^explore$')
    if [[ ! -f $cache ]]; then
        ctest --test-dir "$(build_dir "$san")" "${labels[@]}" -LE 'errata|readme|docs' --show-only=json-v1 |
            jq -r '.tests[] | select(has("command"))
                | (.properties // []) as $p
                | select([$p[] | select(.name == "SKIP_REGULAR_EXPRESSION" or .name == "PASS_REGULAR_EXPRESSION" or .name == "WILL_FAIL")] | length == 0)
                | [.name,
                   ([$p[] | select(.name == "SKIP_RETURN_CODE") | .value | tostring] | first // "-1"),
                   (["LOCKSTEP_MUTANT=1"] + [$p[] | select(.name == "ENVIRONMENT") | .value[]] | join("\u001f")),
                   ([$p[] | select(.name == "WORKING_DIRECTORY") | .value] | first // "."),
                   (.command | join("\u001f"))] | @tsv' >"$cache"
        [[ -s $cache ]] || die "no tests for step $nn in the $san build (is the step in CMakeLists.txt?)"
    fi
    cat "$cache"
}

# The step's test executables, the targets a mutant needs: unit_<component>_stepNN,
# stress_<component>_stepNN (tests/CMakeLists.txt names them so) and the
# schedule explorer's explore_<component>_stepNN (tests/explore), which finds a
# logic mistake in every run instead of when a race happens to hit it. The
# explorer mode builds only the last (not the errata variants, whose names go on).
step_targets() {
    local kinds='unit|stress|explore'
    ((EXPLORER)) && kinds='explore'
    cmake --build "$(build_dir "$1")" --target help |
        sed -n -E "s/^(($kinds)_[a-z0-9]+_step$2): .*/\\1/p" | sort -u
}

build_step() {
    local san=$1 nn=$2 targets
    mapfile -t targets < <(step_targets "$san" "$nn")
    ((${#targets[@]})) || die "no test executables for step $nn in the $san build (is the step in CMakeLists.txt?)"
    # Two jobs unless CMAKE_BUILD_PARALLEL_LEVEL says otherwise: the script
    # runs beside other work on a small machine.
    cmake --build "$(build_dir "$san")" --parallel "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" --target "${targets[@]}" \
        >"$WORK/build.log" 2>&1
}

# A hash of the step library's object files: a mutant that leaves them
# unchanged changes no code (e.g. it sits in an #ifdef branch the step's
# library does not compile) and is reported as such, not run. In the
# explorer mode, the library is the explorer's hooked build of the step.
objects_hash() {
    local lib="lockstep_step$2"
    ((EXPLORER)) && lib="lockstep_explore_step$2"
    find "$(build_dir "$1")" -path "*/$lib.dir/*" -name '*.o' -print0 |
        sort -z | xargs -0 cat | sha256sum | cut -d' ' -f1
}

# ---- mutating a copy -----------------------------------------------------------

restore() { cp "$REPO/steps/${STEP_NAME[$1]}/$2" "$WORK/src/${STEP_NAME[$1]}/$2"; }

# apply KIND STEP FILE ORIGINAL MUTANT HOW: edits the copy; fails if the edit
# did not change it.
apply() {
    local kind=$1 nn=$2 file=$3 orig=$4 mut=$5 how=$6
    local target="$WORK/src/${STEP_NAME[$nn]}/$file"
    restore "$nn" "$file"
    if [[ $kind == order ]]; then
        sed -i -E "${how%%:*}s/memory_order_${orig}\\b/memory_order_${mut}/${how##*:}" "$target"
    else
        local row orig_text repl_text
        row=$(sed -n "${how}p" "$HERE/logic.tsv")
        orig_text=$(unescape "$(cut -f6 <<<"$row")")
        repl_text=$(unescape "$(cut -f7 <<<"$row")")
        ORIG=$orig_text REPL=$repl_text perl -0777 -i -pe 's/\Q$ENV{ORIG}\E/$ENV{REPL}/' "$target"
    fi
    ! cmp -s "$target" "$REPO/steps/${STEP_NAME[$nn]}/$file"
}

# ---- running the tests -------------------------------------------------------

# Why a test failed, from its exit status and output, most specific first:
# a sanitizer's report, an assert() in the library, a Check assertion in the
# test (with its message), a leak, a timeout.
failure_kind() {
    local rc=$1 out=$2 k
    if k=$(grep -m1 -oE '^explore: FAILED \([^)]*\)' "$out"); then
        k=${k#*(}
        echo "explorer: ${k%)}"
    elif k=$(grep -m1 -oE '(Thread|Address|UndefinedBehavior)Sanitizer: [a-z-]+( [a-z-]+)?' "$out"); then
        case "$k" in
            "ThreadSanitizer: data race"*) echo "TSan data race" ;;
            ThreadSanitizer*) echo "TSan ${k#ThreadSanitizer: }" ;;
            AddressSanitizer*) echo "ASan ${k#AddressSanitizer: }" ;;
            *) echo "UBSan" ;;
        esac
    elif grep -q 'runtime error' "$out"; then
        echo "UBSan"
    elif k=$(grep -m1 -oE "Assertion \`.*' failed" "$out"); then
        k=${k#*\"}; k=${k%%\"*}
        ((${#k} > 60)) && k="${k:0:60}…"
        echo "assert: $k"
    elif k=$(grep -m1 -E ':F:' "$out"); then
        k=$(sed -E 's/^([^:]*:){6}[ ]*//' <<<"$k")
        ((${#k} > 60)) && k="${k:0:60}…"
        echo "Check: $k"
    elif grep -q 'LeakSanitizer' "$out"; then
        echo "leak"
    elif ((rc == 124 || rc == 137)); then
        echo "timeout"
    else
        echo "exit $rc"
    fi
}

# How many schedules the explorer output in FILE says it explored: on a pass,
# "explore: N schedules explored"; on a failure, only if the failure report
# gives the count ("after N schedules", "N schedules explored"). Empty if
# it does not say.
schedules_of() {
    grep -m1 -oE '^explore: .*\b[0-9]+ schedules? (explored|passed|tried)|^explore: .*\bafter [0-9]+ schedules?' "$1" |
        grep -oE '[0-9]+ schedules?' | tail -1 | grep -oE '^[0-9]+' || true
}

# run_tests SAN NN FIRST...: runs the step's tests, the named ones first,
# then unit before stress, and stops at the first failure. Prints
# "test<TAB>kind" for the killer, or nothing if every test passed. In the
# explorer mode, also writes to $WORK/schedules the schedules explored:
# by the failing scenario (if its output says), else by all of them.
run_tests() {
    local san=$1 nn=$2; shift 2
    local first=("$@") name skip env wd cmd rc n total=0
    local -a envs argv prefix=() sanenv=()
    case "$san" in
        thread)
            sanenv=("TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
            [[ $(uname -s) == Linux ]] && prefix=(setarch "$(uname -m)" -R) ;;
        address)
            sanenv=("ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1"
                "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1") ;;
    esac
    while IFS=$'\t' read -r name skip env wd cmd; do
        IFS=$'\x1f' read -r -a envs <<<"$env"
        IFS=$'\x1f' read -r -a argv <<<"$cmd"
        for attempt in 1 2 3; do
            rc=0
            (cd "$(build_dir "$san")" && cd "$wd" &&
                env "${sanenv[@]}" "${envs[@]}" timeout -k 10 "$TIMEOUT" "${prefix[@]}" "${argv[@]}") \
                </dev/null >"$WORK/test.out" 2>&1 || rc=$?
            # A race test that reports only that one side of its race never
            # won (its coverage guard: "... never suspended", "... never
            # came first") met no race this time, which a loaded machine
            # causes: that run proves nothing either way. Try again.
            if ((rc != 0)) && grep -qE "$INCONCLUSIVE_RE" "$WORK/test.out" &&
                ! grep -qE ':F:' <(grep -vE "$INCONCLUSIVE_RE" "$WORK/test.out") &&
                ! grep -qE 'Sanitizer|Assertion' "$WORK/test.out"; then
                log "$name: the race did not occur (attempt $attempt), running it again"
                rc=inconclusive
                continue
            fi
            break
        done
        [[ $rc == inconclusive ]] && continue
        if ((EXPLORER)); then
            n=$(schedules_of "$WORK/test.out")
            if ((rc == 0)); then
                if [[ -n $n && -n $total ]]; then total=$((total + n)); else total=""; fi
            elif ((rc != skip)); then
                echo "$n" >"$WORK/schedules"
            fi
        fi
        ((rc == 0 || rc == skip)) && continue
        printf '%s\t%s\n' "$name" "$(failure_kind "$rc" "$WORK/test.out")"
        return 0
    done < <(
        list_tests "$san" "$nn" | awk -F'\t' -v first="$(printf '%s\n' "${first[@]}")" '
            BEGIN { n = split(first, f, "\n"); for (i = 1; i <= n; i++) if (f[i] != "") rank[f[i]] = i }
            { r = ($1 in rank) ? rank[$1] : ($1 ~ /\.stress\./ ? 2000 : 1000); print r "\t" NR "\t" $0 }' |
            sort -t$'\t' -k1,1n -k2,2n | cut -f3-
    )
    if ((EXPLORER)); then echo "$total" >"$WORK/schedules"; fi
}

# ---- the results and the table ---------------------------------------------------
#
# Each mode keeps its results in a file of its own, one row per mutant id
# (tab-separated), after "# key: value" lines that describe its last run:
#   tsan.tsv      id, status (killed, survived (k/N), ...), killed-by cell
#   explorer.tsv  id, status (caught, survived (k/N), ...), explorer cell,
#                 wall time of the explorer runs in seconds
# A run merges its rows into its mode's file (a partial run, --only or
# --steps, replaces only its own rows), and the table is written from both
# files, so a run of one mode leaves the other's columns as they were.

if ((EXPLORER)); then MODE=explorer; else MODE=tsan; fi
RESULTS="$WORK/results.tsv" # this run's rows
: >"$RESULTS"
MODE_FILE="$RESULTS_DIR/$MODE.tsv"
RUN_DATE=$(date -u +%Y-%m-%dT%H:%MZ)
MACHINE="$(uname -srm), $(nproc) cores, $(${CC:-cc} --version | head -1)"
if ((EXPLORER)); then
    SETTINGS="the step's explorer scenarios only (ctest labels explore and stepNN, not errata), built without any sanitizer; per-scenario timeout ${TIMEOUT}s"
else
    SETTINGS="LOCKSTEP_ITERATIONS=$ITERATIONS under TSan, $((ITERATIONS * 10)) under ASan; per-test timeout ${TIMEOUT}s"
fi

mkdir -p "$RESULTS_DIR"
for m in tsan explorer; do
    [[ -f $RESULTS_DIR/$m.tsv || ! -f $HERE/$m.tsv ]] || cp "$HERE/$m.tsv" "$RESULTS_DIR/$m.tsv"
done

minutes() { printf '%d min %d s' $(($1 / 60)) $(($1 % 60)); }

# A partial run (--only, --steps) keeps the rows of the runs before it, so
# its results file keeps their description too ("# earlier: ..." lines); a
# full run replaces every row and drops them.
EARLIER=""
if [[ -f $MODE_FILE && ( -n $ONLY || -n $STEPS ) ]]; then
    EARLIER=$(
        grep '^# earlier: ' "$MODE_FILE" || true
        sed -n 's/^# command: //p' "$MODE_FILE" | head -1 | while read -r c; do
            echo "# earlier: $(sed -n 's/^# date: //p' "$MODE_FILE" | head -1), \`$c\`, $(sed -n 's/^# wall time: //p' "$MODE_FILE" | head -1)"
        done
    )
fi

# merge_results ELAPSED: this run's rows into its mode's file.
merge_results() {
    local tmp="$WORK/merge.tsv"
    {
        if ((EXPLORER)); then
            echo "# tests/mutants/run.sh --explorer: the explorer alone. Columns: id, status, first failing scenario and kind per run, seconds of explorer runs."
        else
            echo "# tests/mutants/run.sh: the step's tests under the sanitizers. Columns: id, status, first failing test and how per run."
        fi
        echo "# command: $COMMAND_LINE"
        echo "# date: $RUN_DATE"
        echo "# machine: $MACHINE"
        echo "# settings: $SETTINGS"
        echo "# runs: $RUNS"
        echo "# wall time: $(minutes "$1")"
        [[ -z $EARLIER ]] || echo "$EARLIER"
        {
            if [[ -f $MODE_FILE ]]; then
                { grep -v '^#' "$MODE_FILE" || true; } |
                    awk -F'\t' -v f="$RESULTS" '
                        BEGIN { while ((getline l < f) > 0) { split(l, a, "\t"); mine[a[1]] = 1 } }
                        !($1 in mine)'
            fi
            cat "$RESULTS"
        } | LC_ALL=C sort -t$'\t' -k1,1
    } >"$tmp"
    mv "$tmp" "$MODE_FILE"
}

md_escape() { sed -e 's/|/\\|/g' <<<"$1"; }

# meta FILE KEY: the value of "# KEY: value" in a results file.
meta() { [[ -f $1 ]] && sed -n "s/^# $2: //p" "$1" | head -1; }

# count MODE STATUS KIND: one more row of that status in that mode's summary
# (KIND: order or logic).
declare -A COUNTS=()
count() {
    local what
    case "$2" in
        killed | caught) what=ok ;;
        survived*) what=survived ;;
        "no code change") what=nocode ;;
        "not run") what=notrun ;;
        *) what=failed ;;
    esac
    COUNTS[$1/$what]=$((${COUNTS[$1/$what]:-0} + 1))
    case "$what" in
        ok | survived | failed)
            COUNTS[$1/total]=$((${COUNTS[$1/total]:-0} + 1))
            COUNTS[$1/$3/total]=$((${COUNTS[$1/$3/total]:-0} + 1))
            [[ $what == ok ]] && COUNTS[$1/$3/ok]=$((${COUNTS[$1/$3/ok]:-0} + 1)) ;;
    esac
    return 0
}

# summary MODE OK-WORD RUNS: the summary line of one mode.
summary() {
    local s="${COUNTS[$1/total]:-0} mutants, ${COUNTS[$1/ok]:-0} $2 $3/$3, ${COUNTS[$1/survived]:-0} survived"
    ((${COUNTS[$1/failed]:-0})) && s+=", ${COUNTS[$1/failed]} did not build"
    ((${COUNTS[$1/nocode]:-0})) && s+=" (${COUNTS[$1/nocode]} more change no code in the step's library and are not counted)"
    ((${COUNTS[$1/notrun]:-0})) && s+="; ${COUNTS[$1/notrun]} not run"
    s+=". Memory orders: ${COUNTS[$1/order/ok]:-0} of ${COUNTS[$1/order/total]:-0} $2"
    s+="; logic: ${COUNTS[$1/logic/ok]:-0} of ${COUNTS[$1/logic/total]:-0}"
    echo "$s"
}

# last_run FILE: the description of that mode's last run.
last_run() {
    if [[ ! -f $1 ]]; then
        echo "- not run yet"
        return
    fi
    echo "- command: \`$(meta "$1" command)\`"
    echo "- date: $(meta "$1" date)"
    echo "- machine: $(meta "$1" machine)"
    echo "- settings: $(meta "$1" settings)"
    echo "- wall time: $(meta "$1" "wall time")"
    if grep -q '^# earlier: ' "$1"; then
        echo "- rows it did not run are from earlier runs:"
        sed -n 's/^# earlier: /  - /p' "$1"
    fi
}

# write_table: docs/MUTANTS.md (or --out) from both results files, one row
# per mutant of every step, whichever steps this run covered.
write_table() {
    local -A t_status=() t_cell=() x_status=() x_cell=() x_time=()
    local id a b c
    if [[ -f $RESULTS_DIR/tsan.tsv ]]; then
        while IFS=$'\t' read -r id a b; do
            t_status[$id]=$a t_cell[$id]=$b
        done < <(grep -v '^#' "$RESULTS_DIR/tsan.tsv")
    fi
    if [[ -f $RESULTS_DIR/explorer.tsv ]]; then
        while IFS=$'\t' read -r id a b c; do
            x_status[$id]=$a x_cell[$id]=$b x_time[$id]=$c
        done < <(grep -v '^#' "$RESULTS_DIR/explorer.tsv")
    fi
    COUNTS=()

    local nn file line fn kind san orig mut how section call o m ts tc xs xc xt
    local rows="$WORK/rows.md" current=""
    : >"$rows"
    discover "${all_steps[@]}" | sort -t$'\t' -s -k2,2 >"$WORK/table.tsv"
    while IFS=$'\t' read -r id nn file line fn kind san orig mut how section call; do
        ts=${t_status[$id]:-not run} tc=${t_cell[$id]:-}
        xs=${x_status[$id]:-not run} xc=${x_cell[$id]:-} xt=${x_time[$id]:-}
        count tsan "$ts" "$kind"
        count explorer "$xs" "$kind"
        [[ -n $xt ]] && xt="$xt s"
        if [[ $nn != "$current" ]]; then
            current=$nn
            printf '\n<a id="step-%s"></a>\n\n### %s\n\n' "$nn" "${STEP_NAME[$nn]}" >>"$rows"
            printf '| step | file:line | function | original | mutant | killed by, TSan/ASan (run 1/2/3) | result | explorer alone (run 1/2/3) | explorer | explorer time |\n' >>"$rows"
            printf '|---|---|---|---|---|---|---|---|---|---|\n' >>"$rows"
        fi
        if [[ $kind == order ]]; then
            o="\`$orig\` (\`$call\`)" m="\`$mut\`"
        else
            o="logic: \`$orig\` (README: $section)" m=$(md_escape "$mut")
        fi
        printf '| <a id="%s"></a>%s | [%s:%s](../steps/%s/%s#L%s) | `%s` | %s | %s | %s | %s | %s | %s | %s |\n' \
            "$id" "$nn" "$file" "$line" "${STEP_NAME[$nn]}" "$file" "$line" "$fn" "$o" "$m" \
            "$(md_escape "$tc")" "$ts" "$(md_escape "$xc")" "$xs" "$xt" >>"$rows"
    done <"$WORK/table.tsv"

    local truns xruns
    truns=$(meta "$RESULTS_DIR/tsan.tsv" runs || true)
    xruns=$(meta "$RESULTS_DIR/explorer.tsv" runs || true)
    T_SUMMARY=$(summary tsan killed "${truns:-$RUNS}")
    X_SUMMARY=$(summary explorer caught "${xruns:-$RUNS}")

    mkdir -p "$(dirname "$OUT")"
    {
        cat <<EOF
# Mutation table

Generated by [\`tests/mutants/run.sh\`](../tests/mutants/README.md) from its
results files ([\`tsan.tsv\`](../tests/mutants/tsan.tsv) and
[\`explorer.tsv\`](../tests/mutants/explorer.tsv)); do not edit by hand.

Each row is one mutant: a step built with one atomic operation's memory
order weakened, one notch (\`acq_rel\`→\`acquire\`, \`acq_rel\`→\`release\`,
\`acquire\`→\`relaxed\`, \`release\`→\`relaxed\`, \`seq_cst\`→the next
weaker) and all the way to \`relaxed\` (\`acq_rel\`→\`relaxed\`,
\`seq_cst\`→\`relaxed\`), or with one of the logic mistakes its README
teaches ([\`tests/mutants/logic.tsv\`](../tests/mutants/logic.tsv)). Two
runs of the script judge each mutant, each filling its own columns:

- **killed by, TSan/ASan** (\`tests/mutants/run.sh\`): the step's tests
  (unit, stress and explorer), memory-order mutants under ThreadSanitizer,
  logic mutants under the sanitizer the row of \`logic.tsv\` names. The
  cell names the first test that failed on each run and how (a TSan
  report, an ASan report, a failed assertion or Check assertion, the
  explorer, a timeout). **result**: \`killed\` only if every run killed it.
- **explorer alone** (\`tests/mutants/run.sh --explorer\`): only the step's
  schedule explorer scenarios ([\`tests/explore\`](../tests/explore/README.md)),
  built without any sanitizer, so the explorer's own C11 memory model has
  to find the mutant. The cell names the first scenario that failed on each
  run and the kind of failure the explorer reported (\`explore: FAILED
  (kind)\`), with the schedules it had explored when its output says so.
  **explorer**: \`caught\` only if every run caught it. **explorer time**:
  wall time of the mutant's explorer runs, all runs together (not the build).

In both, "—" means the run passed every test: the mutant survived that run;
"×3" means every run agrees. A surviving mutant is a missing test or an
order stronger than needed; the step README says which. "not run": that
mode has not judged the mutant (yet). Rows marked "no code change" are
operations the step's library does not compile (step 03's article
\`abandon()\`, kept under \`LOCKSTEP_ARTICLE_ABANDON\` for the errata
demonstration): they are listed, not counted.

The last run with the sanitizers:

$(last_run "$RESULTS_DIR/tsan.tsv")

**TSan/ASan: $T_SUMMARY**

The last run of the explorer alone:

$(last_run "$RESULTS_DIR/explorer.tsv")

**Explorer alone: $X_SUMMARY**
EOF
        cat "$rows"
    } >"$OUT"
}

# ---- main ---------------------------------------------------------------------

discover "${steps[@]}" >"$WORK/all.tsv"
if [[ -n $ONLY ]]; then
    awk -F'\t' -v re="$ONLY" '$1 ~ re' "$WORK/all.tsv" >"$WORK/mutants.tsv"
else
    cp "$WORK/all.tsv" "$WORK/mutants.tsv"
fi
# Memory-order mutants first, then logic ones; each step's in file order.
sort -t$'\t' -s -k2,2 "$WORK/mutants.tsv" -o "$WORK/mutants.tsv"

if ((LIST_ONLY)); then
    awk -F'\t' '{ printf "%-60s %s:%s  %s  %s -> %s\n", $1, $3, $4, $5, $8, $9 }' "$WORK/mutants.tsv"
    exit 0
fi
if ((TABLE_ONLY)); then
    write_table
    log "TSan/ASan: $T_SUMMARY"
    log "explorer alone: $X_SUMMARY"
    log "table written to $OUT"
    exit 0
fi
[[ -s $WORK/mutants.tsv ]] || die "no mutants match"
log "$(wc -l <"$WORK/mutants.tsv") mutants, $RUNS runs each$( ((EXPLORER)) && echo ", the explorer alone")"

start=$SECONDS
declare -A BASELINE=() # san/nn -> objects hash of the unmutated step
ANY_BAD=0

baseline() {
    local san=$1 nn=$2
    [[ -n ${BASELINE[$san/$nn]:-} ]] && return 0
    configure "$san"
    log "step $nn ($san): baseline build and run"
    build_step "$san" "$nn" || { cat "$WORK/build.log" >&2; die "step $nn does not build ($san)"; }
    local killer
    killer=$(run_tests "$san" "$nn")
    [[ -z $killer ]] || { cat "$WORK/test.out" >&2; die "step $nn fails unmutated ($san): $killer"; }
    BASELINE[$san/$nn]=$(objects_hash "$san" "$nn")
}

# explorer_verdict KILLER: the explorer mode's cell for one run, from
# run_tests' output ("" if every scenario passed) and $WORK/schedules:
# "`event.set_vs_await`: data race", or "—".
explorer_verdict() {
    local n v
    n=$(cat "$WORK/schedules" 2>/dev/null || true)
    if [[ -n $1 ]]; then
        v="\`$(sed -E 's/^step[0-9]+\.explore\.//' <<<"${1%%$'\t'*}")\`: ${1#*$'\t'}"
        v=${v/: explorer: /: }
        [[ -n $n ]] && v+=" (after $n schedules)"
    else
        v="—"
        [[ -n $n ]] && v+=" ($n schedules, every one passed)"
    fi
    echo "$v"
}

while IFS=$'\t' read -r id nn file line fn kind san orig mut how section call; do
    ((EXPLORER)) && san=none
    baseline "$san" "$nn"
    if ! apply "$kind" "$nn" "$file" "$orig" "$mut" "$how"; then
        die "$id: the edit changed nothing"
    fi
    status="" cell="" seconds=""
    if ! build_step "$san" "$nn"; then
        status="does not build" cell=$(grep -m1 -E 'error' "$WORK/build.log" || true)
    elif [[ $(objects_hash "$san" "$nn") == "${BASELINE[$san/$nn]}" ]]; then
        status="no code change" cell="(not run)"
    else
        kills=0 killers=() cells=()
        t0=$EPOCHREALTIME
        for ((r = 1; r <= RUNS; r++)); do
            rm -f "$WORK/schedules"
            killer=$(run_tests "$san" "$nn" "${killers[@]}")
            if [[ -n $killer ]]; then
                kills=$((kills + 1))
                killers=("${killer%%$'\t'*}" "${killers[@]}")
            fi
            if ((EXPLORER)); then
                cells+=("$(explorer_verdict "$killer")")
            elif [[ -n $killer ]]; then
                cells+=("\`${killer%%$'\t'*}\` (${killer#*$'\t'})")
            else
                cells+=("—")
            fi
        done
        seconds=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
        # One entry if every run agrees, else one per run.
        if [[ $(printf '%s\n' "${cells[@]}" | sort -u | wc -l) == 1 ]]; then
            cell="${cells[0]} ×$RUNS"
        else
            cell=$(printf '%s / ' "${cells[@]}") cell=${cell% / }
        fi
        if ((kills == RUNS)); then
            status=killed
            ((EXPLORER)) && status=caught
        else
            status="survived ($kills/$RUNS)"
        fi
    fi
    restore "$nn" "$file"
    if ((EXPLORER)); then
        printf '%s\t%s\t%s\t%s\n' "$id" "$status" "$cell" "$seconds" >>"$RESULTS"
        log "$id: $status: $cell${seconds:+ ($seconds s)}"
    else
        printf '%s\t%s\t%s\n' "$id" "$status" "$cell" >>"$RESULTS"
        log "$id: $status: $cell"
    fi
    # After every mutant, so an interrupted run keeps what it found
    # (--table-only then writes the table).
    merge_results "$((SECONDS - start))"
    if [[ $status != killed && $status != caught && $status != "no code change" ]]; then
        ANY_BAD=1
        if ((!KEEP_GOING)); then
            log "stopping at the first survivor (--keep-going runs them all)"
            break
        fi
    fi
done <"$WORK/mutants.tsv"

merge_results "$((SECONDS - start))"
write_table
if ((EXPLORER)); then log "explorer alone: $X_SUMMARY"; else log "TSan/ASan: $T_SUMMARY"; fi
log "results in $MODE_FILE, table written to $OUT"
exit "$ANY_BAD"
