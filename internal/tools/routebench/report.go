package routebench

import (
	"fmt"
	"math"
	"time"

	"github.com/mmgate/mmgate/internal/tools/stats"
)

// Result is one policy's measures.
type Result struct {
	Policy        string `json:"policy"`
	Workers       int    `json:"workers"`
	Conversations int    `json:"conversations"`
	Turns         int    `json:"turns"`
	Requests      int    `json:"requests"`
	Errors        int    `json:"errors"`
	FirstError    string `json:"first_error"`
	PromptTokens  int    `json:"prompt_tokens"`
	CachedTokens  int    `json:"cached_tokens"`
	// HitRate is cached over prompt tokens, all turns; FollowUpHitRate
	// the same over the turns after the first.
	HitRate         float64 `json:"hit_rate"`
	FollowUpHitRate float64 `json:"follow_up_hit_rate"`
	// Latencies of the whole request (not streamed), in milliseconds.
	FirstTurnMS Dist    `json:"first_turn_ms"`
	FollowUpMS  Dist    `json:"follow_up_ms"`
	WallMS      float64 `json:"wall_ms"`
}

// Dist is a latency distribution in milliseconds (nearest-rank
// percentiles, package stats).
type Dist struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func distOf(ds []time.Duration) Dist {
	s := stats.Summarize(ds)
	return Dist{N: s.N, P50: msOf(s.P50), P90: msOf(s.P90), P99: msOf(s.P99), Max: msOf(s.Max)}
}

func msOf(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

func rate(cached, prompt int) float64 {
	if prompt == 0 {
		return 0
	}
	return math.Round(float64(cached)/float64(prompt)*1e4) / 1e4
}

// summarize turns the measured turns of one policy into its Result.
func summarize(policy string, cfg *Config, turns []turn, wall time.Duration) Result {
	r := Result{Policy: policy, Workers: cfg.Workers, Conversations: cfg.Conversations, Turns: cfg.Turns, WallMS: msOf(wall)}
	var first, follow []time.Duration
	var fPrompt, fCached int
	for _, t := range turns {
		r.Requests++
		if t.err != nil {
			if r.Errors++; r.FirstError == "" {
				r.FirstError = t.err.Error()
			}
			continue
		}
		r.PromptTokens += t.prompt
		r.CachedTokens += t.cached
		if t.index == 0 {
			first = append(first, t.latency)
			continue
		}
		follow = append(follow, t.latency)
		fPrompt += t.prompt
		fCached += t.cached
	}
	r.HitRate, r.FollowUpHitRate = rate(r.CachedTokens, r.PromptTokens), rate(fCached, fPrompt)
	r.FirstTurnMS, r.FollowUpMS = distOf(first), distOf(follow)
	return r
}

// row is the result as one line of the progress table.
func (r Result) row() string {
	return fmt.Sprintf("%-16s hit %5.1f%% (follow-ups %5.1f%%)  first turn p50 %7.1f ms p99 %7.1f ms  follow-up p50 %7.1f ms p99 %7.1f ms  errors %d/%d",
		r.Policy, 100*r.HitRate, 100*r.FollowUpHitRate, r.FirstTurnMS.P50, r.FirstTurnMS.P99, r.FollowUpMS.P50, r.FollowUpMS.P99, r.Errors, r.Requests)
}
