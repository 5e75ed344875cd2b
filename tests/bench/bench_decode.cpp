// SPDX-License-Identifier: Apache-2.0
// Decode throughput of list and watch payloads (tests/bench/gen_pods.py writes them, into
// $QCM_BENCH_DATA), beside go/decode_test.go which decodes the same bytes with client-go.
//
//   BM_DecodeList    a PodList response -> ObjectList (RestClient::decodeList, default codec)
//   BM_DecodeWatch   a watch stream in 16 KiB chunks -> WatchEvents (WatchDecoder)
// The default codec (LazyJsonCodec) defers each object's QJsonObject tree to its first use;
// what that costs when every object is used is shown beside it:
//   BM_DecodeListThenTrees, BM_DecodeWatchThenTrees   the same, then json() of every object
//   BM_DecodeListQtJson, BM_DecodeWatchQtJson         QtJsonCodec: a tree per object at once
#include <qcm/client/restclient.h>

#include <benchmark/benchmark.h>

#include <QtCore/QFile>

#include <cstdlib>

using namespace qcm::client;

namespace {

QByteArray payload(const char *name)
{
    const char *dir = std::getenv("QCM_BENCH_DATA");
    QFile f(QString::fromLocal8Bit(dir ? dir : ".") + QLatin1Char('/') + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly)) {
        std::fprintf(stderr,
            "cannot read %s: run tests/bench/gen_pods.py --out DIR and set QCM_BENCH_DATA=DIR\n",
            qPrintable(f.fileName()));
        std::exit(2);
    }
    return f.readAll();
}

const QtJsonCodec qtJson;

// The trees of every object (what a handler reading each object's spec pays).
qsizetype buildTrees(const QList<Object> &objects)
{
    qsizetype members = 0;
    for (const Object &o : objects)
        members += o.json().size();
    return members;
}

void decodeList(benchmark::State &state, const Codec *codec, bool trees)
{
    Response response;
    response.code = 200;
    response.body = payload("podlist.json");
    for (auto _ : state) {
        auto list = RestClient::decodeList(response, codec);
        if (!list || list->items.size() != 1000)
            state.SkipWithError("the list did not decode to 1000 pods");
        else if (trees && buildTrees(list->items) == 0)
            state.SkipWithError("the pods have no members");
        benchmark::DoNotOptimize(list);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * response.body.size());
}

void decodeWatch(benchmark::State &state, const Codec *codec, bool trees)
{
    const QByteArray stream = payload("podwatch.jsonl");
    constexpr qsizetype Chunk = 16 * 1024;
    for (auto _ : state) {
        WatchDecoder decoder(codec);
        qsizetype events = 0;
        for (qsizetype at = 0; at < stream.size(); at += Chunk) {
            const QList<WatchEvent> decoded
                = decoder.feed(QByteArrayView(stream).sliced(at, qMin(Chunk, stream.size() - at)));
            events += decoded.size();
            if (trees)
                for (const WatchEvent &e : decoded)
                    benchmark::DoNotOptimize(e.object.json().size());
        }
        if (events != 1000)
            state.SkipWithError("the stream did not decode to 1000 events");
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * stream.size());
}

void BM_DecodeList(benchmark::State &state)
{
    decodeList(state, nullptr, false);
}
BENCHMARK(BM_DecodeList)->Unit(benchmark::kMillisecond);

void BM_DecodeWatch(benchmark::State &state)
{
    decodeWatch(state, nullptr, false);
}
BENCHMARK(BM_DecodeWatch)->Unit(benchmark::kMillisecond);

void BM_DecodeListThenTrees(benchmark::State &state)
{
    decodeList(state, nullptr, true);
}
BENCHMARK(BM_DecodeListThenTrees)->Unit(benchmark::kMillisecond);

void BM_DecodeWatchThenTrees(benchmark::State &state)
{
    decodeWatch(state, nullptr, true);
}
BENCHMARK(BM_DecodeWatchThenTrees)->Unit(benchmark::kMillisecond);

void BM_DecodeListQtJson(benchmark::State &state)
{
    decodeList(state, &qtJson, false);
}
BENCHMARK(BM_DecodeListQtJson)->Unit(benchmark::kMillisecond);

void BM_DecodeWatchQtJson(benchmark::State &state)
{
    decodeWatch(state, &qtJson, false);
}
BENCHMARK(BM_DecodeWatchQtJson)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
