// SPDX-License-Identifier: Apache-2.0
// The qcm side of the DeltaFifo traces (README.md, "DeltaFifo traces"): runs the rest of a
// trace whose subject line is `deltafifo [known] [replaced] [transform]` on qcm::cache::DeltaFifo
// and prints one line per operation.
//
// Thread safety: none needed; the driver is single-threaded.
#pragma once

#include "traceparser.h"

namespace qcm::conformance {

// `subject` holds the subject line's words, positioned after "deltafifo"; the trace's other
// lines are read from std::cin. Returns the process's exit status.
int runDeltaFifoTrace(TraceParser &subject, const QString &subjectLine, int lineNumber);

} // namespace qcm::conformance
