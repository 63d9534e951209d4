// Package faultproxy is a fault-injecting HTTP proxy for tests, on
// loopback between partitions and an S3 server (MinIO). It passes
// requests through unchanged, Host header included, so a client pointed
// at the proxy signs for the proxy's address and the server accepts the
// signature; on a seeded schedule it loses responses after the server
// acted on the request, answers bursts of 5xx, delays requests and resets
// connections. As a store that breaks its promises would, it can
// acknowledge a PUT it never stores (a lost acknowledged write) and
// answer a LIST with an earlier answer (a stale listing, missing the
// latest writes). It can also make its server a hot spot: a fixed latency
// per request and a bandwidth shared by all responses, both changeable
// while requests flow. It counts every fault it injected, so a test can
// show the faults really happened.
package faultproxy
