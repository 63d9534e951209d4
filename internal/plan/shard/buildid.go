package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// buildID names a build's folder. It is derived from everything that
// shapes the shards (input, type, name, count), so the separate processes
// of an Indexed Job, and a re-run after a crash, agree on it without
// talking; a different input or count gets a folder of its own, so the
// files a running campaign reads are never overwritten.
func buildID(src *source, o *Options) string {
	h := sha256.New()
	fmt.Fprintf(h, "blastfleet build 1\x00%s\x00%d\x00%s\x00%s\x00%d", src.sha256, src.size, o.Type, o.Name, o.Shards)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// forcedBuildID is a fresh folder for a forced rebuild of the very same
// database, which must not overwrite the build campaigns may be reading.
func forcedBuildID(base string, now time.Time) string {
	return fmt.Sprintf("%s-%d", base, now.UnixNano())
}

// useBuild points the job at build id's folder of the output.
func (j *job) useBuild(id string) error {
	out, err := objstore.Prefixed(j.o.Output, manifest.BuildsDir+"/"+id)
	if err != nil {
		return err
	}
	j.build, j.out = manifest.BuildsDir+"/"+id, out
	return nil
}
