package soak

import (
	"errors"
	"io"
	"time"
)

// Config describes one run. Binary is required; zero values mean the
// defaults noted.
type Config struct {
	Binary   string // the mmgate binary
	ModelDir string // model folder; "" materializes the demo model into WorkDir
	WorkDir  string // scratch directory ("" a temporary one, removed after)

	Duration       time.Duration // traffic time; default 30 s
	Concurrency    int           // clients; default 8 (soak), 64 (load)
	Workers        int           // reference workers; default 3
	Protocol       string        // the workers' protocol (mmgate worker --protocol); default tokenspeed
	Images         int           // distinct images; default 6
	RequestTimeout time.Duration // per request; default 60 s
	Seed           int64

	// Load selects load mode: no faults, and MaxInFlight (default 48)
	// below Concurrency so that 429s must appear.
	Load        bool
	MaxInFlight int

	// Faults (soak mode). Zero values mean the defaults; negative disables.
	CancelPercent int           // % of streaming requests cancelled mid-stream; default 15
	KillEvery     time.Duration // SIGKILL a random worker this often; default 4 s
	RejectEvery   int           // workers reject every Nth request; default 11
	FillEvery     time.Duration // fill the shm tmpfs this often (for 1.5 s); default 6 s
	TmpfsBytes    int64         // size of the private shm tmpfs; default 64 MiB

	TokenDelay time.Duration // workers' pause between tokens; default 1 ms (soak), 0 (load)
	CacheBytes int64         // gateway tensor-cache budget; default 32 MiB
	// TensorBudget is the gateway's --max-tensor-bytes-in-flight; default
	// in soak mode 12 MiB for bfloat16 workers, 24 MiB for float32 ones
	// (the largest request, two images, fits; a few at once: the others
	// wait for memory through the faults), the gateway's own in load mode.
	TensorBudget int64
	ShmBudget    int64         // gateway shm budget; default: the gateway's own (half the tmpfs) in soak mode, 128 MiB in load mode
	JanitorTTL   time.Duration // default 2 s
	JanitorTick  time.Duration // default 500 ms

	Log io.Writer // progress lines; nil discards
}

func (c *Config) defaults() error {
	if c.Binary == "" {
		return errors.New("soak: Config.Binary is required")
	}
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	defD := func(p *time.Duration, v time.Duration) {
		if *p == 0 {
			*p = v
		}
	}
	defD(&c.Duration, 30*time.Second)
	if c.Load {
		def(&c.Concurrency, 64)
		def(&c.MaxInFlight, 48)
		if c.ShmBudget == 0 {
			c.ShmBudget = 128 << 20
		}
		c.CancelPercent, c.KillEvery, c.RejectEvery, c.FillEvery = -1, -1, -1, -1
	} else {
		def(&c.Concurrency, 8)
		defD(&c.TokenDelay, time.Millisecond)
		if c.TensorBudget == 0 {
			c.TensorBudget = 12 << 20
			if c.encoderDType() == "float32" {
				c.TensorBudget *= 2
			}
		}
	}
	def(&c.Workers, 3)
	def(&c.Images, 6)
	defD(&c.RequestTimeout, 60*time.Second)
	def(&c.CancelPercent, 15)
	defD(&c.KillEvery, 4*time.Second)
	def(&c.RejectEvery, 11)
	defD(&c.FillEvery, 6*time.Second)
	if c.TmpfsBytes == 0 {
		c.TmpfsBytes = 64 << 20
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = 32 << 20
	}
	defD(&c.JanitorTTL, 2*time.Second)
	defD(&c.JanitorTick, 500*time.Millisecond)
	if c.Log == nil {
		c.Log = io.Discard
	}
	return nil
}

// encoderDType is the dtype the workers receive pixels in: the demo
// model's bfloat16 over TokenSpeed, float32 over vLLM's and SGLang's
// protocols.
func (c *Config) encoderDType() string {
	if c.Protocol == "" || c.Protocol == "tokenspeed" {
		return "bfloat16"
	}
	return "float32"
}

// Report is the outcome of a run (printed as JSON by `mmgate bench soak`).
type Report struct {
	Mode        string  `json:"mode"` // "soak" or "load"
	Seconds     float64 `json:"seconds"`
	Concurrency int     `json:"concurrency"`
	Workers     int     `json:"workers"`

	Requests       int            `json:"requests"`
	OK             int            `json:"ok"`
	ImageOK        int            `json:"image_ok"`
	Cancelled      int            `json:"cancelled"`
	CleanErrors    map[string]int `json:"clean_errors"`   // by "status code", e.g. "502 worker_error"
	WrongAnswers   int            `json:"wrong_answers"`  // must be 0
	UncleanErrors  int            `json:"unclean_errors"` // must be 0
	ServerErrors5x int            `json:"server_errors_5xx"`
	Problems       []string       `json:"problems"` // first few wrong/unclean cases, described

	LatencyMS   Percentiles `json:"latency_ms"`      // successful requests
	Overload429 Percentiles `json:"overload_429_ms"` // time to a 429

	WorkerKills   int    `json:"worker_kills"`
	ShmFills      int    `json:"shm_fills"`
	ShmFillSkip   string `json:"shm_fill_skipped,omitempty"`
	RejectEvery   int    `json:"reject_every"`
	CancelPercent int    `json:"cancel_percent"`

	GoroutinesBaseline float64 `json:"goroutines_baseline"`
	GoroutinesPeak     float64 `json:"goroutines_peak"`
	GoroutinesAfter    float64 `json:"goroutines_after"`
	RSSBaselineMiB     float64 `json:"rss_baseline_mib"`
	RSSPeakMiB         float64 `json:"rss_peak_mib"`
	RSSAfterMiB        float64 `json:"rss_after_mib"`
	ShmPeakBytes       float64 `json:"shm_peak_bytes"`
	ShmBudgetBytes     int64   `json:"shm_budget_bytes"`
	CachePeakBytes     float64 `json:"cache_peak_bytes"`
	CacheBudgetBytes   int64   `json:"cache_budget_bytes"`
	// The tensor memory budget (0: the gateway's default), the peaks of
	// the planned bytes admitted and of the requests waiting for them, how
	// many requests were admitted after a wait, what is still admitted
	// once the run settled (must be 0: every admission given back), and
	// refusals by reason.
	AdmissionBudgetBytes int64              `json:"admission_budget_bytes"`
	AdmissionPeakBytes   float64            `json:"admission_peak_bytes"`
	AdmissionWaitingPeak float64            `json:"admission_waiting_peak"`
	AdmissionWaited      float64            `json:"admission_waited"`
	AdmissionBytesAfter  float64            `json:"admission_bytes_after"`
	AdmissionRefused     map[string]float64 `json:"admission_refused"`
	ShmFallbacks         map[string]float64 `json:"shm_fallbacks"`   // mmgate_mm_shm_fallbacks_total by labels
	TensorsByPath        map[string]float64 `json:"tensors_by_path"` // mmgate_mm_tensors_total by labels
	SegmentsLeft         []string           `json:"segments_left"`
	SegmentsAfterStop    []string           `json:"segments_after_stop"`

	Failures []string `json:"failures"` // why the run failed; empty when it passed
}

// Percentiles of a set of durations, in milliseconds.
type Percentiles struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// Passed reports whether the run met every check.
func (r *Report) Passed() bool { return len(r.Failures) == 0 }
