// SPDX-License-Identifier: Apache-2.0
// TestEnvironment: a real kube-apiserver and etcd on loopback for a plugin's tests
// (controller-runtime's envtest). Nothing else runs: no controllers, no scheduler, no nodes,
// so a test sees exactly what its own code and the API server do.
//
//     qcm::testing::TestEnvironment env({QStringLiteral("config/foo-crd.yaml")});
//     if (auto error = env.start()) QFAIL(qPrintable(error->toString()));
//     client::RestClient rest(env.restConfig());
//
// The binaries (etcd, kube-apiserver; kubectl when a test wants it) are found in
// $QCM_TESTENV_ASSETS, or the directory given (envtest's KUBEBUILDER_ASSETS). The SDK installs
// qcm-testenv-setup, which builds them from their Go modules into ~/.cache/qcm/bin (the
// directory it prints). start() also needs the openssl command (the service-account key).
//
// start() picks free ports, generates a token for an admin user (system:masters), starts etcd
// and the apiserver in a temporary directory, waits until /readyz answers, then installs the
// given CRDs and waits until they are established. Every failure is an Error naming the step
// and what the process logged. stop() (and the destructor) stops both and removes the
// directory; kubeconfigPath() is a kubeconfig for kubectl while it runs.
//
// Thread safety: use one TestEnvironment from one thread.
#pragma once

#include <qcm/client/restconfig.h>
#include <qcm/error.h>

#include <QtCore/QStringList>

#include <memory>
#include <optional>

namespace qcm::testing {

class QCM_SDK_EXPORT TestEnvironment
{
public:
    struct Options
    {
        QStringList crdFiles; // YAML files of CustomResourceDefinitions to install
        QString assetsDirectory; // empty: $QCM_TESTENV_ASSETS
        Duration startTimeout = std::chrono::seconds(60);
    };

    TestEnvironment();
    explicit TestEnvironment(Options options);
    explicit TestEnvironment(const QStringList &crdFiles);
    ~TestEnvironment();
    TestEnvironment(const TestEnvironment &) = delete;
    TestEnvironment &operator=(const TestEnvironment &) = delete;

    std::optional<Error> start();
    void stop();
    bool isRunning() const;

    // The admin's configuration (a bearer token, the apiserver's own CA).
    client::RestConfig restConfig() const;
    QString kubeconfigPath() const;
    // Installs CRDs (YAML files, one or more documents each) and waits until each is
    // established.
    std::optional<Error> installCrds(const QStringList &files);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace qcm::testing
