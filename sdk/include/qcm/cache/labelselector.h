// SPDX-License-Identifier: Apache-2.0
// LabelSelector: Kubernetes label selectors, parsed and matched (apimachinery's labels.Parse
// and labels.Selector).
//
// Syntax: requirements separated by commas, all of which must hold:
//   key  !key  key=value  key==value  key!=value  key in (a,b)  key notin (a,b)  key>1  key<1
// != and notin also match objects without the key, as in Kubernetes. An empty selector
// matches everything. Keys must be qualified names (an optional DNS-subdomain prefix and '/',
// then at most 63 characters of [A-Za-z0-9-_.] starting and ending alphanumeric); values
// at most 63 such characters, or empty. Errors say what was expected and at which character.
//
// Plain value; copy it freely.
#pragma once

#include <qcm/result.h>

#include <QtCore/QMap>
#include <QtCore/QStringList>

namespace qcm::cache {

class QCM_SDK_EXPORT LabelSelector
{
public:
    enum class Operator {
        Exists,
        DoesNotExist,
        Equals,
        NotEquals,
        In,
        NotIn,
        GreaterThan,
        LessThan
    };
    struct Requirement
    {
        QString key;
        Operator op;
        QStringList values;
    };

    // The selector that matches everything.
    LabelSelector() = default;
    static Result<LabelSelector> parse(const QString &text);

    bool matches(const QMap<QString, QString> &labels) const;
    bool isEmpty() const { return m_requirements.isEmpty(); }
    const QList<Requirement> &requirements() const { return m_requirements; }

private:
    QList<Requirement> m_requirements;
};

} // namespace qcm::cache
