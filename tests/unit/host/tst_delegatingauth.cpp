// SPDX-License-Identifier: Apache-2.0
// Delegated authentication and authorization against a stand-in API server (FakeApiServer):
// what a TokenReview and a SubjectAccessReview carry, what their answers make of a request,
// kube-controller-manager's cache TTLs stepped on a FakeClock (answers cached, failures not),
// the always-allowed paths and groups, and LruExpireCache's bound.
#include "awaitfuture.h"
#include "fakeapiserver.h"

#include "auth/delegatedauth.h"
#include "auth/delegatingauthenticator.h"
#include "auth/delegatingauthorizer.h"
#include "auth/lruexpirecache.h"

#include <qcm/client/restclient.h>
#include <qcm/fakeclock.h>

#include <QtCore/QJsonArray>
#include <QtCore/QProcess>
#include <QtCore/QTemporaryDir>
#include <QtTest/QtTest>

using namespace qcm;
using namespace qcm::host;
using namespace qcm::host::testing;
using namespace std::chrono_literals;
using Outcome = AuthenticationResult::Outcome;
using Decision = AuthorizationResult::Decision;

class tst_DelegatingAuth : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void tokenReviewAuthenticates();
    void tokenAnswersAreCachedForTheTtl();
    void failedReviewsAreNotCached();
    void noOrMalformedCredentials();
    void accessReviewCarriesUserPathAndVerb();
    void allowAndDenyHaveTheirOwnTtl();
    void failedAccessReviewIsAnErrorNotCached();
    void alwaysAllowedPathsAndGroups();
    void alwaysAllowPathsAreChecked();
    void cacheIsBounded();
    void clientCaFile();

private:
    std::pair<int, QJsonObject> answer(const FakeApiServer::Request &r);

    int m_status = 201; // what the fake API server answers with
    std::unique_ptr<FakeApiServer> m_apiServer;
    std::unique_ptr<client::RestClient> m_client;
    FakeClock m_clock;
};

std::pair<int, QJsonObject> tst_DelegatingAuth::answer(const FakeApiServer::Request &r)
{
    if (m_status >= 300)
        return {m_status,
            QJsonObject {{QStringLiteral("kind"), QStringLiteral("Status")},
                {QStringLiteral("message"), QStringLiteral("etcd is sad")}}};
    const QJsonObject spec = r.body.value(QLatin1String("spec")).toObject();
    QJsonObject status;
    if (r.path.endsWith(QLatin1String("/tokenreviews"))) {
        const QString token = spec.value(QLatin1String("token")).toString();
        if (token == QLatin1String("good-token")) {
            status = {{QStringLiteral("authenticated"), true},
                {QStringLiteral("user"),
                    QJsonObject {{QStringLiteral("username"),
                                     QStringLiteral("system:serviceaccount:monitoring:prometheus")},
                        {QStringLiteral("uid"), QStringLiteral("uid-1")},
                        {QStringLiteral("groups"),
                            QJsonArray {QStringLiteral("system:serviceaccounts"),
                                QStringLiteral("system:authenticated")}},
                        {QStringLiteral("extra"),
                            QJsonObject {{QStringLiteral("authentication.kubernetes.io/pod-name"),
                                QJsonArray {QStringLiteral("prometheus-0")}}}}}}};
        } else {
            status = {{QStringLiteral("authenticated"), false},
                {QStringLiteral("error"), QStringLiteral("invalid bearer token")}};
        }
    } else {
        const QString user = spec.value(QLatin1String("user")).toString();
        const bool allowed = user == QLatin1String("system:serviceaccount:monitoring:prometheus");
        status = {{QStringLiteral("allowed"), allowed},
            {QStringLiteral("reason"),
                allowed ? QStringLiteral("RBAC: allowed by ClusterRoleBinding \"metrics\"")
                        : QString()}};
    }
    return {m_status, QJsonObject {{QStringLiteral("status"), status}}};
}

void tst_DelegatingAuth::init()
{
    m_status = 201;
    m_apiServer = std::make_unique<FakeApiServer>(
        [this](const FakeApiServer::Request &r) { return answer(r); });
    client::RestConfig config;
    config.server = m_apiServer->url();
    config.qps = -1;
    m_client = std::make_unique<client::RestClient>(config);
}

void tst_DelegatingAuth::tokenReviewAuthenticates()
{
    DelegatingAuthenticator authn(m_client.get(), {10s, &m_clock});
    const AuthenticationResult r = awaitFuture(authn.authenticate("Bearer good-token", {}));
    QCOMPARE(r.outcome, Outcome::Authenticated);
    QCOMPARE(r.user.name, QStringLiteral("system:serviceaccount:monitoring:prometheus"));
    QCOMPARE(r.user.uid, QStringLiteral("uid-1"));
    QCOMPARE(r.user.groups,
        QStringList(
            {QStringLiteral("system:serviceaccounts"), QStringLiteral("system:authenticated")}));
    QCOMPARE(r.user.extra.value(QStringLiteral("authentication.kubernetes.io/pod-name")),
        QStringList {QStringLiteral("prometheus-0")});
    // The review: a TokenReview of authentication.k8s.io/v1 with the token.
    QCOMPARE(m_apiServer->requests().size(), 1);
    const FakeApiServer::Request &sent = m_apiServer->requests().constFirst();
    QCOMPARE(sent.method, QByteArray("POST"));
    QCOMPARE(sent.path, QStringLiteral("/apis/authentication.k8s.io/v1/tokenreviews"));
    QCOMPARE(sent.body.value(QLatin1String("kind")).toString(), QStringLiteral("TokenReview"));
    QCOMPARE(sent.body.value(QLatin1String("apiVersion")).toString(),
        QStringLiteral("authentication.k8s.io/v1"));
    QCOMPARE(sent.body.value(QLatin1String("spec")).toObject().value(QLatin1String("token")),
        QStringLiteral("good-token"));
    // The scheme in any case, as k8s.io/apiserver's bearertoken.
    QCOMPARE(
        awaitFuture(authn.authenticate("bearer good-token", {})).outcome, Outcome::Authenticated);

    const AuthenticationResult bad = awaitFuture(authn.authenticate("Bearer other-token", {}));
    QCOMPARE(bad.outcome, Outcome::Unauthenticated);
    QCOMPARE(bad.reason, QStringLiteral("the token is not valid: invalid bearer token"));
}

void tst_DelegatingAuth::tokenAnswersAreCachedForTheTtl()
{
    DelegatingAuthenticator authn(m_client.get(), {10s, &m_clock});
    QCOMPARE(
        awaitFuture(authn.authenticate("Bearer good-token", {})).outcome, Outcome::Authenticated);
    QCOMPARE(awaitFuture(authn.authenticate("Bearer other-token", {})).outcome,
        Outcome::Unauthenticated);
    QCOMPARE(authn.tokenReviews(), 2);
    m_clock.step(9s);
    // Both answers, the yes and the no, come from the cache within the TTL.
    QCOMPARE(
        awaitFuture(authn.authenticate("Bearer good-token", {})).outcome, Outcome::Authenticated);
    QCOMPARE(awaitFuture(authn.authenticate("Bearer other-token", {})).outcome,
        Outcome::Unauthenticated);
    QCOMPARE(authn.tokenReviews(), 2);
    QCOMPARE(m_apiServer->requests().size(), 2);
    m_clock.step(1s);
    QCOMPARE(
        awaitFuture(authn.authenticate("Bearer good-token", {})).outcome, Outcome::Authenticated);
    QCOMPARE(authn.tokenReviews(), 3);
}

void tst_DelegatingAuth::failedReviewsAreNotCached()
{
    DelegatingAuthenticator authn(m_client.get(), {10s, &m_clock});
    m_status = 500;
    const AuthenticationResult r = awaitFuture(authn.authenticate("Bearer good-token", {}));
    QCOMPARE(r.outcome, Outcome::Error);
    QVERIFY2(r.reason.startsWith(QStringLiteral("the TokenReview failed: ")), qPrintable(r.reason));
    m_status = 201;
    QCOMPARE(
        awaitFuture(authn.authenticate("Bearer good-token", {})).outcome, Outcome::Authenticated);
    QCOMPARE(authn.tokenReviews(), 2);

    // Nothing listening at all: an error, at once.
    client::RestConfig nowhere;
    nowhere.server = QUrl(QStringLiteral("http://127.0.0.1:1"));
    client::RestClient down(nowhere);
    DelegatingAuthenticator unreachable(&down, {10s, &m_clock});
    QCOMPARE(
        awaitFuture(unreachable.authenticate("Bearer good-token", {})).outcome, Outcome::Error);
}

void tst_DelegatingAuth::noOrMalformedCredentials()
{
    DelegatingAuthenticator authn(m_client.get(), {10s, &m_clock});
    const struct
    {
        QByteArray header;
        const char *reason;
    } cases[] = {
        {"", "no credentials"},
        {"Basic dXNlcjpwYXNz", "no credentials"},
        {"Bearer", "no credentials"},
        {"Bearer a b", "invalid bearer token"},
        {"Bearer  ", "no credentials"},
    };
    for (const auto &c : cases) {
        const AuthenticationResult r = awaitFuture(authn.authenticate(c.header, {}));
        QCOMPARE(r.outcome, Outcome::Unauthenticated);
        QCOMPARE(r.reason, QLatin1String(c.reason));
    }
    QCOMPARE(m_apiServer->requests().size(), 0);
}

void tst_DelegatingAuth::accessReviewCarriesUserPathAndVerb()
{
    DelegatingAuthorizer authz(m_client.get(), {{}, {}, 10s, 10s, &m_clock});
    UserInfo user {QStringLiteral("system:serviceaccount:monitoring:prometheus"),
        QStringLiteral("uid-1"), {QStringLiteral("system:serviceaccounts")},
        {{QStringLiteral("scopes"), {QStringLiteral("a"), QStringLiteral("b")}}}};
    const AuthorizationResult r
        = awaitFuture(authz.authorize(user, "GET", QStringLiteral("/metrics")));
    QCOMPARE(r.decision, Decision::Allow);
    QCOMPARE(r.reason, QStringLiteral("RBAC: allowed by ClusterRoleBinding \"metrics\""));
    QCOMPARE(m_apiServer->requests().size(), 1);
    const FakeApiServer::Request &sent = m_apiServer->requests().constFirst();
    QCOMPARE(sent.path, QStringLiteral("/apis/authorization.k8s.io/v1/subjectaccessreviews"));
    QCOMPARE(
        sent.body.value(QLatin1String("kind")).toString(), QStringLiteral("SubjectAccessReview"));
    const QJsonObject spec = sent.body.value(QLatin1String("spec")).toObject();
    QCOMPARE(spec.value(QLatin1String("nonResourceAttributes")).toObject(),
        QJsonObject({{QStringLiteral("path"), QStringLiteral("/metrics")},
            {QStringLiteral("verb"), QStringLiteral("get")}}));
    QCOMPARE(spec.value(QLatin1String("user")).toString(), user.name);
    QCOMPARE(spec.value(QLatin1String("uid")).toString(), user.uid);
    QCOMPARE(spec.value(QLatin1String("groups")).toArray(),
        QJsonArray {QStringLiteral("system:serviceaccounts")});
    QCOMPARE(spec.value(QLatin1String("extra")).toObject(),
        QJsonObject(
            {{QStringLiteral("scopes"), QJsonArray {QStringLiteral("a"), QStringLiteral("b")}}}));

    const AuthorizationResult denied = awaitFuture(
        authz.authorize({QStringLiteral("alice"), {}, {}, {}}, "GET", QStringLiteral("/configz")));
    QCOMPARE(denied.decision, Decision::Deny);
}

void tst_DelegatingAuth::allowAndDenyHaveTheirOwnTtl()
{
    DelegatingAuthorizer authz(m_client.get(), {{}, {}, 20s, 5s, &m_clock});
    const UserInfo prometheus {
        QStringLiteral("system:serviceaccount:monitoring:prometheus"), {}, {}, {}};
    const UserInfo alice {QStringLiteral("alice"), {}, {}, {}};
    const QString path = QStringLiteral("/metrics");
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "GET", path)).decision, Decision::Allow);
    QCOMPARE(awaitFuture(authz.authorize(alice, "GET", path)).decision, Decision::Deny);
    QCOMPARE(authz.accessReviews(), 2);
    m_clock.step(4s);
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "GET", path)).decision, Decision::Allow);
    QCOMPARE(awaitFuture(authz.authorize(alice, "GET", path)).decision, Decision::Deny);
    QCOMPARE(authz.accessReviews(), 2);
    // Another verb or path is another review.
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "HEAD", path)).decision, Decision::Allow);
    QCOMPARE(authz.accessReviews(), 3);
    m_clock.step(1s); // the denial expires at 5 s, the allowance at 20 s
    QCOMPARE(awaitFuture(authz.authorize(alice, "GET", path)).decision, Decision::Deny);
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "GET", path)).decision, Decision::Allow);
    QCOMPARE(authz.accessReviews(), 4);
    m_clock.step(15s);
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "GET", path)).decision, Decision::Allow);
    QCOMPARE(authz.accessReviews(), 5);
}

void tst_DelegatingAuth::failedAccessReviewIsAnErrorNotCached()
{
    DelegatingAuthorizer authz(m_client.get(), {{}, {}, 10s, 10s, &m_clock});
    const UserInfo prometheus {
        QStringLiteral("system:serviceaccount:monitoring:prometheus"), {}, {}, {}};
    m_status = 503;
    const AuthorizationResult r
        = awaitFuture(authz.authorize(prometheus, "GET", QStringLiteral("/metrics")));
    QCOMPARE(r.decision, Decision::Error);
    QVERIFY2(r.reason.startsWith(QStringLiteral("the SubjectAccessReview failed: ")),
        qPrintable(r.reason));
    m_status = 201;
    QCOMPARE(awaitFuture(authz.authorize(prometheus, "GET", QStringLiteral("/metrics"))).decision,
        Decision::Allow);
    QCOMPARE(authz.accessReviews(), 2);
}

void tst_DelegatingAuth::alwaysAllowedPathsAndGroups()
{
    DelegatingAuthorizer::Options options;
    options.clock = &m_clock;
    DelegatingAuthorizer defaults(m_client.get(), options);
    // kube-controller-manager's defaults: exact paths, so a check's own path is not open.
    for (const char *open : {"/healthz", "/readyz", "/livez"})
        QVERIFY2(defaults.isAlwaysAllowedPath(QLatin1String(open)), open);
    for (const char *closed :
        {"/healthz/sample-controller", "/metrics", "/configz", "/", "/livez/"})
        QVERIFY2(!defaults.isAlwaysAllowedPath(QLatin1String(closed)), closed);
    // system:masters needs no review.
    const UserInfo admin {QStringLiteral("admin"), {}, {QStringLiteral("system:masters")}, {}};
    QCOMPARE(awaitFuture(defaults.authorize(admin, "GET", QStringLiteral("/configz"))).decision,
        Decision::Allow);
    QCOMPARE(m_apiServer->requests().size(), 0);

    options.alwaysAllowPaths = {QStringLiteral("/healthz*"), QStringLiteral("/metrics")};
    DelegatingAuthorizer prefix(m_client.get(), options);
    QVERIFY(prefix.isAlwaysAllowedPath(QStringLiteral("/healthz/sample-controller")));
    QVERIFY(prefix.isAlwaysAllowedPath(QStringLiteral("/healthz")));
    QVERIFY(prefix.isAlwaysAllowedPath(QStringLiteral("/metrics")));
    QVERIFY(!prefix.isAlwaysAllowedPath(QStringLiteral("/metricsz")));
    QVERIFY(!prefix.isAlwaysAllowedPath(QStringLiteral("/livez")));
}

void tst_DelegatingAuth::alwaysAllowPathsAreChecked()
{
    QVERIFY(!DelegatingAuthorizer::checkAlwaysAllowPaths(
        {QStringLiteral("/healthz"), QStringLiteral("/debug/*"), QStringLiteral("/*")}));
    std::optional<Error> e
        = DelegatingAuthorizer::checkAlwaysAllowPaths({QStringLiteral("metrics")});
    QVERIFY(e);
    QCOMPARE(e->toString(),
        QStringLiteral("--authorization-always-allow-paths: \"metrics\" is not a "
                       "path: it must start with /"));
    e = DelegatingAuthorizer::checkAlwaysAllowPaths({QStringLiteral("/a*b")});
    QVERIFY(e);
    QCOMPARE(e->toString(),
        QStringLiteral("--authorization-always-allow-paths: \"/a*b\": * may "
                       "only end a path (a prefix)"));
}

void tst_DelegatingAuth::cacheIsBounded()
{
    LruExpireCache<int> cache(3, &m_clock);
    cache.add("a", 1, 10s);
    cache.add("b", 2, 10s);
    cache.add("c", 3, 10s);
    QCOMPARE(cache.get("a"), std::optional<int>(1)); // a is now the most recently used
    cache.add("d", 4, 10s); // evicts b, the least recently used
    QCOMPARE(cache.size(), std::size_t(3));
    QVERIFY(!cache.get("b"));
    QCOMPARE(cache.get("c"), std::optional<int>(3));
    cache.add("e", 5, 0s); // a TTL of zero caches nothing
    QVERIFY(!cache.get("e"));
    m_clock.step(10s);
    QVERIFY(!cache.get("a"));
    QCOMPARE(cache.size(), std::size_t(2)); // the expired entry left when it was looked up
}

// --client-ca-file: read at start into the authenticator (no lookup in the cluster then); a file
// that cannot be read, or holds no certificate, is an error naming the flag.
void tst_DelegatingAuth::clientCaFile()
{
    QTemporaryDir dir;
    QProcess openssl;
    openssl.setWorkingDirectory(dir.path());
    openssl.start(QStringLiteral("openssl"),
        {QStringLiteral("req"), QStringLiteral("-x509"), QStringLiteral("-newkey"),
            QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
            QStringLiteral("ec_paramgen_curve:P-256"), QStringLiteral("-nodes"),
            QStringLiteral("-days"), QStringLiteral("1"), QStringLiteral("-subj"),
            QStringLiteral("/CN=client-ca"), QStringLiteral("-keyout"), QStringLiteral("ca.key"),
            QStringLiteral("-out"), QStringLiteral("ca.crt")});
    QVERIFY(openssl.waitForFinished(30000) && openssl.exitCode() == 0);
    client::RestConfig rest;
    rest.server = m_apiServer->url();
    ServingAuthConfig config;
    config.clientCAFile = dir.filePath(QStringLiteral("ca.crt"));
    Result<std::unique_ptr<DelegatedAuth>> auth = DelegatedAuth::create(config, rest);
    QVERIFY2(auth, auth ? "" : qPrintable(auth.error().toString()));
    QVERIFY((*auth)->authenticator()->x509().hasClientCa());
    QTest::qWait(100);
    QCOMPARE(m_apiServer->requests().size(), 0); // the file decides: no ConfigMap lookup

    config.clientCAFile = dir.filePath(QStringLiteral("missing.crt"));
    auth = DelegatedAuth::create(config, rest);
    QVERIFY(!auth);
    QCOMPARE(auth.error().toString(),
        QStringLiteral("%1: --client-ca-file: cannot be read: No such file or directory")
            .arg(config.clientCAFile));
    config.clientCAFile = dir.filePath(QStringLiteral("ca.key"));
    auth = DelegatedAuth::create(config, rest);
    QVERIFY(!auth);
    QCOMPARE(auth.error().toString(),
        QStringLiteral("%1: --client-ca-file: holds no PEM certificate").arg(config.clientCAFile));
}

QTEST_GUILESS_MAIN(tst_DelegatingAuth)
#include "tst_delegatingauth.moc"
