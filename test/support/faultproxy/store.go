package faultproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// storeOp is what a request does to the store, as far as the store's
// own faults (lost writes, stale listings) care.
type storeOp int

const (
	opOther storeOp = iota
	opWrite         // a PUT of an object or a part, with its body
	opList          // a listing of a bucket
)

// UseCredentials lets the proxy ask its server, with these keys, whether
// a conditional PUT's precondition holds, so that LostWrite can lose
// conditional writes too.
func (p *Proxy) UseCredentials(accessKey, secretKey string) error {
	c, err := minio.New(p.target.Host, &minio.Options{Creds: credentials.NewStaticV4(accessKey, secretKey, ""),
		Region: "us-east-1", BucketLookup: minio.BucketLookupPath})
	if err != nil {
		return fmt.Errorf("faultproxy: a client of %s: %w", p.target.Host, err)
	}
	p.mu.Lock()
	p.s3 = c
	p.mu.Unlock()
	return nil
}

// opOf classifies r; a conditional write is one only when the proxy can
// check its precondition. The caller holds the proxy's lock.
func (p *Proxy) opOf(r *http.Request) storeOp {
	bucket, key := splitPath(r.URL.Path)
	switch {
	case bucket == "":
		return opOther
	case r.Method == http.MethodPut && key != "" && r.Header.Get("X-Amz-Copy-Source") == "":
		if conditional(r) && p.s3 == nil {
			return opOther
		}
		return opWrite
	case r.Method == http.MethodGet && key == "" && !r.URL.Query().Has("location") && !r.URL.Query().Has("uploads"):
		return opList
	}
	return opOther
}

// splitPath reads a path-style request's bucket and key.
func splitPath(path string) (bucket, key string) {
	bucket, key, _ = strings.Cut(strings.TrimPrefix(path, "/"), "/")
	return bucket, key
}

func conditional(r *http.Request) bool {
	return r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Match") != ""
}

// loseWrite answers a PUT as stored without storing it: 200 with the
// ETag of its body (the MD5, as S3 gives a plain PUT and a part), once
// its precondition, if any, holds on the server.
func (p *Proxy) loseWrite(w http.ResponseWriter, r *http.Request) {
	body, err := payload(r)
	if err != nil {
		s3Error(w, http.StatusBadRequest, "IncompleteBody", "faultproxy: "+err.Error())
		return
	}
	if conditional(r) {
		if refused := p.precondition(r); refused != nil {
			refused(w)
			return
		}
	}
	sum := md5.Sum(body)
	bucket, key := splitPath(r.URL.Path)
	p.count(func(c *Counts) {
		c.LostWrites++
		c.LostWriteKeys = append(c.LostWriteKeys, bucket+"/"+key)
	})
	w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	w.WriteHeader(http.StatusOK)
}

// precondition checks r's If-None-Match: * or If-Match on the server, as
// the server would have: nil when it holds, else the answer to give.
func (p *Proxy) precondition(r *http.Request) func(http.ResponseWriter) {
	p.mu.Lock()
	c := p.s3
	p.mu.Unlock()
	bucket, key := splitPath(r.URL.Path) // Path is unescaped already
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	info, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	missing := minio.ToErrorResponse(err).Code == "NoSuchKey"
	if err != nil && !missing {
		return busy
	}
	want := strings.Trim(r.Header.Get("If-Match"), `"`)
	switch {
	case r.Header.Get("If-None-Match") == "*" && !missing:
		return refusePrecondition
	case want != "" && missing:
		return noSuchKey
	case want != "" && strings.Trim(info.ETag, `"`) != want:
		return refusePrecondition
	}
	return nil
}

func refusePrecondition(w http.ResponseWriter) {
	s3Error(w, http.StatusPreconditionFailed, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold")
}

func noSuchKey(w http.ResponseWriter) {
	s3Error(w, http.StatusNotFound, "NoSuchKey", "The specified key does not exist.")
}

// busy: the proxy could not ask the server; the client retries.
func busy(w http.ResponseWriter) {
	s3Error(w, http.StatusServiceUnavailable, "SlowDown", "faultproxy: could not check a precondition")
}

// payload reads r's body, decoded from aws-chunked when the client
// signed it chunk by chunk (minio-go does on plain HTTP).
func payload(r *http.Request) ([]byte, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(r.Header.Get("X-Amz-Content-Sha256"), "STREAMING-") {
		return raw, nil
	}
	var out bytes.Buffer
	br := bufio.NewReader(bytes.NewReader(raw))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("aws-chunked body: %w", err)
		}
		sz, _, _ := strings.Cut(strings.TrimSpace(line), ";")
		n, err := strconv.ParseInt(sz, 16, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("aws-chunked body: chunk size %q", sz)
		}
		if n == 0 {
			return out.Bytes(), nil
		}
		if _, err := io.CopyN(&out, br, n); err != nil {
			return nil, fmt.Errorf("aws-chunked body: %w", err)
		}
		if _, err := br.Discard(2); err != nil { // the chunk's CRLF
			return nil, fmt.Errorf("aws-chunked body: %w", err)
		}
	}
}
