package respparse

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode"
)

// Format names the tags of a model family's output (the model's family
// says which: package family's OutputFormat).
type Format struct {
	ToolStart, ToolEnd   string // "" when the family has no tool-call format
	ThinkStart, ThinkEnd string // "" when the family has no reasoning tags
}

// Options choose what a Parser extracts.
type Options struct {
	// Tools enables tool-call extraction (the request has tools and
	// tool_choice is not "none").
	Tools bool
	// MaxToolCalls bounds the calls returned (parallel_tool_calls false → 1);
	// 0 means no bound. Later blocks stay in content.
	MaxToolCalls int
	// Reasoning enables <think> extraction (the template knows thinking).
	Reasoning bool
	// StartInReasoning: the prompt already opened the <think> block, so
	// the output begins inside it.
	StartInReasoning bool
}

// ToolCall is one complete call.
type ToolCall struct {
	Index     int
	ID        string
	Name      string
	Arguments string // a JSON object, as text
}

// Delta is what one Feed or Finish released.
type Delta struct {
	Content   string
	Reasoning string
	ToolCalls []ToolCall
}

// Empty reports whether d carries nothing.
func (d Delta) Empty() bool { return d.Content == "" && d.Reasoning == "" && len(d.ToolCalls) == 0 }

type state uint8

const (
	stStart     state = iota // nothing released yet: a leading <think> may come
	stReasoning              // inside <think>
	stContent                // plain content
	stTool                   // inside a tool block
)

// Parser is the streaming splitter for one choice.
type Parser struct {
	f     Format
	o     Options
	st    state
	buf   strings.Builder // text not yet classified
	block strings.Builder // the current tool block's body
	calls int
	// trimLead drops the whitespace that follows a tool call or the end
	// of the reasoning, up to the next real text.
	trimLead bool
}

// New returns a Parser for one choice.
func New(f Format, o Options) *Parser {
	if f.ThinkStart == "" {
		o.Reasoning, o.StartInReasoning = false, false
	}
	if f.ToolStart == "" {
		o.Tools = false
	}
	p := &Parser{f: f, o: o}
	switch {
	case o.StartInReasoning:
		p.st = stReasoning
	case o.Reasoning:
		p.st = stStart
	default:
		p.st = stContent
	}
	return p
}

// ToolCalls is the number of calls released so far.
func (p *Parser) ToolCalls() int { return p.calls }

// Feed adds decoded text and returns what became final.
func (p *Parser) Feed(text string) Delta {
	p.buf.WriteString(text)
	return p.run(false)
}

// Finish releases everything held back (an unclosed tool block as content).
func (p *Parser) Finish() Delta {
	d := p.run(true)
	if p.st == stTool {
		d.Content += p.f.ToolStart + p.block.String()
		p.block.Reset()
		p.st = stContent
	}
	return d
}

func (p *Parser) run(final bool) Delta {
	var d Delta
	for {
		s := p.buf.String()
		switch p.st {
		case stStart:
			trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
			switch {
			case strings.HasPrefix(trimmed, p.f.ThinkStart):
				p.reset(trimmed[len(p.f.ThinkStart):])
				p.st = stReasoning
				continue
			case !final && strings.HasPrefix(p.f.ThinkStart, trimmed):
				return d // could still be <think>
			}
			p.st = stContent
			continue
		case stReasoning:
			if i := strings.Index(s, p.f.ThinkEnd); i >= 0 {
				d.Reasoning += s[:i]
				p.reset(s[i+len(p.f.ThinkEnd):])
				p.trimLead = true
				p.st = stContent
				continue
			}
			keep := 0
			if !final {
				keep = partialSuffix(s, p.f.ThinkEnd)
			}
			d.Reasoning += s[:len(s)-keep]
			p.reset(s[len(s)-keep:])
			return d
		case stContent:
			if p.o.Tools && (p.o.MaxToolCalls == 0 || p.calls < p.o.MaxToolCalls) {
				if i := strings.Index(s, p.f.ToolStart); i >= 0 {
					d.Content += p.content(s[:i])
					p.reset(s[i+len(p.f.ToolStart):])
					p.block.Reset()
					p.st = stTool
					continue
				}
				keep := 0
				if !final {
					keep = partialSuffix(s, p.f.ToolStart)
				}
				out := s[:len(s)-keep]
				if p.trimLead && !final && strings.TrimSpace(out) == "" {
					// Hold whitespace until real text shows.
					return d
				}
				d.Content += p.content(out)
				p.reset(s[len(s)-keep:])
				return d
			}
			d.Content += p.content(s)
			p.reset("")
			return d
		case stTool:
			p.block.WriteString(s)
			p.reset("")
			body := p.block.String()
			i := strings.Index(body, p.f.ToolEnd)
			if i < 0 {
				return d
			}
			rest := body[i+len(p.f.ToolEnd):]
			if call, ok := parseCall(body[:i]); ok {
				call.Index = p.calls
				p.calls++
				d.ToolCalls = append(d.ToolCalls, call)
				p.trimLead = true
			} else {
				d.Content += p.content(p.f.ToolStart + body[:i+len(p.f.ToolEnd)])
			}
			p.block.Reset()
			p.reset(rest)
			p.st = stContent
			continue
		}
	}
}

// content applies the leading-whitespace rule to released content.
func (p *Parser) content(s string) string {
	if p.trimLead {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return ""
		}
		p.trimLead = false
	}
	return s
}

func (p *Parser) reset(s string) {
	p.buf.Reset()
	p.buf.WriteString(s)
}

// partialSuffix is the length of the longest suffix of s that is a proper
// prefix of tag.
func partialSuffix(s, tag string) int {
	for k := min(len(tag)-1, len(s)); k > 0; k-- {
		if strings.HasSuffix(s, tag[:k]) {
			return k
		}
	}
	return 0
}

// parseCall reads {"name": "...", "arguments": {...} | "..."} (Hermes also
// spells arguments "parameters").
func parseCall(body string) (ToolCall, bool) {
	var raw struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	if err := dec.Decode(&raw); err != nil || raw.Name == "" || dec.More() {
		return ToolCall{}, false
	}
	args := raw.Arguments
	if len(args) == 0 {
		args = raw.Parameters
	}
	var text string
	switch {
	case len(args) == 0 || string(args) == "null":
		text = "{}"
	case args[0] == '"':
		// Arguments sent as a JSON string holding JSON.
		var inner string
		if json.Unmarshal(args, &inner) != nil || !json.Valid([]byte(inner)) {
			return ToolCall{}, false
		}
		text = inner
	case args[0] == '{':
		var b bytes.Buffer
		if json.Compact(&b, args) != nil {
			return ToolCall{}, false
		}
		text = b.String()
	default:
		return ToolCall{}, false
	}
	return ToolCall{ID: NewCallID(), Name: raw.Name, Arguments: text}, true
}

// NewCallID is a fresh tool-call id, "call_" and 24 hex digits.
func NewCallID() string {
	var b [12]byte
	rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
