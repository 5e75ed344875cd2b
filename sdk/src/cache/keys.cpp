// SPDX-License-Identifier: Apache-2.0
#include <qcm/cache/delta.h>
#include <qcm/cache/keylistergetter.h>
#include <qcm/cache/keys.h>

namespace qcm::cache {

KeyListerGetter::~KeyListerGetter() = default;

Result<QString> metaNamespaceKey(const client::Object &object)
{
    if (!object.hasName())
        return Error {{}, QStringLiteral("metadata.name"),
            QStringLiteral("an object without a name has no key")};
    return object.key();
}

Result<NamespacedName> splitMetaNamespaceKey(const QString &key)
{
    const QStringList parts = key.split(QLatin1Char('/'));
    if (parts.size() == 1)
        return NamespacedName {QString(), parts[0]};
    if (parts.size() == 2)
        return NamespacedName {parts[0], parts[1]};
    return Error {{}, {}, QStringLiteral("unexpected key format: \"%1\"").arg(key)};
}

const char *deltaTypeName(DeltaType type)
{
    switch (type) {
    case DeltaType::Added:
        return "Added";
    case DeltaType::Updated:
        return "Updated";
    case DeltaType::Deleted:
        return "Deleted";
    case DeltaType::Replaced:
        return "Replaced";
    case DeltaType::Sync:
        return "Sync";
    }
    return "Unknown";
}

const Object &Delta::lastKnown() const
{
    if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&object))
        return tombstone->object;
    return std::get<Object>(object);
}

} // namespace qcm::cache
