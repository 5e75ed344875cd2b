// SPDX-License-Identifier: Apache-2.0
#include <qcm/leaderelection/multilock.h>

#include "mailbox_p.h"

namespace qcm::leaderelection {

struct MultiLock::Private
{
    std::unique_ptr<ResourceLock> primary;
    std::unique_ptr<ResourceLock> secondary;
    std::shared_ptr<detail::Mailbox> mailbox;
    // Whether the last get() found the primary: create() tolerates AlreadyExists only then.
    bool primaryExisted = false;
    // Counts the calls made. A call of several requests whose caller has made a newer call
    // since (it abandoned this one) stops before its next request, as client-go's context
    // cancellation stops it: a late primary write must not go on to write the secondary.
    quint64 calls = 0;
};

using detail::fulfil;

namespace {

client::Status superseded()
{
    return client::Status::transportError(QStringLiteral("Canceled"),
        QStringLiteral("superseded by a newer call on the lock; not continued"));
}

} // namespace

MultiLock::MultiLock(
    std::unique_ptr<ResourceLock> primary, std::unique_ptr<ResourceLock> secondary, QObject *parent)
    : ResourceLock(parent), d(std::make_unique<Private>())
{
    d->primary = std::move(primary);
    d->secondary = std::move(secondary);
    d->mailbox = detail::Mailbox::create(this);
    connect(d->primary.get(), &ResourceLock::changed, this, &ResourceLock::changed);
    connect(d->secondary.get(), &ResourceLock::changed, this, &ResourceLock::changed);
}

MultiLock::~MultiLock()
{
    d->mailbox->close();
}

QFuture<GetResult> MultiLock::get()
{
    auto promise = detail::startedPromise<GetResult>();
    const quint64 call = ++d->calls;
    detail::whenFinished(
        d->primary->get(), d->mailbox, [this, promise, call](const GetResult &primary) {
            if (call != d->calls) {
                fulfil(promise, GetResult(superseded()));
                return;
            }
            d->primaryExisted = primary.ok();
            if (!primary) {
                fulfil(promise, primary);
                return;
            }
            detail::whenFinished(d->secondary->get(), d->mailbox,
                [this, promise, primary](const GetResult &secondary) {
                    if (!secondary) {
                        // The lock is held by an old client that knows only the primary.
                        if (secondary.error().isNotFound()
                            && primary->record.holderIdentity != identity())
                            fulfil(promise, primary);
                        else
                            fulfil(promise, secondary);
                        return;
                    }
                    ObservedRecord combined = *primary;
                    if (primary->record.holderIdentity != secondary->record.holderIdentity) {
                        combined.record.holderIdentity = QString::fromLatin1(UnknownLeader);
                        combined.raw = combined.record.toAnnotation();
                    }
                    combined.raw += ',' + secondary->raw;
                    fulfil(promise, GetResult(combined));
                });
        });
    return promise->future();
}

QFuture<WriteResult> MultiLock::create(const LeaderElectionRecord &record)
{
    auto promise = detail::startedPromise<WriteResult>();
    const quint64 call = ++d->calls;
    detail::whenFinished(d->primary->create(record), d->mailbox,
        [this, promise, record, call](const WriteResult &primary) {
            if (call != d->calls) {
                fulfil(promise, WriteResult(superseded()));
                return;
            }
            // AlreadyExists is expected when the primary is ours and only the secondary is
            // missing. After a get() that found no primary, it means another candidate created
            // it meanwhile: going on to create the secondary would split the two objects
            // between two holders (client-go's MultiLock does; both then read UnknownLeader
            // until the lease expires).
            if (primary && (!primary->isAlreadyExists() || !d->primaryExisted)) {
                fulfil(promise, primary);
                return;
            }
            detail::whenFinished(d->secondary->create(record), d->mailbox,
                [promise](const WriteResult &secondary) { fulfil(promise, secondary); });
        });
    return promise->future();
}

QFuture<WriteResult> MultiLock::update(const LeaderElectionRecord &record)
{
    auto promise = detail::startedPromise<WriteResult>();
    const quint64 call = ++d->calls;
    detail::whenFinished(d->primary->update(record), d->mailbox,
        [this, promise, record, call](const WriteResult &primary) {
            if (primary) {
                fulfil(promise, primary);
                return;
            }
            if (call != d->calls) {
                fulfil(promise, WriteResult(superseded()));
                return;
            }
            detail::whenFinished(d->secondary->get(), d->mailbox,
                [this, promise, record, call](const GetResult &secondary) {
                    if (call != d->calls) {
                        fulfil(promise, WriteResult(superseded()));
                        return;
                    }
                    const bool missing = !secondary && secondary.error().isNotFound();
                    detail::whenFinished(
                        missing ? d->secondary->create(record) : d->secondary->update(record),
                        d->mailbox, [promise](const WriteResult &r) { fulfil(promise, r); });
                });
        });
    return promise->future();
}

void MultiLock::recordEvent(const QString &message)
{
    d->primary->recordEvent(message);
    d->secondary->recordEvent(message);
}

QString MultiLock::identity() const
{
    return d->primary->identity();
}

QString MultiLock::describe() const
{
    return d->primary->describe();
}

void MultiLock::setWatching(bool on)
{
    d->primary->setWatching(on);
    d->secondary->setWatching(on);
}

ResourceLock *MultiLock::primary() const
{
    return d->primary.get();
}

ResourceLock *MultiLock::secondary() const
{
    return d->secondary.get();
}

} // namespace qcm::leaderelection
