package preprocess

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tensor/npy"
	"github.com/mmgate/mmgate/vision"
)

// This file answers: what becomes of a tensor? Its sha256 (Options.Hash)
// and its .npy file (Options.OutDir): taken a block row at a time as an
// image that streams is made (so that its tensor is never held whole),
// or from the whole tensor after the timed work.

// npyPaths maps each input to OutDir/<basename without extension>.npy,
// refusing two inputs that would write the same file, and creates OutDir.
// Without OutDir every path is "".
func (r *Runner) npyPaths(files []string) ([]string, error) {
	paths := make([]string, len(files))
	if r.o.OutDir == "" {
		return paths, nil
	}
	seen := map[string]string{}
	for i, f := range files {
		base := filepath.Base(f)
		n := strings.TrimSuffix(base, filepath.Ext(base)) + ".npy"
		if prev, dup := seen[n]; dup {
			return nil, &OptionsError{Flag: "--out", Err: fmt.Errorf("%q and %q would both write %s", prev, f, n)}
		}
		seen[n] = f
		paths[i] = filepath.Join(r.o.OutDir, n)
	}
	if err := os.MkdirAll(r.o.OutDir, 0o755); err != nil {
		return nil, &OptionsError{Flag: "--out", Err: err}
	}
	return paths, nil
}

// emit hashes a tensor held whole (with Hash) and writes it to npyPath
// (when not "").
func (r *Runner) emit(npyPath string, dt tensor.DType, shape []int, data []byte) (sha string, err error) {
	o := r.newOut(npyPath)
	if err := o.open(dt, shape); err != nil {
		return "", err
	}
	if _, err := o.Write(data); err != nil {
		o.discard()
		return "", err
	}
	return o.finish()
}

// tensorOut is where one tensor's bytes go as they are made: its sha256
// (Options.Hash) and its .npy file, or nowhere.
type tensorOut struct {
	path string        // the .npy file; "" for none
	sum  hash.Hash     // nil without Hash
	file *os.File      // path, once open
	w    *bufio.Writer // buffers file
	err  error         // the first error of open or a write
}

// newOut is the output of one tensor for npyPath ("": no file).
func (r *Runner) newOut(npyPath string) *tensorOut {
	o := &tensorOut{path: npyPath}
	if r.o.Hash {
		o.sum = sha256.New()
	}
	return o
}

// sink is an imageprep.Request.Sink: it opens the output for the planned
// tensor.
func (o *tensorOut) sink(plan vision.Plan, dt tensor.DType) (io.Writer, error) {
	if err := o.open(dt, plan.Shape()); err != nil {
		return nil, err
	}
	return o, nil
}

// open starts the tensor: it creates the .npy file and writes its header.
// A dtype or shape the file cannot store creates no file.
func (o *tensorOut) open(dt tensor.DType, shape []int) error {
	if o.path == "" {
		return nil
	}
	h, err := npy.Header(dt, shape)
	if err != nil {
		o.err = err
		return err
	}
	if o.file, err = os.Create(o.path); err != nil {
		o.err = err
		return err
	}
	o.w = bufio.NewWriterSize(o.file, 1<<20)
	if _, err := o.w.Write(h); err != nil {
		o.err = err
		return err
	}
	return nil
}

// Write takes the tensor's next bytes.
func (o *tensorOut) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if o.sum != nil {
		o.sum.Write(p)
	}
	if o.w != nil {
		if _, err := o.w.Write(p); err != nil {
			o.err = err
			return 0, err
		}
	}
	return len(p), nil
}

// finish closes the .npy file and returns the tensor's hex sha256 ("":
// without Hash). A file that cannot be written whole is removed.
func (o *tensorOut) finish() (string, error) {
	if o.file != nil {
		err := o.w.Flush()
		if cerr := o.file.Close(); err == nil {
			err = cerr
		}
		o.file = nil
		if err != nil {
			os.Remove(o.path)
			return "", err
		}
	}
	if o.sum == nil {
		return "", nil
	}
	return hex.EncodeToString(o.sum.Sum(nil)), nil
}

// discard closes and removes the .npy file of a tensor that was not made
// whole.
func (o *tensorOut) discard() {
	if o.file != nil {
		o.file.Close()
		o.file = nil
		os.Remove(o.path)
	}
}
