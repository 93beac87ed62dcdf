package pgcluster

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Template cache: initdb costs one to two seconds (more on a loaded machine)
// and produces the same ~40 MB tree every time, so the first cluster of a
// user saves a pristine copy under the user cache directory and later
// clusters copy it instead (about three times faster). The cache key covers
// the server binaries' version and every initdb argument, so an upgraded
// PostgreSQL gets a fresh template. Templates are published with an atomic
// rename, so concurrent test processes never see a partial one.

// templateMarker is written last into a template before it is published.
const templateMarker = "pgcluster-template-complete"

// initdbArgs are the initdb flags after -D; part of the template key.
var initdbArgs = []string{
	"-U", "postgres",
	"-A", "trust",
	"-E", "UTF8",
	"--locale=C",
	"--no-sync",
	"--no-instructions",
}

// templateDir returns the cache directory for this server version, or "" if
// no cache location is available.
func templateDir(ctx context.Context, binDir string) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "postgres"), "--version").Output()
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", binDir, out, strings.Join(initdbArgs, "\x00"))
	return filepath.Join(cache, "pgcluster", "template-"+hex.EncodeToString(h.Sum(nil))[:16])
}

// fromTemplate copies a published template into dataDir. It reports false
// when there is no usable template.
func fromTemplate(tmpl, dataDir string, cred *syscall.Credential, logger *slog.Logger) bool {
	if tmpl == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(tmpl, templateMarker)); err != nil {
		return false
	}
	if err := copyTree(tmpl, dataDir, cred); err != nil {
		logger.Warn("pgcluster template copy failed; running initdb", "err", err)
		_ = os.RemoveAll(dataDir)
		return false
	}
	_ = os.Remove(filepath.Join(dataDir, templateMarker))
	return true
}

// publishTemplate saves a copy of a freshly initialised dataDir as the
// template. Failures only cost speed, so they are logged, not returned.
func publishTemplate(tmpl, dataDir string, logger *slog.Logger) {
	if tmpl == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(tmpl), 0o700); err != nil {
		logger.Debug("pgcluster template cache unavailable", "err", err)
		return
	}
	staging, err := os.MkdirTemp(filepath.Dir(tmpl), "staging-")
	if err != nil {
		logger.Debug("pgcluster template cache unavailable", "err", err)
		return
	}
	defer os.RemoveAll(staging) // no-op after a successful rename
	if err := copyTree(dataDir, staging, nil); err != nil {
		logger.Debug("pgcluster template copy failed", "err", err)
		return
	}
	if err := os.WriteFile(filepath.Join(staging, templateMarker), nil, 0o600); err != nil {
		return
	}
	if err := os.Rename(staging, tmpl); err != nil && !errors.Is(err, fs.ErrExist) && !isNotEmpty(err) {
		logger.Debug("pgcluster template publish failed", "err", err)
	}
}

// isNotEmpty reports the error rename(2) gives when another process
// published the template first.
func isNotEmpty(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ENOTEMPTY
}

// copyTree copies regular files and directories from src to dst (which must
// not exist), keeping permission bits, and hands everything to cred when set.
// A PostgreSQL data directory contains nothing else.
func copyTree(src, dst string, cred *syscall.Credential) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil && !(rel == "." && errors.Is(err, fs.ErrExist)) {
				return err
			}
		case info.Mode().IsRegular():
			if err := copyFile(path, target, info.Mode().Perm()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unexpected file type %s at %s", info.Mode().Type(), path)
		}
		if cred != nil {
			return os.Lchown(target, int(cred.Uid), int(cred.Gid))
		}
		return nil
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
