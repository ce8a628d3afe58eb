package refworker

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	commonpb "github.com/mmgate/mmgate/proto/common"
)

// BundleFiles are the model-folder files a gateway needs, sent by
// GetTokenizer when present.
var bundleFiles = []string{
	"tokenizer.json", "tokenizer_config.json", "config.json", "generation_config.json",
	"preprocessor_config.json", "video_preprocessor_config.json",
	"chat_template.jinja", "chat_template.json", "special_tokens_map.json",
}

// chunkSize is the GetTokenizer chunk size.
const chunkSize = 1 << 20

type bundle struct {
	once sync.Once
	zip  []byte
	sum  string
	err  error
}

// makeBundle zips the bundle files of dir (in a fixed order, with fixed
// timestamps, so the bytes and their digest are stable).
func makeBundle(dir string) ([]byte, string, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := 0
	for _, name := range bundleFiles {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			return nil, "", err
		}
		if _, err := w.Write(b); err != nil {
			return nil, "", err
		}
		n++
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	if n == 0 {
		return nil, "", errors.New("no tokenizer files in the model folder")
	}
	sum := sha256.Sum256(buf.Bytes())
	return buf.Bytes(), hex.EncodeToString(sum[:]), nil
}

// sendBundle streams a zip of the model folder's tokenizer, template and
// processor files (GetTokenizer, the same in every protocol); the last chunk
// carries the SHA-256 of the whole zip.
func (s *Server) sendBundle(stream interface {
	Send(*commonpb.GetTokenizerChunk) error
}) error {
	s.bundle.once.Do(func() { s.bundle.zip, s.bundle.sum, s.bundle.err = makeBundle(s.opts.ModelDir) })
	if s.bundle.err != nil {
		return status.Errorf(codes.Unavailable, "tokenizer bundle: %v", s.bundle.err)
	}
	data := s.bundle.zip
	for off := 0; off < len(data); off += chunkSize {
		end := min(off+chunkSize, len(data))
		c := &commonpb.GetTokenizerChunk{Data: data[off:end]}
		if end == len(data) {
			c.Sha256 = s.bundle.sum
		}
		if err := stream.Send(c); err != nil {
			return err
		}
	}
	return nil
}
