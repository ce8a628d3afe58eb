package demomodel

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Name is the demo model's folder name, which is also the served model name
// when none is configured.
const Name = "qwen3-vl"

//go:embed qwen3-vl
var files embed.FS

// FS returns the bundled files as stored (tokenizer.json is compressed, as
// tokenizer.json.gz).
func FS() fs.FS {
	sub, err := fs.Sub(files, Name)
	if err != nil {
		panic(err) // the embedded tree always has the folder
	}
	return sub
}

// Materialize writes the model folder into dir (created if needed), with
// tokenizer.json decompressed, so that every reader of model folders can use
// it. It returns dir/qwen3-vl.
func Materialize(dir string) (string, error) {
	out := filepath.Join(dir, Name)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", fmt.Errorf("demomodel: %w", err)
	}
	entries, err := fs.ReadDir(files, Name)
	if err != nil {
		return "", fmt.Errorf("demomodel: %w", err)
	}
	for _, e := range entries {
		data, err := files.ReadFile(Name + "/" + e.Name())
		if err != nil {
			return "", fmt.Errorf("demomodel: %w", err)
		}
		name := e.Name()
		if base, ok := strings.CutSuffix(name, ".gz"); ok {
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return "", fmt.Errorf("demomodel: %s: %w", name, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return "", fmt.Errorf("demomodel: %s: %w", name, err)
			}
			name = base
		}
		if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
			return "", fmt.Errorf("demomodel: %w", err)
		}
	}
	return out, nil
}
