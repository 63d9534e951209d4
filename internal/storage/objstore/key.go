package objstore

import (
	"fmt"
	"strings"
)

// checkKey rejects keys that could escape a store's root or that the two
// stores would treat differently (a directory collapses "a//b", a bucket
// does not), so both accept exactly the same keys.
func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("empty object key")
	}
	if strings.HasSuffix(key, "/") {
		return fmt.Errorf("object key %q ends with '/'", key)
	}
	return checkPath(key, "object key")
}

// checkPrefix is checkKey for List prefixes, which may be empty or end
// with '/'.
func checkPrefix(prefix string) error {
	return checkPath(strings.TrimSuffix(prefix, "/"), "list prefix")
}

func checkPath(p, what string) error {
	if p == "" {
		return nil
	}
	if strings.HasPrefix(p, "/") {
		return fmt.Errorf("%s %q starts with '/'", what, p)
	}
	if strings.ContainsAny(p, "\x00\\") {
		return fmt.Errorf("%s %q contains a NUL or backslash", what, p)
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "", ".", "..":
			return fmt.Errorf("%s %q has an empty, '.' or '..' segment", what, p)
		}
	}
	return nil
}
