// SPDX-License-Identifier: Apache-2.0
// QueueState and ItemTable: the open-addressing table and FIFO behind the queues, checked
// against a model.
// A key type with a few distinct hashes forces long probe chains, so that backward-shift
// deletion, wrap-around and growth are all exercised.
#include <qcm/workqueue/queuestate.h>

#include <QtTest/QtTest>

#include <deque>
#include <map>
#include <random>
#include <stdexcept>

using qcm::workqueue::detail::QueueState;

namespace {

struct Colliding
{
    int value;
    bool operator==(const Colliding &other) const { return value == other.value; }
};

size_t qHash(const Colliding &key, size_t seed)
{
    Q_UNUSED(seed);
    return size_t(key.value % 3) * 7 + 5; // three hashes for every key
}

// Counts its live instances; its copies throw when told to, as a std::string's may when
// memory runs out.
struct Fragile
{
    static inline int live = 0;
    static inline bool failCopies = false;
    int value = 0;

    Fragile() { ++live; }
    explicit Fragile(int v) : value(v) { ++live; }
    Fragile(const Fragile &other) : value(other.value)
    {
        if (failCopies)
            throw std::runtime_error("copy failed");
        ++live;
    }
    Fragile &operator=(const Fragile &other)
    {
        if (failCopies)
            throw std::runtime_error("copy failed");
        value = other.value;
        return *this;
    }
    ~Fragile() { --live; }
    bool operator==(const Fragile &other) const { return value == other.value; }
};

size_t qHash(const Fragile &key, size_t seed)
{
    return size_t(key.value) * 31 ^ seed;
}

} // namespace

class tst_QueueState : public QObject
{
    Q_OBJECT

private slots:
    void againstModel_data();
    void againstModel();
    void fifoWrapsAndGrows();
    void erasedItemIsHandedBack();
    void storedHashFindsTheEntry();
    void entriesStayPutAsTheTableGrows();
    void throwingCopyLeavesTheTableAsItWas();
};

void tst_QueueState::againstModel_data()
{
    QTest::addColumn<bool>("colliding");
    QTest::newRow("qHash") << false;
    QTest::newRow("three hashes") << true;
}

void tst_QueueState::againstModel()
{
    QFETCH(bool, colliding);
    QueueState<Colliding> state;
    std::map<int, int> model; // key -> entry
    std::mt19937 rng(1);
    auto hashOf = [&](int k) {
        return colliding ? qHash(Colliding {k}, 0) : qHash(k, QHashSeed::globalSeed());
    };
    for (int step = 0; step < 20000; ++step) {
        const int k = int(rng() % 300);
        if (rng() % 2) {
            const int e = state.findOrInsert(Colliding {k}, hashOf(k));
            if (auto it = model.find(k); it != model.end())
                QCOMPARE(e, it->second);
            model[k] = e;
            QCOMPARE(state.entry(e).item.value, k);
        } else {
            const int e = state.find(Colliding {k}, hashOf(k));
            auto it = model.find(k);
            QCOMPARE(e, it == model.end() ? -1 : it->second);
            if (e >= 0) {
                QCOMPARE(state.erase(e).value, k);
                model.erase(it);
            }
        }
        QCOMPARE(state.size(), model.size());
    }
    for (const auto &[k, e] : model)
        QCOMPARE(state.find(Colliding {k}, hashOf(k)), e);
}

void tst_QueueState::fifoWrapsAndGrows()
{
    QueueState<int> state;
    std::deque<int> model;
    std::mt19937 rng(2);
    for (int step = 0; step < 5000; ++step) {
        if (model.empty() || rng() % 3) {
            const int k = int(rng() % 50);
            const int e = state.findOrInsert(k, qHash(k, 0));
            state.push(e);
            model.push_back(e);
        } else {
            int item = -1;
            const int e = state.pop(item);
            QCOMPARE(e, model.front());
            QCOMPARE(item, state.entry(e).item); // a copy of the entry's item
            model.pop_front();
        }
        QCOMPARE(state.queued(), model.size());
    }
    // Every entry knows how many times it is queued.
    std::map<int, int> counts;
    for (int e : model)
        ++counts[e];
    for (const auto &[e, n] : counts)
        QCOMPARE(state.flags(e).queued, n);
}

void tst_QueueState::erasedItemIsHandedBack()
{
    QueueState<QString> state;
    const QString key = QStringLiteral("ns/name");
    const int e = state.findOrInsert(key, QueueState<QString>::hashOf(key));
    QVERIFY(!key.isDetached()); // shared with the table
    const QString released = state.erase(e);
    QCOMPARE(released, key);
    QCOMPARE(state.find(key, QueueState<QString>::hashOf(key)), -1);
    // The free entry is reused.
    QCOMPARE(state.findOrInsert(QStringLiteral("other"), 1), e);
}

// An entry keeps only the low 32 bits of the hash; the delaying queue and DeltaFifo look
// entries up again with that stored hash, across growth and with full 64-bit hashes.
void tst_QueueState::storedHashFindsTheEntry()
{
    QueueState<int> state;
    std::vector<int> entries;
    for (int k = 0; k < 1000; ++k) {
        const size_t hash = (size_t(0x9e3779b9u) * size_t(k + 1)) << 32 | size_t(k) * 2654435761u;
        entries.push_back(state.findOrInsert(k, hash));
        QCOMPARE(state.find(k, hash), entries.back());
    }
    for (int k = 0; k < 1000; ++k) {
        const int e = entries[size_t(k)];
        QCOMPARE(state.find(k, state.entry(e).hash), e);
        QCOMPARE(state.findOrInsert(k, state.entry(e).hash), e);
    }
    for (int k = 0; k < 1000; k += 2)
        QCOMPARE(state.erase(state.find(k, state.entry(entries[size_t(k)]).hash)), k);
    for (int k = 1; k < 1000; k += 2)
        QCOMPARE(state.find(k, state.entry(entries[size_t(k)]).hash), entries[size_t(k)]);
    QCOMPARE(state.size(), size_t(500));
}

// The entries live in chunks (detail::ChunkedPool): growing the table moves none of them, so a
// reference taken before thousands of inserts still names its entry after them.
void tst_QueueState::entriesStayPutAsTheTableGrows()
{
    QueueState<QString> state;
    const QString first = QStringLiteral("namespace/first");
    const int e = state.findOrInsert(first, qHash(first, QHashSeed::globalSeed()));
    const auto &entry = state.entry(e);
    for (int k = 0; k < 5000; ++k) {
        const QString key = QStringLiteral("namespace/object-%1").arg(k);
        state.findOrInsert(key, qHash(key, QHashSeed::globalSeed()));
    }
    QCOMPARE(&state.entry(e), &entry);
    QCOMPARE(entry.item, first);
    QCOMPARE(state.find(first, qHash(first, QHashSeed::globalSeed())), e);
    QCOMPARE(state.size(), size_t(5001));
}

// An item whose copy throws is not inserted, and the table stays whole: the entry the insert
// took (a new one, then an erased one) is free again, and no item is destroyed twice.
void tst_QueueState::throwingCopyLeavesTheTableAsItWas()
{
    {
        QueueState<Fragile> state;
        const Fragile a(1), b(2), c(3);
        const auto hashOf = [](const Fragile &f) { return QueueState<Fragile>::hashOf(f); };
        const int ea = state.findOrInsert(a, hashOf(a));

        Fragile::failCopies = true;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, state.findOrInsert(b, hashOf(b)));
        Fragile::failCopies = false;
        QCOMPARE(state.size(), size_t(1));
        QCOMPARE(state.find(b, hashOf(b)), -1);
        QCOMPARE(state.find(a, hashOf(a)), ea);
        const int eb = state.findOrInsert(b, hashOf(b));
        QCOMPARE(state.entry(eb).item.value, 2);

        QCOMPARE(state.erase(ea).value, 1);
        Fragile::failCopies = true;
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, state.findOrInsert(c, hashOf(c)));
        Fragile::failCopies = false;
        QCOMPARE(state.size(), size_t(1));
        QCOMPARE(state.find(c, hashOf(c)), -1);
        QCOMPARE(state.findOrInsert(c, hashOf(c)), ea); // the erased entry, still free
        QCOMPARE(state.entry(ea).item.value, 3);
        QCOMPARE(state.find(b, hashOf(b)), eb);
    }
    QCOMPARE(Fragile::live, 0);
}

QTEST_GUILESS_MAIN(tst_QueueState)
#include "tst_queuestate.moc"
