package routing

// Defaults for Thresholds.
const (
	DefaultCacheThreshold      = 0.5
	DefaultBalanceAbsThreshold = 32
	DefaultBalanceRelThreshold = 1.1
)

// Thresholds tune CachePick. The zero value of each field means its
// default; a negative value means zero.
type Thresholds struct {
	// Cache is the match fraction (matched / prompt tokens) a prefix match
	// must exceed to win. Default 0.5.
	Cache float64
	// BalanceAbs and BalanceRel: the candidates are imbalanced when
	// max − min load exceeds BalanceAbs and max exceeds min × BalanceRel.
	// Defaults 32 and 1.1.
	BalanceAbs int
	BalanceRel float64
}

func (th Thresholds) resolved() Thresholds {
	th.Cache = orDefault(th.Cache, DefaultCacheThreshold)
	th.BalanceRel = orDefault(th.BalanceRel, DefaultBalanceRelThreshold)
	switch {
	case th.BalanceAbs == 0:
		th.BalanceAbs = DefaultBalanceAbsThreshold
	case th.BalanceAbs < 0:
		th.BalanceAbs = 0
	}
	return th
}

func orDefault(v, def float64) float64 {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}

// Candidate is one worker as a picker sees it.
type Candidate struct {
	// Load is its requests in flight (the gateway's count, or the
	// engine's load score).
	Load int
	// Cached is how many prompt tokens its prefix tree holds (the first
	// tie-break between equal loads).
	Cached int
	// Routed is how many requests were routed to it so far (the second
	// tie-break).
	Routed uint64
	// Match is how many prompt tokens its prefix tree matched.
	Match int
}

// Reason says why CachePick chose.
type Reason string

// Reasons.
const (
	ReasonImbalanced Reason = "imbalanced" // load imbalance: least loaded
	ReasonHit        Reason = "cache_hit"  // longest match above the threshold
	ReasonMiss       Reason = "cache_miss" // no match above it: least loaded
)

// CachePick is cache_aware's decision for a prompt of promptTokens tokens
// (see the package documentation). It returns the index of the chosen
// candidate, or -1 when there is none.
func CachePick(c []Candidate, promptTokens int, th Thresholds) (int, Reason) {
	if len(c) == 0 {
		return -1, ReasonMiss
	}
	th = th.resolved()
	least := LeastLoaded(c)
	lo, hi := c[least].Load, c[least].Load
	for _, x := range c {
		hi = max(hi, x.Load)
	}
	if hi-lo > th.BalanceAbs && float32(hi) > float32(lo)*float32(th.BalanceRel) {
		return least, ReasonImbalanced
	}
	best := 0
	for i := 1; i < len(c); i++ {
		if c[i].Match > c[best].Match || c[i].Match == c[best].Match && lessLoaded(c[i], c[best]) {
			best = i
		}
	}
	if promptTokens > 0 && float32(c[best].Match)/float32(promptTokens) > float32(th.Cache) {
		return best, ReasonHit
	}
	return least, ReasonMiss
}

// LeastLoaded returns the index of the least loaded candidate, ties broken
// by less cached prefix data, then by fewer routed requests, then by order
// (-1 when c is empty).
func LeastLoaded(c []Candidate) int {
	if len(c) == 0 {
		return -1
	}
	best := 0
	for i := 1; i < len(c); i++ {
		if lessLoaded(c[i], c[best]) {
			best = i
		}
	}
	return best
}

func lessLoaded(a, b Candidate) bool {
	if a.Load != b.Load {
		return a.Load < b.Load
	}
	if a.Cached != b.Cached {
		return a.Cached < b.Cached
	}
	return a.Routed < b.Routed
}

// PowerOfTwo draws two distinct candidates with intn (a uniform draw from
// [0, n), e.g. rand.IntN) and returns the less loaded, the first drawn on a
// tie; -1 when loads is empty.
func PowerOfTwo(loads []int, intn func(n int) int) int {
	switch len(loads) {
	case 0:
		return -1
	case 1:
		return 0
	}
	i := intn(len(loads))
	j := (i + 1 + intn(len(loads)-1)) % len(loads)
	if loads[i] <= loads[j] {
		return i
	}
	return j
}
