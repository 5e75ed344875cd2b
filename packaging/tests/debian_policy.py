# SPDX-License-Identifier: Apache-2.0
"""What Debian policy asks of each of qcm's .debs beyond their contents (docs/packaging.md,
"Debian policy and lintian"), for test_packaging.py:

  check_policy(debs, ...)  each package's machine-readable copyright file, its
                           changelog.Debian.gz (this version, this maintainer, gzip -9n), the
                           Maintainer set at configure time, the library's ldconfig trigger in
                           place of maintainer-script calls, qcm's man pages (qcm(1) naming
                           every flag the installed binary's --help prints) and the lintian
                           overrides;
  run_lintian(debs, ...)   lintian on the three: no error and no warning, and every override
                           in packaging/debian/lintian-overrides carries its reason.
"""
import gzip
import re
import shutil
import subprocess

from packaging_support import check, log, run

COPYRIGHT_FORMAT = "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
# What lintian calls a bogus mail host; the old placeholder was qcm@localhost.
PLACEHOLDER_HOSTS = ("localhost", "localdomain")


def _member(deb, path, work):
    """The bytes of one file of a .deb (its data), or None."""
    root = work / deb.stem
    if not root.exists():
        root.mkdir(parents=True)
        run(["dpkg-deb", "-x", deb, root])
    f = root / path.lstrip("./")
    return f.read_bytes() if f.is_file() else None


def _gunzip_reproducible(data, what):
    # RFC 1952: FLG (byte 3) without FNAME, MTIME (bytes 4-7) zero: what gzip -9n writes.
    check(data[:2] == b"\x1f\x8b", f"{what}: not gzip")
    check(not data[3] & 0x08 and data[4:8] == b"\0\0\0\0",
           f"{what}: carries a file name or a time stamp (gzip -n, as policy 4.4 asks)")
    check(data[8] == 2, f"{what}: not compressed with -9 (XFL {data[8]})")
    return gzip.decompress(data).decode()


def check_policy(debs, packages, runtime_control, work, maintainer, version, qcm_help):
    """debs/packages: {"qcm"|"runtime"|"dev": path / package name}; runtime_control: the
    library package's control files (`dpkg-deb -e`); qcm_help: the built qcm's --help."""
    check(re.fullmatch(r"[^<>]+ <[^<>@\s]+@([^<>@\s]+\.[^<>@\s]+)>", maintainer or ""),
           f"the configured maintainer {maintainer!r} is not 'Name <address>'")
    host = maintainer.rsplit("@", 1)[1].rstrip(">")
    check(not any(host == h or host.endswith("." + h) for h in PLACEHOLDER_HOSTS),
           f"the maintainer's address {maintainer!r} is a placeholder")
    for kind, deb in debs.items():
        package = packages[kind]
        got = run(["dpkg-deb", "-f", deb, "Maintainer"]).strip()
        check(got == maintainer, f"{package}: Maintainer {got!r}, configured {maintainer!r}")
        doc = f"./usr/share/doc/{package}"
        copyright_ = _member(deb, f"{doc}/copyright", work)
        check(copyright_ is not None, f"{package}: no {doc}/copyright")
        text = copyright_.decode()
        check(text.splitlines()[0] == COPYRIGHT_FORMAT, f"{package}: copyright is not DEP-5")
        check("\nFiles: *\nCopyright: " in text and "\nLicense: Apache-2.0\n" in text
               and "/usr/share/common-licenses/Apache-2.0" in text,
               f"{package}: copyright does not give Apache-2.0 for every file")
        check(f"Upstream-Contact: {maintainer}\n" in text, f"{package}: Upstream-Contact")
        changelog = _member(deb, f"{doc}/changelog.Debian.gz", work)
        check(changelog is not None, f"{package}: no {doc}/changelog.Debian.gz")
        text = _gunzip_reproducible(changelog, f"{package}: changelog.Debian.gz")
        check(text.startswith(f"qcm ({version}) "),
               f"{package}: the changelog's latest entry is not {version}: {text.splitlines()[0]}")
        check(re.search(rf"^ -- {re.escape(maintainer)}  \w\w\w, \d+ \w\w\w \d{{4}} ", text,
                         re.MULTILINE), f"{package}: the changelog's trailer names the maintainer")
        check(_member(deb, f"./usr/share/lintian/overrides/{package}", work) is not None,
               f"{package}: no lintian overrides file")

    # ldconfig by trigger (policy 8.1.1), no maintainer script calling it.
    runtime = runtime_control
    triggers = (runtime / "triggers").read_text() if (runtime / "triggers").exists() else ""
    check(re.search(r"^activate-noawait ldconfig$", triggers, re.MULTILINE),
           f"{packages['runtime']}: no 'activate-noawait ldconfig' trigger: {triggers!r}")
    for script in ("postinst", "postrm", "preinst", "prerm"):
        check(not (runtime / script).exists(), f"{packages['runtime']}: has a {script}")

    # The man pages, and qcm(1) against the binary's own --help.
    pages = {}
    for path in ("./usr/share/man/man1/qcm.1.gz", "./usr/share/man/man5/controller-manager.yaml.5.gz"):
        data = _member(debs["qcm"], path, work)
        check(data is not None, f"qcm: no {path}")
        pages[path] = _gunzip_reproducible(data, path)
    qcm1 = pages["./usr/share/man/man1/qcm.1.gz"]
    flags = sorted(set(re.findall(r"(?:^|\s)--([a-z][a-z-]*)", qcm_help)))
    check(len(flags) > 20, f"--help printed {len(flags)} flags")
    missing = [f for f in flags if "\\-\\-" + f.replace("-", "\\-") not in qcm1]
    check(not missing, f"qcm(1) lacks flags that --help prints: {missing}")
    check(".SH FIELDS" in pages["./usr/share/man/man5/controller-manager.yaml.5.gz"],
           "controller-manager.yaml(5) has no FIELDS")
    log(f"policy: copyright, changelog and maintainer {maintainer} in each package; ldconfig by "
        f"trigger; qcm(1) names all {len(flags)} flags of --help; controller-manager.yaml(5)")


def run_lintian(debs, overrides_file):
    lintian = shutil.which("lintian")
    check(lintian, "lintian is not installed (scripts/setup.sh installs it)")
    # Every override has its reason: a comment right above it.
    previous = ""
    for number, line in enumerate(overrides_file.read_text().splitlines(), 1):
        if line.strip() and not line.startswith("#"):
            check(previous.startswith("#"),
                   f"{overrides_file}:{number}: the override {line!r} has no reason above it")
        previous = line
    proc = subprocess.run([lintian, "--tag-display-limit", "0", "--show-overrides",
                           *map(str, debs)], capture_output=True, text=True)
    tags = [line for line in proc.stdout.splitlines() if re.match(r"^[A-Z]: ", line)]
    bad = [t for t in tags if t[0] in "EW"]
    overridden = [t for t in tags if t[0] == "O"]
    version = run([lintian, "--version"]).strip()
    for t in tags:
        log(f"  {t}")
    check(proc.returncode in (0, 1) and not re.search(r"^(internal error|error:)", proc.stderr,
                                                      re.MULTILINE),
           f"lintian failed to run (status {proc.returncode}): {proc.stderr}")
    check(not bad, f"lintian: {len(bad)} errors or warnings:\n" + "\n".join(bad))
    log(f"{version}: 0 errors, 0 warnings, {len(overridden)} overridden (with reasons), "
        f"{sum(t[0] == 'I' for t in tags)} informational")
