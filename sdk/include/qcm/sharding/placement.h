// SPDX-License-Identifier: Apache-2.0
// Placement of whole controllers across the members of an epoch (docs/scale-out.md, "Whole
// controllers"): each member's quota, and the order in which a member keeps the controllers
// it holds (rendezvous hashing, so that a small change of the epoch moves few controllers).
//
// Thread safety: pure functions, safe from any thread.
#pragma once

#include <qcm/global.h>

#include <QtCore/QMap>
#include <QtCore/QStringList>

namespace qcm::sharding {

// How many of `controllers` a member may hold in an epoch of `members`: with C controllers
// and N members, the first C mod N members by hash64(identity) (ties by identity) may hold
// ceil(C/N), the others floor(C/N). The quotas of all members add up to C. 0 for a member
// that is not in `members`.
QCM_SDK_EXPORT int controllerQuota(
    const QStringList &members, const QString &member, qsizetype controllers);

// `controllers` ordered from the one `member` keeps most to the one it releases first
// (highest hash64(member + "/" + controller) first). Adding or removing one controller leaves
// the others in the same relative order.
QCM_SDK_EXPORT QStringList rendezvousOrder(const QString &member, QStringList controllers);

// Which of `controllers` each of `members` holds: every controller exactly once, each member
// as many as its controllerQuota(), so the spread has max - min <= 1. Every (member,
// controller) pair is scored as rendezvousOrder scores it (hash64(member + "/" + controller));
// from the highest score down, a pair is taken while its controller is free and its member
// has quota left, so that a join or leave moves few controllers besides those it must (about
// a third as many more, tst_hashring). Every member computes the same answer from
// the same members, so they never contend for a controller. Members are identities (stable
// across restarts, unlike incarnations); empty and repeated ones are ignored. No members: {}.
QCM_SDK_EXPORT QMap<QString, QStringList> assignControllers(
    const QStringList &members, const QStringList &controllers);

// With coordinated election (docs/scale-out.md, "Coordinated election of controller Leases"):
// the members that controllers may be placed on, from each member's emulation version: those
// of the oldest (LeaseCandidate::compareVersions), as the API server's election controller
// picks its leaders. A member whose version is missing or unreadable is left out, unless no
// member has a readable one: then all are returned. Sorted.
QCM_SDK_EXPORT QStringList oldestEmulationVersion(const QMap<QString, QString> &versions);

} // namespace qcm::sharding
