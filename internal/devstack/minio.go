package devstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// region is what the stack's MinIO answers to.
const region = "us-east-1"

// minioChild is a MinIO server on loopback with its data in the stack's
// directory. Its metrics are public so Prometheus scrapes them without a
// token.
func minioChild(cfg *Config, p paths, ports Ports, creds MinIOInfo) *child {
	endpoint := "http://" + hostPort(ports.MinIO)
	return &child{
		name: "minio", path: cfg.MinIO, logPath: p.log("minio"),
		args: []string{"server", "--address", hostPort(ports.MinIO), "--console-address", hostPort(ports.MinIOConsole), "--quiet", p.minioData()},
		env: []string{
			"MINIO_ROOT_USER=" + creds.AccessKey, "MINIO_ROOT_PASSWORD=" + creds.SecretKey,
			"MINIO_UPDATE=off", "MINIO_BROWSER=off", "MINIO_PROMETHEUS_AUTH_TYPE=public",
		},
		ready: func(ctx context.Context) error { return probe(ctx, httpClient, endpoint+"/minio/health/live") },
	}
}

// loadCredentials keeps MinIO's root credentials across restarts (its
// data is encrypted with them); new random ones the first time.
func loadCredentials(path string) (MinIOInfo, error) {
	var c MinIOInfo
	err := readJSON(path, &c)
	if err == nil && c.AccessKey != "" && c.SecretKey != "" {
		return c, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return c, err
	}
	a, s := make([]byte, 8), make([]byte, 20)
	if _, err := rand.Read(a); err != nil {
		return c, err
	}
	if _, err := rand.Read(s); err != nil {
		return c, err
	}
	c = MinIOInfo{AccessKey: "blastfleet-" + hex.EncodeToString(a), SecretKey: hex.EncodeToString(s)}
	return c, writeJSON(path, c, 0o600)
}

// ensureBucket creates the bucket unless it exists, retrying briefly: a
// just-started MinIO may still be initialising.
func ensureBucket(ctx context.Context, info MinIOInfo, host string) error {
	mc, err := minio.New(host, &minio.Options{Creds: credentials.NewStaticV4(info.AccessKey, info.SecretKey, ""),
		Region: region, BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return err
	}
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		ok, err := mc.BucketExists(ctx, info.Bucket)
		if err == nil && ok {
			return nil
		}
		if err == nil {
			if err = mc.MakeBucket(ctx, info.Bucket, minio.MakeBucketOptions{Region: region}); err == nil {
				return nil
			}
		}
		last = err
	}
	return fmt.Errorf("bucket %s: %w", info.Bucket, last)
}
