#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The packaging tests (issue 7, section 4; docs/packaging.md, "The packaging test"). Each runs
on a built tree and works in --work-dir:

  install            `cmake --install` into a scratch prefix: every file where docs/packaging.md
                     says, the library's SONAME is libqcm-sdk.so.<ABI>, no file mentions the
                     build or source directory, the installed qcm runs from there (its RUNPATH,
                     no LD_LIBRARY_PATH) and lists the sample plugins of its own plugin
                     directory with no --plugin-dir; the CMake package resolves to the prefix
                     and accepts only its own major version.
  debs               cpack: the three .debs, their names, control fields (dpkg-shlibdeps'
                     dependencies and the exact libqcm-sdk<ABI> one), conffiles, maintainer
                     scripts and contents, and what Debian policy asks (debian_policy.py:
                     copyright, changelog, maintainer, ldconfig trigger, man pages). Leaves
                     them in <work-dir>/debs for the next three.
  lintian            lintian on those .debs: 0 errors, 0 warnings; each override has a reason.
  plugin_template    installs the .debs: unpacked with dpkg -x into a scratch root, or, in CI
                     (CI=true) as root, with `apt-get install ./*.deb` onto the machine so that
                     apt checks every declared dependency (and systemd-analyze, if there is
                     one, verifies the installed unit). Builds packaging/plugin-template
                     against the installed SDK (and runs its QtTest), puts its .so in the
                     installed qcm's plugin directory, and runs the installed qcm, with the
                     installed /etc/qcm/controller-manager.yaml, against the real test cluster
                     ($QCM_E2E_DIR): the plugin is listed, reaches `running`
                     (qcm_plugin_state), and annotates a labelled ConfigMap with the checksum of
                     its data, again after the data changes, and leaves an unlabelled one alone.
  tutorial           installs the .debs as plugin_template does and runs docs/plugin-author-guide.md
                     (tutorial.py): writes its files and runs its commands in order, in a fresh
                     folder, against the real test cluster: the plugin built, its tests (fake
                     client, TestEnvironment) passing, the .so dropped into a running qcm, and
                     the Greeting Ready with its ConfigMap holding the message.
  incompatible_sdk   the template built against a copy of the installed SDK whose version and
                     plugin ABI are one major ahead (version.h, plugin.h's IID, the CMake
                     package): find_package() refuses it for the template's 0.1 request; built
                     with a 1.0 request, the installed qcm refuses the .so with the
                     incompatible-SDK message, in --list-plugins, in its log and in
                     qcm_plugin_state.

    test_packaging.py --source-dir S --build-dir B --work-dir W --cmake CMAKE --cpack CPACK
                      --version V --abi N --sdk-package P --deb-revision R
                      --maintainer 'NAME <ADDRESS>' TEST
"""
import argparse
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
E2E = HERE.parent.parent / "tests" / "e2e"
sys.path.insert(0, str(E2E / "host"))
sys.path.insert(0, str(E2E / "leaderelection"))
import qcmhost  # noqa: E402
import debian_policy  # noqa: E402
import tutorial  # noqa: E402
from packaging_support import (check, clean_environment, fresh, log, no_build_paths,  # noqa: E402
                               run, runpath, soname)
from lecluster import Cluster  # noqa: E402

SAMPLES = ("sample-controller", "ttl-after-finished", "configmap-restarter")
PLUGIN = "configmap-checksum"
LABEL = "example.com/checksum"
ANNOTATION = "example.com/data-checksum"


def listing(qcm, args=()):
    """qcm --list-plugins: {file name: (name, version, state, enabled, error)}, and the
    lines that are not plugins."""
    out = run([qcm, "--list-plugins", *args], stdout_only=True)
    plugins, other = {}, []
    for line in out.splitlines()[1:]:
        m = re.match(r"^(\S+)\s+(\S+)\s+(\S+)\s+(yes|no)\s+(\S+\.so)\s*(.*)$", line)
        if m:
            plugins[pathlib.Path(m.group(5)).name] = (m.group(1), m.group(2), m.group(3),
                                                      m.group(4), m.group(6).strip())
        elif line.strip():
            other.append(line)
    return out, plugins, other


def expected_checksum(data):
    """What checksum.h computes: SHA-256 of the compact JSON of binaryData and data, sorted."""
    content = json.dumps({"binaryData": {}, "data": data}, separators=(",", ":"),
                         sort_keys=True)
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


class Tests:
    def __init__(self, args):
        self.args = args
        self.source = pathlib.Path(args.source_dir).resolve()
        self.build = pathlib.Path(args.build_dir).resolve()
        self.work = pathlib.Path(args.work_dir).resolve()
        self.template = self.source / "packaging" / "plugin-template"
        self.deb_version = f"{args.version}-{args.deb_revision}"
        self.cleanups = []

    # -- install ------------------------------------------------------------------------
    def test_install(self):
        prefix = fresh(self.work / "install") / "prefix"
        run([self.args.cmake, "--install", self.build, "--prefix", prefix])
        abi, version = self.args.abi, self.args.version
        libs = sorted(prefix.rglob(f"libqcm-sdk.so.{abi}"))
        check(len(libs) == 1, f"one libqcm-sdk.so.{abi} under {prefix}, not {libs}")
        libdir = libs[0].parent
        log(f"libdir {libdir.relative_to(prefix)}")
        check((libdir / f"libqcm-sdk.so.{version}").is_file(), "the versioned library")
        check(os.readlink(libdir / f"libqcm-sdk.so.{abi}") == f"libqcm-sdk.so.{version}",
              "libqcm-sdk.so.<ABI> -> libqcm-sdk.so.<version>")
        check(os.readlink(libdir / "libqcm-sdk.so") == f"libqcm-sdk.so.{abi}",
              "the development link libqcm-sdk.so -> libqcm-sdk.so.<ABI>")
        check(soname(libdir / f"libqcm-sdk.so.{version}") == f"libqcm-sdk.so.{abi}",
              "SONAME libqcm-sdk.so.<ABI>")

        qcm = prefix / "bin" / "qcm"
        check(qcm.is_file() and os.access(qcm, os.X_OK), "bin/qcm")
        rel = os.path.relpath(libdir, qcm.parent)
        check(runpath(qcm) == f"$ORIGIN/{rel}", f"qcm's RUNPATH is $ORIGIN/{rel}, "
              f"not {runpath(qcm)}")

        # Every public header but those that include yaml-cpp (the SDK's and the host's own).
        headers = {p.relative_to(self.source / "sdk" / "include")
                   for p in (self.source / "sdk" / "include" / "qcm").rglob("*.h")
                   if not re.search(r"^#include <yaml-cpp/", p.read_text(), re.MULTILINE)}
        installed = {p.relative_to(prefix / "include")
                     for p in (prefix / "include" / "qcm").rglob("*.h")}
        check(installed == headers | {pathlib.Path("qcm/version.h")},
              f"include/qcm holds the public headers: missing "
              f"{sorted(map(str, headers - installed))}, extra "
              f"{sorted(map(str, installed - headers - {pathlib.Path('qcm/version.h')}))}")
        version_h = (prefix / "include" / "qcm" / "version.h").read_text()
        check(f"#define QCM_ABI_VERSION {abi}\n" in version_h, "version.h's QCM_ABI_VERSION")

        plugin_dir = prefix / "lib" / "qcm" / "plugins"
        check(sorted(p.name for p in plugin_dir.iterdir()) ==
              sorted(f"lib{s}.so" for s in SAMPLES), f"the sample plugins in {plugin_dir}")

        cmake_dir = libdir / "cmake" / "QcmSdk"
        for name in ("QcmSdkConfig.cmake", "QcmSdkConfigVersion.cmake", "QcmSdkTargets.cmake",
                     "QcmControllerPlugin.cmake", "QcmControllerPlugin.json.in",
                     "QcmGenerateTypes.cmake"):
            check((cmake_dir / name).is_file(), f"{cmake_dir}/{name}")

        # qcm-gen: found relative to the installed SDK, and it generates a CRD's types.
        gen = prefix / "bin" / "qcm-gen"
        check(gen.is_file() and os.access(gen, os.X_OK), "bin/qcm-gen")
        check(runpath(gen) == f"$ORIGIN/{rel}", f"qcm-gen's RUNPATH is $ORIGIN/{rel}, not {runpath(gen)}")
        check((prefix / "share" / "man" / "man1" / "qcm-gen.1.gz").is_file(), "qcm-gen(1)")
        setup = prefix / "libexec" / "qcm" / "testenv-setup"
        check(setup.is_file() and os.access(setup, os.X_OK), "libexec/qcm/testenv-setup")
        # It finds the binaries setup.sh built (nothing to build) and prints the assets directory.
        assets = pathlib.Path(run([setup, "--assets"]).strip())
        check(all((assets / b).exists() for b in ("etcd", "kube-apiserver", "kubectl")),
              f"testenv-setup --assets prints a directory with the three binaries: {assets}")
        gen_out = fresh(self.work / "qcm-gen-out")
        run([gen, "--crd", prefix / "share" / "qcm" / "sample-controller" / "crd-status-subresource.yaml",
             "--out", gen_out])
        header = (gen_out / "samplecontroller" / "v1alpha1.h").read_text()
        check("class FooSpec : public ::qcm::typed::View" in header and
              "namespace samplecontroller::v1alpha1 {" in header,
              "the installed qcm-gen generates the sample CRD's types")
        check("Qcm::qcm-gen" in (cmake_dir / "QcmSdkTargets.cmake").read_text()
              + "".join(p.read_text() for p in cmake_dir.glob("QcmSdkTargets-*.cmake")),
              "the CMake package exports Qcm::qcm-gen")
        check(not (prefix / "etc").exists() and not list(prefix.rglob("*.service")),
              "a plain install leaves the system files (component qcm-system) out")
        check((prefix / "share" / "doc" / "qcm" / "packaging.md").is_file(), "the docs")

        no_build_paths(prefix, [str(self.source), str(self.build)])
        log("no build or source path in the installed files")

        out = run([qcm, "--version"])
        check(out.strip() == f"qcm {version} (plugin ABI {abi})", f"qcm --version: {out}")
        ldd = run(["ldd", qcm])
        m = re.search(rf"libqcm-sdk\.so\.{abi} => (\S+)", ldd)
        check(m and pathlib.Path(m.group(1)).resolve() == (libdir / f"libqcm-sdk.so.{abi}")
              .resolve(), f"the installed qcm loads the installed libqcm-sdk:\n{ldd}")
        out, plugins, other = listing(qcm)
        check(sorted(p[0] for p in plugins.values()) == sorted(SAMPLES) and not other,
              f"with no --plugin-dir, qcm lists the samples of {plugin_dir}:\n{out}")
        for line in out.splitlines()[1:]:
            check(str(plugin_dir) in line, f"a plugin outside {plugin_dir}: {line}")
        out = " ".join(run([qcm, "--help"]).split())
        check("(default <qcm's directory>/../lib/qcm/plugins)" in out, "--help names the default")

        self.check_package_config(prefix, cmake_dir)

    def check_package_config(self, prefix, cmake_dir):
        """A consumer project finds QcmSdk in the prefix: its target and variables point into
        the prefix, every installed header compiles with what the package gives (and none
        needs yaml-cpp), and the version file takes the same major version only."""
        project = fresh(self.work / "install" / "consumer")
        headers = sorted(str(p.relative_to(prefix / "include"))
                         for p in (prefix / "include" / "qcm").rglob("*.h"))
        for h in headers:
            check("#include <yaml-cpp" not in (prefix / "include" / h).read_text(),
                  f"the installed {h} includes yaml-cpp")
        # With the sample CRD's types, generated by the installed qcm-gen through the
        # package's qcm_generate_types().
        (project / "every_header.cpp").write_text(
            "".join(f"#include <{h}>\n" for h in headers)
            + "#include <samplecontroller/v1alpha1.h>\n"
            "int replicas(const qcm::client::Object &o)\n"
            "{ return int(samplecontroller::v1alpha1::Foo(o).spec().replicas().value_or(1)); }\n")
        (project / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.22)\n"
            "project(consumer LANGUAGES CXX)\n"
            "find_package(QcmSdk ${REQUEST} REQUIRED)\n"
            "add_library(every_header OBJECT every_header.cpp)\n"
            "target_link_libraries(every_header PRIVATE Qcm::Sdk)\n"
            f"qcm_generate_types(TARGET every_header CRDS {prefix}/share/qcm/sample-controller/"
            "crd-status-subresource.yaml)\n"
            "get_target_property(inc Qcm::Sdk INTERFACE_INCLUDE_DIRECTORIES)\n"
            "get_target_property(abi Qcm::Sdk QCM_ABI_VERSION)\n"
            "get_target_property(sdk Qcm::Sdk QCM_SDK_VERSION)\n"
            "get_target_property(links Qcm::Sdk INTERFACE_LINK_LIBRARIES)\n"
            # The build type the SDK was built with (RelWithDebInfo in CI, Release or none
            # in other trees): the exported target names its library under that one only.
            "get_target_property(configs Qcm::Sdk IMPORTED_CONFIGURATIONS)\n"
            "list(GET configs 0 config)\n"
            "string(TOUPPER \"${config}\" config)\n"
            "get_target_property(loc Qcm::Sdk IMPORTED_LOCATION_${config})\n"
            "if(NOT COMMAND qcm_add_controller_plugin)\n"
            "  message(FATAL_ERROR \"no qcm_add_controller_plugin\")\n"
            "endif()\n"
            "foreach(v inc abi sdk links loc QcmSdk_VERSION QcmSdk_ABI_VERSION "
            "QcmSdk_PLUGIN_DIR QcmSdk_PLUGIN_INSTALL_DIR)\n"
            "  message(STATUS \"${v}=${${v}}\")\n"
            "endforeach()\n")

        def configure(request, expect_fail=False):
            return run([self.args.cmake, "-S", project, "-B", project / f"build-{request}",
                        f"-DREQUEST={request}", f"-DCMAKE_PREFIX_PATH={prefix}",
                        "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF"], expect_fail=expect_fail)

        out = configure("0.1")
        run([self.args.cmake, "--build", project / "build-0.1"])
        log(f"the {len(headers)} installed headers compile against the package alone")
        values = dict(re.findall(r"^-- (\w+)=(.*)$", out, re.MULTILINE))
        expect = {
            "inc": str(prefix / "include"),
            "abi": str(self.args.abi),
            "sdk": self.args.version,
            "links": "Qt6::Core;Qt6::Network;Threads::Threads",
            "QcmSdk_VERSION": self.args.version,
            "QcmSdk_ABI_VERSION": str(self.args.abi),
            "QcmSdk_PLUGIN_DIR": str(prefix / "lib" / "qcm" / "plugins"),
            "QcmSdk_PLUGIN_INSTALL_DIR": "lib/qcm/plugins",
        }
        for key, value in expect.items():
            check(values.get(key) == value, f"{key}: expected {value!r}, got {values.get(key)!r}")
        check(pathlib.Path(values["loc"]).resolve() ==
              (cmake_dir.parent.parent / f"libqcm-sdk.so.{self.args.version}").resolve(),
              f"Qcm::Sdk's library: {values['loc']}")
        major = int(self.args.version.split(".")[0])
        out = " ".join(configure(f"{major + 1}.0", expect_fail=True).split())
        check("compatible with requested version" in out,
              f"find_package(QcmSdk {major + 1}.0) is refused:\n{out}")
        log("the CMake package: Qcm::Sdk in the prefix, SameMajorVersion")

    # -- debs ---------------------------------------------------------------------------
    def deb_names(self):
        arch = run(["dpkg", "--print-architecture"]).strip()
        return {
            "qcm": f"qcm_{self.deb_version}_{arch}.deb",
            "runtime": f"{self.args.sdk_package}_{self.deb_version}_{arch}.deb",
            "dev": f"libqcm-sdk-dev_{self.deb_version}_{arch}.deb",
        }

    def test_debs(self):
        out_dir = fresh(self.work / "debs")
        run([self.args.cpack, "--config", self.build / "CPackConfig.cmake", "-B", out_dir],
            cwd=self.build)
        names = self.deb_names()
        built = sorted(p.name for p in out_dir.glob("*.deb"))
        check(built == sorted(names.values()), f"the debs: {built}, expected {names}")
        debs = {k: out_dir / v for k, v in names.items()}

        def field(deb, name):
            return run(["dpkg-deb", "-f", deb, name]).strip()

        def contents(deb):
            lines = run(["dpkg-deb", "-c", deb]).splitlines()
            return [re.split(r"\s+", line, maxsplit=5)[5].split(" -> ")[0] for line in lines]

        def depends(deb):
            return [d.strip() for d in field(deb, "Depends").split(",")]

        sdk = self.args.sdk_package
        exact = f"{sdk} (= {self.deb_version})"
        # qcm
        deps = depends(debs["qcm"])
        log(f"qcm Depends: {', '.join(deps)}")
        check(exact in deps, f"qcm depends on exactly {exact}: {deps}")
        check("adduser" in deps, "qcm depends on adduser (its postinst)")
        for lib in ("libqt6core6", "libqt6network6", "libqt6httpserver6", "libyaml-cpp",
                    "libstdc++6", "libc6"):
            check(any(d.startswith(lib) for d in deps), f"dpkg-shlibdeps found {lib}: {deps}")
        files = contents(debs["qcm"])
        for path in ("./usr/bin/qcm", "./etc/qcm/controller-manager.yaml",
                     "./lib/systemd/system/qcm.service", "./usr/share/doc/qcm/packaging.md",
                     "./usr/share/qcm/sample-controller/crd-status-subresource.yaml",
                     *(f"./usr/lib/qcm/plugins/lib{s}.so" for s in SAMPLES)):
            check(path in files, f"{path} in the qcm package")
        check(not any("libqcm-sdk" in f or "/include/" in f for f in files),
              "the library and headers are not in the qcm package")
        control = fresh(self.work / "debs-control" / "qcm")
        run(["dpkg-deb", "-e", debs["qcm"], control])
        check((control / "conffiles").read_text().split() == ["/etc/qcm/controller-manager.yaml"],
              "/etc/qcm/controller-manager.yaml is a conffile")
        check(os.access(control / "postinst", os.X_OK) and
              "adduser --system" in (control / "postinst").read_text(),
              "postinst creates the system user")
        check(field(debs["qcm"], "Section") == "admin", "qcm's section")

        # libqcm-sdk<ABI>
        deps = depends(debs["runtime"])
        log(f"{sdk} Depends: {', '.join(deps)}")
        for lib in ("libqt6core6", "libqt6network6", "libssl3", "libyaml-cpp", "libc6"):
            check(any(d.startswith(lib) for d in deps), f"dpkg-shlibdeps found {lib}: {deps}")
        check(not any(d.startswith("libqt6httpserver") for d in deps),
              "the SDK does not need Qt HttpServer")
        files = contents(debs["runtime"])
        libs = [f for f in files if "/libqcm-sdk.so" in f]
        check(sorted(pathlib.Path(f).name for f in libs) ==
              sorted([f"libqcm-sdk.so.{self.args.abi}", f"libqcm-sdk.so.{self.args.version}"]),
              f"the runtime package holds the library and its SONAME link, no more: {libs}")
        control = fresh(self.work / "debs-control" / "runtime")
        run(["dpkg-deb", "-e", debs["runtime"], control])
        shlibs = (control / "shlibs").read_text().strip()
        check(shlibs == f"libqcm-sdk {self.args.abi} {sdk} (>= {self.deb_version})",
              f"the shlibs file: {shlibs!r}")
        runtime_control = control
        check(field(debs["runtime"], "Section") == "libs", "the library's section")

        # libqcm-sdk-dev
        deps = depends(debs["dev"])
        log(f"libqcm-sdk-dev Depends: {', '.join(deps)}")
        check(exact in deps, f"libqcm-sdk-dev depends on exactly {exact}: {deps}")
        check(any(d.startswith("qt6-base-dev") for d in deps), f"on qt6-base-dev: {deps}")
        files = contents(debs["dev"])
        check("./usr/include/qcm/plugin.h" in files and "./usr/include/qcm/version.h" in files,
              "the headers in the dev package")
        check("./usr/bin/qcm-gen" in files and "./usr/share/man/man1/qcm-gen.1.gz" in files,
              "qcm-gen and its man page in the dev package")
        check("./usr/libexec/qcm/testenv-setup" in files, "TestEnvironment's setup script in the dev package")
        check(any(d.startswith("libyaml-cpp") for d in deps),
              f"dpkg-shlibdeps found qcm-gen's libyaml-cpp: {deps}")
        check(any(f.endswith("/cmake/QcmSdk/QcmSdkConfig.cmake") for f in files),
              "the CMake package in the dev package")
        check(any(f.endswith("/libqcm-sdk.so") for f in files), "the development link")
        check(not any(re.search(r"libqcm-sdk\.so\.", f) for f in files),
              "no library file in the dev package")

        # Copyright, changelog, maintainer, the ldconfig trigger, the man pages.
        help_text = run([self.build / "app" / "qcm", "--help"])
        debian_policy.check_policy(
            debs, {"qcm": "qcm", "runtime": sdk, "dev": "libqcm-sdk-dev"}, runtime_control,
            fresh(self.work / "debs-data"), self.args.maintainer, self.deb_version, help_text)

        # What they install, together: no build path.
        root = fresh(self.work / "debs-root")
        for deb in debs.values():
            run(["dpkg-deb", "-x", deb, root])
        no_build_paths(root, [str(self.source), str(self.build)])
        log("the three debs are consistent; no build path in them")

    def test_lintian(self):
        debs = sorted((self.work / "debs").glob("*.deb"))
        check(len(debs) == 3, f"the debs of packaging_debs in {self.work / 'debs'}: {debs}")
        debian_policy.run_lintian(debs, self.source / "packaging" / "debian" / "lintian-overrides")

    # -- installing the debs ---------------------------------------------------------------
    def install_debs(self, name):
        """The debs of test_debs, installed: (root, prefix). In CI as root onto the machine
        with apt-get (removed again at the end), else unpacked into a scratch root."""
        debs = [self.work / "debs" / n for n in self.deb_names().values()]
        for deb in debs:
            check(deb.is_file(), f"{deb} is missing: run packaging_debs first")
        if os.environ.get("CI") == "true" and os.geteuid() == 0:
            log("CI as root: apt-get install of the debs onto this machine")
            env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
            run(["apt-get", "install", "-y", "--no-install-recommends", *debs], env=env)
            packages = ["qcm", self.args.sdk_package, "libqcm-sdk-dev"]
            self.cleanups.append(lambda: run(["apt-get", "purge", "-y", *packages], env=env))
            status = run(["dpkg-query", "-W", "-f=${Status} ${Version}\n", *packages])
            check(status.count(f"install ok installed {self.deb_version}") == 3, status)
            check("qcm" in run(["getent", "passwd", "qcm"]), "postinst made the user qcm")
            if shutil.which("systemd-analyze"):
                out = run(["systemd-analyze", "verify", "/lib/systemd/system/qcm.service"])
                check("qcm.service" not in out, f"systemd-analyze verify qcm.service:\n{out}")
                log("systemd-analyze verify: qcm.service is clean")
            return pathlib.Path("/"), pathlib.Path("/usr")
        root = fresh(self.work / name / "root")
        for deb in debs:
            run(["dpkg", "-x", deb, root])
        return root, root / "usr"

    def build_template(self, name, prefix, sdk_prefix=None, extra=(), expect_fail=False):
        """packaging/plugin-template configured and built against the SDK in sdk_prefix
        (default: prefix); the build directory, or the configure output with expect_fail."""
        build = fresh(self.work / name)
        sdk_prefix = sdk_prefix or prefix
        configure = [self.args.cmake, "-S", self.template, "-B", build, "-G", "Ninja",
                     "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF",
                     "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *extra]
        if sdk_prefix != pathlib.Path("/usr"):
            configure.append(f"-DCMAKE_PREFIX_PATH={sdk_prefix}")
        out = run(configure, expect_fail=expect_fail)
        if expect_fail:
            return out
        m = re.search(r"-- QcmSdk (\S+) \(plugin ABI (\d+)\) in (\S+)", out)
        check(m and pathlib.Path(m.group(3)).resolve().is_relative_to(sdk_prefix.resolve()),
              f"the template found the SDK in {sdk_prefix}:\n{out}")
        run([self.args.cmake, "--build", build, "-j2"])
        # Every include directory is the template's own, the SDK's, or the system's (Qt).
        allowed = [self.template, build, sdk_prefix / "include", pathlib.Path("/usr/include"),
                   pathlib.Path("/usr/lib")]
        for c in json.loads((build / "compile_commands.json").read_text()):
            dirs = [pathlib.Path(d) for d in re.findall(r"(?:-I|-isystem )(\S+)", c["command"])]
            for d in dirs:
                check(any(d == a or d.is_relative_to(a) for a in allowed),
                      f"the template compiles with {d}, outside the SDK: {c['command']}")
            # /usr/include is the compiler's own: CMake leaves it off the command line.
            check(sdk_prefix == pathlib.Path("/usr") or sdk_prefix / "include" in dirs,
                  f"the template compiles against {sdk_prefix}/include: {c['command']}")
        return build

    def run_qcm(self, qcm, root, name, args):
        """The installed qcm with the installed /etc/qcm/controller-manager.yaml (its text,
        in a file of the test's: qcmhost adds the serving port) against the test cluster."""
        cluster = Cluster(os.environ["QCM_E2E_DIR"])
        config = (root / "etc" / "qcm" / "controller-manager.yaml").read_text()
        workdir = fresh(self.work / name / "run")
        lease = f"qcm-packaging-{name.replace('_', '-')}-{os.getpid()}"
        # The state directory of the test's (the packaged file's /var/lib/qcm is systemd's).
        q = qcmhost.Qcm(str(qcm), workdir, name, config, args=(
            f"--kubeconfig={cluster.kubeconfig}", f"--leader-elect-resource-name={lease}",
            f"--state-dir={workdir / 'state'}", *args))
        self.cleanups.append(q.stop)
        return cluster, q

    def place_plugin(self, build, plugin_dir):
        so = build / f"lib{PLUGIN}.so"
        check(so.is_file(), f"{so} was built")
        target = plugin_dir / so.name
        shutil.copy(so, target)
        self.cleanups.append(lambda: target.unlink(missing_ok=True))
        return target

    # -- the template ----------------------------------------------------------------------
    def test_plugin_template(self):
        root, prefix = self.install_debs("plugin_template")
        qcm, plugin_dir = prefix / "bin" / "qcm", prefix / "lib" / "qcm" / "plugins"
        build = self.build_template("plugin_template/build", prefix)
        # Its tests: the pure functions, the controller on the installed fake client, and on
        # a real apiserver from the installed TestEnvironment, whose binaries the installed
        # testenv-setup finds (scripts/setup.sh built them).
        assets = run([prefix / "libexec" / "qcm" / "testenv-setup", "--assets"], stdout_only=True).strip()
        out = run(["ctest", "--test-dir", build, "--output-on-failure"],
                  env=dict(os.environ, QCM_TESTENV_ASSETS=assets))
        check("100% tests passed" in out and re.search(r"Test +#\d+: envtest .* Passed", out) and
              re.search(r"Test +#\d+: controller .* Passed", out), f"the template's tests:\n{out}")
        log("the template built against the installed SDK; its tests pass, on the fake client "
            "and on a TestEnvironment")
        so = self.place_plugin(build, plugin_dir)

        out, plugins, other = listing(qcm)
        check(plugins.get(so.name, ("",))[0] == PLUGIN and
              plugins[so.name][1:4] == ("1.0.0", "loaded", "yes") and not plugins[so.name][4],
              f"qcm --list-plugins, no --plugin-dir: {PLUGIN} 1.0.0 loaded:\n{out}")
        check(not other, f"no directory errors:\n{out}")

        cluster, q = self.run_qcm(qcm, root, "plugin_template", [f"--controllers={PLUGIN}"])
        q.wait_for(f"{PLUGIN} running", lambda: q.plugin_state(PLUGIN) == "running", 60)
        log(f"{PLUGIN} is running in the installed qcm")
        ns = cluster.create_namespace("qcm-packaging")
        self.cleanups.append(lambda: cluster.kubectl("delete", "namespace", ns, "--wait=false",
                                                     check=False))
        cluster.kubectl("create", "configmap", "labelled", "-n", ns, "--from-literal=a=1")
        cluster.kubectl("label", "configmap", "labelled", "-n", ns, f"{LABEL}=enabled")
        cluster.kubectl("create", "configmap", "plain", "-n", ns, "--from-literal=a=1")

        def annotation(cm):
            return cluster.get_json("configmap", ns, cm)["metadata"].get(
                "annotations", {}).get(ANNOTATION)

        want = expected_checksum({"a": "1"})
        q.wait_for(f"the checksum {want} on {ns}/labelled",
                   lambda: annotation("labelled") == want, 30)
        cluster.kubectl("patch", "configmap", "labelled", "-n", ns, "--type=merge",
                        "-p", json.dumps({"data": {"a": "2", "b": "x"}}))
        want = expected_checksum({"a": "2", "b": "x"})
        q.wait_for(f"the new checksum {want} on {ns}/labelled",
                   lambda: annotation("labelled") == want, 30)
        check(annotation("plain") is None, "the unlabelled ConfigMap is left alone")
        check(q.logged_at(f"{ns}/labelled checksum {want}") is not None,
              f"the controller logs its patch:\n{q.log()}")
        samples = q.metrics()
        success = qcmhost.metric(samples, "qcm_reconcile_total", controller=PLUGIN,
                                 result="success")
        check(success is not None and success >= 2, f"qcm_reconcile_total success: {success}")
        for sample in SAMPLES:
            check(q.plugin_state(sample) not in ("running", "failed"),
                  f"{sample} stays off (--controllers): {q.plugin_state(sample)}")
        q.signal(signal.SIGTERM)
        check(q.wait(30) == 0, f"qcm exits 0 on SIGTERM:\n{q.log()}")
        log("the installed qcm ran the out-of-tree plugin against the real cluster")

    # -- the tutorial ----------------------------------------------------------------------
    def test_tutorial(self):
        _, prefix = self.install_debs("tutorial")
        tutorial.test(self.source / "docs" / "plugin-author-guide.md",
                      fresh(self.work / "tutorial" / "run"), prefix,
                      Cluster(os.environ["QCM_E2E_DIR"]), self.cleanups)

    # -- an SDK one major ahead --------------------------------------------------------------
    def bumped_sdk(self, prefix):
        """A copy of the installed SDK with the next major version and plugin ABI, edited
        where a real one would differ: version.h, plugin.h's IID, and the CMake package."""
        abi, version = self.args.abi, self.args.version
        new_abi, new_version = abi + 1, f"{int(version.split('.')[0]) + 1}.0.0"
        bumped = fresh(self.work / "incompatible_sdk" / "sdk") / "usr"
        shutil.copytree(prefix / "include" / "qcm", bumped / "include" / "qcm")
        lib = next((prefix / "lib").rglob(f"libqcm-sdk.so.{abi}")).parent
        libdir = bumped / lib.relative_to(prefix)
        shutil.copytree(lib / "cmake" / "QcmSdk", libdir / "cmake" / "QcmSdk")
        for f in lib.glob("libqcm-sdk.so*"):
            shutil.copy(f, libdir / f.name, follow_symlinks=False)
        # The package exports Qcm::qcm-gen too; CMake checks that its file exists.
        (bumped / "bin").mkdir()
        shutil.copy(prefix / "bin" / "qcm-gen", bumped / "bin" / "qcm-gen")

        def edit(path, *replacements, every=False):
            text = path.read_text()
            for old, new in replacements:
                count = text.count(old)
                check(count >= 1 if every else count == 1, f"{path}: {old!r} appears {count} times")
                text = text.replace(old, new)
            path.write_text(text)

        major, minor, patch = version.split(".")
        edit(bumped / "include" / "qcm" / "version.h",
             (f'QCM_VERSION_STRING "{version}"', f'QCM_VERSION_STRING "{new_version}"'),
             (f"QCM_VERSION_MAJOR {major}\n", f"QCM_VERSION_MAJOR {int(major) + 1}\n"),
             (f"QCM_VERSION_MINOR {minor}\n", "QCM_VERSION_MINOR 0\n"),
             (f"QCM_VERSION_PATCH {patch}\n", "QCM_VERSION_PATCH 0\n"),
             (f"QCM_ABI_VERSION {abi}\n", f"QCM_ABI_VERSION {new_abi}\n"))
        edit(bumped / "include" / "qcm" / "plugin.h",
             (f'"io.qcm.ControllerPlugin/{abi}"', f'"io.qcm.ControllerPlugin/{new_abi}"'),
             (f"QCM_ABI_VERSION == {abi}", f"QCM_ABI_VERSION == {new_abi}"))
        cmake = libdir / "cmake" / "QcmSdk"
        edit(cmake / "QcmSdkTargets.cmake",
             (f'QCM_ABI_VERSION "{abi}"', f'QCM_ABI_VERSION "{new_abi}"'),
             (f'QCM_SDK_VERSION "{version}"', f'QCM_SDK_VERSION "{new_version}"'))
        edit(cmake / "QcmSdkConfigVersion.cmake", (f'"{version}"', f'"{new_version}"'), every=True)
        edit(cmake / "QcmSdkConfig.cmake",
             (f"set(QcmSdk_ABI_VERSION {abi})", f"set(QcmSdk_ABI_VERSION {new_abi})"))
        return bumped, new_abi, new_version

    def test_incompatible_sdk(self):
        root, prefix = self.install_debs("incompatible_sdk")
        qcm, plugin_dir = prefix / "bin" / "qcm", prefix / "lib" / "qcm" / "plugins"
        bumped, new_abi, new_version = self.bumped_sdk(prefix)
        # Packages are looked for under the bumped SDK's root only: in CI the installed 0.1
        # SDK is in /usr, and find_package() would take it instead.
        only_bumped = [f"-DCMAKE_FIND_ROOT_PATH={bumped.parent}",
                       "-DCMAKE_FIND_ROOT_PATH_MODE_PACKAGE=ONLY"]
        out = " ".join(self.build_template("incompatible_sdk/refused", prefix, bumped,
                                           extra=only_bumped, expect_fail=True).split())
        check("compatible with requested version" in out and new_version in out,
              f"find_package(QcmSdk 0.1) refuses SDK {new_version}:\n{out}")
        major = new_version.split(".")[0]
        build = self.build_template("incompatible_sdk/build", prefix, bumped,
                                    extra=[f"-DQCM_SDK_REQUIRED_VERSION={major}.0",
                                           "-DBUILD_TESTING=OFF"])
        metadata = json.loads((build / f"{PLUGIN}_metadata" / f"{PLUGIN}.json").read_text())
        check(metadata["sdkVersion"] == new_version and metadata["sdkAbiVersion"] == new_abi,
              f"the plugin says it is built against SDK {new_version}: {metadata}")
        so = self.place_plugin(build, plugin_dir)

        message = (f"incompatible SDK: the plugin implements io.qcm.ControllerPlugin/{new_abi}, "
                   f"this host loads io.qcm.ControllerPlugin/{self.args.abi} "
                   f"(plugin ABI {self.args.abi})")
        out, plugins, _ = listing(qcm)
        check(so.name in plugins and plugins[so.name][2] == "failed" and
              plugins[so.name][4] == message,
              f"--list-plugins: {so.name} failed with {message!r}:\n{out}")
        log(f"--list-plugins: {plugins[so.name]}")

        # A run: the refusal in the log and in qcm_plugin_state, with no controller enabled
        # (the samples explicitly off, so that nothing acts on the shared cluster).
        off = ",".join(f"-{s}" for s in SAMPLES)
        _, q = self.run_qcm(qcm, root, "incompatible_sdk", [f"--controllers={off}"])
        # Labelled with the name its metadata gives, or, without one, with its file.
        q.wait_for("the refusal in qcm_plugin_state",
                   lambda: any(qcmhost.metric(q.metrics(), "qcm_plugin_state", plugin=label,
                                              state="failed") == 1
                               for label in (PLUGIN, str(so))), 30)
        check(q.logged_at(message) is not None, f"the log says {message!r}:\n{q.log()}")
        q.signal(signal.SIGTERM)
        check(q.wait(30) == 0, f"qcm exits 0 on SIGTERM:\n{q.log()}")
        log("the installed host refuses the plugin of the next SDK major")

    def cleanup(self):
        for action in reversed(self.cleanups):
            try:
                action()
            except Exception as e:  # noqa: BLE001 - cleanup goes on, and says what failed
                log(f"cleanup: {e}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    for option in ("--source-dir", "--build-dir", "--work-dir", "--cmake", "--cpack",
                   "--version", "--sdk-package", "--deb-revision", "--maintainer"):
        parser.add_argument(option, required=True)
    parser.add_argument("--abi", type=int, required=True)
    parser.add_argument("test", choices=("install", "debs", "lintian", "plugin_template",
                                         "tutorial", "incompatible_sdk"))
    args = parser.parse_args()
    clean_environment()
    tests = Tests(args)
    started = time.monotonic()
    try:
        getattr(tests, f"test_{args.test}")()
    finally:
        tests.cleanup()
    log(f"{args.test}: passed in {time.monotonic() - started:.0f}s")


if __name__ == "__main__":
    main()
