// Package prototest reads the golden protocol messages of proto/testdata
// (written by scripts/golden/proto_goldens.py with the upstream SMG
// definitions) for the tests of the packages that encode and decode them.
// It is for tests only.
package prototest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
)

// Dir is the directory of the golden files.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(filepath.Dir(file)), "testdata")
}

// Root is the repository root (for the media files the goldens name).
func Root() string { return filepath.Dir(filepath.Dir(Dir())) }

// manifestEntry is one golden file's entry of proto_goldens.json.
type manifestEntry struct {
	Delimited bool            `json:"delimited"`
	Count     int             `json:"count"`
	Sha256    string          `json:"sha256"`
	Facts     json.RawMessage `json:"facts"`
}

// entry reads the manifest's entry of name, and its facts into facts
// (unless nil).
func entry(t testing.TB, name string, facts any) manifestEntry {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Dir(), "proto_goldens.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct {
		Goldens map[string]manifestEntry `json:"goldens"`
	}
	if err := json.Unmarshal(raw, &man); err != nil {
		t.Fatal(err)
	}
	e, ok := man.Goldens[name]
	if !ok {
		t.Fatalf("%s: not in the manifest", name)
	}
	if facts != nil {
		if err := json.Unmarshal(e.Facts, facts); err != nil {
			t.Fatalf("%s: facts: %v", name, err)
		}
	}
	return e
}

// Facts unmarshals the manifest's facts of the golden file name into facts.
func Facts(t testing.TB, name string, facts any) {
	t.Helper()
	entry(t, name, facts)
}

// Load decodes the golden file name (one message, or a size-delimited
// stream) after checking its SHA-256 against the manifest, and unmarshals
// its facts into facts (unless nil). newM returns an empty message.
func Load[M proto.Message](t testing.TB, name string, facts any, newM func() M) []M {
	t.Helper()
	entry := entry(t, name, facts)
	data, err := os.ReadFile(filepath.Join(Dir(), name))
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != entry.Sha256 {
		t.Fatalf("%s: sha256 differs from the manifest's", name)
	}
	out := Decode(t, name, data, entry.Delimited, newM)
	if len(out) != entry.Count {
		t.Fatalf("%s: %d messages, manifest says %d", name, len(out), entry.Count)
	}
	return out
}

// Decode decodes data: one message, or with delimited set several, each
// preceded by its size as a varint. newM returns an empty message.
func Decode[M proto.Message](t testing.TB, name string, data []byte, delimited bool, newM func() M) []M {
	t.Helper()
	if !delimited {
		m := newM()
		if err := proto.Unmarshal(data, m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return []M{m}
	}
	var out []M
	r := bytes.NewReader(data)
	for r.Len() > 0 {
		m := newM()
		if err := protodelim.UnmarshalFrom(r, m); err != nil {
			t.Fatalf("%s: message %d: %v", name, len(out), err)
		}
		out = append(out, m)
	}
	return out
}
