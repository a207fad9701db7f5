"""The `mutant NN MUTANT PROGRAM ARGS...` samples of check_samples.py: a
program of the lab's build of a copy of step NN with one edit (a student's
own copy of a step, under the explorer)."""
import subprocess

from samples_lab import prepare_copy
from samples_program import ROOT, TIMEOUT, run_program


def run_mutant(build, args, lab_build):
    """A program of a lab's build (LAB_BUILD) of a copy of the step with one
    edit."""
    if len(args) < 3:
        return None, "a mutant sample is `mutant NN MUTANT PROGRAM ARGS...`"
    nn = args[0]
    copy, err = prepare_copy(build, nn, args[1])
    if err:
        return None, err
    # Configured as tests/labs/run.sh configures it, so that both share it.
    steps = [["cmake", "--preset", "test", "-B", lab_build, "-DLOCKSTEP_DOCS=OFF", "-DLOCKSTEP_UNIT_TIMEOUT=20",
              f"-DLOCKSTEP_STEP_DIR_{nn}={copy}"],
             ["cmake", "--build", lab_build, "--target", args[2]]]
    for cmd in steps:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
                           timeout=TIMEOUT)
        if r.returncode != 0:
            return None, f"`{' '.join(map(str, cmd))}` failed:\n{r.stdout[-3000:]}"
    return run_program(lab_build, args[2:], fresh=True)
