// SPDX-License-Identifier: Apache-2.0
// What the host reads from the API server and the disk for its own safety: TokenReview and
// SubjectAccessReview answers (auth/reviewanswers.h), a client CA bundle
// (auth/x509authenticator.h), and crash records (watchdog/crashrecords.h). The first byte
// chooses which; the rest is the input. Invariants: every answer gives a result; an
// authenticated one names a user; a refusal or an error says why; a bundle is taken or refused
// with a reason, and a taken one is in force; a crash record's name parses only as
// <controller>.<seconds>.<pid>, with a signal in 0..255.
#include "fuzzsupport.h"

#include "auth/reviewanswers.h"
#include "auth/x509authenticator.h"
#include "watchdog/crashrecords.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace qcm::host;
    if (size < 1)
        return 0;
    const QByteArray input = qcm::fuzz::bytes(data + 1, size - 1);
    qcm::client::Response response;
    response.code = 201;
    response.body = input;
    switch (data[0] % 4) {
    case 0: {
        const AuthenticationResult r = parseTokenReview(response);
        if (r.outcome == AuthenticationResult::Outcome::Authenticated)
            FUZZ_CHECK(!r.user.name.isEmpty(), QStringLiteral("authenticated as nobody"));
        else
            FUZZ_CHECK(!r.reason.isEmpty(), QStringLiteral("refused without a reason"));
        break;
    }
    case 1: {
        const AuthorizationResult r = parseAccessReview(response);
        if (r.decision == AuthorizationResult::Decision::Error)
            FUZZ_CHECK(!r.reason.isEmpty(), QStringLiteral("an error without a reason"));
        break;
    }
    case 2: {
        X509Authenticator x509;
        const std::optional<qcm::Error> e = x509.setClientCa(input, QStringLiteral("fuzz"));
        FUZZ_CHECK(e ? !e->reason.isEmpty() : (x509.hasClientCa() || input.trimmed().isEmpty()),
            QStringLiteral("a bundle neither taken nor refused with a reason"));
        break;
    }
    case 3: {
        const qsizetype newline = input.indexOf('\n');
        const QString name = QString::fromUtf8(newline < 0 ? input : input.left(newline));
        const std::optional<CrashRecord> r
            = parseCrashRecord(name, newline < 0 ? QByteArray() : input.mid(newline + 1));
        if (r) {
            FUZZ_CHECK(name.startsWith(r->controller + QLatin1Char('.')),
                QStringLiteral("a record of another controller than its name says"));
            FUZZ_CHECK(r->signal >= 0 && r->signal <= 255, QStringLiteral("a signal out of range"));
            FUZZ_CHECK(r->time >= 0, QStringLiteral("a negative time"));
        }
        break;
    }
    }
    return 0;
}
