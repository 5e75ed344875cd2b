# SPDX-License-Identifier: Apache-2.0
# qcm_add_controller_plugin(): builds a qcm controller plugin and generates its metadata.
#
#   qcm_add_controller_plugin(NAME <name> SOURCES <file>...
#       [VERSION <x.y.z>]            default: PROJECT_VERSION
#       [DESCRIPTION <text>]         default: PROJECT_DESCRIPTION
#       [DISABLED_BY_DEFAULT]        `controllers: ["*"]` leaves it off; it must be named
#       [NO_LEADER_ELECTION]         runs on every replica, not only on the leader
#       [LIBS <library>...]          linked privately, besides Qcm::Sdk
#       [OUTPUT_DIRECTORY <dir>])    where the .so goes (default: the usual build directory)
#
# It creates a MODULE library target <name> (lib<name>.so) linked to Qcm::Sdk, and writes
# <name>.json from QcmControllerPlugin.json.in: name, version, description, the SDK version and
# plugin ABI it is built against, enabledByDefault and needsLeaderElection. The plugin class
# names that file in its metadata, which moc embeds in the .so:
#
#   Q_PLUGIN_METADATA(IID QCM_CONTROLLER_PLUGIN_IID FILE "<name>.json")
#
# The host reads and checks that metadata before it runs any code of the plugin, so versions
# come from the build and are never typed by hand (as Qt Creator's add_qtc_plugin does).
#
# Works in the qcm source tree and from an installed SDK (find_package(QcmSdk)): the SDK's
# version is read from the Qcm::Sdk target (properties QCM_SDK_VERSION and QCM_ABI_VERSION),
# and the template from beside this file.

set(_QCM_CONTROLLER_PLUGIN_TEMPLATE "${CMAKE_CURRENT_LIST_DIR}/QcmControllerPlugin.json.in")

# Escapes `text` for a JSON string literal.
function(_qcm_json_escape out text)
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "\"" "\\\"" text "${text}")
    string(REPLACE "\n" "\\n" text "${text}")
    string(REPLACE "\r" "\\r" text "${text}")
    string(REPLACE "\t" "\\t" text "${text}")
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(qcm_add_controller_plugin)
    cmake_parse_arguments(PARSE_ARGV 0 ARG "DISABLED_BY_DEFAULT;NO_LEADER_ELECTION"
        "NAME;VERSION;DESCRIPTION;OUTPUT_DIRECTORY" "SOURCES;LIBS")
    if(ARG_UNPARSED_ARGUMENTS)
        message(FATAL_ERROR "qcm_add_controller_plugin: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
    endif()
    # The name is a controller name: the metrics' controller label, the log category, the
    # key of controllerConfig in controller-manager.yaml. A DNS-1123 label, as Kubernetes
    # names its controllers.
    if(NOT ARG_NAME MATCHES "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
        message(FATAL_ERROR "qcm_add_controller_plugin: NAME \"${ARG_NAME}\" must be lowercase "
            "letters, digits and '-', starting and ending with a letter or digit")
    endif()
    string(LENGTH "${ARG_NAME}" name_length)
    if(name_length GREATER 63)
        message(FATAL_ERROR "qcm_add_controller_plugin: NAME \"${ARG_NAME}\" is longer than 63 characters")
    endif()
    if(NOT ARG_SOURCES)
        message(FATAL_ERROR "qcm_add_controller_plugin(${ARG_NAME}): SOURCES is required")
    endif()
    if(NOT DEFINED ARG_VERSION)
        set(ARG_VERSION "${PROJECT_VERSION}")
    endif()
    if(NOT ARG_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
        message(FATAL_ERROR "qcm_add_controller_plugin(${ARG_NAME}): VERSION \"${ARG_VERSION}\" "
            "must be major.minor.patch (set VERSION, or project(... VERSION x.y.z))")
    endif()
    if(NOT DEFINED ARG_DESCRIPTION)
        set(ARG_DESCRIPTION "${PROJECT_DESCRIPTION}")
    endif()
    if(NOT TARGET Qcm::Sdk)
        message(FATAL_ERROR "qcm_add_controller_plugin(${ARG_NAME}): the Qcm::Sdk target is "
            "missing: find_package(QcmSdk) first")
    endif()
    get_target_property(sdk_version Qcm::Sdk QCM_SDK_VERSION)
    get_target_property(sdk_abi Qcm::Sdk QCM_ABI_VERSION)
    if(NOT sdk_version OR NOT sdk_abi)
        message(FATAL_ERROR "qcm_add_controller_plugin(${ARG_NAME}): Qcm::Sdk does not say its "
            "version (properties QCM_SDK_VERSION and QCM_ABI_VERSION)")
    endif()

    set(QCM_PLUGIN_NAME "${ARG_NAME}")
    set(QCM_PLUGIN_VERSION "${ARG_VERSION}")
    _qcm_json_escape(QCM_PLUGIN_DESCRIPTION "${ARG_DESCRIPTION}")
    set(QCM_PLUGIN_SDK_VERSION "${sdk_version}")
    set(QCM_PLUGIN_SDK_ABI_VERSION "${sdk_abi}")
    if(ARG_DISABLED_BY_DEFAULT)
        set(QCM_PLUGIN_ENABLED_BY_DEFAULT false)
    else()
        set(QCM_PLUGIN_ENABLED_BY_DEFAULT true)
    endif()
    if(ARG_NO_LEADER_ELECTION)
        set(QCM_PLUGIN_NEEDS_LEADER_ELECTION false)
    else()
        set(QCM_PLUGIN_NEEDS_LEADER_ELECTION true)
    endif()
    # A directory of its own, on the plugin's include path, where moc finds FILE "<name>.json".
    set(metadata_dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}_metadata")
    configure_file("${_QCM_CONTROLLER_PLUGIN_TEMPLATE}" "${metadata_dir}/${ARG_NAME}.json" @ONLY)

    add_library(${ARG_NAME} MODULE ${ARG_SOURCES})
    target_include_directories(${ARG_NAME} PRIVATE "${metadata_dir}")
    target_link_libraries(${ARG_NAME} PRIVATE Qcm::Sdk ${ARG_LIBS})
    set_target_properties(${ARG_NAME} PROPERTIES
        AUTOMOC ON
        CXX_VISIBILITY_PRESET hidden
        VISIBILITY_INLINES_HIDDEN ON
        QCM_PLUGIN_METADATA_FILE "${metadata_dir}/${ARG_NAME}.json")
    if(ARG_OUTPUT_DIRECTORY)
        set_target_properties(${ARG_NAME} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${ARG_OUTPUT_DIRECTORY}")
    endif()
endfunction()
