package objstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

const s3Scheme = "s3://"

// Open returns the Store at location: s3://bucket[/prefix] or a directory
// path, which is created if missing. An S3 location is reached with the
// unprefixed AWS_* variables (RoleOutput).
func Open(ctx context.Context, location string) (Store, error) {
	return OpenAs(ctx, RoleOutput, location)
}

// OpenAs is Open with the role's storage variables.
func OpenAs(ctx context.Context, role Role, location string) (Store, error) {
	if location == "" {
		return nil, errors.New("empty storage location")
	}
	if strings.HasPrefix(location, s3Scheme) {
		bucket, prefix, err := splitS3(location)
		if err != nil {
			return nil, err
		}
		return openS3(role, location, bucket, prefix)
	}
	if err := checkScheme(location); err != nil {
		return nil, err
	}
	d, err := NewDir(location)
	if err != nil {
		return nil, fmt.Errorf("storage location %q: %w", location, err)
	}
	return d, nil
}

// OpenExistingAs is OpenAs for a location that must already hold data: a
// missing directory is an error instead of being created (a mistyped
// replica path must not pass for an empty store).
func OpenExistingAs(ctx context.Context, role Role, location string) (Store, error) {
	if location != "" && !strings.HasPrefix(location, s3Scheme) {
		fi, err := os.Stat(location)
		if err != nil {
			return nil, fmt.Errorf("storage location %q: %w", location, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("storage location %q: not a directory", location)
		}
	}
	return OpenAs(ctx, role, location)
}

// SameStore reports whether location a reached with role ra and b with
// rb are one store: the same directory, or the same s3:// location on the
// same endpoint (a bucket of the same name on another endpoint, reached
// with another role's variables, is another store). Locations are
// compared as given: callers make directories absolute first.
func SameStore(ra Role, a string, rb Role, b string) bool {
	a, b = strings.TrimRight(a, "/"), strings.TrimRight(b, "/")
	if a != b {
		return false
	}
	if !strings.HasPrefix(a, s3Scheme) {
		return true
	}
	ca, erra := S3ConfigForRole(ra)
	cb, errb := S3ConfigForRole(rb)
	return erra == nil && errb == nil && ca.Endpoint == cb.Endpoint
}

// OpenObject splits a single object's location (s3://bucket/a/b/key or
// /path/to/file) into the store holding it and its key there. A directory
// parent is not created: writing the object creates it.
func OpenObject(ctx context.Context, location string) (Store, string, error) {
	return OpenObjectAs(ctx, RoleOutput, location)
}

// OpenObjectAs is OpenObject with the role's storage variables.
func OpenObjectAs(ctx context.Context, role Role, location string) (Store, string, error) {
	if location == "" {
		return nil, "", errors.New("empty object location")
	}
	if strings.HasPrefix(location, s3Scheme) {
		bucket, path, err := splitS3(location)
		if err != nil {
			return nil, "", err
		}
		if path == "" || strings.HasSuffix(location, "/") {
			return nil, "", fmt.Errorf("object location %q names no object (want s3://bucket/path/to/key)", location)
		}
		prefix, key := "", path
		if i := strings.LastIndex(path, "/"); i >= 0 {
			prefix, key = path[:i], path[i+1:]
		}
		st, err := openS3(role, location, bucket, prefix)
		if err != nil {
			return nil, "", err
		}
		return st, key, nil
	}
	if err := checkScheme(location); err != nil {
		return nil, "", err
	}
	if strings.HasSuffix(location, "/") || strings.HasSuffix(location, string(filepath.Separator)) {
		return nil, "", fmt.Errorf("object location %q is a directory, not a file", location)
	}
	d, err := newDir(filepath.Dir(location))
	if err != nil {
		return nil, "", fmt.Errorf("object location %q: %w", location, err)
	}
	key := filepath.Base(location)
	if err := checkKey(key); err != nil {
		return nil, "", fmt.Errorf("object location %q: %w", location, err)
	}
	return d, key, nil
}

// splitS3 parses s3://bucket/prefix; the prefix may be empty.
func splitS3(location string) (bucket, prefix string, err error) {
	rest := strings.TrimPrefix(location, s3Scheme)
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("storage location %q has no bucket (want s3://bucket/prefix)", location)
	}
	prefix = strings.Trim(prefix, "/")
	if err := checkPrefix(prefix); err != nil {
		return "", "", fmt.Errorf("storage location %q: %w", location, err)
	}
	return bucket, prefix, nil
}

func openS3(role Role, location, bucket, prefix string) (*S3, error) {
	cfg, err := S3ConfigForRole(role)
	if err != nil {
		return nil, fmt.Errorf("storage location %q: %w", location, err)
	}
	st, err := NewS3(cfg, bucket, prefix)
	if err != nil {
		return nil, fmt.Errorf("storage location %q: %w", location, err)
	}
	return st, nil
}

// checkScheme refuses URLs we do not speak (gs://, https://), which would
// otherwise become odd relative directories.
func checkScheme(location string) error {
	if i := strings.Index(location, "://"); i > 0 && !strings.ContainsAny(location[:i], `/\`) {
		return fmt.Errorf("storage location %q: unsupported scheme %q (want s3:// or a path)", location, location[:i])
	}
	return nil
}
