// SPDX-License-Identifier: Apache-2.0
#include "auth/delegatedauth.h"

#include "logging.h"

#include <qcm/client/restclient.h>
#include <qcm/detail/readatmost.h>

#include <QtCore/QFile>
#include <QtCore/QJsonDocument>
#include <QtCore/QJsonObject>

namespace qcm::host {

namespace {

const QString ConfigMapPath = QStringLiteral(
    "/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication");
const QString ConfigMapName = QStringLiteral("kube-system/extension-apiserver-authentication");
constexpr std::chrono::minutes LookupPeriod {1};

} // namespace

Result<std::unique_ptr<DelegatedAuth>> DelegatedAuth::create(
    const ServingAuthConfig &config, const client::RestConfig &restConfig)
{
    client::RestConfig authConfig = restConfig;
    authConfig.qps = 200;
    authConfig.burst = 400;
    authConfig.timeout = std::chrono::seconds(10);
    authConfig.userAgent = QStringLiteral("qcm/delegated-auth");

    std::unique_ptr<DelegatedAuth> auth(new DelegatedAuth);
    auth->m_client = std::make_unique<client::RestClient>(authConfig);
    auth->m_authenticator = std::make_unique<DelegatingAuthenticator>(
        auth->m_client.get(), DelegatingAuthenticator::Options {config.tokenCacheTtl});
    DelegatingAuthorizer::Options authz;
    authz.alwaysAllowPaths = config.alwaysAllowPaths;
    authz.allowTtl = config.allowCacheTtl;
    authz.denyTtl = config.denyCacheTtl;
    auth->m_authorizer = std::make_unique<DelegatingAuthorizer>(auth->m_client.get(), authz);

    if (!config.clientCAFile.isEmpty()) {
        const QString flag = QStringLiteral("--client-ca-file");
        QFile file(config.clientCAFile);
        if (!file.open(QIODevice::ReadOnly))
            return Error {config.clientCAFile, flag,
                QStringLiteral("cannot be read: %1").arg(file.errorString())};
        const Result<QByteArray> pem
            = detail::readAtMost(file, detail::inputLimits().certificateBytes,
                QStringLiteral("the client CA bundle"), QStringLiteral("limits.certificateBytes"));
        if (!pem)
            return Error {config.clientCAFile, flag, pem.error().reason};
        if (std::optional<Error> e
            = auth->m_authenticator->x509().setClientCa(*pem, config.clientCAFile))
            return *e;
    } else if (!config.skipLookup) {
        connect(&auth->m_lookupTimer, &QTimer::timeout, auth.get(), &DelegatedAuth::lookUpClientCa);
        auth->m_lookupTimer.start(LookupPeriod);
        QMetaObject::invokeMethod(auth.get(), &DelegatedAuth::lookUpClientCa, Qt::QueuedConnection);
    }
    return auth;
}

DelegatedAuth::~DelegatedAuth() = default;

void DelegatedAuth::lookUpClientCa()
{
    m_client->requestAsync(QByteArrayLiteral("GET"), ConfigMapPath)
        .then(this, [this](const client::Response &response) {
            QString problem;
            QByteArray pem;
            if (response.code == 404) {
                problem = QStringLiteral("%1 does not exist").arg(ConfigMapName);
            } else if (!response.isSuccess()) {
                problem = QStringLiteral("cannot read %1: %2")
                              .arg(ConfigMapName, response.status().message);
            } else {
                const QJsonObject data = QJsonDocument::fromJson(response.body)
                                             .object()
                                             .value(QLatin1String("data"))
                                             .toObject();
                pem = data.value(QLatin1String("client-ca-file")).toString().toUtf8();
                if (pem.isEmpty())
                    problem = QStringLiteral("%1 has no client-ca-file").arg(ConfigMapName);
            }
            X509Authenticator &x509 = m_authenticator->x509();
            if (problem.isEmpty() && pem != x509.clientCaPem()) {
                if (std::optional<Error> e = x509.setClientCa(pem, ConfigMapName))
                    problem = e->toString();
                else
                    qCInfo(lcHost).noquote()
                        << QStringLiteral("client certificates are verified against the client "
                                          "CA of %1")
                               .arg(ConfigMapName);
            }
            if (!problem.isEmpty() && problem != m_lastLookupProblem)
                qCWarning(lcHost).noquote()
                    << QStringLiteral("%1; %2 (--client-ca-file sets one, "
                                      "--authentication-skip-lookup stops looking)")
                           .arg(problem,
                               x509.hasClientCa()
                                   ? QStringLiteral("the client CA read before stays in force")
                                   : QStringLiteral("client certificates are refused"));
            m_lastLookupProblem = problem;
        });
}

} // namespace qcm::host
