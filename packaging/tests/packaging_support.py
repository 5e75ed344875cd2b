# SPDX-License-Identifier: Apache-2.0
"""What the packaging tests share (test_packaging.py, debian_policy.py): logging, checks that
fail with a message, running commands, scratch directories, and ELF and path inspection."""
import os
import pathlib
import re
import shutil
import subprocess


def log(message):
    print(f"packaging: {message}", flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def run(cmd, cwd=None, env=None, expect_fail=False, stdout_only=False):
    """Runs cmd; its output (stdout and stderr, or stdout only), or an AssertionError with the
    output if it did not succeed (or, with expect_fail, if it did)."""
    cmd = [str(c) for c in cmd]
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    output = p.stdout + p.stderr
    if (p.returncode != 0) != expect_fail:
        raise AssertionError(f"{' '.join(cmd)} exited with {p.returncode}:\n{output}")
    return p.stdout if stdout_only else output


def fresh(path):
    path = pathlib.Path(path)
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def clean_environment():
    """Nothing in the environment may make an installed binary, or the template's build, find
    libraries or packages of the build tree: every process here inherits this."""
    for name in ("LD_LIBRARY_PATH", "CMAKE_PREFIX_PATH", "QT_PLUGIN_PATH", "QcmSdk_DIR"):
        os.environ.pop(name, None)


def no_build_paths(root, forbidden):
    """Every file under root (binaries too, byte for byte) and every symlink target: none may
    contain a forbidden path."""
    needles = [(p, p.encode()) for p in forbidden]
    offenders = []
    for path in sorted(pathlib.Path(root).rglob("*")):
        if path.is_symlink():
            data = os.readlink(path).encode()
        elif path.is_file():
            data = path.read_bytes()
        else:
            continue
        for text, needle in needles:
            at = data.find(needle)
            if at >= 0:
                context = data[max(0, at - 40):at + len(needle) + 40]
                offenders.append(f"{path}: {text!r} in {context!r}")
    check(not offenders, "build paths in installed files:\n" + "\n".join(offenders))


def soname(library):
    m = re.search(r"\(SONAME\)\s+Library soname: \[(.*)\]", run(["readelf", "-d", library]))
    return m.group(1) if m else None


def runpath(binary):
    m = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[(.*)\]",
                  run(["readelf", "-d", binary]))
    return m.group(1) if m else None
