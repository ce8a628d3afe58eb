package config

import (
	"fmt"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/shm"
)

// Workers reads the config file's `workers:` list, each entry a url and
// the settings it overrides for that worker (mm_transport,
// mm_shm_min_bytes, encoder_dtype, runtime); base holds the rest. A file
// without the list gives none.
func Workers(path string, base engine.WorkerConfig) ([]engine.WorkerConfig, error) {
	doc, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	raw, ok := doc["workers"].([]any)
	if !ok {
		return nil, nil
	}
	var out []engine.WorkerConfig
	for i, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config %s: workers[%d] is not an object", path, i)
		}
		w := base
		if w.URL, _ = m["url"].(string); w.URL == "" {
			return nil, fmt.Errorf("config %s: workers[%d] has no url", path, i)
		}
		if key, err := override(&w, m); err != nil {
			return nil, fmt.Errorf("config %s: workers[%d].%s: %v", path, i, key, err)
		}
		out = append(out, w)
	}
	return out, nil
}

// override sets in w the settings m overrides; on an error it names the
// key.
func override(w *engine.WorkerConfig, m map[string]any) (string, error) {
	if v, ok := m["mm_transport"].(string); ok {
		mode, err := shm.ParseMode(v)
		if err != nil {
			return "mm_transport", err
		}
		w.Transport = mode
	}
	if v, ok := m["mm_shm_min_bytes"]; ok {
		var b ByteSize
		if err := b.Set(fmt.Sprint(v)); err != nil {
			return "mm_shm_min_bytes", err
		}
		w.ShmMinBytes = int(b)
	}
	if v, ok := m["encoder_dtype"].(string); ok {
		w.EncoderDType = v
	}
	if v, ok := m["runtime"].(string); ok {
		w.Runtime = v
	}
	return "", nil
}
