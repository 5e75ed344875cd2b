// SPDX-License-Identifier: Apache-2.0
// Epoch: one numbered membership of a scale-out group, the input of its HashRing
// (docs/scale-out.md, "Epochs"). The group's leader writes it to the ring Lease as the JSON
// annotation scale-out.qcm.io/epoch,
//   {"number":N,"id":"<hex>","previous":"<hex>","members":["identity/term",...]}:
// the members are incarnations (a member's identity and the id of its membership term, which
// it writes on its own membership Lease as scale-out.qcm.io/term). Each epoch has a random id,
// and names the id of the epoch it was written over (`previous`), so that a number written
// twice (the ring Lease lost and written again) is told apart, and an epoch that does not
// follow the one a member read counts as after a gap. A member writes the highest epoch it has
// entered in its current term to its own membership Lease as scale-out.qcm.io/ack,
// "<number>/<epoch id>". All are read from the API server, so all are parsed as untrusted
// input: every error names the annotation, the field and the limit.
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
    QString id; // random, like a term id; written epochs have one
    QString previous; // the id of the epoch this one was written over; empty: none read

    // Sorts `members` and drops duplicates and empty ones.
    static Epoch make(quint64 number, QStringList members, QString id = {}, QString previous = {});
    QByteArray toJson() const;
    static Result<Epoch> fromJson(QByteArrayView json);

    bool operator==(const Epoch &o) const
    {
        return number == o.number && members == o.members && id == o.id && previous == o.previous;
    }
    bool operator!=(const Epoch &o) const { return !(*this == o); }
};

// An acknowledgement: the number and the id of the epoch a member entered.
struct QCM_SDK_EXPORT Ack
{
    quint64 number = 0;
    QString epoch; // the epoch's id

    QString toString() const; // "<number>/<id>"
    bool operator==(const Ack &o) const { return number == o.number && epoch == o.epoch; }
    bool operator!=(const Ack &o) const { return !(*this == o); }
};

// The annotations, on the ring Lease and on each membership Lease.
QCM_SDK_EXPORT extern const QString EpochAnnotation; // "scale-out.qcm.io/epoch"
QCM_SDK_EXPORT extern const QString AckAnnotation; // "scale-out.qcm.io/ack"
QCM_SDK_EXPORT extern const QString TermAnnotation; // "scale-out.qcm.io/term"

// A term id (and an epoch id): 1 to MaxTermLength lowercase hexadecimal digits.
constexpr qsizetype MaxTermLength = 32;
QCM_SDK_EXPORT Result<QString> parseTerm(QStringView value);
// A fresh random id of 16 hexadecimal digits (a term id, an epoch id).
QCM_SDK_EXPORT QString newTerm();
// "identity/term".
QCM_SDK_EXPORT QString incarnation(QStringView identity, QStringView term);
// The identity of an incarnation: what precedes its last '/' (all of it when there is none).
QCM_SDK_EXPORT QStringView identityOf(QStringView incarnation);

// An ack annotation's value, "<number>/<id>": a decimal number without sign or leading zeros,
// at most Epoch::MaxNumber, and an epoch id (the form of a term id).
QCM_SDK_EXPORT Result<Ack> parseAck(QStringView value);

} // namespace qcm::sharding
