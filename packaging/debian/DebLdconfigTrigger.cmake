# SPDX-License-Identifier: Apache-2.0
# CPack post-build script (CPACK_POST_BUILD_SCRIPTS, packaging/QcmDebian.cmake): the library
# package gets ldconfig through its dpkg trigger (debian/sdk/triggers, already in the package)
# and loses the postinst and postrm that CPack's DEB generator writes for every library under
# /usr/lib, which do nothing but call ldconfig. Debian policy 8.1.1 asks for the trigger;
# lintian reports the calls (maintscript-calls-ldconfig). Any other line in those scripts stops
# the build, so nothing else is ever dropped.
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
    get_filename_component(name "${deb}" NAME)
    if(NOT name MATCHES "^${CPACK_QCM_DEB_SDK_PACKAGE}_")
        continue()
    endif()
    set(tree "${CPACK_TOPLEVEL_DIRECTORY}/ldconfig-trigger/${CPACK_QCM_DEB_SDK_PACKAGE}")
    file(REMOVE_RECURSE "${tree}")
    get_filename_component(parent "${tree}" DIRECTORY)
    file(MAKE_DIRECTORY "${parent}")
    execute_process(COMMAND dpkg-deb --raw-extract "${deb}" "${tree}" COMMAND_ERROR_IS_FATAL ANY)
    if(NOT EXISTS "${tree}/DEBIAN/triggers")
        message(FATAL_ERROR "${name}: no DEBIAN/triggers (CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA)")
    endif()
    foreach(script postinst postrm)
        if(NOT EXISTS "${tree}/DEBIAN/${script}")
            continue()
        endif()
        file(STRINGS "${tree}/DEBIAN/${script}" lines)
        foreach(line IN LISTS lines)
            if(NOT line MATCHES "^(#!/bin/sh|set -e|if \\[ \"\\$1\" = \"(configure|remove)\" \\]; then|[ \t]*ldconfig|fi|)$")
                message(FATAL_ERROR "${name}: DEBIAN/${script} does more than call ldconfig: '${line}'")
            endif()
        endforeach()
        file(REMOVE "${tree}/DEBIAN/${script}")
    endforeach()
    execute_process(COMMAND dpkg-deb --root-owner-group -Zxz --build "${tree}" "${deb}"
        OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
    file(REMOVE_RECURSE "${tree}")
endforeach()
