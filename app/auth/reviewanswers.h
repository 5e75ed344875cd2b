// SPDX-License-Identifier: Apache-2.0
// What the API server answers to a TokenReview (authentication.k8s.io/v1) and to a
// SubjectAccessReview (authorization.k8s.io/v1), read as the delegating authenticator and
// authorizer use it. Any response gives a result: a non-2xx status or a body that is not JSON
// is an Error with a reason; an authenticated answer without a user name is an Error too.
// Fuzzed by tests/fuzz/fuzz_reviews.cpp.
//
// Thread safety: pure functions.
#pragma once

#include "auth/delegatingauthenticator.h"
#include "auth/delegatingauthorizer.h"

#include <qcm/client/response.h>

namespace qcm::host {

AuthenticationResult parseTokenReview(const client::Response &response);
AuthorizationResult parseAccessReview(const client::Response &response);

} // namespace qcm::host
