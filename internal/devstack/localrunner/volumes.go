package localrunner

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// mount is an emptyDir mount path in the container and the local
// directory standing in for it.
type mount struct {
	Path  string
	Local string
}

// emptyDirMounts maps c's mounts of emptyDir and ConfigMap volumes of
// spec to directories under base (one per volume, subPath below it); a
// ConfigMap's files are written there by writeConfigMaps. Other volume
// kinds have no local stand-in and are returned as skipped.
func emptyDirMounts(base string, spec *corev1.PodSpec, c *corev1.Container) (mounts []mount, skipped []string) {
	emptyDirs := map[string]bool{}
	for _, v := range spec.Volumes {
		if v.EmptyDir != nil || v.ConfigMap != nil {
			emptyDirs[v.Name] = true
		}
	}
	for _, m := range c.VolumeMounts {
		if !emptyDirs[m.Name] {
			skipped = append(skipped, m.Name)
			continue
		}
		mp := path.Clean(m.MountPath)
		if mp == "/" {
			skipped = append(skipped, m.Name)
			continue
		}
		mounts = append(mounts, mount{Path: mp, Local: filepath.Join(base, m.Name, filepath.FromSlash(m.SubPath))})
	}
	return mounts, skipped
}

// addMounts adds ms to into, keeping the first mapping of a mount path.
func addMounts(into, ms []mount) []mount {
	for _, m := range ms {
		if !slices.ContainsFunc(into, func(o mount) bool { return o.Path == m.Path }) {
			into = append(into, m)
		}
	}
	return into
}

// rewritePaths replaces every mount path in s that stands as a whole path
// (or the start of one) by its local directory: "--work-dir /scratch",
// "--cache-dir=/scratch/shards" and "cat /scratch/f" all work, while
// /data/scratch and /scratchpad are left alone. Longer mount paths are
// matched first, so nested mounts map to their own directories.
func rewritePaths(s string, mounts []mount) string {
	if len(mounts) == 0 {
		return s
	}
	ms := slices.Clone(mounts)
	slices.SortFunc(ms, func(a, b mount) int { return len(b.Path) - len(a.Path) })
	var b strings.Builder
	for i := 0; i < len(s); {
		replaced := false
		if i == 0 || !isPathByte(s[i-1]) {
			for _, m := range ms {
				end := i + len(m.Path)
				if strings.HasPrefix(s[i:], m.Path) && (end == len(s) || s[end] == '/' || !isPathByte(s[end])) {
					b.WriteString(m.Local)
					i = end
					replaced = true
					break
				}
			}
		}
		if !replaced {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// isPathByte reports whether c can continue a path component.
func isPathByte(c byte) bool {
	return c == '/' || c == '.' || c == '_' || c == '-' || c == '~' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
