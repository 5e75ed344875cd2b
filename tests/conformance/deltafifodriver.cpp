// SPDX-License-Identifier: Apache-2.0
#include "deltafifodriver.h"

#include <qcm/cache/deltafifo.h>
#include <qcm/cache/indexer.h>

#include <algorithm>
#include <iostream>
#include <memory>

using namespace qcm::cache;

namespace qcm::conformance {

namespace {

const QString transformField = QStringLiteral("t");

// The informer's store as knownObjects, listing its keys sorted (go/deltafifo.go's
// sortedIndexer does the same to client-go's indexer; README.md says why).
class SortedKnown : public KeyListerGetter
{
public:
    explicit SortedKnown(const Indexer &store) : m_store(store) { }
    QStringList listKeys() const override
    {
        QStringList keys = m_store.listKeys();
        std::sort(keys.begin(), keys.end());
        return keys;
    }
    std::optional<Object> getByKey(const QString &key) const override
    {
        return m_store.getByKey(key);
    }

private:
    const Indexer &m_store;
};

// "<namespace>/<name>@<resourceVersion>" or "<name>@<resourceVersion>".
Object parseObject(TraceParser &p)
{
    const QString token = p.next();
    const qsizetype at = token.lastIndexOf(QLatin1Char('@'));
    if (at < 0)
        fail(p.lineNumber, QStringLiteral("not an object (key@resourceVersion): %1").arg(token));
    const QString key = token.left(at);
    const QString resourceVersion = token.mid(at + 1);
    const QStringList parts = key.split(QLatin1Char('/'));
    if (parts.size() > 2)
        fail(p.lineNumber, QStringLiteral("not an object key: %1").arg(key));
    const QString name = parts.last();
    if (name.isEmpty() || resourceVersion.isEmpty())
        fail(p.lineNumber,
            QStringLiteral("an object needs a name and a resourceVersion: %1").arg(token));
    Object object;
    if (parts.size() == 2)
        object.setNamespaceName(parts[0]);
    object.setName(name);
    object.setResourceVersion(resourceVersion);
    object.json().insert(transformField, QString());
    return object;
}

QString describe(const Object &object)
{
    if (object.isEmpty())
        return QStringLiteral("nil");
    QString s = object.key() + QLatin1Char('@') + object.resourceVersion();
    const QString marks = object.json().value(transformField).toString();
    if (!marks.isEmpty())
        s += QLatin1Char('+') + marks;
    return s;
}

QString describe(const Deltas &deltas)
{
    QStringList out;
    for (const Delta &delta : deltas) {
        const QString type = QString::fromLatin1(deltaTypeName(delta.type));
        if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&delta.object))
            out << QStringLiteral("%1 tombstone(%2:%3)")
                       .arg(type, tombstone->key, describe(tombstone->object));
        else
            out << type + QLatin1Char(' ') + describe(std::get<Object>(delta.object));
    }
    return out.join(QStringLiteral(", "));
}

// Appends "t" to the object's "t" field (so a second transformation would show), and fails
// for resourceVersion "bad".
Result<Object> transform(Object object)
{
    if (object.resourceVersion() == QLatin1String("bad"))
        return Error {{}, QStringLiteral("metadata.resourceVersion"),
            QStringLiteral("transform refuses resourceVersion bad")};
    object.json().insert(
        transformField, object.json().value(transformField).toString() + QLatin1Char('t'));
    return object;
}

// What the informer does to its store with popped deltas (SharedIndexInformer::handleDeltas,
// client-go's processDeltas), without the handler calls.
void applyDeltas(Indexer &store, const Deltas &deltas)
{
    for (const Delta &delta : deltas) {
        if (delta.type == DeltaType::Deleted) {
            if (const auto *tombstone = std::get_if<DeletedFinalStateUnknown>(&delta.object))
                store.removeByKey(tombstone->key);
            else
                store.remove(std::get<Object>(delta.object));
            continue;
        }
        const Object &object = delta.lastKnown();
        if (store.get(object))
            store.update(object);
        else
            store.add(object);
    }
}

QString errorOr(const std::optional<Error> &error)
{
    return error ? QStringLiteral("error") : QStringLiteral("ok");
}

QString orNone(const QStringList &words)
{
    return words.isEmpty() ? QStringLiteral("none") : words.join(QLatin1Char(' '));
}

} // namespace

int runDeltaFifoTrace(TraceParser &subject, const QString &subjectLine, int lineNumber)
{
    DeltaFifo::Options options;
    std::unique_ptr<Indexer> known;
    std::unique_ptr<SortedKnown> sortedKnown;
    while (subject.position < subject.tokens.size()) {
        const QString option = subject.next();
        if (option == QLatin1String("known")) {
            known = std::make_unique<Indexer>(
                metaNamespaceKey, Indexers {{NamespaceIndex, metaNamespaceIndexFunc}});
            sortedKnown = std::make_unique<SortedKnown>(*known);
            options.knownObjects = sortedKnown.get();
        } else if (option == QLatin1String("replaced")) {
            options.emitDeltaTypeReplaced = true;
        } else if (option == QLatin1String("transform")) {
            options.transformer = transform;
        } else {
            fail(lineNumber, QStringLiteral("unknown deltafifo option: %1").arg(option));
        }
    }
    std::printf("%s -> ok\n", qPrintable(subjectLine));
    DeltaFifo fifo(options);

    while (auto next = nextTraceLine(std::cin, lineNumber)) {
        TraceParser &p = *next;
        const QString &line = p.line;
        const QString op = p.next();
        auto needKnown = [&] {
            if (!known)
                fail(
                    lineNumber, QStringLiteral("%1 needs a known store (deltafifo known)").arg(op));
        };
        QString result = QStringLiteral("ok");
        if (op == QLatin1String("add")) {
            result = errorOr(fifo.add(parseObject(p)));
        } else if (op == QLatin1String("update")) {
            result = errorOr(fifo.update(parseObject(p)));
        } else if (op == QLatin1String("delete")) {
            result = errorOr(fifo.remove(parseObject(p)));
        } else if (op == QLatin1String("replace")) {
            QList<Object> list;
            while (p.position < p.tokens.size())
                list << parseObject(p);
            result = errorOr(fifo.replace(list));
        } else if (op == QLatin1String("resync")) {
            result = errorOr(fifo.resync());
        } else if (op == QLatin1String("pop")) {
            bool fails = false;
            if (p.position < p.tokens.size()) {
                if (p.next() != QLatin1String("fail"))
                    fail(lineNumber, QStringLiteral("pop takes only \"fail\""));
                fails = true;
            }
            if (fifo.listKeys().isEmpty() && !fifo.isClosed()) {
                result = QStringLiteral("empty"); // pop() would block
            } else {
                QString seen;
                auto popped = fifo.pop([&](const Deltas &deltas, bool isInInitialList) {
                    seen = QStringLiteral("%1; initial=%2")
                               .arg(describe(deltas),
                                   isInInitialList ? QStringLiteral("true")
                                                   : QStringLiteral("false"));
                    if (fails)
                        return std::optional<Error>(
                            Error {{}, {}, QStringLiteral("process fails")});
                    if (known)
                        applyDeltas(*known, deltas);
                    return std::optional<Error>();
                });
                if (popped)
                    result = seen;
                else if (popped.error().reason == DeltaFifo::closedError())
                    result = QStringLiteral("closed");
                else
                    result = seen + QStringLiteral("; error");
            }
        } else if (op == QLatin1String("hassynced")) {
            result = fifo.hasSynced() ? QStringLiteral("true") : QStringLiteral("false");
        } else if (op == QLatin1String("close")) {
            fifo.close();
        } else if (op == QLatin1String("isclosed")) {
            result = fifo.isClosed() ? QStringLiteral("true") : QStringLiteral("false");
        } else if (op == QLatin1String("keys")) {
            result = orNone(fifo.listKeys());
        } else if (op == QLatin1String("known")) {
            needKnown();
            QStringList objects;
            for (const Object &object : known->list())
                objects << describe(object);
            std::sort(objects.begin(), objects.end());
            result = orNone(objects);
        } else if (op == QLatin1String("store")) {
            needKnown();
            const Object object = parseObject(p);
            result = errorOr(known->get(object) ? known->update(object) : known->add(object));
        } else if (op == QLatin1String("unstore")) {
            needKnown();
            const QString key = p.next();
            if (const auto object = known->getByKey(key))
                result = errorOr(known->remove(*object));
            else
                result = QStringLiteral("absent");
        } else {
            fail(lineNumber, QStringLiteral("unknown deltafifo operation: %1").arg(op));
        }
        p.end();
        std::printf("%s -> %s\n", qPrintable(line), qPrintable(result));
    }
    return 0;
}

} // namespace qcm::conformance
