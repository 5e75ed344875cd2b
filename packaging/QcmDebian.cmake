# SPDX-License-Identifier: Apache-2.0
# CPack: qcm's three Debian packages (docs/packaging.md), built with `cpack` in a build tree:
#
#   qcm               the host, the sample plugins (/usr/lib/qcm/plugins), the systemd unit and
#                     /etc/qcm/controller-manager.yaml (a conffile); creates the system user qcm
#   libqcm-sdk<ABI>   libqcm-sdk.so.<ABI>, the SDK that the host and every plugin link
#   libqcm-sdk-dev    the headers and the CMake package QcmSdk, for building plugins
#
# The library's package carries the plugin ABI major in its name, as Debian names libraries
# after their SONAME: two ABIs can be installed side by side. qcm needs exactly the SDK it was
# built with (the host checks plugins against that SDK's version); the rest of the
# dependencies come from dpkg-shlibdeps.

set(QCM_DEB_SDK_PACKAGE "libqcm-sdk${QCM_ABI_VERSION}")
# QCM_DEB_REVISION: the latest entry of debian/changelog (top-level CMakeLists.txt).
set(qcm_deb_version "${PROJECT_VERSION}-${QCM_DEB_REVISION}")

# The maintainer, "Name <address>", set when the build is configured (no placeholder is
# shipped): -DQCM_DEB_MAINTAINER=..., else $DEBFULLNAME and $DEBEMAIL as Debian's tools read
# them, else the source tree's git user, else the author of its latest commit.
set(QCM_DEB_MAINTAINER "" CACHE STRING
    "The .debs' Maintainer, 'Name <address>' (default: DEBFULLNAME/DEBEMAIL, then git)")
set(qcm_deb_maintainer "${QCM_DEB_MAINTAINER}")
if(NOT qcm_deb_maintainer AND DEFINED ENV{DEBFULLNAME} AND DEFINED ENV{DEBEMAIL})
    set(qcm_deb_maintainer "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
endif()
find_package(Git QUIET)
if(NOT qcm_deb_maintainer AND GIT_EXECUTABLE)
    execute_process(COMMAND ${GIT_EXECUTABLE} config user.name WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        OUTPUT_VARIABLE git_name OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    execute_process(COMMAND ${GIT_EXECUTABLE} config user.email WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
        OUTPUT_VARIABLE git_email OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(git_name AND git_email)
        set(qcm_deb_maintainer "${git_name} <${git_email}>")
    else()
        execute_process(COMMAND ${GIT_EXECUTABLE} log -1 "--format=%an <%ae>"
            WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
            OUTPUT_VARIABLE qcm_deb_maintainer OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    endif()
endif()
if(NOT qcm_deb_maintainer MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+\\.[^<>@ ]+>$")
    message(WARNING "No maintainer for the .debs ('${qcm_deb_maintainer}'): set "
                    "-DQCM_DEB_MAINTAINER='Name <address>' or DEBFULLNAME and DEBEMAIL. "
                    "cpack refuses to package without one.")
    set(qcm_deb_maintainer "")
endif()
set(QCM_DEB_MAINTAINER_RESOLVED "${qcm_deb_maintainer}")

# /usr/share/doc/<package>/{copyright,changelog.Debian.gz} in each package: Debian's copyright
# file (machine-readable) and the Debian changelog, compressed as policy asks (gzip -9n, so
# that the bytes do not depend on when they were built); and lintian's overrides, each with
# its reason (debian/lintian-overrides).
set(QCM_DEB_MAINTAINER "${qcm_deb_maintainer}") # for configure_file's @QCM_DEB_MAINTAINER@
set(qcm_deb_doc_dir ${CMAKE_CURRENT_BINARY_DIR}/debian)
configure_file(debian/changelog ${qcm_deb_doc_dir}/changelog @ONLY)
configure_file(debian/copyright ${qcm_deb_doc_dir}/copyright @ONLY)
unset(QCM_DEB_MAINTAINER) # the cache variable again
add_custom_command(OUTPUT ${qcm_deb_doc_dir}/changelog.Debian.gz
    COMMAND gzip -9n -c ${qcm_deb_doc_dir}/changelog > ${qcm_deb_doc_dir}/changelog.Debian.gz
    DEPENDS ${qcm_deb_doc_dir}/changelog VERBATIM)
add_custom_target(qcm-deb-changelog ALL DEPENDS ${qcm_deb_doc_dir}/changelog.Debian.gz)
foreach(pair qcm:qcm-system ${QCM_DEB_SDK_PACKAGE}:sdk-system libqcm-sdk-dev:devel-system)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 package)
    list(GET pair 1 component)
    install(FILES ${qcm_deb_doc_dir}/copyright ${qcm_deb_doc_dir}/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
    install(FILES debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME ${package} COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME qcm)
set(CPACK_PACKAGE_VENDOR "qcm")
set(CPACK_PACKAGE_CONTACT "${qcm_deb_maintainer}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Each package's description below starts with its own summary line. CPack puts the project's
# summary in front of it unless the summary is CPack's default, which this is.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL qcm qcm-system sdk sdk-system devel devel-system)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${QCM_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libqcm-sdk.so.<ABI> is in none of the system's packages while the packages are built:
# dpkg-shlibdeps finds it here and leaves it out, and the Depends below name its package.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PROJECT_BINARY_DIR}/sdk")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

# qcm
set(CPACK_DEBIAN_HOST_PACKAGE_NAME qcm)
set(CPACK_DEBIAN_HOST_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_HOST_PACKAGE_DEPENDS "${QCM_DEB_SDK_PACKAGE} (= ${qcm_deb_version}), adduser")
set(CPACK_DEBIAN_HOST_DESCRIPTION "Kubernetes controller manager that runs controller plugins
qcm runs Kubernetes controllers the way kube-controller-manager does (leader
election, shared informers, rate-limited work queues, /healthz, /readyz and
/metrics), but the controllers are plugins: .so files in /usr/lib/qcm/plugins,
loaded, checked and switched on or off without a restart. The package holds the
host, three sample plugins (sample-controller, ttl-after-finished and
configmap-restarter) and the systemd unit qcm.service.")
set(CPACK_DEBIAN_HOST_PACKAGE_CONTROL_EXTRA
    "${CMAKE_CURRENT_SOURCE_DIR}/debian/conffiles;${CMAKE_CURRENT_SOURCE_DIR}/debian/postinst")

# libqcm-sdk<ABI>
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME ${QCM_DEB_SDK_PACKAGE})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# Its shlibs file tells dpkg-shlibdeps, when a plugin's package is built, which package gives
# libqcm-sdk.so.<ABI>. (The setting is global: only this package has a library with a SONAME.)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# ldconfig by a dpkg trigger, as Debian policy 8.1.1 asks, rather than CPack's postinst and
# postrm calls: CPack writes those for any library under /usr/lib and has no setting to stop
# it, so debian/DebLdconfigTrigger.cmake rewrites the built package (it checks the scripts
# held nothing else).
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA "${CMAKE_CURRENT_SOURCE_DIR}/debian/sdk/triggers")
set(CPACK_POST_BUILD_SCRIPTS "${CMAKE_CURRENT_SOURCE_DIR}/debian/DebLdconfigTrigger.cmake")
set(CPACK_QCM_DEB_SDK_PACKAGE "${QCM_DEB_SDK_PACKAGE}")
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "qcm controller SDK (plugin ABI ${QCM_ABI_VERSION})
libqcm-sdk is the library that qcm and its controller plugins link: shared
informers, rate-limited work queues, leader election, Kubernetes Events, a
Kubernetes REST client, Prometheus metrics and the Controller base class, with
client-go's semantics under client-go's names.")

# libqcm-sdk-dev
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libqcm-sdk-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# What QcmSdkConfig.cmake finds: Qt 6 Core and Network (and moc, for the plugin class).
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "${QCM_DEB_SDK_PACKAGE} (= ${qcm_deb_version}), qt6-base-dev (>= 6.4)")
# testing::TestEnvironment runs openssl for its keys and certificates.
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "cmake (>= 3.22), openssl")
set(CPACK_DEBIAN_DEV_DESCRIPTION "qcm controller SDK: headers and CMake package
The headers of libqcm-sdk and the CMake package QcmSdk, to build qcm controller
plugins outside qcm's source tree: find_package(QcmSdk) gives the target
Qcm::Sdk and the function qcm_add_controller_plugin().")

include(CPack)

cpack_add_component_group(host)
cpack_add_component_group(runtime)
cpack_add_component_group(dev)
cpack_add_component(qcm GROUP host)
cpack_add_component(qcm-system GROUP host)
cpack_add_component(sdk GROUP runtime)
cpack_add_component(sdk-system GROUP runtime)
cpack_add_component(devel GROUP dev)
cpack_add_component(devel-system GROUP dev)
