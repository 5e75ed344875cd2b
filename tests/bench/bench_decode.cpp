// Decode throughput of list and watch payloads (tests/bench/gen_pods.py writes them, into
// $QCM_BENCH_DATA), beside go/decode_test.go which decodes the same bytes with client-go.
//
//   BM_DecodeList    a PodList response -> ObjectList (RestClient::decodeList, default codec)
//   BM_DecodeWatch   a watch stream in 16 KiB chunks -> WatchEvents (WatchDecoder)
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

void BM_DecodeList(benchmark::State &state)
{
    Response response;
    response.code = 200;
    response.body = payload("podlist.json");
    for (auto _ : state) {
        auto list = RestClient::decodeList(response);
        if (!list || list->items.size() != 1000)
            state.SkipWithError("the list did not decode to 1000 pods");
        benchmark::DoNotOptimize(list);
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * response.body.size());
}
BENCHMARK(BM_DecodeList)->Unit(benchmark::kMillisecond);

void BM_DecodeWatch(benchmark::State &state)
{
    const QByteArray stream = payload("podwatch.jsonl");
    constexpr qsizetype Chunk = 16 * 1024;
    for (auto _ : state) {
        WatchDecoder decoder;
        qsizetype events = 0;
        for (qsizetype at = 0; at < stream.size(); at += Chunk)
            events
                += decoder.feed(QByteArrayView(stream).sliced(at, qMin(Chunk, stream.size() - at)))
                       .size();
        if (events != 1000)
            state.SkipWithError("the stream did not decode to 1000 events");
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * stream.size());
}
BENCHMARK(BM_DecodeWatch)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
