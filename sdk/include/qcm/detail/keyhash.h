// SPDX-License-Identifier: Apache-2.0
// keyHash: the seeded hash of a string key that ItemTable (the work queues and DeltaFifo)
// files its entries under. Not part of the plugin API.
//
// Why not qHash(key, QHashSeed::globalSeed()): on a host whose CPU has VAES and AVX-512
// (Ice Lake and later Xeons), Qt 6.4 hashes an input under 32 bytes with one masked 32-byte
// load (vmovdqu8 under a k-mask). In the Intel KVM guest of tests/bench/RESULTS.md run 20 a
// key under 16 bytes cost about 110 ns ("key-N": 108.8 ns, against 5.8 ns unseeded), and queue
// case (a) took 496 ns a round there (86 on an EPYC VM). This hash reads only the key's
// own bytes, with plain 4- and 8-byte loads, so it takes the same path on every x86-64 and
// ARM64 CPU (run 21 measures it beside qHash).
//
// The scheme is wyhash's multiply-and-fold, the one Go's runtime falls back to when the CPU has
// no AES (memhashFallback): each 16 bytes are folded with a 64x64->128-bit multiply. Against
// hash flooding the key material is secret and per process, as Go's is: four 64-bit words
// expanded (splitmix64) from Qt's global hash seed. So QT_HASH_SEED=0 makes it deterministic
// for a test, as it makes QHash; and every library in the process (the SDK, each plugin)
// derives the same words, so a hash computed in one and looked up in another agrees.
//
// Thread safety: reentrant; the key material is computed once, thread-safely.
#pragma once

#include <QtCore/QByteArray>
#include <QtCore/QHashFunctions>
#include <QtCore/QString>

#include <cstring>

#ifndef __SIZEOF_INT128__
#error "keyhash.h needs a compiler with unsigned __int128 (GCC or Clang on a 64-bit target)"
#endif

namespace qcm::detail {

// splitmix64's finalizer (Steele, Lea and Flood): a bijection of 64-bit words whose every
// output bit depends on every input bit. Also the last step of sharding::HashRing's key hash.
constexpr quint64 splitMix64Finalize(quint64 z) noexcept
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// The secret key material: four words, each odd so that no multiply by it loses bits.
struct KeyHashSecret
{
    quint64 word[4];

    static KeyHashSecret fromSeed(quint64 seed) noexcept
    {
        KeyHashSecret s {};
        for (quint64 &w : s.word) {
            // splitmix64: consecutive outputs are independent-looking for any seed, 0 included.
            seed += 0x9e3779b97f4a7c15ULL;
            w = splitMix64Finalize(seed) | 1;
        }
        return s;
    }

    // The process's secret, from QHashSeed::globalSeed() at first use.
    static const KeyHashSecret &process() noexcept
    {
        static const KeyHashSecret secret = fromSeed(quint64(size_t(QHashSeed::globalSeed())));
        return secret;
    }
};

namespace keyhash {
__extension__ typedef unsigned __int128 Uint128; // __extension__: no -Wpedantic warning

inline quint64 fold(quint64 a, quint64 b) noexcept
{
    const Uint128 product = static_cast<Uint128>(a) * b;
    return quint64(product) ^ quint64(product >> 64);
}
inline quint64 load64(const uchar *p) noexcept
{
    quint64 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline quint64 load32(const uchar *p) noexcept
{
    quint32 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
} // namespace keyhash

// The hash of `size` bytes at `data` under `secret`. Reads no byte outside [data, data + size).
inline size_t keyHash(const void *data, size_t size, const KeyHashSecret &secret) noexcept
{
    using namespace keyhash;
    const uchar *p = static_cast<const uchar *>(data);
    quint64 seed = secret.word[0];
    quint64 a = 0;
    quint64 b = 0;
    if (size <= 16) {
        if (size >= 8) {
            a = load64(p);
            b = load64(p + size - 8);
        } else if (size >= 4) {
            a = load32(p);
            b = load32(p + size - 4);
        } else if (size > 0) {
            a = (quint64(p[0]) << 16) | (quint64(p[size >> 1]) << 8) | p[size - 1];
        }
    } else {
        size_t left = size;
        if (left > 48) {
            quint64 seed1 = seed;
            quint64 seed2 = seed;
            for (; left > 48; left -= 48, p += 48) {
                seed = fold(load64(p) ^ secret.word[1], load64(p + 8) ^ seed);
                seed1 = fold(load64(p + 16) ^ secret.word[2], load64(p + 24) ^ seed1);
                seed2 = fold(load64(p + 32) ^ secret.word[3], load64(p + 40) ^ seed2);
            }
            seed ^= seed1 ^ seed2;
        }
        for (; left > 16; left -= 16, p += 16)
            seed = fold(load64(p) ^ secret.word[1], load64(p + 8) ^ seed);
        // The last 16 bytes, overlapping what was folded already when `left` is under 16.
        a = load64(p + left - 16);
        b = load64(p + left - 8);
    }
    return size_t(fold(secret.word[3] ^ size, fold(a ^ secret.word[1], b ^ seed)));
}

inline size_t keyHash(const void *data, size_t size) noexcept
{
    return keyHash(data, size, KeyHashSecret::process());
}

// A QString's hash is that of its UTF-16 code units.
inline size_t keyHash(QStringView key) noexcept
{
    return keyHash(key.data(), size_t(key.size()) * sizeof(QChar));
}
inline size_t keyHash(const QString &key) noexcept
{
    return keyHash(QStringView(key));
}
inline size_t keyHash(const QByteArray &key) noexcept
{
    return keyHash(key.constData(), size_t(key.size()));
}

} // namespace qcm::detail
