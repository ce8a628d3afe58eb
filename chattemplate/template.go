package chattemplate

import (
	"errors"
	"fmt"
	"time"

	"github.com/ardanlabs/jinja"
)

// Options configure a compiled template. The zero value is the default.
type Options struct {
	// Globals are variables every render sees, below the request's
	// kwargs (Hugging Face passes the tokenizer's special tokens this way:
	// bos_token, eos_token, …).
	Globals Object

	// Now is the clock behind strftime_now; nil means time.Now.
	Now func() time.Time
}

// Template is a compiled chat template. It is safe for concurrent use.
type Template struct {
	tmpl         *jinja.Template
	source       string
	tools        bool
	contentParts bool
	globals      map[string]jinja.Value
	globalOrder  []string
	now          func() time.Time
}

// Compile compiles a chat template source.
func Compile(source string, o Options) (*Template, error) {
	x := newSyntax()
	src, tags, err := x.normalizeSource(source)
	if err != nil {
		return nil, fmt.Errorf("chattemplate: compile: %w", err)
	}
	tmpl, err := jinja.Compile(x.rewriteTags(src, tags))
	if err != nil {
		return nil, fmt.Errorf("chattemplate: compile: %v: %w", err, ErrBadTemplate)
	}
	t := &Template{
		tmpl:         tmpl,
		source:       source,
		tools:        x.mentionsTools(tags),
		contentParts: x.iteratesContent(tags),
		globals:      map[string]jinja.Value{},
		now:          o.Now,
	}
	if t.now == nil {
		t.now = time.Now
	}
	for _, f := range o.Globals {
		v, err := toValue(f.Value, 0)
		if err != nil {
			return nil, fmt.Errorf("chattemplate: global %q: %w", f.Key, err)
		}
		if _, dup := t.globals[f.Key]; !dup {
			t.globalOrder = append(t.globalOrder, f.Key)
		}
		t.globals[f.Key] = v
	}
	return t, nil
}

// Source returns the template source as given to Compile.
func (t *Template) Source() string { return t.source }

// MentionsTools reports whether the template reads the "tools" variable.
func (t *Template) MentionsTools() bool { return t.tools }

// IteratesContentParts reports whether the template loops over a
// message's content parts. A template that does not can only render string
// content: callers flatten multimodal content before rendering.
func (t *Template) IteratesContentParts() bool { return t.contentParts }

// Input is what a chat template renders.
type Input struct {
	// Messages are the chat messages, each an ordered object (role,
	// content, tool_calls, …); content is a string or a list of parts.
	Messages []Object

	// Tools and Documents are nil (the template sees None) or a JSON array
	// as json.RawMessage, []any or []Object; key order is kept.
	Tools     any
	Documents any

	AddGenerationPrompt bool

	// ContinueFinalMessage renders the conversation so that the model
	// continues the final message: the output is cut right after that
	// message's content, as Hugging Face's apply_chat_template does.
	ContinueFinalMessage bool

	// Kwargs are extra template variables (chat_template_kwargs, such as
	// add_vision_id or enable_thinking). They override Options.Globals and
	// may not redefine messages, tools, documents or add_generation_prompt.
	Kwargs Object
}

// reserved names the render call sets itself.
var reserved = map[string]bool{"messages": true, "tools": true, "documents": true, "add_generation_prompt": true}

// errPanic marks an engine panic turned into an error.
var errPanic = errors.New("chattemplate: engine panic")

// Render renders the template. Errors wrap ErrBadInput (including a
// *RaiseError from raise_exception) or ErrUnsupported.
func (t *Template) Render(in Input) (out string, err error) {
	if in.ContinueFinalMessage && in.AddGenerationPrompt {
		return "", fmt.Errorf("chattemplate: continue_final_message and add_generation_prompt cannot both be set: %w", ErrBadInput)
	}
	if in.ContinueFinalMessage && len(in.Messages) == 0 {
		return "", fmt.Errorf("chattemplate: continue_final_message needs a final message: %w", ErrBadInput)
	}
	data := make(map[string]jinja.Value, 8+len(t.globals)+len(in.Kwargs))
	for _, k := range t.globalOrder {
		data[k] = t.globals[k]
	}
	for _, f := range in.Kwargs {
		if reserved[f.Key] {
			return "", fmt.Errorf("chattemplate: kwarg %q would redefine a template input: %w", f.Key, ErrBadInput)
		}
		v, err := toValue(f.Value, 0)
		if err != nil {
			return "", fmt.Errorf("chattemplate: kwarg %q: %w", f.Key, err)
		}
		data[f.Key] = v
	}
	msgs, err := toValue(in.Messages, 0)
	if err != nil {
		return "", fmt.Errorf("chattemplate: messages: %w", err)
	}
	data["messages"] = msgs
	if data["tools"], err = toValue(in.Tools, 0); err != nil {
		return "", fmt.Errorf("chattemplate: tools: %w", err)
	}
	if data["documents"], err = toValue(in.Documents, 0); err != nil {
		return "", fmt.Errorf("chattemplate: documents: %w", err)
	}
	data["add_generation_prompt"] = jinja.NewBool(in.AddGenerationPrompt)
	data["raise_exception"] = jinja.NewCallable("raise_exception", raiseException)
	data["strftime_now"] = strftimeNow(t.now)
	data[tojsonName] = jinja.NewCallable("tojson", filterTojson)

	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("chattemplate: render: %v: %w", r, errors.Join(errPanic, ErrBadInput))
		}
	}()
	out, err = t.tmpl.RenderValues(data)
	if err != nil {
		var re *RaiseError
		if errors.As(err, &re) {
			return "", fmt.Errorf("chattemplate: render: %w", re)
		}
		return "", fmt.Errorf("chattemplate: render: %v: %w", err, ErrBadInput)
	}
	if in.ContinueFinalMessage {
		return continueFinal(out, in.Messages[len(in.Messages)-1])
	}
	return out, nil
}

func raiseException(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	msg := ""
	if len(args) > 0 {
		if args[0].IsString() {
			msg = args[0].AsString()
		} else {
			msg = args[0].String()
		}
	}
	return jinja.Undefined(), &RaiseError{Message: msg}
}
