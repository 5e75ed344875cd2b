// SPDX-License-Identifier: Apache-2.0
// keyHash: the seeded string-key hash behind ItemTable. Checked for what a table needs of it
// (equal keys agree wherever they lie; every byte, the length and the secret count; the low 32
// bits that ItemTable keeps spread like a random function's) and for what Qt's own short-key
// path does not give: it reads no byte beyond the key, even next to an unmapped page.
#include <qcm/detail/itemtable.h>
#include <qcm/detail/keyhash.h>

#include <QtTest/QtTest>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

using qcm::detail::keyHash;
using qcm::detail::KeyHashSecret;

class tst_KeyHash : public QObject
{
    Q_OBJECT

private slots:
    void sameBytesSameHashAtAnyAddress();
    void everyBitOfEveryLengthCounts();
    void lengthCounts();
    void secretCounts();
    void stringsHashTheirUtf16();
    void itemTableHashesStringsWithIt();
    void lowBitsSpreadLikeRandom();
    void readsNothingBeyondTheKey();
};

void tst_KeyHash::sameBytesSameHashAtAnyAddress()
{
    const QByteArray text
        = QByteArrayLiteral("kube-system/coredns-5d78c9869d-abcde and some more bytes");
    std::vector<char> buffer(size_t(text.size()) + 16);
    for (qsizetype size = 0; size <= text.size(); ++size) {
        const size_t expected = keyHash(text.constData(), size_t(size));
        for (size_t offset = 0; offset < 16; ++offset) {
            std::memcpy(buffer.data() + offset, text.constData(), size_t(size));
            QCOMPARE(keyHash(buffer.data() + offset, size_t(size)), expected);
        }
    }
}

void tst_KeyHash::everyBitOfEveryLengthCounts()
{
    // Flipping any one bit of a key of any length up to 100 bytes (every branch: 1-3, 4-7,
    // 8-16, 17-48, the 48-byte loop) changes the hash.
    std::vector<uchar> key(100);
    for (size_t i = 0; i < key.size(); ++i)
        key[i] = uchar(i * 37 + 11);
    for (size_t size = 1; size <= key.size(); ++size) {
        const size_t original = keyHash(key.data(), size);
        for (size_t byte = 0; byte < size; ++byte) {
            for (int bit = 0; bit < 8; ++bit) {
                key[byte] ^= uchar(1u << bit);
                const size_t flipped = keyHash(key.data(), size);
                key[byte] ^= uchar(1u << bit);
                if (flipped == original)
                    QFAIL(qPrintable(
                        QStringLiteral("size %1: flipping bit %2 of byte %3 kept the hash")
                            .arg(size)
                            .arg(bit)
                            .arg(byte)));
            }
        }
    }
}

void tst_KeyHash::lengthCounts()
{
    // Zero bytes of different lengths (the empty key included) hash differently.
    const std::vector<uchar> zeros(200, 0);
    std::set<size_t> hashes;
    for (size_t size = 0; size <= zeros.size(); ++size)
        hashes.insert(keyHash(zeros.data(), size));
    QCOMPARE(hashes.size(), zeros.size() + 1);
}

void tst_KeyHash::secretCounts()
{
    const KeyHashSecret zero = KeyHashSecret::fromSeed(0);
    const KeyHashSecret one = KeyHashSecret::fromSeed(1);
    std::set<quint64> words;
    for (quint64 w : zero.word) {
        QVERIFY(w & 1); // odd: a multiply by it loses no bits
        words.insert(w);
    }
    QCOMPARE(words.size(), size_t(4));
    for (const char *text : {"", "a", "key-1", "default/web-0",
             "a key longer than forty-eight bytes, to take the loop"}) {
        const size_t size = std::strlen(text);
        QVERIFY2(keyHash(text, size, zero) != keyHash(text, size, one), text);
    }
    // The process's secret is the one its global seed gives, so every library agrees on it.
    const KeyHashSecret expected
        = KeyHashSecret::fromSeed(quint64(size_t(QHashSeed::globalSeed())));
    for (int i = 0; i < 4; ++i)
        QCOMPARE(KeyHashSecret::process().word[i], expected.word[i]);
}

void tst_KeyHash::stringsHashTheirUtf16()
{
    for (const QString &key :
        {QString(), QStringLiteral("key-7"), QStringLiteral("ns/ünïcödé-name")}) {
        QCOMPARE(keyHash(key), keyHash(key.utf16(), size_t(key.size()) * 2));
        QCOMPARE(keyHash(QStringView(key)), keyHash(key));
    }
    const QByteArray bytes = QByteArrayLiteral("default/web-0");
    QCOMPARE(keyHash(bytes), keyHash(bytes.constData(), size_t(bytes.size())));
}

void tst_KeyHash::itemTableHashesStringsWithIt()
{
    const QString key = QStringLiteral("key-42");
    QCOMPARE((qcm::detail::ItemTable<QString, int>::hashOf(key)), keyHash(key));
    QCOMPARE((qcm::detail::ItemTable<int, int>::hashOf(42)), qHash(42, QHashSeed::globalSeed()));
}

void tst_KeyHash::lowBitsSpreadLikeRandom()
{
    // 65,536 keys of client-go's benchmark shape ("key-N") into 131,072 slots by the low bits,
    // as ItemTable homes them: a random function fills 131072 * (1 - e^-0.5) = 51,572 slots
    // (standard deviation about 110). And among their 32-bit fragments, which ItemTable
    // compares before the keys, a random function has 0.5 pairs equal on average.
    constexpr size_t keyCount = 65536;
    constexpr size_t slotCount = 131072;
    std::vector<bool> filled(slotCount);
    std::vector<quint32> fragments;
    fragments.reserve(keyCount);
    for (size_t i = 0; i < keyCount; ++i) {
        const size_t hash = keyHash(QStringLiteral("key-%1").arg(i));
        filled[hash & (slotCount - 1)] = true;
        fragments.push_back(quint32(hash));
    }
    const auto used = size_t(std::count(filled.begin(), filled.end(), true));
    QVERIFY2(used > 51000 && used < 52150, qPrintable(QString::number(used)));
    std::sort(fragments.begin(), fragments.end());
    const auto equalPairs = fragments.size()
        - size_t(std::unique(fragments.begin(), fragments.end()) - fragments.begin());
    QVERIFY2(equalPairs <= 6, qPrintable(QString::number(equalPairs)));
}

void tst_KeyHash::readsNothingBeyondTheKey()
{
    // Keys that end at the last byte before an inaccessible page, and keys that start at the
    // first byte after one: a read outside the key is a SIGSEGV here.
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *mapping
        = mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    QVERIFY(mapping != MAP_FAILED);
    auto *base = static_cast<uchar *>(mapping);
    QCOMPARE(mprotect(base, page, PROT_NONE), 0);
    QCOMPARE(mprotect(base + 2 * page, page, PROT_NONE), 0);
    uchar *const first = base + page;
    uchar *const end = base + 2 * page;
    std::memset(first, 'k', page);
    for (size_t size = 0; size <= 128; ++size) {
        const size_t atEnd = keyHash(end - size, size);
        const size_t atStart = keyHash(first, size);
        QCOMPARE(atEnd, atStart); // the same bytes
    }
    munmap(mapping, 3 * page);
}

QTEST_GUILESS_MAIN(tst_KeyHash)
#include "tst_keyhash.moc"
