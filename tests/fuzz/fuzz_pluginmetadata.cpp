// SPDX-License-Identifier: Apache-2.0
// Plugin metadata (app/plugins/pluginmetadata.h), as QPluginLoader hands it over from a .so's
// embedded JSON: any bytes, read as that JSON, give metadata or a PluginError with a reason;
// metadata that is accepted has a controller name and a compatible SDK.
#include "fuzzsupport.h"
#include "plugins/pluginmetadata.h"

#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QJsonDocument doc = QJsonDocument::fromJson(qcm::fuzz::bytes(data, size));
    if (!doc.isObject())
        return 0;
    const auto read = qcm::host::readPluginMetaData(doc.object());
    if (!read) {
        FUZZ_CHECK(
            !read.error().message.isEmpty(), QStringLiteral("a PluginError without message"));
        return 0;
    }
    FUZZ_CHECK(qcm::host::isControllerName(read->name), read->name);
    FUZZ_CHECK(read->sdkAbiVersion == QCM_ABI_VERSION, QString::number(read->sdkAbiVersion));
    FUZZ_CHECK(
        qcm::host::compareVersions(read->sdkVersion, QStringLiteral(QCM_VERSION_STRING)) <= 0,
        read->sdkVersion);
    return 0;
}
