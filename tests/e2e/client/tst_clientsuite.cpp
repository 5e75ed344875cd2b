// SPDX-License-Identifier: Apache-2.0
// e2e: the client conformance suite (tests/clientsuite) against the real kube-apiserver, through
// a DirectClient: what testing::FakeClient is checked to do, the server does. The namespace and
// the suite's Gizmo CRD are set up with kubectl, as a user would.
#include "../../clientsuite/clientsuite.h"
#include "../e2esupport.h"

using namespace qcm;
using namespace qcm::client;
using namespace qcm::e2e;

class tst_ClientSuiteE2e : public qcm::testing::ClientSuite
{
    Q_OBJECT

protected:
    Client &client() override { return *m_client; }
    QString ns() const override { return m_ns; }

private slots:
    void initTestCase()
    {
        m_rest = std::make_unique<RestClient>(clusterConfig(QStringLiteral("admin")));
        m_client = std::make_unique<DirectClient>(m_rest.get());
        m_ns = QStringLiteral("e2e-clientsuite-%1")
                   .arg(QDateTime::currentMSecsSinceEpoch() % 100000);
        QVERIFY(kubectl({QStringLiteral("create"), QStringLiteral("namespace"), m_ns}));
        QVERIFY(kubectl({QStringLiteral("apply"), QStringLiteral("-f"),
            QStringLiteral(QCM_SOURCE_DIR "/tests/clientsuite/gizmo-crd.yaml")}));
        QVERIFY(kubectl({QStringLiteral("wait"), QStringLiteral("--for=condition=Established"),
            QStringLiteral("--timeout=60s"), QStringLiteral("crd/gizmos.clientsuite.qcm.dev")}));
    }
    void cleanupTestCase()
    {
        // What the suite left is what kubectl sees.
        QString out;
        QVERIFY(kubectl({QStringLiteral("get"), QStringLiteral("configmaps"), QStringLiteral("-n"),
                            m_ns, QStringLiteral("-o"), QStringLiteral("name")},
            &out));
        QVERIFY2(out.contains(QStringLiteral("configmap/s-apply"))
                && !out.contains(QStringLiteral("configmap/s-final")),
            qPrintable(out));
        // The Gizmos go first: no namespace controller runs here, so a deleted namespace keeps
        // its objects for good.
        QVERIFY(kubectl({QStringLiteral("delete"), QStringLiteral("gizmos.clientsuite.qcm.dev"),
            QStringLiteral("--all"), QStringLiteral("-n"), m_ns}));
        QVERIFY(kubectl({QStringLiteral("delete"), QStringLiteral("namespace"), m_ns,
            QStringLiteral("--wait=false")}));
    }

private:
    std::unique_ptr<RestClient> m_rest;
    std::unique_ptr<DirectClient> m_client;
    QString m_ns;
};

QTEST_MAIN(tst_ClientSuiteE2e)
#include "tst_clientsuite.moc"
