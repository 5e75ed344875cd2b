// SPDX-License-Identifier: Apache-2.0
// e2e: WatchList is the informers' default; on an apiserver that refuses it (a TestEnvironment
// of its own, started with --feature-gates=WatchList=false) each round falls back to the
// paged list, as client-go v0.37's reflector does, and the informer syncs and watches.
#include <qcm/cache/sharedinformerfactory.h>
#include <qcm/testing/testenvironment.h>

#include "../e2esupport.h"

#include <QtTest/QtTest>

#include <mutex>

using namespace qcm;
using namespace qcm::cache;
using namespace qcm::client;
using qcm::e2e::configMap;
using qcm::e2e::ConfigMaps;
using namespace std::chrono_literals;

namespace {

const QString Namespace = QStringLiteral("default");

// Records each request of the reflector and how it was answered.
class RecordingListerWatcher : public ListerWatcher
{
public:
    explicit RecordingListerWatcher(ListerWatcher *inner) : m_inner(inner) { }
    Result<ObjectList, Status> list(const ListOptions &options) override
    {
        auto listed = m_inner->list(options);
        record(QStringLiteral("list"), QString::number(listed ? 0 : listed.error().code));
        return listed;
    }
    Result<std::shared_ptr<WatchStream>, Status> watch(const ListOptions &options) override
    {
        auto opened = m_inner->watch(options);
        // The server's refusal comes in the stream, as its first event.
        record(options.sendInitialEvents ? QStringLiteral("watchlist") : QStringLiteral("watch"),
            opened ? QStringLiteral("opened") : QString::number(opened.error().code));
        return opened;
    }
    QStringList calls() const
    {
        std::lock_guard lock(m_mutex);
        return m_calls;
    }

private:
    void record(const QString &what, const QString &answer)
    {
        std::lock_guard lock(m_mutex);
        m_calls << what + QLatin1Char(' ') + answer;
    }
    ListerWatcher *const m_inner;
    mutable std::mutex m_mutex;
    QStringList m_calls;
};

} // namespace

class tst_WatchListFallback : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void refusedStreamFallsBackToTheList();
    void factoryInformerSyncsWithoutWatchList();
    void cleanupTestCase();

private:
    std::unique_ptr<testing::TestEnvironment> m_env;
    std::unique_ptr<RestClient> m_client;
};

void tst_WatchListFallback::initTestCase()
{
    testing::TestEnvironment::Options options;
    options.extraApiserverArgs = {QStringLiteral("--feature-gates=WatchList=false")};
    m_env = std::make_unique<testing::TestEnvironment>(options);
    const std::optional<Error> error = m_env->start();
    QVERIFY2(!error, error ? qPrintable(error->toString()) : "");
    m_client = std::make_unique<RestClient>(m_env->restConfig());
    for (int i = 0; i < 20; ++i)
        QVERIFY(m_client->create(
            ConfigMaps, Namespace, configMap(Namespace, QStringLiteral("cm-%1").arg(i))));
}

void tst_WatchListFallback::cleanupTestCase()
{
    m_client.reset();
    if (m_env)
        m_env->stop();
}

// The stream is refused (422: sendInitialEvents is forbidden without the gate), the round
// lists, and the regular watch follows; later events arrive through it.
void tst_WatchListFallback::refusedStreamFallsBackToTheList()
{
    RestListerWatcher rest(m_client.get(), ConfigMaps, Namespace);
    RecordingListerWatcher recorded(&rest);
    const SharedIndexInformer::Options options; // the defaults: WatchList on
    QVERIFY(options.useWatchList);
    // The refusal, as the reflector reports it before it lists.
    QTest::ignoreMessage(QtInfoMsg,
        QRegularExpression(QStringLiteral("falling back to a regular list.*Invalid \\(422\\).*"
                                          "sendInitialEvents is forbidden")));
    SharedIndexInformer informer(&recorded, options);
    informer.start();
    QTRY_VERIFY_WITH_TIMEOUT(informer.hasSynced(), 30000);
    QCOMPARE(informer.indexer().size(), 20);
    QVERIFY(m_client->create(ConfigMaps, Namespace, configMap(Namespace, QStringLiteral("late"))));
    QTRY_COMPARE_WITH_TIMEOUT(informer.indexer().size(), 21, 30000);
    const QStringList calls = recorded.calls();
    QVERIFY2(calls.size() >= 3 && calls[0] == QLatin1String("watchlist opened")
            && calls[1] == QLatin1String("list 0") && calls[2] == QLatin1String("watch opened"),
        qPrintable(calls.join(QStringLiteral(", "))));
    informer.stop();
}

// The host's path: an informer from the SharedInformerFactory syncs on such a server too.
void tst_WatchListFallback::factoryInformerSyncsWithoutWatchList()
{
    QTest::ignoreMessage(QtInfoMsg, QRegularExpression(QStringLiteral("falling back")));
    SharedInformerFactory factory(m_client.get(), Duration::zero());
    SharedIndexInformer *informer = factory.informerFor(ConfigMaps);
    factory.start();
    QVERIFY(factory.waitForCacheSync(30s));
    const auto inNamespace = informer->indexer().byIndex(NamespaceIndex, Namespace);
    QVERIFY(inNamespace);
    QCOMPARE(inNamespace->size(), qsizetype(21));
    factory.shutdown();
}

QTEST_GUILESS_MAIN(tst_WatchListFallback)
#include "tst_watchlistfallback.moc"
