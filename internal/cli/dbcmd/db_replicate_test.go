package dbcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/blastfleet/blastfleet/internal/storage/manifest"
	"github.com/blastfleet/blastfleet/internal/storage/objstore"
	"github.com/blastfleet/blastfleet/test/support/testenv"
)

func open(t *testing.T, role objstore.Role, loc string) objstore.Store {
	t.Helper()
	st, err := objstore.OpenAs(context.Background(), role, loc)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// checkReplica fails unless the replica at loc holds the primary's build
// and its manifest.json lists want.
func checkReplica(t *testing.T, primary *manifest.Manifest, st objstore.Store, want ...string) {
	t.Helper()
	ctx := context.Background()
	if err := manifest.CheckReplica(ctx, primary, st); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.ReplicaLocations(), " "); got != strings.Join(want, " ") {
		t.Errorf("%s lists replicas %q, want %q", st.URL(manifest.FileName), got, want)
	}
}

// db shard --replica writes the build to a second MinIO server (its own
// BLASTFLEET_REPLICA1_ variables) and to a directory, records both in the
// manifest.json of every copy, and db status checks them.
func TestDBShardReplicas(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	ctx := context.Background()
	a, b := testenv.StartMinIO(t), testenv.StartMinIO(t)
	a.Setenv(t)
	for _, kv := range b.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv("BLASTFLEET_REPLICA1_"+k, v)
	}
	a.MakeBucket(t, "work")
	b.MakeBucket(t, "work") // the same name on another server
	dir, input := tinyInput(t)
	repDir := filepath.Join(dir, "replica")
	stdout, stderr, err := run(t, "blastfleet", "db", "shard", "--input", input, "--type", "nucl", "--shards", "2",
		"--output", "s3://work/dbs/tiny", "--replica", "s3://work/dbs/tiny/", "--replica", repDir)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "recorded 2 replicas in s3://work/dbs/tiny/manifest.json") || !strings.Contains(stderr, "replica s3://work/dbs/tiny: storage variables BLASTFLEET_REPLICA1_*") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	primary := open(t, objstore.RoleOutput, "s3://work/dbs/tiny")
	m, _, err := manifest.LoadCurrent(ctx, primary)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Replicas) != 0 {
		t.Errorf("the build's own copy lists replicas: campaigns pin its bytes")
	}
	want := []string{"s3://work/dbs/tiny", repDir}
	repS3 := open(t, objstore.ReplicaRole(1), "s3://work/dbs/tiny")
	checkReplica(t, m, repS3, want...)
	checkReplica(t, m, open(t, objstore.ReplicaRole(2), repDir), want...)
	top, err := manifest.Load(ctx, primary)
	if err != nil || strings.Join(top.ReplicaLocations(), " ") != strings.Join(want, " ") {
		t.Errorf("primary's manifest.json: %v %v", top, err)
	}

	// The directory replica loses its build's manifest: refused.
	if err := os.Remove(filepath.Join(repDir, m.Key())); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = run(t, "blastfleet", "db", "status", "s3://work/dbs/tiny")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, line := range []string{"build " + m.Build + ": 3 sequences, 54 letters, 2 shards", "1 s3://work/dbs/tiny: ok",
		"2 " + repDir + ": refused: replica " + repDir + " lacks build " + m.Build} {
		if !strings.Contains(stdout, line) {
			t.Errorf("db status lacks %q:\n%s", line, stdout)
		}
	}
}

// db replicate between a directory and MinIO: a copy, a resumed partial
// copy, a damaged source refused.
func TestDBReplicate(t *testing.T) {
	testenv.RequireTools(t, "makeblastdb")
	ctx := context.Background()
	s3 := testenv.StartMinIO(t)
	s3.Setenv(t)
	s3.MakeBucket(t, "rep")
	dir, input := tinyInput(t)
	db := filepath.Join(dir, "db")
	if _, stderr, err := run(t, "blastfleet", "db", "shard", "--input", input, "--type", "nucl", "--shards", "2", "--output", db); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	primary := open(t, objstore.RoleDatabase, db)
	m, _, err := manifest.LoadCurrent(ctx, primary)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	for _, s := range m.Shards {
		files += len(s.Files)
	}
	replicate := func(to string, extra ...string) (string, string, error) {
		return run(t, "blastfleet", append([]string{"db", "replicate", "--from", db, "--to", to}, extra...)...)
	}
	stdout, stderr, err := replicate("s3://rep/tiny")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "copied to s3://rep/tiny: ") || !strings.Contains(stdout, "(0 already there, intact)") {
		t.Errorf("stdout %q", stdout)
	}
	rep := open(t, objstore.ReplicaRole(1), "s3://rep/tiny")
	checkReplica(t, m, rep, "s3://rep/tiny")

	// A partial copy: the build's manifest not yet written, a file
	// missing, another damaged.
	repFiles, _ := m.Files(rep)
	for _, key := range []string{m.Shards[0].Files[0].Name} {
		if err := repFiles.Delete(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	damaged := m.Shards[1].Files[0]
	junk := bytes.Repeat([]byte{'x'}, int(damaged.Size))
	if err := repFiles.Put(ctx, damaged.Name, bytes.NewReader(junk), int64(len(junk))); err != nil {
		t.Fatal(err)
	}
	if err := rep.Delete(ctx, m.Key()); err != nil {
		t.Fatal(err)
	}
	if err := manifest.CheckReplica(ctx, m, rep); err == nil {
		t.Fatal("a partial copy checks out")
	}
	stdout, stderr, err = replicate("s3://rep/tiny", "--build", strings.TrimPrefix(m.Build, "builds/"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if want := "(" + strconv.Itoa(files-2) + " already there, intact)"; !strings.Contains(stdout, want) {
		t.Errorf("resume: stdout %q, want %q", stdout, want)
	}
	checkReplica(t, m, rep, "s3://rep/tiny")

	// A damaged source file: refused naming it, the replica not written.
	bad := m.Shards[0].Files[1]
	path := filepath.Join(db, m.Build, bad.Name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[0] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other")
	_, _, err = replicate(other)
	if err == nil || !strings.Contains(err.Error(), "copying "+bad.Name) || !strings.Contains(err.Error(), "the manifest says "+bad.SHA256) {
		t.Fatalf("damaged source: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, m.Build, bad.Name)); err == nil {
		t.Error("the damaged file was copied")
	}
	if _, err := os.Stat(filepath.Join(other, m.Key())); err == nil {
		t.Error("a failed copy wrote the build's manifest")
	}
	top, _ := manifest.Load(ctx, primary)
	if strings.Join(top.ReplicaLocations(), " ") != "s3://rep/tiny" {
		t.Errorf("a failed copy was recorded: %v", top.ReplicaLocations())
	}
}

func TestDBReplicateFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"db", "replicate", "--to", dir}, `required flag(s) "from" not set`},
		{[]string{"db", "replicate", "--from", filepath.Join(dir, "none"), "--to", dir}, "--from: storage location"},
		{[]string{"db", "replicate", "--from", dir, "--to", dir + "/", "--build", "x"}, "is the database's own location"},
		{[]string{"db", "shard", "--input", "x.fa", "--type", "nucl", "--shards", "2", "--shard-index", "0", "--output", dir, "--replica", "s3://r/x"},
			"--replica copies a whole build"},
	} {
		if _, _, err := run(t, "blastfleet", tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
