package objstore

import (
	"context"
	"os"
)

// PutFile stores a local file as key.
func PutFile(ctx context.Context, st Store, key, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	return st.Put(ctx, key, f, info.Size())
}
