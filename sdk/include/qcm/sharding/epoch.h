// SPDX-License-Identifier: Apache-2.0
// Epoch: one numbered membership of a scale-out group, the input of its HashRing
// (docs/scale-out.md, "Epochs"). The group's leader writes it to the ring Lease as the JSON
// annotation scale-out.qcm.io/epoch, {"number":N,"members":["identity/term",...]}: the
// members are incarnations (a member's identity and the id of its membership term, which it
// writes on its own membership Lease as scale-out.qcm.io/term). A member writes the highest
// epoch it has entered in its current term to its own membership Lease as
// scale-out.qcm.io/ack, a decimal number. All are read from the API server, so all are parsed
// as untrusted input: every error names the annotation, the field and the limit.
//
// Thread safety: a value.
#pragma once

#include <qcm/result.h>

#include <QtCore/QStringList>

namespace qcm::sharding {

struct QCM_SDK_EXPORT Epoch
{
    static constexpr qsizetype MaxMembers = 1024;
    static constexpr qsizetype MaxIdentityLength = 512; // of the identity in an incarnation
    static constexpr qsizetype MaxJsonBytes = 1024 * 1024;
    static constexpr quint64 MaxNumber = quint64(1) << 53; // exact in JSON's doubles

    quint64 number = 0; // 0: no epoch written yet
    QStringList members; // sorted, unique incarnations ("identity/term")

    // Sorts `members` and drops duplicates and empty ones.
    static Epoch make(quint64 number, QStringList members);
    QByteArray toJson() const;
    static Result<Epoch> fromJson(QByteArrayView json);

    bool operator==(const Epoch &o) const { return number == o.number && members == o.members; }
    bool operator!=(const Epoch &o) const { return !(*this == o); }
};

// The annotations, on the ring Lease and on each membership Lease.
QCM_SDK_EXPORT extern const QString EpochAnnotation; // "scale-out.qcm.io/epoch"
QCM_SDK_EXPORT extern const QString AckAnnotation; // "scale-out.qcm.io/ack"
QCM_SDK_EXPORT extern const QString TermAnnotation; // "scale-out.qcm.io/term"

// A term id: 1 to MaxTermLength lowercase hexadecimal digits.
constexpr qsizetype MaxTermLength = 32;
QCM_SDK_EXPORT Result<QString> parseTerm(QStringView value);
// A fresh random term id of 16 hexadecimal digits.
QCM_SDK_EXPORT QString newTerm();
// "identity/term".
QCM_SDK_EXPORT QString incarnation(QStringView identity, QStringView term);
// The identity of an incarnation: what precedes its last '/' (all of it when there is none).
QCM_SDK_EXPORT QStringView identityOf(QStringView incarnation);

// An ack annotation's value: a decimal number without sign or leading zeros, at most
// Epoch::MaxNumber (an ack is the number of an epoch).
QCM_SDK_EXPORT Result<quint64> parseAck(QStringView value);

} // namespace qcm::sharding
