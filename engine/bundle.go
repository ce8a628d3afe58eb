package engine

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"google.golang.org/grpc/status"
)

// FetchBundle downloads the tokenizer bundle (tokenizer, chat template and
// processor files, as a zip) from a healthy worker serving model, checks its
// SHA-256 against the one on the last chunk, and unpacks it into dir
// (created if needed; existing files of the same names are replaced). It
// returns dir. Workers are tried in policy order until one succeeds.
//
// Unpacking is safe against hostile archives: only regular files with
// clean relative names (no "..", no absolute paths, no backslashes) are
// written, through an os.Root confined to dir; the archive is capped at
// Options.MaxBundleBytes, its files at 256 and its unpacked size at 1 GiB.
// Errors: those of Pick, a *WorkerError, ErrBadBundle.
func (e *Engine) FetchBundle(ctx context.Context, model, dir string) (string, error) {
	cands, err := e.candidates(model, nil)
	if err != nil {
		return "", err
	}
	first := e.choose(model, cands, nil)
	order := []*Worker{first}
	for _, w := range cands {
		if w != first {
			order = append(order, w)
		}
	}
	var last error
	for _, w := range order {
		data, err := e.download(ctx, w)
		if err == nil {
			if err := unpackBundle(data, dir, maxBundleUnpacked); err != nil {
				return "", err
			}
			return dir, nil
		}
		if ctx.Err() != nil {
			return "", err
		}
		last = err
		e.log.Warn("tokenizer bundle: download failed", "worker", w.URL(), "err", err)
	}
	return "", last
}

// download reads the whole bundle from w and checks its digest.
func (e *Engine) download(ctx context.Context, w *Worker) ([]byte, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	werr := func(err error) error {
		st, _ := status.FromError(err)
		return &WorkerError{Op: "get_tokenizer", Worker: w.URL(), Code: st.Code(), Message: st.Message(), Kind: kindOf(st.Code())}
	}
	_, client := w.protocol()
	if client == nil {
		return nil, fmt.Errorf("engine: tokenizer bundle: %s was never reached: %w", w.URL(), ErrNoWorker)
	}
	st, err := client.Tokenizer(ctx)
	if err != nil {
		return nil, werr(err)
	}
	var buf bytes.Buffer
	var sum string
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, werr(err)
		}
		if buf.Len()+len(c.Data) > e.opts.MaxBundleBytes {
			return nil, fmt.Errorf("engine: tokenizer bundle from %s: over %d bytes: %w", w.URL(), e.opts.MaxBundleBytes, ErrBadBundle)
		}
		buf.Write(c.Data)
		if c.SHA256 != "" {
			sum = c.SHA256
		}
	}
	got := sha256.Sum256(buf.Bytes())
	if sum == "" {
		return nil, fmt.Errorf("engine: tokenizer bundle from %s: no sha256 sent: %w", w.URL(), ErrBadBundle)
	}
	if !strings.EqualFold(sum, hex.EncodeToString(got[:])) {
		return nil, fmt.Errorf("engine: tokenizer bundle from %s: sha256 %s, announced %s: %w", w.URL(), hex.EncodeToString(got[:]), sum, ErrBadBundle)
	}
	return buf.Bytes(), nil
}

// unpackBundle writes the zip's files under dir.
func unpackBundle(data []byte, dir string, maxUnpacked int64) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("engine: tokenizer bundle: "+format+": %w", append(a, ErrBadBundle)...)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return bad("%v", err)
	}
	if len(zr.File) == 0 || len(zr.File) > maxBundleFiles {
		return bad("%d files", len(zr.File))
	}
	var total uint64
	seen, dirs := map[string]bool{}, map[string]bool{}
	for _, f := range zr.File {
		if err := checkBundleName(f.Name); err != nil {
			return bad("%v", err)
		}
		if strings.HasSuffix(f.Name, "/") || f.FileInfo().IsDir() {
			continue
		}
		if !f.Mode().IsRegular() {
			return bad("%q is not a regular file", f.Name)
		}
		if seen[f.Name] {
			return bad("%q appears twice", f.Name)
		}
		seen[f.Name] = true
		for d := path.Dir(f.Name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
		total += f.UncompressedSize64
		if total > uint64(maxUnpacked) {
			return bad("over %d bytes unpacked", maxUnpacked)
		}
	}
	for d := range dirs {
		if seen[d] {
			return bad("%q is both a file and a directory", d)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("engine: tokenizer bundle: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("engine: tokenizer bundle: %w", err)
	}
	defer root.Close()
	var written int64
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") || f.FileInfo().IsDir() {
			continue
		}
		n, err := writeBundleFile(root, f, maxUnpacked-written)
		if err != nil {
			return err
		}
		written += n
	}
	return nil
}

func checkBundleName(name string) error {
	trimmed := strings.TrimSuffix(name, "/")
	switch {
	case trimmed == "", strings.HasPrefix(name, "/"), strings.ContainsAny(name, "\\:\x00"),
		path.Clean(trimmed) != trimmed, trimmed == "..", strings.HasPrefix(trimmed, "../"), trimmed == ".":
		return fmt.Errorf("unsafe file name %q", name)
	}
	return nil
}

// writeBundleFile copies one entry, refusing to write more than limit bytes
// (the header's sizes are not trusted).
func writeBundleFile(root *os.Root, f *zip.File, limit int64) (int64, error) {
	if d := path.Dir(f.Name); d != "." {
		if err := root.MkdirAll(d, 0o755); err != nil {
			return 0, fmt.Errorf("engine: tokenizer bundle: %w", err)
		}
	}
	rc, err := f.Open()
	if err != nil {
		return 0, fmt.Errorf("engine: tokenizer bundle: %q: %v: %w", f.Name, err, ErrBadBundle)
	}
	defer rc.Close()
	tmp := f.Name + ".part"
	out, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return 0, fmt.Errorf("engine: tokenizer bundle: %w", err)
	}
	n, err := io.Copy(out, io.LimitReader(badReader{rc}, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("%q: over the unpacked size cap: %w", f.Name, ErrBadBundle)
	}
	if err != nil {
		_ = root.Remove(tmp)
		var re readErr
		if errors.As(err, &re) {
			err = fmt.Errorf("%q: %v: %w", f.Name, re.err, ErrBadBundle)
		}
		return 0, fmt.Errorf("engine: tokenizer bundle: %w", err)
	}
	if err := root.Rename(tmp, f.Name); err != nil {
		_ = root.Remove(tmp)
		return 0, fmt.Errorf("engine: tokenizer bundle: %w", err)
	}
	return n, nil
}

// badReader marks errors of reading an archive entry (corrupt data), as
// opposed to errors of writing the file.
type badReader struct{ r io.Reader }

type readErr struct{ err error }

func (e readErr) Error() string { return e.err.Error() }

func (b badReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		err = readErr{err}
	}
	return n, err
}
