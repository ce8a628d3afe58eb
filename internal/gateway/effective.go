package gateway

import (
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/media"
	"github.com/mmgate/mmgate/shm"
)

// This file answers: what does the effective-configuration log say? The
// facts start-up resolved, then every option, walked from the struct.

// Effective is the effective configuration as log attributes: the facts
// first, in their order, then every field of o in struct order under its
// `log` tag (nested groups flattened), unless a fact has that key. A
// field tagged "-" is left out; one tagged ",count" (a secret) gives the
// number of its values; a value that is a fmt.Stringer (other than a
// duration) gives its text.
func Effective(o *Options, facts ...slog.Attr) []slog.Attr {
	out := slices.Clone(facts)
	have := map[string]bool{}
	for _, a := range facts {
		have[a.Key] = true
	}
	walk(reflect.ValueOf(o).Elem(), func(key string, v any) {
		if !have[key] {
			have[key] = true
			out = append(out, slog.Any(key, v))
		}
	})
	return out
}

// walk calls emit for every loggable field of the struct v.
func walk(v reflect.Value, emit func(key string, v any)) {
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("log"), ",")
		switch {
		case tag == "-":
		case tag == "" && f.Type.Kind() == reflect.Struct:
			walk(fv, emit)
		case tag == "":
			emit(strings.ToLower(f.Name), fv.Interface())
		case opts == "count":
			emit(tag, fv.Len())
		default:
			emit(tag, logValue(fv.Interface()))
		}
	}
}

// logValue is v as the log shows it.
func logValue(v any) any {
	if s, ok := v.(fmt.Stringer); ok {
		if _, dur := v.(time.Duration); !dur {
			return s.String()
		}
	}
	return v
}

// serveFacts are what the gateway resolved at start: the model folder
// and the workers in use, the names served before a worker reports them,
// the shared memory found, the tensor memory budget and where it comes
// from, whether pixels are exact, whether TLS and worker client
// certificates are set.
func serveFacts(o *Options, model string, workers []engine.WorkerConfig, pool *shm.Pool, b Budget) []slog.Attr {
	urls := make([]string, len(workers))
	for i, w := range workers {
		urls[i] = w.URL
	}
	pr := pool.Probe()
	facts := []slog.Attr{
		slog.String("version", o.Version), slog.String("model", model), slog.Any("workers", urls),
		slog.Any("served_model_names", servedModels(o, model)),
		slog.Bool("exif", !o.Media.NoEXIF), slog.Bool("shm_usable", pool.Usable()), slog.Int64("shm_size", pr.Size),
		slog.Int64("shm_budget", pr.Budget), slog.String("shm_namespace_id", pr.NamespaceID), slog.Bool("decoders_exact", media.Exact()),
		slog.Int("api_keys", len(o.APIKeys)), slog.Bool("tls", o.TLS != nil),
		slog.Bool("worker_tls_client_cert", o.Workers.TLS != nil && len(o.Workers.TLS.Certificates) > 0),
	}
	return append(facts, b.facts()...)
}

// ServeFacts is serveFacts for the static workers of o: what the
// effective-configuration log of a gateway on model with pool and budget
// b says, for Effective.
func ServeFacts(o *Options, model string, pool *shm.Pool, b Budget) []slog.Attr {
	return serveFacts(o, model, o.Workers.URLs, pool, b)
}
