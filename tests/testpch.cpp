// SPDX-License-Identifier: Apache-2.0
// The one source of the object library that holds a directory's precompiled test headers
// (qcm_setup_test_programs() in tests/CMakeLists.txt); it defines nothing.
