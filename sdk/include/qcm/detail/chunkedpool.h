// SPDX-License-Identifier: Apache-2.0
// ChunkedPool: a growable array of T numbered from 0, kept in chunks of 2^Shift elements so
// that growing never moves, nor even touches, the elements it already has.
//
// Not part of the plugin API. ItemTable keeps its entries here and DeltaFifo its delta nodes:
// a std::vector's reallocation moved every entry while the owner held its lock, about a fifth
// of queue case (b) (tests/bench/RESULTS.md, run 13). References stay valid until clear().
//
// Thread safety: none of its own; the owner serialises every call.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace qcm::detail {

template<typename T, int Shift>
class ChunkedPool
{
public:
    static constexpr size_t ChunkSize = size_t(1) << Shift;

    T &operator[](size_t i) { return m_chunks[i >> Shift][i & (ChunkSize - 1)]; }
    const T &operator[](size_t i) const { return m_chunks[i >> Shift][i & (ChunkSize - 1)]; }
    size_t size() const { return m_size; }

    // Whether the next grow() needs a new chunk.
    bool full() const { return m_size == m_chunks.size() << Shift; }
    // Makes `chunk` (ChunkSize value-initialised elements, made by the caller, perhaps
    // outside the owner's lock) the chunk the next grow() fills. Only when full().
    void adopt(std::unique_ptr<T[]> chunk) { m_chunks.push_back(std::move(chunk)); }

    // Appends a default-constructed element (numbered size() before the call).
    T &grow()
    {
        if (m_size >> Shift == m_chunks.size())
            m_chunks.push_back(std::make_unique<T[]>(ChunkSize));
        return (*this)[m_size++];
    }

    // Frees every chunk.
    void clear()
    {
        m_chunks = decltype(m_chunks)();
        m_size = 0;
    }

private:
    std::vector<std::unique_ptr<T[]>> m_chunks;
    size_t m_size = 0;
};

} // namespace qcm::detail
