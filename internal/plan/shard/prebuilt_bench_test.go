package shard

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/blastfleet/blastfleet/internal/bio/blastdb/blastdbtest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/synth"
)

// BenchmarkBlastDBVolumesVsReshard measures the choice BuildFromBlastDB
// made: sharding a prebuilt database along its volumes (copying them)
// against re-sharding it through FASTA (blastdbcmd -entry all, then the
// FASTA build's balance and makeblastdb per shard), side by side on one
// database of about 12 million letters in several volumes, both to a
// directory. The FASTA round trip is the cheaper half of a lossless
// re-shard: it carries neither taxids (makeblastdb -taxid_map) nor masks
// (-mask_data), which a lossless one would dump and rebuild too. Reports
// both times and their ratio (docs/benchmarks.md).
func BenchmarkBlastDBVolumesVsReshard(b *testing.B) {
	for _, p := range []string{"makeblastdb", "blastdbcmd"} {
		if _, err := exec.LookPath(p); err != nil {
			b.Skip("BLAST+ not installed")
		}
	}
	dir := b.TempDir()
	db, err := blastdbtest.Build(dir, blastdbtest.Options{Name: "benchnt", VolumeMax: 400000,
		Synth: synth.Options{Seed: 9, Families: 400, Members: 20, MinLen: 1000, MaxLen: 2000, Mutation: 0.03, Queries: 1, QueryFrac: 0.1}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	store := func() objstore.Store {
		st, err := objstore.NewDir(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		return st
	}
	var volumes, reshard time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if _, err := BuildFromBlastDB(ctx, Options{BlastDB: filepath.Join(db.Original, db.Name), Shards: 4, Output: store(), WorkDir: dir}); err != nil {
			b.Fatal(err)
		}
		volumes += time.Since(start)

		start = time.Now()
		fa := filepath.Join(dir, "dump.fa")
		out, err := os.Create(fa)
		if err != nil {
			b.Fatal(err)
		}
		cmd := exec.Command("blastdbcmd", "-db", db.Path(), "-entry", "all", "-outfmt", "%f", "-ctrl_a")
		cmd.Stdout = out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
		out.Close()
		if _, err := Build(ctx, Options{Input: fa, Type: "nucl", Shards: 4, Output: store(), WorkDir: dir}); err != nil {
			b.Fatal(err)
		}
		reshard += time.Since(start)
	}
	b.ReportMetric(volumes.Seconds()/float64(b.N), "volumes-s/op")
	b.ReportMetric(reshard.Seconds()/float64(b.N), "reshard-s/op")
	b.ReportMetric(reshard.Seconds()/volumes.Seconds(), "reshard/volumes")
	b.Logf("%d volumes: along volumes %.2f s, through FASTA %.2f s per build (%.1fx)", db.Volumes,
		volumes.Seconds()/float64(b.N), reshard.Seconds()/float64(b.N), reshard.Seconds()/volumes.Seconds())
}
