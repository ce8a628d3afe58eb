package benchgw

import (
	"math"
	"time"

	"github.com/mmgate/mmgate/internal/tools/stats"
)

// Report is the result of a run. Durations are in milliseconds, rates per
// second. Lists are never nil.
type Report struct {
	URL             string  `json:"url"`
	Model           string  `json:"model"`
	Concurrency     int     `json:"concurrency"`
	RequestsPlanned int     `json:"requests_planned"`
	ImageFiles      int     `json:"image_files"`
	ImageBytesMean  float64 `json:"image_bytes_mean"`
	// StoppedBy says why requests stopped being issued: "requests" (all were
	// sent), "duration" (the time cap) or "canceled".
	StoppedBy      string       `json:"stopped_by"`
	WallSeconds    float64      `json:"wall_seconds"`
	RequestsPerSec float64      `json:"requests_per_second"`
	ImagesPerSec   float64      `json:"images_per_second"`
	Image          Kind         `json:"image"`
	TextProbe      Kind         `json:"text_probe"`
	Errors         []ErrorCount `json:"errors"`
	Transport      Transport    `json:"transport"`
	Stages         []Stage      `json:"stages"`
	Server         Server       `json:"server"`
	MetricsError   string       `json:"metrics_error,omitempty"`
	// ProbeProcess says the text probes came from a process of their own.
	ProbeProcess bool `json:"probe_process"`
	// ProbeError is why the probe process failed, if it did.
	ProbeError string `json:"probe_error,omitempty"`
}

// Kind summarises one kind of request (image or text probe).
type Kind struct {
	Sent    int  `json:"sent"`
	OK      int  `json:"ok"`
	Failed  int  `json:"failed"`
	Latency Dist `json:"latency_ms"`
	TTFT    Dist `json:"ttft_ms"`
}

// Dist is a distribution in milliseconds (nearest-rank percentiles).
type Dist struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// ErrorCount is the number of failed requests of one kind with one status
// and error code. Status 0 means no HTTP status was read (network error,
// timeout); status 200 with a code means an error event inside the stream.
type ErrorCount struct {
	Kind    string `json:"kind"` // "image" or "text_probe"
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Count   int    `json:"count"`
	Example string `json:"example"`
}

// Transport is the tensor transport mix.
type Transport struct {
	// From the replies: images the worker says arrived via shm / inline,
	// and successful image replies that named no transport.
	ReplyShm     int `json:"reply_shm"`
	ReplyInline  int `json:"reply_inline"`
	ReplyUnknown int `json:"reply_unknown"`
	// From mmgate_mm_tensors_total / mmgate_mm_tensor_bytes_total deltas.
	Metrics []TransportSeries `json:"metrics"`
}

// TransportSeries is the change of one mmgate_mm_tensors_total series.
type TransportSeries struct {
	Modality string  `json:"modality"`
	Path     string  `json:"path"`
	Runtime  string  `json:"runtime"`
	Tensors  float64 `json:"tensors"`
	Bytes    float64 `json:"bytes"`
}

// Stage is the mean time of one pipeline stage over the run, from the delta
// of mmgate_stage_duration_seconds sum and count.
type Stage struct {
	Stage  string  `json:"stage"`
	Count  float64 `json:"count"`
	MeanMS float64 `json:"mean_ms"`
	// TotalMS is the summed stage time over the run (all requests).
	TotalMS float64 `json:"total_ms"`
}

// Server holds other gateway-side figures over the run.
type Server struct {
	TTFTMeanMS        float64 `json:"ttft_mean_ms"`
	TensorCacheHits   float64 `json:"tensor_cache_hits"`
	TensorCacheMisses float64 `json:"tensor_cache_misses"`
}

// stageOrder is the order of the pipeline; other stages follow by name.
var stageOrder = []string{"fetch", "decode", "resize", "normalize_patchify", "tokenize", "transport", "generate"}

// dist summarises durations.
func dist(ds []time.Duration) Dist {
	s := stats.Summarize(ds)
	return Dist{Count: s.N, Mean: ms(s.Mean), P50: ms(s.P50), P90: ms(s.P90), P99: ms(s.P99), Max: ms(s.Max)}
}

func ms(d time.Duration) float64 { return round3(float64(d) / 1e6) }

// round3 keeps three decimals so that reports stay readable.
func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
