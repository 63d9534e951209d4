// Package testkit holds test helpers built on the product's own packages
// (devstack, objstore, the API types): the local stack for end-to-end
// tests, and a MinIO server of test/support/testenv as a Store and a Secret.
// They cannot live in test/support/testenv, whose users include those
// packages' own tests (an import cycle).
package testkit
