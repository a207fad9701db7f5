#!/usr/bin/env python3
"""build_presets.py SOURCE BUILD: BUILD/CMakePresets.json, so that
`ctest --preset quick` works from inside a build directory (after
`cd build/test`): ctest reads CMakePresets.json in the current directory
only.

The file holds the project's test presets verbatim, and each configure
preset reduced to its name (and hidden, if it is) and its build directory,
SOURCE/build/<name>, where the project's presets put it. Written only when
its text changes. tests/CMakeLists.txt runs it at configure time.
Standard library only.
"""
import argparse
import json
from pathlib import Path


def configure_preset(preset, source):
    """A configure preset as the build's file has it: where its build is."""
    reduced = {"name": preset["name"]}
    if preset.get("hidden"):
        reduced["hidden"] = True
    reduced["binaryDir"] = f"{source}/build/{preset['name']}"
    return reduced


def build_presets(presets, source):
    """The build directory's presets, from the project's."""
    return {"version": 6,
            "configurePresets": [configure_preset(p, source) for p in presets["configurePresets"]],
            "testPresets": presets["testPresets"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source", type=Path, help="the project's source directory (its CMakePresets.json)")
    p.add_argument("build", type=Path, help="the build directory")
    args = p.parse_args()
    presets = json.loads((args.source / "CMakePresets.json").read_text(encoding="utf-8"))
    text = json.dumps(build_presets(presets, args.source.as_posix()), indent=2) + "\n"
    out = args.build / "CMakePresets.json"
    if not out.exists() or out.read_text(encoding="utf-8") != text:
        out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
