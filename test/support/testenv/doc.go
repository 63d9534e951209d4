// Package testenv starts real servers (MinIO today) for tests, so tests
// exercise the same components users run. When a server's binary cannot be
// found the test is skipped, unless BLASTFLEET_REQUIRE_REAL=1 (set by
// `make test`), which turns the skip into a failure so CI cannot pass by
// skipping.
package testenv
