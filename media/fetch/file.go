package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// fetchFile reads a file: URL below one of the configured roots.
//
// The path (percent escapes decoded, then cleaned lexically so ".." cannot
// climb) must lie inside a root before the file system is touched at all.
// Symlinks are then resolved and the real path must still lie inside a root.
// The file is finally opened by its real path through os.Root (openat-style,
// refusing any component that would leave the root), so a symlink swapped in
// after the check still cannot lead out of the root; O_NONBLOCK keeps a FIFO
// from blocking the open, and only regular files are read.
func (f *Fetcher) fetchFile(ctx context.Context, raw string) (*Media, error) {
	shown := shortURL(raw)
	fail := func(kind error, format string, args ...any) (*Media, error) {
		return nil, &Error{Op: fileOp, URL: shown, Kind: kind, Detail: fmt.Sprintf(format, args...)}
	}
	if len(f.pol.roots) == 0 {
		return fail(ErrForbidden, "no file roots are configured")
	}
	clean, err := fileURLPath(raw, shown)
	if err != nil {
		return nil, err
	}
	if _, ok := f.pol.rootFor(clean, false); !ok {
		if _, ok := f.pol.rootFor(clean, true); !ok {
			return fail(ErrForbidden, "path is outside the allowed file roots")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: fileOp, URL: shown, Kind: ErrFetch, Err: err}
	}
	real, err := filepath.EvalSymlinks(clean)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(ErrFetch, "no such file")
		}
		return nil, &Error{Op: fileOp, URL: shown, Kind: ErrFetch, Err: unwrapPath(err)}
	}
	root, ok := f.pol.rootFor(real, true)
	if !ok {
		return fail(ErrForbidden, "a symlink leads outside the allowed file roots")
	}
	rel, err := filepath.Rel(root.real, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fail(ErrForbidden, "path is outside the allowed file roots")
	}
	file, err := openInRoot(root.real, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fail(ErrFetch, "no such file")
		}
		// A symlink swapped in since the check that leads out of the root.
		return nil, &Error{Op: fileOp, URL: shown, Kind: ErrForbidden, Detail: "cannot open inside the root", Err: unwrapPath(err)}
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil, &Error{Op: fileOp, URL: shown, Kind: ErrFetch, Err: unwrapPath(err)}
	}
	if !fi.Mode().IsRegular() {
		return fail(ErrForbidden, "not a regular file (%s)", fi.Mode().Type())
	}
	limit := f.pol.maxBytes
	if fi.Size() > limit {
		return fail(ErrTooLarge, "file is %d bytes, over %d", fi.Size(), limit)
	}
	b, err := readCapped(file, limit, fi.Size())
	if err == errOverCap {
		return fail(ErrTooLarge, "file is over %d bytes", limit)
	}
	if err != nil {
		return nil, &Error{Op: fileOp, URL: shown, Kind: ErrFetch, Err: unwrapPath(err)}
	}
	return &Media{Bytes: b, Source: "file"}, nil
}

// fileOp is the Op of the errors of file: URLs.
const fileOp = "fetch file"

// fileURLPath is the path a file: URL names, absolute and lexically
// cleaned, or why it names no local absolute path; shown is the URL as
// errors show it.
func fileURLPath(raw, shown string) (string, error) {
	bad := func(kind error, detail string) (string, error) {
		return "", &Error{Op: fileOp, URL: shown, Kind: kind, Detail: detail}
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return "", &Error{Op: fileOp, URL: shown, Kind: ErrBadURL, Err: err}
	}
	if u.Opaque != "" {
		return bad(ErrBadURL, "file URL without an absolute path")
	}
	if u.User != nil || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) {
		return bad(ErrForbidden, "file URL names a remote host")
	}
	p := u.Path
	if strings.IndexByte(p, 0) >= 0 {
		return bad(ErrBadURL, "NUL byte in path")
	}
	if !filepath.IsAbs(p) {
		return bad(ErrBadURL, "file URL without an absolute path")
	}
	return filepath.Clean(p), nil
}

// openInRoot opens rel below dir read-only without ever leaving dir: every
// component is opened relative to its parent (os.Root, openat with
// O_NOFOLLOW), symlinks are followed only while they stay inside dir, and
// O_NONBLOCK keeps a FIFO from blocking the open.
func openInRoot(dir, rel string) (*os.File, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.OpenFile(rel, os.O_RDONLY|openFlags, 0)
}

// rootFor returns the root containing path, comparing against the roots as
// configured (real=false) or with their symlinks resolved (real=true).
func (r *resolved) rootFor(path string, real bool) (fileRoot, bool) {
	for _, root := range r.roots {
		dir := root.dir
		if real {
			dir = root.real
		}
		if within(path, dir) {
			return root, true
		}
	}
	return fileRoot{}, false
}

// within reports whether the clean absolute path is dir or below it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// unwrapPath drops the path from an *fs.PathError (the message names the
// URL already) and keeps the cause.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
