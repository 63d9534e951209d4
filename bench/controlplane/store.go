package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/blastfleet/blastfleet/internal/storage/objstore"
)

// bucket holds the bench's queries, database location and campaigns.
const bucket = "blastfleet"

// minioServer is a real MinIO, the campaigns' store.
type minioServer struct {
	proc                 *proc
	host                 string
	accessKey, secretKey string
}

func newMinIO(dir string, b *binaries) (*minioServer, error) {
	ports, err := freePorts(2)
	if err != nil {
		return nil, err
	}
	m := &minioServer{host: "127.0.0.1:" + strconv.Itoa(ports[0]), accessKey: "bench-access", secretKey: "bench-secret-key"}
	m.proc = &proc{
		name: "minio", path: b.minio, log: filepath.Join(dir, "minio.log"),
		args:  []string{"server", "--address", m.host, "--console-address", "127.0.0.1:" + strconv.Itoa(ports[1]), "--quiet", filepath.Join(dir, "minio")},
		env:   []string{"MINIO_ROOT_USER=" + m.accessKey, "MINIO_ROOT_PASSWORD=" + m.secretKey, "MINIO_UPDATE=off", "MINIO_BROWSER=off"},
		ready: httpReady(http.DefaultClient, "http://"+m.host+"/minio/health/live"),
	}
	return m, nil
}

func (m *minioServer) endpoint() string { return "http://" + m.host }

func (m *minioServer) makeBucket(ctx context.Context) error {
	c, err := minio.New(m.host, &minio.Options{Creds: credentials.NewStaticV4(m.accessKey, m.secretKey, ""), Region: "us-east-1"})
	if err != nil {
		return err
	}
	if err := c.MakeBucket(ctx, bucket, minio.MakeBucketOptions{Region: "us-east-1"}); err != nil {
		return fmt.Errorf("making bucket %s: %w", bucket, err)
	}
	return nil
}

// store opens the bucket under prefix, as partitions and users write it.
func (m *minioServer) store(prefix string) (objstore.Store, error) {
	return objstore.NewS3(objstore.S3Config{Endpoint: m.host, Region: "us-east-1", PathStyle: true,
		AccessKey: m.accessKey, SecretKey: m.secretKey}, bucket, prefix)
}
