// Package jitter spreads poll intervals, so that partitions (and
// campaigns) started together do not poll the object store or the API
// server in lockstep: a fixed interval keeps a herd that arrived together
// arriving together for ever.
//
// k8s.io/apimachinery's wait.Jitter only lengthens an interval, and the
// engine imports nothing of Kubernetes; this one spreads it both ways,
// so the mean interval stays the one configured.
package jitter
