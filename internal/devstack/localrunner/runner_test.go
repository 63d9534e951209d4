package localrunner

import "testing"

// TestAgainstAPIServer runs every case against one real API server; each
// case has a namespace and a runner of its own, so they run in parallel.
func TestAgainstAPIServer(t *testing.T) {
	env := startAPIServer(t)
	cases := map[string]func(*testing.T, *testEnv){
		"MPIJobSucceeds":        testMPIJobSucceeds,
		"MPIJobFails":           testMPIJobFails,
		"MPIJobDeleted":         testMPIJobDeleted,
		"MPIJobSuspended":       testMPIJobSuspended,
		"MPIJobLauncherLost":    testMPIJobLauncherLost,
		"IndexedJob":            testIndexedJob,
		"JobBackoffLimit":       testJobBackoffLimit,
		"JobBackoffLimitPerIdx": testJobBackoffLimitPerIndex,
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, &testEnv{Env: env})
		})
	}
}
