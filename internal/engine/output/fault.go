package output

import (
	"fmt"
	"os"
	"strconv"
)

// FailWriteAtEnv makes the write that covers this byte offset of the output
// fail after its bytes went out, as a connection lost mid-upload or a disk
// error would: a test hook for the clean-up of a failed run (the temp file
// removed, the multipart upload aborted), documented in docs/engine.md.
const FailWriteAtEnv = "BLASTFLEET_FAIL_WRITE_AT"

// injectedWriteFailure returns the injected error for a write of n bytes
// at offset, if FailWriteAtEnv asks for one.
func injectedWriteFailure(offset int64, n int) error {
	v := os.Getenv(FailWriteAtEnv)
	if v == "" {
		return nil
	}
	at, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s=%q: want a byte offset", FailWriteAtEnv, v)
	}
	if at >= offset && at < offset+int64(n) {
		return fmt.Errorf("injected failure writing bytes %d..%d (%s=%d)", offset, offset+int64(n), FailWriteAtEnv, at)
	}
	return nil
}
