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
// and what reading five spec fields of each pod through the generated typed views costs
// (issue 13's target: 5x client-go's typed decode plus the same reads):
//   BM_DecodeListTypedReads, BM_DecodeWatchTypedReads  an image, a port, a resource limit, a
//                                                      node selector and a label of each pod
#include <qcm/api/core/v1.h>
#include <qcm/client/restclient.h>

#include <benchmark/benchmark.h>

#include <QtCore/QFile>

#include <algorithm>
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

// What is done with each decoded object.
enum class Use { Nothing, Tree, TypedReads };

// The five reads of the typed-reads case; false if one is missing (gen_pods.py sets each).
bool readFields(const Object &object)
{
    using namespace qcm::api::core::v1;
    const Pod pod(object);
    const PodSpec spec = pod.spec();
    const Container container = spec.containers().at(0);
    const std::optional<QString> image = container.image();
    const qint32 port = container.ports().at(0).containerPort();
    const std::optional<QString> cpu
        = container.resources().limits().value(QLatin1StringView("cpu"));
    const std::optional<QString> disk = spec.nodeSelector().value(QLatin1StringView("disktype"));
    const std::optional<QString> app = pod.metadata().labels().value(QLatin1StringView("app"));
    benchmark::DoNotOptimize(image);
    benchmark::DoNotOptimize(cpu);
    benchmark::DoNotOptimize(disk);
    benchmark::DoNotOptimize(app);
    return image && port == 80 && cpu && disk && app;
}

bool use(const Object &object, Use how)
{
    switch (how) {
    case Use::Nothing:
        return true;
    case Use::Tree:
        return !object.json().isEmpty();
    case Use::TypedReads:
        return readFields(object);
    }
    return false;
}

void decodeList(benchmark::State &state, const Codec *codec, Use how)
{
    Response response;
    response.code = 200;
    response.body = payload("podlist.json");
    for (auto _ : state) {
        auto list = RestClient::decodeList(response, codec);
        if (!list || list->items.size() != 1000)
            state.SkipWithError("the list did not decode to 1000 pods");
        else if (!std::all_of(list->items.cbegin(), list->items.cend(),
                     [how](const Object &o) { return use(o, how); }))
            state.SkipWithError("a pod lacks what the case reads");
        benchmark::DoNotOptimize(list);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * response.body.size());
}

void decodeWatch(benchmark::State &state, const Codec *codec, Use how)
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
            for (const WatchEvent &e : decoded)
                if (!use(e.object, how))
                    state.SkipWithError("a pod lacks what the case reads");
        }
        if (events != 1000)
            state.SkipWithError("the stream did not decode to 1000 events");
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * stream.size());
}

void BM_DecodeList(benchmark::State &state)
{
    decodeList(state, nullptr, Use::Nothing);
}
BENCHMARK(BM_DecodeList)->Unit(benchmark::kMillisecond);

void BM_DecodeWatch(benchmark::State &state)
{
    decodeWatch(state, nullptr, Use::Nothing);
}
BENCHMARK(BM_DecodeWatch)->Unit(benchmark::kMillisecond);

void BM_DecodeListThenTrees(benchmark::State &state)
{
    decodeList(state, nullptr, Use::Tree);
}
BENCHMARK(BM_DecodeListThenTrees)->Unit(benchmark::kMillisecond);

void BM_DecodeWatchThenTrees(benchmark::State &state)
{
    decodeWatch(state, nullptr, Use::Tree);
}
BENCHMARK(BM_DecodeWatchThenTrees)->Unit(benchmark::kMillisecond);

void BM_DecodeListQtJson(benchmark::State &state)
{
    decodeList(state, &qtJson, Use::Nothing);
}
BENCHMARK(BM_DecodeListQtJson)->Unit(benchmark::kMillisecond);

void BM_DecodeWatchQtJson(benchmark::State &state)
{
    decodeWatch(state, &qtJson, Use::Nothing);
}
BENCHMARK(BM_DecodeWatchQtJson)->Unit(benchmark::kMillisecond);

void BM_DecodeListTypedReads(benchmark::State &state)
{
    decodeList(state, nullptr, Use::TypedReads);
}
BENCHMARK(BM_DecodeListTypedReads)->Unit(benchmark::kMillisecond);

void BM_DecodeWatchTypedReads(benchmark::State &state)
{
    decodeWatch(state, nullptr, Use::TypedReads);
}
BENCHMARK(BM_DecodeWatchTypedReads)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
