#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a source file of the tree lacks its SPDX-License-Identifier line.

qcm is Apache-2.0 (LICENSE). Every file that is code, build logic, a script, a manifest or a
configuration carries `SPDX-License-Identifier: Apache-2.0` within its first five lines (after
a shebang, where it has one). Exempt are the files that cannot hold a comment or are data:
see EXEMPT below, each with its reason.

    check_spdx.py <source dir>            check every file git knows (tracked or not ignored)
    check_spdx.py <source dir> --fix      insert the line where it is missing (a developer aid)
    check_spdx.py --self-test             the checker on a scratch tree: it must fail there
"""
import os
import re
import subprocess
import sys
import tempfile

LINE = "SPDX-License-Identifier: Apache-2.0"
HEAD_LINES = 5

# Comment syntax by file name or suffix; a file that matches none of these and no EXEMPT rule
# is an error too, so that a new kind of file gets a decision rather than a silent pass.
COMMENT = [
    (re.compile(r"\.(cpp|h|go)$"), "//"),
    (re.compile(r"\.(h|cpp)\.in$"), "//"),
    (re.compile(r"(^|/)CMakeLists\.txt$|\.cmake(\.in)?$"), "#"),
    (re.compile(r"\.(py|sh|yaml|yml|service|supp)$"), "#"),
    (re.compile(r"(^|/)(Containerfile|postinst|postrm|prerm|triggers|lintian-overrides|\.ci/run)$"), "#"),
    (re.compile(r"\.[1-8](\.in)?$"), '.\\"'),  # man pages (roff)
]
EXEMPT = [
    (re.compile(r"(^|/)LICENSE$"), "the license itself"),
    (re.compile(r"\.md$"), "documentation, under the repository's LICENSE"),
    (re.compile(r"\.trace$"), "conformance traces: generated data compared byte by byte"),
    (re.compile(r"^tests/fuzz/corpus/"), "fuzz inputs: data, byte for byte"),
    (re.compile(r"\.json(\.in)?$"), "JSON has no comments"),
    (re.compile(r"(^|/)go\.(mod|sum)$"), "Go module metadata, written by the go tool"),
    (re.compile(r"\.(crt|key)$"), "PEM test data"),
    (re.compile(r"(^|/)conffiles$"), "dpkg's conffiles list has no comment syntax"),
    (re.compile(r"(^|/)\.(clang-format|gitignore)$"), "tool settings, not source"),
    (re.compile(r"(^|/)changelog$"), "a Debian changelog has a fixed format"),
    (re.compile(r"(^|/)copyright$"), "the copyright file states the license itself"),
    (re.compile(r"\.(png|svg|gz)$"), "binary or generated artefact"),
]


def files(root):
    try:
        out = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=root, check=True, capture_output=True).stdout.decode()
        return sorted(f for f in out.split("\0") if f and os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (a source tarball): walk it, skipping build trees.
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".git" and not d.startswith("build")]
            found += [os.path.relpath(os.path.join(dirpath, f), root) for f in filenames]
        return sorted(found)


def classify(path):
    for rx, reason in EXEMPT:
        if rx.search(path):
            return None, reason
    for rx, comment in COMMENT:
        if rx.search(path):
            return comment, None
    return None, None


def check(root, fix=False):
    missing, unknown = [], []
    for path in files(root):
        comment, reason = classify(path)
        if comment is None:
            if reason is None:
                unknown.append(path)
            continue
        full = os.path.join(root, path)
        with open(full, encoding="utf-8") as f:
            text = f.read()
        if LINE in "\n".join(text.splitlines()[:HEAD_LINES]):
            continue
        missing.append(path)
        if fix:
            lines = text.splitlines(keepends=True)
            at = 1 if lines and lines[0].startswith("#!") else 0
            lines.insert(at, f"{comment} {LINE}\n")
            with open(full, "w", encoding="utf-8") as f:
                f.write("".join(lines))
    for path in missing:
        print(f"{path}: no '{LINE}' line in its first {HEAD_LINES} lines"
              + (" (inserted)" if fix else ""))
    for path in unknown:
        print(f"{path}: a kind of file check_spdx.py does not know: give it a comment syntax "
              "(COMMENT) or an exemption with a reason (EXEMPT)")
    if (missing and not fix) or unknown:
        return 1
    print(f"check_spdx: {len(files(root))} files, every source file carries its SPDX line")
    return 0


def self_test():
    """The checker fails on a file without the line, on a kind of file it does not know, and on
    the line too far down; it passes after a shebang and on exempt data."""
    cases = {
        "ok.cpp": "// " + LINE + "\nint x;\n",
        "ok.sh": "#!/bin/sh\n# " + LINE + "\n",
        "data.json": "{}\n",
    }
    bad = {
        "missing.cpp": "int x;\n",
        "late.py": "\n" * HEAD_LINES + "# " + LINE + "\n",
        "unknown.xyz": "# " + LINE + "\n",
    }
    with tempfile.TemporaryDirectory() as good_dir, tempfile.TemporaryDirectory() as bad_dir:
        for d, tree in ((good_dir, cases), (bad_dir, {**cases, **bad})):
            for name, text in tree.items():
                with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                    f.write(text)
        if check(good_dir) != 0:
            print("self-test: a tree whose files all carry the line failed")
            return 1
        if check(bad_dir) != 1:
            print("self-test: a tree with missing lines passed")
            return 1
        check(bad_dir, fix=True)
        with open(os.path.join(bad_dir, "missing.cpp"), encoding="utf-8") as f:
            if not f.read().startswith("// " + LINE + "\n"):
                print("self-test: --fix did not insert the line")
                return 1
    print("check_spdx self-test: passed")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    return check(sys.argv[1], fix="--fix" in sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
