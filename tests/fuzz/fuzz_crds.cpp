// SPDX-License-Identifier: Apache-2.0
// qcm-gen's CRD reader and C++ writer (tools/qcm-gen): any bytes give a model or an error
// that names the file and says why, never a crash, a hang or unbounded recursion; a model
// gives C++ for every package, each header declaring its namespace.
#include "fuzzsupport.h"

#include "emitter.h"
#include "schemareader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace qcm::gen;
    GeneratorLimits limits;
    limits.inputBytes = 1 << 20;
    limits.schemaDepth = 32;
    limits.types = 2000;
    const auto model
        = readCrds({QStringLiteral("crd.yaml"), qcm::fuzz::bytes(data, size)}, {}, limits);
    if (!model) {
        FUZZ_CHECK(model.error().file == QStringLiteral("crd.yaml"), model.error().toString());
        FUZZ_CHECK(!model.error().reason.isEmpty(), QStringLiteral("an error without a reason"));
        return 0;
    }
    const QList<GeneratedFile> files = emitCpp(*model, {});
    FUZZ_CHECK(files.size() == 2 * model->packages.size(),
        QStringLiteral("a package without its two files"));
    for (qsizetype i = 0; i < model->packages.size(); ++i)
        FUZZ_CHECK(files.at(2 * i).content.contains(
                       ("namespace " + model->packages.at(i).cppNamespace + " {").toUtf8()),
            QStringLiteral("a header without its namespace"));
    return 0;
}
