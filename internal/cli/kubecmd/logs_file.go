package kubecmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// followInterval is how often logs --follow looks for more output in a
// launcher log file (tests shorten it).
var followInterval = time.Second

// fromFile prints the launcher log the local runner writes (it records
// the path in the MPIJob's blastfleet.io/launcher-log annotation).
func (o *logsOptions) fromFile(ctx context.Context, w io.Writer, kc *kube, p partition, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("partition %d's launcher log (annotation %s on MPIJob %s): %w; "+
			"the local runner writes it on the machine that runs blastfleet dev up, so run logs there", p.index, annotationLauncherLog, p.obj.GetName(), err)
	}
	defer f.Close()
	if o.tail >= 0 {
		err = copyTail(w, f, o.tail)
	} else {
		_, err = io.Copy(w, f)
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if !o.follow {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return nil // interrupted, as kubectl logs -f is
		case <-time.After(followInterval):
		}
		// Checked before reading: the last read then sees all the
		// launcher wrote before it finished.
		over := jobOver(ctx, kc, p.obj)
		if _, err := io.Copy(w, f); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if over {
			return nil
		}
	}
}

// jobOver reports whether the partition's object finished or is gone; a
// failed read is not the end (the API server may be restarting).
func jobOver(ctx context.Context, kc *kube, job client.Object) bool {
	cur := job.DeepCopyObject().(client.Object)
	err := kc.c.Get(ctx, client.ObjectKeyFromObject(job), cur)
	if apierrors.IsNotFound(err) || (err == nil && cur.GetUID() != job.GetUID()) {
		return true
	}
	if err != nil {
		return false
	}
	switch partitionState(cur) {
	case "Succeeded", "Failed", "Deleting":
		return true
	}
	return false
}

// copyTail writes the last n lines of r.
func copyTail(w io.Writer, r io.Reader, n int64) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	start := len(data)
	if n > 0 {
		// The final newline ends the last line; it does not start one.
		end := len(data)
		if end > 0 && data[end-1] == '\n' {
			end--
		}
		start = 0
		for i, seen := end, int64(0); i > 0; {
			i = bytes.LastIndexByte(data[:i], '\n')
			if i < 0 {
				break
			}
			if seen++; seen == n {
				start = i + 1
				break
			}
		}
	}
	_, err = w.Write(data[start:])
	return err
}
