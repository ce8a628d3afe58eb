package access

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// APIKeys gathers the --api-key values and the lines of --api-key-file
// (one key per line; blank lines and lines starting with # are skipped).
// Values are trimmed and empty ones dropped; a file without a key is an
// error.
func APIKeys(keys []string, file string) ([]string, error) {
	var out []string
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	if file == "" {
		return out, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("--api-key-file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--api-key-file %s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--api-key-file %s: no key in the file", file)
	}
	return out, nil
}
