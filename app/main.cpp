// qcm: the controller manager host.
//
// This build parses the command line and answers --help and --version. Loading controller
// plugins, leader election and serving come with the host (see the issues in docs/status.md).
#include <qcm/version.h>

#include <QtCore/QCommandLineParser>
#include <QtCore/QCoreApplication>

#include <cstdio>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("qcm"));
    QCoreApplication::setApplicationVersion(QStringLiteral(QCM_VERSION_STRING));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("qcm, a Kubernetes controller manager that loads controller plugins.\n"
                       "This build has the SDK's work queues and metrics; the plugin host "
                       "is not built yet, so qcm only answers --help and --version."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.process(app);

    std::fputs(qPrintable(parser.helpText()), stdout);
    return 0;
}
