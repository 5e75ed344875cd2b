// SPDX-License-Identifier: Apache-2.0
// TypedObject: the base of generated kinds (qcm-gen), a typed view over a client::Object.
//
//     const core::v1::Pod pod(object);
//     for (const core::v1::Container &c : pod.spec().containers())
//         use(c.image().value_or(QString()));
//
// It keeps the Object it views, so the fields read from a decoded Object's bytes, and the
// metadata getters are the Object's own (cached identity, indexed metadata). A kind read as an
// item of a typed list is made from its node; object() then builds the Object on each call.
//
// Thread safety: a value; the const members may be called from several threads at once.
#pragma once

#include <qcm/client/object.h>
#include <qcm/typed/view.h>

namespace qcm::typed {

class TypedObject : public View
{
public:
    TypedObject() = default;
    explicit TypedObject(client::Object object)
        : View(JsonNode::of(object)), m_object(std::move(object))
    { }
    // An item of a list; see the contract.
    explicit TypedObject(JsonNode node) : View(std::move(node)) { }

    client::Object object() const
    {
        return m_object.isEmpty() && m_node.isObject()
            ? client::Object(m_node.toJsonValue().toObject())
            : m_object;
    }
    QString name() const { return object().name(); }
    QString namespaceName() const { return object().namespaceName(); }
    QString key() const { return object().key(); }
    QString uid() const { return object().uid(); }
    QString resourceVersion() const { return object().resourceVersion(); }
    qint64 generation() const { return object().generation(); }
    QMap<QString, QString> labels() const { return object().labels(); }
    QMap<QString, QString> annotations() const { return object().annotations(); }

private:
    client::Object m_object;
};

} // namespace qcm::typed
