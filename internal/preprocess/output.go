package preprocess

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mmgate/mmgate/tensor"
	"github.com/mmgate/mmgate/tensor/npy"
)

// This file answers: what becomes of a tensor once it is made? Its sha256
// (Options.Hash) and its .npy file (Options.OutDir), after the timed work.

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

// emit hashes the tensor (with Hash) and writes it to npyPath (when not
// "").
func (r *Runner) emit(npyPath string, dt tensor.DType, shape []int, data []byte) (sha string, err error) {
	if r.o.Hash {
		sum := sha256.Sum256(data)
		sha = hex.EncodeToString(sum[:])
	}
	if npyPath != "" {
		if err := npy.WriteFile(npyPath, dt, shape, data); err != nil {
			return "", err
		}
	}
	return sha, nil
}
