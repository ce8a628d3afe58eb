package pipeline

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mmgate/mmgate/engine"
	"github.com/mmgate/mmgate/engine/protocol"
	"github.com/mmgate/mmgate/internal/respparse"
	"github.com/mmgate/mmgate/openai"
	"github.com/mmgate/mmgate/tokenizer"
)

// generation reads the worker's stream and turns token ids into text events,
// one incremental decoder per choice, enforcing stop strings on the decoded
// text (the worker is told them too).
type generation struct {
	p       *Pipeline
	stream  *engine.Stream
	tok     *tokenizer.Tokenizer
	model   string
	prompt  int
	n       int
	stops   []string
	logprob bool
	choices []*choiceState
	queue   []openai.Event
	times   *stageTimes
	started time.Time
	ended   bool
	cached  int
	forced  *forcedTools
}

type choiceState struct {
	dec        *tokenizer.Stream
	parse      *respparse.Parser // nil: the text is all content
	calls      int               // tool calls released
	whole      strings.Builder   // forced tool choice: the output, read at the end
	held       string            // decoded text not yet emitted: it may begin a stop string
	stopped    bool              // a stop string matched: drop further text
	done       bool              // the worker's complete arrived
	completion int
}

func newGeneration(p *Pipeline, a *Assets, req *openai.Params, s *engine.Stream, model string, promptLen, n int, times *stageTimes, out outputMode) *generation {
	g := &generation{
		p: p, stream: s, tok: a.Tokenizer, model: model, prompt: promptLen, n: n,
		stops: nonEmpty(req.Stop), logprob: req.Logprobs, times: times, started: time.Now(),
	}
	g.forced = out.forced
	for i := 0; i < n; i++ {
		c := &choiceState{dec: a.Tokenizer.NewStream(req.SkipSpecial)}
		if out.parse {
			c.parse = respparse.New(out.format, out.opts)
		}
		g.choices = append(g.choices, c)
	}
	return g
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (g *generation) Model() string     { return g.model }
func (g *generation) Choices() int      { return g.n }
func (g *generation) PromptTokens() int { return g.prompt }
func (g *generation) Close()            { g.stream.Close() }

// Worker is the URL of the worker serving the generation (after any
// retry), for the access log.
func (g *generation) Worker() string { return g.stream.Worker().URL() }

func (g *generation) Timings() map[string]time.Duration {
	t := g.times.snapshot()
	t["generate"] = time.Since(g.started)
	return t
}

// Next returns the next event, io.EOF after the last.
func (g *generation) Next() (openai.Event, error) {
	for len(g.queue) == 0 {
		if g.ended {
			return openai.Event{}, io.EOF
		}
		ev, err := g.stream.Recv()
		if errors.Is(err, io.EOF) {
			for i, c := range g.choices {
				if !c.done {
					return openai.Event{}, fmt.Errorf("pipeline: the worker ended the stream before choice %d finished: %w", i, engine.ErrWorker)
				}
			}
			g.ended = true
			g.queue = append(g.queue, openai.Event{Index: g.n - 1, Usage: g.usage()})
			d := time.Since(g.started)
			g.p.m.stage.WithLabelValues("generate").Observe(d.Seconds())
			continue
		}
		if err != nil {
			return openai.Event{}, err
		}
		if err := g.handle(ev); err != nil {
			return openai.Event{}, err
		}
	}
	ev := g.queue[0]
	g.queue = g.queue[1:]
	return ev, nil
}

func (g *generation) usage() *openai.Usage {
	completion := 0
	for _, c := range g.choices {
		completion += c.completion
	}
	return openai.NewUsage(g.prompt, completion, g.cached)
}

// handle turns one worker event into text events: the choice's new tokens
// decoded and passed through stop strings and the output parser, and on its
// last event the finish reason and token count.
func (g *generation) handle(ev protocol.Event) error {
	i := ev.Index
	if i < 0 || i >= g.n {
		return fmt.Errorf("pipeline: event for choice %d of %d: %w", i, g.n, engine.ErrWorker)
	}
	st := g.choices[i]
	if st.done {
		return nil
	}
	if ev.CompletionTokens > 0 {
		st.completion = ev.CompletionTokens
	} else {
		st.completion += len(ev.Tokens)
	}
	if ev.CachedTokens > 0 {
		g.cached = ev.CachedTokens
	}
	var text strings.Builder
	for _, id := range ev.Tokens {
		text.WriteString(st.dec.Add(id))
	}
	if !ev.Done {
		out := g.split(st, g.emit(i, st, text.String(), ""), false)
		if g.logprob {
			out.Logprobs = g.logprobs(ev.Logprobs)
		}
		if out.Text != "" || out.Reasoning != "" || len(out.ToolCalls) > 0 || len(out.Logprobs) > 0 {
			g.queue = append(g.queue, out)
		}
		return nil
	}
	st.done = true
	text.WriteString(st.dec.Flush())
	out := g.split(st, g.emit(i, st, text.String(), orStop(ev.Finish)), true)
	if g.logprob {
		out.Logprobs = g.logprobs(ev.Logprobs)
	}
	finish := orStop(ev.Finish)
	if st.stopped {
		finish = "stop" // a stop string matched, in this event's text or before
	}
	if finish == "stop" && st.calls > 0 {
		finish = "tool_calls"
	}
	out.FinishReason, out.Final, out.CompletionTokens = finish, true, st.completion
	g.queue = append(g.queue, out)
	return nil
}

func orStop(s string) string {
	if s == "" {
		return "stop"
	}
	return s
}

// emit appends text to the choice and returns an event with the part that
// can be released: everything before a matched stop string (and nothing
// after), or, while no stop matched, all but the longest tail that could
// still begin a stop string. With final set, the held tail is released.
func (g *generation) emit(i int, st *choiceState, text, final string) openai.Event {
	ev := openai.Event{Index: i, CompletionTokens: st.completion}
	if st.stopped {
		return ev
	}
	buf := st.held + text
	if len(g.stops) > 0 {
		cut := -1
		for _, s := range g.stops {
			if k := strings.Index(buf, s); k >= 0 && (cut < 0 || k < cut) {
				cut = k
			}
		}
		if cut >= 0 {
			st.stopped = true
			st.held = ""
			ev.Text = buf[:cut]
			return ev
		}
		if final == "" {
			keep := holdBack(buf, g.stops)
			st.held = buf[len(buf)-keep:]
			ev.Text = buf[:len(buf)-keep]
			return ev
		}
	}
	st.held = ""
	ev.Text = buf
	return ev
}

// holdBack is the length of the longest suffix of s that is a proper prefix
// of a stop string, cut at a rune boundary.
func holdBack(s string, stops []string) int {
	best := 0
	for _, stop := range stops {
		for k := min(len(stop)-1, len(s)); k > best; k-- {
			if strings.HasSuffix(s, stop[:k]) {
				best = k
				break
			}
		}
	}
	for best > 0 && !utf8.RuneStart(s[len(s)-best]) {
		best++
	}
	return min(best, len(s))
}

func (g *generation) logprobs(lps []protocol.Logprob) []openai.Logprob {
	if len(lps) == 0 {
		return nil
	}
	out := make([]openai.Logprob, 0, len(lps))
	for _, lp := range lps {
		l := openai.Logprob{Token: g.tok.Decode([]uint32{lp.Token}, false), Logprob: float64(lp.Logprob)}
		l.Bytes = bytesOf(l.Token)
		l.TopLogprobs = make([]openai.TopLogprob, 0, len(lp.Top))
		for _, alt := range lp.Top {
			t := openai.TopLogprob{Token: g.tok.Decode([]uint32{alt.Token}, false), Logprob: float64(alt.Logprob)}
			t.Bytes = bytesOf(t.Token)
			l.TopLogprobs = append(l.TopLogprobs, t)
		}
		out = append(out, l)
	}
	return out
}

func bytesOf(s string) []int {
	b := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		b[i] = int(s[i])
	}
	return b
}

// split passes an event's text through the choice's output parser: content,
// reasoning and tool calls (each call as a name delta, then its arguments in
// pieces, as OpenAI streams them).
func (g *generation) split(st *choiceState, ev openai.Event, final bool) openai.Event {
	var d respparse.Delta
	switch {
	case g.forced != nil:
		// The whole output is the call: held until the end.
		st.whole.WriteString(ev.Text)
		if !final {
			ev.Text = ""
			return ev
		}
		text := st.whole.String()
		if calls, ok := g.forced.calls(text); ok {
			d.ToolCalls = calls
		} else {
			d.Content = text
		}
	case st.parse == nil:
		return ev
	default:
		d = st.parse.Feed(ev.Text)
		if final {
			f := st.parse.Finish()
			d.Content += f.Content
			d.Reasoning += f.Reasoning
			d.ToolCalls = append(d.ToolCalls, f.ToolCalls...)
		}
	}
	ev.Text, ev.Reasoning = d.Content, d.Reasoning
	for _, c := range d.ToolCalls {
		st.calls++
		index := c.Index
		ev.ToolCalls = append(ev.ToolCalls, openai.ToolCall{Index: &index, ID: c.ID, Function: openai.FunctionCall{Name: c.Name}})
		for _, piece := range pieces(c.Arguments, 16) {
			ev.ToolCalls = append(ev.ToolCalls, openai.ToolCall{Index: &index, Function: openai.FunctionCall{Arguments: piece}})
		}
	}
	return ev
}

// pieces cuts s into parts of about n bytes, at rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		k := n
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
