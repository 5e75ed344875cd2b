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
set(QCM_DEB_REVISION 1)
set(qcm_deb_version "${PROJECT_VERSION}-${QCM_DEB_REVISION}")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME qcm)
set(CPACK_PACKAGE_VENDOR "qcm")
set(CPACK_PACKAGE_CONTACT "qcm maintainers <qcm@localhost>")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Each package's description below starts with its own summary line. CPack puts the project's
# summary in front of it unless the summary is CPack's default, which this is.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENTS_ALL qcm qcm-system sdk devel)

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
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "cmake (>= 3.22)")
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
cpack_add_component(devel GROUP dev)
